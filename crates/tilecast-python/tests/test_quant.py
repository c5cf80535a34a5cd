"""Quantized formats packed on the CPU, bit-exact against the formats' own tools: the `gguf`
package's reference quantizers and dequantizers (`gguf.quants`)."""

import numpy as np
import pytest

from tilecast import ops

gguf = pytest.importorskip("gguf")
from gguf.constants import GGMLQuantizationType as T  # noqa: E402

GGUF = {"q8_0": T.Q8_0, "q4_0": T.Q4_0, "q4_k": T.Q4_K}


def weights(rng, n, k):
    # Rows of mixed scale, a zero block, and a block whose largest magnitude is negative.
    w = rng.standard_normal((n, k)).astype(np.float32) * rng.uniform(0.01, 3, (n, 1)).astype(np.float32)
    w[0, :32] = 0
    w[1, :32] = rng.uniform(-1, 0.5, 32)
    return w


@pytest.mark.parametrize("fmt", ["q8_0", "q4_0"])
def test_quantize_is_bit_exact_with_gguf(fmt, rng):
    w = weights(rng, 7, 512)
    ours = ops.quantize(w, fmt).numpy()
    theirs = gguf.quants.quantize(w, GGUF[fmt])
    assert ours.dtype == np.uint8 and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("fmt", ["q8_0", "q4_0", "q4_k"])
def test_dequantize_is_bit_exact_with_gguf(fmt, rng):
    """Our bytes dequantize to the same f32 values through gguf and through tilecast (Q4_K has
    no reference quantizer in gguf; its bytes are ours, the dequantizer is the format's)."""
    w = weights(rng, 5, 1024)
    q = ops.quantize(w, fmt)
    ours = ops.dequantize(q, fmt, 1024).numpy()
    theirs = gguf.quants.dequantize(q.numpy(), GGUF[fmt])
    np.testing.assert_array_equal(ours, theirs)
    # And the values are close to the weights: within a quantization step of each block.
    err = np.abs(ours - w).reshape(5, -1, 32).max(-1)
    scale = np.abs(w).reshape(5, -1, 32).max(-1)
    assert (err <= scale / 4 + 1e-6).all()


def test_bad_quantize_calls_raise(rng):
    with pytest.raises(ValueError, match="not a whole number of 256-value blocks"):
        ops.quantize(np.zeros((2, 300), np.float32), "q4_k")
    with pytest.raises(ValueError, match="unknown format"):
        ops.quantize(np.zeros((2, 32), np.float32), "q3_k")
    with pytest.raises(ValueError, match="rows of 19 bytes are not whole 18-byte blocks"):
        ops.dequantize(np.zeros((1, 19), np.uint8), "q4_0", 32)


@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("group", [32, 64, 128])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_mlx_affine_is_bit_exact_with_mx_quantize(bits, group, dtype, rng):
    mx = pytest.importorskip("mlx.core")
    w = weights(rng, 6, 256).astype(dtype)
    words, scales, biases = ops.quantize(w, f"mlx{bits}", group=group)
    mw, ms, mb = mx.quantize(mx.array(w), group_size=group, bits=bits)
    np.testing.assert_array_equal(words.numpy(), np.array(mw))
    np.testing.assert_array_equal(scales.numpy(), np.array(ms))
    np.testing.assert_array_equal(biases.numpy(), np.array(mb))
    ours = ops.dequantize(words, f"mlx{bits}", 256, group=group, scales=scales, biases=biases)
    theirs = np.array(mx.dequantize(mw, ms, mb, group_size=group, bits=bits))
    np.testing.assert_array_equal(ours.numpy(), theirs)


def test_bad_mlx_calls_raise(rng):
    with pytest.raises(ValueError, match="group size 48: MLX takes 32, 64 or 128"):
        ops.quantize(np.zeros((2, 96), np.float32), "mlx4", group=48)
    with pytest.raises(ValueError, match="not a whole number of 64-value groups"):
        ops.quantize(np.zeros((2, 96), np.float32), "mlx4", group=64)
    words, scales, biases = ops.quantize(np.zeros((2, 64), np.float32), "mlx4")
    with pytest.raises(ValueError, match="takes the scales and biases"):
        ops.dequantize(words, "mlx4", 64)
