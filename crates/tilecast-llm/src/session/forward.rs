//! The forward pass: per layer RMSNorm, the Q/K/V projections, RoPE (NeoX pairs, as Hugging
//! Face's Llama rotates), the cache write, attention (prefill: `attention` over head-major
//! copies of this pass's keys; decode: `paged_decode_attention` over the cache), the output
//! projection, the residual add fused into the next RMSNorm, and the SwiGLU MLP. Values are
//! stored as f16 between kernels; each kernel computes in f32.

use tilecast_kernels::gemv;
use tilecast_lang::DType::{F16, F32};
use tilecast_runtime::{Buffer, Stream};

use super::{Acts, PAGE, Phase, Session, StackedQkv};
use crate::error::{Error, Result};
use crate::model::Matrix;

/// `b` under another shape of the same elements.
fn shaped(b: &Buffer, shape: &[usize]) -> Result<Buffer> {
    b.reshape(shape)
        .map_err(|source| Error::Runtime { what: "a view of an activation".into(), source })
}

/// The first `len` elements of `b`, as `shape`.
fn head(b: &Buffer, len: usize, shape: &[usize]) -> Result<Buffer> {
    head_at(b, 0, len, shape)
}

/// Elements `start .. start + len` of `b`, as `shape`.
fn head_at(b: &Buffer, start: usize, len: usize, shape: &[usize]) -> Result<Buffer> {
    let at = (start * b.dtype().size()) as u64;
    let v = b
        .slice_view(at, len)
        .map_err(|source| Error::Runtime { what: "a view of a scratch buffer".into(), source })?;
    shaped(&v, shape)
}

impl Session {
    /// Activations for passes over `t` rows (`prefill`: with the head-major copies).
    pub(super) fn acts(&self, t: usize, prefill: bool) -> Result<Acts> {
        let c = &self.model.config;
        let (hid, qd, kvd, inner, v) = (
            c.hidden_size,
            c.num_heads * c.head_dim,
            c.num_kv_heads * c.head_dim,
            c.intermediate_size,
            c.vocab_size,
        );
        let pool = self.model.pool();
        let alloc = |dtype, shape: &[usize]| {
            pool.alloc(dtype, shape).map_err(|source| Error::Runtime {
                what: format!("allocating activations {shape:?} for {t} rows"),
                source,
            })
        };
        let widest = [qd, kvd, hid, inner].into_iter().max().unwrap_or(hid);
        let bias = alloc(F32, &[widest.max(v)])?;
        bias.upload(&vec![0f32; widest.max(v)])
            .map_err(|source| Error::Runtime { what: "zeroing the bias".into(), source })?;
        let heads = if prefill {
            Some([
                alloc(F16, &[t * qd])?,
                alloc(F16, &[t * kvd])?,
                alloc(F16, &[t * kvd])?,
                alloc(F16, &[t * qd])?,
            ])
        } else {
            None
        };
        let b = self.batch;
        let align = self.model.device().capabilities().limits.min_storage_offset_alignment as u64;
        let binds = |elements: usize| t == 1 && (elements as u64 * 2).is_multiple_of(align);
        // Views of `whole` at element offsets `at`, each `len` long, as `[1, len]`.
        let parts = |whole: &Buffer, at: &[(usize, usize)]| -> Result<Vec<Buffer>> {
            at.iter().map(|&(start, len)| head_at(whole, start, len, &[1, len])).collect()
        };
        let (q, k, val, qr, kr, qkv) = if binds(qd) && binds(qd + kvd) {
            let qkv = alloc(F16, &[qd + 2 * kvd])?;
            let qk_rot = alloc(F16, &[qd + kvd])?;
            let mut p = parts(&qkv, &[(0, qd), (qd, kvd), (qd + kvd, kvd)])?.into_iter();
            let mut r = parts(&qk_rot, &[(0, qd), (qd, kvd)])?.into_iter();
            let qk = head_at(&qkv, 0, qd + kvd, &[qd + kvd])?;
            let next = |it: &mut std::vec::IntoIter<Buffer>| {
                it.next().ok_or_else(|| Error::Request("a stacked output lost a view".into()))
            };
            let (q, k, v) = (next(&mut p)?, next(&mut p)?, next(&mut p)?);
            let (qr, kr) = (next(&mut r)?, next(&mut r)?);
            (q, k, v, qr, kr, Some(StackedQkv { qkv, qk, qk_rot }))
        } else {
            let (q, k, v) = (alloc(F16, &[t, qd])?, alloc(F16, &[t, kvd])?, alloc(F16, &[t, kvd])?);
            (q, k, v, alloc(F16, &[t, qd])?, alloc(F16, &[t, kvd])?, None)
        };
        let (gate, up, gate_up) = if binds(inner) {
            let whole = alloc(F16, &[2 * inner])?;
            let mut p = parts(&whole, &[(0, inner), (inner, inner)])?.into_iter();
            let lost = || Error::Request("a stacked output lost a view".into());
            (p.next().ok_or_else(lost)?, p.next().ok_or_else(lost)?, Some(whole))
        } else {
            (alloc(F16, &[t, inner])?, alloc(F16, &[t, inner])?, None)
        };
        Ok(Acts {
            t,
            h: [alloc(F16, &[t, hid])?, alloc(F16, &[t, hid])?],
            y: alloc(F16, &[t, hid])?,
            q,
            k,
            v: val,
            qr,
            kr,
            attn: alloc(F16, &[t, qd])?,
            proj: alloc(F16, &[t, hid])?,
            gate,
            up,
            act: alloc(F16, &[t, inner])?,
            wide: alloc(F32, &[t * widest])?,
            bias,
            heads,
            last: alloc(F16, &[b, hid])?,
            logits16: alloc(F16, &[b, v])?,
            logits: alloc(F32, &[b, v])?,
            qkv,
            gate_up,
        })
    }

    /// Every layer over the tokens `input` (`[t]` ids), leaving the final RMSNorm's output in
    /// `a.y`.
    pub(super) fn forward(
        &mut self,
        stream: &mut Stream,
        a: &Acts,
        input: &Buffer,
        phase: Phase,
    ) -> Result<()> {
        let m = self.model.clone();
        let c = &m.config;
        let (b, t) = (self.batch, a.t);
        let s = t / b;
        let (hid, nh, kv, d, inner, v) = (
            c.hidden_size,
            c.num_heads,
            c.num_kv_heads,
            c.head_dim,
            c.intermediate_size,
            c.vocab_size,
        );
        let (qd, kvd) = (nh * d, kv * d);
        let eps = [("eps", c.rms_norm_eps)];
        let (positions, pages) = (self.width * PAGE, b * self.width);
        let starts = self.starts.clone();
        self.ops.run(
            stream,
            "embedding",
            &format!("{t}x{v}x{hid}"),
            F16,
            &[input, &m.embed, &a.h[0]],
            &[],
        )?;
        let first_norm = &m
            .layers
            .first()
            .ok_or_else(|| Error::Request("the model has no layers".into()))?
            .attn_norm;
        self.ops.run(
            stream,
            "rms_norm",
            &format!("{t}x{hid}"),
            F16,
            &[&a.h[0], first_norm, &a.y],
            &eps,
        )?;
        let mut cur = 0;
        let q4 = shaped(&a.q, &[b, s, nh, d])?;
        let k4 = shaped(&a.k, &[b, s, kv, d])?;
        let v4 = shaped(&a.v, &[b, s, kv, d])?;
        let qr4 = shaped(&a.qr, &[b, s, nh, d])?;
        let kr4 = shaped(&a.kr, &[b, s, kv, d])?;
        for (l, w) in m.layers.iter().enumerate() {
            // Positions come from `starts` (each sequence's first), filled before the pass: a
            // step's launches are the same at every position, so a captured step replays.
            let rope = |heads| format!("{b}x{s}x{heads}x{d},positions={positions},starts");
            let starts = &starts;
            let rope_kernel = m.rope.name();
            match (&a.qkv, &w.qkv) {
                // One row: Q, K and V in one product; Q and K rotated in one launch.
                (Some(st), Some(qkv)) => {
                    self.project(stream, a, &a.y, qkv, &st.qkv, [qd + 2 * kvd, hid])?;
                    let x = shaped(&st.qk, &[1, 1, nh + kv, d])?;
                    let y = shaped(&st.qk_rot, &[1, 1, nh + kv, d])?;
                    let args = [&x, &self.cos, &self.sin, starts, &y];
                    self.ops.run(stream, rope_kernel, &rope(nh + kv), F16, &args, &[])?;
                }
                _ => {
                    self.project(stream, a, &a.y, &w.q, &a.q, [qd, hid])?;
                    self.project(stream, a, &a.y, &w.k, &a.k, [kvd, hid])?;
                    self.project(stream, a, &a.y, &w.v, &a.v, [kvd, hid])?;
                    let args = [&q4, &self.cos, &self.sin, starts, &qr4];
                    self.ops.run(stream, rope_kernel, &rope(nh), F16, &args, &[])?;
                    let args = [&k4, &self.cos, &self.sin, starts, &kr4];
                    self.ops.run(stream, rope_kernel, &rope(kv), F16, &args, &[])?;
                }
            }
            let (kc, vc) = (&self.caches[l].0, &self.caches[l].1);
            let write = format!("{b}x{s}x{kv}x{d}x{positions},pages={pages},starts");
            self.ops.run(
                stream,
                "paged_kv_write",
                &write,
                F16,
                &[&kr4, &v4, &self.table, starts, kc, vc],
                &[],
            )?;
            match phase {
                Phase::Prefill => {
                    let [qh, kh, vh, oh] = a
                        .heads
                        .as_ref()
                        .ok_or_else(|| Error::Request("prefill without head buffers".into()))?;
                    let qh = shaped(qh, &[b, nh, s, d])?;
                    let (kh, vh) = (shaped(kh, &[b, kv, s, d])?, shaped(vh, &[b, kv, s, d])?);
                    let oh = shaped(oh, &[b, nh, s, d])?;
                    let swap = |r: usize, c: usize| format!("{b}x{r}x{c}x{d}");
                    self.ops.run(stream, "swap_axes", &swap(s, nh), F16, &[&qr4, &qh], &[])?;
                    self.ops.run(stream, "swap_axes", &swap(s, kv), F16, &[&kr4, &kh], &[])?;
                    self.ops.run(stream, "swap_axes", &swap(s, kv), F16, &[&v4, &vh], &[])?;
                    let shape = format!("{b}x{nh}x{s}x{s}x{d},kv={kv},causal");
                    self.ops.run(stream, "attention", &shape, F16, &[&qh, &kh, &vh, &oh], &[])?;
                    let out = shaped(&a.attn, &[b, s, nh, d])?;
                    self.ops.run(stream, "swap_axes", &swap(nh, s), F16, &[&oh, &out], &[])?;
                }
                Phase::Decode => {
                    let q = shaped(&a.qr, &[b, nh, 1, d])?;
                    let o = shaped(&a.attn, &[b, nh, 1, d])?;
                    let shape =
                        format!("{b}x{nh}x{positions}x{d},kv={kv},page={PAGE},pages={pages}");
                    let args = [&q, kc, vc, &self.table, &self.lens, &o];
                    self.ops.run(stream, "paged_decode_attention", &shape, F16, &args, &[])?;
                }
            }
            self.project(stream, a, &a.attn, &w.o, &a.proj, [hid, qd])?;
            let norm = format!("{t}x{hid}");
            let (res, next) = (&a.h[cur], &a.h[1 - cur]);
            self.ops.run(
                stream,
                "add_rms_norm",
                &norm,
                F16,
                &[&a.proj, res, &w.mlp_norm, next, &a.y],
                &eps,
            )?;
            cur = 1 - cur;
            match (&a.gate_up, &w.gate_up) {
                (Some(out), Some(gu)) => {
                    self.project(stream, a, &a.y, gu, out, [2 * inner, hid])?
                }
                _ => {
                    self.project(stream, a, &a.y, &w.gate, &a.gate, [inner, hid])?;
                    self.project(stream, a, &a.y, &w.up, &a.up, [inner, hid])?;
                }
            }
            let flat = |x: &Buffer| shaped(x, &[t * inner]);
            let args = [&flat(&a.gate)?, &flat(&a.up)?, &flat(&a.act)?];
            self.ops.run(stream, "swiglu", &(t * inner).to_string(), F16, &args, &[])?;
            self.project(stream, a, &a.act, &w.down, &a.proj, [hid, inner])?;
            let next_norm = m.layers.get(l + 1).map_or(&m.norm, |n| &n.attn_norm);
            let (res, next) = (&a.h[cur], &a.h[1 - cur]);
            self.ops.run(
                stream,
                "add_rms_norm",
                &norm,
                F16,
                &[&a.proj, res, next_norm, next, &a.y],
                &eps,
            )?;
            cur = 1 - cur;
        }
        Ok(())
    }

    /// `out[t, n] = x[t, k] W^T` as f16, `t` being `x`'s rows. f16 weights: `gemv` for one
    /// row and for the batches its multi-row frame takes (`gemv::takes_batch`), else `linear`
    /// (f32, through `a.wide`) and a cast. Quantized weights (GGUF blocks or
    /// MLX's levels, scales and biases): `qgemv` for up to 8 rows, else `qgemm`.
    fn project(
        &mut self,
        stream: &mut Stream,
        a: &Acts,
        x: &Buffer,
        w: &Matrix,
        out: &Buffer,
        [n, k]: [usize; 2],
    ) -> Result<()> {
        let t = x.shape().iter().product::<usize>() / k;
        let (x, y) = (shaped(x, &[t, k])?, shaped(out, &[t, n])?);
        // An MLX matrix's scales and biases follow its levels; its group is in the shape.
        let (group, mut args) = match &w.affine {
            Some(m) => (format!(",group={}", m.group), vec![&x, &w.buffer, &m.scales, &m.biases]),
            None => (String::new(), vec![&x, &w.buffer]),
        };
        args.push(&y);
        match w.format {
            Some(format) if t <= 8 => {
                let shape = format!("{n}x{k},{format}{group},rows={t}");
                self.ops.run(stream, "qgemv", &shape, F16, &args, &[])
            }
            Some(format) => {
                let shape = format!("{t}x{n}x{k},{format}{group}");
                self.ops.run(stream, "qgemm", &shape, F16, &args, &[])
            }
            None if t == 1 => {
                let args = [&w.buffer, &shaped(&x, &[k])?, &shaped(&y, &[n])?];
                self.ops.run(stream, "gemv", &format!("{n}x{k}"), F16, &args, &[])
            }
            None if gemv::takes_batch(t, k) => {
                let args = [&w.buffer, &x, &y];
                self.ops.run(stream, "gemv", &format!("{n}x{k},rows={t}"), F16, &args, &[])
            }
            None => {
                let wide = head(&a.wide, t * n, &[t, n])?;
                let bias = head(&a.bias, n, &[n])?;
                let args = [&x, &w.buffer, &bias, &wide];
                self.ops.run(stream, "linear", &format!("{t}x{n}x{k}"), F16, &args, &[])?;
                let args = [&shaped(&wide, &[t * n])?, &shaped(out, &[t * n])?];
                self.ops.run(stream, "cast_f16", &(t * n).to_string(), F32, &args, &[])
            }
        }
    }

    /// The logits of `rows` (`[batch, hidden]`, normed) into `a.logits` (f32) and their argmax
    /// into the current tokens (`cur`). Launches only: [`keep_pick`](Self::keep_pick) records
    /// the pick.
    pub(super) fn logits_and_pick(
        &mut self,
        stream: &mut Stream,
        a: &Acts,
        rows: &Buffer,
        hid: usize,
        v: usize,
    ) -> Result<()> {
        let b = self.batch;
        let head_w = self.model.lm_head.clone();
        let (x, y16) = (shaped(rows, &[b, hid])?, shaped(&a.logits16, &[b, v])?);
        match head_w.format {
            None if b > 1 => {
                let bias = head(&a.bias, v, &[v])?;
                let args = [&x, &head_w.buffer, &bias, &a.logits];
                self.ops.run(stream, "linear", &format!("{b}x{v}x{hid}"), F16, &args, &[])?;
            }
            _ => {
                // f16 logits from gemv, qgemv or qgemm, widened for argmax and the history.
                self.project(stream, a, &x, &head_w, &y16, [v, hid])?;
                let args = [&shaped(&a.logits16, &[b * v])?, &shaped(&a.logits, &[b * v])?];
                self.ops.run(stream, "cast_f32", &(b * v).to_string(), F16, &args, &[])?;
            }
        }
        let cur = self.cur.clone();
        self.ops.run(stream, "argmax", &format!("{b}x{v}"), F32, &[&a.logits, &cur], &[])
    }

    /// Records the pass's pick: the current tokens into the next row of tokens and (where kept)
    /// the logits into the latest and the history.
    pub(super) fn keep_pick(&mut self, stream: &mut Stream, a: &Acts) -> Result<()> {
        let (b, v) = (self.batch, self.model.config.vocab_size);
        let picked = self.token_view(self.steps)?;
        let kept = |source| Error::Runtime { what: "keeping the pick".into(), source };
        stream.copy(&self.cur, 0, &picked, 0, (b * 4) as u64).map_err(kept)?;
        let bytes = (b * v * 4) as u64;
        if let Some(latest) = &self.latest {
            stream.copy(&a.logits, 0, latest, 0, bytes).map_err(kept)?;
        }
        if let Some(history) = &self.logits {
            stream.copy(&a.logits, 0, history, self.steps as u64 * bytes, bytes).map_err(kept)?;
        }
        self.steps += 1;
        Ok(())
    }
}
