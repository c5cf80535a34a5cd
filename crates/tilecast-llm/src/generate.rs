//! Greedy generation as `tilecast generate` runs it: a warm-up pass (which compiles every
//! kernel the shapes need), then the prompt and the new tokens timed, with the host's share of
//! each decode step measured apart.

use std::sync::Arc;
use std::time::Instant;

use tilecast_runtime::{Recording, Stream, SyncType};

use crate::error::{Error, Result};
use crate::model::Model;
use crate::session::{Graphs, Session};

/// What to generate.
#[derive(Clone, Debug)]
pub struct Request {
    /// Sequences decoded together.
    pub batch: usize,
    /// The prompt: `batch` rows of equal length, row after row.
    pub prompt: Vec<u32>,
    /// Tokens to generate per sequence (the first comes from the prompt's pass).
    pub new_tokens: usize,
    /// Keep every step's logits.
    pub keep_logits: bool,
    /// Time each launch of one decode step on the GPU ([`Report::profile`]).
    pub profile: bool,
    /// How launches are recorded; `None`: directly where the device allows it (a GPU on Vulkan
    /// with native SPIR-V), which costs the host a fraction of wgpu's recording.
    pub recording: Option<Recording>,
    /// When decode steps replay a graph captured once ([`Session::set_graphs`]); `None`:
    /// [`Graphs::Auto`] where launches are recorded directly, else off.
    pub graphs: Option<Graphs>,
}

impl Request {
    /// `batch` prompts of `len` ids drawn from the vocabulary by a fixed generator (`seed`).
    pub fn random_prompt(batch: usize, len: usize, vocab: usize, seed: u64) -> Vec<u32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..batch * len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % vocab.max(1) as u64) as u32
            })
            .collect()
    }
}

/// What a generation did and how long it took.
#[derive(Clone, Debug)]
pub struct Report {
    /// Sequences.
    pub batch: usize,
    /// Prompt tokens per sequence.
    pub prompt_len: usize,
    /// Generated ids, `[batch][new_tokens]`.
    pub ids: Vec<Vec<u32>>,
    /// The prompt's pass, encode to finish, milliseconds (the median of five runs).
    pub prefill_ms: f64,
    /// Each timed run of the prompt's pass: (host time encoding it, encode to finish),
    /// milliseconds, and the buffers it allocated anew (pool misses).
    pub prefill_runs: Vec<(f64, f64, u64)>,
    /// Mean wall time per decode step (all sequences), milliseconds.
    pub decode_ms_per_step: f64,
    /// Mean host time encoding and submitting one decode step, milliseconds.
    pub host_ms_per_step: f64,
    /// Of which recording the step's launches (tilecast's checks and binding, wgpu's pass
    /// recording), milliseconds.
    pub encode_ms_per_step: f64,
    /// Of which finishing and submitting command buffers (wgpu's tracking and the driver's
    /// recording of the passes, the queue submit), milliseconds.
    pub submit_ms_per_step: f64,
    /// Kernel launches per decode step.
    pub launches_per_step: f64,
    /// How the launches were recorded.
    pub recording: Recording,
    /// Whether the timed steps replayed a captured graph.
    pub graphs: bool,
    /// Why they did not, where graphs were on where possible and the capture was refused.
    pub graph_refused: Option<String>,
    /// Dispatches per decode step (a launch may take more than one).
    pub dispatches_per_step: f64,
    /// Of which recorded directly ([`Recording::Direct`]).
    pub direct_dispatches_per_step: f64,
    /// Most device memory the model's pool held: weights, cache, activations.
    pub peak_gpu_bytes: u64,
    /// Every step's logits `[steps, batch, vocab]`, where asked for.
    pub logits: Option<Vec<f32>>,
    /// Where asked for: each problem a decode step launches, timed alone over the step's own
    /// arguments, longest share first.
    pub profile: Option<Vec<ProfileRow>>,
}

/// One kernel and problem's share of a profiled decode step.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileRow {
    /// `"{kernel} {problem}"`, as `tilecast bench` names them.
    pub launch: String,
    /// Launches of it in a step.
    pub count: usize,
    /// One launch timed alone (the median of batches of launches over the step's arguments, on
    /// the GPU's clock where it has one), microseconds.
    pub us: f64,
    /// `count` launches, milliseconds.
    pub ms: f64,
}

impl Report {
    /// Prompt tokens per second (all sequences).
    pub fn prefill_tokens_per_s(&self) -> f64 {
        (self.batch * self.prompt_len) as f64 / (self.prefill_ms / 1e3)
    }

    /// Generated tokens per second (all sequences), decode steps only.
    pub fn decode_tokens_per_s(&self) -> f64 {
        self.batch as f64 / (self.decode_ms_per_step / 1e3)
    }
}

/// Timed runs of the prompt's pass, after `PREFILL_WARMUPS` untimed ones. On an H200, with one
/// warm-up pass, the first timed pass sometimes ran every kernel 2-4x slower than the next (GPU
/// timestamps: 197-231 ms against 62, the same code and buffers); with two more, 15 passes in
/// three processes took 52.2-53.4 ms.
const PREFILL_RUNS: usize = 5;
/// Untimed passes of the prompt before the timed ones, as the peer warms up twice.
const PREFILL_WARMUPS: usize = 2;

fn sync(stream: &mut Stream, how: SyncType) -> Result<()> {
    stream
        .synchronize(how)
        .map_err(|source| Error::Runtime { what: "running the step".into(), source })
}

/// Runs `request` on `model`: a warm-up of the prompt and two steps (with graphs on, the second
/// is captured), then the prompt's pass twice untimed and five times timed, then the decode
/// steps.
pub fn generate(model: &Arc<Model>, request: &Request) -> Result<Report> {
    let Request { batch, ref prompt, new_tokens, keep_logits, profile, recording, graphs } =
        *request;
    if batch == 0 || prompt.is_empty() || !prompt.len().is_multiple_of(batch) {
        return Err(Error::Request(format!(
            "{} prompt ids do not split into {batch} sequences of equal length",
            prompt.len()
        )));
    }
    if new_tokens == 0 {
        return Err(Error::Request("--new-tokens must be at least 1".into()));
    }
    let prompt_len = prompt.len() / batch;
    // A profile takes a step of its own after the warm-up's (at most 3): room for it, where
    // the request's steps do not already leave it (the same cache, and so the same kernels,
    // otherwise).
    let steps = if profile { new_tokens.max(4) } else { new_tokens };
    let mut session = Session::new(model.clone(), batch, prompt_len + steps, steps, keep_logits)?;
    let mut stream = Stream::new(model.device());
    let caps = model.device().capabilities();
    let recording = match recording {
        Some(r) => r,
        // On a CPU device (lavapipe) each pipeline's second compile, for its direct twin, costs
        // far more than recording through wgpu does.
        None if caps.features.native_spirv && caps.device_type != "cpu" => Recording::Direct,
        None => Recording::Wgpu,
    };
    stream
        .set_recording(recording)
        .map_err(|source| Error::Runtime { what: "choosing the recording".into(), source })?;
    session.set_graphs(graphs.unwrap_or(match recording {
        Recording::Direct => Graphs::Auto,
        Recording::Wgpu => Graphs::Off,
    }));
    let decode_acts = session.decode_acts()?;
    // Warm-up: every kernel of both passes compiles here.
    session.prefill(&mut stream, prompt)?;
    for _ in 1..new_tokens.min(3) {
        session.decode(&mut stream, &decode_acts)?;
    }
    sync(&mut stream, SyncType::CommitAndWait)?;
    let profile = match profile && new_tokens > 1 {
        true => profile_step(&mut session, &decode_acts, &mut stream)?,
        false => None,
    };
    session.reset();

    // The prompt's pass, timed PREFILL_RUNS times (the median is reported; every run is kept).
    for _ in 0..PREFILL_WARMUPS {
        session.prefill(&mut stream, prompt)?;
        sync(&mut stream, SyncType::CommitAndWait)?;
        session.reset();
    }
    let mut runs = Vec::with_capacity(PREFILL_RUNS);
    let mut prefill_runs = Vec::with_capacity(PREFILL_RUNS);
    for i in 0..PREFILL_RUNS {
        if i > 0 {
            session.reset();
        }
        let misses = model.pool().stats().misses;
        let start = Instant::now();
        session.prefill(&mut stream, prompt)?;
        let encoded = start.elapsed().as_secs_f64() * 1e3;
        sync(&mut stream, SyncType::CommitAndWait)?;
        let total = start.elapsed().as_secs_f64() * 1e3;
        runs.push(total);
        prefill_runs.push((encoded, total, model.pool().stats().misses - misses));
    }
    runs.sort_by(f64::total_cmp);
    let prefill_ms = runs[runs.len() / 2];

    let launches0 = session.launches();
    let submitted = |s: &Stream| {
        let c = s.counters();
        (c.finish_ns + c.submit_ns) as f64 * 1e-9
    };
    let submitted0 = submitted(&stream);
    let (direct0, dispatches0) =
        (stream.counters().direct_dispatches, stream.counters().dispatches);
    let (start, mut host) = (Instant::now(), 0.0);
    for _ in 1..new_tokens {
        let t = Instant::now();
        session.decode(&mut stream, &decode_acts)?;
        sync(&mut stream, SyncType::Commit)?;
        host += t.elapsed().as_secs_f64();
    }
    let submit = submitted(&stream) - submitted0;
    let direct = stream.counters().direct_dispatches - direct0;
    let dispatches = stream.counters().dispatches - dispatches0;
    sync(&mut stream, SyncType::CommitAndWait)?;
    let steps = (new_tokens - 1).max(1) as f64;
    let decode_ms_per_step = start.elapsed().as_secs_f64() * 1e3 / steps;
    let launches_per_step = (session.launches() - launches0) as f64 / steps;

    let rows = session.tokens(&mut stream)?;
    let ids = (0..batch).map(|b| rows.iter().map(|r| r[b]).collect()).collect();
    let logits = session.logits(&mut stream)?;
    Ok(Report {
        batch,
        prompt_len,
        ids,
        prefill_ms,
        prefill_runs,
        decode_ms_per_step,
        host_ms_per_step: host * 1e3 / steps,
        encode_ms_per_step: (host - submit) * 1e3 / steps,
        submit_ms_per_step: submit * 1e3 / steps,
        launches_per_step,
        recording: stream.recording(),
        graphs: session.replaying(),
        graph_refused: session.graph_refused().map(str::to_string),
        direct_dispatches_per_step: direct as f64 / steps,
        dispatches_per_step: dispatches as f64 / steps,
        peak_gpu_bytes: model.pool().stats().peak_in_use_bytes,
        logits,
        profile,
    })
}

/// One more decode step whose launches are recorded, then each problem it launched timed alone
/// over the same arguments, grouped by problem. The step's picks are overwritten by the timed
/// steps after.
fn profile_step(
    session: &mut Session,
    acts: &crate::session::DecodeActs,
    stream: &mut Stream,
) -> Result<Option<Vec<ProfileRow>>> {
    if session.steps() >= session.max_steps() {
        return Ok(None);
    }
    session.start_profile();
    session.decode(stream, acts)?;
    sync(stream, SyncType::CommitAndWait)?;
    let mut rows: Vec<ProfileRow> = session
        .finish_profile(stream)?
        .into_iter()
        .map(|(launch, count, s)| ProfileRow {
            launch,
            count,
            us: s * 1e6,
            ms: count as f64 * s * 1e3,
        })
        .collect();
    rows.sort_by(|a, b| b.ms.total_cmp(&a.ms));
    Ok(Some(rows))
}
