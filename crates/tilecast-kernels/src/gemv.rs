//! Matrix-vector product `y[N] = W[N, K] x[K]`, the decode step of a linear layer: memory-bound
//! on `W`, so each element of it is read once, straight into registers. Each thread keeps
//! running products for the elements of its rows it owns (a fragment), chunk after chunk of
//! K; one reduction in registers at the end gives the row sums.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Kernel, ceil_div, sym};

use crate::grid::{flat_block, flat_grid};

/// Rows per threadgroup. With [`K_CHUNK`], the best of seven (rows, chunk) pairs timed on the
/// H200 (`bench/results/h200-2026-11-23f-gemv-variants.txt`): 4 x 1024 ran 14336x4096 in 43.0
/// us and 4096x14336 in 44.7, against 45.5 and 53.3 for 8 x 1024.
const ROWS: u32 = 4;
/// K per step: 4 x 1024 of W per threadgroup, 16 loads per thread in flight (and as many f32
/// running products), the x chunk in threadgroup memory (4 KiB).
const K_CHUNK: u32 = 1024;

/// `y = W x` with `W`, `x` and `y` of `dtype`, accumulated in f32. Arguments `W`, `X`, `Y`.
pub fn gemv(dtype: DType, _profile: &tilecast_lang::Profile) -> Ir {
    let kc = K_CHUNK;
    let (n, kd) = (sym("N"), sym("K"));
    let blocks = ceil_div(&n, ROWS);
    let k = Kernel::new("gemv").grid(flat_grid(&blocks)).threads(256);
    let w = k.input("W", dtype, [&n, &kd]);
    let x = k.input("X", dtype, [&kd]);
    let y = k.param("Y", dtype, [&n]);
    let wt = k.fragment_named("w", DType::F32, [ROWS, kc]);
    let prod = k.fragment_named("prod", DType::F32, [ROWS, kc]);
    let xt = k.shared_named("x", DType::F32, [kc]);
    let acc = k.shared_named("acc", DType::F32, [ROWS]);
    let row0 = flat_block(&blocks) * ROWS;
    k.clear(&prod);
    k.serial(ceil_div(&kd, kc), |k, j| {
        let k0 = j * kc;
        // Past K both W and x read as 0, so the products there are 0. The x chunk goes
        // through threadgroup memory: on the H200 that ran 14336x4096 in 46 us, reading x
        // from global memory in every row group (no barriers) in 53 us.
        k.copy(w.tile([row0.clone(), k0.clone()]), &wt);
        k.copy(x.tile([k0]), &xt);
        k.parallel([ROWS, kc], |k, [i, q]| {
            k.store(&prod, [&i, &q], prod.at([&i, &q]) + wt.at([&i, &q]) * xt.at([&q]));
        });
    });
    k.reduce_sum(&prod, &acc, 1);
    k.copy(&acc, y.tile([row0]));
    k.build()
}
