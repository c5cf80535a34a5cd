//! The compiler driver: verify, rewrite, pipeline, plan memory, fence, lower, print WGSL and
//! native SPIR-V, and validate the WGSL with naga where it is what runs (else on first use).
//! The result is plain data the runtime executes without the IR.

use crate::back::wgsl;
use crate::compiled::Printed;
use crate::ir::Kernel;
use crate::passes::ir::{barriers, lanes, pipeline, rewrite, select, split};
use crate::passes::lower;
use crate::passes::lowered::{fuse, group, guards, padding, workgroup_kernel, workgroup_matrices};
use crate::verify::{verify, verify_shared_memory};
use crate::{Compiled, Error, Profile, Result};

/// The passes that decide tiles and layouts (with the `split` pass's matrix twins when
/// `twins`), checked against the profile's threadgroup memory.
fn prepare(
    kernel: &Kernel,
    profile: &Profile,
    twins: bool,
) -> Result<(Kernel, Vec<Option<select::Selected>>)> {
    let mut k = kernel.clone();
    if twins {
        split::matrix_accumulators(&mut k, profile);
    }
    rewrite::fragment_reductions(&mut k);
    pipeline::pipeline(&mut k)?;
    let selected = select::select(&mut k, profile).map_err(|(tile, message)| Error::Verify {
        kernel: k.name.clone(),
        at: kernel.tiles.iter().position(|t| t.name == tile).map(crate::Site::Tile),
        op: format!("fragment {tile}"),
        message,
    })?;
    lanes::row_reductions(&mut k, profile, &selected);
    verify_shared_memory(&k, profile)?;
    Ok((k, selected))
}

/// Compiles `kernel` for `profile`.
pub fn compile(kernel: &Kernel, profile: &Profile) -> Result<Compiled> {
    verify(kernel, profile)?;
    // Matrix twins first; where their stages do not fit threadgroup memory, without them (the
    // products stay SIMT rather than the kernel failing).
    let prepared = match prepare(kernel, profile, true) {
        Ok(done) => Ok(done),
        Err(_) => prepare(kernel, profile, false),
    };
    match prepared {
        Ok((k, selected)) => finish(kernel, k, selected, profile, None),
        // A kernel whose tiles overflow threadgroup memory may still run where the native back
        // end holds them all as workgroup-scope matrices: its WGSL is printed for the listing,
        // and only the native module runs.
        Err(e) if profile.workgroup_matrix.is_some() => {
            let roomy = Profile { max_shared_bytes: u32::MAX, ..profile.clone() };
            let Ok((k, selected)) = prepare(kernel, &roomy, true) else { return Err(e) };
            let why = e.to_string();
            let Ok(c) = finish(kernel, k, selected, &roomy, Some(why)) else { return Err(e) };
            let fits = c.shared_bytes() <= profile.max_shared_bytes as u64;
            if c.native_lowered().is_none() || c.native_spirv().is_err() || !fits {
                return Err(e);
            }
            Ok(c)
        }
        Err(e) => Err(e),
    }
}

/// Lowers and prints a prepared kernel; `native_only` says why WGSL cannot run it, if so.
fn finish(
    kernel: &Kernel,
    mut k: Kernel,
    selected: Vec<Option<select::Selected>>,
    profile: &Profile,
    native_only: Option<String>,
) -> Result<Compiled> {
    barriers::place_barriers(&mut k);
    let mut lowered = lower::lower(&k, profile, &selected)?;
    group::group_loads(&mut lowered);
    guards::hoist_uniform_tests(&mut lowered);
    padding::pad_shared_rows(&mut lowered, profile);
    fuse::fuse_epilogues(&mut lowered);
    let wgsl = wgsl::write(&lowered);
    // The native back end may take what WGSL cannot say: its own lowering, shown in the IR
    // listing where it differs.
    let mut native = lowered.clone();
    let rewritten = workgroup_matrices::workgroup_matrices(&mut native, profile)
        || workgroup_kernel::workgroup_kernel(&mut native, profile);
    let native_lowered = rewritten.then(|| native.to_string());
    let spirv = crate::back::spirv::write(&native).map_err(|u| u.0);
    // naga checks the WGSL when something first uses it; here already where it is what runs
    // (no native module, or a device without them), so that a WGSL bug fails the compile
    // rather than the load.
    let naga = crate::compiled::NagaCheck::default();
    if spirv.is_err() || !profile.native_spirv {
        let checked = wgsl::check(&wgsl);
        if let Err(message) = &checked {
            return Err(wgsl::codegen_error(&k.name, &wgsl, message.clone()));
        }
        let _ = naga.set(checked);
    }
    let native_shared = native.shared_bytes();
    let printed = Printed { wgsl, naga, spirv, native_lowered, native_only, native_shared };
    Compiled::describe(kernel, &k, &lowered, &selected, profile, printed)
}

#[cfg(test)]
mod tests {
    use super::compile;
    use crate::{DType, Kernel, Profile, sym};

    /// `Y = 2 X` over `N` f32 values.
    fn double() -> crate::ir::Kernel {
        let n = sym("N");
        let k = Kernel::new("double").grid([crate::ceil_div(&n, 64u32)]).threads(64);
        let (x, y) = (k.input("X", DType::F32, [&n]), k.param("Y", DType::F32, [&n]));
        k.parallel([64u32], |k, [i]| {
            let at = crate::block_x() * 64u32 + &i;
            k.store(&y, [at.clone()], x.at([at]) * 2.0f32);
        });
        k.build()
    }

    #[test]
    fn naga_checks_the_wgsl_at_compile_only_where_the_wgsl_is_what_runs() {
        let native = compile(&double(), &Profile::named("vulkan-lavapipe").unwrap()).unwrap();
        assert!(native.native_spirv().is_ok());
        assert!(!native.naga_checked(), "checked though the native module runs");
        let (module, _) = native.naga().unwrap();
        assert_eq!(module.entry_points.len(), 1);
        assert!(native.naga_checked(), "checked once, then kept");
        let metal = compile(&double(), &Profile::named("metal-apple7").unwrap()).unwrap();
        assert!(metal.naga_checked(), "Metal runs the WGSL: checked at compile");
        // Clones share the one check.
        assert!(native.clone().naga_checked());
    }

    #[test]
    fn a_refused_wgsl_is_a_compiler_bug_error_naming_the_kernel() {
        let c = compile(&double(), &Profile::named("vulkan-lavapipe").unwrap()).unwrap();
        let c = c.clone().with_wgsl(format!("{}\nfn broken( {{", c.wgsl()));
        let err = c.naga().unwrap_err().to_string();
        assert!(err.contains("compiler bug") && err.contains("\"double\""), "{err}");
    }
}
