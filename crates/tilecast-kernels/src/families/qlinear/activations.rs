//! The activations of the integer mat-vec ([`super::int8`]): quantized to int8, 32 values per
//! f32 scale as GGUF's `q8_0` does, by a launch of their own ([`quantize_activations`]) or by
//! each threadgroup of the product into its threadgroup memory ([`Activations`]), and read
//! back as the product's threads take them (`ActRead`).
//!
//! The quantized activations lie in memory as the product reads them (`word_at`): each
//! thread's words and scales are whole 16-byte runs, neighbouring threads' runs neighbours
//! (14336x4096 `q4_0` on an H200, 8 rows: 30.1 us against 44.0 read a word at a time).
//!
//! The price is the activations' rounding: each is within half a step (`max |x| / 254` of
//! its block of 32) of its value, which the entry's tolerance states.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{
    DType, Expr, GlobalParam, Kernel, TileRef, block_x, block_y, ceil_div, select,
};

use super::WeightFormat;
use super::gemv::THREADS;

/// Blocks of 32 activations one threadgroup of [`quantize_activations`] quantizes: 8 threads
/// per block, a word (four values) each.
const QUANT_BLOCKS: u32 = 32;

/// Largest int8 level: a block's values map to `-127..=127`.
const LEVELS: f32 = 127.0;

/// How [`quantize_activations`] orders the levels of each run of 8 values in its two words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// As they lie: values `0..4`, then `4..8`.
    Natural,
    /// Even values (0, 2, 4, 6), then odd ones: how `mlx4`'s nibbles fall into bytes when a
    /// word of 8 levels is masked (`w & 0x0f0f0f0f`, `(w >> 4) & 0x0f0f0f0f`).
    EvenOdd,
}

impl Order {
    /// The order `format`'s levels meet the activations in.
    pub fn of(format: WeightFormat) -> Order {
        if format == WeightFormat::Mlx4 { Order::EvenOdd } else { Order::Natural }
    }
}

/// Launch one: `X[m, kd]` (`act`) to int8 levels packed four to a word in `order`, `Xq[m, kd /
/// 4]` (u32, the first value in the lowest byte), and per block of 32 its scale (`max |x| /
/// 127`, zero for a block of zeros) and the scale times its sum of levels (what a weight
/// offset multiplies), both in `Xds[m, kd / 16]`; laid out as `word_at` and `scale_at`
/// say, so the product's threads read them as whole 16-byte runs.
pub fn quantize_activations(act: DType, m: usize, kd: usize, order: Order) -> Ir {
    let nb = (kd / 32) as u32;
    let units = (kd / 64) as u32;
    let k = Kernel::new("quantize_activations_i8")
        .grid([ceil_div(Expr::from(nb), QUANT_BLOCKS), Expr::from(m as u32)])
        .threads(THREADS);
    let x = k.input("X", act, [m as u32, kd as u32]);
    let xq = k.param("Xq", DType::U32, [m as u32, (kd / 4) as u32]);
    let xds = k.param("Xds", DType::F32, [m as u32, (kd / 16) as u32]);
    let mags = k.fragment_named("magnitude", DType::F32, [QUANT_BLOCKS, 32]);
    let amax = k.shared_named("amax", DType::F32, [QUANT_BLOCKS]);
    let sums = k.fragment_named("level_sum", DType::F32, [QUANT_BLOCKS, 8]);
    let total = k.shared_named("level_total", DType::F32, [QUANT_BLOCKS]);
    let row = block_y();
    // A threadgroup's blocks past the row's last redo that block: the same values, stored to
    // the same places.
    let block = |b: &Expr| (block_x() * QUANT_BLOCKS + b).min(nb - 1);
    k.parallel([QUANT_BLOCKS, 32], |k, [b, c]| {
        let v = x.at([row.clone(), block(&b) * 32u32 + &c]).cast(DType::F32);
        k.store(&mags, [&b, &c], v.abs());
    });
    k.reduce_max(&mags, &amax, 1);
    k.parallel([QUANT_BLOCKS, 8], |k, [b, t]| {
        let a = amax.at([&b]);
        let inv = k.let_named("inv", select(a.clone().gt(0.0f32), Expr::from(LEVELS) / a, 0.0f32));
        let levels: Vec<Expr> = (0..4u32)
            .map(|j| {
                // Word t of the block holds values 4t.. (natural), or of run t / 2 the even
                // (t even) or odd values.
                let at = match order {
                    Order::Natural => t.clone() * 4u32 + j,
                    Order::EvenOdd => t.clone() / 2u32 * 8u32 + t.clone() % 2u32 + 2 * j,
                };
                let v = x.at([row.clone(), block(&b) * 32u32 + at]);
                k.let_named("level", (v.cast(DType::F32) * &inv).round())
            })
            .collect();
        let word = levels.iter().enumerate().fold(Expr::from(0u32), |w, (j, l)| {
            let byte = l.clone().cast(DType::I32).bitcast(DType::U32) & 255u32;
            w | (byte << (8 * j as u32))
        });
        let (unit, half) = (block(&b) / 2u32, block(&b) % 2u32);
        k.store(&xq, [row.clone(), word_at(units, &unit, half * 8u32 + &t)], word);
        let sum = levels.iter().skip(1).fold(levels[0].clone(), |s, l| s + l.clone());
        k.store(&sums, [&b, &t], sum);
    });
    k.reduce_sum(&sums, &total, 1);
    k.parallel([QUANT_BLOCKS], |k, [b]| {
        let d = k.let_named("d", amax.at([&b]) / LEVELS);
        let (unit, half) = (block(&b) / 2u32, block(&b) % 2u32);
        k.store(&xds, [row.clone(), scale_at(&unit, false, half.clone())], d.clone());
        k.store(&xds, [row.clone(), scale_at(&unit, true, half)], d * total.at([&b]));
    });
    k.build()
}

/// Where word `i` (0..16) of unit `unit` (64 values) of a row of `units` lies in `Xq`: the
/// units' first runs of four words, then their second runs, and so on, so threads taking
/// neighbouring units read neighbouring 16-byte runs (one cache line for 8 threads) rather
/// than runs 64 bytes apart.
fn word_at(units: u32, unit: &Expr, i: impl Into<Expr>) -> Expr {
    let i = i.into();
    (i.clone() / 4u32) * (units * 4) + unit.clone() * 4u32 + i % 4u32
}

/// Where a block's scale (`sum` false) or scaled level sum lies in `Xds`: a unit's four
/// (block 0's scale, block 1's, block 0's sum, block 1's) are one 16-byte run.
fn scale_at(unit: &Expr, sum: bool, block: Expr) -> Expr {
    // A constant block folds into one constant lane, so the four share one load.
    let lane = match block {
        Expr::Int(b) => Expr::Int(if sum { 2 + b } else { b }),
        b => b + if sum { 2u32 } else { 0 },
    };
    unit.clone() * 4u32 + lane
}

/// Where [`qgemv_int8`](super::int8::qgemv_int8) reads the quantized activations from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activations {
    /// `Xq` and `Xds` in memory, from a [`quantize_activations`] launch before it.
    Quantized,
    /// `X` itself: each threadgroup quantizes the activation rows into threadgroup memory
    /// first (a thread per block of 32), so the product is one launch.
    Staged,
}

/// The quantized activations as the product reads them: word `i` (0..8) of block `b` (0, 1)
/// of unit `u` of activation row `r`, that block's scale and scaled level sum.
pub(super) enum ActRead {
    /// Parameters `Xq [m, kd / 4]` and `Xds [m, kd / 16]` ([`word_at`], [`scale_at`]), in rows
    /// of `units`.
    Memory { xq: GlobalParam, xds: GlobalParam, units: u32 },
    /// Threadgroup tiles laid out `[m, word, unit]` and `[m, block, unit]`, so the threads of
    /// a row, which take neighbouring units, read neighbouring words.
    Staged { xq: TileRef, xd: TileRef, xs: TileRef },
}

impl ActRead {
    pub(super) fn word(&self, r: &Expr, u: &Expr, b: u32, i: u32) -> Expr {
        match self {
            ActRead::Staged { xq, .. } => xq.at([r.clone(), Expr::from(b * 8 + i), u.clone()]),
            // A constant run plus a constant lane, so the four words of a run share one load.
            ActRead::Memory { xq, units, .. } => {
                let j = b * 8 + i;
                xq.at([r.clone(), (u.clone() * 4u32 + j / 4 * units * 4) + j % 4])
            }
        }
    }

    /// Block `b` of unit `u`'s scale (`sum` false) or scaled level sum.
    pub(super) fn per_block(&self, sum: bool, r: &Expr, u: &Expr, b: u32) -> Expr {
        match self {
            ActRead::Staged { xd, xs, .. } => {
                (if sum { xs } else { xd }).at([r.clone(), Expr::from(b), u.clone()])
            }
            ActRead::Memory { xds, .. } => xds.at([r.clone(), scale_at(u, sum, Expr::from(b))]),
        }
    }
}

/// Quantizes `x`'s `m` rows into threadgroup memory for the product ([`Activations::Staged`]):
/// a thread per block of 32 values, its maximum, levels and sum in registers, as
/// [`quantize_activations`] computes them.
pub(super) fn stage_activations(
    k: &Kernel,
    x: &GlobalParam,
    m: u32,
    kd: u32,
    order: Order,
) -> ActRead {
    let units = kd / 64;
    let xq = k.shared_named("Xq_shared", DType::U32, [m, 16, units]);
    let xd = k.shared_named("Xd_shared", DType::F32, [m, 2, units]);
    let xs = k.shared_named("Xs_shared", DType::F32, [m, 2, units]);
    k.parallel([m, units, 2], |k, [r, u, b]| {
        let col0 = (u.clone() * 2u32 + &b) * 32u32;
        let v: Vec<Expr> = (0..32u32)
            .map(|j| k.let_named("x", x.at([r.clone(), col0.clone() + j]).cast(DType::F32)))
            .collect();
        let amax = v.iter().skip(1).fold(v[0].clone().abs(), |a, x| a.max(x.clone().abs()));
        let amax = k.let_named("amax", amax);
        let inv = k.let_named(
            "inv",
            select(amax.clone().gt(0.0f32), Expr::from(LEVELS) / amax.clone(), 0.0f32),
        );
        let levels: Vec<Expr> =
            v.iter().map(|x| k.let_named("level", (x.clone() * &inv).round())).collect();
        for t in 0..8u32 {
            let word = (0..4u32).fold(Expr::from(0u32), |w, j| {
                let at = match order {
                    Order::Natural => t * 4 + j,
                    Order::EvenOdd => t / 2 * 8 + t % 2 + 2 * j,
                };
                let byte =
                    levels[at as usize].clone().cast(DType::I32).bitcast(DType::U32) & 255u32;
                w | (byte << (8 * j))
            });
            k.store(&xq, [r.clone(), b.clone() * 8u32 + t, u.clone()], word);
        }
        let sum = levels.iter().skip(1).fold(levels[0].clone(), |s, l| s + l.clone());
        let d = k.let_named("d", amax / LEVELS);
        k.store(&xd, [&r, &b, &u], d.clone());
        k.store(&xs, [&r, &b, &u], d * sum);
    });
    ActRead::Staged { xq, xd, xs }
}
