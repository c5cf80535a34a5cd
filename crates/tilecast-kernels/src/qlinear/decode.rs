//! A format's decoder, in the tile language: the parameters its weights arrive in, and the code
//! that loads one unit's words (once each, as lets) and describes its values as scaled levels.
//! The GGUF formats read a u8 parameter a word at a time (`W.word(i)`); blocks of 18 and 34
//! bytes start at even byte offsets, so a unit's words are realigned by half a word where the
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

/// Values of a unit sharing a scale and bias: value `i` is `scale * levels[i] + bias`, and
/// sits at `offset + i` within the unit.
pub struct Part {
    /// f32 scale.
    pub scale: Expr,
    /// f32 bias, if any.
    pub bias: Option<Expr>,
    /// Position of the first value within the unit.
    pub offset: usize,
    /// f32 levels.
    pub levels: Vec<Expr>,
}

/// Unit `u` of row `row`: loads its words (lets) and returns its values as [`Part`]s covering
/// [`WeightFormat::unit_values`] values. `u` must be a valid unit; rows past the matrix read
/// zeros or the next row's words (their results are never stored).
pub fn unit(
    k: &Kernel,
    format: WeightFormat,
    p: &WeightParams,
    row: &Expr,
    u: &Expr,
    kd: usize,
    group: usize,
) -> Vec<Part> {
    match format {
        WeightFormat::Q4_0 => {
            let a = block_words(k, p, row, u, format.row_bytes(kd), 18);
            let levels = (0..32)
                .map(|i| {
                    let b = 2 + i % 16;
                    let nib = a[b / 4].clone().bits(8 * (b as u32 % 4) + 4 * (i as u32 / 16), 4);
                    nib.cast(DType::F32) - 8.0f32
                })
                .collect();
            vec![Part { scale: half_lo(&a[0]), bias: None, offset: 0, levels }]
        }
        WeightFormat::Q8_0 => {
            let a = block_words(k, p, row, u, format.row_bytes(kd), 34);
            let levels = (0..32)
                .map(|i| {
                    a[(2 + i) / 4].clone().signed_bits(8 * ((2 + i) as u32 % 4), 8).cast(DType::F32)
                })
                .collect();
            vec![Part { scale: half_lo(&a[0]), bias: None, offset: 0, levels }]
        }
        WeightFormat::Q4K => q4_k(k, p, row, u, kd),
        WeightFormat::Mlx4 | WeightFormat::Mlx8 => {
            let bits = format.mlx_bits().unwrap_or(4);
            let (s, b) = p.affine.as_ref().expect("MLX weights come with scales and biases");
            let words = bits as usize; // 32 levels of `bits` bits
            let w: Vec<Expr> = (0..words)
                .map(|t| {
                    k.let_named(
                        &format!("w{t}"),
                        p.w.at([row.clone(), u.clone() * words as u32 + t as u32]),
                    )
                })
                .collect();
            let per = (32 / bits) as usize;
            let levels = (0..32)
                .map(|i| w[i / per].clone().bits(bits * (i % per) as u32, bits).cast(DType::F32))
                .collect();
            let g = u.clone() * 32u32 / group as u32;
            let scale = k.let_named("scale", s.at([row.clone(), g.clone()]).cast(DType::F32));
            let bias = k.let_named("bias", b.at([row.clone(), g]).cast(DType::F32));
            vec![Part { scale, bias: Some(bias), offset: 0, levels }]
        }
    }
}

/// The f16 in the low half of a word, as f32.
fn half_lo(w: &Expr) -> Expr {
    w.clone().bits(0, 16).bitcast(DType::F16).cast(DType::F32)
}

/// The words of GGUF block `u` of `row` (`bytes`-byte blocks at even offsets), realigned so
/// word `t` holds the block's bytes `4t .. 4t + 4`: loaded whole, then, where the block
/// starts in the upper half of a word, each aligned word is the upper half of one loaded
/// word and the lower half of the next.
fn block_words(
    k: &Kernel,
    p: &WeightParams,
    row: &Expr,
    u: &Expr,
    row_bytes: usize,
    bytes: usize,
) -> Vec<Expr> {
    let start = k.let_named("start", row.clone() * row_bytes as u32 + u.clone() * bytes as u32);
    // Blocks of 18 and 34 bytes: the last aligned word needs only its lower half, which
    // lies in the last loaded word either way.
    let words = bytes.div_ceil(4);
    let first = start.clone() / 4u32;
    let loaded: Vec<Expr> = (0..words)
        .map(|t| k.let_named(&format!("w{t}"), p.w.word(first.clone() + t as u32)))
        .collect();
    let odd = k.let_named("odd", (start / 2u32 % 2u32).eq_(1u32));
    (0..words)
        .map(|t| {
            let upper = loaded[t].clone() >> 16u32;
            let shifted = match loaded.get(t + 1) {
                Some(next) => upper | (next.clone() << 16u32),
                None => upper,
            };
            k.let_named(&format!("a{t}"), select(odd.clone(), shifted, loaded[t].clone()))
        })
        .collect()
}

/// A `q4_k` unit: chunk `u % 4` (32 bytes of nibbles) of super-block `u / 4`, its low
/// nibbles sub-block `2c`, its high ones `2c + 1`, each with its 6-bit scale and min.
fn q4_k(k: &Kernel, p: &WeightParams, row: &Expr, u: &Expr, kd: usize) -> Vec<Part> {
    let row_words = (kd / 256 * 36) as u32;
    let base = k.let_named("base", row.clone() * row_words + u.clone() / 4u32 * 36u32);
    let c = k.let_named("chunk", u.clone() % 4u32);
    let head = k.let_named("head", p.w.word(base.clone()));
    let d = half_lo(&head);
    let dmin = (head >> 16u32).bitcast(DType::F16).cast(DType::F32);
    let sw: Vec<Expr> = (0..3)
        .map(|t| k.let_named(&format!("sc{t}"), p.w.word(base.clone() + (1 + t) as u32)))
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
    let pick = |half: usize, which: usize| -> Expr {
        let v = |chunk: usize| {
            let (s, m) = scale_min(2 * chunk + half);
            if which == 0 { s } else { m }
        };
        select(
            c.clone().lt(2u32),
            select(c.clone().eq_(0u32), v(0), v(1)),
            select(c.clone().eq_(2u32), v(2), v(3)),
        )
        .cast(DType::F32)
    };
    let q: Vec<Expr> = (0..8)
        .map(|t| {
            k.let_named(
                &format!("q{t}"),
                p.w.word(base.clone() + 4u32 + c.clone() * 8u32 + t as u32),
            )
        })
        .collect();
    (0..2)
        .map(|half| {
            let scale = k.let_named(&format!("d{half}"), d.clone() * pick(half, 0));
            let bias = k.let_named(&format!("m{half}"), -(dmin.clone() * pick(half, 1)));
            let levels = (0..32)
                .map(|i| {
                    q[i / 4].clone().bits(8 * (i as u32 % 4) + 4 * half as u32, 4).cast(DType::F32)
                })
                .collect();
            Part { scale, bias: Some(bias), offset: 32 * half, levels }
        })
        .collect()
}
