"""Kernels written in Python: ``@tilecast.jit`` over the tile language's builder.

A jitted function declares its tensors in its annotations and builds one kernel when first
called; calling it with DLPack tensors runs that kernel::

    import tilecast as tc

    @tc.jit
    def scale(X: tc.Tensor[tc.f32, "N"], Y: tc.Out[tc.f32, "N"], s: float) -> None:
        k = tc.Kernel(grid=[tc.ceil_div(X.shape[0], 256)], threads=256)
        with k.parallel(256) as i:
            n = tc.block_x() * 256 + i
            Y[n] = X[n] * s

    y = scale(np.arange(1000, dtype=np.float32), s=2.0)   # a tilecast.Buffer

- ``Tensor[dtype, dims...]`` is a read-only input, ``Out[...]`` an output (allocated when not
  given, and returned), ``InOut[...]`` a tensor the kernel reads and writes (always given).
  Dimension names are shape symbols, bound from the tensors at each call; numbers, and names
  of build-time constants, are fixed (a call with another size is refused).
- Parameters annotated ``float`` or ``int`` are f32 and i32 scalar arguments;
  ``Scalar[tc.u32]`` is a u32 argument that is also the shape symbol of its name.
- Keyword-only parameters (after ``*``) are build-time constants, like Triton's
  ``tl.constexpr``: each distinct set of values builds its own kernel.

The kernel is compiled once per (constants, profile) and loaded once; later calls only bind
the symbols and launch. ``fn.source("wgsl" | "msl" | "spirv" | "ir", profile=...)`` lists it,
for a device this machine does not have too.
"""

import functools
import inspect
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _core
from .ops import _as_buffer


class _TensorSpec:
    def __init__(self, role: str, item: Any) -> None:
        items = item if isinstance(item, tuple) else (item,)
        if not items:
            raise TypeError(f"{role}[...] needs a dtype, then one entry per dimension")
        self.role = role
        self.dtype = _dtype(items[0])
        self.dims = list(items[1:])
        if not self.dims:
            raise TypeError(f"{role}[{items[0]}] needs at least one dimension (a name or a size)")
        for d in self.dims:
            if not isinstance(d, (str, int)) or isinstance(d, bool):
                raise TypeError(
                    f"a dimension of {role}[...] is a symbol name or a whole number; got {d!r}"
                )

    def __repr__(self) -> str:
        return f"tilecast.{self.role}[{self.dtype}, {', '.join(map(repr, self.dims))}]"


class _ScalarSpec:
    def __init__(self, dtype: Any) -> None:
        self.dtype = _dtype(dtype)

    def __repr__(self) -> str:
        return f"tilecast.Scalar[{self.dtype}]"


def _dtype(d: Any) -> "_core.DType":
    if isinstance(d, _core.DType):
        return d
    if isinstance(d, str) and hasattr(_core, d) and isinstance(getattr(_core, d), _core.DType):
        dt: _core.DType = getattr(_core, d)
        return dt
    raise TypeError(f"expected a dtype (tilecast.f16, tilecast.f32, ...); got {d!r}")


class Tensor:
    """``Tensor[dtype, dims...]``: a read-only tensor parameter of a jitted kernel."""

    def __class_getitem__(cls, item: Any) -> Any:
        return _TensorSpec("Tensor", item)


class Out:
    """``Out[dtype, dims...]``: a tensor the kernel writes; allocated and returned when the
    caller does not pass one."""

    def __class_getitem__(cls, item: Any) -> Any:
        return _TensorSpec("Out", item)


class InOut:
    """``InOut[dtype, dims...]``: a tensor the kernel reads and writes; the caller passes it."""

    def __class_getitem__(cls, item: Any) -> Any:
        return _TensorSpec("InOut", item)


class Scalar:
    """``Scalar[dtype]``: a scalar argument (f32, i32, or u32, which is also a shape symbol)."""

    def __class_getitem__(cls, item: Any) -> Any:
        return _ScalarSpec(item)


class _Param:
    def __init__(self, name: str, kind: str, spec: Any, default: Any) -> None:
        self.name = name
        self.kind = kind  # "tensor", "scalar" or "const"
        self.spec = spec
        self.default = default


class JitKernel:
    """A function made a kernel by ``@tilecast.jit``: call it with tensors to run it."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)
        self._params: List[_Param] = []
        self._kernels: Dict[Tuple[Any, ...], Any] = {}
        self._programs: Dict[Tuple[Any, ...], Any] = {}
        sig = inspect.signature(fn, eval_str=True)
        for p in sig.parameters.values():
            ann = p.annotation
            default = None if p.default is inspect.Parameter.empty else p.default
            if p.kind == inspect.Parameter.KEYWORD_ONLY:
                self._params.append(_Param(p.name, "const", None, p.default))
            elif p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                raise TypeError(f"@tilecast.jit {fn.__name__}: *{p.name} parameters are not kernel "
                                "arguments; declare each tensor and scalar")
            elif isinstance(ann, _TensorSpec):
                self._params.append(_Param(p.name, "tensor", ann, default))
            elif isinstance(ann, _ScalarSpec):
                self._params.append(_Param(p.name, "scalar", ann.dtype, default))
            elif ann is float:
                self._params.append(_Param(p.name, "scalar", _core.f32, default))
            elif ann is int:
                self._params.append(_Param(p.name, "scalar", _core.i32, default))
            else:
                shown = "no annotation" if ann is inspect.Parameter.empty else repr(ann)
                raise TypeError(
                    f"@tilecast.jit {fn.__name__}: parameter {p.name} has {shown}; annotate it "
                    "tilecast.Tensor[dtype, dims...], Out[...], InOut[...], float, int or "
                    "Scalar[dtype], or make it keyword-only (after *) for a build-time constant"
                )

    def _constants(self, given: Dict[str, Any]) -> Dict[str, Any]:
        out = {}
        for p in self._params:
            if p.kind != "const":
                continue
            if p.name in given:
                out[p.name] = given.pop(p.name)
            elif p.default is not inspect.Parameter.empty:
                out[p.name] = p.default
            else:
                raise TypeError(f"{self.fn.__name__}() needs the build-time constant {p.name}=")
        return out

    def kernel(self, **constants: Any) -> "_core.Kernel":
        """The kernel the function builds for these constants (built once)."""
        consts = self._constants(dict(constants))
        key = tuple(sorted(consts.items()))
        if key in self._kernels:
            cached: _core.Kernel = self._kernels[key]
            return cached
        tensors = [p for p in self._params if p.kind == "tensor"]
        scalars = [p for p in self._params if p.kind == "scalar"]
        handles, exprs = _core.begin_trace(
            self.fn.__name__,
            [(p.name, p.spec.dtype, [consts.get(d, d) if isinstance(d, str) else d
                                      for d in p.spec.dims], p.spec.role != "Tensor")
             for p in tensors],
            [(p.name, p.spec) for p in scalars],
        )
        args: Dict[str, Any] = {}
        for p, h in zip(tensors, handles):
            args[p.name] = h
        for p, e in zip(scalars, exprs):
            args[p.name] = e
        try:
            self.fn(*[args[p.name] for p in self._params if p.kind != "const"], **consts)
        except BaseException:
            # The function's own error is the one to see; the trace just ends.
            try:
                _core.end_trace()
            except TypeError:
                pass
            raise
        k = _core.end_trace()
        self._kernels[key] = k
        return k

    def compile(self, profile: Optional[str] = None, **constants: Any) -> "_core.Program":
        """The kernel compiled for ``profile`` (default: this machine's device), once."""
        consts = self._constants(dict(constants))
        key = (tuple(sorted(consts.items())), profile)
        prog = self._programs.get(key)
        if prog is None:
            prog = self.kernel(**consts).compile(profile)
            self._programs[key] = prog
        return prog

    def source(self, target: str = "wgsl", profile: Optional[str] = None,
               **constants: Any) -> str:
        """The kernel's listing in ``target`` ("wgsl", "msl", "spirv", "ir") for ``profile``,
        as ``tilecast emit`` prints it: TileLang's ``get_kernel_source``."""
        return self.compile(profile, **constants).source(target)

    def __call__(self, *args: Any, stream: Any = None, storage_mode: Optional[str] = None,
                 **kwargs: Any) -> Any:
        consts = self._constants(kwargs)
        runtime = [p for p in self._params if p.kind != "const"]
        if len(args) > len(runtime):
            raise TypeError(f"{self.fn.__name__}() takes {len(runtime)} arguments "
                            f"({', '.join(p.name for p in runtime)}); got {len(args)}")
        values: Dict[str, Any] = {p.name: a for p, a in zip(runtime, args)}
        for name, v in kwargs.items():
            if name in values:
                raise TypeError(f"{self.fn.__name__}() got {name} twice")
            if name not in {p.name for p in runtime}:
                raise TypeError(f"{self.fn.__name__}() has no argument {name}; its arguments: "
                                f"{', '.join(p.name for p in self._params)}")
            values[name] = v
        buffers: List[Any] = []
        scalars: List[Any] = []
        outs: List[Tuple[int, Any]] = []
        for p in runtime:
            v = values.get(p.name, p.default)
            if p.kind == "scalar":
                if v is None:
                    raise TypeError(f"{self.fn.__name__}() needs scalar {p.name}")
                scalars.append(v)
                continue
            if v is None:
                if p.spec.role != "Out":
                    raise TypeError(f"{self.fn.__name__}() needs tensor {p.name} "
                                    f"({p.spec!r})")
                outs.append((len(buffers), None))
                buffers.append(None)
                continue
            b = _as_buffer(v)
            if b.dtype != p.spec.dtype.name:
                raise TypeError(f"{self.fn.__name__}(): {p.name} is {p.spec!r}; got a {b.dtype} "
                                f"tensor of shape {list(b.shape)}")
            if p.spec.role == "Out":
                outs.append((len(buffers), b))
            buffers.append(b)
        prog = self.compile(None, **consts)
        made = iter(prog.launch(buffers, scalars, stream, storage_mode))
        results = [b if b is not None else next(made) for _, b in outs]
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def __repr__(self) -> str:
        return f"<tilecast.jit kernel {self.fn.__name__}>"


def jit(fn: Callable[..., Any]) -> JitKernel:
    """Makes ``fn`` a kernel: see the module's documentation."""
    return JitKernel(fn)
