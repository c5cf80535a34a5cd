"""PyTorch peer for `tilecast bench --kernel gemm`: times torch.matmul on the same shapes and
dtypes (inputs in [-1, 1), output in the input dtype), median of 5 batches, CUDA events.

Usage: python3 bench/peer_gemm.py 1024x1024x1024 f16 [iters]
Prints one JSON line. f32 runs with TF32 disabled (true f32 FMA, like tilecast's SIMT kernel);
f16 and bf16 run on tensor cores (cuBLAS), writing their own dtype (tilecast writes f32).
"""
import json
import sys

import torch


def main():
    shape, dtype = sys.argv[1], sys.argv[2]
    iters = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    m, n, k = (int(x) for x in shape.lower().split("x"))
    torch.backends.cuda.matmul.allow_tf32 = False
    dt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[dtype]
    g = torch.Generator(device="cuda").manual_seed(0)
    a = (torch.rand(m, k, device="cuda", generator=g) * 2 - 1).to(dt)
    b = (torch.rand(k, n, device="cuda", generator=g) * 2 - 1).to(dt)
    out = torch.empty(m, n, device="cuda", dtype=dt)
    torch.matmul(a, b, out=out)
    torch.cuda.synchronize()
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            torch.matmul(a, b, out=out)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / iters)
    times.sort()
    ms = times[2]
    print(json.dumps({"peer": "torch.matmul", "device": torch.cuda.get_device_name(), "shape": [m, n, k],
                      "dtype": dtype, "median_ms": round(ms, 4), "tflops": round(2 * m * n * k / ms / 1e9, 3)}))


if __name__ == "__main__":
    main()
