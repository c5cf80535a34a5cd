from os import PathLike
from typing import Union

from ._core import Llm

__all__ = ["Llm", "load"]

def load(path: Union[str, PathLike[str]], capacity: int = 4096) -> Llm: ...
