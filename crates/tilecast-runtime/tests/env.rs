//! Environment handling in its own process: TILECAST_STORAGE_MODE is read once per process, and
//! TILECAST_BACKEND / TILECAST_ADAPTER feed DeviceOptions. One test function, so no other thread
//! touches the environment while it changes.

use tilecast_runtime::{
    Backend, Device, DeviceOptions, Error, StorageMode, StreamConfig, default_storage_mode,
};

fn set(key: &str, value: Option<&str>) {
    // SAFETY: this test binary has a single test function, so no other thread reads or writes
    // the environment concurrently.
    unsafe {
        match value {
            Some(v) => std::env::set_var(key, v),
            None => std::env::remove_var(key),
        }
    }
}

#[test]
fn environment_is_honoured() {
    set("TILECAST_BACKEND", Some("Vulkan"));
    set("TILECAST_ADAPTER", Some("pipe"));
    assert_eq!(
        DeviceOptions::from_env().unwrap(),
        DeviceOptions { backend: Some(Backend::Vulkan), adapter: Some("pipe".into()) }
    );
    set("TILECAST_BACKEND", Some("opencl"));
    assert!(matches!(DeviceOptions::from_env(), Err(Error::UnknownBackend { .. })));
    assert!(matches!(Device::new(), Err(Error::UnknownBackend { .. })));
    set("TILECAST_BACKEND", None);
    set("TILECAST_ADAPTER", Some("definitely-not-an-adapter"));
    assert!(matches!(Device::new(), Err(Error::AdapterNotFound { .. })));
    set("TILECAST_ADAPTER", None);

    // Case-insensitive, read on first use, then fixed for the life of the process.
    set("TILECAST_STORAGE_MODE", Some("sHaReD"));
    assert_eq!(default_storage_mode(), StorageMode::Shared);
    set("TILECAST_STORAGE_MODE", Some("managed"));
    assert_eq!(default_storage_mode(), StorageMode::Shared);

    let device = Device::new().unwrap();
    assert_eq!(device.default_storage_mode(), StorageMode::Shared);
    assert_eq!(device.capabilities().default_storage_mode, StorageMode::Shared);
    if device.capabilities().features.mappable_primary_buffers {
        let b = device.alloc(tilecast_runtime::DType::F32, &[5]).unwrap();
        assert_eq!(b.storage_mode(), StorageMode::Shared);
    }

    // Stream thresholds: positive integers override the device default; anything else warns.
    set("TILECAST_MAX_OPS_PER_BUFFER", Some("17"));
    set("TILECAST_MAX_MB_PER_BUFFER", Some(" 3 "));
    assert_eq!(StreamConfig::from_env(&device), StreamConfig { max_ops: 17, max_bytes: 3 << 20 });
    set("TILECAST_MAX_OPS_PER_BUFFER", Some("0"));
    set("TILECAST_MAX_MB_PER_BUFFER", Some("lots"));
    assert_eq!(StreamConfig::from_env(&device), StreamConfig::device_default(&device));
    set("TILECAST_MAX_OPS_PER_BUFFER", None);
    set("TILECAST_MAX_MB_PER_BUFFER", None);
}
