//! `tilecast`: the command-line face of tilecast. Thin by design: it parses arguments, calls the
//! libraries and prints.

mod bench;
mod emit;
mod generate;
mod info;
mod out;
mod table;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Write GPU kernels once, as tiles; run them on Metal, Vulkan and DX12.
#[derive(Parser)]
#[command(name = "tilecast", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the capability report of the chosen device (TILECAST_BACKEND, TILECAST_ADAPTER).
    Info {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// List every adapter found instead of opening one.
        #[arg(long)]
        list: bool,
    },
    /// Print a kernel for any target profile, without a GPU.
    Emit {
        /// Kernel name (see `tilecast emit --list`).
        #[arg(required_unless_present = "list")]
        kernel: Option<String>,
        /// What to print.
        #[arg(long, value_enum, default_value_t = emit::Target::Wgsl)]
        target: emit::Target,
        /// Target profile: vulkan-nvidia, vulkan-lavapipe, metal-apple7, or `device` (the live one).
        #[arg(long, default_value = "vulkan-lavapipe")]
        profile: String,
        /// Write to this file instead of stdout (SPIR-V is written as binary).
        #[arg(short, long)]
        output: Option<std::path::PathBuf>,
        /// List the kernels.
        #[arg(long)]
        list: bool,
        /// Problem shape the kernel is built for (default: the first of its full suite).
        #[arg(long, allow_hyphen_values = true)]
        shape: Option<String>,
        /// Input type (default: the kernel's first); for quantized kernels a weight format,
        /// optionally with the activations' type (`q4_0,bf16`).
        #[arg(long)]
        dtype: Option<String>,
        #[command(flatten)]
        options: ShapeOptions,
        /// Only this launch (1-based) of a problem that runs several (bf16 gemm and linear on
        /// f16 matrix units convert their operands first); default: every launch, in order.
        #[arg(long)]
        launch: Option<usize>,
    },
    /// Run library kernels on the device, check each against its CPU reference, and time it.
    ///
    /// With no options: the quick suite (every kernel, its default type, small ragged shapes).
    /// `--full` runs large shapes (256 MiB tensors for memory-bound kernels); `--kernel` filters;
    /// `--kernel K --shape S` runs one case and exits non-zero when its check fails.
    Bench(bench::Options),
    /// Generate tokens greedily with a Llama checkpoint, and time the prompt and each step.
    ///
    /// Token ids in and out (no tokenizer): `--prompt-ids 1,2,3` or `--prompt-len N` random
    /// ids. Prints prefill and decode tokens/s, the host's time per decode step and peak device
    /// memory; `--logits FILE` writes every step's logits for checking against another
    /// implementation.
    Generate(generate::Options),
}

/// Options of the attention family's problems, as flags; each is added to `--shape`.
#[derive(clap::Args, Debug, Default)]
struct ShapeOptions {
    /// Attention: key/value heads (grouped-query attention; default: as many as query heads).
    #[arg(long, requires = "shape")]
    kv_heads: Option<usize>,
    /// Attention: a causal mask (aligned to the end when queries and keys differ in length).
    #[arg(long, requires = "shape")]
    causal: bool,
    /// Decode attention: query rows per head (1 to 8).
    #[arg(long, requires = "shape")]
    rows: Option<usize>,
    /// Paged decode attention: tokens per page (default 16).
    #[arg(long, requires = "shape")]
    page_size: Option<usize>,
    /// MLX-quantized weights (`--dtype mlx4|mlx8`): values per group, 32, 64 or 128 (default 64).
    #[arg(long, requires = "shape")]
    group: Option<usize>,
}

impl ShapeOptions {
    /// `shape` with these options appended in the registry's `,name=value` form.
    fn apply(&self, shape: Option<String>) -> Option<String> {
        let mut s = shape?;
        for (name, v) in [
            ("kv", self.kv_heads),
            ("rows", self.rows),
            ("page", self.page_size),
            ("group", self.group),
        ] {
            if let Some(v) = v {
                s.push_str(&format!(",{name}={v}"));
            }
        }
        if self.causal {
            s.push_str(",causal");
        }
        Some(s)
    }
}

/// Every kernel with its shape grammar and types, for `bench --help` and `emit --help`.
fn kernel_help() -> String {
    let mut s = String::from(
        "Kernels (shape: dimensions joined by `x`, then options: `,kv=8,causal`; types, default first):\n",
    );
    for e in tilecast_kernels::entries() {
        let types: Vec<&str> = e.dtypes.iter().map(|d| d.name()).collect();
        let options = e.option_names().join(",");
        let grammar =
            if options.is_empty() { e.grammar() } else { format!("{}[,{options}]", e.grammar()) };
        s.push_str(&format!(
            "  {:<22} {:<22} {:<26} {}\n",
            e.name,
            grammar,
            types.join(","),
            e.summary
        ));
    }
    s
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_core::instance=error"),
    )
    .init();
    let help = kernel_help();
    let command = Cli::command()
        .mut_subcommand("bench", |c| c.after_help(help.clone()))
        .mut_subcommand("emit", |c| c.after_help(help.clone()));
    let cli = match Cli::from_arg_matches(&command.get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Info { json, list } => info::run(json, list),
        Command::Emit { kernel, target, profile, output, list, shape, dtype, options, launch } => {
            emit::run(
                &emit::Request {
                    kernel: kernel.as_deref(),
                    shape: options.apply(shape).as_deref(),
                    dtype: dtype.as_deref(),
                    launch,
                },
                target,
                &profile,
                output.as_deref(),
                list,
            )
        }
        Command::Bench(options) => bench::run(&options),
        Command::Generate(options) => generate::run(&options),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if out::closed_pipe(&*e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tilecast: error: {e}");
            ExitCode::FAILURE
        }
    }
}
