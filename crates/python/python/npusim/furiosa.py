"""Furiosa RNGD: mapping expressions and whole pipelines (npusim-furiosa), as
``npusim furiosa map`` / ``npusim furiosa run`` evaluate them."""

from __future__ import annotations

import json
import os
from typing import NamedTuple

import numpy as np

from . import _native
from ._arrays import as_array, with_format
from ._dtypes import dtype_for, dtype_of

__all__ = ["Mapping", "run", "RunResult", "run_kernel", "KernelResult"]

#: ``Mapping(expr, **axes)``: a mapping expression (the text inside ``m![...]``) over the
#: axes given as keywords; ``.size``, ``.cell(i)``, ``.cells()``, ``.normalize()``.
Mapping = _native.Mapping
Mapping.__doc__ = """A Furiosa mapping expression over declared axes.

>>> m = npusim.furiosa.Mapping("A / 8, R # 4", A=64, R=4)
>>> m.size, m.cell(5)
(32, {'A': 8, 'R': 1})
"""


class RunResult(NamedTuple):
    """What a pipeline produced: the output stream's elements (one per physical position,
    padding included), its description, each stage's report and the cycle estimate."""

    output: np.ndarray
    layout: str
    stages: list
    cycles: int
    cycles_text: str


def _pipeline_text(pipeline):
    if isinstance(pipeline, dict):
        return json.dumps(pipeline), True
    with open(os.fspath(pipeline), encoding="utf-8") as f:
        return f.read(), False


def run(pipeline, input=None) -> RunResult:
    """Runs a pipeline (a pipeline file's path, or a dict of its fields) on ``input``: one
    element per physical position of the input stream, of the pipeline's dtype (``None``:
    the ramp 0, 1, 2, ... that ``npusim furiosa run`` uses without ``--input``).

    >>> p = {"axes": "B=4, A=8", "dtype": "i32", "chip": "1", "cluster": "1", "slice": "1",
    ...      "time": "B", "packet": "A",
    ...      "stage": [{"op": "cast", "dtype": "i8", "out_packet": "A # 32"}]}
    >>> r = npusim.furiosa.run(p, np.arange(32, dtype=np.int32))
    >>> r.output.dtype, r.output.size
    (dtype('int8'), 128)
    """
    text, is_json = _pipeline_text(pipeline)
    fmt, positions = _native.furiosa_input(text, is_json)
    if input is None:
        arr = np.arange(positions).astype(dtype_for(fmt))
    else:
        arr = np.ascontiguousarray(as_array(input)).reshape(-1)
        if dtype_of(arr) != fmt:
            raise _native.DtypeError(
                f"the pipeline's input dtype is {fmt}, but the array holds {dtype_of(arr)}"
            )
        if arr.size != positions:
            raise _native.FuriosaError(
                f"the input holds {arr.size} elements but the input stream has {positions} "
                "physical positions (padding included)"
            )
    r = _native.furiosa_run(text, is_json, arr.view(np.uint8))
    dt = dtype_for(r["output_format"])
    out = r["output"].view(dt) if dt is not None else r["output"]
    return RunResult(with_format(out, r["output_format"]), r["layout"], r["stages"],
                     r["cycles"], r["cycles_text"])


class KernelResult(NamedTuple):
    """What a kernel file produced: every DM tensor (declared and committed) as an array of
    its logical shape, a line per stage, the schedule's makespan (cycles per slice), its text
    and its Chrome trace (JSON text)."""

    tensors: dict
    stages: list
    cycles: int
    schedule: str
    trace: str


def run_kernel(pipeline, inputs=None) -> KernelResult:
    """Runs a kernel file (a pipeline file with ``[[dm]]`` tensors, given as its path or a
    dict of its fields) from DM to DM. ``inputs`` maps a DM tensor's name to an array of its
    logical shape (its ``logical`` axis order) and element type; tensors without one hold the
    ramp 0, 1, 2, ... as ``npusim furiosa run`` does.

    >>> k = {"axes": "B=4, A=8",
    ...      "dm": [{"name": "x", "dtype": "i32", "chip": "1", "cluster": "1", "slice": "1",
    ...              "element": "B, A", "address": 0}],
    ...      "stage": [{"op": "begin", "tensor": "x"},
    ...                {"op": "fetch", "time": "B", "packet": "A"},
    ...                {"op": "collect", "time": "B", "packet": "A"},
    ...                {"op": "cast", "dtype": "i8", "out_packet": "A # 32"},
    ...                {"op": "commit_trim", "packet": "A"},
    ...                {"op": "commit", "element": "B, A", "name": "y", "address": 128}]}
    >>> x = np.arange(32, dtype=np.int32).reshape(4, 8) * 37 - 500
    >>> r = npusim.furiosa.run_kernel(k, {"x": x})
    >>> r.tensors["y"][0, :3], r.cycles
    (array([12, 49, 86], dtype=int8), 4)
    """
    text, is_json = _pipeline_text(pipeline)
    given = []
    for name, value in (inputs or {}).items():
        arr = np.ascontiguousarray(as_array(value)).reshape(-1)
        given.append((name, dtype_of(arr), arr.view(np.uint8)))
    r = _native.furiosa_kernel(text, is_json, given)
    tensors = {}
    for name, (fmt, _order, shape, data) in r["tensors"].items():
        dt = dtype_for(fmt)
        arr = data.view(dt) if dt is not None else data
        tensors[name] = with_format(arr.reshape(shape), fmt)
    return KernelResult(tensors, r["stages"], r["cycles"], r["schedule"], r["trace"])


from .furiosa_device import Device, DmTensor, DmView, TuContext, TuStream  # noqa: E402

__all__ += ["Device", "DmTensor", "DmView", "TuContext", "TuStream"]
