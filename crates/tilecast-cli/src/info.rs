//! `tilecast info`: the device capability report as a table or JSON.

use std::fmt::Write as _;

use tilecast_runtime::{Capabilities, Device, DeviceOptions, DriverMatrixConfig, list_adapters};

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

/// One line per item, or `none` when there is none.
fn lines<T>(items: &[T], none: &str, line: impl Fn(&T) -> String) -> String {
    if items.is_empty() {
        none.to_string()
    } else {
        items.iter().map(line).collect::<Vec<_>>().join("\n")
    }
}

/// One driver matrix configuration: `16x16x16 f16->f32, subgroup scope`, or its flexible
/// granularity (`multiples of 32x32x16 ...`, with the threads a workgroup-scope one needs).
fn driver_config(m: &DriverMatrixConfig) -> String {
    let sat = if m.saturating { ", saturating" } else { "" };
    let ab = if m.a == m.b { m.a.clone() } else { format!("{} x {}", m.a, m.b) };
    let cr = if m.c == m.result { m.c.clone() } else { format!("{}/{}", m.c, m.result) };
    let dims = format!("{}x{}x{}", m.m, m.n, m.k);
    let dims = if m.flexible_threads.is_some() { format!("multiples of {dims}") } else { dims };
    let threads = match m.flexible_threads.filter(|_| m.scope == "workgroup") {
        Some(t) => format!(" of {t} threads"),
        None => String::new(),
    };
    format!("{dims} {ab}->{cr}, {} scope{threads}{sat}", m.scope)
}

/// Renders the report as an aligned two-column table.
pub fn table(c: &Capabilities) -> String {
    let f = &c.features;
    let l = &c.limits;
    let matrices = lines(&c.matrix_configs, "none (SIMT fallback)", |m| {
        let sat = if m.saturating { ", saturating" } else { "" };
        format!("{}x{}x{} {}->{}{sat}", m.m, m.n, m.k, m.input, m.accumulator)
    });
    // Every configuration the Vulkan driver offers, grouped by scope and types.
    let driver = lines(&c.driver_matrix_configs, "none", driver_config);
    // Marked where the device was opened with it beyond wgpu's own extensions.
    let extensions = lines(&c.matrix_extensions, "none", |e| {
        let on = c.enabled_matrix_extensions.contains(e);
        if on { format!("{e} (enabled for SPIR-V kernels)") } else { e.clone() }
    });
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

#[cfg(test)]
mod tests {
    use super::*;

    fn config(scope: &str, a: &str, b: &str, flexible_threads: Option<u32>) -> DriverMatrixConfig {
        DriverMatrixConfig {
            m: 16,
            n: 8,
            k: 16,
            a: a.into(),
            b: b.into(),
            c: "f32".into(),
            result: "f32".into(),
            scope: scope.into(),
            saturating: false,
            flexible_threads,
        }
    }

    #[test]
    fn driver_configs_name_their_granularity_scope_and_threads() {
        assert_eq!(
            driver_config(&config("subgroup", "f16", "f16", None)),
            "16x8x16 f16->f32, subgroup scope"
        );
        assert_eq!(
            driver_config(&config("subgroup", "e4m3", "e5m2", Some(0))),
            "multiples of 16x8x16 e4m3 x e5m2->f32, subgroup scope"
        );
        assert_eq!(
            driver_config(&config("workgroup", "bf16", "bf16", Some(256))),
            "multiples of 16x8x16 bf16->f32, workgroup scope of 256 threads"
        );
        let mut int = config("subgroup", "i8", "i8", None);
        (int.c, int.result, int.saturating) = ("i32".into(), "i8".into(), true);
        assert_eq!(driver_config(&int), "16x8x16 i8->i32/i8, subgroup scope, saturating");
    }
}
