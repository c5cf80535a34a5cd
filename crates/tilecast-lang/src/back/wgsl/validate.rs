//! naga's parse and validation of printed WGSL: the compiler's own check of what it prints,
//! and the module the MSL and naga SPIR-V listings are written from.

use crate::{Error, Result};

/// A naga module and the info its validation produced.
pub type Validated = (naga::Module, naga::valid::ModuleInfo);

/// Validates WGSL with naga, as the compiler's own check.
pub fn validate(name: &str, wgsl: &str) -> Result<Validated> {
    check(wgsl).map_err(|message| codegen_error(name, wgsl, message))
}

/// naga's module of `wgsl`, or its message.
pub(crate) fn check(wgsl: &str) -> std::result::Result<Validated, String> {
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| e.emit_to_string(wgsl))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| e.emit_to_string(wgsl))?;
    Ok((module, info))
}

/// The error of WGSL `wgsl` that naga refused with `message`: a compiler bug.
pub(crate) fn codegen_error(name: &str, wgsl: &str, message: String) -> Error {
    Error::Codegen { kernel: name.to_string(), message, wgsl: wgsl.to_string() }
}
