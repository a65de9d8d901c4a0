"""Huawei Ascend: the AscendC ``Cast`` instruction (npusim-ascend), the LocalTensor API of the
Atlas training series and the Ascend 950 MicroAPI, as ``npusim ascend cast`` runs it."""

from __future__ import annotations

import json
from typing import NamedTuple

import numpy as np

from . import _native
from ._arrays import as_array, with_format
from ._dtypes import dtype_for, dtype_of

__all__ = ["cast", "CastResult"]


class CastResult(NamedTuple):
    """What a Cast call did: the destination tensor (after the call: lanes it did not write
    keep ``prior`` or zeros), the destination indices it wrote, and its repeats (LocalTensor)
    or registers (Reg API)."""

    dst: np.ndarray
    written: list
    steps: int


def cast(src, dst_dtype: str, mode: str = "CAST_NONE", mask=None, repeat_times=None,
         params=None, count=None, product: str = "training", api: str = "local", prior=None,
         **fields) -> CastResult:
    """Runs one AscendC ``Cast(dst, src, mode, mask, repeatTimes, params)`` over ``src``.

    ``src``: a 1-d array whose dtype is the source type (``np.float16`` for ``half``,
    ``np.float32`` for ``float``, ``ml_dtypes.bfloat16``, ``ml_dtypes.int4`` for
    ``int4b_t``, ...). ``dst_dtype``: the destination type by AscendC name (``"half"``,
    ``"int32_t"``, ``"bfloat16_t"``, ...) or npusim name. ``mode``: ``CAST_NONE``,
    ``CAST_RINT``, ``CAST_FLOOR``, ``CAST_CEIL``, ``CAST_ROUND``, ``CAST_TRUNC``, ``CAST_ODD``,
    ``CAST_HYBRID``. ``mask``: the contiguous mask (an int) or the bitwise mask
    ``(mask[0], mask[1])``; ``repeat_times``; ``params``: ``UnaryRepeatParams`` as
    ``(dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)``; ``count``: the first-n
    API's ``calCount``. ``product``: ``"training"`` or ``"950"``; ``api``: ``"local"`` or
    ``"reg"``. Every other field of a call file (``deq_scale``, ``sat``, ``layout``, ``ctrl``,
    ``seed``, ``dst_len``, ...) is accepted as a keyword. ``prior``: the destination's
    contents before the call.

    >>> x = np.arange(128, dtype=np.float32) + 0.5
    >>> r = npusim.ascend.cast(x, dst_dtype="half", mode="CAST_RINT", mask=64,
    ...                        repeat_times=2, params=(1, 1, 4, 8), product="950")
    >>> r.dst.dtype, len(r.written)
    (dtype('float16'), 128)
    """
    arr = np.ascontiguousarray(as_array(src)).reshape(-1)
    src_fmt = dtype_of(arr)
    call = dict(fields)
    call.update(product=str(product), api=str(api), src=src_fmt, dst=str(dst_dtype),
                round=str(mode))
    if mask is not None:
        if isinstance(mask, (tuple, list)):
            call["mask_bits"] = [int(m) for m in mask]
        else:
            call["mask"] = int(mask)
    if repeat_times is not None:
        call["repeat"] = int(repeat_times)
    if params is not None:
        call["params"] = [int(p) for p in params]
    if count is not None:
        call["count"] = int(count)
    prior_bytes = None
    if prior is not None:
        prior_bytes = np.ascontiguousarray(as_array(prior)).reshape(-1).view(np.uint8)
    r = _native.ascend_cast(json.dumps(call), arr.view(np.uint8), src_fmt, prior_bytes)
    dt = dtype_for(r["dst_format"])
    dst = r["dst"].view(dt) if dt is not None else r["dst"]
    return CastResult(with_format(dst, r["dst_format"]), list(r["written"]), r["steps"])
