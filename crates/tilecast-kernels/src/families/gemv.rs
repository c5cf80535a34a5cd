//! Matrix-vector product `y[N] = W[N, K] x[K]`, the decode step of a linear layer: memory-bound
//! on `W`, so each element of it is read once, straight into registers, and `x` is read from
//! global memory (it stays in cache) at the same columns. Each thread keeps running products
//! for the elements of its rows it owns (a fragment), chunk after chunk of K; one reduction in
//! registers at the end gives the row sums.
//!
//! The kernel is built for its problem: with N and K constants the compiler proves the
//! windows of whole chunks inside `W` and emits their loads without bounds tests or scalar
//! fallbacks (`tilecast emit gemv --shape NxK --target ir`: "proven inside"); a last partial
//! chunk of K is a separate, masked step.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, ceil_div};

use crate::families::grid::{flat_block, flat_grid};

/// Rows per threadgroup. With [`K_CHUNK`], 1 x 1024 over 256 threads is the fastest shape
/// measured on an H200 (two rounds of one run, f16: 14336x4096 in 33.1-33.2 us and 4096x14336
/// in 33.7-33.8, against 33.4-33.7 and 34.7 for 2 x 1024; 2 x 512 and 4 x 512 ran slower).
const ROWS: u32 = 1;
/// K per step: 1 x 1024 of W per threadgroup of 256 threads, one run of 4 columns per thread,
/// the loads of a step issued together.
const K_CHUNK: u32 = 1024;

/// `y = W x` for `W[n, k]`, with `W`, `x` and `y` of `dtype`, accumulated in f32. Arguments
/// `W`, `X`, `Y`.
pub fn gemv(dtype: DType, n: usize, kd: usize, _profile: &tilecast_lang::Profile) -> Ir {
    let (rows, kc) = (ROWS, K_CHUNK);
    let (whole, tail) = (kd as u32 / kc, kd as u32 % kc);
    let (n, kd) = (Expr::from(n as u32), Expr::from(kd as u32));
    let blocks = ceil_div(&n, rows);
    let k = Kernel::new("gemv").grid(flat_grid(&blocks)).threads(256).prefer_wgsl(
        "on an H200 the native module ran 6% slower (14336x4096 f16: 36.1 us, WGSL 33.9), with \
         the same loads proven unmasked",
    );
    let w = k.input("W", dtype, [&n, &kd]);
    let x = k.input("X", dtype, [&kd]);
    let y = k.param("Y", dtype, [&n]);
    let wt = k.fragment_named("w", DType::F32, [rows, kc]);
    let prod = k.fragment_named("prod", DType::F32, [rows, kc]);
    let acc = k.shared_named("acc", DType::F32, [rows]);
    let row0 = flat_block(&blocks) * rows;
    // One chunk of K from column `k0`: past K both W and x read as 0, so the products are 0.
    let step = |k: &Kernel, k0: Expr| {
        k.copy(w.tile([row0.clone(), k0.clone()]), &wt);
        k.parallel([rows, kc], |k, [i, q]| {
            let xv = x.at([k0.clone() + q.clone()]).cast(DType::F32);
            k.store(&prod, [&i, &q], prod.at([&i, &q]) + wt.at([&i, &q]) * xv);
        });
    };
    k.clear(&prod);
    if whole > 0 {
        k.serial(whole, |k, j| step(k, j * kc));
    }
    if tail > 0 {
        step(&k, Expr::from(whole * kc));
    }
    k.reduce_sum(&prod, &acc, 1);
    k.copy(&acc, y.tile([row0]));
    k.build()
}
