"""Every kernel of the tilecast library as a function: ``tilecast.ops.softmax(x)``,
``tilecast.ops.gemm(a, b)``.

The functions are generated from the kernel registry, so a kernel added to the registry is
callable here with no Python code. The registry finds the problem from the inputs' shapes and
says each argument's dtype; the main inputs' dtype picks the variant (``gemm`` on f16, f32,
bf16 or fp8 inputs; fp8 gemm also takes f32 scales). Inputs are tilecast Buffers or any DLPack object (numpy,
PyTorch CPU, MLX, ...; those are copied into a new buffer); scalar arguments (``eps=``) are
keywords overriding the registry's values; results are tilecast Buffers (one, or a tuple when
the kernel has several outputs).

``stream=`` encodes the launch into that ``tilecast.Stream`` (synchronize it before reading
results); without it, each call submits its own work (without waiting: reading a result waits).
``storage_mode=`` ('private', 'shared', 'managed') places the outputs (default: the device's).

Quantized matrix products take the packed weights ``quantize`` made: ``qgemv(x, w,
format="q4_0")`` for the GGUF formats (``format=`` names q4_0 or q4_k, whose bytes have the
same shape; q8_0 is found from the shape), ``qgemv(x, *quantize(w, "mlx4", group=64))`` for
MLX (format and group found from the shapes). ``x`` is ``[M, K]``: 1 to 8 rows for ``qgemv``,
any number (f16) for ``qgemm``; the result is ``[M, N]`` in ``x``'s type.
"""

from typing import Any, Callable, Dict, List, Tuple, Union

from . import _core

__all__: List[str] = []


def _as_buffer(x: Any) -> "_core.Buffer":
    if isinstance(x, _core.Buffer):
        return x
    if type(x).__module__ == "numpy" and type(x).__name__ == "ndarray":
        # numpy cannot export ml_dtypes' bf16/fp8 through DLPack; from_numpy copies any dtype.
        return _core.Buffer.from_numpy(x)
    return _core.from_dlpack(x)


def _make(name: str, description: str) -> Callable[..., Any]:
    def op(*inputs: Any, stream: Any = None, storage_mode: Any = None, format: Any = None,
           group: Any = None, **scalars: Any) -> Any:
        outs = _core.run_kernel(
            name, [_as_buffer(x) for x in inputs], scalars or None, stream, storage_mode,
            format, group
        )
        return outs[0] if len(outs) == 1 else tuple(outs)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{description}\n\nInputs and outputs: tilecast.ops.signature({name!r})."
    return op


def signature(name: str) -> Tuple[list, list, list, list, list]:
    """(inputs, outputs, dims, dtypes, scalars) of kernel ``name``: inputs and outputs as
    (name, dtype, rank) for its default dtype, the shape grammar's dimension names, the input
    dtypes it takes (the first is the default), and its scalar arguments as (name, default),
    each a keyword of the kernel's function (``eps=1e-5``)."""
    return _core.signature(name)


def arguments(name: str, shape: Any = None, dtype: Any = None) -> list:
    """(name, dtype, shape, role) of every argument of kernel ``name`` for ``shape`` (``"RxC"``
    text in the kernel's grammar) and ``dtype``; by default a small shape of its test suite."""
    return _core.arguments(name, shape, dtype)


def quantize(w: Any, format: str, group: int = 64) -> Any:
    """``w [N, K]`` (f32, f16 or bf16; any DLPack tensor) packed on the CPU as ``format``:
    ``"q8_0"``, ``"q4_0"``, ``"q4_k"`` give a u8 Buffer ``[N, row bytes]``, byte for byte as
    ggml lays the blocks out; ``"mlx4"``, ``"mlx8"`` give ``(words, scales, biases)`` as
    ``mx.quantize(w, group_size=group, bits=...)`` packs them (u32 words; scales and biases in
    ``w``'s type). See ``docs/quantization.md``. K must be a whole number of blocks or groups."""
    return _core.quantize(_as_buffer(w), format, group)


def dequantize(q: Any, format: str, k: int, group: int = 64, scales: Any = None,
               biases: Any = None) -> Any:
    """The ``[N, k]`` weights packed in ``q`` as ``format``: f32 for the GGUF formats (``q`` the
    u8 bytes); for ``mlx4``/``mlx8``, ``q`` the u32 words with ``scales`` and ``biases``, in
    their type."""
    conv = (lambda x: None if x is None else _as_buffer(x))
    return _core.dequantize(_as_buffer(q), format, k, group, conv(scales), conv(biases))


def names() -> List[str]:
    """Every kernel callable here."""
    return [n for n, _ in _core.kernels()]


for _name, _description in _core.kernels():
    globals()[_name] = _make(_name, _description)
    __all__.append(_name)
__all__ += ["signature", "arguments", "names", "quantize", "dequantize"]
