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

/// `Y[i, :] = X[i, :] * max(X[i, :] · Q[0, :], X[i, :] · Q[1, :])` for f16 `X[M, 128]` and
/// `Q[2, 128]` (f32 `Y`), 16 rows per threadgroup: a decode-shaped copy. Rows of `X` load as
/// vectors although the loop reading them also reads a shared tile at the column index, and
/// each dot product is a row reduction into a row statistic that stays in the row's 8 lanes.
pub fn row_dots() -> Ir {
    const ROWS: u32 = 16;
    const D: u32 = 128;
    let m = sym("M");
    let k = Kernel::new("row_dots").grid([ceil_div(&m, ROWS)]).threads(128);
    let x = k.input("X", DType::F16, [m.clone(), Expr::from(D)]);
    let q = k.input("Q", DType::F16, [2u32, D]);
    let y = k.param("Y", DType::F32, [m, Expr::from(D)]);
    let q_s = k.shared_named("q_s", DType::F32, [2, D]);
    let xf = k.fragment_named("x_rows", DType::F16, [ROWS, D]);
    let prod = k.fragment_named("prod", DType::F32, [ROWS, D]);
    let (dot, best) =
        (k.fragment_named("dot", DType::F32, [ROWS]), k.fragment_named("best", DType::F32, [ROWS]));
    k.parallel([2, D], |k, [r, c]| k.store(&q_s, [&r, &c], q.at([&r, &c]).cast(DType::F32)));
    let origin = || [block_x() * ROWS, Expr::from(0u32)];
    k.copy(x.tile(origin()), &xf);
    k.fill(&best, Expr::neg_inf());
    for r in 0..2u32 {
        k.parallel([ROWS, D], |k, [i, c]| {
            let qc = q_s.at([Expr::from(r), c.clone()]);
            k.store(&prod, [&i, &c], xf.at([&i, &c]).cast(DType::F32) * qc);
        });
        k.reduce_sum(&prod, &dot, 1);
        k.parallel([ROWS], |k, [i]| k.store(&best, [&i], best.at([&i]).max(dot.at([&i]))));
    }
    k.parallel([ROWS, D], |k, [i, c]| {
        k.store(&prod, [&i, &c], xf.at([&i, &c]).cast(DType::F32) * best.at([&i]));
    });
    k.copy(&prod, y.tile(origin()));
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
