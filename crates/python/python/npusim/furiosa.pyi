"""Type stubs of npusim.furiosa (mapping expressions and pipelines)."""

import os
from typing import Any, NamedTuple, Optional, Union

import numpy as np

class Mapping:
    """A Furiosa mapping expression over declared axes."""

    def __init__(self, expr: str, **axes: int) -> None: ...
    @property
    def size(self) -> int: ...
    def cell(self, i: int) -> Union[dict[str, int], str]: ...
    def cells(self) -> list[Union[dict[str, int], str]]: ...
    def normalize(self) -> "Mapping": ...
    def __len__(self) -> int: ...

class RunResult(NamedTuple):
    output: np.ndarray
    layout: str
    stages: list[dict[str, Any]]
    cycles: int
    cycles_text: str

def run(pipeline: Union[str, "os.PathLike[str]", dict[str, Any]],
        input: Optional[Any] = ...) -> RunResult: ...

class KernelResult(NamedTuple):
    tensors: dict[str, Any]
    stages: list[str]
    cycles: int
    schedule: str
    trace: str

def run_kernel(pipeline: Union[str, "os.PathLike[str]", dict[str, Any]],
               inputs: Optional[dict[str, Any]] = ...) -> KernelResult: ...

from .furiosa_device import (Device as Device, DmTensor as DmTensor, DmView as DmView,
                             TuContext as TuContext, TuStream as TuStream)
