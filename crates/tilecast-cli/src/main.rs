//! `tilecast`: the command-line face of tilecast. Thin by design: it parses arguments, calls the
//! libraries and prints.

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
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_core::instance=error"),
    )
    .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { json, list } => info::run(json, list),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tilecast: error: {e}");
            ExitCode::FAILURE
        }
    }
}
