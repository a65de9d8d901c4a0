"""Type stubs of the npusim package (see the module docstrings for the full descriptions)."""

import os
from typing import Any, Literal, Optional, Sequence, Union, overload

import numpy as np
import numpy.typing as npt

from . import ascend as ascend
from . import cerebras as cerebras
from . import furiosa as furiosa
from . import mx as mx

ArrayLike = Any
PathLike = Union[str, "os.PathLike[str]"]

class NpusimError(ValueError): ...
class FormatError(NpusimError): ...
class CastError(NpusimError): ...
class FileError(NpusimError): ...
class BlockError(NpusimError): ...
class AscendError(NpusimError): ...
class FuriosaError(NpusimError): ...
class CerebrasError(NpusimError): ...
class DtypeError(TypeError): ...

class CastStats:
    """What a cast did: counts, and the error figures of ``npusim cast --stats``."""

    total: int
    exact: int
    flushed: int
    saturated: int
    nan: int
    inf: int
    nan_inputs: Optional[int]
    inf_inputs: Optional[int]
    measured: Optional[int]
    max_abs: Optional[float]
    max_rel: Optional[float]
    rmse: Optional[float]
    sqnr_db: Optional[float]
    status: list[tuple[str, int]]
    def as_dict(self) -> dict[str, Any]: ...

class Codes(np.ndarray):
    """uint8 codes of a format numpy and ml_dtypes lack (hif8, f4e1m2), with ``.format``."""

    format: str
    def __new__(cls, codes: npt.ArrayLike, format: str) -> "Codes": ...

@overload
def cast(x: ArrayLike, to: str, round: str = ..., saturate: Optional[bool] = ...,
         seed: Optional[int] = ..., stats: Literal[False] = ..., threads: Optional[int] = ...,
         from_: Optional[str] = ..., out: Optional[np.ndarray] = ...) -> np.ndarray: ...
@overload
def cast(x: ArrayLike, to: str, round: str = ..., saturate: Optional[bool] = ...,
         seed: Optional[int] = ..., *, stats: Literal[True], threads: Optional[int] = ...,
         from_: Optional[str] = ..., out: Optional[np.ndarray] = ...
         ) -> tuple[np.ndarray, CastStats]: ...
def cast_file(src: PathLike, dst: PathLike, to: str,
              tensors: Union[str, Sequence[str], None] = ...,
              exclude: Union[str, Sequence[str], None] = ..., round: str = ...,
              saturate: Optional[bool] = ..., seed: Optional[int] = ...,
              from_: Optional[str] = ..., stats: bool = ..., fail_on_nan: bool = ...,
              fail_on_empty: bool = ..., force: bool = ..., sync: bool = ...) -> list[dict[str, Any]]: ...
def formats() -> list[dict[str, Any]]: ...
def dtype_of(x: ArrayLike) -> str: ...

class finfo:
    """Machine limits of a floating-point format (like np.finfo / ml_dtypes.finfo)."""

    name: str
    bits: int
    max: float
    min: float
    eps: Optional[float]
    smallest_normal: float
    tiny: float
    smallest_subnormal: float
    nexp: Optional[int]
    nmant: Optional[int]
    bias: Optional[int]
    has_inf: bool
    has_nan: bool
    dtype: Optional[np.dtype]
    aliases: list[str]
    def __init__(self, name: str) -> None: ...
