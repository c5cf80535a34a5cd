//! `tilecast emit`: a kernel's IR, WGSL, MSL or SPIR-V for any profile, no GPU needed.

use std::io::Write;
use std::path::Path;

use tilecast_kernels::listing::{self, render};
use tilecast_kernels::{entries, lookup};
use tilecast_lang::Profile;

/// What `emit` prints.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Target {
    /// The tile IR as written and the lowered form after passes (layouts, plans, barriers).
    Ir,
    /// WGSL, what the runtime runs.
    Wgsl,
    /// Metal Shading Language through naga.
    Msl,
    /// SPIR-V from the native back end, what Vulkan devices run (disassembled on stdout,
    /// binary with -o).
    Spirv,
    /// SPIR-V through naga from the WGSL (hex words on stdout, binary with -o).
    SpirvNaga,
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
    let (dtype, format) =
        request.dtype.map(crate::bench::parse_types).transpose()?.unwrap_or_default();
    let dtype = dtype.unwrap_or(e.dtypes[0]);
    let shape = crate::bench::with_format(request.shape.unwrap_or(e.full[0]), format);
    let problem = e.problem(&shape, dtype)?;
    let profile = profile(profile_name)?;
    let plan = e.plan(&problem, &profile)?;
    let n = plan.launches.len();
    let chosen: Vec<usize> = match request.launch {
        Some(i) if (1..=n).contains(&i) => vec![i - 1],
        Some(i) => {
            return Err(format!(
                "--launch {i}: kernel {name} {} {dtype} runs {n} launch(es) on profile {}, numbered from 1 (--launch 1 to {n})",
                problem.shape_text(),
                profile.name
            )
            .into());
        }
        None => (0..n).collect(),
    };
    let target = match target {
        Target::Ir => listing::Target::Ir,
        Target::Wgsl => listing::Target::Wgsl,
        Target::Msl => listing::Target::Msl,
        Target::Spirv => listing::Target::Spirv { binary: output.is_some() },
        Target::SpirvNaga => listing::Target::SpirvNaga { binary: output.is_some() },
    };
    let bytes = render(e, &problem, &profile, &plan, &chosen, target)?;
    match output {
        Some(path) => std::fs::write(path, &bytes)
            .map_err(|e| format!("cannot write -o {}: {e}", path.display()))?,
        None => std::io::stdout().write_all(&bytes)?,
    }
    Ok(())
}
