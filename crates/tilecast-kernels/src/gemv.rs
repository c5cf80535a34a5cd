//! Matrix-vector product `y[N] = W[N, K] x[K]`, the decode step of a linear layer: memory-bound
//! on `W`, so each row is read once, as wide loads, by one subgroup.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Kernel, ceil_div, sym};

use crate::grid::{flat_block, flat_grid};

/// Rows per threadgroup (one per subgroup of 32 at 256 threads).
const ROWS: u32 = 8;
/// K per step where threadgroup memory allows: 8 x 1024 f32 of W (32 KiB) plus the x chunk,
/// 8 vector loads per thread in flight; half that on 32 KiB devices.
fn k_chunk(profile: &tilecast_lang::Profile) -> u32 {
    if profile.max_shared_bytes >= 40 * 1024 { 1024 } else { 512 }
}

/// `y = W x` with `W`, `x` and `y` of `dtype`, accumulated in f32. Arguments `W`, `X`, `Y`.
pub fn gemv(dtype: DType, profile: &tilecast_lang::Profile) -> Ir {
    let kc = k_chunk(profile);
    let (n, kd) = (sym("N"), sym("K"));
    let blocks = ceil_div(&n, ROWS);
    let k = Kernel::new("gemv").grid(flat_grid(&blocks)).threads(256);
    let w = k.input("W", dtype, [&n, &kd]);
    let x = k.input("X", dtype, [&kd]);
    let y = k.param("Y", dtype, [&n]);
    let (wt, xt) =
        (k.shared_named("w", DType::F32, [ROWS, kc]), k.shared_named("x", DType::F32, [kc]));
    let acc = k.shared_named("acc", DType::F32, [ROWS]);
    let row0 = flat_block(&blocks) * ROWS;
    k.clear(&acc);
    k.serial(ceil_div(&kd, kc), |k, j| {
        let k0 = j * kc;
        k.copy(w.tile([row0.clone(), k0.clone()]), &wt);
        k.copy(x.tile([k0]), &xt);
        k.parallel([ROWS, kc], |k, [i, q]| {
            k.store(&wt, [&i, &q], wt.at([&i, &q]) * xt.at([&q]));
        });
        k.reduce_sum_into(&wt, &acc, 1);
    });
    k.copy(&acc, y.tile([row0]));
    k.build()
}
