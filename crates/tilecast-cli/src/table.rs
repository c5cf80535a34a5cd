//! The rows `tilecast bench` reports: printed as a table, written as JSON, and read back from a
//! peer's JSON (the same format, written by `bench/peer_suite.py`) for the ratio column.

use crate::out::line;
use std::path::Path;

use tilecast_runtime::{Device, Roofline};

/// One benchmark case's result.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Row {
    /// Kernel name.
    pub kernel: String,
    /// Shape as written (`RxC`).
    pub shape: String,
    /// Input type.
    pub dtype: String,
    /// Median milliseconds per launch.
    pub median_ms: f64,
    /// GB/s (memory-bound kernels) or TFLOP/s.
    pub throughput: f64,
    /// `GB/s` or `TFLOP/s`.
    pub unit: String,
    /// Throughput over the device's measured roofline.
    pub roofline_fraction: Option<f64>,
    /// Largest error against the CPU reference.
    pub max_abs_error: f64,
    /// Largest error as a fraction of the tolerance there.
    pub worst_of_tolerance: f64,
    /// Elements compared.
    pub compared: usize,
    /// Whether the reference was sampled (large gemms).
    pub sampled: bool,
    /// Whether the check passed.
    pub ok: bool,
    /// `matrix units` or `SIMT`.
    pub lowering: String,
    /// What the kernel family decided (for the gemm family: path, tiles, threads, stages).
    pub strategy: String,
    /// `trusted` or `checked`.
    pub bounds_checks: String,
    /// The code the launches ran as: `wgsl`, `spirv` (the native back end), or both.
    pub code: String,
    /// Launches per timed batch.
    pub iters: u32,
    /// Timed batches.
    pub batches: u32,
    /// The clock that timed them: `gpu` (timestamps) or `wall` (the host's).
    pub clock: String,
    /// Milliseconds to compile and create the pipeline.
    pub pipeline_ms: f64,
    /// The peer's median for the same case, where `--compare` gave one.
    pub peer_ms: Option<f64>,
    /// Why the case could not run.
    pub error: Option<String>,
}

fn time_text(ms: f64) -> String {
    if ms >= 1.0 { format!("{ms:.3} ms") } else { format!("{:.1} us", ms * 1e3) }
}

/// Prints the table.
pub fn print_table(
    device: &Device,
    roof: &Roofline,
    measured: bool,
    rows: &[Row],
) -> std::io::Result<()> {
    line(format_args!("device    {}", device.name()))?;
    line(format_args!(
        "roofline  copy {:.0} GB/s (copy_buffer_to_buffer {:.0}, copy kernel {:.0}), SIMT f32 \
         {:.2} TFLOP/s{}{}",
        roof.copy_gbps,
        roof.builtin_copy_gbps,
        roof.kernel_copy_gbps,
        roof.simt_f32_tflops,
        roof.matrix_f16_tflops.map_or(String::new(), |m| format!(", matrix f16 {m:.1} TFLOP/s")),
        if measured { " (measured now)" } else { " (cached)" }
    ))?;
    let clocks: Vec<&str> =
        rows.iter().filter(|r| r.error.is_none()).map(|r| r.clock.as_str()).collect();
    let timing = match clocks.first() {
        Some(&"gpu") if clocks.iter().all(|c| *c == "gpu") => "GPU timestamps",
        Some(&"wall") if clocks.iter().all(|c| *c == "wall") => "wall clock",
        Some(_) => "GPU timestamps or wall clock (see the JSON rows' clock)",
        None => "none",
    };
    line(format_args!(
        "timing    {timing}, after the GPU's clocks settled; medians of the batches"
    ))?;
    let peer = rows.iter().any(|r| r.peer_ms.is_some());
    let mut header = format!(
        "{:<18} {:<18} {:<5} {:>11} {:>16} {:>6} {:>10} {:<6}",
        "kernel", "shape", "dtype", "median", "throughput", "roof", "max err", "check"
    );
    if peer {
        header.push_str(&format!(" {:>11} {:>7}", "peer", "speedup"));
    }
    line(&header)?;
    for r in rows {
        if let Some(e) = &r.error {
            line(format_args!("{:<18} {:<18} {:<5} error: {e}", r.kernel, r.shape, r.dtype))?;
            continue;
        }
        let mut row = format!(
            "{:<18} {:<18} {:<5} {:>11} {:>16} {:>6} {:>10.2e} {:<6}",
            r.kernel,
            r.shape,
            r.dtype,
            time_text(r.median_ms),
            format!("{:.3} {}", r.throughput, r.unit),
            r.roofline_fraction.map_or("-".into(), |f| format!("{:.0}%", f * 100.0)),
            r.max_abs_error,
            if r.ok { "ok" } else { "FAIL" },
        );
        if peer {
            match r.peer_ms {
                Some(p) => row.push_str(&format!(
                    " {:>11} {:>6.2}x",
                    time_text(p),
                    p / r.median_ms.max(f64::MIN_POSITIVE)
                )),
                None => row.push_str(&format!(" {:>11} {:>7}", "-", "-")),
            }
        }
        line(&row)?;
    }
    Ok(())
}

/// Writes `{device, roofline, rows}` to `path` (`-`: stdout).
pub fn write_json(
    path: &Path,
    device: &Device,
    roof: &Roofline,
    rows: &[Row],
) -> Result<(), Box<dyn std::error::Error>> {
    let doc = serde_json::json!({ "device": device.name(), "roofline": roof, "rows": rows });
    let text = serde_json::to_string_pretty(&doc)?;
    if path.as_os_str() == "-" {
        line(text)?;
    } else {
        std::fs::write(path, text + "\n")
            .map_err(|e| format!("cannot write --json {}: {e}", path.display()))?;
    }
    Ok(())
}

/// Rows of a peer's JSON: `{"rows": [...]}` or a bare array.
pub fn read_peer(path: &Path) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read --compare {}: {e}", path.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("--compare {} is not JSON: {e}", path.display()))?;
    let rows = match v.get("rows") {
        Some(r) => r.clone(),
        None => v,
    };
    Ok(serde_json::from_value(rows)
        .map_err(|e| format!("--compare {}: rows are not bench rows: {e}", path.display()))?)
}
