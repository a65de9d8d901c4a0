"""Type stubs of npusim.mx (OCP MX and NVFP4 block-scaled formats)."""

from typing import Any, Optional, Union

import numpy as np

def quantize(x: Any, scheme: str, axis: int = ..., scale_rule: Optional[str] = ...,
             round: str = ..., seed: Optional[int] = ...,
             tensor_scale: Union[str, float] = ...) -> tuple: ...
def dequantize(codes: Any, scales: Any, scheme: str, axis: int = ...,
               tensor_scale: Optional[float] = ..., to: str = ...) -> np.ndarray: ...
