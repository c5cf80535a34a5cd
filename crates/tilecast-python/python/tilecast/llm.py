"""Llama decoding on tilecast (the ``tilecast-llm`` crate): a GGUF file (F16, Q4_0, Q8_0 or
Q4_K tensors, multiplied in place) or a Hugging Face checkpoint directory, loaded once on the
package's device; ``prefill`` and ``decode`` return each pass's logits as a tilecast buffer
(DLPack: ``np.from_dlpack(logits)``, ``torch.from_dlpack(logits)``).

>>> import numpy as np, tilecast.llm
>>> m = tilecast.llm.load("model.gguf")           # or a checkpoint directory
>>> logits = m.prefill([[1, 15043, 3186]])       # [batch, vocab] f32, the last position's
>>> nxt = int(np.from_dlpack(logits)[0].argmax())
>>> logits = m.decode([nxt])                     # or m.decode(): the GPU's own greedy pick
"""

import os

from ._core import Llm, llm_load

__all__ = ["Llm", "load"]


def load(path, capacity: int = 4096) -> Llm:
    """Loads the model at ``path`` (a ``.gguf`` file or a checkpoint directory), with room in
    its KV cache for ``capacity`` positions (prompt and generated tokens) per sequence."""
    return llm_load(os.fspath(path), capacity)
