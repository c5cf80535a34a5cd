//! A format's decoder, in the tile language: the parameters its weights arrive in, and the code
//! that loads one *slice* of a unit (the words one thread decodes at a time) and describes its
//! values as scaled levels. Neighbouring threads take neighbouring slices, so both the weights
//! and the activations they meet are read in contiguous runs across a subgroup.
//!
//! The GGUF formats read a u8 parameter a word at a time (`W.word(i)`); their 18- and 34-byte
//! blocks start at even byte offsets, so a slice's word is realigned by half a word where the
//! block starts mid-word. MLX words are a u32 parameter.

use tilecast_lang::{DType, Expr, GlobalParam, Kernel, select};

use super::WeightFormat;

/// The parameters one quantized matrix arrives in.
pub struct WeightParams {
    /// The packed weights: u8 `[N, row_bytes]` (GGUF) or u32 words `[N, K * bits / 32]` (MLX).
    pub w: GlobalParam,
    /// MLX scales and biases `[N, K / group]`, in the activation type.
    pub affine: Option<(GlobalParam, GlobalParam)>,
}

/// Declares the inputs of `format` for an `[n, kd]` matrix (`W`, then `S` and `B` for MLX).
pub fn declare(
    k: &Kernel,
    format: WeightFormat,
    act: DType,
    n: usize,
    kd: usize,
    group: usize,
) -> WeightParams {
    let n = n as u32;
    match format.mlx_bits() {
        Some(bits) => WeightParams {
            w: k.input("W", DType::U32, [n, (kd * bits as usize / 32) as u32]),
            affine: Some((
                k.input("S", act, [n, (kd / group) as u32]),
                k.input("B", act, [n, (kd / group) as u32]),
            )),
        },
        None => WeightParams {
            w: k.input("W", DType::U8, [n, format.row_bytes(kd) as u32]),
            affine: None,
        },
    }
}

/// Consecutive values of a slice sharing a scale and bias: value `i` is `scale * levels[i] +
/// bias` and sits at column `first + i` of its row.
pub struct Part {
    /// f32 scale.
    pub scale: Expr,
    /// f32 bias, if any.
    pub bias: Option<Expr>,
    /// Column of the first value.
    pub first: Expr,
    /// f32 levels.
    pub levels: Vec<Expr>,
}

/// Slices per unit: one word of levels each (a GGUF block's 16 or 32 bytes of levels in 4
/// or 8, a `q4_k` chunk's 32 bytes in 8, an MLX unit's 4 or 8 words).
pub fn slices_per_unit(format: WeightFormat) -> usize {
    match format {
        WeightFormat::Q4_0 | WeightFormat::Mlx4 => 4,
        _ => 8,
    }
}

/// The column (within its row) of the first value of each [`Part`] [`slice()`] returns for slice
/// `s` of unit `u`, in the same order: where a slice's values land, apart from loading them
/// (a caller that clamps a slice index for its loads still places values by the real one).
pub fn slice_columns(format: WeightFormat, u: &Expr, s: &Expr) -> Vec<Expr> {
    let col = |off: Expr| u.clone() * format.unit_values() as u32 + off;
    match format {
        WeightFormat::Q4_0 => (0..2u32).map(|half| col(s.clone() * 4u32 + 16 * half)).collect(),
        WeightFormat::Q8_0 => vec![col(s.clone() * 4u32)],
        WeightFormat::Q4K => (0..2u32).map(|half| col(s.clone() * 4u32 + 32 * half)).collect(),
        WeightFormat::Mlx4 | WeightFormat::Mlx8 => {
            vec![col(s.clone() * (32 / format.mlx_bits().unwrap_or(4)))]
        }
    }
}

/// Slice `s` of unit `u` of `row`: loads its words (lets) and returns its values as
/// [`Part`]s. `u` and `s` must be valid; rows past the matrix read zeros or the next rows'
/// words (their results are never stored).
#[allow(clippy::too_many_arguments)]
pub fn slice(
    k: &Kernel,
    format: WeightFormat,
    p: &WeightParams,
    row: &Expr,
    u: &Expr,
    s: &Expr,
    kd: usize,
    group: usize,
) -> Vec<Part> {
    let uv = format.unit_values() as u32;
    let firsts = slice_columns(format, u, s);
    match format {
        WeightFormat::Q4_0 => {
            let (d, a) = block_slice(k, p, row, u, s, format.row_bytes(kd), 18);
            (0..2u32)
                .map(|half| Part {
                    scale: d.clone(),
                    bias: None,
                    first: firsts[half as usize].clone(),
                    levels: (0..4)
                        .map(|i| a.clone().bits(8 * i + 4 * half, 4).cast(DType::F32) - 8.0f32)
                        .collect(),
                })
                .collect()
        }
        WeightFormat::Q8_0 => {
            let (d, a) = block_slice(k, p, row, u, s, format.row_bytes(kd), 34);
            vec![Part {
                scale: d,
                bias: None,
                first: firsts[0].clone(),
                levels: (0..4).map(|i| a.clone().signed_bits(8 * i, 8).cast(DType::F32)).collect(),
            }]
        }
        WeightFormat::Q4K => q4_k(k, p, row, u, s, kd, &firsts),
        WeightFormat::Mlx4 | WeightFormat::Mlx8 => {
            let bits = format.mlx_bits().unwrap_or(4);
            let (sc, b) = p.affine.as_ref().expect("MLX weights come with scales and biases");
            let per = 32 / bits;
            let w = k.let_named("w", p.w.at([row.clone(), u.clone() * bits + s]));
            let g = u.clone() * uv / group as u32;
            vec![Part {
                scale: k.let_named("scale", sc.at([row.clone(), g.clone()]).cast(DType::F32)),
                bias: Some(k.let_named("bias", b.at([row.clone(), g]).cast(DType::F32))),
                first: firsts[0].clone(),
                levels: (0..per).map(|i| w.clone().bits(bits * i, bits).cast(DType::F32)).collect(),
            }]
        }
    }
}

/// The f16 scale (as f32) and slice `s`'s word of levels of GGUF block `u` of `row`
/// (`bytes`-byte blocks, starting at even offsets). The levels start 2 bytes into the block:
/// where the block starts on a word, the slice straddles two words and is rebuilt from their
/// halves; where it starts mid-word, the slice is one word and the scale the upper half of
/// the block's first word.
fn block_slice(
    k: &Kernel,
    p: &WeightParams,
    row: &Expr,
    u: &Expr,
    s: &Expr,
    row_bytes: usize,
    bytes: usize,
) -> (Expr, Expr) {
    let start = k.let_named("start", row.clone() * row_bytes as u32 + u.clone() * bytes as u32);
    let mid = k.let_named("mid", (start.clone() / 2u32 % 2u32).eq_(1u32));
    let head = k.let_named("head", p.w.word(start.clone() / 4u32));
    let d = select(mid.clone(), head.clone() >> 16u32, head.bits(0, 16));
    let d = k.let_named("d", d.bitcast(DType::F16).cast(DType::F32));
    let at = (start + 2u32) / 4u32 + s.clone();
    let lo = k.let_named("lo", p.w.word(at.clone()));
    let hi = k.let_named("hi", p.w.word(at + 1u32));
    let a = select(mid, lo.clone(), (lo >> 16u32) | (hi << 16u32));
    (d, k.let_named("levels", a))
}

/// A `q4_k` slice: word `s` of chunk `u % 4` (32 bytes of nibbles) of super-block `u / 4`:
/// its low nibbles are values `4s..4s + 4` of sub-block `2c`, its high ones of `2c + 1`, each
/// sub-block with its 6-bit scale and min.
fn q4_k(
    k: &Kernel,
    p: &WeightParams,
    row: &Expr,
    u: &Expr,
    s: &Expr,
    kd: usize,
    firsts: &[Expr],
) -> Vec<Part> {
    let row_words = (kd / 256 * 36) as u32;
    let base = k.let_named("base", row.clone() * row_words + u.clone() / 4u32 * 36u32);
    let c = k.let_named("chunk", u.clone() % 4u32);
    let scales = q4_k_scales(k, &p.w, &base, &c);
    let q = k.let_named("levels", p.w.word(base + 4u32 + c.clone() * 8u32 + s));
    scales
        .into_iter()
        .zip(0..2u32)
        .map(|((scale, bias), half)| Part {
            scale,
            bias: Some(bias),
            first: firsts[half as usize].clone(),
            levels: (0..4).map(|i| q.clone().bits(8 * i + 4 * half, 4).cast(DType::F32)).collect(),
        })
        .collect()
}

/// The f32 scale and bias (`d * sc`, `-(dmin * m)`) of sub-blocks `2c` and `2c + 1` of the
/// `q4_k` super-block whose first word is word `base` of `w`: the sub-blocks whose levels are
/// the low and the high nibbles of chunk `c` (0..4).
pub fn q4_k_scales(k: &Kernel, w: &GlobalParam, base: &Expr, c: &Expr) -> [(Expr, Expr); 2] {
    let head = k.let_named("head", w.word(base.clone()));
    let d = head.clone().bits(0, 16).bitcast(DType::F16).cast(DType::F32);
    let dmin = (head >> 16u32).bitcast(DType::F16).cast(DType::F32);
    let sw: Vec<Expr> = (0..3)
        .map(|t| k.let_named(&format!("sc{t}"), w.word(base.clone() + (1 + t) as u32)))
        .collect();
    let byte = |i: usize| sw[i / 4].clone().byte(i as u32 % 4);
    // ggml's get_scale_min_k4.
    let scale_min = |j: usize| -> (Expr, Expr) {
        if j < 4 {
            (byte(j) & 63u32, byte(j + 4) & 63u32)
        } else {
            (
                (byte(j + 4) & 15u32) | ((byte(j - 4) >> 6u32) << 4u32),
                (byte(j + 4) >> 4u32) | ((byte(j) >> 6u32) << 4u32),
            )
        }
    };
    let pick = |half: usize, min: bool| -> Expr {
        let v = |chunk: usize| {
            let (s, m) = scale_min(2 * chunk + half);
            if min { m } else { s }
        };
        select(
            c.clone().lt(2u32),
            select(c.clone().eq_(0u32), v(0), v(1)),
            select(c.clone().eq_(2u32), v(2), v(3)),
        )
        .cast(DType::F32)
    };
    [0, 1].map(|half| {
        (
            k.let_named("scale", d.clone() * pick(half, false)),
            k.let_named("bias", -(dmin.clone() * pick(half, true))),
        )
    })
}
