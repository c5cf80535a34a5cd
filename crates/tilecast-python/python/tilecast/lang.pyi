from typing import Annotated as InOut
from typing import Annotated as Out
from typing import Annotated as Tensor
from typing import Any, Callable, Optional

from . import _core

# `Tensor[tc.f16, "M", "K"]` is `Annotated[tc.f16, "M", "K"]` to a type checker, and `tc.f16`
# is a Param there: a jitted function's tensors type-check as parameters. `Scalar[...]` is for
# u32 scalars and is not a type to a checker; annotate f32 and i32 scalars `float` and `int`.
Scalar: Any

class JitKernel:
    fn: Callable[..., Any]
    def kernel(self, **constants: Any) -> _core.Kernel: ...
    def compile(self, profile: Optional[str] = None, **constants: Any) -> _core.Program: ...
    def source(self, target: str = "wgsl", profile: Optional[str] = None, **constants: Any) -> str: ...
    def __call__(self, *args: Any, stream: Any = None, storage_mode: Optional[str] = None, **kwargs: Any) -> Any: ...

def jit(fn: Callable[..., Any]) -> JitKernel: ...

__all__ = ["InOut", "Out", "Tensor", "Scalar", "JitKernel", "jit"]
