"""Cerebras WSE: CSL tensor access expressions and the SDK example programs on the multi-PE
simulator (npusim-cerebras), as ``npusim cerebras access`` / ``run`` do them."""

from __future__ import annotations

import json
from typing import NamedTuple

import numpy as np

from . import _native

__all__ = ["access", "run", "programs", "Access"]


class Access(NamedTuple):
    """A lowered tensor access: the DSD kind and its CSL text, offset, extent and stride,
    and the element indices it visits in access order."""

    kind: str
    dsd: str
    offset: int
    extent: list
    stride: list
    addresses: np.ndarray


def access(expr: str, strict: bool = False, kind=None, **arrays) -> Access:
    """Lowers a CSL tensor access expression over the one array given as a keyword (its
    shape), as a u16 array in one PE's memory. ``strict``: refuse addresses outside the
    array; ``kind``: ``"mem1d"`` or ``"mem4d"`` (default: mem1d for one loop variable).

    >>> a = npusim.cerebras.access("|i|{5} -> A[2 * i + 1]", A=(10,))
    >>> a.offset, a.extent, a.stride, a.addresses.tolist()
    (1, [5], [2], [1, 3, 5, 7, 9])
    """
    if len(arrays) != 1:
        raise TypeError(
            f"give the accessed array's shape as one keyword (A=(10,)), not {len(arrays)}"
        )
    (name, shape), = arrays.items()
    shape = [int(shape)] if isinstance(shape, int) else [int(d) for d in shape]
    r = _native.cerebras_access(expr, name, shape, strict=strict, kind=kind)
    return Access(r["kind"], r["dsd"], r["offset"], list(r["extent"]), list(r["stride"]),
                  r["addresses"])


def programs() -> list:
    """The names of the shipped example programs (``npusim cerebras run --list``)."""
    return _native.cerebras_programs()


def run(name: str, arch: str = "wse2") -> dict:
    """Runs a shipped example program on the simulator (``arch``: ``"wse2"`` or ``"wse3"``)
    and returns its report, as ``npusim cerebras run --json`` prints it: ``program``,
    ``arch``, ``cycles``, ``pass``, ``pes``, and ``outputs`` (each with ``got`` and
    ``expected`` as numpy arrays and ``pass``).

    >>> r = npusim.cerebras.run("gemv-08-routes-3", arch="wse3")
    >>> r["pass"]
    True
    """
    report = json.loads(_native.cerebras_run(name, arch))
    for out in report.get("outputs", []):
        for key in ("got", "expected"):
            if out.get(key) is not None:
                out[key] = np.asarray(out[key])
    return report
