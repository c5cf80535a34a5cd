"""The decoder end to end (issue 39): `tilecast generate` on tiny random Llama models, as a
Hugging Face checkpoint (f16, and MLX-quantized) and as GGUF files of each type tilecast reads, every step's logits
against the numpy reference in bench/llama/reference.py (on the same dequantized weights for
the quantized types), and the greedy tokens identical for 32 steps. The models are written by
bench/llama/make_model.py (the same loading path a downloaded model takes). TILECAST_CLI names
the command-line tool (scripts/test-python builds it)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "llama"))
import reference  # noqa: E402

# f16 activations between kernels on both sides; what is left is f32 summation order and f16
# rounding ties. Logits agree within 0.2% of the step's largest logit, plus 0.01 (one-row
# logits are stored in f16 by gemv): up to 0.0037 at logits of 3.6 and 0.028 at 45 seen.
LOGITS_REL, LOGITS_ABS = 2e-3, 0.01
# Quantized weights: qgemv rounds each 32 activations to int8 before its integer products (as
# llama.cpp does). The reference rounds them too, but an activation one f16 step away from
# tilecast's can round to the next level, so logits differ by up to 1.4% of the largest seen
# (tiny-q, 32 steps). Greedy picks then differ at near ties: the reference follows tilecast's
# tokens, and each pick must be the reference's best or within the tolerance of it.
QUANT_REL, QUANT_ABS = 2.5e-2, 0.02
STEPS = 32
MAKE_MODEL = os.path.join(ROOT, "bench", "llama", "make_model.py")


def cli():
    path = os.environ.get("TILECAST_CLI", os.path.join(ROOT, "target", "debug", "tilecast"))
    if not os.path.exists(path):
        pytest.fail(f"no tilecast command-line tool at {path}: build it (cargo build -p tilecast-cli) or set TILECAST_CLI")
    return path


@pytest.fixture(scope="module", params=["untied", "tied"])
def tiny(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"tiny-{request.param}")
    args = [sys.executable, os.path.join(ROOT, "bench", "llama", "make_model.py"), "--size", "tiny", "--out", str(out)]
    if request.param == "tied":
        args += ["--tied", "--seed", "2"]
    subprocess.run(args, check=True, capture_output=True)
    return str(out)


@pytest.fixture(scope="module", params=["f16", "q4_0", "q8_0", "q4_k"])
def gguf_model(request, tmp_path_factory):
    """A GGUF file of each type: f16 at the tiny (ragged) widths, the block formats at widths of
    whole 256-value blocks."""
    kind = request.param
    out = tmp_path_factory.mktemp("gguf") / f"tiny-{kind}.gguf"
    size = "tiny" if kind == "f16" else "tiny-q"
    subprocess.run([sys.executable, MAKE_MODEL, "--size", size, "--gguf", kind, "--out", str(out), "--seed", "3"],
                   check=True, capture_output=True)
    return kind, str(out)


def generate(model, tmp_path, *args):
    logits = tmp_path / "logits.npy"
    run = subprocess.run(
        [cli(), "generate", "--model", model, "--new-tokens", str(STEPS), "--json", "--logits", str(logits), *args],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout), np.load(logits)


@pytest.mark.parametrize("batch,prompt", [(1, "5,17,250,3,99,1,42"), (3, None)])
def test_logits_and_tokens_match_the_numpy_reference(tiny, tmp_path, batch, prompt):
    args = ["--batch", str(batch)] + (["--prompt-ids", prompt] if prompt else ["--prompt-len", "11", "--seed", "7"])
    report, logits = generate(tiny, tmp_path, *args)
    prompts = np.array(report["prompt_ids"])
    assert prompts.shape == (batch, 7 if prompt else 11)
    want, want_ids = reference.Llama(tiny).run(prompts, STEPS)
    assert logits.shape == want.shape == (STEPS, batch, 300)
    err = np.abs(logits - want).max(axis=(1, 2))
    allowed = LOGITS_REL * np.abs(want).max(axis=(1, 2)) + LOGITS_ABS
    assert (err <= allowed).all(), f"logits differ by up to {err.max()} (per step: {err}; allowed {allowed})"
    assert report["ids"] == want_ids.tolist()
    # The logits' own argmax is what was picked.
    assert logits.argmax(axis=2).T.tolist() == report["ids"]


@pytest.mark.parametrize("batch,graph", [(1, "off"), (3, "on")])
def test_direct_recording_computes_what_wgpu_recording_computes(tiny, tmp_path, batch, graph):
    # The default (auto) records through wgpu on lavapipe, checked against the reference above;
    # direct recording, with decode steps replayed from a captured graph or launched each step,
    # is checked here against it, bit for bit.
    args = ["--batch", str(batch), "--prompt-len", "9", "--seed", "4"]
    direct, direct_logits = generate(tiny, tmp_path, *args, "--recording", "direct", "--graph", graph)
    wgpu, wgpu_logits = generate(tiny, tmp_path, *args, "--recording", "wgpu")
    assert (direct["recording"], wgpu["recording"]) == ("direct", "wgpu")
    assert (direct["graph"], wgpu["graph"]) == (graph == "on", False)
    assert wgpu["direct_dispatches_per_step"] == 0
    # Every kernel has a direct twin; a launch over memory ranges wgpu has not seen yet goes
    # through wgpu, which happens within the first timed step at most. A replayed step's
    # launches are all direct, and count as its launches.
    steps = STEPS - 1
    assert direct["dispatches_per_step"] >= direct["launches_per_step"] == wgpu["launches_per_step"] > 0
    if graph == "on":
        assert direct["direct_dispatches_per_step"] == direct["dispatches_per_step"]
    assert direct["direct_dispatches_per_step"] * steps >= direct["dispatches_per_step"] * (steps - 1)
    assert direct["ids"] == wgpu["ids"] and np.array_equal(direct_logits, wgpu_logits)
    # The prompt's pass: five timed runs, the median reported; the buffers were made by the
    # warm-up, so no run allocates.
    runs = direct["prefill_runs"]
    assert len(runs) == 5 and all(0 < r["encode_ms"] <= r["ms"] and r["new_buffers"] == 0 for r in runs)
    assert direct["prefill_ms"] == sorted(r["ms"] for r in runs)[2]


def test_a_profiled_step_times_every_launch_and_changes_nothing(tiny, tmp_path):
    args = ["--prompt-ids", "5,17,250,3,99,1,42"]
    plain, plain_logits = generate(tiny, tmp_path, *args)
    report, logits = generate(tiny, tmp_path, *args, "--profile")
    assert plain["profile"] is None
    assert report["ids"] == plain["ids"] and np.array_equal(logits, plain_logits)
    rows = report["profile"]
    # One row per kernel and problem, every launch of the step counted once, longest first.
    assert sum(r["count"] for r in rows) == report["launches_per_step"]
    assert len({r["launch"] for r in rows}) == len(rows)
    kernels = {r["launch"].split()[0] for r in rows}
    for k in ["embedding", "rms_norm", "gemv", "rope_neox", "paged_kv_write", "paged_decode_attention",
              "add_rms_norm", "swiglu", "argmax"]:
        assert k in kernels, (k, kernels)
    ms = [r["ms"] for r in rows]
    assert all(m >= 0 for m in ms) and ms == sorted(ms, reverse=True) and sum(ms) > 0
    # A row's share is its launches times one launch timed alone.
    assert all(abs(r["ms"] - r["count"] * r["us"] / 1e3) <= 1e-9 * max(1.0, r["ms"]) for r in rows)


def test_bad_requests_are_errors_naming_the_problem(tiny, tmp_path):
    run = subprocess.run([cli(), "generate", "--model", tiny, "--prompt-ids", "1,300,2"], capture_output=True, text=True)
    assert run.returncode != 0 and "token id 300 is past the vocabulary (300 ids)" in run.stderr, run.stderr
    run = subprocess.run([cli(), "generate", "--model", str(tmp_path), "--prompt-len", "3"], capture_output=True, text=True)
    assert run.returncode != 0 and "config.json" in run.stderr, run.stderr
    assert "panicked" not in run.stderr


@pytest.mark.parametrize("batch,prompt", [(1, "5,17,250,3,99,1,42"), (3, None)])
def test_gguf_logits_and_tokens_match_the_reference(gguf_model, tmp_path, batch, prompt):
    """GGUF files: quantized matrices run in place through qgemv (up to 8 rows) and qgemm, RoPE
    on the converter's permuted rows; the reference runs Hugging Face's layout on the gguf
    package's dequantized weights."""
    kind, model = gguf_model
    args = ["--batch", str(batch)] + (["--prompt-ids", prompt] if prompt else ["--prompt-len", "11", "--seed", "7"])
    report, logits = generate(model, tmp_path, *args)
    ids = np.array(report["ids"])
    quantized = kind != "f16"
    want, want_ids = reference.Llama(model).run(np.array(report["prompt_ids"]), STEPS, follow=ids if quantized else None)
    assert logits.shape == want.shape == (STEPS, batch, 300)
    rel, abs_ = (QUANT_REL, QUANT_ABS) if quantized else (LOGITS_REL, LOGITS_ABS)
    err = np.abs(logits - want).max(axis=(1, 2))
    allowed = rel * np.abs(want).max(axis=(1, 2)) + abs_
    assert (err <= allowed).all(), f"{kind}: logits differ by up to {err.max()} (per step: {err}; allowed {allowed})"
    if not quantized:
        assert report["ids"] == want_ids.tolist()
        return
    # Each pick is the reference's best, or within the tolerance of it (a near tie).
    picked = np.take_along_axis(want, ids.T[:, :, None], axis=2)[:, :, 0]
    gap = want.max(axis=2) - picked
    assert (gap <= allowed[:, None]).all(), f"{kind}: a pick trails the reference's best by {gap.max()}"
    assert (ids == want_ids).mean() >= 0.9, f"{kind}: only {(ids == want_ids).mean():.0%} of picks agree"


def test_bad_gguf_files_are_errors_naming_the_problem(tmp_path):
    """A truncated file, a tensor of a type tilecast does not read, a missing tensor and another
    architecture: each an error naming the file and what was expected, never a panic."""
    import gguf

    def run(path):
        r = subprocess.run([cli(), "generate", "--model", str(path), "--prompt-len", "3", "--new-tokens", "2"],
                           capture_output=True, text=True)
        assert r.returncode != 0 and "panicked" not in r.stderr, r.stderr
        assert str(path) in r.stderr, r.stderr
        return r.stderr

    good = tmp_path / "good.gguf"
    subprocess.run([sys.executable, MAKE_MODEL, "--size", "tiny-q", "--gguf", "q4_0", "--out", str(good)],
                   check=True, capture_output=True)
    data = good.read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(data[: len(data) - 1000])
    assert "GGUF" in run(cut) or "truncated" in run(cut)

    def rewrite(path, arch="llama", drop=None, retype=None):
        r = gguf.GGUFReader(str(good))
        w = gguf.GGUFWriter(str(path), arch)
        for key, f in r.fields.items():
            if key.startswith("GGUF.") or key == "general.architecture":
                continue
            if key.startswith("llama."):
                key = arch + key[len("llama"):]
            kind = f.types[0]
            if kind == gguf.GGUFValueType.ARRAY:
                w.add_array(key, f.contents())
            else:
                w.add_key_value(key, f.contents(), kind)
        for t in r.tensors:
            if t.name == drop:
                continue
            if t.name == retype:
                x = gguf.quants.dequantize(t.data, t.tensor_type).reshape([int(n) for n in reversed(t.shape)])
                w.add_tensor(t.name, gguf.quants.quantize(x.astype(np.float32), gguf.GGMLQuantizationType.Q5_0),
                             raw_dtype=gguf.GGMLQuantizationType.Q5_0)
            else:
                w.add_tensor(t.name, t.data, raw_dtype=t.tensor_type)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        return path

    err = run(rewrite(tmp_path / "q5.gguf", retype="blk.1.ffn_up.weight"))
    assert "tensor blk.1.ffn_up.weight is Q5_0" in err and "Q4_0, Q8_0 and Q4_K" in err, err
    err = run(rewrite(tmp_path / "missing.gguf", drop="blk.0.attn_k.weight"))
    assert "tensor blk.0.attn_k.weight is missing" in err, err
    err = run(rewrite(tmp_path / "arch.gguf", arch="gpt2"))
    assert 'general.architecture is "gpt2"' in err, err


@pytest.mark.parametrize("bits,group,tied,batch,prompt",
                         [(4, 64, False, 1, "5,17,250,3,99,1,42"), (8, 32, True, 3, None)])
def test_mlx_logits_and_tokens_match_the_reference(tmp_path, bits, group, tied, batch, prompt):
    """MLX-quantized checkpoints (mlx-lm's layout): every matrix's packed levels, scales and
    biases run in place through qgemv and qgemm; the reference runs the same weights
    dequantized as MLX does. 8-bit matrices take the float mat-vec, so they hold the f16
    tolerance; 4-bit ones round their activations to int8 (the quantized tolerance)."""
    model = tmp_path / f"mlx{bits}"
    args = [sys.executable, MAKE_MODEL, "--size", "tiny-q", "--mlx", str(bits), "--group", str(group),
            "--out", str(model), "--seed", "4"] + (["--tied"] if tied else [])
    subprocess.run(args, check=True, capture_output=True)
    run_args = ["--batch", str(batch)] + (["--prompt-ids", prompt] if prompt else ["--prompt-len", "11", "--seed", "7"])
    report, logits = generate(str(model), tmp_path, *run_args)
    ids = np.array(report["ids"])
    want, want_ids = reference.Llama(str(model)).run(np.array(report["prompt_ids"]), STEPS, follow=ids)
    assert logits.shape == want.shape == (STEPS, batch, 300)
    rel, abs_ = (QUANT_REL, QUANT_ABS) if bits == 4 else (LOGITS_REL, LOGITS_ABS)
    err = np.abs(logits - want).max(axis=(1, 2))
    allowed = rel * np.abs(want).max(axis=(1, 2)) + abs_
    assert (err <= allowed).all(), f"mlx{bits}: logits differ by up to {err.max()} (per step: {err}; allowed {allowed})"
    picked = np.take_along_axis(want, ids.T[:, :, None], axis=2)[:, :, 0]
    assert (want.max(axis=2) - picked <= allowed[:, None]).all(), f"mlx{bits}: a pick trails the reference's best"
    assert (ids == want_ids).mean() >= 0.9, f"mlx{bits}: only {(ids == want_ids).mean():.0%} of picks agree"


def test_bad_mlx_checkpoints_are_errors_naming_the_problem(tmp_path):
    """Another bit width or mode, a per-layer entry, a matrix's levels of the wrong type: each an
    error naming the file and what was expected, never a panic."""
    from safetensors.numpy import load_file, save_file

    good = tmp_path / "good"
    subprocess.run([sys.executable, MAKE_MODEL, "--size", "tiny-q", "--mlx", "4", "--out", str(good)],
                   check=True, capture_output=True)
    config = json.loads((good / "config.json").read_text())
    tensors = load_file(str(good / "model.safetensors"))

    def run(quantization=None, retype=None):
        bad = tmp_path / f"bad{len(list(tmp_path.iterdir()))}"
        bad.mkdir()
        (bad / "config.json").write_text(json.dumps(dict(config, quantization=quantization or config["quantization"])))
        t = dict(tensors)
        if retype:
            t[retype] = t[retype].astype(np.int32)
        save_file(t, str(bad / "model.safetensors"))
        r = subprocess.run([cli(), "generate", "--model", str(bad), "--prompt-len", "3", "--new-tokens", "2"],
                           capture_output=True, text=True)
        assert r.returncode != 0 and "panicked" not in r.stderr, r.stderr
        assert str(bad) in r.stderr, r.stderr
        return r.stderr

    assert "quantization.bits is 3" in run({"group_size": 64, "bits": 3})
    assert "quantization mode \"mxfp4\"" in run({"group_size": 32, "bits": 4, "mode": "mxfp4"})
    assert "per-layer entry model.layers.0.mlp.up_proj" in run(
        {"group_size": 64, "bits": 4, "model.layers.0.mlp.up_proj": {"group_size": 32, "bits": 8}})
    err = run(retype="model.layers.1.mlp.up_proj.weight")
    assert "model.layers.1.mlp.up_proj.weight is I32" in err, err


def test_python_api_prefill_and_decode_match_the_reference(tiny):
    """tilecast.llm.load: prefill and decode return DLPack logits that match the reference;
    decode takes the caller's tokens or, given none, the GPU's own greedy picks."""
    import tilecast.llm

    m = tilecast.llm.load(tiny, capacity=64)
    assert m.config["vocab_size"] == 300 and m.config["num_layers"] == 2
    prompt = np.array([[5, 17, 250, 3, 99, 1, 42], [8, 8, 2, 140, 7, 61, 0]])
    want, want_ids = reference.Llama(tiny).run(prompt, 5)
    allowed = LOGITS_REL * np.abs(want).max(axis=(1, 2)) + LOGITS_ABS
    got = np.from_dlpack(m.prefill(prompt.tolist()))
    assert got.shape == (2, 300) and got.dtype == np.float32
    assert np.abs(got - want[0]).max() <= allowed[0]
    for step in range(1, 5):
        given = want_ids[:, step - 1].tolist() if step % 2 else None
        got = np.from_dlpack(m.decode(given))
        assert np.abs(got - want[step]).max() <= allowed[step], step
    assert m.tokens() == want_ids[:, :5].tolist()
    # A new prefill starts over, on the same session.
    again = np.from_dlpack(m.prefill(prompt.tolist()))
    assert np.abs(again - want[0]).max() <= allowed[0]


def test_python_api_errors(tiny, tmp_path):
    import tilecast.llm

    m = tilecast.llm.load(tiny, capacity=16)
    with pytest.raises(ValueError, match="decode before prefill"):
        m.decode()
    with pytest.raises(ValueError, match="token id 300 is past the vocabulary"):
        m.prefill([[1, 300]])
    with pytest.raises(ValueError, match="one length"):
        m.prefill([[1, 2], [3]])
    with pytest.raises(ValueError, match="the session holds 16"):
        m.prefill([list(range(17))])
    m.prefill([[1, 2, 3]])
    with pytest.raises(ValueError, match="2 ids for a step of 1 sequences"):
        m.decode([1, 2])
    with pytest.raises(OSError):
        tilecast.llm.load(tmp_path / "missing.gguf")
