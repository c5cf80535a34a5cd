//! The attention family's registry entries: `attention` (and `attention_lse`, which also
//! returns each row's logsumexp), `decode_attention` over a contiguous cache and
//! `paged_decode_attention` over pages found through a block table.

use tilecast_lang::DType::{self, BF16, F16, F32};
use tilecast_lang::Profile;

use super::decode::{DecodeConfig, DecodeShape, merge_pass, split_pass};
use super::{AttentionConfig, check_head_dim};
use crate::error::Result;
use crate::reference::ops::{self as r, AttentionSizes};
use crate::registry::{
    About, ArgSpec, Bound, Entry, Expected, Launch, Options, Plan, Problem, Slot, Strategy,
    Tolerance,
};

const TYPES: &[DType] = &[F16, BF16];
/// Tokens per page when a paged problem names none (vLLM's default block size).
pub const DEFAULT_PAGE: usize = 16;

/// Query heads, key/value heads, and the check that one divides the other.
fn heads(p: &Problem, h: usize) -> std::result::Result<(usize, usize), String> {
    let kv = p.options.kv_heads.unwrap_or(h);
    if kv == 0 || !h.is_multiple_of(kv) {
        return Err(format!(
            "{h} query heads do not share {kv} key/value heads evenly (H must be a multiple of KV)"
        ));
    }
    Ok((h, kv))
}

fn check(p: &Problem, h: usize, d: usize) -> std::result::Result<(), String> {
    heads(p, h)?;
    check_head_dim(d)
}

/// Multiply-adds of reference work above which only sampled rows are checked (about a second
/// of the f64 reference).
const FULL_CHECK_WORK: usize = 1 << 28;

/// The query rows (flat, of `[B, H, S]`) the reference computes: all of them, or 256 spread
/// over every batch and head (first and last rows included) when that is too much work.
fn checked_rows(b: usize, h: usize, s: usize, t: usize, d: usize) -> Vec<usize> {
    let n = b * h * s;
    if n * t * d <= FULL_CHECK_WORK {
        return (0..n).collect();
    }
    let mut rows: Vec<usize> = (0..256).map(|i| i * (n - 1) / 255).collect();
    rows.dedup();
    rows
}

/// Expected outputs: `o` for `rows` (of `d` values each) and, with `lse`, their LSE.
fn expected(
    o: Vec<f32>,
    l: Vec<f32>,
    rows: &[usize],
    d: usize,
    all: bool,
    lse: bool,
) -> Vec<Expected> {
    let mut out = if all {
        vec![Expected::all(o)]
    } else {
        let idx = rows.iter().flat_map(|&r| (0..d).map(move |c| r * d + c)).collect();
        vec![Expected { values: o, indices: Some(idx) }]
    };
    if lse {
        out.push(if all {
            Expected::all(l)
        } else {
            Expected { values: l, indices: Some(rows.to_vec()) }
        });
    }
    out
}

/// `1 / sqrt(D)`, the usual softmax scale.
fn default_scale(d: usize) -> f64 {
    1.0 / (d as f64).sqrt()
}

/// Query-key pairs a causal or full mask leaves, per (batch, head).
fn visible_pairs(s: usize, t: usize, causal: bool) -> f64 {
    if !causal {
        return (s * t) as f64;
    }
    (0..s).map(|i| (i + t + 1).saturating_sub(s).min(t)).sum::<usize>() as f64
}

/// f16 outputs: the probabilities meet V rounded to f16 too, so twice the storage rounding;
/// bf16 is staged exactly (as f32), so its output rounding alone.
fn tolerance(p: &Problem) -> Tolerance {
    let t = Tolerance::stored_as(p.dtype, 1e-4);
    if p.dtype == F16 { Tolerance { abs: 2.0 * t.abs, rel: 2.0 * t.rel } } else { t }
}

fn attention_entry(lse: bool) -> Entry {
    let e = Entry::planned(
        About {
            name: if lse { "attention_lse" } else { "attention" },
            summary: if lse {
                "flash attention forward that also returns each row's logsumexp (LSE[B,H,S], f32)"
            } else {
                "O = softmax(Q K^T * scale + mask) V, flash attention forward (prefill); options kv=N (grouped-query heads), causal"
            },
            dims: &["B", "H", "S", "T", "D"],
            dtypes: TYPES,
            quick: if lse {
                &["1x2x77x1001x64,causal", "2x4x7x77x96,kv=2", "1x2x77x1x64,kv=1,causal"]
            } else {
                &[
                    "1x1x1x1x64",
                    "2x4x7x77x64,kv=2,causal",
                    "1x2x77x1001x96,kv=1",
                    "1x2x77x77x128,causal",
                    "1x1x1000x1001x64,causal",
                    "1x2x77x1x256,kv=1,causal",
                    "2x2x7x1001x256",
                ]
            },
            full: &[
                "4x32x4096x4096x128,causal",
                "1x32x2048x2048x128,causal",
                "8x16x1024x1024x64,causal",
                "8x16x1024x1024x256,causal",
            ],
            bound: Bound::Compute,
        },
        move |p: &Problem, profile: &Profile| -> Result<Plan> {
            let cfg = AttentionConfig::choose(p.dims[4], p.dtype, profile, lse)?;
            Ok(Plan::single(super::attention(&cfg, lse)).with_strategy(Strategy::Attention(cfg)))
        },
        move |p| {
            let [b, h, s, t, d] = p.dims[..] else { unreachable!("five dims") };
            let kv = p.options.kv_heads.unwrap_or(h);
            let mut a = vec![
                ArgSpec::input("Q", p.dtype, &[b, h, s, d]),
                ArgSpec::input("K", p.dtype, &[b, kv, t, d]),
                ArgSpec::input("V", p.dtype, &[b, kv, t, d]),
                ArgSpec::output("O", p.dtype, &[b, h, s, d]),
            ];
            if lse {
                a.push(ArgSpec::output("LSE", F32, &[b, h, s]));
            }
            a
        },
        move |p, ins| {
            let [b, h, s, t, d] = p.dims[..] else { unreachable!("five dims") };
            let kv = p.options.kv_heads.unwrap_or(h);
            let n = AttentionSizes {
                b,
                h,
                kv,
                s,
                d,
                causal: p.options.causal,
                scale: default_scale(d),
            };
            let row = |bi: usize, kh: usize, j: usize| ((bi * kv + kh) * t + j) * d;
            let rows = checked_rows(b, h, s, t, d);
            let (o, l) = r::attention(
                &ins[0],
                n,
                &rows,
                |_| t,
                |bi, kh, j| &ins[1][row(bi, kh, j)..row(bi, kh, j) + d],
                |bi, kh, j| &ins[2][row(bi, kh, j)..row(bi, kh, j) + d],
            );
            expected(o, l, &rows, d, rows.len() == b * h * s, lse)
        },
        tolerance,
    );
    e.with_scalars(|p| {
        vec![("scale", default_scale(p.dims[4])), ("causal", p.options.causal as u8 as f64)]
    })
    .with_flops(|p| {
        let [b, h, s, t, d] = p.dims[..] else { unreachable!("five dims") };
        4.0 * (b * h * d) as f64 * visible_pairs(s, t, p.options.causal)
    })
    .with_check(|p| check(p, p.dims[1], p.dims[4]))
    .with_options(&["kv", "causal"], |shapes| {
        let kv_heads = shapes.get(1).and_then(|k| k.get(1)).copied();
        (Options { kv_heads, ..Options::default() }, Vec::new())
    })
}

/// Sizes of a decode problem: (B, H, KV, R, L, D).
fn decode_dims(p: &Problem) -> (usize, usize, usize, usize, usize, usize) {
    let [b, h, l, d] = p.dims[..] else { unreachable!("four dims") };
    (b, h, p.options.kv_heads.unwrap_or(h), p.options.rows.unwrap_or(1), l, d)
}

/// A paged problem's page size, pages per sequence (the block table's width) and pool size.
fn paging(p: &Problem) -> (usize, usize, usize) {
    let (b, _, _, _, l, _) = decode_dims(p);
    let page = p.options.page.unwrap_or(DEFAULT_PAGE);
    let per_seq = l.div_ceil(page);
    (page, per_seq, p.options.pages.unwrap_or(b * per_seq))
}

/// The test block table: every sequence's pages drawn without repeats from a shuffled pool.
fn block_table(b: usize, per_seq: usize, pool: usize) -> Vec<u32> {
    let mut order: Vec<u32> = (0..pool as u32).collect();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in (1..order.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    (0..b * per_seq).map(|i| order[i % pool]).collect()
}

/// Test sequence lengths: the longest is `L`, the others shorter by a few tokens each, so last
/// pages are not full.
fn lengths(b: usize, l: usize) -> Vec<u32> {
    (0..b).map(|i| l.saturating_sub(3 * i).max(1) as u32).collect()
}

fn decode_entry(paged: bool) -> Entry {
    let e = Entry::planned(
        About {
            name: if paged { "paged_decode_attention" } else { "decode_attention" },
            summary: if paged {
                "decode attention over a paged KV cache: K, V [pages, KV, page, D], Table[B, pages per sequence], Lens[B]; options kv, rows, page, pages, causal"
            } else {
                "decode attention (flash-decoding): R query rows per head against a contiguous KV cache [B, KV, L, D], split over L; options kv, rows, causal"
            },
            dims: &["B", "H", "L", "D"],
            dtypes: TYPES,
            quick: if paged {
                &[
                    "1x4x1x64,kv=1",
                    "2x8x77x64,kv=2",
                    "3x4x1001x128,kv=2,rows=3,causal",
                    "2x2x333x256,page=32",
                    "2x4x100x96,page=8,kv=4,pages=40",
                ]
            } else {
                &[
                    "1x4x1x64,kv=1",
                    "2x8x77x64,kv=2",
                    "1x4x1001x128,kv=2,rows=3,causal",
                    "1x2x1000x256,rows=4",
                    "1x2x999x128,rows=8",
                    "3x4x333x96,kv=4,rows=2",
                ]
            },
            full: &["1x32x32768x128,kv=8", "1x32x4096x128,kv=8"],
            bound: Bound::Memory,
        },
        move |p: &Problem, profile: &Profile| -> Result<Plan> {
            let (b, h, kv, rows, l, d) = decode_dims(p);
            let page = paged.then(|| paging(p).0);
            let group_rows = h / kv * rows;
            let shape = DecodeShape { batch: b, kv_heads: kv, group_rows, len: l, d, page };
            let cfg = DecodeConfig::choose(shape, p.dtype, profile)?;
            Ok(decode_plan(&cfg, shape))
        },
        move |p| {
            let (b, h, kv, rows, l, d) = decode_dims(p);
            let mut a = vec![ArgSpec::input("Q", p.dtype, &[b, h, rows, d])];
            if paged {
                let (page, per_seq, pool) = paging(p);
                a.push(ArgSpec::input("K", p.dtype, &[pool, kv, page, d]));
                a.push(ArgSpec::input("V", p.dtype, &[pool, kv, page, d]));
                a.push(ArgSpec::indices("Table", &[b, per_seq], block_table(b, per_seq, pool)));
                a.push(ArgSpec::indices("Lens", &[b], lengths(b, l)));
            } else {
                a.push(ArgSpec::input("K", p.dtype, &[b, kv, l, d]));
                a.push(ArgSpec::input("V", p.dtype, &[b, kv, l, d]));
            }
            a.push(ArgSpec::output("O", p.dtype, &[b, h, rows, d]));
            a
        },
        move |p, ins| {
            let (b, h, kv, rows, l, d) = decode_dims(p);
            let n = AttentionSizes {
                b,
                h,
                kv,
                s: rows,
                d,
                causal: p.options.causal,
                scale: default_scale(d),
            };
            let rows = checked_rows(b, h, rows, l, d);
            let all = rows.len() == b * h * n.s;
            let (o, l) = if paged {
                let (page, per_seq, _) = paging(p);
                let (table, lens) = (&ins[3], &ins[4]);
                let row = move |bi: usize, kh: usize, j: usize| {
                    let pg = table[bi * per_seq + j / page] as usize;
                    ((pg * kv + kh) * page + j % page) * d
                };
                r::attention(
                    &ins[0],
                    n,
                    &rows,
                    |bi| lens[bi] as usize,
                    move |bi, kh, j| &ins[1][row(bi, kh, j)..row(bi, kh, j) + d],
                    move |bi, kh, j| &ins[2][row(bi, kh, j)..row(bi, kh, j) + d],
                )
            } else {
                let at = |bi: usize, kh: usize, j: usize| ((bi * kv + kh) * l + j) * d;
                r::attention(
                    &ins[0],
                    n,
                    &rows,
                    |_| l,
                    |bi, kh, j| &ins[1][at(bi, kh, j)..at(bi, kh, j) + d],
                    |bi, kh, j| &ins[2][at(bi, kh, j)..at(bi, kh, j) + d],
                )
            };
            expected(o, l, &rows, d, all, false)
        },
        tolerance,
    );
    let names: &'static [&'static str] =
        if paged { &["kv", "rows", "page", "pages", "causal"] } else { &["kv", "rows", "causal"] };
    e.with_scalars(|p| {
        vec![("scale", default_scale(p.dims[3])), ("causal", p.options.causal as u8 as f64)]
    })
    .with_flops(|p| {
        let (b, h, _, rows, l, d) = decode_dims(p);
        4.0 * (b * h * d) as f64 * visible_pairs(rows, l, p.options.causal)
    })
    .with_check(move |p| {
        let (_, h, _, rows, _, d) = decode_dims(p);
        check(p, h, d)?;
        if rows > 8 {
            return Err(format!("rows = {rows} query rows per head; decode takes 1 to 8"));
        }
        if paged {
            let (page, per_seq, pool) = paging(p);
            if !(8..=256).contains(&page) || !page.is_power_of_two() {
                return Err(format!(
                    "page = {page} tokens: pages hold a power of two from 8 to 256"
                ));
            }
            if pool < per_seq {
                return Err(format!(
                    "a pool of {pool} pages cannot hold one sequence's {per_seq} pages"
                ));
            }
        }
        Ok(())
    })
    .with_validation(move |p, inputs| {
        if !paged {
            return Ok(());
        }
        let (page, per_seq, pool) = paging(p);
        let read = |i: usize| -> std::result::Result<Vec<u32>, String> {
            inputs.get(i).ok_or("missing input")?.download::<u32>().map_err(|e| e.to_string())
        };
        let (table, lens) = (read(3)?, read(4)?);
        super::check_block_table(&table, &lens, per_seq, pool, page)
    })
    .with_options(names, move |shapes| {
        let (q, k) = (shapes.first(), shapes.get(1));
        let page = if paged { k.and_then(|k| k.get(2)).copied() } else { None };
        let options = Options {
            kv_heads: k.and_then(|k| k.get(1)).copied(),
            rows: q.and_then(|q| q.get(2)).copied(),
            page,
            pages: if paged { k.and_then(|k| k.first()).copied() } else { None },
            causal: false,
            ..Options::default()
        };
        // Paged: L is the block table's width in pages times the page.
        let width = shapes.get(3).and_then(|t| t.get(1));
        let derived = match (page, width) {
            (Some(p), Some(&w)) => vec![(2, w * p)],
            _ => Vec::new(),
        };
        (options, derived)
    })
}

/// The two launches of a decode problem of `shape` under `cfg`, with their scratch: the split
/// pass over the entry's inputs into partials, then the merge into the output.
pub fn decode_plan(cfg: &DecodeConfig, shape: DecodeShape) -> Plan {
    let DecodeShape { batch: b, kv_heads: kv, group_rows, d, .. } = shape;
    let sp = cfg.splits as usize;
    let scratch = vec![
        ArgSpec::output("Opart", F32, &[b, kv, group_rows, d, sp]),
        ArgSpec::output("Mpart", F32, &[b, kv, group_rows, sp]),
        ArgSpec::output("Lpart", F32, &[b, kv, group_rows, sp]),
    ];
    let cache = if cfg.page.is_some() { 4 } else { 2 };
    let split = Launch {
        ir: split_pass(cfg),
        bind: (0..=cache).map(Slot::Arg).chain((0..3).map(Slot::Scratch)).collect(),
    };
    let merge = Launch {
        ir: merge_pass(cfg),
        bind: (0..3).map(Slot::Scratch).chain([Slot::Arg(cache + 1)]).collect(),
    };
    Plan { strategy: Strategy::Decode(*cfg), scratch, launches: vec![split, merge] }
}

/// The family's entries.
pub(crate) fn entries() -> Vec<Entry> {
    vec![attention_entry(false), attention_entry(true), decode_entry(false), decode_entry(true)]
}
