//! Decode attention (flash-decoding): `R` new query rows per head (1 for decode, up to 8 for
//! speculative decode) against a KV cache of `L` tokens, split over the sequence so a long
//! cache fills the GPU. Launch one ([`split_pass`]) gives each threadgroup one key/value head,
//! up to `rows` of its `G * R` query rows (`G = H / KV` query heads share it) and one of
//! `splits` ranges of key blocks, and writes unnormalized partial outputs with their row
//! maximum and sum; launch two ([`merge_pass`]) rescales the partials to the common maximum and
//! divides by the total sum.
//!
//! Caches: contiguous `K, V [B, KV, L, D]`; or paged: `K, V [pages, KV, page, D]` with a block
//! table `Table[B, max_pages]` (u32 page indices) and per-sequence lengths `Lens[B]` (u32), as
//! vLLM- and llama.cpp-style engines keep them. With `causal` nonzero, query row `r` sits at
//! position `len - R + r` and sees keys up to it (speculative decode); otherwise every row sees
//! the whole cache.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{
    DType, Expr, GlobalParam, Kernel, TileRef, block_x, block_y, block_z, ceil_div, select, sym,
};

use tilecast_lang::{Profile, compile};

use super::key_rows::KeyRows;
use crate::error::{Error, Result};
use crate::gemm::staged_type;

/// How a decode problem runs, decided by [`DecodeConfig::choose`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeConfig {
    /// Query rows (of the `G * R` sharing a key/value head) per threadgroup.
    pub rows: u32,
    /// Keys per block (for a paged cache, the page or an even part of it).
    pub bn: u32,
    /// Page size, for a paged cache.
    pub page: Option<u32>,
    /// Head size.
    pub d: u32,
    /// Blocks of keys whose K and V rows are loaded together before any is used: more bytes
    /// in flight per thread without more state.
    pub stages: u32,
    /// Ranges of key blocks the sequence is split into.
    pub splits: u32,
    /// Threads per threadgroup.
    pub threads: u32,
    /// Element type of Q, K, V and O.
    pub input: DType,
}

/// Threadgroups the split aims for: about two per multiprocessor of a 132-multiprocessor GPU
/// (Hq32 Hkv8 L32768 D128 f16 on an H200: 52.3-52.6 us at 264 and at 396, 58.2 at 528, 66.4
/// at 132).
pub const TARGET_GROUPS: usize = 264;

/// Fewest keys a split gets: [`MIN_BLOCKS_PER_SPLIT`] blocks, and at least this many keys. A
/// short cache gains from more splits (Hq32 Hkv8 L640 D128 f16 on an H200: 11.7 us with 32
/// keys, 13.1-13.7 with 64, 14.2-14.7 with 128; L4096 and L32768 unchanged, their splits set
/// by [`TARGET_GROUPS`]).
pub const MIN_KEYS_PER_SPLIT: usize = 32;

/// Fewest key blocks a split gets (16 keys each at one block per page: 11.6-11.9 us at one
/// block, 11.7-11.8 at two, on the shape above).
pub const MIN_BLOCKS_PER_SPLIT: usize = 2;

/// (keys per block, threads, blocks loaded together), in the order of measured speed: 16 keys
/// over 128 threads (a key row on 8 lanes of 16 columns each), four blocks' loads in flight
/// and one state update per four blocks (Hq32 Hkv8 D128 f16 on an H200: 52.3 us at L32768
/// against 61.4 with two blocks; 8 keys, four blocks: 76.0; 16 keys over 256 threads: 59.2);
/// 256 threads where the outputs would not fit [`MAX_OUTPUTS_PER_THREAD`] (wider heads, more
/// query rows); then smaller ones for profiles with less threadgroup memory or smaller
/// subgroups.
pub const CANDIDATES: [(u32, u32, u32); 9] = [
    (16, 128, 4),
    (16, 128, 2),
    (16, 128, 1),
    (16, 256, 2),
    (8, 128, 2),
    (8, 64, 1),
    (8, 32, 1),
    (4, 32, 1),
    (16, 256, 1),
];

/// Running outputs a thread may keep (query rows times its columns of a key row, in f32
/// registers): more spilled on the H200 (16 keys over 64 threads with two blocks in flight,
/// 128 outputs and twice the K/V registers, ran 147 us against 117 with one block).
pub const MAX_OUTPUTS_PER_THREAD: u32 = 64;

/// The decode problem the plan is made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeShape {
    /// Sequences.
    pub batch: usize,
    /// Key/value heads.
    pub kv_heads: usize,
    /// Query rows per key/value head (`G * R`).
    pub group_rows: usize,
    /// Cache length (contiguous) or, paged, the block table's width in pages times the page.
    pub len: usize,
    /// Head size.
    pub d: usize,
    /// Page size, for a paged cache.
    pub page: Option<usize>,
}

impl DecodeConfig {
    /// Blocks and split for `shape` on `profile`: all `G * R` query rows sharing a head (up
    /// to 8) per threadgroup; the first of [`CANDIDATES`] that compiles (the compiler's
    /// accounting of threadgroup memory decides) and loads no more blocks together than a
    /// split has, a paged cache's block being its page or an even part of one; then as many
    /// splits as bring the launch to [`TARGET_GROUPS`] threadgroups, each with at least
    /// [`MIN_BLOCKS_PER_SPLIT`] blocks and [`MIN_KEYS_PER_SPLIT`] keys.
    pub fn choose(shape: DecodeShape, input: DType, profile: &Profile) -> Result<DecodeConfig> {
        super::check_head_dim(shape.d)
            .map_err(|message| Error::Problem { kernel: "decode_attention".into(), message })?;
        // The query rows sharing a key/value head, up to 8 per threadgroup.
        let rows = shape.group_rows.clamp(1, 8) as u32;
        let candidates: Vec<(u32, u32, u32)> = match shape.page {
            // Paged: a block is a page, or a half or quarter of one.
            Some(p) => [p, p / 2, p / 4, p / 8]
                .into_iter()
                .filter(|&b| b > 0 && p.is_multiple_of(b))
                .flat_map(|b| CANDIDATES.iter().map(move |&(_, t, s)| (b as u32, t, s)))
                .collect(),
            None => CANDIDATES.to_vec(),
        };
        // Candidates whose outputs fit the registers first, then the rest, fewest outputs first.
        let outputs = |&(bn, threads, _): &(u32, u32, u32)| rows * bn * shape.d as u32 / threads;
        let (fit, mut rest): (Vec<_>, Vec<_>) =
            candidates.into_iter().partition(|c| outputs(c) <= MAX_OUTPUTS_PER_THREAD);
        rest.sort_by_key(outputs);
        let mut last = None;
        for (bn, threads, stages) in fit.into_iter().chain(rest) {
            let blocks = shape.len.div_ceil(bn as usize);
            let groups = shape.batch * shape.kv_heads * shape.group_rows.div_ceil(rows as usize);
            let fewest = MIN_KEYS_PER_SPLIT.max(MIN_BLOCKS_PER_SPLIT * bn as usize);
            let most = (shape.len / fewest).max(1);
            let splits = TARGET_GROUPS.div_ceil(groups.max(1)).clamp(1, most);
            // No empty splits, and a power of two of them: the merge then loads each row's
            // `[D, splits]` partials in runs of 4 (vector loads).
            let splits = blocks.div_ceil(blocks.div_ceil(splits)).max(1);
            let splits = 1u32 << splits.ilog2();
            // No more blocks loaded together than a split has: the rest would be loaded and
            // masked for nothing (Hq32 Hkv8 D128 f16 on an H200: 16 keys 8.7 us at one block
            // against 11.2 at four; 512 and 1024 keys, two blocks a split: 10.4-10.5 and 11.8
            // at two against 12.5 and 13.3-13.7 at four).
            if stages > 1 && stages as usize > blocks.div_ceil(splits as usize) {
                continue;
            }
            let cfg = DecodeConfig {
                rows,
                bn,
                d: shape.d as u32,
                stages,
                splits,
                threads,
                input,
                page: shape.page.map(|p| p as u32),
            };
            match compile(&split_pass(&cfg), profile) {
                Ok(_) => return Ok(cfg),
                Err(e) => last = Some(e),
            }
        }
        Err(Error::Compile(last.expect("there are candidates")))
    }
}

impl DecodeConfig {
    /// Groups ahead of their use that a paged cache's page indices are read into registers
    /// (`None` for a contiguous cache): every group's K and V loads go out a group ahead, so
    /// their page indices must be in hand a group before that, or each load waits on a table
    /// read (Hq32 Hkv8 L32768 D128 f16 on an H200: 51.6-51.8 us against 52.2-52.6 with the
    /// loads at the top of each group, 57.1-57.2 with the loads ahead reading the table).
    pub fn pages_ahead(&self) -> Option<u32> {
        self.page.map(|_| 2)
    }
}

impl std::fmt::Display for DecodeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} query rows x {} keys per block, {} block(s) loaded together a group ahead{}, {} threads, sequence split {} ways, then a merge",
            self.rows,
            self.bn,
            self.stages,
            match self.pages_ahead() {
                Some(n) => format!(" (page indices {n} groups ahead)"),
                None => String::new(),
            },
            self.threads,
            self.splits
        )
    }
}

/// The cache's parameters and how to find a block's keys.
enum Cache {
    Contiguous { k: GlobalParam, v: GlobalParam },
    Paged { k: GlobalParam, v: GlobalParam, table: GlobalParam, lens: GlobalParam },
}

/// Launch one: partial outputs `Opart[B, KV, GR, D, splits]`, row maxima (base 2) `Mpart` and
/// sums `Lpart[B, KV, GR, splits]` (f32) for `GR = G * R` rows per key/value head. Arguments:
/// `Q[B, H, R, D]`, the cache (`K`, `V`, or `K`, `V`, `Table`, `Lens`), `Opart`, `Mpart`,
/// `Lpart`; scalars `scale`, `causal`.
///
/// The cache streams from memory into registers, `stages` blocks of `bn` keys at a time, a
/// group ahead of their use (a paged cache's page indices a group before that), and each key
/// row keeps its own online softmax across the blocks (`key_rows.rs`).
pub fn split_pass(cfg: &DecodeConfig) -> Ir {
    let DecodeConfig { rows, bn, page, d, stages, splits, threads, input } = *cfg;
    let (b, h, kv, r, gr) = (sym("B"), sym("H"), sym("KV"), sym("R"), sym("GR"));
    let dd = Expr::from(d);
    let row_blocks = ceil_div(&gr, rows);
    let k = Kernel::new(if page.is_some() { "paged_decode_split" } else { "decode_split" })
        .grid([Expr::from(splits), kv.clone() * &row_blocks, b.clone()])
        .threads(threads);
    let q = k.input("Q", input, [&b, &h, &r, &dd]);
    // Blocks per page.
    let per_page = page.map_or(1, |p| p / bn);
    let cache = if let Some(p) = page {
        let (np, page, mp) = (sym("NP"), Expr::from(p), sym("MP"));
        Cache::Paged {
            k: k.input("K", input, [&np, &kv, &page, &dd]),
            v: k.input("V", input, [&np, &kv, &page, &dd]),
            table: k.input("Table", DType::U32, [&b, &mp]),
            lens: k.input("Lens", DType::U32, [&b]),
        }
    } else {
        let l = sym("L");
        Cache::Contiguous {
            k: k.input("K", input, [&b, &kv, &l, &dd]),
            v: k.input("V", input, [&b, &kv, &l, &dd]),
        }
    };
    let sp = Expr::from(splits);
    let opart = k.param("Opart", DType::F32, [&b, &kv, &gr, &dd, &sp]);
    let mpart = k.param("Mpart", DType::F32, [&b, &kv, &gr, &sp]);
    let lpart = k.param("Lpart", DType::F32, [&b, &kv, &gr, &sp]);
    let scale = k.scalar("scale", DType::F32);
    let causal = k.scalar("causal", DType::U32);

    let st = KeyRows::new(&k, [rows, bn, d], stages, scale);
    let (split, bb) = (block_x(), block_z());
    let kvh = block_y() / &row_blocks;
    let row0 = (block_y() % &row_blocks) * rows;
    let group = h.clone() / &kv;
    // This split's key blocks: `per` of them from `first`, clipped to the sequence.
    let len = match &cache {
        Cache::Contiguous { .. } => sym("L"),
        Cache::Paged { lens, .. } => lens.at([bb.clone()]),
    };
    let max_blocks = match &cache {
        Cache::Contiguous { .. } => ceil_div(sym("L"), bn),
        Cache::Paged { .. } => sym("MP") * per_page,
    };
    let per = ceil_div(max_blocks, splits);
    let first = split.clone() * &per;
    let blocks = ceil_div(&len, bn);
    let count = select(blocks.clone().gt(&first), (blocks - &first).min(&per), 0u32);
    let groups = ceil_div(&count, stages);
    let zero = || Expr::from(0u32);
    // Group `j`'s blocks (a last group may reach past the split: the mask drops those keys).
    let group_blocks = |j: &Expr| -> Vec<Expr> {
        (0..stages).map(|s| first.clone() + j.clone() * stages + s).collect()
    };
    // Paged: the page indices of the next group to load, read a group before its loads
    // ([`DecodeConfig::pages_ahead`]). Past the table's width an entry reads as page 0.
    let pages = page.map(|_| k.local_named("pages", DType::U32, [stages]));
    let read_pages = |k: &Kernel, j: &Expr| {
        if let (Some(pages), Cache::Paged { table, .. }) = (&pages, &cache) {
            let (j, first, bb) = (j.clone(), first.clone(), bb.clone());
            k.parallel([stages], |k, [s]| {
                let blk = first + j * stages + &s;
                k.store(pages, [&s], table.at([bb, blk / per_page]));
            });
        }
    };
    // Issues the loads of group `j`'s K and V rows into the stage fragments (paged: from the
    // pages `read_pages` holds for it).
    let load_group = |k: &Kernel, j: &Expr| {
        let blocks = group_blocks(j).into_iter().zip(&st.k_rows).zip(&st.v_rows);
        for (s, ((blk, kf), vf)) in blocks.enumerate() {
            match &cache {
                Cache::Contiguous { k: kc, v: vc } => {
                    let key0 = blk.clone() * bn;
                    k.copy(kc.window([bb.clone(), kvh.clone(), key0.clone(), zero()], [2, 3]), kf);
                    k.copy(vc.window([bb.clone(), kvh.clone(), key0, zero()], [2, 3]), vf);
                }
                Cache::Paged { k: kp, v: vp, .. } => {
                    // A last group's blocks past the sequence read whatever page the table
                    // holds there (page 0 past its width); the mask drops their keys.
                    let page = pages.as_ref().expect("paged").at([s as u32]);
                    let at = (blk % per_page) * bn;
                    k.copy(kp.window([page.clone(), kvh.clone(), at.clone(), zero()], [2, 3]), kf);
                    k.copy(vp.window([page, kvh.clone(), at, zero()], [2, 3]), vf);
                }
            }
        }
    };
    // Loads a group ahead: the first group's before the gather (and, paged, the next group's
    // page indices).
    read_pages(&k, &zero());
    load_group(&k, &zero());
    read_pages(&k, &Expr::from(1u32));
    // Gather the block's query rows: row `i` is query head `kv_head * G + i / R`, row `i % R`.
    k.parallel([rows, d], |k, [i, c]| {
        let row = row0.clone() + &i;
        let head = kvh.clone() * &group + row.clone() / &r;
        let x = q.at([bb.clone(), head, row.clone() % &r, c.clone()]).cast(DType::F32);
        k.store(&st.q_s, [&i, &c], select(row.lt(&gr), x, 0.0f32));
    });
    st.init(&k);
    // Query row `qi` sees `key`: inside the sequence and this split, and (causal) not past
    // the row's position. This split's keys end at `end`. A paged cache's length and that end
    // are read once into registers; every visibility test reading `Lens` (Hq32 Hkv8 L32768
    // D128 f16 on an H200) took 55.4-55.6 us against 52.2-52.6.
    let end = (first.clone() + &count) * bn;
    let (len, end) = match &cache {
        Cache::Contiguous { .. } => (len, end),
        Cache::Paged { .. } => {
            let held = k.local_named("seq_end", DType::U32, [2]);
            k.parallel([1], |k, [z]| {
                k.store(&held, [z.clone()], len);
                k.store(&held, [z + 1u32], end);
            });
            (held.at([0u32]), held.at([1u32]))
        }
    };
    let visible = |qi: u32, key: &Expr| {
        let row = row0.clone() + qi;
        let sees = causal.clone().eq_(0u32).or((key.clone() + &r).le(len.clone() + row % &r));
        key.clone().lt(&len).and(key.clone().lt(&end)).and(sees)
    };
    // Groups of `stages` blocks: every load of a group is issued before its first block is used.
    // A paged split's group count reads `Lens`, and an `if` needs a uniform condition, so a
    // paged split bounds its loads ahead by its groups within the table's width: a group past
    // the sequence is loaded and never used.
    let ahead_bound = match &cache {
        Cache::Contiguous { .. } => groups.clone(),
        Cache::Paged { .. } => ceil_div(&per, stages),
    };
    k.serial(groups.clone(), |k, j| {
        let keys0: Vec<Expr> = group_blocks(&j).iter().map(|blk| blk.clone() * bn).collect();
        let rows: Vec<(&TileRef, &TileRef)> = st.k_rows.iter().zip(&st.v_rows).collect();
        st.blocks(k, &keys0, &rows, &visible);
        let next = j + 1u32;
        k.if_(next.clone().lt(&ahead_bound), |k| {
            load_group(k, &next);
            read_pages(k, &(next.clone() + 1u32));
        });
    });
    let (top, total) = st.merge(&k, |k, qi, orow| {
        let row = row0.clone() + qi;
        k.copy(orow, opart.window([bb.clone(), kvh.clone(), row, zero(), split.clone()], [3]));
    });
    k.copy(&top, mpart.window([bb.clone(), kvh.clone(), row0.clone(), split.clone()], [2]));
    k.copy(&total, lpart.window([bb, kvh, row0, split], [2]));

    k.build()
}

/// Launch two: `O[B, H, R, D]` from the partials of [`split_pass`], one threadgroup per query
/// row. Arguments: `Opart`, `Mpart`, `Lpart`, `O`.
///
/// Partials lie split-last (`Opart[B, KV, GR, D, splits]`), so a row's are one window: all of
/// it loads at once, as vectors, into a `[D, splits]` fragment weighted by each split's
/// `exp2(m - max)` and reduced along the splits (a loop over the splits waits for each load
/// in turn: 45 us for 64 of them on an H200).
pub fn merge_pass(cfg: &DecodeConfig) -> Ir {
    let DecodeConfig { d, splits, input, .. } = *cfg;
    let (b, h, kv, r, gr) = (sym("B"), sym("H"), sym("KV"), sym("R"), sym("GR"));
    let (dd, sp) = (Expr::from(d), Expr::from(splits));
    // Splits padded to whole runs of 4; the padding weighs nothing.
    let sp4 = splits.next_multiple_of(4);
    let threads = if (d * sp4).is_multiple_of(128) { 128 } else { 64 };
    let k = Kernel::new("decode_merge").grid([gr.clone(), kv.clone(), b.clone()]).threads(threads);
    let opart = k.input("Opart", DType::F32, [&b, &kv, &gr, &dd, &sp]);
    let mpart = k.input("Mpart", DType::F32, [&b, &kv, &gr, &sp]);
    let lpart = k.input("Lpart", DType::F32, [&b, &kv, &gr, &sp]);
    let o = k.param("O", input, [&b, &h, &r, &dd]);
    let (row, kvh, bb) = (block_x(), block_y(), block_z());
    let head = kvh.clone() * (h.clone() / &kv) + row.clone() / &r;
    let zero = || Expr::from(0u32);
    let (ms, ls) = (
        k.shared_named("m_splits", DType::F32, [1, sp4]),
        k.shared_named("l_splits", DType::F32, [1, sp4]),
    );
    let (top, total) =
        (k.shared_named("m_all", DType::F32, [1]), k.shared_named("l_all", DType::F32, [1]));
    let parts = k.fragment_named("o_splits", DType::F32, [d, sp4]);
    let out = k.shared_named("o_all", DType::F32, [d]);
    k.copy(mpart.window([bb.clone(), kvh.clone(), row.clone(), zero()], [2, 3]), &ms);
    k.copy(lpart.window([bb.clone(), kvh.clone(), row.clone(), zero()], [2, 3]), &ls);
    k.copy(opart.window([bb.clone(), kvh.clone(), row.clone(), zero(), zero()], [3, 4]), &parts);
    k.parallel([1, sp4], |k, [i, s]| {
        k.store(&ms, [&i, &s], select(s.clone().lt(splits), ms.at([&i, &s]), Expr::neg_inf()));
    });
    k.reduce_max(&ms, &top, 1);
    k.parallel([1, sp4], |k, [i, s]| {
        let m = ms.at([&i, &s]);
        let w = select(m.clone().eq_(Expr::neg_inf()), 0.0f32, (m - top.at([zero()])).exp2());
        let w = k.let_named("w", w);
        k.store(&ms, [&i, &s], w.clone());
        k.store(&ls, [&i, &s], ls.at([&i, &s]) * w);
    });
    k.reduce_sum(&ls, &total, 1);
    k.parallel([d, sp4], |k, [c, s]| {
        k.store(&parts, [&c, &s], parts.at([&c, &s]) * ms.at([zero(), s.clone()]));
    });
    k.reduce_sum(&parts, &out, 1);
    k.parallel([d], |k, [c]| {
        let l = total.at([zero()]);
        let v = select(l.clone().gt(0.0f32), out.at([&c]) / l, 0.0f32);
        k.store(
            &o,
            [bb.clone(), head.clone(), row.clone() % &r, c.clone()],
            v.cast(staged_type(input)),
        );
    });
    k.build()
}
