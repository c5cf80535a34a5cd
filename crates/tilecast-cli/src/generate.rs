//! `tilecast generate`: greedy generation with a Llama checkpoint, timed. Thin: the decoder is
//! `tilecast-llm`'s; this parses the request, shows the loading progress and prints the report.

use std::error::Error;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};
use tilecast_llm::{Graphs, Model, Request, generate};
use tilecast_runtime::{Device, Recording};

use crate::out;

/// `tilecast generate`'s arguments.
#[derive(clap::Args, Debug)]
pub struct Options {
    /// A Hugging Face checkpoint directory (`config.json` and `model.safetensors` or its shards),
    /// or a GGUF file (F16, Q4_0, Q8_0 or Q4_K weights, llama.cpp's tensor names).
    #[arg(long)]
    model: PathBuf,
    /// Prompt tokens per sequence, drawn at random from the vocabulary (see `--seed`).
    #[arg(long, conflicts_with = "prompt_ids")]
    prompt_len: Option<usize>,
    /// The prompt's token ids, comma-separated (one prompt, repeated over the batch).
    #[arg(long, value_delimiter = ',')]
    prompt_ids: Option<Vec<u32>>,
    /// Tokens to generate per sequence.
    #[arg(long, default_value_t = 16)]
    new_tokens: usize,
    /// Sequences decoded together.
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// Seed of the random prompt.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print the report as JSON, with the generated ids.
    #[arg(long)]
    json: bool,
    /// Write every step's logits to this `.npy` file, `[steps, batch, vocab]` f32 (step 0: the
    /// prompt's last position).
    #[arg(long)]
    logits: Option<PathBuf>,
    /// Profile a decode step: each kernel and problem it launches, timed alone over the step's
    /// own arguments as `tilecast bench` times a kernel, times its launches per step, longest
    /// first. Their sum against the step's time is what launches cost beyond their kernels.
    #[arg(long)]
    profile: bool,
    /// How launches are recorded: `direct` (straight into Vulkan command buffers, below wgpu's
    /// tracking), `wgpu`, or `auto` (direct on a GPU that allows it; wgpu on a CPU device such
    /// as lavapipe, where compiling each pipeline's direct twin costs more than it saves).
    #[arg(long, default_value = "auto", value_parser = ["auto", "direct", "wgpu"])]
    recording: String,
    /// Whether decode steps replay a graph captured once (the step's launches recorded into
    /// one Vulkan command buffer at the second step, then executed each step): `on`, `off`, or
    /// `auto` (on where launches are recorded directly and the step can be captured; the
    /// report says why not where it cannot). Needs Vulkan with native SPIR-V.
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    graph: String,
}

pub fn run(o: &Options) -> Result<(), Box<dyn Error>> {
    let device = Device::new()?;
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template("loading {msg} [{bar:30}] {bytes}/{total_bytes} ({eta})")?
            .progress_chars("=> "),
    );
    bar.set_message(o.model.display().to_string());
    let model = std::sync::Arc::new(Model::load(&o.model, &device, |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    })?);
    bar.finish_and_clear();
    let vocab = model.config.vocab_size;
    let prompt = match (&o.prompt_ids, o.prompt_len) {
        (Some(ids), _) => ids.repeat(o.batch),
        (None, Some(len)) => Request::random_prompt(o.batch, len, vocab, o.seed),
        (None, None) => return Err("give --prompt-len N or --prompt-ids 1,2,3".into()),
    };
    let request = Request {
        batch: o.batch,
        prompt,
        new_tokens: o.new_tokens,
        keep_logits: o.logits.is_some(),
        profile: o.profile,
        recording: match o.recording.as_str() {
            "direct" => Some(Recording::Direct),
            "wgpu" => Some(Recording::Wgpu),
            _ => None,
        },
        graphs: match o.graph.as_str() {
            "on" => Some(Graphs::On),
            "off" => Some(Graphs::Off),
            _ => None,
        },
    };
    let report = generate(&model, &request)?;
    if let (Some(path), Some(logits)) = (&o.logits, &report.logits) {
        write_npy(path, logits, [o.new_tokens, o.batch, vocab])
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let decode_tok_s = (o.new_tokens > 1).then(|| report.decode_tokens_per_s());
    let host_share =
        (o.new_tokens > 1).then(|| report.host_ms_per_step / report.decode_ms_per_step);
    if o.json {
        let j = serde_json::json!({
            "device": device.name(),
            "model": o.model.display().to_string(),
            "batch": report.batch,
            "prompt_len": report.prompt_len,
            "new_tokens": o.new_tokens,
            "prefill_ms": report.prefill_ms,
            "prefill_runs": report.prefill_runs.iter().map(|&(encode, total, misses)| serde_json::json!({
                "encode_ms": encode, "ms": total, "new_buffers": misses,
            })).collect::<Vec<_>>(),
            "prefill_tokens_per_s": report.prefill_tokens_per_s(),
            "decode_ms_per_step": (o.new_tokens > 1).then_some(report.decode_ms_per_step),
            "decode_tokens_per_s": decode_tok_s,
            "host_ms_per_step": (o.new_tokens > 1).then_some(report.host_ms_per_step),
            "encode_ms_per_step": (o.new_tokens > 1).then_some(report.encode_ms_per_step),
            "submit_ms_per_step": (o.new_tokens > 1).then_some(report.submit_ms_per_step),
            "host_share_of_step": host_share,
            "launches_per_step": report.launches_per_step,
            "recording": format!("{:?}", report.recording).to_lowercase(),
            "graph": report.graphs,
            "graph_refused": report.graph_refused,
            "dispatches_per_step": report.dispatches_per_step,
            "direct_dispatches_per_step": report.direct_dispatches_per_step,
            "peak_gpu_bytes": report.peak_gpu_bytes,
            "profile": report.profile.as_ref().map(|rows| rows.iter().map(|r| serde_json::json!({
                "launch": r.launch, "count": r.count, "us": r.us, "ms": r.ms,
            })).collect::<Vec<_>>()),
            "weight_bytes": model.weight_bytes(),
            "prompt_ids": request.prompt.chunks(report.prompt_len).collect::<Vec<_>>(),
            "ids": report.ids,
        });
        out::line(serde_json::to_string_pretty(&j)?)?;
        return Ok(());
    }
    out::line(format!("device    {}", device.name()))?;
    out::line(format!(
        "model     {} ({} layers, {:.2} GB of weights)",
        o.model.display(),
        model.config.num_layers,
        model.weight_bytes() as f64 / 1e9
    ))?;
    out::line(format!(
        "prefill   {} x {} tokens in {:.2} ms: {:.0} tokens/s",
        report.batch,
        report.prompt_len,
        report.prefill_ms,
        report.prefill_tokens_per_s()
    ))?;
    match (decode_tok_s, host_share) {
        (Some(tps), Some(share)) => out::line(format!(
            "decode    {:.3} ms per step: {tps:.1} tokens/s; host {:.3} ms per step ({:.0}%; recording {:.3}, finishing and submitting {:.3}), {:.0} launches ({:.0} dispatches, {:.0} recorded directly{})",
            report.decode_ms_per_step,
            report.host_ms_per_step,
            share * 100.0,
            report.encode_ms_per_step,
            report.submit_ms_per_step,
            report.launches_per_step,
            report.dispatches_per_step,
            report.direct_dispatches_per_step,
            if report.graphs { ", replayed from a graph" } else { "" }
        ))?,
        _ => out::line("decode    not timed (one new token comes from the prompt's pass)")?,
    }
    if let Some(why) = &report.graph_refused {
        out::line(format!("graph     not replayed: {why}"))?;
    }
    if let Some(rows) = &report.profile {
        let total: f64 = rows.iter().map(|r| r.ms).sum();
        out::line(format!(
            "profile   a decode step's launches, each timed alone: {total:.3} ms of kernels{}",
            match o.new_tokens > 1 {
                true => format!(" in a {:.3} ms step", report.decode_ms_per_step),
                false => String::new(),
            }
        ))?;
        for r in rows {
            out::line(format!(
                "  {:>8.3} ms {:>5.1}% {:>4} x {:>9.2} us  {}",
                r.ms,
                100.0 * r.ms / total.max(f64::MIN_POSITIVE),
                r.count,
                r.us,
                r.launch
            ))?;
        }
    }
    out::line(format!(
        "memory    {:.2} GB peak on the device",
        report.peak_gpu_bytes as f64 / 1e9
    ))?;
    for (b, ids) in report.ids.iter().enumerate() {
        let ids: Vec<String> = ids.iter().map(u32::to_string).collect();
        out::line(format!("ids[{b}]    {}", ids.join(",")))?;
    }
    Ok(())
}

fn write_npy(path: &std::path::Path, values: &[f32], shape: [usize; 3]) -> std::io::Result<()> {
    use npyz::WriterBuilder;
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut w = npyz::WriteOptions::new().default_dtype().shape(&shape).writer(file).begin_nd()?;
    w.extend(values.iter().copied())?;
    w.finish()
}
