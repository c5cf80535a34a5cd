//! Matrix products with quantized weights: for decode (1 to 8 activation rows) [`int8`]'s
//! integer dot products on int8 activations where the format allows, else the float kernel
//! [`gemv::qgemv`]; [`gemm::qgemm`] for prefill; over GGUF `q8_0`, `q4_0`, `q4_k` and MLX
//! affine 4- and 8-bit weights laid out byte for byte as their tools write them
//! (`docs/quantization.md`).
//!
//! The float kernels read the weights in *units*: the values one thread decodes at a time from
//! the words that hold them (a GGUF block of 32, half a chunk of a `q4_k` super-block, 32 MLX
//! levels). [`WeightFormat::unit_values`] says how many, [`decode`] builds the tile-language
//! code that loads a unit's words once and turns them into weight values; both go through it.
//!
//! They are two problems by design, not two ways of one: each its own entry (`qgemv`: `NxK`, 1
//! to 8 rows, f16, bf16 or f32 activations, memory-bound kernels with fixed constants;
//! `qgemm`: `MxNxK`, f16), and the caller names which. How a `qgemm` runs (fused or decoded
//! once, its tiles) is the gemm family's decision, [`crate::gemm::GemmKind::Quantized`].

pub mod activations;
pub mod decode;
pub mod entries;
pub mod gemm;

pub mod gemv;
pub mod int8;

use std::fmt;

use tilecast_lang::DType;

use crate::error::{Error, Result};
use crate::quant::{self, QuantFormat, mlx};

/// A quantized weight format, as the kernels read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WeightFormat {
    /// GGUF `q8_0`: 34-byte blocks of 32 (an f16 scale, 32 int8).
    Q8_0,
    /// GGUF `q4_0`: 18-byte blocks of 32 (an f16 scale, 16 bytes of nibbles).
    Q4_0,
    /// GGUF `q4_k`: 144-byte super-blocks of 256.
    Q4K,
    /// MLX affine, 4 bits: u32 words of 8 levels, a scale and a bias per group.
    Mlx4,
    /// MLX affine, 8 bits: u32 words of 4 levels, a scale and a bias per group.
    Mlx8,
}

impl WeightFormat {
    /// Every format.
    pub const ALL: [WeightFormat; 5] = [
        WeightFormat::Q4_0,
        WeightFormat::Q8_0,
        WeightFormat::Q4K,
        WeightFormat::Mlx4,
        WeightFormat::Mlx8,
    ];

    /// The name a user writes (`q4_0`, `mlx4`, ...).
    pub fn name(self) -> &'static str {
        match self {
            WeightFormat::Q8_0 => "q8_0",
            WeightFormat::Q4_0 => "q4_0",
            WeightFormat::Q4K => "q4_k",
            WeightFormat::Mlx4 => "mlx4",
            WeightFormat::Mlx8 => "mlx8",
        }
    }

    /// The format called `name`, if any.
    pub fn parse(name: &str) -> Option<WeightFormat> {
        let name = name.to_ascii_lowercase();
        WeightFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The GGUF format, for the GGUF ones.
    pub fn ggml(self) -> Option<QuantFormat> {
        match self {
            WeightFormat::Q8_0 => Some(QuantFormat::Q8_0),
            WeightFormat::Q4_0 => Some(QuantFormat::Q4_0),
            WeightFormat::Q4K => Some(QuantFormat::Q4K),
            _ => None,
        }
    }

    /// Bits per level, for the MLX ones.
    pub fn mlx_bits(self) -> Option<u32> {
        match self {
            WeightFormat::Mlx4 => Some(4),
            WeightFormat::Mlx8 => Some(8),
            _ => None,
        }
    }

    /// Values a thread decodes at a time: a GGUF block, 64 of a `q4_k` super-block (two
    /// sub-blocks sharing its 32 bytes of nibbles), 32 MLX levels (4 or 8 words).
    pub fn unit_values(self) -> usize {
        match self {
            WeightFormat::Q4K => 64,
            _ => 32,
        }
    }

    /// What `k` must be a multiple of: the block (GGUF) or the group (MLX).
    pub fn k_multiple(self, group: usize) -> usize {
        match self.ggml() {
            Some(f) => f.block_len(),
            None => group,
        }
    }

    /// Checks a problem's `k` and group size, with the error a user reads.
    pub fn check(self, k: usize, group: usize) -> std::result::Result<(), String> {
        if self.mlx_bits().is_some() && !mlx::GROUPS.contains(&group) {
            return Err(format!("group size {group}: {} takes 32, 64 or 128", self.name()));
        }
        let m = self.k_multiple(group);
        if k == 0 || !k.is_multiple_of(m) {
            let what = if self.ggml().is_some() { "block" } else { "group" };
            return Err(format!("K = {k} is not a multiple of {}'s {m}-value {what}", self.name()));
        }
        Ok(())
    }

    /// Bytes of one row of `k` packed values (words, for MLX), scales and biases excluded.
    pub fn row_bytes(self, k: usize) -> usize {
        match (self.ggml(), self.mlx_bits()) {
            (Some(f), _) => k / f.block_len() * f.block_bytes(),
            (_, Some(bits)) => k * bits as usize / 8,
            _ => unreachable!("every format is GGUF or MLX"),
        }
    }
}

impl fmt::Display for WeightFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Weights packed in a format: the bytes (GGUF) or words, scales and biases (MLX).
#[derive(Clone, Debug, PartialEq)]
pub enum Packed {
    /// GGUF rows, `[N, row_bytes]`.
    Ggml(Vec<u8>),
    /// MLX words `[N, K * bits / 32]`, scales and biases `[N, K / group]` (values of the
    /// activation type, widened).
    Mlx(mlx::Affine),
}

/// `w` (`[n, k]`) packed as `format`; MLX scales and biases in `dtype`.
pub fn pack(
    format: WeightFormat,
    w: &[f32],
    k: usize,
    group: usize,
    dtype: DType,
) -> Result<Packed> {
    match (format.ggml(), format.mlx_bits()) {
        (Some(f), _) => Ok(Packed::Ggml(quant::quantize(f, w, k)?)),
        (_, Some(bits)) => Ok(Packed::Mlx(mlx::quantize(w, k, bits, group, dtype)?)),
        _ => Err(Error::Quantize { format: format.name().into(), message: "no packing".into() }),
    }
}

/// The weights `packed` holds, each exactly as the kernels compute it (MLX: `scale * q +
/// bias` unrounded, in f64), `[n, k]`.
pub fn unpack(format: WeightFormat, packed: &Packed, k: usize, group: usize) -> Result<Vec<f64>> {
    match (packed, format.ggml(), format.mlx_bits()) {
        (Packed::Ggml(b), Some(f), _) => {
            Ok(quant::dequantize(f, b, k)?.into_iter().map(f64::from).collect())
        }
        (Packed::Mlx(a), _, Some(bits)) => {
            let per = (32 / bits) as usize;
            let mask = (1u32 << bits) - 1;
            let n = a.scales.len() * group / k.max(1);
            let mut out = Vec::with_capacity(n * k);
            for r in 0..n {
                for c in 0..k {
                    let i = r * k + c;
                    let q = (a.words[i / per] >> (bits as usize * (i % per))) & mask;
                    let g = r * (k / group) + c / group;
                    out.push(a.scales[g] as f64 * q as f64 + a.biases[g] as f64);
                }
            }
            Ok(out)
        }
        _ => Err(Error::Quantize {
            format: format.name().into(),
            message: "packed weights of another format".into(),
        }),
    }
}
