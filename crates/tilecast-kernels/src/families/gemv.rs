//! Matrix-vector product `y[N] = W[N, K] x[K]`, the decode step of a linear layer: memory-bound
//! on `W`, so each element of it is read once, straight into registers, and `x` is read from
//! global memory (it stays in cache) at the same columns. Each thread keeps running products
//! for the elements of its rows it owns (a fragment), chunk after chunk of K; one reduction in
//! registers at the end gives the row sums. Up to [`MAX_ROWS`] activation rows (`Y[M, N] =
//! X[M, K] W^T`, a batch's decode step) share each load of `W`, each with its own products:
//! where K is a multiple of 8, on the frame the quantized mat-vecs share (`rows`).
//!
//! The kernel is built for its problem: with N and K constants the compiler proves the
//! windows of whole chunks inside `W` and emits their loads without bounds tests or scalar
//! fallbacks (`tilecast emit gemv --shape NxK --target ir`: "proven inside"); a last partial
//! chunk of K is a separate, masked step.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, ceil_div};

use crate::families::grid::{flat_block, flat_grid};
use crate::families::matvec::Frame;

/// Rows per threadgroup. With [`K_CHUNK`], 1 x 1024 over 256 threads is the fastest shape
/// measured on an H200 (two rounds of one run, f16: 14336x4096 in 33.1-33.2 us and 4096x14336
/// in 33.7-33.8, against 33.4-33.7 and 34.7 for 2 x 1024; 2 x 512 and 4 x 512 ran slower).
const ROWS: u32 = 1;
/// K per step: 1 x 1024 of W per threadgroup of 256 threads, one run of 4 columns per thread,
/// the loads of a step issued together.
const K_CHUNK: u32 = 1024;

/// Most activation rows one launch multiplies: as many as `qgemv` takes, a batch's decode step.
pub const MAX_ROWS: usize = 8;

/// Whether `gemv` over `rows` activation rows of `k` columns runs on the multi-row frame (the
/// `rows` kernel), where it beats `linear` for a decode batch: on an H200 at 8 rows, 74.8 us
/// against 90.1 (8x14336x4096 f16) and 67.1 against 109.3 (8x4096x14336).
pub fn takes_batch(rows: usize, k: usize) -> bool {
    (2..=MAX_ROWS).contains(&rows) && k.is_multiple_of(UNIT)
}

/// Weight rows per threadgroup and K per step with more than one activation row where K is
/// no multiple of [`UNIT`]: each thread then multiplies 2 weight rows by 4 columns, so the
/// activations it loads and widens serve two rows (14336x4096 f16 on an H200, 8 rows: 102.7 us
/// against 131.8 at 1 x 1024, 126.1 at 4 x 512, 117.0 at 16 x 256; 4 rows: 51.8 against 61.3).
const MULTI: (u32, u32) = (8, 256);

/// Columns of a row one thread takes per step over several activation rows ([`rows`]): two
/// runs of 4, widened once and multiplied by every activation row.
const UNIT: usize = 8;

/// Running dot products a thread keeps over several activation rows: two weight rows at 8
/// rows, four (the frame's most) from 4 rows down.
const ROWS_DOTS: u32 = 16;

/// Fewest threadgroups [`rows`] launches, doubling its threads per row until it does.
const ROWS_MIN_GROUPS: usize = 192;

/// `Y[m, n] = X[m, k] W^T` for 2 to 8 activation rows and K a multiple of [`UNIT`], on the
/// mat-vec frame the quantized kernels share ([`Frame`]): each thread takes 8 columns of up to
/// four weight rows a step, widens them once and multiplies them by every activation row
/// (whose 8 values it widens once for all its weight rows), keeping a running dot product per
/// pair; the threads of a row block reduce them at the end. 16 threads a row (32 up to 2
/// activation rows), twice that until the launch has [`ROWS_MIN_GROUPS`] threadgroups. On an
/// H200 (call m7, two rounds), 14336x4096 f16: 8 rows 74.7-74.9 us against 103.5-103.7 with
/// [`MULTI`] (32 threads a row 84.8, 4 weight rows a thread over 8 threads 78.8-79.0; `linear`
/// took 89.8); 4 rows 42.7-42.8 against 51.7-51.9 (32 a row 48.4-48.7); 2 rows 34.7-34.9
/// against 38.0-38.2 (16 a row 39.1-39.2); 4096x14336 at 8 rows 67.1-67.3 against 85.5 (16 a
/// row, 128 threadgroups: 90.6).
fn rows(dtype: DType, [m, n, kd]: [usize; 3]) -> Ir {
    let units = (kd / UNIT) as u32;
    let base = if m <= 2 { 32 } else { 16 };
    let rt = Frame::rows_per_thread(m, ROWS_DOTS) as usize;
    let groups = |lanes: u32| n.div_ceil(256 / lanes as usize * rt);
    let mut lanes = base.min(units.next_power_of_two());
    while groups(lanes) < ROWS_MIN_GROUPS && lanes < units.next_power_of_two().min(256) {
        lanes *= 2;
    }
    let frame = Frame::new(m, n, units, lanes, ROWS_DOTS, 256, 1);
    let k = Kernel::new("gemv_rows").grid(frame.grid()).threads(frame.threads());
    let w = k.input("W", dtype, [n as u32, kd as u32]);
    let x = k.input("X", dtype, [m as u32, kd as u32]);
    let y = k.param("Y", dtype, [m as u32, n as u32]);
    frame.build(k, &y, dtype, |k, rows, act_rows, unit, add| {
        let col0 = unit.clone() * UNIT as u32;
        let widened = |k: &Kernel, name: &str, p: &tilecast_lang::GlobalParam, row: &Expr| {
            (0..UNIT as u32)
                .map(|j| k.let_named(name, p.at([row.clone(), col0.clone() + j]).cast(DType::F32)))
                .collect::<Vec<Expr>>()
        };
        let ws: Vec<Vec<Expr>> = rows.iter().map(|row| widened(k, "w", &w, row)).collect();
        for (r, xr) in act_rows.iter().enumerate() {
            let xs = widened(k, "x", &x, xr);
            for (t, wr) in ws.iter().enumerate() {
                let dot = wr
                    .iter()
                    .zip(&xs)
                    .skip(1)
                    .fold(wr[0].clone() * xs[0].clone(), |acc, (wv, xv)| {
                        wv.clone().fma(xv.clone(), acc)
                    });
                add(k, r, t, dot);
            }
        }
    })
}

/// `y = W x` for `W[n, k]`, with `W`, `x` and `y` of `dtype`, accumulated in f32; with `m > 1`
/// activation rows, `Y[m, n] = X[m, k] W^T`. Arguments `W`, `X` (`[k]`, or `[m, k]`), `Y`
/// (`[n]`, or `[m, n]`).
pub fn gemv(dtype: DType, [m, n, kd]: [usize; 3], _profile: &tilecast_lang::Profile) -> Ir {
    if takes_batch(m, kd) {
        return rows(dtype, [m, n, kd]);
    }
    let (rows, kc) = if m == 1 { (ROWS, K_CHUNK) } else { MULTI };
    let mm = m as u32;
    let (whole, tail) = (kd as u32 / kc, kd as u32 % kc);
    let (n, kd) = (Expr::from(n as u32), Expr::from(kd as u32));
    let blocks = ceil_div(&n, rows);
    let k = Kernel::new("gemv").grid(flat_grid(&blocks)).threads(256).prefer_wgsl(
        "on an H200 the native module ran 6% slower (14336x4096 f16: 36.1 us, WGSL 33.9), with \
         the same loads proven unmasked",
    );
    let w = k.input("W", dtype, [&n, &kd]);
    let (x, y) = if m == 1 {
        (k.input("X", dtype, [&kd]), k.param("Y", dtype, [&n]))
    } else {
        (
            k.input("X", dtype, [Expr::from(mm), kd.clone()]),
            k.param("Y", dtype, [Expr::from(mm), n.clone()]),
        )
    };
    let wt = k.fragment_named("w", DType::F32, [rows, kc]);
    let named = |base: &str, r: u32| if m == 1 { base.to_string() } else { format!("{base}{r}") };
    let prods: Vec<_> =
        (0..mm).map(|r| k.fragment_named(&named("prod", r), DType::F32, [rows, kc])).collect();
    let accs: Vec<_> =
        (0..mm).map(|r| k.shared_named(&named("acc", r), DType::F32, [rows])).collect();
    let row0 = flat_block(&blocks) * rows;
    // Activation row `r`'s element at column `c`.
    let x_at = |r: u32, c: Expr| if m == 1 { x.at([c]) } else { x.at([Expr::from(r), c]) };
    // One chunk of K from column `k0`: past K both W and x read as 0, so the products are 0.
    let step = |k: &Kernel, k0: Expr| {
        k.copy(w.tile([row0.clone(), k0.clone()]), &wt);
        k.parallel([rows, kc], |k, [i, q]| {
            for (r, prod) in (0..mm).zip(&prods) {
                let xv = x_at(r, k0.clone() + q.clone()).cast(DType::F32);
                k.store(prod, [&i, &q], prod.at([&i, &q]) + wt.at([&i, &q]) * xv);
            }
        });
    };
    prods.iter().for_each(|p| k.clear(p));
    if whole > 0 {
        k.serial(whole, |k, j| step(k, j * kc));
    }
    if tail > 0 {
        step(&k, Expr::from(whole * kc));
    }
    for (r, (prod, acc)) in (0..mm).zip(prods.iter().zip(&accs)) {
        k.reduce_sum(prod, acc, 1);
        if m == 1 {
            k.copy(acc, y.tile([row0.clone()]));
        } else {
            k.copy(acc, y.window([Expr::from(r), row0.clone()], [1]));
        }
    }
    k.build()
}
