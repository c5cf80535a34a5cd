//! The compiler driver: verify, rewrite, pipeline, plan memory, fence, lower, print WGSL, and
//! validate it with naga. The result is plain data the runtime executes without the IR.

use crate::back::wgsl;
use crate::compiled::Printed;
use crate::ir::Kernel;
use crate::passes::ir::{barriers, lanes, pipeline, rewrite, select, split};
use crate::passes::lower;
use crate::passes::lowered::{fuse, group, guards, padding, workgroup_matrices};
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
    let (mut k, selected) = match prepare(kernel, profile, true) {
        Ok(done) => done,
        Err(_) => prepare(kernel, profile, false)?,
    };
    barriers::place_barriers(&mut k);
    let mut lowered = lower::lower(&k, profile, &selected)?;
    group::group_loads(&mut lowered);
    guards::hoist_uniform_tests(&mut lowered);
    padding::pad_shared_rows(&mut lowered, profile);
    fuse::fuse_epilogues(&mut lowered);
    let wgsl = wgsl::write(&lowered);
    wgsl::validate(&k.name, &wgsl)?;
    // The native back end may take what WGSL cannot say: its own lowering, shown in the IR
    // listing where it differs.
    let mut native = lowered.clone();
    let native_lowered =
        workgroup_matrices::workgroup_matrices(&mut native, profile).then(|| native.to_string());
    let spirv = crate::back::spirv::write(&native).map_err(|u| u.0);
    let printed = Printed { wgsl, spirv, native_lowered };
    Compiled::describe(kernel, &k, &lowered, &selected, profile, printed)
}
