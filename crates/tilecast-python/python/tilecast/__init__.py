"""tilecast: GPU kernels written as tiles, run through wgpu, with DLPack 1.1 exchange.

>>> import numpy as np, tilecast
>>> x = tilecast.Buffer.from_numpy(np.ones((3, 5), np.float32))
>>> y = tilecast.ops.softmax(x)          # any DLPack object works as an input too
>>> np.from_dlpack(y)                    # host memory out (a copy for Private buffers)

Kernels are written in Python with ``tilecast.Kernel`` and ``@tilecast.jit`` (see
``tilecast.lang`` and docs/python-kernels.md).
"""

from ._core import (
    Buffer, Device, DType, Expr, Kernel, Param, Program, Stream, Tile, __version__, bf16,
    bitcast, block_x, block_y, block_z, cast, ceil_div, cos, erf, exp, exp2, f16, f32, floor,
    fma, from_dlpack, i8, i32, inf, live_exports, log, log2, max, min, neg_inf, pow, round,
    rsqrt, select, sin, sqrt, sym, tanh, thread_index, u8, u32,
)
from ._core import abs  # noqa: A004 - the kernel language's |x|, as tilecast.abs
from ._errors import KernelBuildError, KernelCompileError, KernelError, KernelVerifyError
from .lang import InOut, JitKernel, Out, Scalar, Tensor, jit
from . import lang, llm, ops

__all__ = [
    "Buffer", "Device", "Stream", "from_dlpack", "live_exports", "llm", "ops", "lang",
    "__version__",
    # writing kernels
    "Kernel", "Param", "Tile", "Expr", "Program", "DType", "jit", "JitKernel", "Tensor", "Out",
    "InOut", "Scalar", "KernelError", "KernelBuildError", "KernelVerifyError",
    "KernelCompileError",
    "f32", "f16", "bf16", "i32", "u32", "i8", "u8",
    "sym", "block_x", "block_y", "block_z", "thread_index", "ceil_div", "select", "cast",
    "bitcast", "fma", "max", "min", "pow", "inf", "neg_inf",
    "exp", "log", "sqrt", "rsqrt", "tanh", "erf", "exp2", "log2", "floor", "round", "sin", "cos",
    "abs",
]
