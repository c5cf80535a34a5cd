//! `tilecast emit`: a kernel's IR, WGSL, MSL or SPIR-V for any profile, no GPU needed.

use std::io::Write;
use std::path::Path;

use tilecast_kernels::{entries, lookup};
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

/// Which kernel, built for which problem.
pub struct Request<'a> {
    /// Kernel name.
    pub kernel: Option<&'a str>,
    /// Shape (default: the first of the kernel's full suite).
    pub shape: Option<&'a str>,
    /// Input type (default: the kernel's first).
    pub dtype: Option<&'a str>,
    /// Only this launch of the problem's plan (1-based; default: every launch).
    pub launch: Option<usize>,
}

/// One compiled kernel as `target` text (or binary SPIR-V when `binary`).
fn print(
    compiled: &tilecast_lang::Compiled,
    target: Target,
    header: &str,
    binary: bool,
) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    Ok(match target {
        Target::Ir => format!(
            "// {header}: as written\n{}\n// after passes (lowered: every choice the passes made)\n{}",
            compiled.ir_as_written(),
            compiled.ir_lowered()
        )
        .into_bytes(),
        Target::Wgsl => compiled.wgsl().as_bytes().to_vec(),
        Target::Msl => format!("// {header}\n{}", emit::msl(compiled)?).into_bytes(),
        Target::Spirv => {
            let words = emit::spirv(compiled)?;
            if binary {
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
    })
}

/// Runs `tilecast emit`.
pub fn run(
    request: &Request,
    target: Target,
    profile_name: &str,
    output: Option<&Path>,
    list: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    if list {
        for e in entries() {
            crate::out::line(format_args!("{:<18} {:<10} {}", e.name, e.grammar(), e.summary))?;
        }
        return Ok(());
    }
    let e = lookup(request.kernel.unwrap_or_default())?;
    let name = e.name;
    let dtype = match request.dtype {
        Some(d) => crate::bench::parse_dtype(d)?,
        None => e.dtypes[0],
    };
    let problem = e.problem(request.shape.unwrap_or(e.full[0]), dtype)?;
    let profile = profile(profile_name)?;
    let plan = e.plan(&problem, &profile)?;
    let n = plan.launches.len();
    let chosen: Vec<usize> = match request.launch {
        Some(i) if (1..=n).contains(&i) => vec![i - 1],
        Some(i) => {
            return Err(format!(
                "--launch {i}: kernel {name} {} {dtype} runs {n} launch(es) on profile {}",
                problem.shape_text(),
                profile.name
            )
            .into());
        }
        None => (0..n).collect(),
    };
    if matches!(target, Target::Spirv) && output.is_some() && chosen.len() > 1 {
        return Err(format!(
            "kernel {name} {} {dtype} runs {n} launches on profile {}: binary SPIR-V holds one \
             module, so pick one with --launch 1..{n}",
            problem.shape_text(),
            profile.name
        )
        .into());
    }
    let mut bytes = Vec::new();
    for i in chosen {
        let compiled = compile(&plan.launches[i].ir, &profile)?;
        let mut header = format!(
            "kernel {name} {} {dtype}, profile {}",
            problem.shape_text(),
            compiled.profile()
        );
        if n > 1 {
            header.push_str(&format!(", launch {} of {n} ({})", i + 1, plan.launches[i].ir.name));
            if matches!(target, Target::Wgsl) {
                bytes.extend(format!("// {header}\n").into_bytes());
            }
        }
        bytes.extend(print(&compiled, target, &header, output.is_some())?);
    }
    match output {
        Some(path) => std::fs::write(path, &bytes)?,
        None => std::io::stdout().write_all(&bytes)?,
    }
    Ok(())
}
