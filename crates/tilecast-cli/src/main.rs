//! `tilecast`: the command-line face of tilecast. Thin by design: it parses arguments, calls the
//! libraries and prints.

mod bench;
mod emit;
mod info;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    },
    /// Run a kernel on the device against its CPU reference and time it.
    Bench {
        /// Kernel (today: gemm).
        #[arg(long, default_value = "gemm")]
        kernel: String,
        /// Problem shape, MxNxK.
        #[arg(long, default_value = "1024x1024x1024")]
        shape: String,
        /// Input element type (the accumulator is f32).
        #[arg(long, value_enum, default_value_t = bench::Dtype::F16)]
        dtype: bench::Dtype,
        /// Pipeline stages (default: chosen with the tile).
        #[arg(long)]
        stages: Option<u32>,
        /// Threadgroup tile, BMxBNxBK (default: chosen for the device: K steps of 32 on matrix
        /// units, 128x128x8 SIMT otherwise).
        #[arg(long)]
        tile: Option<String>,
        /// Threads per threadgroup (default: chosen with the tile).
        #[arg(long)]
        threads: Option<u32>,
        /// Timed launches (the median of 5 batches is reported).
        #[arg(long, default_value_t = 20)]
        iters: u32,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Load the kernel with naga's runtime bounds checks (default: trusted, since the
        /// compiler masks every access itself).
        #[arg(long)]
        checked: bool,
    },
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_core::instance=error"),
    )
    .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { json, list } => info::run(json, list),
        Command::Emit { kernel, target, profile, output, list } => {
            emit::run(kernel.as_deref(), target, &profile, output.as_deref(), list)
        }
        Command::Bench { kernel, shape, dtype, stages, tile, threads, iters, json, checked } => {
            bench::run(&bench::Options {
                kernel,
                shape,
                dtype,
                stages,
                tile,
                threads,
                iters,
                json,
                checked,
            })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tilecast: error: {e}");
            ExitCode::FAILURE
        }
    }
}
