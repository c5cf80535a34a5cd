//! Kernels that move a model's token rows between layouts, with no arithmetic: the embedding
//! lookup (rows gathered by token id), the swap of the token and head axes that prefill
//! attention needs (`[B, S, H, D]` projections to `[B, H, S, D]` heads and back), and the
//! write of new keys and values into a paged KV cache through its block table. A decoder step
//! runs all three on the GPU, so no token id or position makes a round trip through the host.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, block_x, block_y, ceil_div, sym};

pub(crate) mod entries;

use crate::families::grid::{flat_block, flat_grid};

/// Elements of a row one threadgroup moves: 4 per thread at 64 threads, one vector each.
const CHUNK: u32 = 256;
/// Threads per threadgroup.
const THREADS: u32 = 64;

/// `Y[s, :] = Table[Ids[s], :]` for `Ids[S]` (u32), `Table[V, C]`, `Y[S, C]`: one threadgroup per
/// `CHUNK` columns of a row. An id of `V` or more reads zeros (the table's bounds mask it); the
/// decoder's ids come from `argmax` over `V` logits or from a prompt checked on the host.
pub fn embedding(dtype: DType) -> Ir {
    let (s, v, c) = (sym("S"), sym("V"), sym("C"));
    let k = Kernel::new("embedding").grid([ceil_div(&c, CHUNK), s.clone()]).threads(THREADS);
    let ids = k.input("Ids", DType::U32, [&s]);
    let table = k.input("Table", dtype, [&v, &c]);
    let y = k.param("Y", dtype, [&s, &c]);
    let (row, c0) = (block_y(), block_x() * CHUNK);
    let part = k.fragment_named("row", dtype, [CHUNK]);
    k.copy(table.window([ids.at([row.clone()]), c0.clone()], [1]), &part);
    k.copy(&part, y.window([row, c0], [1]));
    k.build()
}

/// `Y[b, c, r, :] = X[b, r, c, :]` for `X[B, R, C, E]`: the two middle axes swapped, rows of
/// `E` kept whole (token-major `[B, S, H, D]` to head-major `[B, H, S, D]`, and back with `R`
/// and `C` exchanged). A threadgroup moves `CHUNK` elements of one row.
pub fn swap_axes(dtype: DType) -> Ir {
    let (b, r, c, e) = (sym("B"), sym("R"), sym("C"), sym("E"));
    let chunks = ceil_div(&e, CHUNK);
    let blocks = b.clone() * &r * &c * &chunks;
    let k = Kernel::new("swap_axes").grid(flat_grid(&blocks)).threads(THREADS);
    let x = k.input("X", dtype, [&b, &r, &c, &e]);
    let y = k.param("Y", dtype, [&b, &c, &r, &e]);
    let blk = flat_block(&blocks);
    let (row, e0) = (blk.clone() / &chunks, (blk % &chunks) * CHUNK);
    let (bb, rr, cc) = (row.clone() / (r.clone() * &c), (row.clone() / &c) % &r, row % &c);
    let part = k.fragment_named("row", dtype, [CHUNK]);
    k.copy(x.window([bb.clone(), rr.clone(), cc.clone(), e0.clone()], [3]), &part);
    k.copy(&part, y.window([bb, cc, rr, e0], [3]));
    k.build()
}

/// New keys and values into a paged cache: for token `s` of sequence `b` at position
/// `p = offset + s`, `K[Table[b, p / page], h, p % page, :] = Knew[b, s, h, :]`, and the same for
/// `V`. Arguments: `Knew`, `Vnew` `[B, S, KV, D]` (the projections' token-major layout), `Table`
/// `[B, MP]` (u32 page indices), with `starts` a u32 `Start[B]` (each sequence's `offset`), then
/// the caches `K`, `V` `[NP, KV, page, D]` (written only at those rows), and without `starts`
/// the u32 scalar `offset`. The caller keeps `offset + S <= MP * page` and every page index
/// below `NP` (the registry's checks): past the table its entry reads as page 0.
pub fn paged_kv_write(dtype: DType, page: u32, starts: bool) -> Ir {
    let (b, s, kv, d, np, mp) = (sym("B"), sym("S"), sym("KV"), sym("D"), sym("NP"), sym("MP"));
    let pg = Expr::from(page);
    let chunks = ceil_div(&d, CHUNK);
    let blocks = b.clone() * &s * &kv * &chunks;
    let k = Kernel::new("paged_kv_write").grid(flat_grid(&blocks)).threads(THREADS);
    let knew = k.input("Knew", dtype, [&b, &s, &kv, &d]);
    let vnew = k.input("Vnew", dtype, [&b, &s, &kv, &d]);
    let table = k.input("Table", DType::U32, [&b, &mp]);
    let start = starts.then(|| k.input("Start", DType::U32, [&b]));
    let kc = k.param("K", dtype, [&np, &kv, &pg, &d]);
    let vc = k.param("V", dtype, [&np, &kv, &pg, &d]);
    let blk = flat_block(&blocks);
    let (row, d0) = (blk.clone() / &chunks, (blk % &chunks) * CHUNK);
    let (bb, ss, hh) = (row.clone() / (s.clone() * &kv), (row.clone() / &kv) % &s, row % &kv);
    let offset = match start {
        Some(start) => start.at([bb.clone()]),
        None => k.scalar("offset", DType::U32),
    };
    let pos = offset + &ss;
    let at = table.at([bb.clone(), pos.clone() / page]);
    let slot = pos % page;
    for (new, cache, name) in [(&knew, &kc, "keys"), (&vnew, &vc, "values")] {
        let part = k.fragment_named(name, dtype, [CHUNK]);
        k.copy(new.window([bb.clone(), ss.clone(), hh.clone(), d0.clone()], [3]), &part);
        k.copy(&part, cache.window([at.clone(), hh.clone(), slot.clone(), d0.clone()], [3]));
    }
    k.build()
}
