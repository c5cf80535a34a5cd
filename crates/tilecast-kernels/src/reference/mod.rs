//! CPU references, written independently of the tile language (plain loops, f64 accumulation):
//! gemm and the number formats here, every other operation in [`ops`].

pub mod ops;

/// `C[M,N] = A[M,K] x B[K,N]`, row-major, accumulated in f64.
pub fn gemm(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut c = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0f64;
            for p in 0..k {
                s += a[i * k + p] as f64 * b[p * n + j] as f64;
            }
            c[i * n + j] = s as f32;
        }
    }
    c
}

/// erf via its Maclaurin series near 0 and the continued-fraction tail elsewhere (f64).
pub fn erf(x: f64) -> f64 {
    if x.abs() < 2.0 {
        let mut sum = x;
        let mut term = x;
        for n in 1..60 {
            term *= -x * x / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        let t = x.abs();
        let mut f = 0.0;
        for n in (1..80).rev() {
            f = n as f64 / 2.0 / (t + f);
        }
        let erfc = (-t * t).exp() / std::f64::consts::PI.sqrt() / (t + f);
        x.signum() * (1.0 - erfc)
    }
}

/// gelu(v) = v/2 (1 + erf(v / sqrt 2)).
pub fn gelu(v: f64) -> f64 {
    0.5 * v * (1.0 + erf(v / std::f64::consts::SQRT_2))
}

/// Row sums of X [M, N].
pub fn row_sum(x: &[f32], m: usize, n: usize) -> Vec<f32> {
    (0..m).map(|i| x[i * n..(i + 1) * n].iter().map(|&v| v as f64).sum::<f64>() as f32).collect()
}

/// Row softmax of X [M, N].
pub fn softmax(x: &[f32], m: usize, n: usize) -> Vec<f32> {
    let mut y = vec![0f32; m * n];
    for i in 0..m {
        let row = &x[i * n..(i + 1) * n];
        let mx = row.iter().fold(f64::MIN, |a, &v| a.max(v as f64));
        let e: Vec<f64> = row.iter().map(|&v| (v as f64 - mx).exp()).collect();
        let s: f64 = e.iter().sum();
        for j in 0..n {
            y[i * n + j] = (e[j] / s) as f32;
        }
    }
    y
}

/// fp8 e4m3 (OCP "fn": no infinities, 0x7f and 0xff are NaN) from its definition.
pub fn e4m3_to_f32(b: u8) -> f32 {
    if b & 0x7f == 0x7f {
        return f32::NAN;
    }
    let (e, m) = (((b >> 3) & 15) as i32, (b & 7) as f64);
    let v = if e == 0 { m / 8.0 * 2f64.powi(-6) } else { (1.0 + m / 8.0) * 2f64.powi(e - 7) };
    (if b & 0x80 != 0 { -v } else { v }) as f32
}

/// fp8 e5m2 (IEEE-like: bias 15, infinities and NaNs) from its definition.
pub fn e5m2_to_f32(b: u8) -> f32 {
    let (e, m) = (((b >> 2) & 31) as i32, (b & 3) as f64);
    let v = match e {
        0 => m / 4.0 * 2f64.powi(-14),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 4.0) * 2f64.powi(e - 15),
    };
    (if b & 0x80 != 0 { -v } else { v }) as f32
}

/// The fp8 code torch's `to(float8_e4m3fn)` gives `v`, found by search rather than bit
/// arithmetic (so it checks the kernels' encoder independently): the nearest point of the
/// grid of finite codes extended by one step past the largest (480, where code 0x7f sits),
/// ties to the even code; landing on that step, beyond it, or NaN gives NaN (0x7f).
pub fn f32_to_e4m3(v: f32) -> u8 {
    static GRID: std::sync::OnceLock<Vec<(f64, u8)>> = std::sync::OnceLock::new();
    let grid = GRID.get_or_init(|| fp8_grid(e4m3_to_f32, 0x7e, 480.0, 0x7f));
    fp8_by_search(v, grid, 0x7f)
}

/// As [`f32_to_e4m3`] for `to(float8_e5m2)`: past 57344 the next step is 65536, where the
/// infinity code 0x7c sits; NaN gives 0x7f.
pub fn f32_to_e5m2(v: f32) -> u8 {
    static GRID: std::sync::OnceLock<Vec<(f64, u8)>> = std::sync::OnceLock::new();
    let grid = GRID.get_or_init(|| fp8_grid(e5m2_to_f32, 0x7b, 65536.0, 0x7c));
    fp8_by_search(v, grid, 0x7f)
}

/// Codes 0..=`max_code` (non-negative, increasing in value) with their values, and the
/// overflow step `step` (code `over`) after them.
fn fp8_grid(decode: fn(u8) -> f32, max_code: u8, step: f64, over: u8) -> Vec<(f64, u8)> {
    (0..=max_code).map(|c| (decode(c) as f64, c)).chain([(step, over)]).collect()
}

/// Nearest grid point to |v| (ties to the even code), past the last point the last code; signs
/// mirrored; NaN gives `nan`.
fn fp8_by_search(v: f32, grid: &[(f64, u8)], nan: u8) -> u8 {
    let sign = if v.is_sign_negative() { 0x80 } else { 0 };
    if v.is_nan() {
        return sign | nan;
    }
    let a = (v as f64).abs();
    let i = grid.partition_point(|&(x, _)| x < a);
    let code = match (i.checked_sub(1).map(|j| grid[j]), grid.get(i)) {
        (Some((lo, cl)), Some(&(hi, ch))) => {
            let (dl, dh) = (a - lo, hi - a);
            if dl < dh || (dl == dh && cl & 1 == 0) { cl } else { ch }
        }
        (Some((_, c)), None) | (None, Some(&(_, c))) => c,
        (None, None) => unreachable!("the grid is never empty"),
    };
    sign | code
}
