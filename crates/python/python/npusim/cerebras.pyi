"""Type stubs of npusim.cerebras (tensor access expressions and example programs)."""

from typing import Any, NamedTuple, Optional, Sequence, Union

import numpy as np

class Access(NamedTuple):
    kind: str
    dsd: str
    offset: int
    extent: list[int]
    stride: list[int]
    addresses: np.ndarray

def access(expr: str, strict: bool = ..., kind: Optional[str] = ...,
           **arrays: Union[int, Sequence[int]]) -> Access: ...
def programs() -> list[str]: ...
def run(name: str, arch: str = ...) -> dict[str, Any]: ...
