//! Listings of a problem's launches in one target language: what `tilecast emit` prints and
//! what the golden files under `tests/out/` hold, made by one function so the two never differ.

use tilecast_lang::back::emit;
use tilecast_lang::{Compiled, Profile, compile};

use crate::registry::{Entry, Plan, Problem};
use crate::{Error, Result};

/// What a listing shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The tile IR as written and the lowered form after passes (every choice they made).
    Ir,
    /// WGSL, what the runtime runs.
    Wgsl,
    /// Metal Shading Language, through naga.
    Msl,
    /// SPIR-V from the native back end: its disassembly, or the binary module.
    Spirv {
        /// Little-endian words instead of text.
        binary: bool,
    },
    /// SPIR-V through naga from the WGSL: hex words as text, or the binary module.
    SpirvNaga {
        /// Little-endian words instead of text.
        binary: bool,
    },
}

/// The listing of launches `chosen` (0-based) of `plan`, the plan of `entry` for `problem` on
/// `profile`, each compiled for `profile`. A plan of several launches heads each with its
/// number and kernel name; the IR listing starts with the family's strategy.
pub fn render(
    entry: &Entry,
    problem: &Problem,
    profile: &Profile,
    plan: &Plan,
    chosen: &[usize],
    target: Target,
) -> Result<Vec<u8>> {
    let n = plan.launches.len();
    if matches!(target, Target::Spirv { binary: true } | Target::SpirvNaga { binary: true })
        && chosen.len() != 1
    {
        return Err(Error::Problem {
            kernel: entry.name.into(),
            message: format!(
                "{} {} runs {n} launches on profile {}: binary SPIR-V holds one module, so pick \
                 one launch (1..{n})",
                problem.shape_text(),
                problem.dtype,
                profile.name
            ),
        });
    }
    let mut bytes = Vec::new();
    if target == Target::Ir {
        let what = format!("{} {} {}", entry.name, problem.shape_text(), problem.dtype);
        bytes.extend(
            format!("// {what} on {}: strategy {}\n", profile.name, plan.strategy).into_bytes(),
        );
    }
    for &i in chosen {
        let launch = plan.launches.get(i).ok_or_else(|| Error::Problem {
            kernel: entry.name.into(),
            message: format!(
                "launch {} of {} {}: it runs {n} launch(es) on profile {}",
                i + 1,
                problem.shape_text(),
                problem.dtype,
                profile.name
            ),
        })?;
        let compiled = compile(&launch.ir, profile)?;
        let mut header = format!(
            "kernel {} {} {}, profile {}",
            entry.name,
            problem.shape_text(),
            problem.dtype,
            compiled.profile()
        );
        if n > 1 {
            header.push_str(&format!(", launch {} of {n} ({})", i + 1, launch.ir.name));
            if target == Target::Wgsl {
                bytes.extend(format!("// {header}\n").into_bytes());
            }
        }
        bytes.extend(one(&compiled, target, &header)?);
    }
    Ok(bytes)
}

/// One compiled kernel in `target`, headed by `header` where the target has comments (how
/// `render` lists each launch; the Python builder lists its kernels the same way).
pub fn one(compiled: &Compiled, target: Target, header: &str) -> Result<Vec<u8>> {
    Ok(match target {
        Target::Ir => {
            let mut text = format!(
                "// {header}: as written\n{}\n// after passes (lowered: every choice the passes made)\n{}",
                compiled.ir_as_written(),
                compiled.ir_lowered()
            );
            if let Some(native) = compiled.native_lowered() {
                text.push_str(&format!(
                    "\n// for the native SPIR-V back end (passes only it prints applied)\n{native}"
                ));
            }
            text.into_bytes()
        }
        Target::Wgsl => compiled.wgsl().as_bytes().to_vec(),
        Target::Msl => format!("// {header}\n{}", emit::msl(compiled)?).into_bytes(),
        Target::Spirv { binary } => {
            let words = compiled.native_spirv().map_err(|why| Error::Problem {
                kernel: compiled.name().to_string(),
                message: format!(
                    "the native SPIR-V back end does not print it yet: {why} (it runs through \
                     WGSL; --target spirv-naga shows naga's SPIR-V of that)"
                ),
            })?;
            if binary {
                words.iter().flat_map(|w| w.to_le_bytes()).collect()
            } else {
                format!("; {header}\n{}\n", tilecast_lang::back::spirv::disassemble(words))
                    .into_bytes()
            }
        }
        Target::SpirvNaga { binary: true } => {
            emit::spirv(compiled)?.iter().flat_map(|w| w.to_le_bytes()).collect()
        }
        Target::SpirvNaga { binary: false } => {
            let words = emit::spirv(compiled)?;
            let mut s = format!("; {header}: {} SPIR-V words\n", words.len());
            for chunk in words.chunks(8) {
                let line: Vec<String> = chunk.iter().map(|w| format!("{w:08x}")).collect();
                s.push_str(&line.join(" "));
                s.push('\n');
            }
            s.into_bytes()
        }
    })
}
