//! Shader library and kernel functions: compile errors with positions, module and pipeline
//! caching, argument binding and dispatch validation, bind-group reuse, and the pipeline cache
//! persisted across two processes.

mod common;

use common::{AXPY_WGSL, device};
use tilecast_runtime::{
    BindingKind, DType, DiskCacheStatus, Error, Scalar, ScalarType, ShaderLibrary, StorageMode,
    Stream, StreamConfig, SyncType,
};

fn lib() -> ShaderLibrary {
    ShaderLibrary::with_cache_dir(device(), None)
}

#[test]
fn compile_errors_carry_line_and_column() {
    let src = "@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n\n@compute @workgroup_size(64)\nfn main() {\n    y[0] = 1.0 +;\n}\n";
    let e = refusal(lib().load("broken", src), "parse error");
    match &e {
        Error::ShaderCompile { label, line, column, source_line, .. } => {
            assert_eq!((label.as_str(), *line), ("broken", Some(5)));
            assert!(column.unwrap() > 1);
            assert_eq!(source_line.as_deref().map(str::trim), Some("y[0] = 1.0 +;"));
        }
        other => panic!("expected ShaderCompile, got {other}"),
    }
    assert!(e.to_string().contains("line 5"), "{e}");

    // A type error found by validation, not parsing.
    let src = "@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n@compute @workgroup_size(1)\nfn main() {\n    let a: u32 = 1u;\n    y[0] = a + 1.0;\n}\n";
    match lib().load("typed", src) {
        Err(Error::ShaderCompile { line, .. }) => assert!(line >= Some(4), "line {line:?}"),
        Err(other) => panic!("expected ShaderCompile, got {other}"),
        Ok(_) => panic!("u32 + f32 must not compile"),
    }
}

#[test]
fn library_types_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ShaderLibrary>();
    send_sync::<tilecast_runtime::ShaderModule>();
    send_sync::<tilecast_runtime::KernelFunction>();
    send_sync::<tilecast_runtime::BufferPool>();
    send_sync::<tilecast_runtime::ResidencySet>();
    let l = lib();
    std::thread::scope(|s| {
        for _ in 0..3 {
            let l = l.clone();
            s.spawn(move || l.load("axpy", AXPY_WGSL).unwrap().kernel("inc").unwrap());
        }
    });
    let st = l.stats();
    assert_eq!(st.modules_compiled + st.module_hits, 3);
    assert_eq!(st.pipelines_created + st.pipeline_hits, 3);
}

#[test]
fn modules_and_pipelines_are_compiled_once() {
    let l = lib();
    let m1 = l.load("axpy", AXPY_WGSL).unwrap();
    let _m2 = l.load("axpy again", AXPY_WGSL).unwrap();
    let s = l.stats();
    assert_eq!((s.modules_compiled, s.module_hits), (1, 1));
    assert_eq!(m1.entry_points(), vec!["axpy".to_string(), "inc".to_string()]);
    let _k1 = m1.kernel("axpy").unwrap();
    let _k2 = m1.kernel("axpy").unwrap();
    let _k3 = m1.kernel("inc").unwrap();
    let s = l.stats();
    assert_eq!((s.pipelines_created, s.pipeline_hits), (2, 1));
    assert_eq!(s.disk_cache, Some(DiskCacheStatus::Unsupported));
}

#[test]
fn override_constants_make_distinct_cached_pipelines() {
    let src = "override scale: f32 = 1.0;\n@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n@compute @workgroup_size(32)\nfn scale_all(@builtin(global_invocation_id) g: vec3<u32>) {\n    if (g.x < arrayLength(&y)) { y[g.x] = y[g.x] * scale; }\n}\n";
    let l = lib();
    let m = l.load("scale", src).unwrap();
    let y = device().buffer_from_slice_in(StorageMode::Private, &[1.0f32; 40], &[40]).unwrap();
    let mut s = Stream::new(device());
    for c in [2.0, 3.0, 2.0] {
        let mut k = m.kernel_with_constants("scale_all", &[("scale", c)]).unwrap();
        k.set_buffer(0, &y).unwrap();
        k.dispatch_threads(&mut s, [40, 1, 1]).unwrap();
    }
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert_eq!(y.download::<f32>().unwrap(), vec![12.0; 40]);
    assert_eq!((l.stats().pipelines_created, l.stats().pipeline_hits), (2, 1));
    let e = m.kernel_with_constants("scale_all", &[("sclae", 1.0)]).unwrap_err();
    assert!(e.to_string().contains("\"sclae\"") && e.to_string().contains("scale"), "{e}");
}

#[test]
fn kernels_reflect_their_arguments_and_reject_bad_ones() {
    let m = lib().load("axpy", AXPY_WGSL).unwrap();
    let e = m.kernel("axpyy").unwrap_err();
    assert!(e.to_string().contains("[\"axpy\", \"inc\"]"), "{e}");
    let mut k = m.kernel("axpy").unwrap();
    assert_eq!(k.threadgroup_size(), [64, 1, 1]);
    let kinds: Vec<_> = k.bindings().iter().map(|b| (b.binding, b.name.as_str(), b.kind)).collect();
    assert_eq!(
        kinds,
        vec![(0, "x", BindingKind::StorageRead), (1, "y", BindingKind::StorageReadWrite)]
    );
    let tys: Vec<_> = k.scalars().iter().map(|s| (s.name.as_str(), s.offset, s.ty)).collect();
    assert_eq!(tys, vec![("n", 0, ScalarType::U32), ("add", 4, ScalarType::F32)]);

    let y = device().alloc_in(StorageMode::Private, DType::F32, &[100]).unwrap();
    let e = k.set_buffer(2, &y).unwrap_err();
    assert!(e.to_string().contains("no buffer at binding 2"), "{e}");
    let align = device().capabilities().limits.min_storage_offset_alignment;
    let e = k.set_buffer(0, &y.slice_view(4, 10).unwrap()).unwrap_err();
    assert!(e.to_string().contains(&format!("multiples of {align} bytes")), "{e}");
    assert!(k.set_buffer(0, &y.slice_view(align as u64, 10).unwrap()).is_ok());
    let e = k.set_scalar(0, 1.5f32).unwrap_err();
    assert!(e.to_string().contains("scalar 0 (n) is U32"), "{e}");
    assert!(k.set_scalar(2, 1u32).unwrap_err().to_string().contains("index 2 is out of range"));

    let mut s = Stream::new(device());
    let e = k.dispatch_threads(&mut s, [100, 1, 1]).unwrap_err();
    assert!(e.to_string().contains("binding 1 (y) is not set"), "{e}");
    k.set_buffer(1, &y).unwrap();
    let e = k.dispatch_threads(&mut s, [100, 1, 1]).unwrap_err();
    assert!(e.to_string().contains("scalar 0 (n) is not set"), "{e}");
    k.set_scalar(0, 100u32).unwrap().set_scalar(1, 1.0f32).unwrap();
    let max = device().capabilities().limits.max_threadgroups_per_dimension;
    let e = k.dispatch_threadgroups(&mut s, [max + 1, 1, 1]).unwrap_err();
    assert!(e.to_string().contains(&format!("at most {max} per dimension")), "{e}");
    k.dispatch_threadgroups(&mut s, [0, 1, 1]).unwrap();
    assert_eq!(s.counters().dispatches, 0, "an empty grid encodes nothing");
    s.synchronize(SyncType::CommitAndWait).unwrap();
}

#[test]
fn shared_memory_and_threadgroup_limits_name_the_culprit() {
    let limit = device().capabilities().limits.max_shared_memory_bytes;
    let words = limit / 4 + 1;
    let src = format!(
        "var<workgroup> tile_a: array<f32, {words}>;\n@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n@compute @workgroup_size(64)\nfn big(@builtin(local_invocation_index) i: u32) {{\n    tile_a[i] = 1.0;\n    workgroupBarrier();\n    y[i] = tile_a[63u - i];\n}}\n"
    );
    let e = lib().load("big", &src).unwrap().kernel("big").unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("tile_a")
            && m.contains(&(words * 4).to_string())
            && m.contains(&limit.to_string()),
        "{m}"
    );

    let max = device().capabilities().limits.max_threads_per_threadgroup;
    let src = format!(
        "@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n@compute @workgroup_size({})\nfn wide(@builtin(local_invocation_index) i: u32) {{ y[i] = 1.0; }}\n",
        max * 2
    );
    let e = lib().load("wide", &src).unwrap().kernel("wide").unwrap_err();
    assert!(e.to_string().contains(&format!("allows {max} threads")), "{e}");
}

#[test]
fn repeated_launches_reuse_bind_groups() {
    let m = lib().load("axpy", AXPY_WGSL).unwrap();
    let x = device().buffer_from_slice_in(StorageMode::Private, &[1.0f32; 1001], &[1001]).unwrap();
    let y = device().alloc_in(StorageMode::Private, DType::F32, &[1001]).unwrap();
    let y2 = device().alloc_in(StorageMode::Private, DType::F32, &[1001]).unwrap();
    let mut k = m.kernel("axpy").unwrap();
    k.set_buffer(0, &x).unwrap().set_buffer(1, &y).unwrap();
    k.set_scalar(0, 1001u32).unwrap().set_scalar(1, 0.5f32).unwrap();
    let mut s = Stream::with_config(device(), StreamConfig { max_ops: 10, max_bytes: u64::MAX });
    k.dispatch_threads(&mut s, [1001, 1, 1]).unwrap();
    let created = k.bind_groups_created();
    for _ in 0..24 {
        k.dispatch_threads(&mut s, [1001, 1, 1]).unwrap();
    }
    assert_eq!(k.bind_groups_created(), created, "same buffers: no new bind group");
    k.set_buffer(1, &y2).unwrap();
    k.dispatch_threads(&mut s, [1001, 1, 1]).unwrap();
    assert_eq!(k.bind_groups_created(), created + 1);
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert_eq!(y.download::<f32>().unwrap(), vec![25.0 * 1.5; 1001]);
    assert_eq!(y2.download::<f32>().unwrap(), vec![1.5; 1001]);
}

#[test]
fn launches_given_their_arguments_check_them_and_bind_nothing() {
    let m = lib().load("axpy", AXPY_WGSL).unwrap();
    let x = device().buffer_from_slice_in(StorageMode::Private, &[1.0f32; 1001], &[1001]).unwrap();
    let y = device().alloc_in(StorageMode::Private, DType::F32, &[1001]).unwrap();
    let y2 = device().alloc_in(StorageMode::Private, DType::F32, &[1001]).unwrap();
    let k = m.kernel("axpy").unwrap();
    let scalars = [Scalar::U32(1001), Scalar::F32(0.5)];
    let groups = [1001u32.div_ceil(64), 1, 1];
    let mut s = Stream::new(device());
    for out in [&y, &y2, &y, &y2, &y] {
        k.dispatch_threadgroups_with(&mut s, &[&x, out], &scalars, groups).unwrap();
    }
    assert_eq!(k.bind_groups_created(), 2, "one bind group per set of buffers");
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert_eq!(y.download::<f32>().unwrap(), vec![3.0 * 1.5; 1001]);
    assert_eq!(y2.download::<f32>().unwrap(), vec![2.0 * 1.5; 1001]);

    let e = k.dispatch_threadgroups_with(&mut s, &[&x], &scalars, groups).unwrap_err();
    assert!(e.to_string().contains("takes 2 buffers and 2 scalars; got 1 and 2"), "{e}");
    let e = k.dispatch_threadgroups_with(&mut s, &[&x, &y], &scalars[..1], groups).unwrap_err();
    assert!(e.to_string().contains("got 2 and 1"), "{e}");
    let bad = [Scalar::F32(1.0), Scalar::F32(0.5)];
    let e = k.dispatch_threadgroups_with(&mut s, &[&x, &y], &bad, groups).unwrap_err();
    assert!(e.to_string().contains("scalar 0 (n) is U32"), "{e}");
    let e = k
        .dispatch_threadgroups_with(&mut s, &[&y.slice_view(4, 10).unwrap(), &y2], &scalars, groups)
        .unwrap_err();
    assert!(e.to_string().contains("multiples of"), "{e}");
    let align = device().capabilities().limits.min_storage_offset_alignment as usize;
    let (a, b) = (y.slice_view(0, 10).unwrap(), y.slice_view(align as u64, 10).unwrap());
    let e = k.dispatch_threadgroups_with(&mut s, &[&a, &b], &scalars, groups).unwrap_err();
    assert!(e.to_string().contains("view one allocation"), "{e}");
    // Nothing given per launch stays bound.
    let e = k.dispatch_threads(&mut s, [1001, 1, 1]).unwrap_err();
    assert!(e.to_string().contains("binding 0 (x) is not set"), "{e}");
    assert_eq!(s.counters().dispatches, 5);
    s.synchronize(SyncType::CommitAndWait).unwrap();
}

#[test]
fn trusted_modules_run() {
    // SAFETY: `inc` guards every access with `g.x < n`, and n is the buffer's length.
    let m = unsafe { lib().load_trusted("axpy trusted", AXPY_WGSL) }.unwrap();
    let y = device().alloc_in(StorageMode::Private, DType::F32, &[70]).unwrap();
    let mut k = m.kernel("inc").unwrap();
    k.set_buffer(1, &y).unwrap().set_scalar(0, 70u32).unwrap().set_scalar(1, 2.0f32).unwrap();
    let mut s = Stream::new(device());
    k.dispatch_threads(&mut s, [70, 1, 1]).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert_eq!(y.download::<f32>().unwrap(), vec![2.0; 70]);
}

/// Subgroups take roles: subgroup 0 scales by `args.a`, the others by `args.b`, and each
/// invocation records its subgroup and the subgroup size.
const ROLES_WGSL: &str = r#"
struct Args { n: u32, a: f32, b: f32 }
var<immediate> args: Args;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read_write> who: array<u32>;
@compute @workgroup_size(64)
fn roles(@builtin(global_invocation_id) g: vec3<u32>, @builtin(local_invocation_index) t: u32,
         @builtin(subgroup_id) sg: u32, @builtin(subgroup_size) size: u32) {
    if (g.x >= args.n) { return; }
    if (sg == 0u) { y[g.x] = x[g.x] * args.a; } else { y[g.x] = x[g.x] * args.b; }
    who[2u * g.x] = sg;
    who[2u * g.x + 1u] = size;
}
"#;

/// Whether the device takes SPIR-V as it is; says that the test is skipped where it does not.
fn has_passthrough() -> bool {
    let has = device().capabilities().features.subgroup_roles;
    if !has {
        eprintln!("skipped: {:?} has no SPIR-V passthrough", device().name());
    }
    has
}

#[test]
fn modules_with_subgroup_roles_run_through_spirv_passthrough() {
    if !has_passthrough() {
        return;
    }
    // SAFETY: every access is guarded by `g.x < n` with n the buffers' length; no cooperative
    // matrices, so subgroup uniformity holds trivially.
    let m = unsafe { lib().load_subgroup_roles("roles", ROLES_WGSL) }.unwrap();
    let n = 203usize;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 - 50.0).collect();
    let x = device().buffer_from_slice_in(StorageMode::Private, &xs, &[n]).unwrap();
    let y = device().alloc_in(StorageMode::Private, DType::F32, &[n]).unwrap();
    let who = device().alloc_in(StorageMode::Private, DType::U32, &[2 * n]).unwrap();
    let mut k = m.kernel("roles").unwrap();
    k.set_buffer(0, &x).unwrap().set_buffer(1, &y).unwrap().set_buffer(2, &who).unwrap();
    k.set_scalar(0, n as u32)
        .unwrap()
        .set_scalar(1, 2.0f32)
        .unwrap()
        .set_scalar(2, -3.0f32)
        .unwrap();
    let mut s = Stream::new(device());
    k.dispatch_threads(&mut s, [n as u32, 1, 1]).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let (ys, who) = (y.download::<f32>().unwrap(), who.download::<u32>().unwrap());
    for i in 0..n {
        let (sg, size) = (who[2 * i], who[2 * i + 1]);
        assert!(
            size > 0 && sg == (i % 64) as u32 / size,
            "invocation {i}: subgroup {sg} of size {size}"
        );
        let want = xs[i] * if sg == 0 { 2.0 } else { -3.0 };
        assert_eq!(ys[i], want, "y[{i}] (subgroup {sg})");
    }
    // Such modules take no override constants (their SPIR-V is final): refused at load, even
    // with defaults, which naga's SPIR-V writer would otherwise ignore.
    let src = format!("override size: u32 = 64u;\n{ROLES_WGSL}");
    // SAFETY: refused before anything reaches the driver.
    let Err(e) = (unsafe { lib().load_subgroup_roles("roles with override", &src) }) else {
        panic!("a passthrough module with override constants was accepted")
    };
    assert!(e.to_string().contains("can take none") && e.to_string().contains("size"), "{e}");
}

/// Bindings with gaps: 0 is declared but read by nothing, 1 and 3 are used. wgpu's Vulkan
/// backend numbers a layout's bindings densely, so SPIR-V passed through must say the same.
const GAPS_WGSL: &str = r#"
struct Args { n: u32 }
var<immediate> args: Args;
@group(0) @binding(0) var<storage, read> unused: array<f32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn gaps(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < args.n) { y[g.x] = x[g.x] * 2.0 + 1.0; }
}
fn never_called() -> f32 { return unused[0]; }
"#;

/// Runs `gaps` from `m` on 150 values, binding each of `bindings` (x at 1, anything else to x
/// too); returns y.
fn run_gaps(m: &tilecast_runtime::ShaderModule, bindings: &[u32]) -> Vec<f32> {
    let n = 150usize;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 - 20.0).collect();
    let x = device().buffer_from_slice_in(StorageMode::Private, &xs, &[n]).unwrap();
    let y = device().alloc_in(StorageMode::Private, DType::F32, &[n]).unwrap();
    let mut k = m.kernel("gaps").unwrap();
    let listed: Vec<u32> = k.bindings().iter().map(|b| b.binding).collect();
    assert_eq!(listed, bindings);
    for &b in bindings {
        k.set_buffer(b, if b == 3 { &y } else { &x }).unwrap();
    }
    k.set_scalar(0, n as u32).unwrap();
    let mut s = Stream::new(device());
    k.dispatch_threads(&mut s, [n as u32, 1, 1]).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let want: Vec<f32> = xs.iter().map(|v| v * 2.0 + 1.0).collect();
    let got = y.download::<f32>().unwrap();
    assert_eq!(got, want);
    got
}

#[test]
fn passthrough_modules_with_gaps_in_their_bindings_read_the_right_buffers() {
    if !has_passthrough() {
        return;
    }
    // SAFETY: every access is guarded by `g.x < n`, n the buffers' length.
    let roles = unsafe { lib().load_subgroup_roles("gaps", GAPS_WGSL) }.unwrap();
    run_gaps(&roles, &[1, 3]);
    // naga's SPIR-V as it is declares all three; the native loader binds all it declares.
    // SAFETY: as above.
    let native = unsafe { lib().load_spirv("gaps native", &spirv_of(GAPS_WGSL)) }.unwrap();
    run_gaps(&native, &[0, 1, 3]);
}

/// Child half of the two-process test: compiles two pipelines through the persisted cache and
/// prints the library's counters. Does nothing unless the parent set the variable.
#[test]
fn pipeline_cache_child() {
    if std::env::var_os("TILECAST_TEST_CACHE_CHILD").is_none() {
        return;
    }
    let l = ShaderLibrary::new(device());
    let m = l.load("axpy", AXPY_WGSL).unwrap();
    m.kernel("axpy").unwrap();
    m.kernel("inc").unwrap();
    let path = l.save_cache().unwrap();
    let s = l.stats();
    println!(
        "CHILD status={:?} created={} disk_hits={} saved={}",
        s.disk_cache,
        s.pipelines_created,
        s.disk_cache_hits,
        path.is_some()
    );
}

fn run_child(dir: &std::path::Path) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "pipeline_cache_child", "--nocapture", "--test-threads=1"])
        .env("TILECAST_TEST_CACHE_CHILD", "1")
        .env("TILECAST_CACHE_DIR", dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let at = stdout.find("CHILD").unwrap_or_else(|| panic!("{stdout}"));
    let line = stdout[at..].lines().next().unwrap_or_default();
    format!("{line}\n{}", String::from_utf8_lossy(&out.stderr))
}

#[test]
fn pipeline_cache_hits_across_processes_and_bad_files_are_ignored() {
    if !device().capabilities().features.pipeline_cache {
        return; // only Vulkan has a backend pipeline cache in wgpu
    }
    let dir = std::env::temp_dir().join(format!("tilecast-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let first = run_child(&dir);
    assert!(first.contains("status=Some(Empty) created=2 disk_hits=0 saved=true"), "{first}");
    let second = run_child(&dir);
    assert!(second.contains("status=Some(Loaded") && second.contains("disk_hits=2"), "{second}");

    // Corrupt the file: the next process warns, ignores it, and rebuilds it.
    let file = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap().path();
    let mut bytes = std::fs::read(&file).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();
    let third = run_child(&dir);
    assert!(
        third.contains("Rejected(\"checksum mismatch") && third.contains("disk_hits=0"),
        "{third}"
    );
    assert!(third.contains("warning: ignoring pipeline cache"), "{third}");
    // A foreign file (wrong magic, valid checksum) is rejected too.
    let mut foreign = b"NOPE-not-a-cache".to_vec();
    let sum = xxhash_rust_sum(&foreign);
    foreign.extend_from_slice(&sum.to_le_bytes());
    std::fs::write(&file, &foreign).unwrap();
    let fourth = run_child(&dir);
    assert!(fourth.contains("Rejected(\"not a tilecast pipeline cache"), "{fourth}");
    let fifth = run_child(&dir);
    assert!(fifth.contains("disk_hits=2"), "the rebuilt file works again: {fifth}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn xxhash_rust_sum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// naga's SPIR-V for `src`, as a caller with its own SPIR-V writer would hand it over.
fn spirv_of(src: &str) -> Vec<u32> {
    common::spirv_with(src, naga::back::spv::WriterFlags::DEBUG)
}

#[test]
fn native_spirv_modules_run_with_the_same_argument_checks() {
    let l = lib();
    let words = spirv_of(AXPY_WGSL);
    if !device().capabilities().features.native_spirv {
        // SAFETY: refused before anything reaches the driver.
        let e = unsafe { l.load_spirv("axpy", &words) }.err().expect("no passthrough, no module");
        assert!(e.to_string().contains("passthrough"), "{e}");
        return;
    }
    // SAFETY: `axpy` guards every access with `g.x < n`, and n is the buffers' length.
    let m = unsafe { l.load_spirv("axpy native", &words) }.unwrap();
    assert_eq!(m.entry_points(), vec!["axpy".to_string(), "inc".to_string()]);
    let mut k = m.kernel("axpy").unwrap();
    let names: Vec<_> = k.bindings().iter().map(|b| (b.binding, b.kind)).collect();
    assert_eq!(names, vec![(0, BindingKind::StorageRead), (1, BindingKind::StorageReadWrite)]);
    assert_eq!(
        k.scalars().iter().map(|s| s.ty).collect::<Vec<_>>(),
        [ScalarType::U32, ScalarType::F32]
    );
    assert_eq!(k.threadgroup_size(), [64, 1, 1]);
    let n = 133usize;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let x = device().buffer_from_slice_in(StorageMode::Private, &xs, &[n]).unwrap();
    let y = device().buffer_from_slice_in(StorageMode::Private, &vec![1.0f32; n], &[n]).unwrap();
    k.set_buffer(0, &x).unwrap().set_buffer(1, &y).unwrap();
    k.set_scalar(0, n as u32).unwrap().set_scalar(1, 0.25f32).unwrap();
    let mut s = Stream::new(device());
    k.dispatch_threads(&mut s, [n as u32, 1, 1]).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let want: Vec<f32> = xs.iter().map(|v| 1.0 + v + 0.25).collect();
    assert_eq!(y.download::<f32>().unwrap(), want);

    // The same refusals, word for word, as the WGSL kernel's.
    let mut w = l.load("axpy wgsl", AXPY_WGSL).unwrap().kernel("axpy").unwrap();
    let e_native = refusal(k.set_scalar(1, 3u32), "u32 into an f32 slot");
    let e_wgsl = refusal(w.set_scalar(1, 3u32), "u32 into an f32 slot");
    assert_eq!(e_native.to_string(), e_wgsl.to_string());
    let e_native = refusal(k.set_buffer(7, &x), "no binding 7");
    let e_wgsl = refusal(w.set_buffer(7, &x), "no binding 7");
    assert_eq!(e_native.to_string(), e_wgsl.to_string());
    let e = refusal(m.kernel("nope"), "no such entry");
    assert!(e.to_string().contains("[\"axpy\", \"inc\"]"), "{e}");
    let e = refusal(m.kernel_with_constants("axpy", &[("size", 1.0)]), "no overrides");
    assert!(e.to_string().contains("no override named"), "{e}");

    // Cached like WGSL modules: a second load of the same words is a hit.
    // SAFETY: as above.
    let again = unsafe { l.load_spirv("axpy native", &words) }.unwrap();
    again.kernel("axpy").unwrap();
    let st = l.stats();
    assert!(st.module_hits >= 1 && st.pipeline_hits >= 1, "{st:?}");
    // SAFETY: refused while reading the interface.
    let e = unsafe { l.load_spirv("junk", &[0x0723_0203, 1, 2]) }.err().expect("junk refused");
    assert!(e.to_string().contains("\"junk\""), "{e}");
}

/// The message of an expected refusal.
fn refusal<T>(r: Result<T, Error>, what: &str) -> Error {
    match r {
        Ok(_) => panic!("accepted: {what}"),
        Err(e) => e,
    }
}
