"""``npusim.cast``: any numpy array to any format, through the bulk kernels of npusim-numerics."""

from __future__ import annotations

import numpy as np

from . import _native
from ._arrays import as_array
from ._dtypes import Codes, canonical, dtype_for, dtype_of, format_of_dtype


def element_bytes(fmt: str) -> int:
    """Bytes per element of ``fmt`` in an array (one per byte below 8 bits)."""
    return max(1, _native.format_row(fmt)["bits"] // 8)


def source_format(arr: np.ndarray, from_) -> str:
    """The format of ``arr``'s elements: ``from_`` when given (the array then holds that
    format's codes, or is of its dtype), else :func:`dtype_of`."""
    if from_ is None:
        return dtype_of(arr)
    fmt = canonical(from_)
    own = dtype_for(fmt)
    if own is not None and arr.dtype == own:
        return fmt
    if arr.dtype.kind not in "uiV" or arr.dtype.itemsize != element_bytes(fmt):
        raise _native.DtypeError(
            f"from_={from_!r}: {fmt} codes take {element_bytes(fmt)}-byte integer elements, "
            f"but the array's dtype is {arr.dtype} ({arr.dtype.itemsize} bytes); npusim does "
            "not reinterpret another type's values"
        )
    if isinstance(arr, Codes) and arr.format not in (None, fmt):
        raise _native.DtypeError(f"from_={from_!r}, but the array holds {arr.format} codes")
    return fmt


def cast(x, to, round="rint", saturate=None, seed=None, stats=False, threads=None, from_=None,
         out=None):
    """Casts every element of ``x`` to format ``to``, bit-exact, with the fast kernels.

    Parameters
    ----------
    x : array_like
        A numpy array of any numpy or ml_dtypes dtype (C or Fortran order, or strided), a
        :class:`npusim.Codes`, a CPU torch tensor (bf16 and fp8 included), anything with
        ``__array__`` or ``__dlpack__``, or a sequence.
    to : str
        Destination format: a canonical name (``npusim.formats()``) or an alias
        (``"float8_e4m3fn"``, ``"bfloat16"``, ``"torch.float16"``, ...).
    round : str
        Rounding mode: ``rint`` (ties to even, default), ``round`` (ties away), ``floor``,
        ``ceil``, ``trunc``, ``odd``, ``hybrid`` (stochastic, seeded by ``seed``), ``none``;
        the AscendC ``CAST_*`` spellings too.
    saturate : bool or None
        ``None``: IEEE behaviour (overflow to Inf, or NaN where the format has no Inf);
        ``True``: overflow and ±Inf clamp to ±max, integers clamp; ``False``: never
        saturate (integers wrap). As the CLI's default, ``--saturate``, ``--no-saturate``.
    seed : int or None
        Seed of ``round="hybrid"``: element ``i`` (C-order index) draws a threshold from
        ``(seed, i)``, so the bits do not depend on threads or layout.
    stats : bool
        Also return a :class:`npusim.CastStats` with the error statistics of
        ``npusim cast --stats`` (max_abs, max_rel, rmse, sqnr_db, exact, flushed, saturated,
        nan, inf, ...).
    threads : int or None
        Threads of the cast (``None``: every core, as the CLI; 1: the calling thread).
    from_ : str or None
        The format of ``x``'s elements when its dtype does not say it (``uint8`` codes of
        ``hif8``, ...).
    out : numpy.ndarray or None
        A preallocated result to write into (and return) instead of a new array: C-contiguous,
        writable, of ``x``'s shape and of the dtype the result would have (``uint8`` for a
        format numpy and ml_dtypes lack). Reusing one buffer spares the page faults of a fresh
        allocation, as torch's ``copy_`` into an existing tensor does.

    Returns
    -------
    numpy.ndarray, or (numpy.ndarray, CastStats) with ``stats=True``
        The shape of ``x``, with the numpy / ml_dtypes dtype of ``to`` when one exists; else
        a :class:`npusim.Codes` (``uint8`` codes whose ``.format`` is ``to``). Sub-byte formats
        hold one element per byte, as ml_dtypes does. A Fortran-ordered input gives a
        Fortran-ordered output, anything else a C-ordered one.

    Copies: a C- or Fortran-contiguous input is read in place, and so is a strided one whose
    last axis is contiguous (row by row). The input is copied once first when its last axis
    is strided (``x[:, ::2]``), when its byte order is not native, and for a Fortran-ordered
    input under ``round="hybrid"`` (so the stochastic index stays the C-order index). The GIL
    is released during the cast (but for a contiguous one of fewer than 4096 elements,
    which takes less time than releasing it).

    Examples
    --------
    >>> import numpy as np, npusim
    >>> npusim.cast(np.float32([1.0, 1000.0]), "f8e4m3fn", saturate=True)
    array([1, 448], dtype='float8_e4m3fn')
    >>> y, st = npusim.cast(np.float32([0.1, 7.0]), "f4e2m1", stats=True)
    >>> st.exact, st.saturated
    (0, 1)
    """
    if (type(x) is _ndarray and from_ is None and type(to) is str and type(round) is str
            and (saturate is None or saturate is True or saturate is False)
            and (seed is None or type(seed) is int)
            and (threads is None or type(threads) is int)):
        fast = _PLAIN.get((x.dtype, to, round, saturate, seed, threads))
        if fast is not None and x.flags.c_contiguous and x.size:
            # a plain array under options already seen: no names resolved, no kernel chosen,
            # no figures built
            run, out_dtype = fast
            if out is None:
                y = _empty(x.shape, out_dtype)
            elif type(out) is _ndarray and out.dtype == out_dtype and out.shape == x.shape:
                flags = out.flags
                # a ready buffer of the result's dtype and shape (else checked below)
                y = out if flags.c_contiguous and flags.writeable else None
            else:
                y = None
            if y is not None:
                if x.ndim:
                    xb, yb = x.view(_U8), y.view(_U8)
                else:
                    xb, yb = x.reshape(1).view(_U8), y.reshape(1).view(_U8)
                if stats:
                    return y, run(xb, yb, True)
                run(xb, yb)
                return y
    arr = as_array(x)
    src_fmt = source_format(arr, from_)
    dst_fmt = canonical(to)
    mode = _native.round_name(round)
    out_dtype = dtype_for(dst_fmt) or np.dtype(np.uint8)
    if arr.dtype.byteorder not in "=|":
        arr = arr.astype(arr.dtype.newbyteorder("="))  # a copy: the kernels read native order
    codes_in = isinstance(arr, Codes)
    arr = np.asarray(arr) if codes_in else arr
    shape = arr.shape
    if arr.ndim == 0:
        arr = arr.reshape(1)
    kw = dict(round=mode, saturate=saturate, seed=seed, threads=threads, stats=bool(stats))
    given = out
    if out is not None:
        _check_out(out, shape, out_dtype)
    if out is not None and arr.size > 0 and arr.flags.c_contiguous:
        st = _native.cast_into(_bytes(arr), src_fmt, _bytes(out), dst_fmt, **kw)
    elif arr.size == 0:
        out = np.empty(shape, out_dtype) if out is None else out
        st = _native.cast_into(np.empty(0, np.uint8), src_fmt, np.empty(0, np.uint8), dst_fmt, **kw)
    elif arr.flags.c_contiguous:
        out = np.empty(shape, out_dtype)
        st = _native.cast_into(_bytes(arr), src_fmt, _bytes(out.reshape(-1)), dst_fmt, **kw)
    elif arr.flags.f_contiguous and mode != "hybrid" and out is None:
        out = np.empty(shape, out_dtype, order="F")
        st = _native.cast_into(_bytes(arr.T), src_fmt, _bytes(out.T.reshape(-1)), dst_fmt, **kw)
    else:
        if arr.strides[-1] != arr.itemsize:
            arr = np.ascontiguousarray(arr)  # one copy: a strided last axis has no byte rows
        out = np.empty(shape, out_dtype) if out is None else out
        flat = _bytes(out.reshape(-1))
        if arr.flags.c_contiguous:
            st = _native.cast_into(_bytes(arr), src_fmt, flat, dst_fmt, **kw)
        else:
            st = _native.cast_into(arr.view(np.uint8), src_fmt, flat, dst_fmt, rows=True, **kw)
    if (type(x) is np.ndarray and from_ is None and type(to) is str and type(round) is str
            and (saturate is None or saturate is True or saturate is False)
            and (seed is None or type(seed) is int)
            and (threads is None or type(threads) is int)
            and dtype_for(dst_fmt) is not None and x.dtype.byteorder in "=|"
            and len(_PLAIN) < 4096):
        # the options just worked: the repeat calls of a loop take the path above
        _PLAIN[(x.dtype, to, round, saturate, seed, threads)] = (
            _native.Prepared(src_fmt, dst_fmt, mode, saturate, seed, threads).run, out_dtype)
    if given is not None:
        out = given
    elif dtype_for(dst_fmt) is None:
        out = Codes(out, dst_fmt)
    return (out, st) if stats else out


#: (dtype, to, round, saturate, seed, threads) -> (the ``run`` of the parsed options and the
#: library's plan, result dtype) of the plain
#: native-order numpy arrays already cast to a format numpy or ml_dtypes has, under options of
#: exactly these types (so ``seed=5.0`` or ``saturate=1`` never match ``5`` or ``True``): the
#: repeat calls of a loop skip resolving names (bounded, so odd inputs cannot grow it)
_PLAIN: dict = {}

_U8 = np.dtype(np.uint8)
_ndarray = np.ndarray
_empty = np.empty


def _check_out(out, shape, dtype) -> None:
    """Refuses an ``out`` the cast cannot write into, naming what differs."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    if out.shape != tuple(shape):
        raise ValueError(f"out has shape {out.shape}; the result has shape {tuple(shape)}")
    if out.dtype != dtype:
        raise ValueError(f"out has dtype {out.dtype}; the result has dtype {dtype}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be C-contiguous and writeable")


def _bytes(a: np.ndarray) -> np.ndarray:
    """The bytes of a C-contiguous array as a 1-d ``uint8`` view."""
    return a.reshape(-1).view(np.uint8)
