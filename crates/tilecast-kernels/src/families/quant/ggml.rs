//! GGUF's block formats, byte for byte as ggml lays them out (`ggml-common.h`), quantized with
//! the arithmetic of ggml's reference quantizers (`ggml-quants.c`, `quantize_row_*_ref`) in
//! f32, as the `gguf` Python package's `gguf.quants` reproduces them. `Q4_K` has no reference
//! quantizer there; its quantizer here is a plain min-max one (see [`quantize_q4_k`]), whose
//! bytes dequantize exactly as ggml's do.

use half::f16;

/// ggml's `nearest_int`: round to nearest, ties to even.
fn nearest_int(x: f32) -> i32 {
    x.round_ties_even() as i32
}

/// Round half away from zero, in f32 (`roundf`, as `gguf.quants.np_roundf` computes it).
fn roundf(x: f32) -> f32 {
    let a = x.abs();
    let floored = a.floor();
    (floored + (2.0 * (a - floored)).floor()).copysign(x) * if x == 0.0 { 0.0 } else { 1.0 }
}

fn f16_bytes(x: f32) -> [u8; 2] {
    f16::from_f32(x).to_le_bytes()
}

fn f16_at(b: &[u8], at: usize) -> f32 {
    f16::from_le_bytes([b[at], b[at + 1]]).to_f32()
}

/// `Q8_0`: `d = max|x| / 127`, `q = roundf(x / d)` (as `x * (1 / d)`), stored `d: f16, q: [i8;
/// 32]`.
pub fn quantize_q8_0(x: &[f32], out: &mut Vec<u8>) {
    let amax = x.iter().fold(0.0f32, |a, v| a.max(v.abs()));
    let d = amax / 127.0;
    let id = if d == 0.0 { 0.0 } else { 1.0 / d };
    out.extend(f16_bytes(d));
    out.extend(x.iter().map(|&v| roundf(v * id) as i8 as u8));
}

/// `Q8_0` back to f32: `x = d * q`.
pub fn dequantize_q8_0(b: &[u8], out: &mut Vec<f32>) {
    let d = f16_at(b, 0);
    out.extend(b[2..34].iter().map(|&q| q as i8 as f32 * d));
}

/// `Q4_0`: `d = m / -8` for the value `m` of largest magnitude (the first one), `q = min(15,
/// trunc(x / d + 8.5))`; stored `d: f16`, then bytes `q[j] | q[j + 16] << 4`.
pub fn quantize_q4_0(x: &[f32], out: &mut Vec<u8>) {
    let mut max = 0.0f32;
    for &v in x {
        if v.abs() > max.abs() {
            max = v;
        }
    }
    let d = max / -8.0;
    let id = if d == 0.0 { 0.0 } else { 1.0 / d };
    let q = |v: f32| ((v * id + 8.5).trunc() as u8).min(15);
    out.extend(f16_bytes(d));
    out.extend((0..16).map(|j| q(x[j]) | (q(x[j + 16]) << 4)));
}

/// `Q4_0` back to f32: `x[j] = ((b[j] & 15) - 8) * d`, `x[j + 16] = ((b[j] >> 4) - 8) * d`.
pub fn dequantize_q4_0(b: &[u8], out: &mut Vec<f32>) {
    let d = f16_at(b, 0);
    let qs = &b[2..18];
    out.extend(qs.iter().map(|&q| ((q & 15) as i32 - 8) as f32 * d));
    out.extend(qs.iter().map(|&q| ((q >> 4) as i32 - 8) as f32 * d));
}

/// Sub-block `j`'s 6-bit scale and min from `Q4_K`'s 12 packed bytes (ggml's
/// `get_scale_min_k4`).
fn scale_min_k4(j: usize, q: &[u8]) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        ((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4), (q[j + 4] >> 4) | ((q[j] >> 6) << 4))
    }
}

/// `Q4_K`: each of the 8 sub-blocks of 32 gets a scale `(max - min) / 15` and a min
/// `-min(min, 0)` (a min-max quantizer, not llama.cpp's iterative search); these are stored
/// as 6-bit multiples of `d = max scale / 63` and `dmin = max min / 63`, and each value as
/// `q = clamp(nearest((x + dmin * m) / (d * sc)), 0, 15)`. Layout: `d: f16, dmin: f16,
/// scales: [u8; 12], qs: [u8; 128]`, the nibbles of sub-blocks `2i` (low) and `2i + 1` (high)
/// sharing 32 bytes.
pub fn quantize_q4_k(x: &[f32], out: &mut Vec<u8>) {
    let (mut scales, mut mins) = ([0.0f32; 8], [0.0f32; 8]);
    for j in 0..8 {
        let sub = &x[32 * j..32 * (j + 1)];
        let lo = sub.iter().fold(f32::INFINITY, |a, &v| a.min(v)).min(0.0);
        let hi = sub.iter().fold(f32::NEG_INFINITY, |a, &v| a.max(v));
        scales[j] = (hi - lo) / 15.0;
        mins[j] = -lo;
    }
    let max_scale = scales.iter().fold(0.0f32, |a, &v| a.max(v));
    let max_min = mins.iter().fold(0.0f32, |a, &v| a.max(v));
    let inv_scale = if max_scale > 0.0 { 63.0 / max_scale } else { 0.0 };
    let inv_min = if max_min > 0.0 { 63.0 / max_min } else { 0.0 };
    let mut packed = [0u8; 12];
    for j in 0..8 {
        let ls = nearest_int(inv_scale * scales[j]).clamp(0, 63) as u8;
        let lm = nearest_int(inv_min * mins[j]).clamp(0, 63) as u8;
        if j < 4 {
            packed[j] = ls;
            packed[j + 4] = lm;
        } else {
            packed[j + 4] = (ls & 0xF) | ((lm & 0xF) << 4);
            packed[j - 4] |= (ls >> 4) << 6;
            packed[j] |= (lm >> 4) << 6;
        }
    }
    let (d_bytes, dmin_bytes) = (f16_bytes(max_scale / 63.0), f16_bytes(max_min / 63.0));
    let (d, dmin) = (f16_at(&d_bytes, 0), f16_at(&dmin_bytes, 0));
    let mut levels = [0u8; 256];
    for j in 0..8 {
        let (sc, m) = scale_min_k4(j, &packed);
        let dj = d * sc as f32;
        if dj == 0.0 {
            continue;
        }
        let dm = dmin * m as f32;
        for i in 0..32 {
            levels[32 * j + i] = nearest_int((x[32 * j + i] + dm) / dj).clamp(0, 15) as u8;
        }
    }
    out.extend(d_bytes);
    out.extend(dmin_bytes);
    out.extend(packed);
    for chunk in 0..4 {
        let base = 64 * chunk;
        out.extend((0..32).map(|l| levels[base + l] | (levels[base + 32 + l] << 4)));
    }
}

/// `Q4_K` back to f32: `x = (d * sc) * q - dmin * m` per sub-block.
pub fn dequantize_q4_k(b: &[u8], out: &mut Vec<f32>) {
    let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
    let (scales, qs) = (&b[4..16], &b[16..144]);
    for chunk in 0..4 {
        let q = &qs[32 * chunk..32 * (chunk + 1)];
        for (half, shift) in [(0, 0), (1, 4)] {
            let (sc, m) = scale_min_k4(2 * chunk + half, scales);
            let (dl, ml) = (d * sc as f32, dmin * m as f32);
            out.extend(q.iter().map(|&v| dl * ((v >> shift) & 0xF) as f32 - ml));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{QuantFormat, dequantize, quantize};
    use super::*;

    fn values(n: usize, seed: u32) -> Vec<f32> {
        let mut x = seed.wrapping_mul(2654435761) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x >> 8) as f32 / (1 << 24) as f32 * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn q8_0_by_hand() {
        // max |x| = 1.27: d = 0.01; x / d rounds half away from zero.
        let mut x = vec![0.0f32; 32];
        x[0] = 1.27;
        x[1] = -0.015;
        x[2] = 0.005;
        let mut b = Vec::new();
        quantize_q8_0(&x, &mut b);
        assert_eq!(b.len(), 34);
        assert_eq!(f16_at(&b, 0), f16::from_f32(0.01).to_f32());
        assert_eq!((b[2] as i8, b[3] as i8, b[4] as i8), (127, -2, 1));
    }

    #[test]
    fn q4_0_by_hand() {
        // The largest magnitude is -2 (first): d = 0.25; q = trunc(x / 0.25 + 8.5) capped at 15.
        let mut x = vec![0.0f32; 32];
        x[0] = -2.0;
        x[1] = 2.0;
        x[16] = 0.3;
        let mut b = Vec::new();
        quantize_q4_0(&x, &mut b);
        assert_eq!(b.len(), 18);
        assert_eq!(f16_at(&b, 0), 0.25);
        // x0 = -2: -8 + 8.5 -> 0; x16 = 0.3: 1.2 + 8.5 -> 9 (high nibble of byte 0).
        assert_eq!(b[2], 9 << 4);
        // x1 = 2: 8 + 8.5 = 16.5 -> 15 (capped); x17 = 0 -> 8.
        assert_eq!(b[3], 15 | (8 << 4));
        let mut y = Vec::new();
        dequantize_q4_0(&b, &mut y);
        assert_eq!((y[0], y[1], y[16]), (-2.0, 1.75, 0.25));
    }

    #[test]
    fn round_trips_stay_within_a_step() {
        for format in QuantFormat::ALL {
            let k = 512;
            let x = values(3 * k, 7);
            let b = quantize(format, &x, k).unwrap();
            assert_eq!(b.len(), 3 * format.row_bytes(k).unwrap());
            let y = dequantize(format, &b, k).unwrap();
            for (blk, (xs, ys)) in x.chunks(32).zip(y.chunks(32)).enumerate() {
                let range = xs.iter().fold(0.0f32, |a, v| a.max(v.abs()));
                // A step: 2 max / 255 (8 bits), 2 max / 15 (4 bits), and Q4_K's 6-bit scales
                // and f16 d add a little.
                // Q4_0 spans -8 d ..= 7 d, so the extreme opposite the largest clips by up to
                // a whole step.
                let (step, slack) = match format {
                    QuantFormat::Q8_0 => (range / 127.0, 0.51),
                    QuantFormat::Q4_0 => (range / 8.0, 1.0),
                    QuantFormat::Q4K => (2.0 * range / 15.0, 0.51),
                };
                for (a, b) in xs.iter().zip(ys) {
                    let bound = slack * step + 2e-3 * range;
                    assert!((a - b).abs() <= bound, "{format:?} block {blk}: {a} -> {b}");
                }
            }
        }
    }

    #[test]
    fn bad_lengths_are_errors() {
        let e = quantize(QuantFormat::Q4K, &[0.0; 300], 300).unwrap_err().to_string();
        assert!(e.contains("rows of 300 values are not a whole number of 256-value blocks"), "{e}");
        let e = dequantize(QuantFormat::Q4_0, &[0; 19], 32).unwrap_err().to_string();
        assert!(
            e.contains("19 bytes are not whole rows: a row of 32 values takes 18 bytes"),
            "{e}"
        );
        let e = QuantFormat::parse("q3_k").unwrap_err().to_string();
        assert!(e.contains("unknown format; known: q8_0, q4_0, q4_k"), "{e}");
    }
}
