"""``npusim.formats()`` and ``npusim.finfo``: the format table, from npusim-numerics."""

from __future__ import annotations

from . import _native
from ._dtypes import dtype_for


def formats() -> list[dict]:
    """Every format npusim models, in table order, one dict each: ``name``, ``bits``,
    ``kind`` (float, hif8, int, uint), ``exp_bits``, ``man_bits``, ``bias``, ``max``, ``min``,
    ``min_normal``, ``min_positive``, ``eps``, ``has_inf``, ``has_nan``,
    ``has_negative_zero``, ``signed``, ``aliases``, ``summary`` (the table of
    ``npusim formats``).

    >>> [f["name"] for f in npusim.formats()][:4]
    ['f64', 'f32', 'f16', 'bf16']
    >>> next(f for f in npusim.formats() if f["name"] == "f8e4m3fn")["max"]
    448.0
    """
    return _native.format_table()


class finfo:
    """Machine limits of a floating-point format, like ``np.finfo`` / ``ml_dtypes.finfo``:
    ``bits``, ``max``, ``min``, ``eps``, ``smallest_normal`` (alias ``tiny``),
    ``smallest_subnormal``, ``nexp``, ``nmant``, ``bias``, ``dtype`` (the numpy / ml_dtypes
    dtype, or None), ``name``. Integer formats are refused, as by ``np.finfo``.

    >>> fi = npusim.finfo("f8e4m3fn")
    >>> fi.max, fi.smallest_normal, fi.eps, fi.bits
    (448.0, 0.015625, 0.125, 8)
    """

    def __init__(self, name: str):
        row = _native.format_row(name)
        if row["kind"] in ("int", "uint"):
            raise _native.FormatError(
                f"{row['name']} is an integer format; finfo describes floating-point formats "
                f"(its range is {row['min']}..{row['max']}, see npusim.formats())"
            )
        self.name: str = row["name"]
        self.bits: int = row["bits"]
        self.max: float = row["max"]
        self.min: float = row["min"]
        self.eps = row["eps"]
        self.smallest_normal: float = row["min_normal"]
        self.tiny: float = row["min_normal"]
        self.smallest_subnormal: float = row["min_positive"]
        self.nexp = row["exp_bits"]
        self.nmant = row["man_bits"]
        self.bias = row["bias"]
        self.has_inf: bool = row["has_inf"]
        self.has_nan: bool = row["has_nan"]
        self.dtype = dtype_for(self.name)
        self.aliases: list = row["aliases"]

    def __repr__(self) -> str:
        return (
            f"npusim.finfo({self.name!r}: bits={self.bits}, max={self.max}, min={self.min}, "
            f"eps={self.eps}, smallest_normal={self.smallest_normal}, "
            f"smallest_subnormal={self.smallest_subnormal})"
        )
