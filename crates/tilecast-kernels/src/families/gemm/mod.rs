//! The gemm family: `C = A x B` with a pipelined K loop over shared tiles and a fragment
//! accumulator, and everything built on it (linear, batched gemm, bf16 and fp8 paths).
//!
//! One decision, one place: [`strategy::decide`] turns a problem, a profile and the caller's
//! (or the tuning file's) tiles into a [`GemmStrategy`], and [`strategy::launches`] turns that
//! into the launches every caller runs (tests, bench, emit, Python).
//!
//! - [`config`]: tiles ([`GemmConfig`]) and the shape heuristics that pick them;
//! - this file: the f32/f16/fp8 kernels (`gemm`, `scaled_gemm`) and their shared K loop;
//! - [`linear`]: `Y = X W^T + Bias` and the batched gemm;
//! - [`bf16`]: bf16 in one launch on f16 matrix units (scales searched per threadgroup);
//! - [`bf16_plan`]: bf16 and fp8 as several launches (operands converted once, then f16);
//! - `prescaled`: registry entries for weights converted once (`scale_rows_f16`, ...);
//! - `entries`: the family's registry entries, and `expected`: their expected outputs (every
//!   element, or a sample of a large problem's);
//! - [`tuning`]: tiles tuned per device, and the file they persist in;
//! - `workgroup`: the one rule by which a problem takes the workgroup-scope tile (NVIDIA).

pub mod bf16;
pub mod bf16_plan;
pub mod config;
pub(crate) mod entries;
pub(crate) mod expected;
pub mod linear;
pub(crate) mod prescaled;
#[cfg(test)]
mod quantized_tests;
pub mod strategy;
pub mod tuning;
mod workgroup;

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, block_x, block_y, ceil_div, sym};

pub(crate) use config::staged_type;
pub use config::{GemmConfig, GemmPath, GemmStrategy, bf16_on_matrix_units};
pub use strategy::GemmKind;

/// The operands of [`k_loop`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operands {
    /// A gemm's `A[M, K]` and `B[K, N]` (tiles `A_shared`, `B_shared`), the steps pipelined
    /// over `cfg.stages`.
    Gemm,
    /// A linear's `X[M, K]` and `W[N, K]` (tiles `X_shared`, `W_shared`), `W` multiplied
    /// transposed, one step at a time.
    Linear,
}

/// The K loop the gemm and linear kernels share: windows of both operands (of `cfg.input`)
/// copied into shared tiles and multiplied into a cleared `[bm, bn]` fragment of `acc_type`,
/// which it returns; `kd` is K, a symbol or a constant.
pub(crate) fn k_loop(
    k: &Kernel,
    cfg: &GemmConfig,
    operands: Operands,
    [a, b]: [&tilecast_lang::GlobalParam; 2],
    acc_type: DType,
    kd: &Expr,
) -> tilecast_lang::TileRef {
    let GemmConfig { bm, bn, bk, stages, input, .. } = *cfg;
    let linear = operands == Operands::Linear;
    // bf16 and fp8 have no arithmetic type: they are decoded exactly as they are loaded (see
    // `staged_type`): bf16 to f32, never overflowing as f16 would; fp8 to f16.
    let staged = staged_type(input);
    let (a_s, b_s) = if linear {
        (k.shared_named("X_shared", staged, [bm, bk]), k.shared_named("W_shared", staged, [bn, bk]))
    } else {
        (k.shared_named("A_shared", staged, [bm, bk]), k.shared_named("B_shared", staged, [bk, bn]))
    };
    let acc = k.fragment_named("acc", acc_type, [bm, bn]);
    let (bx, by) = (block_x(), block_y());
    k.clear(&acc);
    let step = |k: &Kernel, ko: Expr| {
        k.copy(a.tile([&by * bm, &ko * bk]), &a_s);
        if linear {
            k.copy(b.tile([&bx * bn, &ko * bk]), &b_s);
            k.gemm_t(&a_s, &b_s, &acc, false, true);
        } else {
            k.copy(b.tile([&ko * bk, &bx * bn]), &b_s);
            k.gemm(&a_s, &b_s, &acc);
        }
    };
    if linear {
        k.serial(ceil_div(kd, bk), step);
    } else {
        k.pipelined(ceil_div(kd, bk), stages, step);
    }
    acc
}

/// The gemm kernel for `cfg`; shapes M, N, K are symbols bound at launch.
pub fn gemm(cfg: &GemmConfig) -> Ir {
    gemm_dims(cfg, sym("M"), sym("N"), sym("K"))
}

/// The gemm kernel for `cfg` with M, N and K fixed: on workgroup-scope matrices NVIDIA's
/// driver runs tensor-addressed loads whose row pitches it knows at compile time faster (3.7x
/// at f16 4096^3), and windows the compiler proves inside (a whole number of tiles) load
/// unclamped.
pub fn gemm_fixed(cfg: &GemmConfig, [m, n, kd]: [u32; 3]) -> Ir {
    gemm_dims(cfg, Expr::from(m), Expr::from(n), Expr::from(kd))
}

fn gemm_dims(cfg: &GemmConfig, m: Expr, n: Expr, kd: Expr) -> Ir {
    let GemmConfig { bm, bn, threads, input, output, .. } = *cfg;
    let k = Kernel::new("gemm").grid([ceil_div(&n, bn), ceil_div(&m, bm)]).threads(threads);
    let (a, b, c) = (
        k.input("A", input, [&m, &kd]),
        k.input("B", input, [&kd, &n]),
        k.param("C", output, [&m, &n]),
    );
    let acc = k_loop(&k, cfg, Operands::Gemm, [&a, &b], output, &kd);
    let (bx, by) = (block_x(), block_y());
    k.copy(&acc, c.tile([&by * bm, &bx * bn]));
    k.build()
}

/// How `scaled_gemm` scales its fp8 inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scales {
    /// One f32 scale per tensor, as scalar arguments `scale_a`, `scale_b`.
    PerTensor,
    /// f32 vectors: `SA[M]` per row of A, `SB[N]` per column of B.
    PerRow,
}

/// `C = (A * sa) x (B * sb)` for fp8 (or bf16) A and B: operands decoded exactly on load (fp8
/// to f16, on matrix units where the device has them; bf16 to f32), accumulated in f32, scaled
/// in the epilogue (what TileLang's `fp8_scaled_matmul` offers).
/// Arguments: A, B, [SA, SB,] C, then [scale_a, scale_b] for `Scales::PerTensor`.
pub fn scaled_gemm(cfg: &GemmConfig, scales: Scales) -> Ir {
    scaled_gemm_dims(cfg, scales, sym("M"), sym("N"), sym("K"))
}

/// [`scaled_gemm`] with M, N and K fixed, for workgroup-scope matrices (see [`gemm_fixed`]):
/// the scales run as a per-element operation there.
pub fn scaled_gemm_fixed(cfg: &GemmConfig, scales: Scales, [m, n, kd]: [u32; 3]) -> Ir {
    scaled_gemm_dims(cfg, scales, Expr::from(m), Expr::from(n), Expr::from(kd))
}

fn scaled_gemm_dims(cfg: &GemmConfig, scales: Scales, m: Expr, n: Expr, kd: Expr) -> Ir {
    let GemmConfig { bm, bn, threads, input, .. } = *cfg;
    let k = Kernel::new("scaled_gemm").grid([ceil_div(&n, bn), ceil_div(&m, bm)]).threads(threads);
    let (a, b) = (k.input("A", input, [&m, &kd]), k.input("B", input, [&kd, &n]));
    let row_scales = (scales == Scales::PerRow)
        .then(|| (k.input("SA", DType::F32, [&m]), k.input("SB", DType::F32, [&n])));
    let c = k.param("C", DType::F32, [&m, &n]);
    let tensor_scales = (scales == Scales::PerTensor)
        .then(|| (k.scalar("scale_a", DType::F32), k.scalar("scale_b", DType::F32)));
    let acc = k_loop(&k, cfg, Operands::Gemm, [&a, &b], DType::F32, &kd);
    let (bx, by) = (block_x(), block_y());
    k.parallel([bm, bn], |k, [i, j]| {
        let scale = match (&row_scales, &tensor_scales) {
            (Some((sa, sb)), _) => sa.at([&by * bm + &i]) * sb.at([&bx * bn + &j]),
            (_, Some((ta, tb))) => ta.clone() * tb.clone(),
            _ => unreachable!("one kind of scale is declared"),
        };
        k.store(&acc, [&i, &j], acc.at([&i, &j]) * scale);
    });
    k.copy(&acc, c.tile([&by * bm, &bx * bn]));
    k.build()
}
