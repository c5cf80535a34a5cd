"""Kernels written in Python on a real GPU: each example of crates/tilecast-python/examples/
checked at a large shape against numpy, then timed beside the library's op for the same work
and beside PyTorch on CUDA, and the host cost of a call (jitted against a library op).

Times for tilecast are the wall time of submitting and waiting for ``ITERS`` launches into
preallocated outputs, encoded beforehand into one stream (one command buffer), divided by
``ITERS``: the same method for the jitted kernel and the library op, GPU time plus wgpu's
submit cost. PyTorch's are CUDA-event times of the same count. Host encoding is reported
apart. Run on the GPU machine (gpu_run.sh's
``pykernels`` section) with the tilecast wheel, numpy and torch installed:

    python3 bench/python_kernels.py
"""

import math
import os
import pathlib
import statistics
import sys
import time

import numpy as np

# One command buffer for each batch of ITERS launches, whatever they bind: a timed batch then
# starts on the GPU only when it is submitted.
os.environ.setdefault("TILECAST_MAX_OPS_PER_BUFFER", "100000")
os.environ.setdefault("TILECAST_MAX_MB_PER_BUFFER", "1000000")

import tilecast as tc  # noqa: E402
from tilecast import ops  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "crates" /
                       "tilecast-python" / "examples"))

import flash_attention  # noqa: E402
import gemm  # noqa: E402
import q4_0_gemv  # noqa: E402
import rms_norm  # noqa: E402
import softmax  # noqa: E402

# SMALL=1: small shapes and few launches, to try the script on a CPU (lavapipe).
SMALL = os.environ.get("SMALL") == "1"
ITERS = 3 if SMALL else 50
REPEATS = 1 if SMALL else 5

try:
    import torch
    CUDA = torch.cuda.is_available()
except ImportError:  # pragma: no cover - the GPU machine has torch
    torch = None
    CUDA = False


def time_tilecast(launch) -> float:
    """Median over REPEATS of the per-launch time to submit and finish ITERS launches encoded
    into one stream (us)."""
    launch(None)
    tc.Stream().synchronize()
    samples = []
    for _ in range(REPEATS):
        s = tc.Stream()
        for _ in range(ITERS):
            launch(s)
        t0 = time.perf_counter()
        s.synchronize()
        samples.append((time.perf_counter() - t0) / ITERS * 1e6)
    return statistics.median(samples)


def host_cost(launch) -> float:
    """Median host time to encode one launch into a stream (us)."""
    s = tc.Stream()
    samples = []
    for _ in range(20 if SMALL else 200):
        t0 = time.perf_counter()
        launch(s)
        samples.append((time.perf_counter() - t0) * 1e6)
    s.synchronize()
    return statistics.median(samples)


def time_torch(fn) -> float:
    if not CUDA:
        return float("nan")
    fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(REPEATS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(ITERS):
            fn()
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end) * 1e3 / ITERS)
    return statistics.median(samples)


def row(case, py_us, lib_us, torch_us, err, host=None):
    ratio = lib_us / py_us
    vs_torch = torch_us / py_us if torch_us == torch_us else float("nan")
    extra = f" | {host[0]:.1f} / {host[1]:.1f}" if host else " |"
    print(f"| {case} | {py_us:.1f} | {lib_us:.1f} | {ratio:.2f}x | {torch_us:.1f} | "
          f"{vs_torch:.2f}x | {err:.2e}{extra}")


def main() -> None:
    print(f"device: {tc.Device().name}")
    print("| case | Python kernel (us) | library op (us) | library / Python | torch (us) | "
          "torch / Python | max error | host per call, jit / op (us) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)

    m = n = kd = 128 if SMALL else 2048
    a = tc.Buffer.from_numpy(rng.standard_normal((m, kd)).astype(np.float16))
    b = tc.Buffer.from_numpy(rng.standard_normal((kd, n)).astype(np.float16))
    err = float(np.abs(np.from_dlpack(gemm.gemm(a, b)) -
                       a.numpy().astype(np.float32) @ b.numpy().astype(np.float32)).max())
    ta, tb = (torch.from_numpy(a.numpy()).cuda(), torch.from_numpy(b.numpy()).cuda()) if CUDA \
        else (None, None)
    c_out = tc.Buffer("f32", [m, n])
    row(f"gemm f16 {m}x{n}x{kd}", time_tilecast(lambda s: gemm.gemm(a, b, c_out, stream=s)),
        time_tilecast(lambda s: ops.gemm(a, b, out=c_out, stream=s)),
        time_torch(lambda: ta @ tb), err / math.sqrt(kd))

    r, c = (64, 300) if SMALL else (4096, 4096)
    x = tc.Buffer.from_numpy(rng.standard_normal((r, c)).astype(np.float32))
    xn = x.numpy()
    e = np.exp(xn - xn.max(-1, keepdims=True))
    err = float(np.abs(np.from_dlpack(softmax.softmax(x)) - e / e.sum(-1, keepdims=True)).max())
    tx = torch.from_numpy(xn).cuda() if CUDA else None
    y_out = tc.Buffer("f32", [r, c])
    row(f"softmax f32 {r}x{c}", time_tilecast(lambda s: softmax.softmax(x, y_out, stream=s)),
        time_tilecast(lambda s: ops.softmax(x, out=y_out, stream=s)),
        time_torch(lambda: torch.softmax(tx, -1)), err,
        (host_cost(lambda s: softmax.softmax(x, y_out, stream=s)),
         host_cost(lambda s: ops.softmax(x, out=y_out, stream=s))))

    w = tc.Buffer.from_numpy(rng.standard_normal(c).astype(np.float32))
    want = xn / np.sqrt((xn * xn).mean(-1, keepdims=True) + 1e-5) * w.numpy()
    err = float(np.abs(np.from_dlpack(rms_norm.rms_norm(x, w, eps=1e-5)) - want).max())
    tw = torch.from_numpy(w.numpy()).cuda() if CUDA else None
    row(f"rms_norm f32 {r}x{c}", time_tilecast(lambda s: rms_norm.rms_norm(x, w, y_out, eps=1e-5,
                                                                           stream=s)),
        time_tilecast(lambda s: ops.rms_norm(x, w, eps=1e-5, out=y_out, stream=s)),
        time_torch(lambda: torch.nn.functional.rms_norm(tx, (c,), tw, 1e-5)), err)

    bb, h, kv, sq, d = (1, 4, 2, 100, 64) if SMALL else (1, 32, 8, 2048, 64)
    q = rng.standard_normal((bb, h, sq, d)).astype(np.float16)
    k = rng.standard_normal((bb, kv, sq, d)).astype(np.float16)
    v = rng.standard_normal((bb, kv, sq, d)).astype(np.float16)
    qb, kb, vb = (tc.Buffer.from_numpy(t) for t in (q, k, v))
    scale = 1 / math.sqrt(d)
    o_out = tc.Buffer("f16", [bb, h, sq, d])
    got = np.from_dlpack(flash_attention.flash_attention(qb, kb, vb, scale=scale))
    err = float(np.abs(got.astype(np.float32) - flash_attention.reference(q, k, v, scale)).max())
    if CUDA:
        tq, tk, tv = (torch.from_numpy(t).cuda() for t in (q, k, v))
        rep = h // kv
        tk, tv = tk.repeat_interleave(rep, 1), tv.repeat_interleave(rep, 1)
    row(f"attention causal GQA f16 B{bb} H{h} KV{kv} S{sq} D{d}",
        time_tilecast(lambda s: flash_attention.flash_attention(qb, kb, vb, o_out, scale=scale,
                                                                stream=s)),
        time_tilecast(lambda s: ops.attention(qb, kb, vb, causal=1, out=o_out, stream=s)),
        time_torch(lambda: torch.nn.functional.scaled_dot_product_attention(
            tq, tk, tv, is_causal=True)), err)

    n, kd = (512, 512) if SMALL else (14336, 4096)
    wq = ops.quantize(rng.standard_normal((n, kd)).astype(np.float32), "q4_0")
    xv = rng.standard_normal(kd).astype(np.float32)
    xb = tc.Buffer.from_numpy(xv)
    x16 = tc.Buffer.from_numpy(xv.astype(np.float16).reshape(1, kd))
    want = wq.dequantize().numpy() @ xv
    err = float(np.abs(np.from_dlpack(q4_0_gemv.q4_0_gemv(wq, xb)) - want).max())
    tm = torch.from_numpy(rng.standard_normal((n, kd)).astype(np.float16)).cuda() if CUDA else None
    tvx = torch.from_numpy(xv.astype(np.float16)).cuda() if CUDA else None
    y1, y16 = tc.Buffer("f32", [n]), tc.Buffer("f16", [1, n])
    row(f"q4_0 gemv {n}x{kd} (torch: f16 mv)",
        time_tilecast(lambda s: q4_0_gemv.q4_0_gemv(wq, xb, y1, stream=s)),
        time_tilecast(lambda s: ops.qgemv(x16, wq, out=y16, stream=s)),
        time_torch(lambda: tm @ tvx), err)


if __name__ == "__main__":
    main()
