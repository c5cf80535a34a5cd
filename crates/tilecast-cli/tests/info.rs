//! `tilecast info` end to end, as a user runs it.

use std::process::{Command, Output};

fn tilecast(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tilecast"));
    cmd.args(args);
    for var in ["TILECAST_BACKEND", "TILECAST_ADAPTER", "TILECAST_STORAGE_MODE"] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    cmd.output().expect("run tilecast")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn json_report_has_every_field() {
    let out = tilecast(&["info", "--json"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "backend",
        "name",
        "device_type",
        "unified_memory",
        "subgroup_min_size",
        "subgroup_max_size",
        "features",
        "matrix_configs",
        "limits",
        "storage_modes",
        "default_storage_mode",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {v}");
    }
    for key in [
        "max_threads_per_threadgroup",
        "max_shared_memory_bytes",
        "max_buffer_size",
        "max_storage_binding_size",
    ] {
        assert!(v["limits"][key].as_u64().unwrap() > 0, "{key}");
    }
    assert_eq!(v["default_storage_mode"], "private");
}

#[test]
fn table_names_the_device_and_its_limits() {
    let json = tilecast(&["info", "--json"], &[]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let out = tilecast(&["info"], &[]);
    assert!(out.status.success());
    let t = text(&out.stdout);
    assert!(t.contains(v["name"].as_str().unwrap()), "{t}");
    for row in [
        "backend",
        "unified memory",
        "matrix configs",
        "shared memory / threadgroup",
        "max buffer size",
    ] {
        assert!(t.lines().any(|l| l.starts_with(row)), "row {row} missing:\n{t}");
    }
    let list = tilecast(&["info", "--list"], &[]);
    assert!(text(&list.stdout).contains(v["name"].as_str().unwrap()));
}

#[test]
fn bad_environment_is_a_clear_error() {
    let out = tilecast(&["info"], &[("TILECAST_ADAPTER", "no-such-gpu")]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("no-such-gpu") && err.contains("adapters found"), "{err}");

    let out = tilecast(&["info"], &[("TILECAST_BACKEND", "cuda")]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("vulkan, metal, dx12, gl"));
}

#[test]
fn storage_mode_env_is_case_insensitive_and_unknown_values_warn_once() {
    let out = tilecast(&["info", "--json"], &[("TILECAST_STORAGE_MODE", "Managed")]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["default_storage_mode"], "managed");

    let out = tilecast(&["info", "--json"], &[("TILECAST_STORAGE_MODE", "turbo")]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["default_storage_mode"], "private");
    let err = text(&out.stderr);
    assert_eq!(err.matches("TILECAST_STORAGE_MODE=\"turbo\"").count(), 1, "{err}");
}
