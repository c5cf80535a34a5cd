//! `tilecast bench`: registry kernels on the device, each checked against its CPU reference and
//! timed, reported against the device's own measured roofline (and a peer's timings).

use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use tilecast_kernels::gemm::GemmConfig;
use tilecast_kernels::gemm::tuning::{self, Tuning};
use tilecast_kernels::harness::{Prepared, median};
use tilecast_kernels::registry::{Bound, Entry, Problem};
use tilecast_kernels::{LoadAs, entries, lookup};
use tilecast_lang::{DType, Profile};
use tilecast_runtime::{CACHE_DIR_ENV, Device, Roofline, ShaderLibrary, Stream, default_cache_dir};

use tilecast_kernels::qlinear::WeightFormat;

use crate::table::{Row, print_table, read_peer, write_json};

/// Parses a dtype name as the CLI and the peer script write it.
pub fn parse_dtype(s: &str) -> Result<DType, String> {
    Ok(match s.to_ascii_lowercase().as_str() {
        "f32" => DType::F32,
        "f16" => DType::F16,
        "bf16" => DType::BF16,
        "e4m3" | "f8e4m3" | "fp8e4m3" => DType::F8E4M3,
        "e5m2" | "f8e5m2" | "fp8e5m2" => DType::F8E5M2,
        other => return Err(format!("unknown dtype {other:?}; use f32, f16, bf16, e4m3 or e5m2")),
    })
}

/// Parses `--dtype`: an element type, a quantized weight format (`q4_0`, `q8_0`, `q4_k`,
/// `mlx4`, `mlx8`), or both joined by a comma (`q4_0,bf16`: the format and the activations).
pub fn parse_types(s: &str) -> Result<(Option<DType>, Option<WeightFormat>), String> {
    let (mut dtype, mut format) = (None, None);
    for part in s.split(',').map(str::trim) {
        match WeightFormat::parse(part) {
            Some(f) if format.is_none() => format = Some(f),
            Some(_) => return Err(format!("--dtype {s:?} names two weight formats")),
            None if dtype.is_none() => {
                dtype = Some(parse_dtype(part).map_err(|e| {
                    format!("{e}, or a weight format: q4_0, q8_0, q4_k, mlx4, mlx8")
                })?)
            }
            None => return Err(format!("--dtype {s:?} names two element types")),
        }
    }
    Ok((dtype, format))
}

/// `shape` with `format` added as its option, unless it names one already.
pub fn with_format(shape: &str, format: Option<WeightFormat>) -> String {
    match format {
        Some(f) if !shape.split(',').skip(1).any(|o| WeightFormat::parse(o.trim()).is_some()) => {
            format!("{shape},{f}")
        }
        _ => shape.to_string(),
    }
}

/// What `tilecast bench` was asked for.
#[derive(clap::Args, Debug)]
pub struct Options {
    /// Only this kernel (see the list below).
    #[arg(long)]
    pub kernel: Option<String>,
    /// One case of this shape: the kernel's dimensions joined by `x` (see below), options
    /// after commas (`1x32x4096x128,kv=8`) or as the flags below.
    #[arg(long, requires = "kernel", allow_hyphen_values = true)]
    pub shape: Option<String>,
    #[command(flatten)]
    pub shape_options: crate::ShapeOptions,
    /// Input type: f32, f16, bf16, e4m3, e5m2 (default: the kernel's first); for quantized
    /// kernels a weight format, q4_0, q8_0, q4_k, mlx4 or mlx8, optionally with the
    /// activations' type (`q4_0,bf16`).
    #[arg(long)]
    pub dtype: Option<String>,
    /// The full suite's large shapes.
    #[arg(long)]
    pub full: bool,
    /// Gemm family: threadgroup tile BMxBNxBK (default: chosen for the device and shape).
    #[arg(long, allow_hyphen_values = true)]
    pub tile: Option<String>,
    /// Gemm family: threads per threadgroup.
    #[arg(long)]
    pub threads: Option<u32>,
    /// Gemm family: pipeline stages.
    #[arg(long)]
    pub stages: Option<u32>,
    /// Gemm family: time a grid of tiles for each case, report the fastest that passes its
    /// check, and record it (per device, kernel, type and shape class) in the cache
    /// directory's gemm-tuning.txt, which later runs use unless given tiles.
    #[arg(long, conflicts_with_all = ["tile", "threads", "stages"])]
    pub tune: bool,
    /// Timed batches (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub batches: u32,
    /// Launches per batch (default: enough for about 40 ms).
    #[arg(long)]
    pub iters: Option<u32>,
    /// Write the rows as JSON to FILE (`-`: stdout, instead of the table).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// A peer's JSON (bench/peer_suite.py): adds its time and the speedup column.
    #[arg(long, value_name = "FILE")]
    pub compare: Option<PathBuf>,
    /// Load kernels with naga's runtime bounds checks (default: trusted, since the
    /// compiler masks every access itself).
    #[arg(long)]
    pub checked: bool,
    /// Measure the device's roofline again instead of reading the cached one.
    #[arg(long)]
    pub remeasure: bool,
    /// Print the selected cases as JSON (kernel, shape, dtype, dims, args) and exit: what a
    /// peer script needs to time the same cases.
    #[arg(long)]
    pub list: bool,
}

/// The cases to run: one, or a suite.
fn cases(o: &Options) -> Result<Vec<(&'static Entry, Problem)>, Box<dyn std::error::Error>> {
    let (dtype, format) = o.dtype.as_deref().map(parse_types).transpose()?.unwrap_or_default();
    if let Some(shape) = o.shape_options.apply(o.shape.clone()) {
        let name = o.kernel.as_deref().ok_or("--shape needs --kernel")?;
        let e = lookup(name)?;
        let shape = with_format(&shape, format);
        return Ok(vec![(e, e.problem(&shape, dtype.unwrap_or(e.dtypes[0]))?)]);
    }
    let selected: Vec<&'static Entry> = match &o.kernel {
        Some(name) => vec![lookup(name)?],
        None => entries().iter().collect(),
    };
    let mut out = Vec::new();
    for e in selected {
        let quantized = e.option_names().contains(&"format");
        if format.is_some() && !quantized {
            if o.kernel.is_none() {
                continue;
            }
            return Err(format!(
                "{} takes no weight format (--dtype {})",
                e.name,
                o.dtype.as_deref().unwrap_or_default()
            )
            .into());
        }
        let d = match dtype {
            Some(d) if e.dtypes.contains(&d) => d,
            Some(_) if o.kernel.is_none() => continue,
            Some(d) => {
                return Err(e.problem_from_dims(vec![1; e.dims.len()], d).unwrap_err().into());
            }
            None => e.dtypes[0],
        };
        for shape in if o.full { e.full } else { e.quick } {
            let p = e.problem(shape, d)?;
            if format.is_none_or(|f| p.options.format == Some(f)) {
                out.push((e, p));
            }
        }
    }
    Ok(out)
}

fn gemm_override(o: &Options) -> Result<Option<GemmConfig>, String> {
    if o.tile.is_none() && o.threads.is_none() && o.stages.is_none() {
        return Ok(None);
    }
    let d = GemmConfig::default();
    let [bm, bn, bk] = match &o.tile {
        Some(t) => {
            let bad = || format!("--tile {t:?} is not BMxBNxBK with sizes of at least 1");
            let v: Vec<u32> = t
                .split(['x', 'X'])
                .map(|x| x.trim().parse().ok().filter(|&v: &u32| v > 0).ok_or_else(bad))
                .collect::<Result<_, _>>()?;
            <[u32; 3]>::try_from(v).map_err(|_| bad())?
        }
        None => [d.bm, d.bn, d.bk],
    };
    for (flag, v) in [("--threads", o.threads), ("--stages", o.stages)] {
        if v == Some(0) {
            return Err(format!("{flag} must be at least 1"));
        }
    }
    Ok(Some(GemmConfig {
        bm,
        bn,
        bk,
        threads: o.threads.unwrap_or(d.threads),
        stages: o.stages.unwrap_or(d.stages),
        ..d
    }))
}

/// What every case of one run shares.
struct Bench<'a> {
    device: &'a Device,
    library: &'a ShaderLibrary,
    roofline: &'a Roofline,
    o: &'a Options,
}

/// One case: prepare, time, check. The check comes last: the CPU reference can take seconds,
/// and a GPU left idle that long runs at low clocks for a while after.
fn run_case(b: &Bench, e: &'static Entry, p: &Problem) -> Result<Row, Box<dyn std::error::Error>> {
    let Bench { device, library, roofline, o } = *b;
    let prepared = Prepared::new(
        device,
        library,
        e,
        p,
        if o.checked { LoadAs::Checked } else { LoadAs::Auto },
    )?;
    let mut stream = Stream::new(device);
    // A first estimate of the launch time (on cold clocks it is high, so batches come out
    // shorter than the 40 ms aimed at, never longer), then settled timing, then the check.
    let t = Instant::now();
    prepared.launch(&mut stream)?;
    stream.synchronize(tilecast_runtime::SyncType::CommitAndWait)?;
    let first = t.elapsed().as_secs_f64();
    let iters = o.iters.unwrap_or_else(|| ((0.04 / first.max(1e-6)) as u32).clamp(1, 500));
    let times = prepared.time(&mut stream, iters, o.batches)?;
    let check = prepared.check()?;
    let med = median(&times.seconds);
    let (bytes, flops) = (e.bytes(p) as f64, e.flops(p));
    let (throughput, unit, roof) = match e.bound {
        Bound::Memory => (bytes / med / 1e9, "GB/s", Some(roofline.copy_gbps)),
        Bound::Compute => {
            let peak = match prepared.lowering() {
                "matrix units" => roofline.matrix_f16_tflops,
                _ => Some(roofline.simt_f32_tflops),
            };
            (flops / med / 1e12, "TFLOP/s", peak)
        }
    };
    Ok(Row {
        kernel: e.name.to_string(),
        shape: p.shape_text(),
        dtype: p.dtype.name().to_string(),
        median_ms: med * 1e3,
        throughput,
        unit: unit.to_string(),
        roofline_fraction: roof.map(|r| throughput / r),
        max_abs_error: check.max_abs_error,
        worst_of_tolerance: check.worst,
        compared: check.compared,
        sampled: check.sampled,
        ok: check.ok,
        lowering: prepared.lowering().to_string(),
        strategy: prepared.strategy().to_string(),
        bounds_checks: if o.checked { "checked" } else { "trusted" }.to_string(),
        code: prepared.code(),
        iters,
        batches: o.batches,
        clock: times.clock.name().to_string(),
        pipeline_ms: prepared.load_ms,
        peer_ms: None,
        error: None,
    })
}

/// Times each candidate tile for one gemm-family case; returns the fastest that passes its
/// check, its row, and how many candidates ran (those that fail to compile are skipped).
fn tune_case(
    b: &Bench,
    e: &'static Entry,
    p: &Problem,
    [m, n]: [usize; 2],
    profile: &Profile,
    bar: &ProgressBar,
) -> Option<(GemmConfig, Row, usize)> {
    let mut best: Option<(GemmConfig, Row)> = None;
    let mut tried = 0;
    let candidates = tuning::candidates(profile, p.dtype, DType::F32, m, n);
    for (i, c) in candidates.iter().enumerate() {
        bar.set_message(format!(
            "{} {} {}: tile {}x{}x{} {} threads {} stage(s) ({}/{})",
            e.name,
            p.shape_text(),
            p.dtype,
            c.bm,
            c.bn,
            c.bk,
            c.threads,
            c.stages,
            i + 1,
            candidates.len()
        ));
        let q = Problem { gemm: Some(*c), ..p.clone() };
        let Ok(row) = run_case(b, e, &q) else { continue };
        tried += 1;
        if row.ok && best.as_ref().is_none_or(|(_, b)| row.median_ms < b.median_ms) {
            best = Some((*c, row));
        }
    }
    best.map(|(c, r)| (c, r, tried))
}

/// Runs `tilecast bench`.
pub fn run(o: &Options) -> Result<(), Box<dyn std::error::Error>> {
    if o.batches == 0 || o.iters == Some(0) {
        return Err("--batches and --iters must be at least 1".into());
    }
    let mut cases = cases(o)?;
    if let Some(g) = gemm_override(o)? {
        for (e, p) in &mut cases {
            if e.bound == Bound::Compute {
                p.gemm = Some(g);
            }
        }
    }
    if o.list {
        let list: Vec<serde_json::Value> = cases
            .iter()
            .map(|(e, p)| {
                let args: Vec<serde_json::Value> = e
                    .args(p)
                    .iter()
                    .map(|a| {
                        serde_json::json!({
                            "name": a.name,
                            "dtype": a.dtype.name(),
                            "shape": a.shape,
                            "output": a.role == tilecast_kernels::registry::Role::Output,
                        })
                    })
                    .collect();
                serde_json::json!({
                    "kernel": e.name,
                    "shape": p.shape_text(),
                    "dtype": p.dtype.name(),
                    "dims": p.dims,
                    "args": args,
                    "scalars": e.scalars(p).into_iter().collect::<std::collections::BTreeMap<_, _>>(),
                    "bytes": e.bytes(p),
                    "flops": e.flops(p),
                })
            })
            .collect();
        crate::out::line(serde_json::to_string_pretty(&list)?)?;
        return Ok(());
    }
    let peer = o.compare.as_deref().map(read_peer).transpose()?;
    // A JSON file that cannot be written is found now, not after the whole benchmark ran.
    if let Some(path) = o.json.as_deref().filter(|p| p.as_os_str() != "-") {
        std::fs::File::create(path)
            .map_err(|e| format!("cannot write --json {}: {e}", path.display()))?;
    }
    let device = Device::new()?;
    let cache = default_cache_dir();
    let (roofline, measured) = Roofline::load_or_measure(&device, cache.as_deref(), o.remeasure)?;
    let library = ShaderLibrary::new(&device);
    let bar = ProgressBar::new(cases.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").expect("a valid template"),
    );
    let bench = Bench { device: &device, library: &library, roofline: &roofline, o };
    let mut tuning = Tuning::load(cache.as_deref())?;
    let device_name = device.capabilities().name.clone();
    let how = if o.checked { LoadAs::Checked } else { LoadAs::Auto };
    let profile = tilecast_kernels::plan_profile(&device, how);
    let mut rows = Vec::new();
    let mut tuned = Vec::new();
    for (e, p) in &mut cases {
        bar.set_message(format!("{} {} {}", e.name, p.shape_text(), p.dtype));
        let (shape, dtype) = (p.shape_text(), p.dtype.name().to_string());
        let fail = |err: Box<dyn std::error::Error>| Row {
            kernel: e.name.to_string(),
            shape: shape.clone(),
            dtype: dtype.clone(),
            error: Some(err.to_string()),
            ..Row::default()
        };
        // The gemm family without tiles given: a recorded choice, or (--tune) a search.
        if let (None, Some((key, [m, n, _]))) = (p.gemm, tuning::key_for(&device_name, e, p)) {
            if o.tune {
                let found = tune_case(&bench, e, p, [m, n], &profile, &bar);
                if let Some((cfg, row, tried)) = found {
                    tuning.set(&key, &cfg);
                    tuned.push(format!(
                        "{key}: {}x{}x{} {} threads {} stage(s), {:.1} us, fastest of {tried}",
                        cfg.bm,
                        cfg.bn,
                        cfg.bk,
                        cfg.threads,
                        cfg.stages,
                        row.median_ms * 1e3
                    ));
                    rows.push(row);
                } else {
                    rows.push(fail("no candidate tile compiled and passed its check".into()));
                }
                bar.inc(1);
                continue;
            }
            p.gemm = tuning.get(&key, p.dtype, DType::F32);
        }
        let row = run_case(&bench, e, p).unwrap_or_else(fail);
        rows.push(row);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let _ = library.save_cache();
    // The choices are reported even when they cannot be recorded; that error comes last, after
    // the table, so a long search is never lost.
    let recorded = if o.tune { tuning.save().map_err(|e| e.to_string()) } else { Ok(()) };
    if o.tune {
        for t in &tuned {
            eprintln!("tuned {t}");
        }
        match (&recorded, tuning.path()) {
            (Ok(()), Some(path)) => eprintln!("recorded in {}", path.display()),
            (Ok(()), None) => eprintln!("not recorded: no cache directory (set {CACHE_DIR_ENV})"),
            (Err(_), _) => {}
        }
    }
    if let Some(peer) = &peer {
        for r in &mut rows {
            r.peer_ms = peer
                .iter()
                .find(|q| q.kernel == r.kernel && q.shape == r.shape && q.dtype == r.dtype)
                .map(|q| q.median_ms);
        }
    }
    let to_stdout = o.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if !to_stdout {
        print_table(&device, &roofline, measured, &rows)?;
    }
    if let Some(path) = &o.json {
        write_json(path, &device, &roofline, &rows)?;
    }
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| !r.ok)
        .map(|r| match &r.error {
            Some(err) => format!("{} {} {}: {err}", r.kernel, r.shape, r.dtype),
            None => format!(
                "{} {} {}: max error {:e} is {:.3}x the tolerance",
                r.kernel, r.shape, r.dtype, r.max_abs_error, r.worst_of_tolerance
            ),
        })
        .collect();
    if !failed.is_empty() {
        return Err(format!("{} case(s) failed:\n  {}", failed.len(), failed.join("\n  ")).into());
    }
    recorded.map_err(|e| format!("the tuned choices were not recorded: {e}").into())
}
