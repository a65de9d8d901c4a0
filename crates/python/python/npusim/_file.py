"""``npusim.cast_file``: whole tensor files, through npusim-io (the CLI's ``npusim cast``)."""

from __future__ import annotations

import os

from . import _native
from ._dtypes import canonical


def _globs(g) -> list:
    if g is None:
        return []
    return [g] if isinstance(g, str) else [str(p) for p in g]


def cast_file(src, dst, to, tensors=None, exclude=None, round="rint", saturate=None, seed=None,
              from_=None, stats=False, fail_on_nan=False, fail_on_empty=False, force=False,
              sync=False) -> list:
    """Casts a whole ``.safetensors`` (or ``.npy`` / raw) file to format ``to``, streamed in
    bounded memory and written through npusim-io's atomic writer: the output appears complete
    or not at all (an error leaves no file and an existing one untouched). The file types
    come from the extensions.

    Parameters are those of ``npusim cast``: ``tensors`` (names or globs to cast; default
    every floating-point tensor), ``exclude`` (globs never cast; wins over ``tensors``),
    ``round``, ``saturate``, ``seed`` (as :func:`npusim.cast`), ``from_`` (the source format
    of raw files and void-dtype .npy files), ``stats`` (error statistics per tensor),
    ``fail_on_nan`` (refuse, writing nothing, if a finite input becomes NaN or Inf),
    ``fail_on_empty`` (refuse if no tensor would be cast), ``force`` (allow replacing the
    input and read-only outputs), ``sync`` (fsync before the rename).

    Returns one dict per tensor, in file order: ``name``, ``action`` ("cast" or "kept"),
    ``shape``, ``text`` (the CLI's line); cast tensors also ``from``, ``to``, ``count``,
    ``nan``, ``inf``, ``saturated``, ``nonfinite_from_finite`` and ``stats`` (a
    :class:`npusim.CastStats` with ``stats=True``, else None); kept ones ``dtype`` and
    ``reason``. Errors raise :class:`npusim.FileError`.

    >>> reports = npusim.cast_file("model.safetensors", "model_e4m3.safetensors",
    ...                            to="f8e4m3fn", tensors=["*.mlp.*"])  # doctest: +SKIP
    >>> reports[0]["text"]  # doctest: +SKIP
    'model.layers.0.mlp.up: f32 -> f8e4m3fn, 2048 elements [64, 32] (0 NaN, 0 Inf, 0 saturated)'
    """
    return _native.cast_file(
        os.fspath(src), os.fspath(dst), canonical(to), tensors=_globs(tensors),
        exclude=_globs(exclude), round=round, saturate=saturate, seed=seed, from_=from_,
        stats=bool(stats), fail_on_nan=bool(fail_on_nan), fail_on_empty=bool(fail_on_empty),
        force=bool(force), sync=bool(sync),
    )
