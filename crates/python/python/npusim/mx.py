"""OCP Microscaling (MXFP8, MXFP6, MXFP4, MXINT8) and NVFP4 block-scaled formats, on
npusim-numerics' ``block`` module: the same bits as ``npusim quantize``.

Schemes: ``mxfp4``, ``mxfp6-e2m3``, ``mxfp6-e3m2``, ``mxfp8-e4m3``, ``mxfp8-e5m2``, ``mxint8``
(32 elements per block, one e8m0 scale) and ``nvfp4`` (16 e2m1 elements per block, an e4m3
scale per block, one f32 scale per tensor). Scale rules of MX schemes: ``floor`` (the OCP
specification's), ``ceil``, ``even``, ``rceil`` (NVIDIA's hardware rule).

>>> import numpy as np, npusim
>>> x = np.arange(64, dtype=np.float32).reshape(2, 32) / 8
>>> codes, scales = npusim.mx.quantize(x, "mxfp8-e4m3", scale_rule="floor")
>>> scales.view(np.uint8).tolist()
[[120], [121]]
>>> float(npusim.mx.dequantize(codes, scales, "mxfp8-e4m3")[1, 31])
7.0
"""

from __future__ import annotations

import numpy as np

from . import _native
from ._arrays import as_array, with_format
from ._dtypes import dtype_for, dtype_of

__all__ = ["quantize", "dequantize"]

_SOURCES = {"f32": np.float32, "f64": np.float64, "f16": np.uint16, "bf16": np.uint16}


def quantize(x, scheme: str, axis: int = -1, scale_rule=None, round: str = "rint", seed=None,
             tensor_scale="amax"):
    """Quantises ``x`` (f32, f64, f16 or bf16, any shape) in blocks along ``axis``.

    ``scale_rule`` (MX only): ``floor`` (default, the OCP rule), ``ceil``, ``even``,
    ``rceil``. ``round``: the element rounding mode (``hybrid`` is stochastic rounding, seeded
    by ``seed``). ``tensor_scale`` (NVFP4 only): ``"amax"`` (the published rule),
    ``"off"`` (block scales only) or a number. A last block shorter than the block size
    (an axis not divisible by it) quantises as if padded with zeros.

    Returns ``(codes, scales)`` for MX schemes and ``(codes, scales, tensor_scale)`` for
    NVFP4: ``codes`` has ``x``'s shape and the element format's ml_dtypes dtype
    (``float4_e2m1fn``, ``float6_e2m3fn``, ``float8_e4m3fn``, ``int8`` for MXINT8, ...), one
    element per byte; ``scales`` has ``x``'s shape with the block axis divided by the block
    size (rounded up) and dtype ``float8_e8m0fnu`` (MX) or ``float8_e4m3fn`` (NVFP4). A
    non-C-contiguous ``x`` is copied once into C order.

    >>> codes, scales = npusim.mx.quantize(np.ones((4, 32), np.float32), "mxfp4")
    >>> codes.dtype, scales.shape
    (dtype(float4_e2m1fn), (4, 1))
    """
    arr = as_array(x)
    fmt = dtype_of(arr)
    if fmt not in _SOURCES:
        raise _native.BlockError(
            f"block-scaled quantisation reads f32, f64, f16 or bf16 values, not {fmt}"
        )
    flat = np.ascontiguousarray(arr).reshape(-1).view(_SOURCES[fmt])
    ts = tensor_scale if isinstance(tensor_scale, str) else float(tensor_scale)
    r = _native.mx_quantize(flat, fmt, list(arr.shape), scheme, axis=axis,
                            scale_rule=scale_rule, round=round, seed=seed, tensor_scale=ts)
    codes = with_format(_view(r["codes"], r["element"]).reshape(arr.shape), r["element"])
    scales = _view(r["scales"], r["scale_format"]).reshape(r["scale_shape"])
    if r["scale_format"] == "f8e4m3fn":
        return codes, scales, r["tensor_scale"]
    return codes, scales


def dequantize(codes, scales, scheme: str, axis: int = -1, tensor_scale=None, to: str = "f32"):
    """The values of a block-scaled tensor (``codes`` and ``scales`` as :func:`quantize`
    returns them, or their uint8 codes), as ``to`` (f32, f64, f16 or bf16), in ``codes``'
    shape. NVFP4 takes its ``tensor_scale`` (None: block scales only).

    >>> codes, scales, ts = npusim.mx.quantize(np.float32([[1.5] * 16]), "nvfp4")
    >>> npusim.mx.dequantize(codes, scales, "nvfp4", tensor_scale=ts).tolist()[0][:2]
    [1.5, 1.5]
    """
    c = np.ascontiguousarray(as_array(codes))
    s = np.ascontiguousarray(as_array(scales))
    out_fmt = dtype_of(np.empty(0, dtype_for(to))) if dtype_for(to) is not None else to
    raw = _native.mx_dequantize(c.reshape(-1).view(np.uint8), s.reshape(-1).view(np.uint8),
                                list(c.shape), scheme, axis=axis, tensor_scale=tensor_scale,
                                to=out_fmt)
    return raw.view(dtype_for(out_fmt)).reshape(c.shape)


def _view(raw: np.ndarray, fmt: str) -> np.ndarray:
    dt = dtype_for(fmt)
    return raw.view(dt) if dt is not None else raw
