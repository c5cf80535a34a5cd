//! naga's parse and validation of printed WGSL: the compiler's own check of what it prints,
//! and the module the MSL and naga SPIR-V listings are written from.

use crate::{Error, Result};

/// Validates WGSL with naga, as the compiler's own check.
pub fn validate(name: &str, wgsl: &str) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    let bug = |message: String| Error::Codegen {
        kernel: name.to_string(),
        message,
        wgsl: wgsl.to_string(),
    };
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| bug(e.emit_to_string(wgsl)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| bug(e.emit_to_string(wgsl)))?;
    Ok((module, info))
}
