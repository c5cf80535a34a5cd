"""DLPack beside PyTorch on the lent GPU: CUDA tensors are never taken as host memory (a clear
BufferError, or the producer's own copy to the host when copy=True allows it), and CPU tensors
round-trip, zero-copy where tilecast can share memory.

Usage on the GPU machine (torch installed there; no network): build a wheel here for that
machine's Python, e.g. `maturin build --release -m crates/tilecast-python/Cargo.toml -i python3.X`,
carry target/wheels/tilecast-*.whl, then
    pip install --no-index --no-deps tilecast-*.whl && python3 bench/gpu_dlpack.py
Prints one line per check and exits non-zero if any check fails.
"""

import gc
import sys

import numpy as np
import torch

import tilecast

failures = []


def check(name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
    if not ok:
        failures.append(name)


def raises(fn, exc, needle):
    try:
        fn()
    except exc as e:
        return needle in str(e), str(e).splitlines()[0][:160]
    except Exception as e:  # noqa: BLE001 - any other exception is a failed check
        return False, f"{type(e).__name__}: {e}"
    return False, "no exception"


print(f"tilecast {tilecast.__version__} on {tilecast.Device().name}; torch {torch.__version__}")

# 1. CPU tensors round-trip (ragged shapes, every dtype both sides share).
for dtype in [torch.float32, torch.float16, torch.bfloat16, torch.int8, torch.uint8]:
    if dtype.is_floating_point:
        t = torch.randn(37, 53).to(dtype)
    else:
        t = torch.randint(-100 if dtype == torch.int8 else 0, 100, (37, 53), dtype=dtype)
    b = tilecast.from_dlpack(t)
    back = torch.from_dlpack(b)
    check(f"torch CPU {dtype} -> tilecast -> torch", back.device.type == "cpu" and torch.equal(back, t))

# 2. Zero-copy: torch writes a Shared (or Managed) buffer's own memory.
mode = "shared" if tilecast.Device().capabilities()["features"]["mappable_primary_buffers"] else "managed"
s = tilecast.Buffer.from_numpy(np.zeros((5, 7), np.float32), storage_mode=mode)
view = torch.from_dlpack(s)
view[1, 2] = 42.0
del view
gc.collect()
if mode == "managed":
    s.did_modify()
check(f"torch writes a {mode} buffer in place", s.numpy()[1, 2] == 42.0 and s.dlpack_exports == 0)

# 3. A kernel on torch CPU inputs, result back in torch.
a = torch.randn(65, 129, dtype=torch.float16)
w = torch.randn(129, 33, dtype=torch.float16)
c = torch.from_dlpack(tilecast.ops.gemm(a, w))
ref = a.float() @ w.float()
err = (c - ref).abs().max().item()
check("ops.gemm(torch CPU f16) vs torch matmul", err < 1e-2, f"max abs error {err:.2e}")

# 4. CUDA tensors are never read as host memory.
if torch.cuda.is_available():
    g = torch.randn(19, 23, device="cuda")
    ok, msg = raises(lambda: tilecast.from_dlpack(g), BufferError, "kDLCUDA")
    check("from_dlpack(CUDA tensor) is a clear BufferError", ok, msg)
    ok, msg = raises(lambda: tilecast.from_dlpack(g, copy=False), BufferError, "copy=False")
    check("from_dlpack(CUDA tensor, copy=False) is a BufferError", ok, msg)
    ok, msg = raises(lambda: tilecast.ops.softmax(g), BufferError, "kDLCUDA")
    check("ops.softmax(CUDA tensor) is a clear BufferError", ok, msg)
    try:
        b = tilecast.from_dlpack(g, copy=True)  # the producer copies to host (dl_device, copy)
        check("from_dlpack(CUDA tensor, copy=True) copies through the host", np.array_equal(b.numpy(), g.cpu().numpy()))
    except BufferError as e:
        # Older torch cannot export to another device on request: still an error, not a misread.
        check("from_dlpack(CUDA tensor, copy=True): the producer refused, clearly", "could not copy" in str(e), str(e)[:160])
    out = torch.from_dlpack(tilecast.Buffer("f32", [4]))
    check("torch.from_dlpack(tilecast buffer) is a CPU tensor", out.device.type == "cpu")
else:
    check("torch.cuda.is_available()", False, "no CUDA device: the CUDA checks did not run")

print(f"{len(failures)} failed" if failures else "all checks passed")
sys.exit(1 if failures else 0)
