"""Bit-exact comparison of npusim.cast with a peer's conversion (ml_dtypes ``astype``, torch
``Tensor.to``): every differing element must fall in a documented class of difference, and
the counts are kept for the summary that pytest prints at the end (``conftest.py``)."""

from __future__ import annotations

import collections

import numpy as np

import npusim

#: (peer, kind) -> count: "compared" elements, "equal" ones, and one entry per difference class
TALLY: dict = collections.defaultdict(collections.Counter)

#: formats ml_dtypes or numpy has, with their dtype
import ml_dtypes as _md

ML = {
    "f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": _md.bfloat16,
    "f8e4m3fn": _md.float8_e4m3fn, "f8e4m3": _md.float8_e4m3, "f8e4m3fnuz": _md.float8_e4m3fnuz,
    "f8e5m2": _md.float8_e5m2, "f8e5m2fnuz": _md.float8_e5m2fnuz,
    "f8e4m3b11fnuz": _md.float8_e4m3b11fnuz, "f8e3m4": _md.float8_e3m4,
    "f8e8m0": _md.float8_e8m0fnu, "f6e2m3fn": _md.float6_e2m3fn, "f6e3m2fn": _md.float6_e3m2fn,
    "f4e2m1": _md.float4_e2m1fn, "i2": _md.int2, "i4": _md.int4, "u2": _md.uint2,
    "u4": _md.uint4, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
}
BITS = {r["name"]: r["bits"] for r in npusim.formats()}
INTS = {f for f in ML if f[0] in "iu"}
NO_NAN = {"f4e2m1", "f6e2m3fn", "f6e3m2fn"}
FNUZ = {"f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz"}


def codes(a: np.ndarray, fmt: str) -> np.ndarray:
    """The element codes of ``a`` (a ``fmt`` array) as uint64, masked to the format's bits."""
    a = np.ascontiguousarray(a)
    width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    c = a.view(width).astype(np.uint64)
    return c & np.uint64((1 << BITS[fmt]) - 1) if BITS[fmt] < 64 else c


def all_codes(fmt: str) -> np.ndarray:
    """Every code of a format of at most 16 bits, as an array of its dtype."""
    n = 1 << BITS[fmt]
    if fmt in INTS:
        lo = -(n // 2) if fmt[0] == "i" else 0
        return np.arange(lo, lo + n).astype(ML[fmt])
    raw = np.arange(n, dtype=np.uint16 if n > 256 else np.uint8)
    return raw.view(ML[fmt])


def as_f64(a: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return a.astype(np.float64)


def peer_cast(x: np.ndarray, dst: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        return x.astype(ML[dst])


def policy_for(src: str, dst: str) -> dict:
    """The npusim options that are ml_dtypes' / numpy's rule for this pair: IEEE for floats;
    C's truncation and wrapping into integers (npusim's ``non_saturating(Trunc)``)."""
    if dst in INTS:
        return {"round": "trunc", "saturate": False}
    return {}


def classify(x, src, dst, ours, theirs, kw):
    """The documented class of each differing element (an array of str), or "UNEXPECTED"."""
    xv = as_f64(x)
    ov, tv = as_f64(ours), as_f64(theirs)
    oc, tc = codes(ours, dst), codes(theirs, dst)
    out = np.full(len(x), "UNEXPECTED", dtype=object)
    # NaN payloads / signs: both results NaN
    out[np.isnan(ov) & np.isnan(tv)] = "nan payload or sign"
    # NaN into fp4/fp6 (no NaN): npusim +0, ml_dtypes a zero carrying the NaN's sign
    if dst in NO_NAN:
        out[np.isnan(xv) & (oc == 0) & (tv == 0)] = "fp4/fp6 NaN -> +0"
    if dst == "f8e8m0":
        with np.errstate(all="ignore"):
            m, _ = np.frexp(xv)
        tie = np.isfinite(xv) & (xv > 0) & (np.abs(m) == 0.75)
        even = (oc % 2 == 0) & (tc == oc + 1)
        out[tie & even] = "e8m0 ties to the even code"
        out[(xv == 0) & (oc == 0) & (tc == 0xFF)] = "e8m0 zero -> 2^-127"
        # below 1.5 * 2^-127 the nearest e8m0 value is 2^-127 (0x00); ml_dtypes gives 2^-126
        low = (xv > 2.0**-127) & (xv < 1.5 * 2.0**-127) & (oc == 0) & (tc == 1)
        out[low] = "e8m0 below 1.5*2^-127: ml_dtypes 2^-126"
        if src == "f64":
            # below f32's range ml_dtypes' f32 step gives 0, then NaN
            tiny = (np.abs(xv) < 2.0**-149) & (xv != 0) & (oc == 0) & (tc == 0xFF)
            out[tiny] = "double rounding through f32 (ml_dtypes)"
    if dst in INTS:
        n = BITS[dst]
        lo, hi = (-(2 ** (n - 1)), 2 ** (n - 1) - 1) if dst[0] == "i" else (0, 2**n - 1)
        with np.errstate(all="ignore"):
            t = np.trunc(xv)
        undefined = ~np.isfinite(xv) | (t < lo) | (t > hi)
        out[undefined & (out == "UNEXPECTED")] = "float out of int range (undefined in C)"
    if src in ("f64", "i64", "u64", "i32", "u32"):
        # ml_dtypes narrows these through f32 first: its result is a double rounding
        narrowed = npusim.cast(x, "f32")
        dbl = codes(npusim.cast(narrowed, dst, **kw), dst) == tc
        if dst == "f8e8m0":  # then ml_dtypes' own e8m0 tie rule (ties away)
            dbl |= codes(npusim.cast(narrowed, dst, round="round"), dst) == tc
        out[dbl & (out == "UNEXPECTED")] = "double rounding through f32 (ml_dtypes)"
    if src in FNUZ:
        out[np.isnan(xv) & (out == "UNEXPECTED") & (np.isnan(ov) | np.isnan(tv))] = (
            "fnuz NaN sign"
        )
    return out


def compare(x: np.ndarray, src: str, dst: str, peer="ml_dtypes", kind="") -> collections.Counter:
    """Casts ``x`` with npusim and with the peer; returns the tally and adds it to TALLY.
    Raises AssertionError listing the first unexplained differences."""
    kw = policy_for(src, dst)
    ours = npusim.cast(x, dst, **kw)
    try:
        theirs = peer_cast(x, dst)
    except TypeError:
        # ml_dtypes has no cast between e8m0 and the other 8-bit and sub-byte formats
        TALLY[(peer, kind)]["pairs the peer cannot cast"] += 1
        return collections.Counter({"pairs the peer cannot cast": 1})
    oc, tc = codes(ours, dst), codes(theirs, dst)
    diff = np.nonzero(oc != tc)[0]
    tally = collections.Counter(compared=len(x), equal=len(x) - len(diff))
    if len(diff):
        cls = classify(x[diff], src, dst, ours[diff], theirs[diff], kw)
        tally.update(cls.tolist())
        bad = diff[cls == "UNEXPECTED"]
        if len(bad):
            rows = [
                f"{src}->{dst} x={x[i]!r} ({int(codes(x[i:i+1], src)[0]):#x}): "
                f"npusim {int(oc[i]):#x}, {peer} {int(tc[i]):#x}"
                for i in bad[:8]
            ]
            raise AssertionError(f"{len(bad)} unexplained differences:\n" + "\n".join(rows))
    TALLY[(peer, kind)].update(tally)
    return tally
