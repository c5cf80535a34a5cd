//! Compiles SPIRV-Tools' validator from the copy of SPIRV-Tools the spirv-tools-sys crate
//! carries: the `val` sources and the shared ones they call, not the optimizer (which the
//! crate's own build compiles too: 2 CPU minutes against 13 on CI's machine).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shared sources the validator calls (the crate's build lists the same).
const SHARED: [&str; 27] = [
    "util/bit_vector",
    "util/parse_number",
    "util/string_utils",
    "assembly_grammar",
    "binary",
    "diagnostic",
    "disassemble",
    "ext_inst",
    "extensions",
    "libspirv",
    "name_mapper",
    "opcode",
    "operand",
    "parsed_operand",
    "print",
    "software_version",
    "spirv_endian",
    "spirv_fuzzer_options",
    "spirv_optimizer_options",
    "spirv_reducer_options",
    "spirv_target_env",
    "spirv_validator_options",
    "table",
    "table2",
    "text",
    "text_handler",
    "to_string",
];

fn main() {
    let sys = sys_crate_dir();
    let tools = sys.join("spirv-tools");
    let source = tools.join("source");
    let mut build = cc::Build::new();
    build.cpp(true).opt_level(2).warnings(false);
    for inc in [tools.clone(), tools.join("include"), sys.join("generated")] {
        build.include(inc);
    }
    let headers = sys.join("spirv-headers/include");
    build.include(&headers).include(headers.join("spirv/unified1"));
    build.files(SHARED.iter().map(|f| source.join(format!("{f}.cpp"))));
    let val = std::fs::read_dir(source.join("val")).expect("SPIRV-Tools' source/val");
    let mut files: Vec<PathBuf> = val
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    files.sort();
    build.files(files);
    build.define("SPIRV_CHECK_CONTEXT", None).define("SPIRV_LINUX", None);
    for flag in ["-std=c++17", "-fno-exceptions", "-fno-rtti"] {
        build.flag_if_supported(flag);
    }
    build.compile("spirv-tools-val");
    println!("cargo:rerun-if-changed=build.rs");
}

/// The spirv-tools-sys package's directory, as `cargo metadata` reports it (offline: the
/// build already has it).
fn sys_crate_dir() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("Cargo.toml");
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--locked", "--manifest-path"])
        .arg(&manifest)
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let json = String::from_utf8(out.stdout).expect("UTF-8 metadata");
    // Each package's object names it first; its manifest path follows within the object.
    let at = json.find(r#"{"name":"spirv-tools-sys""#).expect("spirv-tools-sys in the metadata");
    let key = r#""manifest_path":""#;
    let start = at + json[at..].find(key).expect("a manifest path") + key.len();
    let end = start + json[start..].find('"').expect("a closing quote");
    Path::new(&json[start..end]).parent().expect("the package directory").to_path_buf()
}
