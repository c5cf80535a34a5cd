//! CPU references for the kernel library beyond gemm: plain loops in f64, written from the
//! operations' definitions, never from the tile kernels.

use crate::reference::erf;

fn rows(x: &[f32], c: usize) -> impl Iterator<Item = &[f32]> {
    x.chunks(c.max(1))
}

/// Softmax over the last axis of `x[_, c]`.
pub fn softmax(x: &[f32], c: usize) -> Vec<f32> {
    rows(x, c)
        .flat_map(|r| {
            let m = r.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
            let s: f64 = r.iter().map(|&v| (v as f64 - m).exp()).sum();
            r.iter().map(move |&v| ((v as f64 - m).exp() / s) as f32).collect::<Vec<_>>()
        })
        .collect()
}

/// log_softmax over the last axis.
pub fn log_softmax(x: &[f32], c: usize) -> Vec<f32> {
    rows(x, c)
        .flat_map(|r| {
            let m = r.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
            let ls = r.iter().map(|&v| (v as f64 - m).exp()).sum::<f64>().ln();
            r.iter().map(move |&v| (v as f64 - m - ls) as f32).collect::<Vec<_>>()
        })
        .collect()
}

/// `x / sqrt(mean(x^2) + eps) * w` per row.
pub fn rms_norm(x: &[f32], w: &[f32], eps: f64) -> Vec<f32> {
    let c = w.len();
    rows(x, c)
        .flat_map(|r| {
            let ms = r.iter().map(|&v| v as f64 * v as f64).sum::<f64>() / c as f64;
            let inv = 1.0 / (ms + eps).sqrt();
            r.iter()
                .zip(w)
                .map(move |(&v, &g)| (v as f64 * inv * g as f64) as f32)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `(x - mean) / sqrt(var + eps) * w + b` per row (biased variance, as PyTorch).
pub fn layer_norm(x: &[f32], w: &[f32], b: Option<&[f32]>, eps: f64) -> Vec<f32> {
    let c = w.len();
    rows(x, c)
        .flat_map(|r| {
            let mean = r.iter().map(|&v| v as f64).sum::<f64>() / c as f64;
            let var = r.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / c as f64;
            let inv = 1.0 / (var + eps).sqrt();
            (0..c)
                .map(|j| {
                    let bias = b.map_or(0.0, |b| b[j] as f64);
                    ((r[j] as f64 - mean) * inv * w[j] as f64 + bias) as f32
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Rotary embedding of `x[B, S, H, D]` with tables `cos`, `sin` of `[P, D/2]`; token `s` at
/// position `offset + s`. `half_split`: pairs `(i, i + D/2)`, else `(2i, 2i + 1)`.
pub fn rope(
    x: &[f32],
    [b, s, h, d]: [usize; 4],
    cos: &[f32],
    sin: &[f32],
    starts: &[usize],
    half_split: bool,
) -> Vec<f32> {
    let half = d / 2;
    let mut y = x.to_vec();
    for (bi, &start) in starts.iter().enumerate().take(b) {
        for si in 0..s {
            let p = start + si;
            for hi in 0..h {
                let base = ((bi * s + si) * h + hi) * d;
                for i in 0..half {
                    let (i0, i1) = if half_split { (i, i + half) } else { (2 * i, 2 * i + 1) };
                    let (c, sn) = (cos[p * half + i] as f64, sin[p * half + i] as f64);
                    let (x0, x1) = (x[base + i0] as f64, x[base + i1] as f64);
                    y[base + i0] = (x0 * c - x1 * sn) as f32;
                    y[base + i1] = (x1 * c + x0 * sn) as f32;
                }
            }
        }
    }
    y
}

/// `x * sigmoid(x)`.
pub fn silu(v: f64) -> f64 {
    v / (1.0 + (-v).exp())
}

/// The tanh form of gelu.
pub fn gelu_tanh(v: f64) -> f64 {
    let k = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * v * (1.0 + (k * (v + 0.044715 * v * v * v)).tanh())
}

/// The erf form of gelu.
pub fn gelu_erf(v: f64) -> f64 {
    0.5 * v * (1.0 + erf(v / std::f64::consts::SQRT_2))
}

/// Row sums.
pub fn sum_rows(x: &[f32], c: usize) -> Vec<f32> {
    rows(x, c).map(|r| r.iter().map(|&v| v as f64).sum::<f64>() as f32).collect()
}

/// Row maxima; a row holding a NaN has max NaN (as numpy and torch).
pub fn max_rows(x: &[f32], c: usize) -> Vec<f32> {
    argmax_rows(x, c).iter().zip(rows(x, c)).map(|(&j, r)| r[j as usize]).collect()
}

/// Index of the first maximum of each row, or of its first NaN (as numpy and torch).
pub fn argmax_rows(x: &[f32], c: usize) -> Vec<f32> {
    rows(x, c)
        .map(|r| {
            let mut best = 0;
            for (j, &v) in r.iter().enumerate() {
                if v.is_nan() {
                    return j as f32;
                }
                if v > r[best] {
                    best = j;
                }
            }
            best as f32
        })
        .collect()
}

/// `y[b, j, i] = x[b, i, j]` for `x[B, R, C]`.
pub fn transpose(x: &[f32], [b, r, c]: [usize; 3]) -> Vec<f32> {
    let mut y = vec![0f32; x.len()];
    for bi in 0..b {
        for i in 0..r {
            for j in 0..c {
                y[(bi * c + j) * r + i] = x[(bi * r + i) * c + j];
            }
        }
    }
    y
}

/// `y = W x` for `W[N, K]`.
pub fn gemv(w: &[f32], x: &[f32], n: usize, k: usize) -> Vec<f32> {
    (0..n).map(|i| (0..k).map(|q| w[i * k + q] as f64 * x[q] as f64).sum::<f64>() as f32).collect()
}

/// `Y = X W^T + bias` for `X[M, K]`, `W[N, K]`, then `act` per element.
pub fn linear(
    x: &[f32],
    w: &[f32],
    bias: &[f32],
    [m, n, k]: [usize; 3],
    act: impl Fn(f64) -> f64,
) -> Vec<f32> {
    let mut y = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let s: f64 = (0..k).map(|q| x[i * k + q] as f64 * w[j * k + q] as f64).sum();
            y[i * n + j] = act(s + bias[j] as f64) as f32;
        }
    }
    y
}

/// The sizes of an attention reference: `Q[B, H, S, D]` against keys and values of `KV`
/// heads; query `i` of `S` sees key `j` of a sequence of `t` keys when not `causal` or when
/// `j + S <= i + t` (the causal mask aligned to the end).
#[derive(Clone, Copy, Debug)]
pub struct AttentionSizes {
    /// Sequences.
    pub b: usize,
    /// Query heads.
    pub h: usize,
    /// Key/value heads (dividing `h`).
    pub kv: usize,
    /// Queries per head.
    pub s: usize,
    /// Head size.
    pub d: usize,
    /// Causal mask.
    pub causal: bool,
    /// Score scale.
    pub scale: f64,
}

/// `O = softmax(Q K^T * scale + mask) V` and each row's natural logsumexp, for the query rows
/// `rows` (flat indices into `[B, H, S]`) of `Q[B, H, S, D]` (flat), against a cache read
/// through `len(b)` (keys of sequence `b`) and `key(b, kv_head, j)`, `value(b, kv_head, j)`
/// (rows of `D`). Returns `D` outputs per listed row, then one LSE per listed row. Rows that see
/// no key are zero, their LSE `-inf`.
pub fn attention<'a>(
    q: &[f32],
    n: AttentionSizes,
    rows: &[usize],
    len: impl Fn(usize) -> usize,
    key: impl Fn(usize, usize, usize) -> &'a [f32],
    value: impl Fn(usize, usize, usize) -> &'a [f32],
) -> (Vec<f32>, Vec<f32>) {
    let AttentionSizes { h, kv, s, d, causal, scale, .. } = n;
    let (mut out, mut lse) = (vec![0.0f32; rows.len() * d], vec![f32::NEG_INFINITY; rows.len()]);
    for (o, &row) in rows.iter().enumerate() {
        let (bi, hi, i) = (row / (h * s), row / s % h, row % s);
        let (t, kvh) = (len(bi), hi / (h / kv));
        let qr = &q[row * d..(row + 1) * d];
        let seen: Vec<usize> = (0..t).filter(|&j| !causal || j + s <= i + t).collect();
        if seen.is_empty() {
            continue;
        }
        let scores: Vec<f64> = seen
            .iter()
            .map(|&j| {
                let kr = key(bi, kvh, j);
                scale * (0..d).map(|c| qr[c] as f64 * kr[c] as f64).sum::<f64>()
            })
            .collect();
        let m = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let w: Vec<f64> = scores.iter().map(|x| (x - m).exp()).collect();
        let total: f64 = w.iter().sum();
        for c in 0..d {
            let acc: f64 =
                seen.iter().zip(&w).map(|(&j, wj)| wj * value(bi, kvh, j)[c] as f64).sum();
            out[o * d + c] = (acc / total) as f32;
        }
        lse[o] = (m + total.ln()) as f32;
    }
    (out, lse)
}

/// `y[s, :] = table[ids[s], :]` for `table[V, C]`; ids past the table give zeros.
pub fn embedding(ids: &[f32], table: &[f32], c: usize) -> Vec<f32> {
    let rows = table.len() / c.max(1);
    ids.iter()
        .flat_map(|&id| {
            let id = id as usize;
            (0..c).map(move |j| if id < rows { table[id * c + j] } else { 0.0 })
        })
        .collect()
}

/// `y[b, c, r, :] = x[b, r, c, :]` for `x[B, R, C, E]`.
pub fn swap_axes(x: &[f32], [b, r, c, e]: [usize; 4]) -> Vec<f32> {
    let mut y = vec![0f32; x.len()];
    for bi in 0..b {
        for i in 0..r {
            for j in 0..c {
                let from = ((bi * r + i) * c + j) * e;
                let to = ((bi * c + j) * r + i) * e;
                y[to..to + e].copy_from_slice(&x[from..from + e]);
            }
        }
    }
    y
}

/// The sizes of a paged cache write: `new[B, S, KV, D]` at positions `start..start + S` of
/// each sequence (its own start, or `offset` for all), through `table[B, width]`, into a
/// cache of `pool` pages `[KV, page, D]`.
#[derive(Clone, Copy, Debug)]
pub struct PagedWrite {
    /// Sequences.
    pub b: usize,
    /// New tokens per sequence.
    pub s: usize,
    /// Key/value heads.
    pub kv: usize,
    /// Head size.
    pub d: usize,
    /// Tokens per page.
    pub page: usize,
    /// Block table entries per sequence.
    pub width: usize,
    /// Pages in the cache.
    pub pool: usize,
    /// Position of the first new token, where `starts` does not give each sequence's.
    pub offset: usize,
}

/// A zeroed cache `[pool, KV, page, D]` with `new`'s rows written where the block table puts
/// them.
pub fn paged_kv_write(
    new: &[f32],
    table: &[f32],
    n: PagedWrite,
    starts: Option<&[f32]>,
) -> Vec<f32> {
    let PagedWrite { b, s, kv, d, page, width, pool, offset } = n;
    let mut cache = vec![0f32; pool * kv * page * d];
    for bi in 0..b {
        for si in 0..s {
            let pos = starts.map_or(offset, |st| st[bi] as usize) + si;
            let pg = table[bi * width + pos / page] as usize;
            for h in 0..kv {
                let to = ((pg * kv + h) * page + pos % page) * d;
                let from = ((bi * s + si) * kv + h) * d;
                cache[to..to + d].copy_from_slice(&new[from..from + d]);
            }
        }
    }
    cache
}
