//! `tilecast info`: the device capability report as a table or JSON.

use std::fmt::Write as _;

use tilecast_runtime::{Capabilities, Device, DeviceOptions, list_adapters};

/// Runs `tilecast info`.
pub fn run(json: bool, list: bool) -> Result<(), Box<dyn std::error::Error>> {
    if list {
        let adapters = list_adapters(&DeviceOptions::from_env()?);
        if json {
            crate::out::line(serde_json::to_string_pretty(&adapters)?)?;
        } else {
            for a in adapters {
                crate::out::line(a)?;
            }
        }
        return Ok(());
    }
    let device = Device::new()?;
    let caps = device.capabilities();
    if json {
        crate::out::line(serde_json::to_string_pretty(caps)?)?;
    } else {
        crate::out::text(table(caps))?;
    }
    Ok(())
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn mib(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB ({bytes} bytes)", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// Renders the report as an aligned two-column table.
pub fn table(c: &Capabilities) -> String {
    let f = &c.features;
    let l = &c.limits;
    let matrices = if c.matrix_configs.is_empty() {
        "none (SIMT fallback)".to_string()
    } else {
        c.matrix_configs
            .iter()
            .map(|m| {
                let sat = if m.saturating { ", saturating" } else { "" };
                format!("{}x{}x{} {}->{}{sat}", m.m, m.n, m.k, m.input, m.accumulator)
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    // Every configuration the Vulkan driver offers, grouped by scope and types.
    let driver = if c.driver_matrix_configs.is_empty() {
        "none".to_string()
    } else {
        c.driver_matrix_configs
            .iter()
            .map(|m| {
                let sat = if m.saturating { ", saturating" } else { "" };
                let ab = if m.a == m.b { m.a.clone() } else { format!("{} x {}", m.a, m.b) };
                let cr =
                    if m.c == m.result { m.c.clone() } else { format!("{}/{}", m.c, m.result) };
                match m.flexible_threads.filter(|_| m.scope == "workgroup") {
                    Some(t) => format!(
                        "multiples of {}x{}x{} {ab}->{cr}, {} scope of {t} threads{sat}",
                        m.m, m.n, m.k, m.scope
                    ),
                    None if m.flexible_threads.is_some() => format!(
                        "multiples of {}x{}x{} {ab}->{cr}, {} scope{sat}",
                        m.m, m.n, m.k, m.scope
                    ),
                    None => format!("{}x{}x{} {ab}->{cr}, {} scope{sat}", m.m, m.n, m.k, m.scope),
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    // Marked where the device was opened with it beyond wgpu's own extensions.
    let extensions = if c.matrix_extensions.is_empty() {
        "none".to_string()
    } else {
        c.matrix_extensions
            .iter()
            .map(|e| {
                let on = c.enabled_matrix_extensions.contains(e);
                if on { format!("{e} (enabled for SPIR-V kernels)") } else { e.clone() }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let modes = c.storage_modes.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ");
    let rows: Vec<(&str, String)> = vec![
        ("device", c.name.clone()),
        ("backend", c.backend.to_string()),
        ("device type", c.device_type.to_string()),
        ("driver", c.driver.clone()),
        ("vendor / device id", format!("{:#06x} / {:#06x}", c.vendor_id, c.device_id)),
        ("unified memory", yes_no(c.unified_memory).to_string()),
        ("subgroup size", format!("{}..{}", c.subgroup_min_size, c.subgroup_max_size)),
        ("shader f16", yes_no(f.shader_f16).to_string()),
        ("subgroups", yes_no(f.subgroups).to_string()),
        ("cooperative matrix", yes_no(f.cooperative_matrix).to_string()),
        ("subgroup roles (SPIR-V)", yes_no(f.subgroup_roles).to_string()),
        ("native SPIR-V modules", yes_no(f.native_spirv).to_string()),
        ("matrix configs (MxNxK)", matrices),
        ("driver matrix configs", driver),
        ("driver matrix extensions", extensions),
        ("timestamps", yes_no(f.timestamps).to_string()),
        ("pipeline cache", yes_no(f.pipeline_cache).to_string()),
        ("mappable primary buffers", yes_no(f.mappable_primary_buffers).to_string()),
        ("threads / threadgroup", l.max_threads_per_threadgroup.to_string()),
        (
            "threadgroup size (x,y,z)",
            format!(
                "{} x {} x {}",
                l.max_threadgroup_size[0], l.max_threadgroup_size[1], l.max_threadgroup_size[2]
            ),
        ),
        ("threadgroups / dimension", l.max_threadgroups_per_dimension.to_string()),
        ("shared memory / threadgroup", mib(l.max_shared_memory_bytes as u64)),
        ("max buffer size", mib(l.max_buffer_size)),
        ("max storage binding", mib(l.max_storage_binding_size)),
        ("storage buffers / kernel", l.max_storage_buffers_per_kernel.to_string()),
        ("storage offset alignment", format!("{} bytes", l.min_storage_offset_alignment)),
        ("storage modes", modes),
        ("default storage mode", c.default_storage_mode.to_string()),
    ];
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (k, v) in rows {
        for (i, line) in v.lines().enumerate() {
            let key = if i == 0 { k } else { "" };
            let _ = writeln!(out, "{key:<width$}  {line}");
        }
    }
    out
}
