"""npusim: the bit-exact golden model of AI-accelerator tensor primitives, from Python.

numpy in, numpy out; every value is computed by the Rust crates of npusim (the same code as
the ``npusim`` command line).

>>> import numpy as np, ml_dtypes, npusim
>>> x = np.float32([0.1, 1.0, 500.0])
>>> npusim.cast(x, "f8e4m3fn", saturate=True)
array([0.101562, 1, 448], dtype='float8_e4m3fn')

* :func:`cast`, :class:`CastStats`: any array to any format, every rounding mode and policy;
* :func:`formats`, :class:`finfo`, :func:`dtype_of`, :class:`Codes`: the format table, and how
  formats numpy lacks travel with arrays;
* :func:`cast_file`: whole ``.safetensors`` files;
* :mod:`npusim.mx`: OCP MX and NVFP4 block-scaled formats;
* :mod:`npusim.ascend`, :mod:`npusim.furiosa`, :mod:`npusim.cerebras`: the vendor models.
"""

from . import _native
from ._native import (
    AscendError,
    BlockError,
    CastError,
    CastStats,
    CerebrasError,
    DtypeError,
    FileError,
    FormatError,
    FuriosaError,
    NpusimError,
)
from ._dtypes import Codes, dtype_of
from ._cast import cast
from ._finfo import finfo, formats
from ._file import cast_file
from . import ascend, cerebras, furiosa, mx

__all__ = [
    "cast", "cast_file", "CastStats", "mx", "ascend", "furiosa", "cerebras", "formats", "finfo", "dtype_of", "Codes",
    "NpusimError", "FormatError", "CastError", "FileError", "BlockError", "AscendError",
    "FuriosaError", "CerebrasError", "DtypeError",
]
