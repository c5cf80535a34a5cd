//! CPU references, written independently of the tile language (plain loops, f64 accumulation).

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
