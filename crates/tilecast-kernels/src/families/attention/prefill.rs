//! Flash attention forward: `O = softmax(Q K^T * scale + mask) V` for one `[bm, D]` block of
//! query rows per threadgroup, the Q block resident in threadgroup memory, K and V blocks of
//! `bn` keys pipelined over `stages` buffers, and the online softmax both attention kernels
//! share (`online.rs`).
//!
//! Arguments: `Q[B, H, S, D]`, `K[B, KV, T, D]`, `V[B, KV, T, D]`, `O[B, H, S, D]`, then
//! `LSE[B, H, S]` (f32, natural log) when asked for; scalars `scale` (f32) and `causal` (u32,
//! nonzero for a causal mask aligned to the end: query `i` sees keys `j <= i + T - S`). Query
//! head `h` reads key/value head `h / (H / KV)` (grouped-query attention; `KV = 1` is
//! multi-query). A row that sees no key (causal, `S > T`) is all zeros, its LSE `-inf`.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, block_x, block_y, block_z, ceil_div, select, sym};

use super::AttentionConfig;
use super::online::Online;

/// The prefill kernel for `cfg` (with an `LSE` output when `lse`).
pub fn attention(cfg: &AttentionConfig, lse: bool) -> Ir {
    let AttentionConfig { bm, bn, d, stages, threads, acc_columns, input } = *cfg;
    let (b, h, kv, s, t) = (sym("B"), sym("H"), sym("KV"), sym("S"), sym("T"));
    let dd = Expr::from(d);
    let k =
        Kernel::new("attention").grid([ceil_div(&s, bm), h.clone(), b.clone()]).threads(threads);
    let q = k.input("Q", input, [&b, &h, &s, &dd]);
    let kk = k.input("K", input, [&b, &kv, &t, &dd]);
    let v = k.input("V", input, [&b, &kv, &t, &dd]);
    let o = k.param("O", input, [&b, &h, &s, &dd]);
    let lse_out = lse.then(|| k.param("LSE", DType::F32, [&b, &h, &s]));
    let scale = k.scalar("scale", DType::F32);
    let causal = k.scalar("causal", DType::U32);
    let on = Online::new(&k, [bm, bn, d, acc_columns], input, scale);

    let (hq, bb) = (block_y(), block_z());
    let q0 = block_x() * bm;
    let kvh = hq.clone() / (h.clone() / &kv);
    let zero = || Expr::from(0u32);
    k.copy(q.window([bb.clone(), hq.clone(), q0.clone(), zero()], [2, 3]), &on.q_s);
    on.scale_queries(&k);
    on.init(&k);
    // Key blocks to visit: all of them, or (causal) up to the last key the block's last row
    // sees, `q0 + bm - 1 + T - S` (none when that is negative). The first `full` of them are
    // seen whole by every row (causal: up to the key the block's first row sees,
    // `q0 + T - S`), so they need no mask; the rest (the diagonal, a ragged last block) do.
    let seen = q0.clone() + bm + &t;
    let causal_keys = select(seen.clone().gt(&s), (seen - &s).min(&t), 0u32);
    let blocks = select(causal.clone().ne_(0u32), ceil_div(causal_keys, bn), ceil_div(&t, bn));
    let first_seen = q0.clone() + 1u32 + &t;
    let whole = t.clone() / bn;
    let causal_full = select(first_seen.clone().gt(&s), ((first_seen - &s) / bn).min(&whole), 0u32);
    let full = select(causal.clone().ne_(0u32), causal_full, whole);
    let load = |k: &Kernel, key0: &Expr| {
        k.copy(kk.window([bb.clone(), kvh.clone(), key0.clone(), zero()], [2, 3]), &on.k_s);
        for (c, v_s) in on.v_s.iter().enumerate() {
            let col = Expr::from(c as u32 * on.chunk);
            k.copy(v.window([bb.clone(), kvh.clone(), key0.clone(), col], [2, 3]), v_s);
        }
    };
    k.pipelined(full.clone(), stages, |k, j| {
        let key0 = &j * bn;
        load(k, &key0);
        on.block(k, None::<fn(&Expr, &Expr) -> Expr>);
    });
    k.pipelined(blocks - &full, stages, |k, j| {
        let key0 = (full.clone() + &j) * bn;
        load(k, &key0);
        on.block(
            k,
            Some(|r: &Expr, c: &Expr| {
                let key = key0.clone() + c;
                let sees = causal.clone().eq_(0u32).or((key.clone() + &s).le(q0.clone() + r + &t));
                key.lt(&t).and(sees)
            }),
        );
    });
    on.normalize(&k);
    for (c, acc) in on.acc.iter().enumerate() {
        let col = Expr::from(c as u32 * on.chunk);
        k.copy(acc, o.window([bb.clone(), hq.clone(), q0.clone(), col], [2, 3]));
    }
    if let Some(lse_out) = lse_out {
        let lse = on.logsumexp(&k);
        k.copy(lse, lse_out.window([bb, hq, q0], [2]));
    }
    k.build()
}
