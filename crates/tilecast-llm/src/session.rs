//! Generation state for a batch of sequences: a paged KV cache per layer, the rotary tables,
//! the generated tokens, and the forward pass that writes them, as launches of library
//! kernels on one stream.
//!
//! A step never waits for the host: each token's id goes from `argmax` into the current tokens
//! and from there into the next step's `embedding` lookup (and a copy into the token history),
//! and each sequence's position and cache length are stream-ordered fills of small buffers the
//! kernels read. A step's launches are thus the same at every position: with graphs on, the
//! first decode step runs as launches and the second is captured once
//! ([`tilecast_runtime::Graph`]) and replayed from then on, costing the host a few commands a
//! step. The host reads the tokens (and, if asked, the logits) once generation ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tilecast_lang::DType::{self, F16, F32, U32};

use tilecast_runtime::{Buffer, Graph, Stream};

use crate::error::{Error, Result};
use crate::model::Model;
use crate::ops::Ops;
use crate::rope;

/// Tokens per page of the KV cache (vLLM's block size, the decode kernel's default).
pub const PAGE: usize = 16;

/// A batch's generation state on the device.
pub struct Session {
    model: Arc<Model>,
    ops: Ops,
    batch: usize,
    /// Pages per sequence.
    width: usize,
    /// Positions each sequence can hold.
    capacity: usize,
    caches: Vec<(Buffer, Buffer)>,
    table: Buffer,
    lens: Buffer,
    /// Each sequence's position of the pass's first token (`[batch]` u32).
    starts: Buffer,
    /// The tokens a pass picked, the next step's input (`[batch]` u32).
    cur: Buffer,
    cos: Buffer,
    sin: Buffer,
    /// Generated token ids, one row of `batch` per step (rows padded to the device's binding
    /// alignment).
    tokens: Buffer,
    token_row: usize,
    logits: Option<Buffer>,
    /// Prompt length, once prefilled.
    prompt: Option<usize>,
    /// Steps done (rows of `tokens` written).
    steps: usize,
    max_steps: usize,
    /// The last pass's logits `[batch, vocab]`, where [`keep_latest_logits`] asked for them.
    ///
    /// [`keep_latest_logits`]: Session::keep_latest_logits
    latest: Option<Buffer>,
    /// Whether decode steps replay a captured graph ([`set_graphs`](Session::set_graphs)).
    graphs: Graphs,
    /// Why a capture was refused, where [`Graphs::Auto`] fell back to launches.
    refused: Option<String>,
    /// The decode activations that ran a step as launches (a capture needs every range it
    /// binds used once), and the step captured over them.
    warm: Option<u64>,
    graph: Option<StepGraph>,
}

/// When decode steps replay a graph captured once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Graphs {
    /// Never: every step launches its kernels.
    #[default]
    Off,
    /// Where the step can be captured; where it cannot (a kernel without a direct twin, a
    /// device without native SPIR-V), steps launch their kernels and
    /// [`graph_refused`](Session::graph_refused) says why.
    Auto,
    /// Always: a step that cannot be captured is an error.
    On,
}

/// A decode step captured over one set of decode activations.
struct StepGraph {
    graph: Graph,
    acts: u64,
    /// Library launches it holds.
    launches: u64,
}

/// Activations of one pass over `t` token rows.
struct Acts {
    t: usize,
    h: [Buffer; 2],
    y: Buffer,
    q: Buffer,
    k: Buffer,
    v: Buffer,
    qr: Buffer,
    kr: Buffer,
    attn: Buffer,
    proj: Buffer,
    gate: Buffer,
    up: Buffer,
    act: Buffer,
    /// f32 results of `linear` (rows > 1) before their cast to f16.
    wide: Buffer,
    /// Zeros: the bias `linear` takes.
    bias: Buffer,
    /// Prefill: head-major Q, K, V and the attention output `[B, H, S, D]`.
    heads: Option<[Buffer; 4]>,
    /// The last position's normed rows `[batch, hidden]` (prefill), the logits `[batch, vocab]`
    /// in f16 (one row, from gemv) and f32.
    last: Buffer,
    logits16: Buffer,
    logits: Buffer,
    /// One-row passes, where the device binds each part: `q`, `k`, `v` as views of one
    /// output (a stacked Q/K/V product writes them in one launch) and `qr`, `kr` of another
    /// (one rope launch rotates both).
    qkv: Option<StackedQkv>,
    /// One-row passes: `gate` and `up` as views of this output, where the device binds both.
    gate_up: Option<Buffer>,
}

/// The whole outputs whose parts [`Acts`] views in a one-row pass: Q, K and V; Q and K
/// (what rope reads); Q and K rotated.
struct StackedQkv {
    qkv: Buffer,
    qk: Buffer,
    qk_rot: Buffer,
}

impl Session {
    /// State for `batch` sequences of up to `capacity` positions (prompt and generated tokens),
    /// generating at most `max_steps` tokens each; `keep_logits` keeps every step's logits
    /// for [`logits`](Self::logits).
    pub fn new(
        model: Arc<Model>,
        batch: usize,
        capacity: usize,
        max_steps: usize,
        keep_logits: bool,
    ) -> Result<Session> {
        let cfg = &model.config;
        if batch == 0 || capacity == 0 || max_steps == 0 {
            return Err(Error::Request(format!(
                "a session needs at least one sequence, position and step (batch {batch}, \
                 capacity {capacity}, steps {max_steps})"
            )));
        }
        let width = capacity.div_ceil(PAGE);
        let pages = batch * width;
        let alloc = |dtype: DType, shape: &[usize], what: &str| -> Result<Buffer> {
            model.pool().alloc(dtype, shape).map_err(|source| Error::Runtime {
                what: format!("allocating {what} {shape:?}"),
                source,
            })
        };
        let (kv, d) = (cfg.num_kv_heads, cfg.head_dim);
        let mut caches = Vec::with_capacity(cfg.num_layers);
        for l in 0..cfg.num_layers {
            let what = format!("layer {l}'s KV cache");
            caches.push((
                alloc(F16, &[pages, kv, PAGE, d], &what)?,
                alloc(F16, &[pages, kv, PAGE, d], &what)?,
            ));
        }
        // Sequence b's pages are b * width .. (b + 1) * width.
        let table = alloc(U32, &[batch, width], "block table")?;
        let ids: Vec<u32> = (0..pages as u32).collect();
        table.upload(&ids).map_err(|source| Error::Runtime {
            what: "uploading the block table".into(),
            source,
        })?;
        let lens = alloc(U32, &[batch], "cache lengths")?;
        let starts = alloc(U32, &[batch], "positions")?;
        let cur = alloc(U32, &[batch], "current tokens")?;
        let positions = width * PAGE;
        let (c, s) = rope::tables(cfg, positions);
        let cos = alloc(F32, &[positions, d / 2], "rope table")?;
        let sin = alloc(F32, &[positions, d / 2], "rope table")?;
        for (buf, v) in [(&cos, &c), (&sin, &s)] {
            buf.upload(v).map_err(|source| Error::Runtime {
                what: "uploading the rope tables".into(),
                source,
            })?;
        }
        let align = model.device().capabilities().limits.min_storage_offset_alignment as usize;
        let token_row = (batch * 4).next_multiple_of(align.max(4)) / 4;
        let tokens = alloc(U32, &[(max_steps + 1) * token_row], "token ids")?;
        let logits = if keep_logits {
            Some(alloc(F32, &[max_steps, batch, cfg.vocab_size], "logits history")?)
        } else {
            None
        };
        Ok(Session {
            ops: Ops::new(model.device()),
            model,
            latest: None,
            batch,
            width,
            capacity,
            caches,
            table,
            lens,
            starts,
            cur,
            cos,
            sin,
            tokens,
            token_row,
            logits,
            prompt: None,
            steps: 0,
            max_steps,
            graphs: Graphs::Off,
            refused: None,
            warm: None,
            graph: None,
        })
    }

    /// Runs the prompt `ids` (`batch` sequences of equal length, row after row) and picks
    /// each sequence's first new token. Encodes only: nothing waits.
    pub fn prefill(&mut self, stream: &mut Stream, ids: &[u32]) -> Result<()> {
        let b = self.batch;
        if self.prompt.is_some() {
            return Err(Error::Request("this session already ran its prompt".into()));
        }
        if ids.is_empty() || !ids.len().is_multiple_of(b) {
            return Err(Error::Request(format!(
                "{} prompt ids do not split into {b} sequences of equal length",
                ids.len()
            )));
        }
        let s = ids.len() / b;
        if s > self.capacity {
            return Err(Error::Request(format!(
                "a prompt of {s} tokens needs {s} positions; the session holds {}",
                self.capacity
            )));
        }
        self.check_ids(ids)?;
        let acts = self.acts(b * s, true)?;
        let input = self.upload_u32(ids, "prompt ids")?;
        let last: Vec<u32> = (0..b).map(|i| (i * s + s - 1) as u32).collect();
        let last = self.upload_u32(&last, "last positions")?;
        self.fill_positions(stream, 0, s)?;
        self.forward(stream, &acts, &input, Phase::Prefill)?;
        let model = self.model.clone();
        let (hid, v) = (model.config.hidden_size, model.config.vocab_size);
        // Each sequence's last row, gathered by the embedding lookup.
        self.ops.run(
            stream,
            "embedding",
            &format!("{b}x{}x{hid}", b * s),
            F16,
            &[&last, &acts.y, &acts.last],
            &[],
        )?;
        self.logits_and_pick(stream, &acts, &acts.last, hid, v)?;
        self.keep_pick(stream, &acts)?;
        self.prompt = Some(s);
        Ok(())
    }

    /// One decode step: each sequence's last token in, its next token picked. Encodes only.
    pub fn decode(&mut self, stream: &mut Stream, acts: &DecodeActs) -> Result<()> {
        self.decode_with(stream, acts, None)
    }

    /// [`decode`](Self::decode), the step's input tokens `ids` (one per sequence) where given
    /// (a caller sampling on its own) instead of the last step's greedy picks.
    pub fn decode_with(
        &mut self,
        stream: &mut Stream,
        acts: &DecodeActs,
        ids: Option<&[u32]>,
    ) -> Result<()> {
        let s = self.prompt.ok_or_else(|| Error::Request("decode before prefill".into()))?;
        if self.steps >= self.max_steps {
            return Err(Error::Request(format!(
                "the session was made for {} steps",
                self.max_steps
            )));
        }
        let pos = s + self.steps - 1;
        if pos >= self.capacity {
            return Err(Error::Request(format!(
                "position {pos} is past the cache: the session holds {} positions",
                self.capacity
            )));
        }
        if let Some(ids) = ids {
            self.check_ids(ids)?;
            if ids.len() != self.batch {
                return Err(Error::Request(format!(
                    "{} ids for a step of {} sequences",
                    ids.len(),
                    self.batch
                )));
            }
            // Stream-ordered after the last step's pick, which they replace as the input and
            // in the token history.
            let given = self.upload_u32(ids, "the step's ids")?;
            let last = self.token_view(self.steps - 1)?;
            let bytes = (ids.len() * 4) as u64;
            let copied = |source| Error::Runtime { what: "the step's ids".into(), source };
            stream.copy(&given, 0, &self.cur, 0, bytes).map_err(copied)?;
            stream.copy(&given, 0, &last, 0, bytes).map_err(copied)?;
        }
        self.fill_positions(stream, pos, 1)?;
        self.decode_launches(stream, acts)?;
        self.keep_pick(stream, &acts.acts)
    }

    /// The step's launches: replayed from its graph where graphs are on (captured at the
    /// second step over `acts`, the first having used every range), else launched.
    fn decode_launches(&mut self, stream: &mut Stream, acts: &DecodeActs) -> Result<()> {
        let replay = self.graphs != Graphs::Off && !self.ops.profiling();
        let captured = self.graph.as_ref().is_some_and(|g| g.acts == acts.id);
        if replay && !captured && self.warm == Some(acts.id) {
            let err = |source| Error::Runtime { what: "capturing a decode step".into(), source };
            let before = self.ops.launches();
            let graph = stream.begin_capture().map_err(err).and_then(|()| {
                let launched = self.step_launches(stream, &acts.acts);
                let graph = stream.end_capture().map_err(err);
                launched.and(graph)
            });
            match graph {
                Ok(graph) => {
                    let launches = self.ops.launches() - before;
                    self.graph = Some(StepGraph { graph, acts: acts.id, launches });
                    // Counted as the capture encoded them: the replay below runs them.
                    return self.replay(stream, false);
                }
                Err(e) if self.graphs == Graphs::Auto => {
                    self.refused = Some(e.to_string());
                    self.graphs = Graphs::Off;
                }
                Err(e) => return Err(e),
            }
        }
        if replay && captured {
            return self.replay(stream, true);
        }
        self.step_launches(stream, &acts.acts)?;
        self.warm = Some(acts.id);
        Ok(())
    }

    /// Replays the captured step, counting its launches where `count`.
    fn replay(&mut self, stream: &mut Stream, count: bool) -> Result<()> {
        let g = self.graph.as_ref().expect("captured");
        stream
            .replay(&g.graph)
            .map_err(|source| Error::Runtime { what: "replaying a decode step".into(), source })?;
        if count {
            self.ops.count_launches(g.launches);
        }
        Ok(())
    }

    /// A decode step's launches over `acts`: the layers and the pick into `cur`.
    fn step_launches(&mut self, stream: &mut Stream, acts: &Acts) -> Result<()> {
        let input = self.cur.clone();
        self.forward(stream, acts, &input, Phase::Decode)?;
        let (hid, v) = (self.model.config.hidden_size, self.model.config.vocab_size);
        self.logits_and_pick(stream, acts, &acts.y, hid, v)
    }

    /// When decode steps replay a graph captured once (at the second step over a set of
    /// activations) instead of launching their kernels; [`Graphs::Off`] by default. Graphs
    /// need Vulkan with native SPIR-V.
    pub fn set_graphs(&mut self, graphs: Graphs) {
        self.graphs = graphs;
    }

    /// Why [`Graphs::Auto`] launched steps rather than replaying one, if it did.
    pub fn graph_refused(&self) -> Option<&str> {
        self.refused.as_deref()
    }

    /// Whether a captured decode step is being replayed.
    pub fn replaying(&self) -> bool {
        self.graph.is_some()
    }

    /// Activations for decode steps, allocated once.
    pub fn decode_acts(&self) -> Result<DecodeActs> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        Ok(DecodeActs { acts: self.acts(self.batch, false)?, id })
    }

    /// Forgets the prompt and the generated tokens, keeping the loaded kernels and the
    /// allocations: the next [`prefill`](Self::prefill) starts over (its writes replace the
    /// cache's rows before any step reads them).
    pub fn reset(&mut self) {
        self.prompt = None;
        self.steps = 0;
    }

    /// Steps the session was made for.
    pub fn max_steps(&self) -> usize {
        self.max_steps
    }

    /// Steps done (tokens picked per sequence).
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The picked tokens, `[steps][batch]`. Waits for the stream's work.
    pub fn tokens(&self, stream: &mut Stream) -> Result<Vec<Vec<u32>>> {
        self.sync(stream)?;
        let all = self
            .tokens
            .download::<u32>()
            .map_err(|source| Error::Runtime { what: "reading the tokens".into(), source })?;
        Ok((0..self.steps).map(|i| all[i * self.token_row..][..self.batch].to_vec()).collect())
    }

    /// Every step's logits `[steps, batch, vocab]`, where the session keeps them. Waits.
    pub fn logits(&self, stream: &mut Stream) -> Result<Option<Vec<f32>>> {
        let Some(l) = &self.logits else { return Ok(None) };
        self.sync(stream)?;
        let all = l
            .download::<f32>()
            .map_err(|source| Error::Runtime { what: "reading the logits".into(), source })?;
        Ok(Some(all[..self.steps * self.batch * self.model.config.vocab_size].to_vec()))
    }

    /// Keeps each pass's logits `[batch, vocab]` (f32) for [`latest_logits`](Self::latest_logits):
    /// one copy a pass, which generation without a caller reading them skips.
    pub fn keep_latest_logits(&mut self) -> Result<()> {
        if self.latest.is_none() {
            let shape = [self.batch, self.model.config.vocab_size];
            let b = self.model.pool().alloc(F32, &shape).map_err(|source| Error::Runtime {
                what: "allocating the latest logits".into(),
                source,
            })?;
            self.latest = Some(b);
        }
        Ok(())
    }

    /// The last pass's logits, where kept; read them after the stream's work is done.
    pub fn latest_logits(&self) -> Option<&Buffer> {
        self.latest.as_ref()
    }

    /// The model the session runs.
    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    /// Sequences decoded together.
    pub fn batch(&self) -> usize {
        self.batch
    }

    fn check_ids(&self, ids: &[u32]) -> Result<()> {
        let vocab = self.model.config.vocab_size;
        match ids.iter().find(|&&i| i as usize >= vocab) {
            Some(bad) => {
                Err(Error::Request(format!("token id {bad} is past the vocabulary ({vocab} ids)")))
            }
            None => Ok(()),
        }
    }

    /// Records the problems launched from here on ([`Ops::start_profile`]).
    pub fn start_profile(&mut self) {
        self.ops.start_profile();
    }

    /// Times each problem launched since [`start_profile`](Self::start_profile) alone
    /// ([`Ops::finish_profile`]): its label, launches, and median seconds per launch. Their
    /// outputs are written again: start over with a new prompt after.
    pub fn finish_profile(&mut self, stream: &mut Stream) -> Result<Vec<(String, usize, f64)>> {
        self.ops.finish_profile(stream)
    }

    /// Kernel launches encoded so far.
    pub fn launches(&self) -> u64 {
        self.ops.launches()
    }

    fn sync(&self, stream: &mut Stream) -> Result<()> {
        stream
            .synchronize(tilecast_runtime::SyncType::CommitAndWait)
            .map_err(|source| Error::Runtime { what: "waiting for the GPU".into(), source })
    }

    fn upload_u32(&self, v: &[u32], what: &str) -> Result<Buffer> {
        let b = self.model.pool().alloc(U32, &[v.len()]).and_then(|b| b.upload(v).map(|_| b));
        b.map_err(|source| Error::Runtime { what: format!("uploading {what}"), source })
    }

    /// Every sequence's pass starts at position `start` and covers `tokens` positions: the
    /// kernels' starts and the cache lengths after it.
    fn fill_positions(&self, stream: &mut Stream, start: usize, tokens: usize) -> Result<()> {
        let err = |source| Error::Runtime { what: "setting the positions".into(), source };
        stream.fill(&self.starts, start as u32).map_err(err)?;
        stream.fill(&self.lens, (start + tokens) as u32).map_err(err)
    }

    /// Row `step` of the token buffer, `[batch]`.
    fn token_view(&self, step: usize) -> Result<Buffer> {
        self.tokens
            .slice_view((step * self.token_row * 4) as u64, self.batch)
            .map_err(|source| Error::Runtime { what: format!("token row {step}"), source })
    }
}

/// Activations of decode steps (one row per sequence), made by [`Session::decode_acts`]; a
/// captured step belongs to the activations it was captured over (`id`).
pub struct DecodeActs {
    acts: Acts,
    id: u64,
}

/// Which pass a forward is.
#[derive(Clone, Copy)]
enum Phase {
    /// The prompt, from position 0.
    Prefill,
    /// One token per sequence, at the positions `starts` holds.
    Decode,
}

mod forward;
