//! Device choice and the capability report, on whatever adapter this machine has (lavapipe in CI).

mod common;

use tilecast_runtime::{Backend, Device, DeviceOptions, Error, StorageMode, list_adapters};

#[test]
fn capability_report_is_consistent() {
    let c = common::device().capabilities();
    assert!(!c.name.is_empty());
    assert!(["vulkan", "metal", "dx12", "gl"].contains(&c.backend));
    assert!(c.subgroup_min_size >= 1 && c.subgroup_min_size <= c.subgroup_max_size);
    assert!(c.limits.max_threads_per_threadgroup >= 64);
    assert!(c.limits.max_shared_memory_bytes >= 16 * 1024);
    assert!(c.limits.max_buffer_size >= c.limits.max_storage_binding_size.min(1 << 27));
    assert!(c.storage_modes.contains(&StorageMode::Private));
    assert!(c.storage_modes.contains(&StorageMode::Managed));
    assert_eq!(c.storage_modes.contains(&StorageMode::Shared), c.features.mappable_primary_buffers);
    // Matrix shapes are read from the adapter: present exactly when the feature is on.
    assert_eq!(c.features.cooperative_matrix, !c.matrix_configs.is_empty());
    for m in &c.matrix_configs {
        assert!(m.m > 0 && m.n > 0 && m.k > 0);
    }
    // The driver's own list (Vulkan) holds every shape wgpu reports, at subgroup scope, and
    // exists exactly where the driver has the extension.
    let has_ext = c.matrix_extensions.iter().any(|e| e == "VK_KHR_cooperative_matrix");
    if c.backend == "vulkan" {
        assert_eq!(has_ext, !c.driver_matrix_configs.is_empty(), "{c:?}");
        for m in &c.matrix_configs {
            assert!(
                c.driver_matrix_configs.iter().any(|d| (d.m, d.n, d.k) == (m.m, m.n, m.k)
                    && d.scope == "subgroup"
                    && d.a == m.input
                    && d.c == m.accumulator),
                "{m:?} not among the driver's {:?}",
                c.driver_matrix_configs
            );
        }
        // The device is opened with an extension only where the driver offers it.
        for e in &c.enabled_matrix_extensions {
            assert!(c.matrix_extensions.contains(e), "{e} enabled but not offered");
        }
    } else {
        assert!(c.driver_matrix_configs.is_empty() && c.matrix_extensions.is_empty());
        assert!(c.enabled_matrix_extensions.is_empty());
    }
}

#[test]
fn lavapipe_reports_what_it_has() {
    let c = common::device().capabilities();
    if !c.name.contains("llvmpipe") {
        return; // only meaningful on software Vulkan
    }
    assert_eq!(c.device_type, "cpu");
    assert!(c.unified_memory);
    assert!(c.features.shader_f16 && c.features.subgroups);
    assert!(!c.features.cooperative_matrix, "lavapipe has no cooperative matrices");
    assert!(c.driver_matrix_configs.is_empty(), "nor does its driver report any");
    assert!(c.enabled_matrix_extensions.is_empty(), "so its device opens as wgpu opens it");
    assert_eq!((c.subgroup_min_size, c.subgroup_max_size), (8, 8));
}

#[test]
fn adapter_substring_selects_and_unknown_lists_what_exists() {
    let name = common::device().name().to_string();
    let word = name.split_whitespace().next().unwrap().to_uppercase();
    let d = Device::with_options(&DeviceOptions { backend: None, adapter: Some(word) }).unwrap();
    assert_eq!(d.name(), name);

    let opts = DeviceOptions { backend: None, adapter: Some("no-such-gpu-7".into()) };
    match Device::with_options(&opts) {
        Err(e @ Error::AdapterNotFound { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("no-such-gpu-7"), "{msg}");
            assert!(msg.contains(&name), "error should list the adapters found: {msg}");
        }
        other => panic!("expected AdapterNotFound, got {other:?}"),
    }
    assert!(list_adapters(&DeviceOptions::default()).iter().any(|a| a.name == name));
}

#[test]
fn backend_names_parse_and_bad_names_are_errors() {
    assert_eq!(Backend::parse("Vulkan").unwrap(), Backend::Vulkan);
    assert_eq!(Backend::parse("METAL").unwrap(), Backend::Metal);
    assert_eq!(Backend::parse("dx12").unwrap(), Backend::Dx12);
    assert_eq!(Backend::parse("gl").unwrap(), Backend::Gl);
    let e = Backend::parse("cuda").unwrap_err();
    assert!(matches!(e, Error::UnknownBackend { .. }));
    assert!(e.to_string().contains("vulkan, metal, dx12, gl"), "{e}");
}

#[test]
fn a_backend_without_adapters_is_a_clear_error() {
    let c = common::device().capabilities();
    let other = if c.backend == "metal" { Backend::Dx12 } else { Backend::Metal };
    match Device::with_options(&DeviceOptions { backend: Some(other), adapter: None }) {
        Err(e @ Error::NoAdapter { .. }) => assert!(e.to_string().contains("mesa-vulkan-drivers")),
        Ok(d) => panic!("did not expect an adapter for {other:?}: {}", d.name()),
        Err(e) => panic!("expected NoAdapter, got {e}"),
    }
}
