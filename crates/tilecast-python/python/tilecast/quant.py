"""Quantized weights that know their format.

``tilecast.ops.quantize(w, "q4_0")`` returns a ``QuantizedWeight``: its packed buffers, the
format and the group, and the logical ``[N, K]`` shape. ``ops.qgemv(x, q)`` and
``ops.qgemm(x, q)`` take it as is; its bytes leave through DLPack (``np.from_dlpack(q)``) or
``q.numpy()``, as the GGUF bytes or MLX's u32 words. An MLX weight also unpacks as the
``(words, scales, biases)`` triple ``mx.quantize`` returns.
"""

from typing import Any, Iterator, List, Optional, Tuple

from . import _core

GGUF_FORMATS = ("q8_0", "q4_0", "q4_k")
MLX_FORMATS = ("mlx4", "mlx8")
# (values, bytes) per block of each GGUF format.
GGUF_BLOCKS = {"q8_0": (32, 34), "q4_0": (32, 18), "q4_k": (256, 144)}
MLX_BITS = {"mlx4": 4, "mlx8": 8}


class QuantizedWeight:
    """A weight matrix ``[N, K]`` packed as ``format``: ``data`` (GGUF: u8 ``[N, row bytes]``;
    MLX: u32 words ``[N, K * bits / 32]``), with MLX's ``scales`` and ``biases`` ``[N, K /
    group]``."""

    def __init__(self, format: str, data: "_core.Buffer", n: int, k: int,
                 group: Optional[int] = None, scales: Optional["_core.Buffer"] = None,
                 biases: Optional["_core.Buffer"] = None) -> None:
        self.format = format
        self.data = data
        self.n = n
        self.k = k
        self.group = group
        self.scales = scales
        self.biases = biases

    @property
    def logical_shape(self) -> Tuple[int, int]:
        """``(N, K)``: the shape of the weights it packs."""
        return (self.n, self.k)

    @property
    def shape(self) -> Tuple[int, ...]:
        """The packed data's shape (bytes for GGUF, words for MLX)."""
        return tuple(self.data.shape)

    @property
    def dtype(self) -> str:
        """The packed data's dtype: u8 (GGUF) or u32 (MLX words)."""
        return self.data.dtype

    def buffers(self) -> List["_core.Buffer"]:
        """The buffers a kernel reads, in its argument order."""
        if self.scales is None or self.biases is None:
            return [self.data]
        return [self.data, self.scales, self.biases]

    def numpy(self) -> Any:
        """The packed data as a numpy array (a copy)."""
        return self.data.numpy()

    def dequantize(self) -> "_core.Buffer":
        """The weights unpacked as ``[N, K]``: f32 for GGUF formats, the scales' type for MLX."""
        group = self.group if self.format in MLX_FORMATS else None
        return _core.dequantize(self.data, self.format, self.k, group, self.scales, self.biases)

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.data.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Tuple[int, int]:
        return self.data.__dlpack_device__()

    def __iter__(self) -> Iterator["_core.Buffer"]:
        if self.format not in MLX_FORMATS:
            raise TypeError(f"a {self.format} weight is one buffer (q.data); only MLX formats "
                            "unpack as (words, scales, biases)")
        return iter(self.buffers())

    def __getitem__(self, i: int) -> "_core.Buffer":
        return list(iter(self))[i]

    def __len__(self) -> int:
        if self.format not in MLX_FORMATS:
            raise TypeError(f"a {self.format} weight is one buffer (q.data)")
        return 3

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group else ""
        return f"QuantizedWeight({self.format}, [{self.n}, {self.k}]{group})"

