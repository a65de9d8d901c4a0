"""Arrays in: numpy arrays, anything with ``__array__`` or DLPack (torch CPU tensors, JAX
arrays), torch tensors of types numpy lacks (bf16, fp8), Python sequences; all without a copy
where the layout allows."""

from __future__ import annotations

import numpy as np

from . import _native
from ._dtypes import Codes, dtype_for


def _is_torch(x) -> bool:
    return type(x).__module__.split(".")[0] == "torch"


def _torch_array(t) -> np.ndarray:
    """A numpy view of a CPU torch tensor, including dtypes numpy lacks (bf16, fp8), through
    the tensor's bytes; refuses a tensor on another device rather than moving it."""
    import torch

    if t.device.type != "cpu":
        raise _native.DtypeError(
            f"npusim reads CPU tensors; this one is on {t.device} (move it with .cpu())"
        )
    t = t.detach()
    try:
        return t.numpy()
    except TypeError:
        pass  # a dtype numpy lacks: read the bytes and view them as the ml_dtypes dtype
    from ._dtypes import _torch_format

    name = _torch_format(t.dtype)
    dt = dtype_for(name) if name else None
    if dt is None:
        raise _native.DtypeError(f"npusim has no numpy dtype for torch tensors of {t.dtype}")
    if t.dim() == 0:
        t = t.reshape(1)
        scalar = True
    else:
        scalar = False
    if t.stride(-1) != 1:
        t = t.contiguous()  # a copy: torch cannot view a non-contiguous last axis as bytes
    raw = t.view(torch.uint8).numpy().view(dt)
    return raw.reshape(()) if scalar else raw


def as_array(x) -> np.ndarray:
    """``x`` as a numpy array, without a copy where its layout allows."""
    if isinstance(x, np.ndarray):
        return x
    if _is_torch(x):
        return _torch_array(x)
    if hasattr(x, "__dlpack__") and not hasattr(x, "__array__"):
        try:
            return np.from_dlpack(x)
        except (TypeError, BufferError, RuntimeError):
            pass
    if hasattr(x, "__array__"):
        return np.asarray(x)
    if hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)
    return np.asarray(x)


def with_format(arr: np.ndarray, fmt: str):
    """``arr`` as :class:`Codes` of ``fmt`` when numpy has no dtype for it."""
    return arr if dtype_for(fmt) is not None else Codes(arr, fmt)
