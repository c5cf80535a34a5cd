//! MLX's affine quantization (`mx.quantize(w, group_size, bits)`, mode "affine"), as MLX's CPU
//! back end computes it (`mlx/backend/cpu/quantized.cpp`): per group of `group` values along a
//! row, a scale and a bias in the weights' own type, and `bits`-bit levels packed little-end
//! first into u32 words (`32 / bits` levels a word). A value is `scale * q + bias`.

use half::{bf16, f16};
use tilecast_lang::DType;

use crate::error::{Error, Result};

/// Group sizes MLX takes.
pub const GROUPS: [usize; 3] = [32, 64, 128];

/// An affine-quantized matrix: `words [N, K * bits / 32]`, `scales` and `biases [N, K / group]`
/// (values of the weights' type, widened to f32).
#[derive(Clone, Debug, PartialEq)]
pub struct Affine {
    /// Packed levels.
    pub words: Vec<u32>,
    /// One scale per group.
    pub scales: Vec<f32>,
    /// One bias per group.
    pub biases: Vec<f32>,
}

/// `x` rounded to `dtype` (f32, f16 or bf16) and widened back.
fn round_to(dtype: DType, x: f32) -> f32 {
    match dtype {
        DType::F16 => f16::from_f32(x).to_f32(),
        DType::BF16 => bf16::from_f32(x).to_f32(),
        _ => x,
    }
}

fn check(bits: u32, group: usize, k: usize, dtype: DType) -> Result<()> {
    let err = |message: String| Error::Quantize { format: format!("mlx{bits}"), message };
    if bits != 4 && bits != 8 {
        return Err(err(format!("{bits} bits: MLX affine formats here are 4 or 8 bits")));
    }
    if !GROUPS.contains(&group) {
        return Err(err(format!("group size {group}: MLX takes 32, 64 or 128")));
    }
    if k == 0 || !k.is_multiple_of(group) {
        return Err(err(format!(
            "rows of {k} values are not a whole number of {group}-value groups"
        )));
    }
    if !matches!(dtype, DType::F32 | DType::F16 | DType::BF16) {
        return Err(err(format!(
            "weights of type {dtype}: scales and biases are f32, f16 or bf16"
        )));
    }
    Ok(())
}

/// Quantizes `w` (rows of `k` values of type `dtype`, widened to f32) to `bits` bits in
/// groups of `group`. Per group: the scale spans `[min, max]` over `2^bits - 1` levels, signed
/// so the edge of larger magnitude is exactly a level; the bias is that edge (0 if it rounds to
/// level 0); levels are `clamp(rint((w - bias) / scale), 0, 2^bits - 1)`; all in f32, scale and
/// bias then stored in `dtype`.
pub fn quantize(w: &[f32], k: usize, bits: u32, group: usize, dtype: DType) -> Result<Affine> {
    check(bits, group, k, dtype)?;
    let n_bins = ((1u32 << bits) - 1) as f32;
    let per_word = (32 / bits) as usize;
    let groups = w.len() / group;
    let mut out = Affine {
        words: Vec::with_capacity(w.len() / per_word),
        scales: Vec::with_capacity(groups),
        biases: Vec::with_capacity(groups),
    };
    for g in w.chunks(group) {
        let lo = g.iter().fold(f32::INFINITY, |a, &v| a.min(v));
        let hi = g.iter().fold(f32::NEG_INFINITY, |a, &v| a.max(v));
        let low_edge = lo.abs() > hi.abs();
        let step = ((hi - lo) / n_bins).max(1e-7);
        let mut scale = if low_edge { step } else { -step };
        let edge = if low_edge { lo } else { hi };
        let q0 = (edge / scale).round_ties_even();
        let mut bias = 0.0f32;
        if q0 != 0.0 {
            scale = edge / q0;
            bias = edge;
        }
        for word in g.chunks(per_word) {
            let mut packed = 0u32;
            for (i, &v) in word.iter().enumerate() {
                let q = ((v - bias) / scale).round_ties_even().clamp(0.0, n_bins) as u32;
                packed |= q << (i as u32 * bits);
            }
            out.words.push(packed);
        }
        out.scales.push(round_to(dtype, scale));
        out.biases.push(round_to(dtype, bias));
    }
    Ok(out)
}

/// The values of `a` (rows of `k`): `scale * q + bias`, each operation rounded to `dtype` as
/// MLX computes in the weights' type.
pub fn dequantize(a: &Affine, k: usize, bits: u32, group: usize, dtype: DType) -> Result<Vec<f32>> {
    check(bits, group, k, dtype)?;
    let per_word = (32 / bits) as usize;
    let n = a.words.len() * per_word;
    if a.scales.len() * group != n || a.biases.len() != a.scales.len() {
        return Err(Error::Quantize {
            format: format!("mlx{bits}"),
            message: format!(
                "{} words hold {n} values, but {} scales and {} biases of {group}-value groups cover {}",
                a.words.len(),
                a.scales.len(),
                a.biases.len(),
                a.scales.len() * group
            ),
        });
    }
    let mask = (1u32 << bits) - 1;
    Ok((0..n)
        .map(|i| {
            let q = (a.words[i / per_word] >> ((i % per_word) as u32 * bits)) & mask;
            let (s, b) = (a.scales[i / group], a.biases[i / group]);
            round_to(dtype, round_to(dtype, s * q as f32) + b)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_by_hand() {
        // min -0.5, max 0.3: the low edge is larger, scale 0.8 / 15, -0.5 / scale = -9.375
        // rounds to -9, so scale = -0.5 / -9 and bias = -0.5 (what mx.quantize gives).
        let w: Vec<f32> = [0.1f32, -0.5, 0.3, 0.2].repeat(8);
        let a = quantize(&w, 32, 4, 32, DType::F32).unwrap();
        assert_eq!(a.scales, [-0.5f32 / -9.0]);
        assert_eq!(a.biases, [-0.5]);
        assert_eq!(a.words.len(), 4);
        // 0.1 -> rint(0.6 / 0.0556) = 11, -0.5 -> 0, 0.3 -> rint(14.4) = 14, 0.2 -> 13.
        assert_eq!(a.words[0] & 0xFFFF, 11 | (14 << 8) | (13 << 12));
        let back = dequantize(&a, 32, 4, 32, DType::F32).unwrap();
        assert!(back.iter().zip(&w).all(|(b, w)| (b - w).abs() <= 0.03));
    }

    #[test]
    fn bad_parameters_are_errors() {
        let w = [0.0f32; 96];
        let e = quantize(&w, 96, 4, 64, DType::F16).unwrap_err().to_string();
        assert!(e.contains("rows of 96 values are not a whole number of 64-value groups"), "{e}");
        let e = quantize(&w, 96, 4, 48, DType::F16).unwrap_err().to_string();
        assert!(e.contains("group size 48: MLX takes 32, 64 or 128"), "{e}");
        let e = quantize(&w, 96, 3, 32, DType::F16).unwrap_err().to_string();
        assert!(e.contains("3 bits"), "{e}");
    }
}
