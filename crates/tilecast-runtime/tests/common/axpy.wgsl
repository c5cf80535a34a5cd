// `y[i] += x[i] + add` (axpy) or `y[i] += add` (inc) for i < n; scalars (n, add) as immediates.
// Shared by the tests (`common::AXPY_WGSL`) and the `gpu_faults` example.
struct Args { n: u32, add: f32 }
var<immediate> args: Args;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn axpy(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < args.n) {
        y[g.x] = y[g.x] + x[g.x] + args.add;
    }
}

@compute @workgroup_size(64)
fn inc(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < args.n) {
        y[g.x] = y[g.x] + args.add;
    }
}
