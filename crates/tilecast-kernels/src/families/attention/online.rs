//! The online softmax of the prefill kernel: for each block of keys already loaded into
//! `k_s` and `v_s`, scores `Q K^T` (the queries scaled into base 2 once) masked where needed, the running row maximum and
//! sum updated, the accumulator rescaled by how much the maximum grew, and `P V` accumulated.
//! Statistics are kept in base 2 (`exp2` of scores times `scale * log2(e)`), in row
//! fragments of the scores (each thread holds its rows' values in registers); the rescale
//! factor also goes to a shared `[rows]` tile, which the accumulator's loop reads (the
//! accumulator may sit on matrix units, whose rows are opaque).

use tilecast_lang::{DType, Expr, Kernel, TileRef, select};

use crate::gemm::staged_type;

/// `log2(e)`: scores are kept in base 2, so each exponential is one `exp2`.
const LOG2_E: f64 = std::f64::consts::LOG2_E;

/// The tiles of one threadgroup's online softmax over `[rows, D]` queries.
pub(crate) struct Online {
    pub q_s: TileRef,
    pub k_s: TileRef,
    /// V's block in column chunks of `chunk` columns.
    pub v_s: Vec<TileRef>,
    scores: TileRef,
    probs: TileRef,
    /// The accumulator in the same column chunks (fewer registers live at once where each
    /// chunk's rescale reads the factor spread to its columns).
    pub acc: Vec<TileRef>,
    /// Columns of each chunk.
    pub chunk: u32,
    /// Running row maximum (base 2), `-inf` before any visible key (a row fragment).
    row_max: TileRef,
    /// Running row sum of `exp2(score - row_max)` (a row fragment).
    row_sum: TileRef,
    /// This block's rescale factor, as a row fragment and in a shared tile.
    alpha: TileRef,
    rescale: TileRef,
    block_max: TileRef,
    block_sum: TileRef,
    /// A shared `[rows]` tile for statistics on their way out.
    out: TileRef,
    rows: u32,
    keys: u32,
    d: u32,
    staged: DType,
    scale2: Expr,
}

impl Online {
    /// Declares the tiles for `rows` queries, blocks of `keys` keys and head size `d` of
    /// `input` elements, the accumulator in chunks of `chunk` columns (the whole head where
    /// that does not divide it), and the scale in base 2.
    pub fn new(k: &Kernel, [rows, keys, d, chunk]: [u32; 4], input: DType, scale: Expr) -> Online {
        let chunk = if chunk > 0 && d.is_multiple_of(chunk) { chunk } else { d };
        let staged = staged_type(input);
        // One chunk keeps the plain names.
        let chunked = |name: &str, c: u32| match d / chunk {
            1 => name.to_string(),
            _ => format!("{name}{c}"),
        };
        let stat = |name: &str| k.fragment_named(name, DType::F32, [rows]);
        Online {
            q_s: k.shared_named("q_s", staged, [rows, d]),
            k_s: k.shared_named("k_s", staged, [keys, d]),
            v_s: (0..d / chunk)
                .map(|c| k.shared_named(&chunked("v_s", c), staged, [keys, chunk]))
                .collect(),
            scores: k.fragment_named("scores", DType::F32, [rows, keys]),
            probs: k.fragment_named("probs", staged, [rows, keys]),
            acc: (0..d / chunk)
                .map(|c| k.fragment_named(&chunked("acc", c), DType::F32, [rows, chunk]))
                .collect(),
            chunk,
            row_max: stat("row_max"),
            row_sum: stat("row_sum"),
            alpha: stat("alpha"),
            rescale: k.shared_named("rescale", DType::F32, [rows]),
            block_max: stat("block_max"),
            block_sum: stat("block_sum"),
            out: k.shared_named("stat_out", DType::F32, [rows]),
            rows,
            keys,
            d,
            staged,
            scale2: scale * LOG2_E,
        }
    }

    /// Nothing accumulated, nothing seen.
    pub fn init(&self, k: &Kernel) {
        for a in &self.acc {
            k.clear(a);
        }
        k.fill(&self.row_max, Expr::neg_inf());
        k.clear(&self.row_sum);
    }

    /// Scales the queries in `q_s` by the scale in base 2, so scores come out of their product
    /// scaled (blocks that need no mask then take no pass over their scores before the max).
    pub fn scale_queries(&self, k: &Kernel) {
        k.parallel([self.rows, self.d], |k, [r, c]| {
            let x = self.q_s.at([&r, &c]).cast(DType::F32) * &self.scale2;
            k.store(&self.q_s, [&r, &c], x.cast(self.staged));
        });
    }

    /// One block of keys (in `k_s`, `v_s`); `visible(row, col)`, where some key of the block
    /// is hidden from some row, says whether query row `row` sees key `col` of the block.
    pub fn block(&self, k: &Kernel, visible: Option<impl Fn(&Expr, &Expr) -> Expr>) {
        let (rows, keys) = (self.rows, self.keys);
        let (scores, probs) = (&self.scores, &self.probs);
        k.clear(scores);
        k.gemm_t(&self.q_s, &self.k_s, scores, false, true);
        if let Some(visible) = visible {
            k.parallel([rows, keys], |k, [r, c]| {
                let x = select(visible(&r, &c), scores.at([&r, &c]), Expr::neg_inf());
                k.store(scores, [&r, &c], x);
            });
        }
        k.reduce_max(scores, &self.block_max, 1);
        k.parallel([rows], |k, [r]| {
            let old = self.row_max.at([&r]);
            let new = k.let_named("new_max", old.clone().max(self.block_max.at([&r])));
            // Nothing seen yet (both -inf): nothing to rescale.
            let alpha = select(new.clone().eq_(Expr::neg_inf()), 1.0f32, (old - &new).exp2());
            let alpha = k.let_named("alpha", alpha);
            k.store(&self.alpha, [&r], alpha.clone());
            k.store(&self.rescale, [&r], alpha);
            k.store(&self.row_max, [&r], new);
        });
        k.parallel([rows, keys], |k, [r, c]| {
            let m = self.row_max.at([&r]);
            let e =
                select(m.clone().eq_(Expr::neg_inf()), 0.0f32, (scores.at([&r, &c]) - m).exp2());
            let e = k.let_named("p", e);
            k.store(scores, [&r, &c], e.clone());
            k.store(probs, [&r, &c], e.cast(self.staged));
        });
        k.reduce_sum(scores, &self.block_sum, 1);
        k.parallel([rows], |k, [r]| {
            let l = self.row_sum.at([&r]) * self.alpha.at([&r]) + self.block_sum.at([&r]);
            k.store(&self.row_sum, [&r], l);
        });
        for (acc, v_s) in self.acc.iter().zip(&self.v_s) {
            k.parallel([rows, self.chunk], |k, [r, c]| {
                k.store(acc, [&r, &c], acc.at([&r, &c]) * self.rescale.at([&r]));
            });
            k.gemm(probs, v_s, acc);
        }
    }

    /// Divides the accumulator by the row sums (rows that saw no key stay zero).
    pub fn normalize(&self, k: &Kernel) {
        let sums = &self.rescale;
        k.copy(&self.row_sum, sums);
        for acc in &self.acc {
            k.parallel([self.rows, self.chunk], |k, [r, c]| {
                let l = sums.at([&r]);
                k.store(acc, [&r, &c], select(l.clone().gt(0.0f32), acc.at([&r, &c]) / l, 0.0f32));
            });
        }
    }

    /// The natural-log logsumexp of each row into a shared `[rows]` tile, `-inf` for rows that
    /// saw no key; returns that tile.
    pub fn logsumexp(&self, k: &Kernel) -> &TileRef {
        k.parallel([self.rows], |k, [r]| {
            let l = self.row_sum.at([&r]);
            let natural = (self.row_max.at([&r]) + l.clone().log2()) * std::f64::consts::LN_2;
            k.store(&self.out, [&r], select(l.gt(0.0f32), natural, Expr::neg_inf()));
        });
        &self.out
    }
}
