//! `qgemv` on integer dot products, for `q4_k` weights, and `q4_0`, `q8_0` and `mlx4` weights
//! whose rows are whole units of 64 values: the activations are quantized to int8 first
//! ([`super::activations`]), and the mat-vec multiplies packed bytes four at a time
//! ([`Expr::dot4_i8`]).
//!
//! Decoding every weight value to a float costs a shift, a mask, an exponent splice and an
//! FMA, which bounds the float mat-vec by instructions, not bytes (14336x4096 `q4_0` took
//! 23.7 us on an H100 with no weight loaded at all). On packed bytes a word of `q4_0` levels
//! (or of `q4_k` or `mlx4` nibbles) is two masks and two dot products for eight values, and a
//! word of `q8_0` one dot product for four. `mlx4` words hold 8 consecutive levels, so the
//! activations are quantized with each run of 8 split into its even and odd values
//! ([`Order::EvenOdd`](super::activations::Order::EvenOdd)). `mlx8` stays on the float kernel: on dot products (levels less 128 as
//! signed bytes) 14336x4096 took 40.7 us against 32.1 on an H200.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel};

use super::activations::{ActRead, Activations, Order, stage_activations};
use super::gemv::THREADS;
use super::{WeightFormat, decode};
use crate::families::matvec::Frame;

/// Threads per row where a row has more pairs than that: 14336x4096 `q4_0` on an H200 took
/// 14.9 us at 16, 16.1 at 32 and 21.7 at 8 (reduced within a subgroup).
const SUBGROUP_LANES: u32 = 16;

/// From this many activation rows, half as many threads per row ([`SUBGROUP_LANES`] / 2) in
/// threadgroups of 512 (unless [`split_rows`] says otherwise): each thread then loads the
/// activations for twice the weight it meets (14336x4096 `q4_0` on an H200, 8 rows: 30.1 us against 37.9 at 16 threads
/// per row; 5 rows keep 16: 36.8 us against 32.0 when the activations were read as words).
const FEW_LANES_FROM_ROWS: usize = 6;

/// Running dot products per thread the plan tries, most first: one f32 each, so more rows
/// share each weight load than in the float kernel (14336x4096 `q4_0` on an H200, 8 rows: 30.1
/// us at 32 against 33.9 at 16; 5 rows 23.1 against 30.9). Each needs its reduction's
/// threadgroup memory, which short rows (many row blocks per threadgroup) may not have.
pub const DOTS: [u32; 2] = [32, 16];

/// The running dot products per thread the plan tries for `m` activation rows of `format`:
/// [`DOTS`], but one for `q8_0` at one row, so each thread takes one weight row of 17 words a
/// unit rather than four (14336x4096 on an H200: 22.3-22.4 us against 24.3, though its
/// threadgroups then cover too few rows to quantize the activations themselves; 4096x14336
/// 23.9 against 23.8-23.9).
pub fn dots(format: WeightFormat, m: usize) -> &'static [u32] {
    match (format, m) {
        (WeightFormat::Q8_0, 1) => &[1],
        _ => &DOTS,
    }
}

/// Fewest threads a launch of [`SUBGROUP_LANES`] (or half as many) threads per row may have:
/// 4096x14336 `q4_0` would get 16384 (64 threadgroups of 256) and took 37 us against 18.2
/// with a thread per pair, and `q4_k` 16384 (128 of 128) took 33.9 against torch int4's
/// 17.5; 8 rows of 14336x4096 at 8 per row get 28672 and ran fastest on an H200 (30.1 us; 4
/// per row, 14336 threads: 121 us).
const MIN_THREADS: usize = 24576;

/// Threads per threadgroup of [`qgemv_int8`]. Quantizing its own activations, 512, but 256 for
/// `q8_0` (14336x4096 on an H200: `q4_0` 11.5 us against 12.5 at 256, `mlx4` 10.8 against
/// 11.6, `q4_k` 15.1 against 17.2; `q8_0` 27.0 against 25.8). After a quantize launch, from
/// [`FEW_LANES_FROM_ROWS`] activation rows 512 (`q4_k` 8 rows: 29.7 us against 32.2 at 256,
/// `mlx4` 31.2 against 33.0, `q8_0` 41.9 against 44.8 at 128; 6 rows: `q4_k` 24.2 against
/// 26.8, `mlx4` 23.7 against 28.9, `q4_0` 23.3 against 27.0 at 128); below that 128 for `q4_k`
/// (18.4-18.6 us against 19.0 at 256 with 1 row) and 256 for the rest; where the activation
/// rows split over several threads ([`split_rows`]), what that says.
fn product_threads(format: WeightFormat, m: usize, acts: Activations) -> u32 {
    use WeightFormat::{Q4K, Q8_0};
    if let Some((_, threads)) = split_rows(format, m, acts) {
        return threads;
    }
    match acts {
        Activations::Staged if format == Q8_0 => THREADS,
        Activations::Staged => 2 * THREADS,
        _ if m >= FEW_LANES_FROM_ROWS => 2 * THREADS,
        _ if format == Q4K => 128,
        _ => THREADS,
    }
}

/// Where a thread takes only some of the activation rows: (threads per row block and unit
/// that split them, threadgroup size). The threads of a split decode the same weight words
/// (neighbouring lanes of one subgroup, so one load serves them) and each keeps the running
/// dot products of its rows, so a thread holds fewer of them: 64 registers for `q4_0` at 8
/// rows in 4 parts, against 239 whole. 14336x4096 on an H200 (two rounds): `q4_0` at 8 rows
/// 27.7-27.8 us in 4 parts against 30.0 whole (2 parts 29.7, 8 parts 37.8-38.1; 8 weight rows
/// a thread in 4 parts 30.7-30.9), at 6 rows 22.3 in 2 parts against 23.1, at 4 rows 17.9 in 2
/// parts against 20.2-20.3; `q8_0` at 8 rows 39.7-39.8 in 4 parts against 41.8-42.0; `mlx4`
/// at 8 rows 29.2-29.3 in 2 against 31.3-31.4 (4 parts: 37.2-37.4). `q4_k`, whose scales cost
/// more to decode than a row of dot products, stays whole (2 parts: 32.6-34.7 against
/// 29.7-29.8). Other row counts were not measured and stay whole.
fn split_rows(format: WeightFormat, m: usize, acts: Activations) -> Option<(u32, u32)> {
    use WeightFormat::{Mlx4, Q4_0, Q8_0};
    if acts != Activations::Quantized {
        return None;
    }
    match (format, m) {
        (Q4_0, 4) => Some((2, THREADS)),
        (Q4_0, 6) => Some((2, 2 * THREADS)),
        (Q4_0 | Q8_0, 8) => Some((4, THREADS)),
        (Mlx4, 8) => Some((2, THREADS)),
        _ => None,
    }
}

/// The frame of [`qgemv_int8`]'s threads for `m` activation rows of an `[n, kd]` matrix: 16
/// threads per row (a reduction within a subgroup, several steps per thread) where that leaves
/// at least [`MIN_THREADS`] threads, else as many threads as a row has units.
fn product_frame(
    format: WeightFormat,
    [m, n, kd]: [usize; 3],
    dots: u32,
    acts: Activations,
) -> Frame {
    let units = (kd / 64) as u32;
    let threads = product_threads(format, m, acts);
    let parts = split_rows(format, m, acts).map_or(1, |(parts, _)| parts);
    let row_lanes = if m >= FEW_LANES_FROM_ROWS { SUBGROUP_LANES / 2 } else { SUBGROUP_LANES };
    let rt = Frame::rows_per_thread(m / parts as usize, dots);
    let rows_per_group = (threads / (row_lanes * parts) * rt) as usize;
    let lanes = if units > row_lanes && n / rows_per_group * threads as usize >= MIN_THREADS {
        row_lanes
    } else {
        units.next_power_of_two().min(threads / parts)
    };
    Frame::new(m, n, units, lanes, dots, threads, parts)
}

/// Fewest weight rows a threadgroup of the product must cover to quantize its own activations
/// ([`Activations::Staged`]): the quantizing is then at most 1/32 of its work. 14336x4096 on an
/// H200, 64 rows a threadgroup of 256 (`q4_k` 32 of 128): `q4_0` 12.5 us against 15.1 with
/// the quantize launch, `mlx4` 11.6 against 14.2, `q4_k` 17.2 against 18.5, `q8_0` 25.8
/// against 28.7; 4096x14336, 4 rows a threadgroup, went the other way (43.1 against 16.6).
pub const STAGED_MIN_ROWS: u32 = 32;

/// Most activation rows the product quantizes itself: with 3 to 5 (two or three rounds of a
/// thread per block in threadgroups of 256) it was slower than the quantize launch (14336x4096
/// `q4_0` on an H200, 3 rows: 28.1 us against 23.8; 2 rows: 16.3 against 19.3).
pub const STAGED_MAX_ROWS: usize = 2;

/// Whether the product quantizes its own activations ([`Activations::Staged`]): up to
/// [`STAGED_MAX_ROWS`] rows, whose blocks one thread each quantizes in one round, where its
/// threadgroups cover [`STAGED_MIN_ROWS`] weight rows.
pub fn stages_activations(format: WeightFormat, [m, n, kd]: [usize; 3], dots: u32) -> bool {
    let frame = product_frame(format, [m, n, kd], dots, Activations::Staged);
    m <= STAGED_MAX_ROWS
        && frame.rows_per_group() >= STAGED_MIN_ROWS
        && m * kd / 32 <= frame.threads() as usize
}

/// Whether `format` at row length `kd` runs on integer dot products: `q4_k`; `q4_0` and `q8_0`
/// rows of whole pairs of blocks (a pair starts on a word: 9 or 17 words); `mlx4` rows of whole
/// 64-value units.
pub fn takes(format: WeightFormat, kd: usize) -> bool {
    match format {
        WeightFormat::Q4K => true,
        WeightFormat::Q4_0 | WeightFormat::Q8_0 | WeightFormat::Mlx4 => kd.is_multiple_of(64),
        WeightFormat::Mlx8 => false,
    }
}

/// One block of 32 weights of a row as the dot products take it, against the activations'
/// block `x_block` (of the unit's blocks, 0 or 1): `Σ q_w q_x` sums `bytes`' (word of levels,
/// word of the activations' block) pairs.
struct IntBlock {
    scale: Expr,
    offset: Offset,
    x_block: u32,
    bytes: Vec<(Expr, u32)>,
}

/// What a block's levels are offset by.
enum Offset {
    /// None (`q8_0`): `scale * d_x Σ q_w q_x`.
    None,
    /// The same constant for every block (`q4_0`'s -8): `scale * (d_x Σ q_w q_x + c d_x Σ q_x)`,
    /// `c d_x Σ q_x` shared by every weight row (14336x4096 on an H200: 16.4 us against 17.2
    /// as a per-row offset).
    Levels(f32),
    /// A per-block bias (`q4_k`'s `-dmin m`, `mlx4`'s bias): `scale * d_x Σ q_w q_x + bias *
    /// d_x Σ q_x`.
    Bias(Expr),
}

/// The levels of a word of nibbles as two words of bytes: the low nibbles (values `4i..`) meet
/// activation word `i`, the high ones activation word `i + high` of `high_block`.
fn nibbles(word: &Expr, i: u32, high: u32) -> [(Expr, u32); 2] {
    [(word.clone() & 0x0F0F_0F0Fu32, i), ((word.clone() >> 4u32) & 0x0F0F_0F0Fu32, i + high)]
}

/// Launch two: `Y[m, n] = X W^T` from
/// [`quantize_activations`](super::activations::quantize_activations)'s `Xq` and `Xds` and `q4_0`,
/// `q8_0` or `q4_k` weights `W` (u8 `[n, row_bytes]`) or `mlx4` weights (`W`, `S`, `B`, groups
/// of `group`); arguments `Xq`, `Xds`, the weights, `Y` (`act`). A thread keeps up to
/// `dots` running dot products.
///
/// A thread's unit is 64 values of one row: a pair of GGUF blocks (9 or 17 words, whose
/// alignment is known when the kernel is built), a `q4_k` chunk (8 words of nibbles and the
/// super-block's 4 words of scales) or 8 `mlx4` words (and their groups' scales and biases),
/// shared by up to four weight rows per activation row as in the float kernel. A block of 32 is 8 `dot4_i8` (four bytes of levels
/// against four of activations), then a conversion and two multiply-adds: for `q4_0`,
/// `d_w (d_x Σ q_w q_x) - 8 d_w (d_x Σ q_x)` (levels are the nibbles less 8); for `q4_k`,
/// `d sc (d_x Σ q_w q_x) - dmin m (d_x Σ q_x)`; for `mlx4`, `s (d_x Σ q_w q_x) + b (d_x Σ q_x)`.
pub fn qgemv_int8(
    format: WeightFormat,
    act: DType,
    [m, n, kd, group]: [usize; 4],
    dots: u32,
    acts: Activations,
) -> Ir {
    let frame = product_frame(format, [m, n, kd], dots, acts);
    let k = Kernel::new(&format!("qgemv_{}_i8", format.name()))
        .grid(frame.grid())
        .threads(frame.threads());
    let mm = m as u32;
    let (x, quantized) = match acts {
        Activations::Staged => (Some(k.input("X", act, [mm, kd as u32])), None),
        Activations::Quantized => (
            None,
            Some(ActRead::Memory {
                xq: k.input("Xq", DType::U32, [mm, (kd / 4) as u32]),
                xds: k.input("Xds", DType::F32, [mm, (kd / 16) as u32]),
                units: (kd / 64) as u32,
            }),
        ),
    };
    let wp = decode::declare(&k, format, act, n, kd, group);
    let w = &wp.w;
    let y = k.param("Y", act, [mm, n as u32]);
    let row_words = (format.row_bytes(kd) / 4) as u32;
    let half = |x: Expr| x.bitcast(DType::F16).cast(DType::F32);
    let xa = match (x, quantized) {
        (Some(x), _) => stage_activations(&k, &x, mm, kd as u32, Order::of(format)),
        (_, Some(q)) => q,
        _ => unreachable!("one activation source"),
    };
    frame.build(k, &y, act, |k, rows, act_rows, unit, add| {
        // The unit's two blocks of every weight row.
        let blocks: Vec<Vec<IntBlock>> = rows
            .iter()
            .map(|row| match format {
                WeightFormat::Mlx4 => {
                    let (sc, bi) = wp.affine.as_ref().expect("MLX weights have scales and biases");
                    (0..2u32)
                        .map(|b| {
                            let g = (unit.clone() * 64u32 + b * 32) / group as u32;
                            let at = [row.clone(), g];
                            let scale = k.let_named("scale", sc.at(at.clone()).cast(DType::F32));
                            let bias = k.let_named("bias", bi.at(at).cast(DType::F32));
                            // Word i's low nibbles are its even values, activation word 2i in
                            // the even-odd order; its high nibbles word 2i + 1.
                            let bytes = (0..4u32)
                                .flat_map(|i| {
                                    let at = unit.clone() * 8u32 + b * 4 + i;
                                    nibbles(&k.let_named("lv", w.at([row.clone(), at])), 2 * i, 1)
                                })
                                .collect();
                            IntBlock { scale, offset: Offset::Bias(bias), x_block: b, bytes }
                        })
                        .collect()
                }
                WeightFormat::Q4K => {
                    // Not lets, so range analysis proves the words' indices.
                    let base = row.clone() * row_words + unit.clone() / 4u32 * 36u32;
                    let c = unit.clone() % 4u32;
                    let scales = decode::q4_k_scales(k, w, &base, &c);
                    let words: Vec<Expr> = (0..8u32)
                        .map(|i| {
                            k.let_named("lv", w.word(base.clone() + 4u32 + c.clone() * 8u32 + i))
                        })
                        .collect();
                    // Low nibbles are sub-block 2c, high ones 2c + 1: the unit's two blocks.
                    scales
                        .into_iter()
                        .enumerate()
                        .map(|(b, (scale, bias))| IntBlock {
                            scale,
                            offset: Offset::Bias(bias),
                            x_block: b as u32,
                            bytes: words
                                .iter()
                                .zip(0u32..)
                                .map(|(l, i)| nibbles(l, i, 0)[b].clone())
                                .collect(),
                        })
                        .collect()
                }
                _ => {
                    let q4 = format == WeightFormat::Q4_0;
                    // Words per block pair and per block's levels.
                    let (words, level_words) = if q4 { (9u32, 4usize) } else { (17, 8) };
                    let base = row.clone() * row_words + unit.clone() * words;
                    let wv: Vec<Expr> = (0..words)
                        .map(|i| k.let_named(&format!("w{i}"), w.word(base.clone() + i)))
                        .collect();
                    // The first block's levels start 2 bytes into word 0, so they are rebuilt
                    // from half words; the second block starts mid-word (its scale the upper
                    // half) and its levels on a word.
                    let first: Vec<Expr> = (0..level_words)
                        .map(|i| {
                            let v = (wv[i].clone() >> 16u32) | (wv[i + 1].clone() << 16u32);
                            k.let_named("lv", v)
                        })
                        .collect();
                    let second: Vec<Expr> = wv[level_words + 1..].to_vec();
                    let scales = [
                        k.let_named("d", half(wv[0].clone().bits(0, 16))),
                        k.let_named("d", half(wv[level_words].clone() >> 16u32)),
                    ];
                    scales
                        .into_iter()
                        .zip([first, second])
                        .zip(0u32..)
                        .map(|((d, levels), b)| IntBlock {
                            offset: if q4 { Offset::Levels(-8.0) } else { Offset::None },
                            scale: d,
                            x_block: b,
                            // q4_0: low nibbles are values 4i.., high ones 16 + 4i.. (levels
                            // 0..15, valid signed bytes); q8_0: the bytes as they lie.
                            bytes: if q4 {
                                levels
                                    .iter()
                                    .zip(0u32..)
                                    .flat_map(|(l, i)| nibbles(l, i, 4))
                                    .collect()
                            } else {
                                levels.iter().cloned().zip(0u32..).collect()
                            },
                        })
                        .collect()
                }
            })
            .collect();
        for (r, rr) in act_rows.iter().enumerate() {
            for b in 0..2u32 {
                let xw: Vec<Expr> =
                    (0..8u32).map(|i| k.let_named("xq", xa.word(rr, unit, b, i))).collect();
                let scale = k.let_named("xd", xa.per_block(false, rr, unit, b));
                let level_sum = || xa.per_block(true, rr, unit, b);
                let sum = match &blocks[0][b as usize].offset {
                    Offset::None => None,
                    // The load a let of its own, so it shares its run's vector load.
                    Offset::Levels(c) => {
                        Some(k.let_named("xs", k.let_named("xs", level_sum()) * *c))
                    }
                    Offset::Bias(_) => Some(k.let_named("xs", level_sum())),
                };
                for (t, row_blocks) in blocks.iter().enumerate() {
                    let block = row_blocks.iter().find(|x| x.x_block == b).expect("two blocks");
                    let dot = block
                        .bytes
                        .iter()
                        .map(|(l, i)| l.clone().dot4_i8(xw[*i as usize].clone()))
                        .reduce(|a, b| a + b)
                        .expect("a block has level words");
                    let x = scale.clone() * dot.cast(DType::F32);
                    let v = match (&block.offset, &sum) {
                        (Offset::Levels(_), Some(s)) => block.scale.clone() * (x + s.clone()),
                        (Offset::Bias(o), Some(s)) => {
                            o.clone().fma(s.clone(), block.scale.clone() * x)
                        }
                        _ => block.scale.clone() * x,
                    };
                    add(k, r, t, v);
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lookup;
    use crate::registry::Plan;
    use tilecast_lang::Profile;

    /// The `qgemv` plan for `shape` (f16 activations) on `vulkan-nvidia`.
    fn plan(shape: &str) -> Plan {
        let profile = Profile::named("vulkan-nvidia").unwrap();
        let e = lookup("qgemv").unwrap();
        super::super::entries::qgemv_plan(&e.problem(shape, DType::F16).unwrap(), &profile)
    }

    /// `q8_0` at one activation row gives each thread one weight row (one running dot
    /// product), after a launch that quantizes the activations; at two rows and in other
    /// formats, threads keep four weight rows.
    #[test]
    fn q8_0_at_one_row_takes_one_weight_row_a_thread() {
        let running_dots = |shape: &str| {
            let plan = plan(shape);
            let product = &plan.launches.last().unwrap().ir;
            let dots = product.tiles.iter().filter(|t| t.name.starts_with("dot")).count();
            (plan.launches.len(), dots)
        };
        assert_eq!(running_dots("14336x4096,q8_0"), (2, 1));
        assert_eq!(running_dots("14336x4096,q8_0,rows=2"), (1, 8));
        assert_eq!(running_dots("14336x4096,q4_0"), (1, 4));
    }

    /// Where the plan splits the activation rows, each thread keeps the running dot products
    /// of its part alone against four weight rows, and the threadgroup takes as many threads
    /// per weight row block as parts: `q4_0` at 8 rows in 4 parts (2 rows a thread), `mlx4` in
    /// 2 (4 rows), `q4_k` whole (8 rows against two weight rows).
    #[test]
    fn split_activation_rows_keep_their_own_dot_products() {
        let product = |shape: &str| {
            let ir = plan(shape).launches.last().unwrap().ir.clone();
            let dots = ir.tiles.iter().filter(|t| t.name.starts_with("dot")).count();
            let shape = ir.tiles.iter().find(|t| t.name == "dot0_0").unwrap().shape.clone();
            (dots, ir.threads, shape)
        };
        // 8 threads per row block and part: [row blocks x parts, lanes].
        assert_eq!(product("14336x4096,q4_0,rows=8"), (8, 256, vec![32, 8]));
        assert_eq!(product("14336x4096,q8_0,rows=8"), (8, 256, vec![32, 8]));
        assert_eq!(product("14336x4096,mlx4,rows=8"), (16, 256, vec![32, 8]));
        assert_eq!(product("14336x4096,q4_k,rows=8"), (16, 512, vec![64, 8]));
        // 6 and 4 rows in 2 parts: 8 and 16 threads per row block and part.
        assert_eq!(product("14336x4096,q4_0,rows=6"), (12, 512, vec![64, 8]));
        assert_eq!(product("14336x4096,q4_0,rows=4"), (8, 256, vec![16, 16]));
    }
}
