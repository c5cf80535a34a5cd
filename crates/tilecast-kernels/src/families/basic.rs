//! Small kernels that exercise each op of the language: copies, elementwise math on fragments,
//! reductions over a serial loop, and a fused softmax.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, block_x, block_y, ceil_div, select, sym};

const BM: u32 = 32;
const BN: u32 = 64;

/// `Y = X` through a shared tile, for any [M, N].
pub fn copy(dtype: DType) -> Ir {
    let (m, n) = (sym("M"), sym("N"));
    let k = Kernel::new("copy").grid([ceil_div(&n, BN), ceil_div(&m, BM)]).threads(128);
    let (x, y) = (k.input("X", dtype, [&m, &n]), k.param("Y", dtype, [&m, &n]));
    let t = k.shared_named("tile", dtype, [BM, BN]);
    let (bx, by) = (block_x(), block_y());
    k.copy(x.tile([&by * BM, &bx * BN]), &t);
    k.copy(&t, y.tile([&by * BM, &bx * BN]));
    k.build()
}

/// `Z = gelu(X + Y)` with the erf form of gelu, on fragments (f32).
pub fn add_gelu() -> Ir {
    let (m, n) = (sym("M"), sym("N"));
    let k = Kernel::new("add_gelu").grid([ceil_div(&n, BN), ceil_div(&m, BM)]).threads(128);
    let (x, y, z) = (
        k.input("X", DType::F32, [&m, &n]),
        k.input("Y", DType::F32, [&m, &n]),
        k.param("Z", DType::F32, [&m, &n]),
    );
    let (fx, fy) =
        (k.fragment_named("x", DType::F32, [BM, BN]), k.fragment_named("y", DType::F32, [BM, BN]));
    let (bx, by) = (block_x(), block_y());
    k.copy(x.tile([&by * BM, &bx * BN]), &fx);
    k.copy(y.tile([&by * BM, &bx * BN]), &fy);
    k.parallel([BM, BN], |k, [i, j]| {
        let v = fx.at([&i, &j]) + fy.at([&i, &j]);
        k.store(
            &fx,
            [&i, &j],
            (v.clone() * 0.5f32) * ((v * std::f32::consts::FRAC_1_SQRT_2).erf() + 1.0f32),
        );
    });
    k.copy(&fx, z.tile([&by * BM, &bx * BN]));
    k.build()
}

/// `Y[i] = sum_j X[i, j]` (f32): a serial loop over column tiles accumulating a shared vector.
pub fn row_sum() -> Ir {
    let (m, n) = (sym("M"), sym("N"));
    let k = Kernel::new("row_sum").grid([ceil_div(&m, BM)]).threads(128);
    let (x, y) = (k.input("X", DType::F32, [&m, &n]), k.param("Y", DType::F32, [&m]));
    let t = k.shared_named("tile", DType::F32, [BM, BN]);
    let acc = k.shared_named("acc", DType::F32, [BM]);
    let bx = block_x();
    k.clear(&acc);
    k.serial(ceil_div(&n, BN), |k, j| {
        k.copy(x.tile([&bx * BM, &j * BN]), &t);
        k.reduce_sum_into(&t, &acc, 1);
    });
    k.copy(&acc, y.tile([&bx * BM]));
    k.build()
}

/// Row softmax of X [M, N] for N <= 128 (f32), fused: masked load, max, exp, sum, scale, store.
pub fn softmax() -> Ir {
    const W: u32 = 128;
    let (m, n) = (sym("M"), sym("N"));
    let k = Kernel::new("softmax").grid([ceil_div(&m, BM)]).threads(128);
    let (x, y) = (k.input("X", DType::F32, [&m, &n]), k.param("Y", DType::F32, [&m, &n]));
    let t = k.shared_named("rows", DType::F32, [BM, W]);
    let (mx, sum) =
        (k.shared_named("row_max", DType::F32, [BM]), k.shared_named("row_sum", DType::F32, [BM]));
    let bx = block_x();
    k.copy(x.tile([&bx * BM, Expr::from(0u32)]), &t);
    // Columns past N read as zero; make them -inf so they vanish from max and sum.
    k.parallel([BM, W], |k, [i, j]| {
        k.store(&t, [&i, &j], select(j.clone().lt(&n), t.at([&i, &j]), Expr::neg_inf()));
    });
    k.reduce_max(&t, &mx, 1);
    k.parallel([BM, W], |k, [i, j]| {
        k.store(&t, [&i, &j], (t.at([&i, &j]) - mx.at([&i])).exp());
    });
    k.reduce_sum(&t, &sum, 1);
    k.parallel([BM, W], |k, [i, j]| {
        k.store(&t, [&i, &j], t.at([&i, &j]) / sum.at([&i]));
    });
    k.copy(&t, y.tile([&bx * BM, Expr::from(0u32)]));
    k.build()
}
