"""Type stubs of npusim.ascend (the AscendC Cast instruction)."""

from typing import Any, NamedTuple, Optional, Sequence, Union

import numpy as np

class CastResult(NamedTuple):
    dst: np.ndarray
    written: list[int]
    steps: int

def cast(src: Any, dst_dtype: str, mode: str = ..., mask: Union[int, Sequence[int], None] = ...,
         repeat_times: Optional[int] = ..., params: Optional[Sequence[int]] = ...,
         count: Optional[int] = ..., product: str = ..., api: str = ..., prior: Any = ...,
         **fields: Any) -> CastResult: ...
