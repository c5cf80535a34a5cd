//! `tilecast emit`: a kernel's IR, WGSL, MSL or SPIR-V for any profile, no GPU needed.

use std::io::Write;
use std::path::Path;

use tilecast_kernels::{CATALOG, by_name_for};
use tilecast_lang::back::emit;
use tilecast_lang::{Profile, compile};

/// What `emit` prints.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Target {
    /// The tile IR as written and the lowered form after passes (layouts, plans, barriers).
    Ir,
    /// WGSL, what the runtime runs.
    Wgsl,
    /// Metal Shading Language through naga.
    Msl,
    /// SPIR-V through naga (hex words on stdout, binary with -o).
    Spirv,
}

fn profile(name: &str) -> Result<Profile, Box<dyn std::error::Error>> {
    if name == "device" {
        let device = tilecast_runtime::Device::new()?;
        return Ok(Profile::from_capabilities(device.capabilities()));
    }
    Ok(Profile::named(name)?)
}

/// Runs `tilecast emit`.
pub fn run(
    kernel: Option<&str>,
    target: Target,
    profile_name: &str,
    output: Option<&Path>,
    list: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    if list {
        for (name, what) in CATALOG {
            println!("{name:<10} {what}");
        }
        return Ok(());
    }
    let name = kernel.unwrap_or_default();
    let profile = profile(profile_name)?;
    let ir = by_name_for(name, &profile).ok_or_else(|| {
        let names: Vec<_> = CATALOG.iter().map(|(n, _)| *n).collect();
        format!("no kernel named {name:?}; known: {}", names.join(", "))
    })?;
    let compiled = compile(&ir, &profile)?;
    let header = format!("kernel {name}, profile {}", compiled.profile());
    let bytes: Vec<u8> = match target {
        Target::Ir => {
            format!(
                "// {header}: as written\n{}\n// after passes (lowered: every choice the passes made)\n{}",
                compiled.ir_as_written(),
                compiled.ir_lowered()
            )
            .into_bytes()
        }
        Target::Wgsl => compiled.wgsl().as_bytes().to_vec(),
        Target::Msl => format!("// {header}\n{}", emit::msl(&compiled)?).into_bytes(),
        Target::Spirv => {
            let words = emit::spirv(&compiled)?;
            if output.is_some() {
                words.iter().flat_map(|w| w.to_le_bytes()).collect()
            } else {
                let mut s = format!("; {header}: {} SPIR-V words\n", words.len());
                for chunk in words.chunks(8) {
                    let line: Vec<String> = chunk.iter().map(|w| format!("{w:08x}")).collect();
                    s.push_str(&line.join(" "));
                    s.push('\n');
                }
                s.into_bytes()
            }
        }
    };
    match output {
        Some(path) => std::fs::write(path, &bytes)?,
        None => std::io::stdout().write_all(&bytes)?,
    }
    Ok(())
}
