//! Registry entries of the quantized family: `qgemv` (`NxK`, options: the format, `rows=M`,
//! `group=G`) and `qgemm` (`MxNxK`, options: the format, `group=G`). The format is an option
//! (`14336x4096,q4_0`); the entry's type is the activations'.

use std::sync::{Arc, OnceLock};

use tilecast_lang::{DType, Profile, compile};

use super::{Packed, WeightFormat, activations, gemv, int8, pack, unpack};
use crate::gemm::GemmKind;
use crate::gemm::entries::family_plan;
use crate::gemm::expected::expected_by;
use crate::harness::test_values;
use crate::registry::{
    About, ArgSpec, Bound, Entry, Expected, Fixed, FixedValues, Launch, Options, Plan, Problem,
    Slot, Strategy, Tolerance,
};

/// Activation types, default first.
const ACTIVATIONS: &[DType] = &[DType::F16, DType::BF16, DType::F32];

/// Default MLX group size.
pub const DEFAULT_GROUP: usize = 64;

/// The problem's format (default `q4_0`), group and activation rows.
pub fn layout(p: &Problem) -> (WeightFormat, usize, usize) {
    (
        p.options.format.unwrap_or(WeightFormat::Q4_0),
        p.options.group.unwrap_or(DEFAULT_GROUP),
        p.options.rows.unwrap_or(1),
    )
}

/// Seeded weights for `p`'s `[n, k]` matrix, packed: the arguments and the reference both
/// build them, so the reference sees the exact words (test values reach references as f32).
fn weights(p: &Problem, n: usize, kd: usize) -> Packed {
    let (format, group, _) = layout(p);
    let w = test_values(n * kd, 0x5eed_0000 + (n * 31 + kd) as u64).unwrap_or_default();
    pack(format, &w, kd, group, p.dtype).unwrap_or(Packed::Ggml(Vec::new()))
}

/// The weight arguments (`W`, then `S`, `B` for MLX) of an `[n, kd]` matrix, packed once when
/// a run first asks for their values.
fn weight_args(p: &Problem, n: usize, kd: usize) -> Vec<ArgSpec> {
    let (format, group, _) = layout(p);
    let packed: Arc<OnceLock<Packed>> = Arc::new(OnceLock::new());
    let part = |pick: fn(&Packed) -> Fixed| {
        let (packed, p) = (packed.clone(), p.clone());
        FixedValues::new(move || pick(packed.get_or_init(|| weights(&p, n, kd))))
    };
    fn bytes(w: &Packed) -> Fixed {
        Fixed::Bytes(if let Packed::Ggml(b) = w { b.clone() } else { Vec::new() })
    }
    fn words(w: &Packed) -> Fixed {
        Fixed::Words(if let Packed::Mlx(a) = w { a.words.clone() } else { Vec::new() })
    }
    fn scales(w: &Packed) -> Fixed {
        Fixed::Floats(if let Packed::Mlx(a) = w { a.scales.clone() } else { Vec::new() })
    }
    fn biases(w: &Packed) -> Fixed {
        Fixed::Floats(if let Packed::Mlx(a) = w { a.biases.clone() } else { Vec::new() })
    }
    let rb = format.row_bytes(kd);
    match format.mlx_bits() {
        None => vec![ArgSpec::fixed("W", DType::U8, &[n, rb], part(bytes))],
        Some(_) => vec![
            ArgSpec::fixed("W", DType::U32, &[n, rb / 4], part(words)),
            ArgSpec::fixed("S", p.dtype, &[n, kd / group], part(scales)),
            ArgSpec::fixed("B", p.dtype, &[n, kd / group], part(biases)),
        ],
    }
}

/// `Y[m, n] = X[m, :] · W[n, :]` in f64 from the unpacked weights: every output, or a
/// sample of them for large problems.
fn reference(p: &Problem, x: &[f32], m: usize, n: usize, kd: usize) -> Expected {
    let (format, group, _) = layout(p);
    let w = unpack(format, &weights(p, n, kd), kd, group).unwrap_or_default();
    expected_by([m, n, kd], |r, c| {
        let row = &w[c * kd..(c + 1) * kd];
        let xr = &x[r * kd..(r + 1) * kd];
        row.iter().zip(xr).map(|(a, b)| a * *b as f64).sum::<f64>() as f32
    })
}

/// The format and group the inputs' shapes show (`X [.., K]`, then the weights): MLX (four
/// inputs) by its words per row and scales per row, `q8_0` by its 34 bytes per 32 values.
/// `q4_0` and `q4_k` both take 4.5 bits per value: the caller names which.
fn infer_format(shapes: &[Vec<usize>]) -> Options {
    let k = shapes.first().and_then(|x| x.last()).copied().unwrap_or(0);
    let cols = |i: usize| shapes.get(i).and_then(|s| s.get(1)).copied().unwrap_or(0);
    let (w, s) = (cols(1), cols(2));
    let mut o = Options::default();
    if k == 0 {
        return o;
    }
    if shapes.len() == 4 && s > 0 {
        o.format = match 32 * w / k {
            4 => Some(WeightFormat::Mlx4),
            8 => Some(WeightFormat::Mlx8),
            _ => None,
        };
        o.group = Some(k / s);
    } else if shapes.len() == 2 && w * 32 == k * 34 {
        o.format = Some(WeightFormat::Q8_0);
    }
    o
}

/// Options from the inputs' shapes (Python): rows from X, the format where the shapes show it.
fn infer(shapes: &[Vec<usize>]) -> (Options, Vec<(usize, usize)>) {
    let rows = shapes.first().and_then(|x| x.first()).copied();
    (Options { rows, ..infer_format(shapes) }, Vec::new())
}

fn check(p: &Problem) -> Result<(), String> {
    let rows = layout(p).2;
    if !(1..=8).contains(&rows) {
        return Err(format!(
            "rows = {rows}: qgemv takes 1 to 8 activation rows (use qgemm beyond)"
        ));
    }
    check_format(p)
}

/// The format and group size: given, and a group only for MLX.
fn check_format(p: &Problem) -> Result<(), String> {
    let (format, group, _) = layout(p);
    if p.options.format.is_none() {
        return Err("needs a weight format: q4_0, q8_0, q4_k, mlx4 or mlx8 (`,q4_0` after the shape, --dtype q4_0, or format=\"q4_0\" in Python; q4_0 and q4_k weights have the same shape)".into());
    }
    if p.options.group.is_some() && format.mlx_bits().is_none() {
        return Err(format!("{format} has no group size (only mlx4 and mlx8 take group=)"));
    }
    format.check(*p.dims.last().unwrap_or(&0), group)
}

/// `qgemv`.
pub fn qgemv_entry() -> Entry {
    Entry::planned(
        About {
            name: "qgemv",
            summary: "Y[M,N] = X[M,K] W[N,K]^T, W quantized (q4_0, q8_0, q4_k, mlx4, mlx8), 1 to 8 rows; options: format, rows, group",
            dims: &["N", "K"],
            dtypes: ACTIVATIONS,
            // Ragged N, K of whole blocks; every format with 1, 3 and 8 rows. q4_k, and q4_0,
            // q8_0 and mlx4 with K a multiple of 64, run on integer dot products (37x128,
            // 37x192: a masked last step; 5x16448: two steps; 8200x1088: 16 threads per row;
            // 12300x1088 with 6 rows: 8); the rest decode a slice at a time (q4_0 blocks start
            // mid-word on odd rows of 37 x 96; 5x2080: rows of 260 slices, a masked second
            // step).
            quick: &[
                "37x128,q4_0",
                "37x192,q8_0",
                "21x512,q4_k",
                "37x128,mlx4",
                "37x192,mlx8,group=32",
                "19x256,mlx4,group=128",
                "37x96,q4_0",
                "37x96,q8_0",
                "37x96,q4_0,rows=3",
                "13x320,q4_0,rows=8",
                "5x16448,q4_0,rows=3",
                "23x192,q8_0,rows=3",
                "37x96,q8_0,rows=3",
                "11x64,q8_0,rows=8",
                "21x512,q4_k,rows=3",
                "9x512,q4_k,rows=8",
                "37x128,mlx4,rows=3",
                "30x256,mlx4,rows=5",
                "11x128,mlx4,rows=8",
                "37x192,mlx8,rows=3",
                "13x64,mlx8,group=32,rows=8",
                "5x2080,q4_0,rows=8",
                // Integer dot products, 16 threads per row over two steps (the second masked);
                // one and two rows quantize their activations in the product itself.
                "8200x1088,q4_0",
                "8200x1088,q4_0,rows=2",
                "37x192,q8_0,rows=2",
                "8200x1088,q8_0,rows=3",
                "8200x1088,q8_0",
                "8200x1280,q4_k",
                "8200x1088,mlx4",
                // 32 running dot products per thread (4 weight rows for each of 8 activation rows).
                "5x16448,q4_0,rows=8",
                // Six activation rows: 8 threads per row and part (2 parts) in threadgroups of
                // 512, three steps.
                "12300x1088,q4_0,rows=6",
                // Activation rows split over threads decoding the same weights: 2 parts at 4
                // rows (a masked second step), 4 parts of q4_0 and q8_0 and 2 of mlx4 at 8
                // (ragged N).
                "37x1088,q4_0,rows=4",
                "301x1088,q4_0,rows=8",
                "301x1088,q8_0,rows=8",
                "301x1088,mlx4,rows=8",
            ],
            full: &[
                "14336x4096,q4_0",
                "14336x4096,mlx4",
                "14336x4096,q8_0",
                "14336x4096,q4_k",
                "14336x4096,mlx8",
                "14336x4096,q4_0,rows=8",
                "14336x4096,mlx4,rows=8",
                "4096x14336,q4_0",
            ],
            bound: Bound::Memory,
        },
        |p, profile| Ok(qgemv_plan(p, profile)),
        |p| {
            let (n, kd) = (p.dims[0], p.dims[1]);
            let rows = layout(p).2;
            let mut a = vec![ArgSpec::input("X", p.dtype, &[rows, kd])];
            a.extend(weight_args(p, n, kd));
            a.push(ArgSpec::output("Y", p.dtype, &[rows, n]));
            a
        },
        |p, ins| {
            let (n, kd, rows) = (p.dims[0], p.dims[1], layout(p).2);
            vec![reference(p, &ins[0], rows, n, kd)]
        },
        |p| {
            let (format, kd) = (layout(p).0, p.dims[1]);
            let t = Tolerance::stored_as(p.dtype, 1e-5);
            // int8 activations: each within half a step of its block's 127 levels, so for
            // values in [-1, 1] the error spreads as 0.0013 sqrt(K); 0.01 sqrt(K) is 7 sigma.
            let rounding = if int8::takes(format, kd) { 0.01 * (kd as f64).sqrt() } else { 0.0 };
            Tolerance { abs: t.abs + 2e-6 * kd as f64 + rounding, ..t }
        },
    )
    .with_check(check)
    .with_flops(|p| 2.0 * (p.dims[0] * p.dims[1] * layout(p).2) as f64)
    .with_options(&["format", "rows", "group"], infer)
}

/// How `qgemv` runs `p` on `profile`: on integer dot products ([`int8`]) where the format and
/// row length allow and the product's tiles fit the profile's threadgroup memory (the most
/// running dot products per thread that fit, [`int8::dots`]): in one launch that quantizes the
/// activations into threadgroup memory where [`int8::stages_activations`] says it pays, else
/// after a launch that quantizes them; otherwise one launch of the float kernel.
pub fn qgemv_plan(p: &Problem, profile: &Profile) -> Plan {
    let (format, group, rows) = layout(p);
    let (n, kd) = (p.dims[0], p.dims[1]);
    use activations::Activations::{Quantized, Staged};
    let product = int8::takes(format, kd)
        .then(|| {
            [Staged, Quantized].into_iter().find_map(|acts| {
                int8::dots(format, rows)
                    .iter()
                    .copied()
                    .filter(|&dots| {
                        acts == Quantized || int8::stages_activations(format, [rows, n, kd], dots)
                    })
                    .map(|dots| int8::qgemv_int8(format, p.dtype, [rows, n, kd, group], dots, acts))
                    .find(|ir| compile(ir, profile).is_ok())
                    .map(|ir| (ir, acts))
            })
        })
        .flatten();
    let Some((product, acts)) = product else {
        return Plan::single(gemv::qgemv(format, p.dtype, rows, n, kd, group));
    };
    if acts == Staged {
        return Plan::single(product);
    }
    let scratch = vec![
        ArgSpec::output("Xq", DType::U32, &[rows, kd / 4]),
        ArgSpec::output("Xds", DType::F32, &[rows, kd / 16]),
    ];
    let quantize = Launch {
        ir: activations::quantize_activations(p.dtype, rows, kd, activations::Order::of(format)),
        bind: [Slot::Arg(0)].into_iter().chain((0..2).map(Slot::Scratch)).collect(),
    };
    // The entry's arguments: X, the weights (W, or W, S, B), Y.
    let weights = if format.mlx_bits().is_some() { 3 } else { 1 };
    let product = Launch {
        ir: product,
        bind: (0..2).map(Slot::Scratch).chain((1..=weights + 1).map(Slot::Arg)).collect(),
    };
    Plan { strategy: Strategy::Fixed, scratch, launches: vec![quantize, product] }
}

/// `qgemm`.
pub fn qgemm_entry() -> Entry {
    Entry::planned(
        About {
            name: "qgemm",
            summary: "Y[M,N] = X[M,K] W[N,K]^T, W quantized (q4_0, q8_0, q4_k, mlx4, mlx8), W tiles decoded into threadgroup memory for the gemm; options: format, group",
            dims: &["M", "N", "K"],
            dtypes: &[DType::F16],
            quick: &[
                "33x37x96,q4_0",
                "33x37x96,q8_0",
                "20x21x512,q4_k",
                "70x37x128,mlx4",
                "33x37x192,mlx8,group=32",
                "17x19x256,mlx4,group=128",
                // Decoded once (from 256 rows): ragged N and a K tail past the last slice.
                "300x37x96,q4_0",
                "260x21x512,q4_k",
                "257x19x192,mlx8,group=64",
            ],
            full: &[
                "4096x14336x4096,q4_0",
                "4096x14336x4096,q8_0",
                "4096x14336x4096,q4_k",
                "4096x14336x4096,mlx4",
                "512x14336x4096,q4_0",
                "128x14336x4096,q4_0",
            ],
            bound: Bound::Compute,
        },
        family_plan(GemmKind::Quantized),
        |p| {
            let (m, n, kd) = (p.dims[0], p.dims[1], p.dims[2]);
            let mut a = vec![ArgSpec::input("X", p.dtype, &[m, kd])];
            a.extend(weight_args(p, n, kd));
            a.push(ArgSpec::output("Y", p.dtype, &[m, n]));
            a
        },
        |p, ins| vec![reference(p, &ins[0], p.dims[0], p.dims[1], p.dims[2])],
        |p| {
            // Weights are rounded to f16 as they are staged.
            let t = Tolerance::stored_as(p.dtype, 1e-3);
            Tolerance { abs: t.abs + 1e-5 * p.dims[2] as f64, ..t }
        },
    )
    .with_check(check_format)
    .with_flops(|p| 2.0 * (p.dims[0] * p.dims[1] * p.dims[2]) as f64)
    .with_options(&["format", "group"], |shapes| (infer_format(shapes), Vec::new()))
}
