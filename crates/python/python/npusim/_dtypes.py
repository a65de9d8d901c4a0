"""Which numpy dtype holds which npusim format, and how a format travels with an array.

Formats that numpy or ml_dtypes have come back with that dtype. The others (``hif8``,
``f4e1m2``) come back as :class:`Codes`: a ``uint8`` ndarray subclass whose ``.format`` names
the format of its codes. :func:`dtype_of` reads the format of any array.
"""

from __future__ import annotations

import numpy as np
import ml_dtypes

from . import _native

#: canonical format name -> numpy dtype, for every format numpy or ml_dtypes has
_DTYPES: dict[str, np.dtype] = {}


def _register() -> None:
    plain = {
        "f64": np.float64, "f32": np.float32, "f16": np.float16,
        "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
        "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    }
    for name, t in plain.items():
        _DTYPES[name] = np.dtype(t)
    ml = {
        "bf16": "bfloat16", "f8e4m3fn": "float8_e4m3fn", "f8e4m3": "float8_e4m3",
        "f8e4m3fnuz": "float8_e4m3fnuz", "f8e5m2": "float8_e5m2",
        "f8e5m2fnuz": "float8_e5m2fnuz", "f8e4m3b11fnuz": "float8_e4m3b11fnuz",
        "f8e3m4": "float8_e3m4", "f8e8m0": "float8_e8m0fnu", "f6e2m3fn": "float6_e2m3fn",
        "f6e3m2fn": "float6_e3m2fn", "f4e2m1": "float4_e2m1fn", "i2": "int2", "i4": "int4",
        "u2": "uint2", "u4": "uint4",
    }
    for name, attr in ml.items():
        t = getattr(ml_dtypes, attr, None)  # older ml_dtypes lack some; those become Codes
        if t is not None:
            _DTYPES[name] = np.dtype(t)


_register()
_BY_DTYPE = {dt: name for name, dt in _DTYPES.items()}


class Codes(np.ndarray):
    """The codes of a format that neither numpy nor ml_dtypes has (``hif8``, ``f4e1m2``):
    a ``uint8`` array, one code per element in its low bits, with ``.format`` naming the
    format. Slices and views keep the format; arithmetic on codes is meaningless.

    >>> h = npusim.cast(np.float32([1.0, 2.0]), "hif8")
    >>> h.format, npusim.dtype_of(h), npusim.cast(h, "f32")
    ('hif8', 'hif8', array([1., 2.], dtype=float32))
    """

    format: str

    def __new__(cls, codes: np.ndarray, format: str) -> "Codes":
        obj = np.asarray(codes, dtype=np.uint8).view(cls)
        obj.format = format
        return obj

    def __array_finalize__(self, obj) -> None:
        self.format = getattr(obj, "format", None)

    def __reduce__(self):
        return (Codes, (np.asarray(self), self.format))

    def __repr__(self) -> str:
        return f"Codes({np.asarray(self)!r}, format={self.format!r})"


Codes.__module__ = "npusim"  # as users name it

def canonical(name: str) -> str:
    """The canonical name of a format given by canonical name or alias (``"float8_e4m3fn"``
    → ``"f8e4m3fn"``); raises :class:`npusim.FormatError` for an unknown name."""
    if not isinstance(name, str):
        raise TypeError(f"a format name is a str, not {type(name).__name__}")
    known = _CANONICAL.get(name)
    if known is None:
        known = _native.format_row(name)["name"]
        if len(_CANONICAL) < 4096:  # names users write; bounded so odd inputs cannot grow it
            _CANONICAL[name] = known
    return known


#: canonical names of the names already resolved (a cast names two formats per call, and
#: resolving one builds a whole format row)
_CANONICAL: dict = {}


def dtype_for(name: str):
    """The numpy dtype that holds format ``name``, or None when only :class:`Codes` can."""
    return _DTYPES.get(canonical(name))


def format_of_dtype(dtype) -> str | None:
    """The format of a numpy dtype (native byte order assumed), or None."""
    dt = np.dtype(dtype)
    return _BY_DTYPE.get(dt.newbyteorder("=") if dt.byteorder not in "=|" else dt)


def dtype_of(x) -> str:
    """The npusim format of an array: its ``.format`` for :class:`Codes`, else the format of
    its dtype (``float32`` → ``"f32"``, ``ml_dtypes.float8_e4m3fn`` → ``"f8e4m3fn"``).

    >>> npusim.dtype_of(np.zeros(3, ml_dtypes.bfloat16))
    'bf16'
    """
    fmt = getattr(x, "format", None)
    if isinstance(x, Codes) and fmt is not None:
        return fmt
    dt = getattr(x, "dtype", None)
    if dt is None:
        x = np.asarray(x)
        dt = x.dtype
    try:
        name = format_of_dtype(dt)
    except TypeError:
        name = None
    if name is None:
        name = _torch_format(dt)
    if name is None:
        raise _native.DtypeError(
            f"npusim has no format for dtype {dt}; give the format of the codes with from_="
        )
    return name


def _torch_format(dt) -> str | None:
    """The format of a torch dtype (``torch.bfloat16`` → ``"bf16"``), or None."""
    text = str(dt)
    if not text.startswith("torch."):
        return None
    try:
        return canonical(text)
    except _native.FormatError:
        return None
