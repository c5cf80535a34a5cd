"""Every kernel of the tilecast library as a function: ``tilecast.ops.softmax(x)``,
``tilecast.ops.gemm(a, b)``.

The functions are generated from the kernel registry, so a kernel added to the registry is
callable here with no Python code; ``help(ops.softmax)`` shows each one's inputs, outputs and
scalars. The registry finds the problem from the inputs' shapes and says each argument's
dtype; the main inputs' dtype picks the variant (``gemm`` on f16, f32, bf16 or fp8 inputs).

- Inputs: tilecast Buffers or any DLPack tensor (numpy, PyTorch CPU, MLX, ...; those are
  copied into a new buffer), by position or by name (``ops.linear(x, w, bias=b)``).
- Shapes: elementwise ops and casts take any shape (contiguous data is flat); row ops
  (softmax, norms, sum, max, argmax) take any rank, the last axis being the row; transpose
  swaps the last two axes of any rank from 2. Other ops take the rank their grammar says, and
  a wrong rank is a ValueError naming it.
- Scalars are keywords (``eps=1e-6``); a default of None follows from the shapes (attention's
  ``scale`` is 1/sqrt(D)).
- ``out=`` fills given buffers (one, or a tuple for several outputs) instead of allocating;
  ``stream=`` encodes the launch into that ``tilecast.Stream`` (synchronize it before reading
  results); without it each call submits its own work (reading a result waits).
  ``storage_mode=`` ('private', 'shared', 'managed') places allocated outputs.
- Results are tilecast Buffers: one, or a tuple when the kernel has several outputs.

Quantized weights: ``q = quantize(w, "q4_0")`` returns a ``QuantizedWeight`` that knows its
format, and ``qgemv(x, q)`` / ``qgemm(x, q)`` take it as is (``x`` is ``[M, K]``: 1 to 8 rows
for ``qgemv``). Raw packed bytes from elsewhere take ``format=`` (and ``group=`` for MLX).
"""

import builtins as _builtins
import inspect as _inspect
import typing as _t

from . import _core
from .quant import MLX_FORMATS as _MLX, QuantizedWeight

__all__: _t.List[str] = []

# Ops whose inputs may have any shape: one element per element.
_FLAT = ("N",)
# Ops over rows of the last axis.
_ROWS = ("R", "C")


def _describe(x: _t.Any) -> str:
    t = type(x)
    if x is None:
        return "None"
    if isinstance(x, (list, tuple)):
        return f"a {t.__name__} (wrap it as an array: np.asarray(x, dtype=np.float32))"
    if isinstance(x, (bool, int, float, complex)):
        return (f"a Python {t.__name__} (a scalar is not a tensor: scalar arguments are "
                "keywords, and a tensor of one value is np.full(shape, x))")
    if t.__module__ == "numpy":
        return f"a numpy scalar {t.__name__} (np.asarray(x) makes it a 0-d array)"
    return f"{t.__module__}.{t.__name__}"


def _as_buffer(x: _t.Any, what: str = "input") -> "_core.Buffer":
    """``x`` as a tilecast Buffer: itself, a copy of a numpy array (any dtype, through
    ml_dtypes too), or a DLPack import. Anything else is a TypeError naming ``what``."""
    if isinstance(x, _core.Buffer):
        return x
    if isinstance(x, QuantizedWeight):
        return x.data
    t = type(x)
    if t.__module__ == "numpy" and t.__name__ == "ndarray":
        # numpy cannot export ml_dtypes' bf16/fp8 through DLPack; from_numpy copies any dtype.
        return _core.Buffer.from_numpy(x)
    if hasattr(x, "__dlpack__") and t.__module__ != "numpy":
        return _core.from_dlpack(x)
    raise TypeError(f"{what} must be a tilecast.Buffer or a tensor with __dlpack__ (numpy, "
                    f"torch, MLX); got {_describe(x)}")


def _summary(text: str) -> str:
    """A registry summary without the command line's options (Python takes them from shapes)."""
    return text.split("; options")[0]


def _make(name: str, summary: str) -> _t.Callable[..., _t.Any]:
    ins, outs, dims, _dtypes, scalars = _core.signature(name)
    in_names = [n for n, _, _ in ins]
    in_ranks = [r for _, _, r in ins]
    out_names = [n for n, _, _ in outs]
    out_ranks = [r for _, _, r in outs]
    scalar_defaults = dict(scalars)
    quantized = name in ("qgemv", "qgemm")
    mode = ("flat" if tuple(dims) == _FLAT else "rows" if tuple(dims) == _ROWS
            else "last2" if name == "transpose" else None)
    keywords = {n.lower(): i for i, n in enumerate(in_names)}
    keywords.update({n: i for i, n in enumerate(in_names)})

    def op(*args: _t.Any, **kwargs: _t.Any) -> _t.Any:
        stream = kwargs.pop("stream", None)
        storage_mode = kwargs.pop("storage_mode", None)
        out = kwargs.pop("out", None)
        fmt = kwargs.pop("format", None) if quantized else None
        group = kwargs.pop("group", None) if quantized else None
        given: _t.List[_t.Any] = list(args)
        by_name: _t.Dict[int, _t.Any] = {}
        for key in list(kwargs):
            if key in keywords:
                i = keywords[key]
                if i < len(given) or i in by_name:
                    raise TypeError(f"{name}() got input {in_names[i]} twice")
                by_name[i] = kwargs.pop(key)
        if by_name:
            given += [None] * (_builtins.max(by_name) + 1 - len(given))
            for i, v in by_name.items():
                given[i] = v
        values: _t.Dict[str, float] = {}
        for key, v in kwargs.items():
            if key not in scalar_defaults:
                known = ([n.lower() for n in in_names] + list(scalar_defaults)
                         + (["format", "group"] if quantized else [])
                         + ["out", "stream", "storage_mode"])
                raise TypeError(f"{name}() got an unexpected keyword argument {key!r}; it takes "
                                f"{', '.join(known)}")
            if not isinstance(v, (int, float)):
                raise TypeError(f"{name}(): scalar {key} is a number; got {_describe(v)}")
            values[key] = float(v)
        if not quantized:
            missing = [in_names[i] for i in range(len(in_names))
                       if i >= len(given) or given[i] is None]
            if missing:
                raise TypeError(f"{name}() needs input(s) {', '.join(missing)}")
        if quantized:
            expanded: _t.List[_t.Any] = []
            for x in given:
                if isinstance(x, QuantizedWeight):
                    if fmt is not None and fmt != x.format:
                        raise ValueError(f"{name}: format={fmt!r} but the weight is {x.format}")
                    if group is not None and group != x.group:
                        raise ValueError(f"{name}: group={group} but the weight is {x!r}")
                    fmt, group = x.format, (x.group if x.format in _MLX else None)
                    expanded.extend(x.buffers())
                else:
                    expanded.append(x)
            given = expanded
        names = in_names if not quantized else [f"input {i}" for i in range(len(given))]
        bufs = [_as_buffer(x, f"{name}: {n}") for x, n in zip(given, names)]
        bufs, restore = _shape_inputs(name, mode, bufs, in_names, in_ranks, quantized)
        outs_given = None
        if out is not None:
            outs_given = list(out) if isinstance(out, (tuple, list)) else [out]
            if len(outs_given) != len(out_names):
                raise ValueError(f"{name}: out= takes {len(out_names)} buffer(s) "
                                 f"({', '.join(out_names)}); got {len(outs_given)}")
            for o in outs_given:
                if not isinstance(o, _core.Buffer):
                    raise TypeError(f"{name}: out= takes tilecast Buffers; got {_describe(o)}")
        views = None
        if outs_given is not None:
            views = [restore.kernel_view(o, r) for o, r in zip(outs_given, out_ranks)]
        results = _core.run_kernel(name, bufs, values or None, stream, storage_mode, fmt,
                                   group, views)
        if outs_given is not None:
            final = outs_given
        else:
            final = [restore.caller_view(b, r) for b, r in zip(results, out_ranks)]
        return final[0] if len(final) == 1 else tuple(final)

    _document(op, name, summary, ins, outs, scalars, quantized, mode)
    return op


def _prod(dims: _t.Sequence[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


class _Restore:
    """How a call's inputs were reshaped for the kernel, and how its outputs go back."""

    def __init__(self, lead: _t.Tuple[int, ...] = (), mode: _t.Optional[str] = None,
                 flat_shape: _t.Tuple[int, ...] = ()) -> None:
        self.lead = lead
        self.mode = mode
        self.flat_shape = flat_shape

    def caller_view(self, b: "_core.Buffer", rank: int) -> "_core.Buffer":
        if self.mode == "flat":
            return b.reshape(self.flat_shape)
        if self.mode in ("rows", "last2"):
            return b.reshape(tuple(self.lead) + tuple(b.shape[1:]))
        return b

    def kernel_view(self, b: "_core.Buffer", rank: int) -> "_core.Buffer":
        if self.mode == "flat":
            return b.reshape(-1)
        if self.mode in ("rows", "last2"):
            return b.reshape((_prod(self.lead),) + tuple(b.shape[len(self.lead):])) if rank > 1 \
                else b.reshape(-1)
        return b


def _shape_inputs(name: str, mode: _t.Optional[str], bufs: _t.List["_core.Buffer"],
                  in_names: _t.List[str], in_ranks: _t.List[int],
                  quantized: bool) -> _t.Tuple[_t.List["_core.Buffer"], _Restore]:
    if mode == "flat":
        first = tuple(bufs[0].shape)
        for b, n in zip(bufs[1:], in_names[1:]):
            if tuple(b.shape) != first:
                raise ValueError(f"{name}: {in_names[0]} has shape {list(first)} and {n} "
                                 f"{list(b.shape)}; elementwise inputs have one shape (no "
                                 "broadcasting)")
        return [b.reshape(-1) for b in bufs], _Restore(mode="flat", flat_shape=first)
    if mode in ("rows", "last2"):
        need = 1 if mode == "rows" else 2
        main = bufs[0]
        if main.ndim < need:
            raise ValueError(f"{name} takes {in_names[0]} of rank {need} or more; got a 0-d "
                             "buffer")
        keep = 1 if mode == "rows" else 2
        lead = tuple(main.shape[:main.ndim - keep])
        out = []
        for b, n, r in zip(bufs, in_names, in_ranks):
            if r >= keep + 1:
                if tuple(b.shape[:b.ndim - keep]) != lead or b.ndim < keep:
                    raise ValueError(f"{name}: {n} has shape {list(b.shape)}; its leading axes "
                                     f"must be {in_names[0]}'s, {list(lead)}")
                out.append(b.reshape((_prod(lead),) + tuple(b.shape[b.ndim - keep:])))
            else:
                out.append(b)
        return out, _Restore(lead=lead, mode=mode)
    if not quantized:
        for b, n, r in zip(bufs, in_names, in_ranks):
            # gemv's X may carry a leading axis of rows (a batch's step: ``rows=M``).
            if b.ndim != r and not (name == "gemv" and n == "X" and b.ndim == r + 1):
                raise ValueError(f"{name} takes {n} of rank {r}; got shape {list(b.shape)} "
                                 f"(see help(tilecast.ops.{name}))")
    return bufs, _Restore()


def _document(op: _t.Callable[..., _t.Any], name: str, summary: str, ins: _t.Any, outs: _t.Any,
              scalars: _t.Any, quantized: bool, mode: _t.Optional[str]) -> None:
    P = _inspect.Parameter
    params = [P(n.lower(), P.POSITIONAL_OR_KEYWORD) for n, _, _ in ins]
    extra = []
    if quantized:
        extra += [P("format", P.KEYWORD_ONLY, default=None), P("group", P.KEYWORD_ONLY,
                                                              default=None)]
    extra += [P(n, P.KEYWORD_ONLY, default=d) for n, d in scalars]
    extra += [P("out", P.KEYWORD_ONLY, default=None), P("stream", P.KEYWORD_ONLY, default=None),
              P("storage_mode", P.KEYWORD_ONLY, default=None)]
    op.__signature__ = _inspect.Signature(params + extra)  # type: ignore[attr-defined]
    op.__name__ = op.__qualname__ = name
    shape_note = {
        "flat": "Inputs of any shape (one shape for all); the output has it.",
        "rows": "Rows along the last axis; leading axes of any rank are rows too.",
        "last2": "The last two axes swapped, for any rank from 2.",
    }.get(mode or "", "")
    lines = [_summary(summary) + ".", ""]
    if shape_note:
        lines += [shape_note, ""]
    lines.append("Inputs: " + ", ".join(f"{n.lower()} (rank {r})" for n, _, r in ins) +
                 (" (MLX weights: words, scales, biases; or a QuantizedWeight)" if quantized
                  else ""))
    lines.append("Outputs: " + ", ".join(f"{n} ({d}, rank {r})" for n, d, r in outs))
    if scalars:
        lines.append("Scalars: " + ", ".join(
            f"{n}={'from the shapes' if d is None else d}" for n, d in scalars))
    op.__doc__ = "\n".join(lines)


def signature(name: str) -> _t.Tuple[_t.Any, _t.Any, _t.Any, _t.Any, _t.Any]:
    """(inputs, outputs, dims, dtypes, scalars) of kernel ``name``: inputs and outputs as
    (name, dtype, rank) for its default dtype, the shape grammar's dimension names, the input
    dtypes it takes (the first is the default), and its scalar arguments as (name, default),
    each a keyword of the kernel's function (``eps=1e-5``); a default of None follows from the
    inputs' shapes."""
    return _core.signature(name)


def arguments(name: str, shape: _t.Any = None, dtype: _t.Any = None) -> _t.List[_t.Any]:
    """(name, dtype, shape, role) of every argument of kernel ``name`` for ``shape`` (``"RxC"``
    text in the kernel's grammar) and ``dtype``; by default a small shape of its test suite."""
    return _core.arguments(name, shape, dtype)


def quantize(w: _t.Any, format: str, group: _t.Optional[int] = None) -> QuantizedWeight:
    """``w [N, K]`` (f32, f16 or bf16; any DLPack tensor) packed on the CPU as ``format``:
    ``"q8_0"``, ``"q4_0"``, ``"q4_k"`` byte for byte as ggml lays the blocks out; ``"mlx4"``,
    ``"mlx8"`` as ``mx.quantize(w, group_size=group, bits=...)`` packs them (``group`` 64 by
    default; GGUF formats have fixed blocks, so a group there is an error). Returns a
    ``QuantizedWeight``, which ``qgemv``/``qgemm`` take as is. See ``docs/quantization.md``."""
    b = _as_buffer(w, "quantize: w")
    fmt = format.lower()
    packed = _core.quantize(b, fmt, group)
    n = b.shape[0] if b.ndim == 2 else 1
    k = b.shape[-1]
    if fmt in _MLX:
        words, scales, biases = packed
        return QuantizedWeight(fmt, words, n, k, group or 64, scales, biases)
    return QuantizedWeight(fmt, packed, n, k)


def dequantize(q: _t.Any, format: _t.Optional[str] = None, k: _t.Optional[int] = None,
               group: _t.Optional[int] = None, scales: _t.Any = None,
               biases: _t.Any = None) -> _t.Any:
    """The ``[N, K]`` weights packed in ``q``: a ``QuantizedWeight``, or raw packed data with
    its ``format`` (GGUF: the u8 bytes; MLX: the u32 words with ``scales`` and ``biases``).
    f32 for GGUF formats, the scales' type for MLX. K (and MLX's group) follow from the
    shapes; a ``k`` or ``group`` given must agree with them."""
    if isinstance(q, QuantizedWeight):
        if format is not None and format.lower() != q.format:
            raise ValueError(f"dequantize: format={format!r} but the weight is {q.format}")
        return _core.dequantize(q.data, q.format, k, group, q.scales, q.biases)
    if format is None:
        raise TypeError("dequantize: raw packed data needs its format= (q8_0, q4_0, q4_k, mlx4, "
                        "mlx8)")
    def conv(x: _t.Any) -> _t.Any:
        return None if x is None else _as_buffer(x, "dequantize")
    return _core.dequantize(_as_buffer(q, "dequantize: q"), format.lower(), k, group,
                            conv(scales), conv(biases))


def names() -> _t.List[str]:
    """Every kernel callable here."""
    return [n for n, _ in _core.kernels()]


for _name, _description in _core.kernels():
    globals()[_name] = _make(_name, _description)
    __all__.append(_name)
__all__ += ["signature", "arguments", "names", "quantize", "dequantize", "QuantizedWeight"]


def __dir__() -> _t.List[str]:
    return sorted(__all__)

