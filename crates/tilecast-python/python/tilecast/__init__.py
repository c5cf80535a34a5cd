"""tilecast: GPU kernels written as tiles, run through wgpu, with DLPack 1.1 exchange.

>>> import numpy as np, tilecast
>>> x = tilecast.Buffer.from_numpy(np.ones((3, 5), np.float32))
>>> y = tilecast.ops.softmax(x)          # any DLPack object works as an input too
>>> np.from_dlpack(y)                    # host memory out (a copy for Private buffers)
"""

from ._core import Buffer, Device, Stream, __version__, from_dlpack, live_exports
from . import llm, ops

__all__ = ["Buffer", "Device", "Stream", "from_dlpack", "live_exports", "llm", "ops", "__version__"]
