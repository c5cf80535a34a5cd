//! Host cost per dispatch: 10,000 small dispatches of one kernel through a `Stream` versus plain
//! wgpu with one submit per dispatch, in the same run.
//!
//! A third peer, every dispatch in one hand-written pass, shows wgpu's own floor; where the
//! device has native SPIR-V, a fourth runs the stream with direct recording
//! ([`Recording::Direct`]) over the same kernel as naga's SPIR-V (every dispatch depends on the
//! one before, so each takes a barrier), and a fifth replays the 10,000 dispatches captured once
//! into a [`Graph`](tilecast_runtime::Graph).
//!
//! Three clocks per sample: host CPU time (CPU time of the submitting thread, from the first
//! dispatch through the final wait: what the runtime costs the host), host wall time (until
//! the last submit returns) and end-to-end wall time (until the GPU finished). Criterion times
//! host CPU. On lavapipe the "GPU" is this CPU and a submit blocks while earlier work runs, so
//! wall times there measure lavapipe's execution, not the runtime; CPU time does not.
//!
//! Run: `cargo bench -p tilecast-runtime --bench dispatch`. After criterion's report it prints
//! the medians, the ratio and the command buffers the stream submitted, and exits non-zero if
//! the stream is less than 10x cheaper or submitted more than ceil(10000 / max_ops) buffers.

use std::sync::Mutex;
use std::time::{Duration, Instant};

#[path = "../tests/common/mod.rs"]
mod common;

use criterion::Criterion;
use tilecast_runtime::{
    DType, Device, KernelFunction, Recording, ShaderLibrary, StorageMode, Stream, SyncType,
};

const DISPATCHES: u32 = 10_000;
const N: u32 = 64;

const INC_WGSL: &str = r#"
var<immediate> n: u32;
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn inc(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < n) { y[g.x] = y[g.x] + 1.0; }
}
"#;

/// Reads one clock of a sample.
type Clock = fn(&Sample) -> Duration;

#[derive(Clone, Copy)]
struct Sample {
    cpu: Duration,
    host_wall: Duration,
    end_to_end: Duration,
}

/// Runs `run` `iters` times, keeping every sample; criterion times the host CPU clock.
fn timed(iters: u64, samples: &Mutex<Vec<Sample>>, run: impl Fn() -> Sample) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let sample = run();
        total += sample.cpu;
        samples.lock().unwrap().push(sample);
    }
    total
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Plain wgpu: pipeline and bind group made once, then encoder + pass + submit per dispatch.
struct Plain {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
}

impl Plain {
    fn new(d: &Device, y: &tilecast_runtime::Buffer) -> Plain {
        let device = d.wgpu_device().clone();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("inc"),
            source: wgpu::ShaderSource::Wgsl(INC_WGSL.into()),
        });
        let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 4,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("inc"),
            layout: Some(&layout),
            module: &module,
            entry_point: Some("inc"),
            compilation_options: Default::default(),
            cache: None,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &bgl,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: y.wgpu_buffer().as_entire_binding(),
            }],
        });
        Plain { device, queue: d.wgpu_queue().clone(), pipeline, bind_group }
    }

    /// Hand-written best case: every dispatch in one pass of one command buffer.
    fn run_one_pass(&self) -> Sample {
        let (t, cpu) = (Instant::now(), cpu_time::ThreadTime::now());
        let mut enc = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_immediates(0, &N.to_le_bytes());
            for _ in 0..DISPATCHES {
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        self.queue.submit([enc.finish()]);
        let host_wall = t.elapsed();
        self.device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        Sample { cpu: cpu.elapsed(), host_wall, end_to_end: t.elapsed() }
    }

    fn run(&self) -> Sample {
        let (t, cpu) = (Instant::now(), cpu_time::ThreadTime::now());
        for _ in 0..DISPATCHES {
            let mut enc = self.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &self.bind_group, &[]);
                pass.set_immediates(0, &N.to_le_bytes());
                pass.dispatch_workgroups(1, 1, 1);
            }
            self.queue.submit([enc.finish()]);
        }
        let host_wall = t.elapsed();
        self.device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        Sample { cpu: cpu.elapsed(), host_wall, end_to_end: t.elapsed() }
    }
}

/// `INC_WGSL` as naga's SPIR-V, loaded as a native module, where the device takes one.
fn native_inc(library: &ShaderLibrary) -> Option<KernelFunction> {
    if !library.device().capabilities().features.native_spirv {
        return None;
    }
    let words = common::spirv_of(INC_WGSL);
    // SAFETY: every access is guarded by `g.x < n`, n the buffer's length.
    let m = unsafe { library.load_spirv("inc native", &words) }.unwrap();
    Some(m.kernel("inc").unwrap())
}

/// One replay of `graph` on a fresh stream, committed and waited for; clocks from `t`, `cpu`.
fn replay_once(
    device: &Device,
    graph: &tilecast_runtime::Graph,
    t: Instant,
    cpu: cpu_time::ThreadTime,
) -> Sample {
    let mut s = Stream::new(device);
    s.replay(graph).unwrap();
    s.synchronize(SyncType::Commit).unwrap();
    let host_wall = t.elapsed();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    Sample { cpu: cpu.elapsed(), host_wall, end_to_end: t.elapsed() }
}

fn main() {
    let device = Device::new().expect("a GPU or lavapipe");
    println!("device: {} ({})", device.name(), device.capabilities().backend);
    let y = device.alloc_in(StorageMode::Private, DType::F32, &[N as usize]).unwrap();
    let library = ShaderLibrary::with_cache_dir(&device, None);
    let mut kernel = library.load("inc", INC_WGSL).unwrap().kernel("inc").unwrap();
    kernel.set_buffer(0, &y).unwrap().set_scalar(0, N).unwrap();
    let plain = Plain::new(&device, &y);
    let mut native = native_inc(&library);
    if let Some(k) = native.as_mut() {
        k.set_buffer(0, &y).unwrap().set_scalar(0, N).unwrap();
    }
    let direct_samples = Mutex::new(Vec::new());
    let graph_samples = Mutex::new(Vec::new());
    let stream_samples = Mutex::new(Vec::new());
    let plain_samples = Mutex::new(Vec::new());
    let floor_samples = Mutex::new(Vec::new());
    let submits = Mutex::new((0u64, 0usize));

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let mut g = c.benchmark_group("10000 dispatches");
    let run_stream = || {
        let mut s = Stream::new(&device);
        let (t, cpu) = (Instant::now(), cpu_time::ThreadTime::now());
        for _ in 0..DISPATCHES {
            kernel.dispatch_threadgroups(&mut s, [1, 1, 1]).unwrap();
        }
        s.synchronize(SyncType::Commit).unwrap();
        let host_wall = t.elapsed();
        s.synchronize(SyncType::CommitAndWait).unwrap();
        *submits.lock().unwrap() = (s.counters().submits, s.config().max_ops);
        Sample { cpu: cpu.elapsed(), host_wall, end_to_end: t.elapsed() }
    };
    g.bench_function("stream", |b| b.iter_custom(|n| timed(n, &stream_samples, run_stream)));
    if let Some(k) = &native {
        let run_direct = || {
            let mut s = Stream::new(&device);
            s.set_recording(Recording::Direct).unwrap();
            let (t, cpu) = (Instant::now(), cpu_time::ThreadTime::now());
            for _ in 0..DISPATCHES {
                k.dispatch_threadgroups(&mut s, [1, 1, 1]).unwrap();
            }
            s.synchronize(SyncType::Commit).unwrap();
            let host_wall = t.elapsed();
            s.synchronize(SyncType::CommitAndWait).unwrap();
            Sample { cpu: cpu.elapsed(), host_wall, end_to_end: t.elapsed() }
        };
        g.bench_function("stream, direct recording", |b| {
            b.iter_custom(|n| timed(n, &direct_samples, run_direct))
        });
        // Captured once, after a launch has used `y` (a capture needs its ranges initialized);
        // 9999 more launches after the replays keep y's count a multiple of DISPATCHES.
        let mut s = Stream::new(&device);
        k.dispatch_threadgroups(&mut s, [1, 1, 1]).unwrap();
        s.begin_capture().unwrap();
        for _ in 0..DISPATCHES {
            k.dispatch_threadgroups(&mut s, [1, 1, 1]).unwrap();
        }
        let graph = s.end_capture().unwrap();
        s.synchronize(SyncType::CommitAndWait).unwrap();
        let run_graph = || {
            let (t, cpu) = (Instant::now(), cpu_time::ThreadTime::now());
            replay_once(&device, &graph, t, cpu)
        };
        g.bench_function("graph replay", |b| {
            b.iter_custom(|n| timed(n, &graph_samples, run_graph))
        });
        let mut s = Stream::new(&device);
        for _ in 1..DISPATCHES {
            k.dispatch_threadgroups(&mut s, [1, 1, 1]).unwrap();
        }
        s.synchronize(SyncType::CommitAndWait).unwrap();
    }
    g.bench_function("plain wgpu, submit per dispatch", |b| {
        b.iter_custom(|n| timed(n, &plain_samples, || plain.run()))
    });
    g.bench_function("plain wgpu, one pass (best case)", |b| {
        b.iter_custom(|n| timed(n, &floor_samples, || plain.run_one_pass()))
    });
    g.finish();
    c.final_summary();

    let (s, p) = (stream_samples.into_inner().unwrap(), plain_samples.into_inner().unwrap());
    let f = floor_samples.into_inner().unwrap();
    let d = direct_samples.into_inner().unwrap();
    let gr = graph_samples.into_inner().unwrap();
    if s.is_empty() || p.is_empty() || f.is_empty() {
        return; // criterion's --list or a filter that skipped a side
    }
    fn per(v: &[Sample], clock: Clock) -> f64 {
        let mut x: Vec<f64> = v.iter().map(|x| clock(x).as_secs_f64()).collect();
        median(&mut x) * 1e6 / DISPATCHES as f64
    }
    let clocks: [(&str, Clock); 3] =
        [("host CPU", |x| x.cpu), ("host wall", |x| x.host_wall), ("end-to-end", |x| x.end_to_end)];
    println!(
        "summary: device={:?}, {} stream and {} plain samples",
        device.name(),
        s.len(),
        p.len()
    );
    println!(
        "summary: {:<11} {:>14} {:>14} {:>8} {:>16} {:>14} {:>14}",
        "clock",
        "stream us/disp",
        "plain us/disp",
        "ratio",
        "one-pass us/disp",
        "direct us/disp",
        "graph us/disp"
    );
    let mut ratio = 0.0;
    for (name, clock) in clocks {
        let (a, b, c) = (per(&s, clock), per(&p, clock), per(&f, clock));
        let column = |v: &[Sample]| match v.is_empty() {
            true => "-".to_string(),
            false => format!("{:.3}", per(v, clock)),
        };
        let (direct, graph) = (column(&d), column(&gr));
        println!(
            "summary: {name:<11} {a:>14.3} {b:>14.3} {:>7.1}x {c:>16.3} {direct:>14} {graph:>14}",
            b / a
        );
        if name == "host CPU" {
            ratio = b / a;
        }
    }
    let (submitted, max_ops) = submits.into_inner().unwrap();
    let allowed = (DISPATCHES as usize).div_ceil(max_ops) as u64;
    println!("summary: host CPU ratio {ratio:.1}x (target >= 10x)");
    println!(
        "summary: command buffers submitted by the stream: {submitted} (max_ops {max_ops}, limit {allowed})"
    );
    assert_eq!(y.download::<f32>().unwrap()[0] as u64 % DISPATCHES as u64, 0, "every dispatch ran");
    if ratio < 10.0 || submitted > allowed {
        eprintln!("summary: FAIL");
        std::process::exit(1);
    }
    println!("summary: PASS");
}
