//! Quantized weight formats on the CPU: quantize f32 weights into the bytes a format stores
//! and dequantize them back, so users and tests can make weights for the quantized kernels.
//! Each format's layout is written down in `docs/quantization.md`, with its source.
//!
//! - [`ggml`]: GGUF's `Q8_0`, `Q4_0` and `Q4_K` blocks, byte for byte as ggml lays them out.
//! - [`mlx`]: MLX's affine 4- and 8-bit groups, as `mx.quantize` packs them.

pub mod ggml;
pub mod mlx;

use crate::error::{Error, Result};

/// Appends one block's bytes for its values.
type Encode = fn(&[f32], &mut Vec<u8>);
/// Appends one block's values for its bytes.
type Decode = fn(&[u8], &mut Vec<f32>);

/// A quantized weight format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuantFormat {
    /// GGUF `Q8_0`: blocks of 32 values, an f16 scale and 32 int8 (34 bytes).
    Q8_0,
    /// GGUF `Q4_0`: blocks of 32 values, an f16 scale and 16 bytes of nibbles (18 bytes).
    Q4_0,
    /// GGUF `Q4_K`: super-blocks of 256 values in 8 sub-blocks of 32, f16 `d` and `dmin`, 12
    /// bytes of 6-bit scales and mins, 128 bytes of nibbles (144 bytes).
    Q4K,
}

impl QuantFormat {
    /// Every format, by name.
    pub const ALL: [QuantFormat; 3] = [QuantFormat::Q8_0, QuantFormat::Q4_0, QuantFormat::Q4K];

    /// The name a user writes (`q8_0`, `q4_0`, `q4_k`).
    pub fn name(self) -> &'static str {
        match self {
            QuantFormat::Q8_0 => "q8_0",
            QuantFormat::Q4_0 => "q4_0",
            QuantFormat::Q4K => "q4_k",
        }
    }

    /// The format called `name`.
    pub fn parse(name: &str) -> Result<QuantFormat> {
        QuantFormat::ALL.into_iter().find(|f| f.name() == name.to_ascii_lowercase()).ok_or_else(
            || Error::Quantize {
                format: name.into(),
                message: format!(
                    "unknown format; known: {}",
                    QuantFormat::ALL.map(|f| f.name()).join(", ")
                ),
            },
        )
    }

    /// Values per block.
    pub fn block_len(self) -> usize {
        match self {
            QuantFormat::Q8_0 | QuantFormat::Q4_0 => 32,
            QuantFormat::Q4K => 256,
        }
    }

    /// Bytes per block.
    pub fn block_bytes(self) -> usize {
        match self {
            QuantFormat::Q8_0 => 34,
            QuantFormat::Q4_0 => 18,
            QuantFormat::Q4K => 144,
        }
    }

    /// The block encoder and decoder of the format.
    fn codec(self) -> (Encode, Decode) {
        match self {
            QuantFormat::Q8_0 => (ggml::quantize_q8_0, ggml::dequantize_q8_0),
            QuantFormat::Q4_0 => (ggml::quantize_q4_0, ggml::dequantize_q4_0),
            QuantFormat::Q4K => (ggml::quantize_q4_k, ggml::dequantize_q4_k),
        }
    }

    /// Bytes of one quantized row of `k` values, or the error a row length that is not a whole
    /// number of blocks gets.
    pub fn row_bytes(self, k: usize) -> Result<usize> {
        if k == 0 || !k.is_multiple_of(self.block_len()) {
            return Err(Error::Quantize {
                format: self.name().into(),
                message: format!(
                    "rows of {k} values are not a whole number of {}-value blocks",
                    self.block_len()
                ),
            });
        }
        Ok(k / self.block_len() * self.block_bytes())
    }
}

/// Quantizes `weights` (rows of `k` values, row-major) into `format`'s bytes: each row's
/// blocks in order, `row_bytes(k)` bytes per row.
pub fn quantize(format: QuantFormat, weights: &[f32], k: usize) -> Result<Vec<u8>> {
    let row = format.row_bytes(k)?;
    if !weights.len().is_multiple_of(k) {
        return Err(Error::Quantize {
            format: format.name().into(),
            message: format!("{} values are not whole rows of {k}", weights.len()),
        });
    }
    let mut out = Vec::with_capacity(weights.len() / k * row);
    let (encode, _) = format.codec();
    for block in weights.chunks(format.block_len()) {
        encode(block, &mut out);
    }
    Ok(out)
}

/// Dequantizes `bytes` (rows of `k` values in `format`) to f32.
pub fn dequantize(format: QuantFormat, bytes: &[u8], k: usize) -> Result<Vec<f32>> {
    let row = format.row_bytes(k)?;
    if !bytes.len().is_multiple_of(row) {
        return Err(Error::Quantize {
            format: format.name().into(),
            message: format!(
                "{} bytes are not whole rows: a row of {k} values takes {row} bytes",
                bytes.len()
            ),
        });
    }
    let mut out = Vec::with_capacity(bytes.len() / row * k);
    let (_, decode) = format.codec();
    for block in bytes.chunks(format.block_bytes()) {
        decode(block, &mut out);
    }
    Ok(out)
}
