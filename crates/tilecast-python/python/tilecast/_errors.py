"""The exceptions of kernels written in Python.

Every mistake in a kernel is a ``KernelError``: ``KernelBuildError`` (also a ``TypeError``) for
misuse the builder sees at once, ``KernelVerifyError`` (also a ``ValueError``) for a rule of the
language or a limit of the target that the verifier finds when the kernel is compiled, and
``KernelCompileError`` (also a ``RuntimeError``) for a compiler bug. Each carries the kernel,
the op at fault, and the file and line that wrote it.
"""

from typing import Optional


class KernelError(Exception):
    """A mistake in a kernel: ``message`` (the Rust verifier's text, unchanged), ``kernel``,
    ``op`` (the operation and tile at fault), and ``filename``/``lineno`` where it was written."""

    def __init__(self, message: str, *, kernel: Optional[str] = None, op: Optional[str] = None,
                 filename: Optional[str] = None, lineno: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        self.kernel = kernel
        self.op = op
        self.filename = filename
        self.lineno = lineno

    def __str__(self) -> str:
        if self.filename is None:
            return self.message
        return f"{self.message}\n  written at {self.filename}:{self.lineno}"


class KernelBuildError(KernelError, TypeError):
    """The builder was used wrongly (a bool of an expression, a tile of another kernel, an
    ``else_`` with no ``if_`` before it, ...): raised by the line at fault."""


class KernelVerifyError(KernelError, ValueError):
    """The kernel breaks a rule of the language or a limit of the target profile."""


class KernelCompileError(KernelError, RuntimeError):
    """The compiler failed on a kernel the verifier accepted: a bug to report."""
