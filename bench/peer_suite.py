"""PyTorch peer for `tilecast bench`: times the same cases (same kernels, shapes and dtypes) with
PyTorch on CUDA and writes the same JSON rows, so `tilecast bench --compare peer.json` prints the
speedup column.

Usage (on a machine with PyTorch and a CUDA GPU):
    tilecast bench --full --list > cases.json
    python3 bench/peer_suite.py cases.json peer.json
    tilecast bench --full --compare peer.json --json ours.json

Each case: inputs in [-1, 1) of the case's dtypes, one warm-up call, then 5 batches timed with
CUDA events (enough calls per batch for about 20 ms, at most 200); the median per call is
reported. A batch is one CUDA graph of its calls, replayed, so the figure is the GPU's time as
tilecast's (GPU timestamps) is: a plain loop of small calls measures the host issuing them
(SDPA decode at 4096 keys on an H200: 24-34 us a call in a loop, 9.3-9.6 us in a graph;
`bench/peer_decode_sdpa.py`). A call that cannot be captured is timed in a plain loop, and
the row's `timing` says which.
What each kernel runs in PyTorch (eager mode, the way an engine calls it):
  gemm: a @ b (f32 with TF32 off; e4m3/e5m2 through torch._scaled_mm where it exists, else the
  f16 matmul, noted in `peer_op`); batched_gemm: torch.bmm; linear(_gelu): F.linear (+ F.gelu);
  linear_prescaled / gemm_prescaled: F.linear / matmul on the same weights in bf16;
  scale_rows_f16 / scale_cols_f16: amax, exp2, .half();
  gemv: torch.mv (F.linear with rows=M); softmax/log_softmax: torch.(log_)softmax(x, -1); rms_norm: F.rms_norm (or
  x * rsqrt(mean(x^2) + eps) * w); layer_norm(_nobias): F.layer_norm; add_rms_norm: h = x + res,
  then rms_norm(h); rope/rope_neox: the usual slicing form; add/mul: a + b, a * b; swiglu:
  F.silu(a) * b; silu/gelu/gelu_tanh: F.silu, F.gelu(approximate=none/tanh); sum/max/argmax:
  x.sum(-1, dtype=float32), x.amax(-1), x.argmax(-1); cast_*: x.to(dtype, copy=True); transpose:
  x.transpose(-1, -2).contiguous(); attention(_lse) and decode_attention:
  F.scaled_dot_product_attention(q, k, v, is_causal=, scale=, enable_gqa= when KV < H) on
  [B, H, S, D] tensors (torch's causal mask is aligned to the top left: the suite's causal
  cases have S = T, where both agree); paged_decode_attention has no PyTorch form (its target
  is tilecast's own contiguous kernel); qgemv/qgemm: torch.ops.aten._weight_int4pack_mm
  (int4, group 128, bf16 activations) for the 4-bit formats, F.linear in f16 on a dense matrix
  of the same shape for the 8-bit ones, and a `qgemv:f16` row with the f16 time for every case.
  Also a 256 MiB device-to-device copy (`copy` row), the
  bandwidth a memory-bound kernel is measured against.
"""
import json
import sys

import torch
import torch.nn.functional as F

DT = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
EPS = 1e-5


# tilecast names the fp8 types f8e4m3 and f8e5m2 in its case lists.
FP8_NAMES = {"f8e4m3": "e4m3", "f8e5m2": "e5m2"}


def rand(shape, dtype, g):
    dtype = FP8_NAMES.get(dtype, dtype)
    if dtype in ("e4m3", "e5m2"):
        fp8 = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}[dtype]
        return (torch.rand(*shape, device="cuda", generator=g) * 2 - 1).to(fp8)
    if dtype in ("u8", "u32"):  # packed quantized weights: the peers make their own
        return torch.randint(0, 255, tuple(shape), dtype=torch.uint8, device="cuda", generator=g)
    return (torch.rand(*shape, device="cuda", generator=g) * 2 - 1).to(DT[dtype])


def rms_norm(x, w):
    if hasattr(F, "rms_norm"):
        return F.rms_norm(x, (x.shape[-1],), w, EPS)
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS) * w.float()).to(x.dtype)


def rope(x, cos, sin, offset, half_split):
    s, d = x.shape[1], x.shape[3]
    c = cos[offset:offset + s].view(1, s, 1, d // 2).to(x.dtype)
    sn = sin[offset:offset + s].view(1, s, 1, d // 2).to(x.dtype)
    if half_split:
        x0, x1 = x[..., : d // 2], x[..., d // 2:]
        return torch.cat([x0 * c - x1 * sn, x1 * c + x0 * sn], dim=-1)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x0 * c - x1 * sn, x1 * c + x0 * sn], dim=-1).flatten(-2)


def op_for(case, g):
    """A zero-argument callable running the case, and a note on what it runs."""
    k, dims, dt = case["kernel"], case["dims"], FP8_NAMES.get(case["dtype"], case["dtype"])
    if k == "paged_decode_attention":
        return None, "no PyTorch form (its target is tilecast's contiguous decode_attention)"
    args = {a["name"]: a for a in case["args"]}
    ins = {n: rand(a["shape"], a["dtype"], g) for n, a in args.items() if not a["output"]}
    sc = case.get("scalars", {})
    if k == "gemm":
        a, b = ins["A"], ins["B"]
        if dt in ("e4m3", "e5m2"):
            if hasattr(torch, "_scaled_mm"):
                bt = b.t().contiguous().t()  # column-major B, as _scaled_mm wants
                one = torch.ones((), device="cuda")
                try:
                    torch._scaled_mm(a, bt, scale_a=one, scale_b=one, out_dtype=torch.float32)
                    return (lambda: torch._scaled_mm(a, bt, scale_a=one, scale_b=one,
                                                     out_dtype=torch.float32)), "torch._scaled_mm"
                except Exception as e:  # shapes _scaled_mm refuses (not multiples of 16)
                    note = f"f16 matmul (_scaled_mm refused: {str(e)[:60]})"
            else:
                note = "f16 matmul (no torch._scaled_mm)"
            a16, b16 = a.to(torch.float16), b.to(torch.float16)
            return (lambda: a16 @ b16), note
        return (lambda: a @ b), "torch.matmul"
    if k == "batched_gemm":
        return (lambda: torch.bmm(ins["A"], ins["B"])), "torch.bmm"
    if k in ("linear", "linear_gelu"):
        x, w = ins["X"], ins["W"]
        bias = ins["Bias"].to(x.dtype)
        if k == "linear":
            return (lambda: F.linear(x, w, bias)), "F.linear"
        return (lambda: F.gelu(F.linear(x, w, bias))), "F.gelu(F.linear)"
    if k == "linear_prescaled":
        # What torch runs on the same bf16 weights: F.linear in bf16.
        x, w = ins["X"], ins["W16"].to(torch.bfloat16)
        bias = ins["Bias"].to(x.dtype)
        return (lambda: F.linear(x, w, bias)), "F.linear (bf16 W)"
    if k == "gemm_prescaled":
        a, b = ins["A"], ins["B16"].to(torch.bfloat16)
        return (lambda: a @ b), "torch.matmul (bf16 B)"
    if k == "scale_cols_f16":
        x = ins["X"]

        def g():
            mx = x.abs().amax(0).float()
            e = (13 - torch.floor(torch.log2(mx))).clamp(-126, 126)
            return (x.float() * torch.exp2(e)[None, :]).half(), e
        return g, "amax(0), exp2 scale, .half()"
    if k == "scale_rows_f16":
        x = ins["X"]

        def f():
            mx = x.abs().amax(-1).float()
            e = (13 - torch.floor(torch.log2(mx))).clamp(-126, 126)
            return (x.float() * torch.exp2(e)[:, None]).half(), e
        return f, "amax, exp2 scale, .half()"
    if k == "gemv" and ins["X"].dim() == 2:  # rows=M: a batch's step
        return (lambda: F.linear(ins["X"], ins["W"])), "F.linear"
    if k == "gemv":
        return (lambda: torch.mv(ins["W"], ins["X"])), "torch.mv"
    if k == "softmax":
        return (lambda: torch.softmax(ins["X"], -1)), "torch.softmax"
    if k == "log_softmax":
        return (lambda: torch.log_softmax(ins["X"], -1)), "torch.log_softmax"
    if k == "rms_norm":
        return (lambda: rms_norm(ins["X"], ins["W"])), "F.rms_norm"
    if k == "layer_norm":
        c = dims[1]
        return (lambda: F.layer_norm(ins["X"], (c,), ins["W"], ins["B"], EPS)), "F.layer_norm"
    if k == "layer_norm_nobias":
        c = dims[1]
        return (lambda: F.layer_norm(ins["X"], (c,), ins["W"], None, EPS)), "F.layer_norm"
    if k == "add_rms_norm":
        def f():
            h = ins["X"] + ins["Res"]
            return h, rms_norm(h, ins["W"])
        return f, "x + res, F.rms_norm"
    if k in ("rope", "rope_neox"):
        off = int(sc.get("offset", 0))
        return (lambda: rope(ins["X"], ins["Cos"], ins["Sin"], off, k == "rope_neox")), "slicing rope"
    if k == "add":
        return (lambda: ins["X"] + ins["Y2"]), "a + b"
    if k == "mul":
        return (lambda: ins["X"] * ins["Y2"]), "a * b"
    if k == "swiglu":
        return (lambda: F.silu(ins["X"]) * ins["Y2"]), "F.silu(a) * b"
    if k == "silu":
        return (lambda: F.silu(ins["X"])), "F.silu"
    if k == "gelu":
        return (lambda: F.gelu(ins["X"])), "F.gelu"
    if k == "gelu_tanh":
        return (lambda: F.gelu(ins["X"], approximate="tanh")), "F.gelu(tanh)"
    if k == "sum":
        return (lambda: ins["X"].sum(-1, dtype=torch.float32)), "x.sum(-1)"
    if k == "max":
        return (lambda: ins["X"].amax(-1)), "x.amax(-1)"
    if k == "argmax":
        return (lambda: ins["X"].argmax(-1)), "x.argmax(-1)"
    if k in ("cast_f32", "cast_f16", "cast_bf16", "cast_e4m3", "cast_e5m2"):
        to = {"cast_f32": torch.float32, "cast_f16": torch.float16, "cast_bf16": torch.bfloat16,
              "cast_e4m3": torch.float8_e4m3fn, "cast_e5m2": torch.float8_e5m2}[k]
        # copy=True: a cast to the input's own type is otherwise no work at all (torch returns
        # the input), which timed 0.8 us against tilecast's copy of 512 MiB.
        return (lambda: ins["X"].to(to, copy=True)), "x.to(copy=True)"
    if k == "transpose":
        return (lambda: ins["X"].transpose(-1, -2).contiguous()), "transpose().contiguous()"
    if k in ("attention", "attention_lse", "decode_attention"):
        q, kk, v = ins["Q"], ins["K"], ins["V"]
        causal, scale = bool(sc.get("causal", 0)), float(sc["scale"])
        gqa = kk.shape[1] != q.shape[1]
        extra = {"enable_gqa": True} if gqa else {}
        return (lambda: F.scaled_dot_product_attention(q, kk, v, is_causal=causal, scale=scale,
                                                       **extra)), \
            "F.scaled_dot_product_attention" + (" (enable_gqa)" if gqa else "")
    if k in ("qgemv", "qgemm"):
        return quantized_peer(case, ins, g)
    return None, f"no PyTorch form for {k}"


def quantized_peer(case, ins, g):
    """torch's int4 kernel (`_weight_int4pack_mm`, group 128, bf16 activations) for the 4-bit
    formats where it exists, else F.linear in f16 on dequantized weights (extra rows carry the
    f16 time for every case)."""
    n, kd = case["dims"][0] if case["kernel"] == "qgemv" else case["dims"][1], case["dims"][-1]
    x = ins["X"]
    fmt = case["shape"].split(",")[1]
    if fmt in ("q4_0", "q4_k", "mlx4") and hasattr(torch.ops.aten, "_weight_int4pack_mm"):
        w = torch.randint(0, 16, (n, kd), dtype=torch.int32, device="cuda", generator=g)
        packed = torch.ops.aten._convert_weight_to_int4pack((w[:, ::2] << 4 | w[:, 1::2]).to(torch.uint8), 8)
        sz = torch.rand(kd // 128, n, 2, device="cuda", generator=g).to(torch.bfloat16)
        xb = x.to(torch.bfloat16)
        return (lambda: torch.ops.aten._weight_int4pack_mm(xb, packed, 128, sz)), \
            "aten._weight_int4pack_mm (int4, group 128, bf16 x)"
    return f16_linear(case, g)


def f16_linear(case, g):
    """F.linear in f16 on an f16 matrix of the quantized one's shape."""
    n, kd = case["dims"][0] if case["kernel"] == "qgemv" else case["dims"][1], case["dims"][-1]
    rows = next(a["shape"][0] for a in case["args"] if a["name"] == "X")
    x = rand([rows, kd], "f16", g)
    w = rand([n, kd], "f16", g)
    return (lambda: F.linear(x, w)), "F.linear f16 (dequantized weights)"


def captured(fn, iters):
    """`iters` calls of `fn` as one CUDA graph's replay, or None where `fn` cannot be captured."""
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(iters):
                fn()
        graph.replay()
        torch.cuda.synchronize()
        return graph.replay
    except Exception:  # capture refused (a host sync inside, say): the plain loop instead
        torch.cuda.synchronize()
        return None


def time_ms(fn):
    """Median ms per call of 5 batches, the calls per batch and how a batch ran ("graph" or
    "loop")."""
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    iters = max(1, min(200, int(20.0 / max(start.elapsed_time(end), 1e-3))))
    replay = captured(fn, iters)

    def batch():
        if replay is not None:
            replay()
        else:
            for _ in range(iters):
                fn()
    times = []
    for _ in range(5):
        start.record()
        batch()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / iters)
    times.sort()
    return times[2], iters, "loop" if replay is None else "graph"


def main():
    cases = json.load(open(sys.argv[1]))
    out_path = sys.argv[2]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    g = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    x = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    ms, _, _ = time_ms(lambda: y.copy_(x))
    rows.append({"kernel": "copy", "shape": str(256 << 20), "dtype": "u8", "median_ms": ms,
                 "throughput": 2 * (256 << 20) / ms / 1e6, "unit": "GB/s", "peer_op": "copy_"})
    del x, y
    for case in cases:
        row = {"kernel": case["kernel"], "shape": case["shape"], "dtype": case["dtype"]}
        try:
            fn, note = op_for(case, g)
            if fn is None:
                row["error"] = note
            else:
                ms, iters, timing = time_ms(fn)
                row.update(median_ms=ms, iters=iters, timing=timing, peer_op=note)
                if case["flops"] and case["kernel"] in ("gemm", "batched_gemm", "linear", "linear_gelu",
                                                      "linear_prescaled", "gemm_prescaled",
                                                      "attention", "attention_lse"):
                    row.update(throughput=case["flops"] / ms / 1e9, unit="TFLOP/s")
                else:
                    row.update(throughput=case["bytes"] / ms / 1e6, unit="GB/s")
        except Exception as e:  # a case PyTorch cannot run (memory, dtype) is reported, not fatal
            row["error"] = f"{type(e).__name__}: {str(e)[:200]}"
        torch.cuda.empty_cache()
        rows.append(row)
        print(json.dumps(row), flush=True)
        if case["kernel"] in ("qgemv", "qgemm") and "error" not in row \
                and not row.get("peer_op", "").startswith("F.linear"):
            fn, note = f16_linear(case, g)
            ms, iters, timing = time_ms(fn)
            extra = {"kernel": case["kernel"] + ":f16", "shape": case["shape"],
                     "dtype": case["dtype"], "median_ms": ms, "iters": iters, "timing": timing,
                     "peer_op": note}
            rows.append(extra)
            print(json.dumps(extra), flush=True)
            torch.cuda.empty_cache()
    json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows},
              open(out_path, "w"), indent=1)


if __name__ == "__main__":
    main()
