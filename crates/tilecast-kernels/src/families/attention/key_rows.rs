//! Decode's per-key-row online softmax: a threadgroup holds `bn` key rows of a block at a time
//! in register fragments (K and V, `stages` blocks of them), and each key row keeps its own
//! running maximum, sum and `[D]` output for every query row across the blocks it sees. A
//! score is one reduction among the key row's lanes, so a block needs no threadgroup memory
//! and no barrier; the key rows' states merge once, at the end ([`KeyRows::merge`]).

use tilecast_lang::{DType, Expr, Kernel, TileRef, select};

/// The tiles of one threadgroup's key rows for `rows` query rows.
pub(crate) struct KeyRows {
    /// The query rows, `[rows, D]` (f32).
    pub q_s: TileRef,
    /// K rows of each block loaded together, `[bn, D]` each.
    pub k_rows: Vec<TileRef>,
    /// V rows of each block loaded together.
    pub v_rows: Vec<TileRef>,
    prod: Vec<TileRef>,
    score: Vec<TileRef>,
    alpha: TileRef,
    prob: Vec<TileRef>,
    /// Per query row: each key row's running maximum (base 2), sum and output.
    most: Vec<TileRef>,
    sum: Vec<TileRef>,
    out: Vec<TileRef>,
    shape: [u32; 3],
    scale2: Expr,
}

impl KeyRows {
    /// Declares the tiles for `[rows, bn, d]` (query rows, keys per block, head size), `stages`
    /// blocks loaded together, and the softmax scale (kept in base 2). K and V rows widen to
    /// f32 as they load, so each element converts once, not once per query row (Hq32 Hkv8
    /// L32768 D128 f16 on an H200: 50.5 us against 52.3 with f16 rows, paged 55.3 against 58.0).
    pub fn new(k: &Kernel, shape: [u32; 3], stages: u32, scale: Expr) -> KeyRows {
        let [rows, bn, d] = shape;
        let q_s = k.shared_named("q_s", DType::F32, [rows, d]);
        let fragments = |name: &str| -> Vec<TileRef> {
            (0..stages)
                .map(|s| k.fragment_named(&format!("{name}{s}"), DType::F32, [bn, d]))
                .collect()
        };
        let (k_rows, v_rows) = (fragments("k_rows"), fragments("v_rows"));
        // `count` f32 fragments `name0..`: `[bn]` (`wide` false) or `[bn, d]` each.
        let named = |name: &str, count: u32, wide: bool| -> Vec<TileRef> {
            (0..count)
                .map(|i| match wide {
                    false => k.fragment_named(&format!("{name}{i}"), DType::F32, [bn]),
                    true => k.fragment_named(&format!("{name}{i}"), DType::F32, [bn, d]),
                })
                .collect()
        };
        // Per block loaded together: its products, scores and probabilities.
        let (prod, score, prob) =
            (named("qk", stages, true), named("score", stages, false), named("p", stages, false));
        let alpha = k.fragment_named("alpha", DType::F32, [bn]);
        let per_row = |name: &str, shape: &[u32]| named(name, rows, shape.len() > 1);
        let (most, sum, out) = (per_row("m", &[bn]), per_row("l", &[bn]), per_row("o", &[bn, d]));
        KeyRows {
            q_s,
            k_rows,
            v_rows,
            prod,
            score,
            alpha,
            prob,
            most,
            sum,
            out,
            shape,
            scale2: scale * std::f64::consts::LOG2_E,
        }
    }

    /// Nothing seen: maxima `-inf`, sums and outputs zero.
    pub fn init(&self, k: &Kernel) {
        for ((m, l), o) in self.most.iter().zip(&self.sum).zip(&self.out) {
            k.fill(m, Expr::neg_inf());
            k.clear(l);
            k.clear(o);
        }
    }

    /// The blocks of keys from `keys0[s]` in `blocks[s]` (K rows, V rows), loaded together:
    /// each key row's scores for all of them first, then one update of its state (one
    /// rescale of its outputs per group of blocks, not per block). `visible(qi, key)` says
    /// whether query row `qi` sees `key`.
    pub fn blocks(
        &self,
        k: &Kernel,
        keys0: &[Expr],
        blocks: &[(&TileRef, &TileRef)],
        visible: &impl Fn(u32, &Expr) -> Expr,
    ) {
        let [_, bn, d] = self.shape;
        let n = blocks.len();
        let (prod, score, prob) = (&self.prod[..n], &self.score[..n], &self.prob[..n]);
        let alpha = &self.alpha;
        for (qi, ((m, l), o)) in self.most.iter().zip(&self.sum).zip(&self.out).enumerate() {
            k.parallel([bn, d], |k, [i, c]| {
                let q = k.let_named("q", self.q_s.at([Expr::from(qi as u32), c.clone()]));
                for (pr, (kf, _)) in prod.iter().zip(blocks) {
                    k.store(pr, [&i, &c], kf.at([&i, &c]).cast(DType::F32) * &q);
                }
            });
            for (pr, sc) in prod.iter().zip(score) {
                k.reduce_sum(pr, sc, 1);
            }
            k.parallel([bn], |k, [i]| {
                let xs: Vec<Expr> = score
                    .iter()
                    .zip(keys0)
                    .map(|(sc, key0)| {
                        let key = key0.clone() + &i;
                        let x = select(
                            visible(qi as u32, &key),
                            sc.at([&i]) * &self.scale2,
                            Expr::neg_inf(),
                        );
                        k.let_named("x", x)
                    })
                    .collect();
                let old = m.at([&i]);
                let new = xs.iter().fold(old.clone(), |a, x| a.max(x.clone()));
                let new = k.let_named("new_max", new);
                let none = new.clone().eq_(Expr::neg_inf());
                let a = k.let_named("a", select(none.clone(), 1.0f32, (old - &new).exp2()));
                k.store(alpha, [&i], a.clone());
                let mut total: Option<Expr> = None;
                for (x, pb) in xs.iter().zip(prob) {
                    let p =
                        k.let_named("e", select(none.clone(), 0.0f32, (x.clone() - &new).exp2()));
                    k.store(pb, [&i], p.clone());
                    total = Some(total.map_or(p.clone(), |t| t + p));
                }
                k.store(l, [&i], l.at([&i]).fma(a, total.expect("at least one block")));
                k.store(m, [&i], new);
            });
            k.parallel([bn, d], |k, [i, c]| {
                let mut acc = o.at([&i, &c]) * alpha.at([&i]);
                for (pb, (_, vf)) in prob.iter().zip(blocks) {
                    acc = pb.at([&i]).fma(vf.at([&i, &c]).cast(DType::F32), acc);
                }
                k.store(o, [&i, &c], acc);
            });
        }
    }

    /// Merges the key rows' states: each query row's maximum over them, and their sums and
    /// outputs weighted by `exp2(m - max)`. `save(k, qi, row)` takes query row `qi`'s merged
    /// `[D]` output (a shared tile, reused by the next row); returns the shared `[rows]`
    /// maxima (base 2) and sums.
    pub fn merge(&self, k: &Kernel, save: impl Fn(&Kernel, u32, &TileRef)) -> (TileRef, TileRef) {
        let [rows, bn, d] = self.shape;
        let ms = k.shared_named("m_rows", DType::F32, [rows, bn]);
        let ls = k.shared_named("l_rows", DType::F32, [rows, bn]);
        let top = k.shared_named("m_all", DType::F32, [rows]);
        let total = k.shared_named("l_all", DType::F32, [rows]);
        let os = k.shared_named("o_rows", DType::F32, [bn, d]);
        let orow = k.shared_named("o_all", DType::F32, [d]);
        // Every query row's statistics in one loop: one barrier after it, not one per row.
        k.parallel([bn], |k, [i]| {
            for (qi, (m, l)) in self.most.iter().zip(&self.sum).enumerate() {
                let qi = Expr::from(qi as u32);
                k.store(&ms, [qi.clone(), i.clone()], m.at([&i]));
                k.store(&ls, [qi, i.clone()], l.at([&i]));
            }
        });
        k.reduce_max(&ms, &top, 1);
        k.parallel([rows, bn], |k, [qi, i]| {
            let m = ms.at([&qi, &i]);
            let w = select(m.clone().eq_(Expr::neg_inf()), 0.0f32, (m - top.at([&qi])).exp2());
            let w = k.let_named("w", w);
            k.store(&ms, [&qi, &i], w.clone());
            k.store(&ls, [&qi, &i], ls.at([&qi, &i]) * w);
        });
        k.reduce_sum(&ls, &total, 1);
        for (qi, o) in self.out.iter().enumerate() {
            k.parallel([bn, d], |k, [i, c]| {
                let w = ms.at([Expr::from(qi as u32), i.clone()]);
                k.store(&os, [&i, &c], o.at([&i, &c]) * w);
            });
            k.reduce_sum(&os, &orow, 0);
            save(k, qi as u32, &orow);
        }
        (top, total)
    }
}
