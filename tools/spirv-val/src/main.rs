//! `tilecast-spirv-val [--env vulkan1.1|vulkan1.2|vulkan1.3] FILE.spv...`: validates each module
//! with SPIRV-Tools (the version the spirv-tools-sys crate carries, which knows cooperative
//! matrices, unlike Debian's 2023.1) under the Vulkan environment's rules. Prints `FILE: ok` or
//! `FILE: <the validator's message>` per file and exits non-zero when any module is invalid.

use std::ffi::CStr;

use spirv_tools_sys::diagnostics::{Diagnostic, diagnostic_destroy};
use spirv_tools_sys::shared::{Binary, SpirvResult, TargetEnv, context_create, context_destroy};
use spirv_tools_sys::val::validate;

/// SPIRV-Tools' validator for one target environment (its C API, compiled by build.rs).
struct Validator(*mut spirv_tools_sys::shared::ToolContext);

impl Validator {
    fn new(env: TargetEnv) -> Validator {
        // SAFETY: spvContextCreate takes any target environment and returns an owned context.
        Validator(unsafe { context_create(env) })
    }

    /// `Ok` or the validator's message for `words`.
    fn validate(&self, words: &[u32]) -> Result<(), String> {
        let binary = Binary { code: words.as_ptr(), size: words.len() };
        let mut diagnostic: *mut Diagnostic = std::ptr::null_mut();
        // SAFETY: the context is live, `binary` points at `words` for the call, and the
        // diagnostic, when one is made, is read then destroyed once below.
        unsafe {
            let result = validate(self.0, &binary, &mut diagnostic);
            if result == SpirvResult::Success {
                return Ok(());
            }
            let message = if diagnostic.is_null() || (*diagnostic).error.is_null() {
                format!("invalid ({result:?})")
            } else {
                CStr::from_ptr((*diagnostic).error).to_string_lossy().into_owned()
            };
            if !diagnostic.is_null() {
                diagnostic_destroy(diagnostic);
            }
            Err(message)
        }
    }
}

impl Drop for Validator {
    fn drop(&mut self) {
        // SAFETY: the context was made by `new` and is destroyed once.
        unsafe { context_destroy(self.0) }
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut env = TargetEnv::Vulkan_1_1;
    if args.first().map(String::as_str) == Some("--env") {
        env = match args.get(1).map(String::as_str) {
            Some("vulkan1.1") => TargetEnv::Vulkan_1_1,
            Some("vulkan1.2") => TargetEnv::Vulkan_1_2,
            Some("vulkan1.3") => TargetEnv::Vulkan_1_3,
            other => {
                eprintln!("--env takes vulkan1.1, vulkan1.2 or vulkan1.3; got {other:?}");
                std::process::exit(2);
            }
        };
        args.drain(..2);
    }
    if args.is_empty() {
        eprintln!("usage: tilecast-spirv-val [--env vulkan1.1|vulkan1.2|vulkan1.3] FILE.spv...");
        std::process::exit(2);
    }
    let validator = Validator::new(env);
    let mut invalid = 0;
    for path in &args {
        let bytes = match std::fs::read(path) {
            Ok(b) if b.len() % 4 == 0 && !b.is_empty() => b,
            Ok(b) => {
                println!("{path}: {} bytes is not a whole number of SPIR-V words", b.len());
                invalid += 1;
                continue;
            }
            Err(e) => {
                println!("{path}: cannot read: {e}");
                invalid += 1;
                continue;
            }
        };
        let words: Vec<u32> =
            bytes.chunks(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        match validator.validate(&words) {
            Ok(()) => println!("{path}: ok"),
            Err(e) => {
                println!("{path}: {}", e.replace('\n', " "));
                invalid += 1;
            }
        }
    }
    std::process::exit(if invalid > 0 { 1 } else { 0 });
}
