#!/usr/bin/env python3
"""Generate reference cast vectors for npusim from numpy + ml_dtypes.

For every (source, destination) pair of low-precision formats this script
records what ``src_array.astype(dst_dtype)`` produces in ml_dtypes, quirks
included, so that the Rust golden model can be compared against ml_dtypes in
tests without needing Python in CI.

Inputs per source format:

* 2/4/6/8/16-bit sources are exhaustive: every code in increasing code order
  (sub-byte formats one code per byte in the low bits: f4e2m1, i4 and u4 codes
  0..15, f6* codes 0..63, i2 and u2 codes 0..3; i4 code 8 is -8, i2 code 2 is
  -2; 16-bit sources: the little-endian 16-bit pattern).
* f32, f64 and u64 are sampled: a deterministic list of boundary values,
  rounding ties and their neighbours, specials and NaN payloads (duplicates
  removed, first occurrence kept), followed by random bit patterns drawn from
  ``numpy.random.default_rng(SEED)``.  The sampled inputs are written as
  ``f32_inputs.bin.gz`` / ``f64_inputs.bin.gz`` / ``u64_inputs.bin.gz``.

Outputs: one ``{src}__{dst}.bin.gz`` per pair, the gzip (mtime=0) of the
destination codes, little-endian, one element of the destination's byte size
per input.  ``manifest.json`` lists the versions, the seed, and the count and
sha256 (of the uncompressed payload) of every file.

Float destinations are generated from every source.  Integer destinations
only for the ml_dtypes sub-byte integers (i2, u2, u4) and only from f32:
numpy's float->int casts are undefined behaviour in C when out of range, and
ml_dtypes' intN casts are C casts too (truncation, then the low bits).  Pairs
that ml_dtypes refuses to cast are skipped and listed in the manifest under
``skipped``.

``--report`` additionally prints measured ml_dtypes behaviours (overflow,
NaN handling, e8m0 rounding, mismatches against a correctly rounded
reference) computed from the generated vectors.

Usage:
    pip install -r tools/requirements.txt
    python3 tools/gen_ml_dtypes_vectors.py [--out DIR] [--report]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import platform
import sys
import warnings
from pathlib import Path

import ml_dtypes
import numpy as np

SEED = 20261122
N_RANDOM_F32 = 1 << 18
N_RANDOM_F64 = 1 << 16
N_RANDOM_U64 = 1 << 13

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "crates" / "numerics" / "tests" / "vectors" / "ml_dtypes"

DTYPES = {
    "f64": np.dtype(np.float64),
    "f32": np.dtype(np.float32),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f8e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "f8e8m0": np.dtype(ml_dtypes.float8_e8m0fnu),
    "f4e2m1": np.dtype(ml_dtypes.float4_e2m1fn),
    "i4": np.dtype(ml_dtypes.int4),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    # the ml_dtypes formats added with issue 7
    "f8e4m3": np.dtype(ml_dtypes.float8_e4m3),
    "f8e4m3fnuz": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8e5m2fnuz": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8e4m3b11fnuz": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    "f8e3m4": np.dtype(ml_dtypes.float8_e3m4),
    "f6e2m3fn": np.dtype(ml_dtypes.float6_e2m3fn),
    "f6e3m2fn": np.dtype(ml_dtypes.float6_e3m2fn),
    "i2": np.dtype(ml_dtypes.int2),
    "u2": np.dtype(ml_dtypes.uint2),
    "u4": np.dtype(ml_dtypes.uint4),
    "u64": np.dtype(np.uint64),
}

NEW_FLOATS = ["f8e4m3", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz", "f8e3m4",
              "f6e2m3fn", "f6e3m2fn"]

# Source order in the manifest / generation.
EXHAUSTIVE_SOURCES = [
    "f16", "bf16", "f8e4m3fn", "f8e5m2", "f8e8m0", "f4e2m1",
    "i4", "u8", "i8", "i16", "u16",
] + NEW_FLOATS + ["i2", "u2", "u4"]
SAMPLED_SOURCES = ["f32", "f64", "u64"]
FLOAT_DESTINATIONS = [
    "f32", "f16", "bf16", "f8e4m3fn", "f8e5m2", "f8e8m0", "f4e2m1",
] + NEW_FLOATS
# Integer destinations, from f32 only (see the module doc).
INT_DESTINATIONS = {"f32": ["i2", "u2", "u4"]}

# Narrow formats whose adjacent-value ties are all included in the samples;
# f16 and bf16 ties are sampled (see tie_points), f32 ties only for f64.
SMALL_FLOATS = ["f8e4m3fn", "f8e5m2", "f8e8m0", "f4e2m1"] + NEW_FLOATS
# Formats narrower than a byte: width in bits (ml_dtypes stores one per byte,
# in the low bits, the high bits zero).
SUB_BYTE_BITS = {"f4e2m1": 4, "i4": 4, "u4": 4, "i2": 2, "u2": 2,
                 "f6e2m3fn": 6, "f6e3m2fn": 6}
TIE_STRIDE = 211  # f16/bf16 tie sampling stride (see tie_points)


# --------------------------------------------------------------------------
# Code <-> array helpers
# --------------------------------------------------------------------------

def code_dtype(fmt: str) -> np.dtype:
    """Little-endian unsigned integer dtype holding one code of ``fmt``."""
    return np.dtype(f"<u{DTYPES[fmt].itemsize}")


def from_codes(codes: np.ndarray, fmt: str) -> np.ndarray:
    """Reinterpret an array of codes as an array of ``fmt`` values."""
    native = np.dtype(f"u{DTYPES[fmt].itemsize}")
    return np.ascontiguousarray(codes.astype(native)).view(DTYPES[fmt])


def to_codes(values: np.ndarray, fmt: str) -> np.ndarray:
    """Codes (little-endian unsigned ints) of an array of ``fmt`` values."""
    native = np.dtype(f"u{DTYPES[fmt].itemsize}")
    codes = np.ascontiguousarray(values).view(native).astype(code_dtype(fmt))
    bits = SUB_BYTE_BITS.get(fmt)
    if bits is not None and np.any(codes >> bits):
        raise AssertionError(f"{fmt}: ml_dtypes stored a byte with high bits set")
    return codes


def exhaustive_codes(fmt: str) -> np.ndarray:
    n = 1 << SUB_BYTE_BITS.get(fmt, 8 * DTYPES[fmt].itemsize)
    return np.arange(n, dtype=np.uint64).astype(code_dtype(fmt))


def f64_bits(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).view(np.uint64)


def f32_bits(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(np.uint32)


# --------------------------------------------------------------------------
# Destination value tables and interesting points
# --------------------------------------------------------------------------

def positive_values(fmt: str) -> np.ndarray:
    """Sorted distinct positive finite values of a float format, as f64."""
    if fmt == "f32":
        raise ValueError("f32 is too large to enumerate; see f32_pivots")
    vals = from_codes(exhaustive_codes(fmt), fmt).astype(np.float64)
    vals = vals[np.isfinite(vals) & (vals > 0)]
    return np.unique(vals)


def tie_points(fmt: str, values: np.ndarray) -> np.ndarray:
    """Midpoints between adjacent positive values (all, or a sample)."""
    mids = (values[:-1] + values[1:]) / 2
    if fmt in SMALL_FLOATS:
        return mids
    # f16 / bf16 (sampled to keep the vectors small): in every binade
    # (subnormals included) the ties whose lower neighbour has mantissa
    # 0, 1 (even/odd at the bottom) or M-2, M-1 (even/odd at the top, the
    # latter carrying into the next binade), plus a uniform stride.
    n_mant = 1 << ml_dtypes.finfo(DTYPES[fmt]).nmant
    idx = np.arange(len(mids))
    lower_codes = to_codes(values[:-1].astype(DTYPES[fmt]), fmt).astype(np.int64)
    mant = lower_codes & (n_mant - 1)
    keep = np.isin(mant, [0, 1, n_mant - 2, n_mant - 1]) | (idx % TIE_STRIDE == 0)
    return mids[keep]


def format_pivots(fmt: str) -> list[np.ndarray]:
    """Positive f64 values around which a cast to ``fmt`` changes behaviour."""
    vals = positive_values(fmt)
    fi = ml_dtypes.finfo(DTYPES[fmt])
    vmax, vprev, vmin = vals[-1], vals[-2], vals[0]
    half_ulp_over = vmax + (vmax - vprev) / 2
    points = [
        np.array([
            vmax, half_ulp_over, 1.5 * vmax, 2 * vmax,
            float(fi.smallest_normal), vmin, vmin / 2, 0.75 * vmin,
            1.5 * vmin, vmin / 4,
        ]),
        tie_points(fmt, vals),
    ]
    return points


def f32_pivots() -> np.ndarray:
    """f32 destination pivots (for f64 sources): boundaries and sampled ties."""
    fi = np.finfo(np.float32)
    vmax = float(fi.max)
    ulp_max = vmax - float(np.nextafter(np.float32(vmax), np.float32(0)))
    vmin = float(fi.smallest_subnormal)
    base = [
        vmax, vmax + ulp_max / 2, float(fi.smallest_normal), vmin, vmin / 2,
        0.75 * vmin, 1.5 * vmin, float(fi.smallest_normal) - vmin / 2,
    ]
    # Ties after f32 values with structured mantissas in every binade.
    mants = np.array([0, 1, 0x7FFFFE, 0x7FFFFF], dtype=np.uint32)
    exps = np.arange(0, 255, dtype=np.uint32)
    bits = (exps[:, None] << np.uint32(23) | mants[None, :]).ravel()
    lo = bits.view(np.float32).astype(np.float64)
    hi = (bits + np.uint32(1)).view(np.float32).astype(np.float64)
    finite = np.isfinite(hi)
    ties = (lo[finite] + hi[finite]) / 2
    return np.concatenate([np.array(base), ties])


# --------------------------------------------------------------------------
# Sampled inputs
# --------------------------------------------------------------------------

def stable_unique(bits: np.ndarray) -> np.ndarray:
    _, first = np.unique(bits, return_index=True)
    return bits[np.sort(first)]


def with_signs(bits: np.ndarray, sign_bit: int) -> np.ndarray:
    dt = bits.dtype.type
    return np.stack([bits, bits | dt(sign_bit)], axis=1).ravel()


def neighbours(bits: np.ndarray) -> np.ndarray:
    """[b-1, b, b+1] for each positive non-zero pattern b (one ulp either side)."""
    dt = bits.dtype.type
    bits = bits[bits != 0]
    return np.stack([bits - dt(1), bits, bits + dt(1)], axis=1).ravel()


F32_NANS = [
    0x7FC00000, 0xFFC00000,  # default quiet NaN, negative
    0x7FC00001, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FE00000, 0x7FD00000,
    0x7F800001, 0xFF800001,  # signalling, minimal payload
    0x7FBFFFFF, 0xFFBFFFFF,  # signalling, maximal payload
    0x7FA00000, 0x7F900000, 0x7F810000, 0x7F802000, 0x7F800100,
]

F64_NANS = [
    0x7FF8000000000000, 0xFFF8000000000000,
    0x7FF8000000000001, 0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF,
    0x7FFC000000000000, 0x7FFA000000000000,
    0x7FF0000000000001, 0xFFF0000000000001,
    0x7FF7FFFFFFFFFFFF, 0xFFF7FFFFFFFFFFFF,
    0x7FF4000000000000, 0x7FF0000020000000, 0x7FF0000010000000,
    0x7FF0000000000100, 0x7FF0200000000000,
]

# Plain values worth probing in every sample (positive; both signs added).
PROBE_VALUES = [
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 5.0, 7.0, 0.1, 1.0 / 3.0,
    0.75, 0.3, 1.4, 1.4142135623730951, 100.0, 1000.0, 1e6,
]


def f32_sample() -> tuple[np.ndarray, int]:
    """Deterministic f32 inputs followed by random bit patterns.

    Returns (bits as little-endian u32, number of deterministic entries).
    """
    fi = np.finfo(np.float32)
    parts = [
        np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000], dtype=np.uint32),
        np.array(F32_NANS, dtype=np.uint32),
    ]
    signed = []
    # f32's own boundaries and subnormals.
    signed.append(f32_bits([fi.max, fi.smallest_normal]))
    signed.append(np.array([1, 2, 3, 0x000FFF, 0x200000, 0x400000, 0x400001,
                            0x7FFFFE, 0x7FFFFF, 0x00800001], dtype=np.uint32))
    signed.append(neighbours(f32_bits(PROBE_VALUES)))
    for fmt in ["f16", "bf16"] + SMALL_FLOATS:
        for pts in format_pivots(fmt):
            as32 = pts.astype(np.float32)
            exact = as32.astype(np.float64) == pts
            if not np.all(exact | (pts > float(fi.max))):
                raise AssertionError(f"{fmt}: pivot not representable in f32")
            signed.append(neighbours(f32_bits(as32[exact])))
    parts.append(with_signs(np.concatenate(signed).astype(np.uint32), 0x80000000))
    det = stable_unique(np.concatenate(parts).astype(np.uint32))

    rng = np.random.default_rng(SEED)
    rand = rng.integers(0, 1 << 32, size=N_RANDOM_F32, dtype=np.uint32)
    return np.concatenate([det, rand]).astype("<u4"), len(det)


def f64_sample() -> tuple[np.ndarray, int]:
    """Deterministic f64 inputs followed by random bit patterns."""
    fi = np.finfo(np.float64)
    parts = [
        np.array([0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000], dtype=np.uint64),
        np.array(F64_NANS, dtype=np.uint64),
    ]
    signed = [
        f64_bits([fi.max, fi.smallest_normal]),
        np.array([1, 2, 3, 0xFFFFFFFFFFFFF, 0x8000000000000], dtype=np.uint64),
        neighbours(f64_bits(PROBE_VALUES)),
    ]
    pivots = [f32_pivots()]
    for fmt in ["f16", "bf16"] + SMALL_FLOATS:
        pivots.extend(format_pivots(fmt))
    pivots = np.concatenate(pivots)
    # One f64 ulp either side of every pivot (exposes double rounding)...
    signed.append(neighbours(f64_bits(pivots)))
    # ...and one f32 ulp either side, for pivots that are f32 values.
    in32 = pivots[(pivots.astype(np.float32).astype(np.float64) == pivots)]
    n32 = neighbours(f32_bits(in32.astype(np.float32))).view(np.float32)
    signed.append(f64_bits(n32.astype(np.float64)))
    parts.append(with_signs(np.concatenate(signed).astype(np.uint64), 1 << 63))
    det = stable_unique(np.concatenate(parts).astype(np.uint64))

    rng = np.random.default_rng(SEED)
    rand = rng.integers(0, 1 << 64, size=N_RANDOM_F64, dtype=np.uint64)
    return np.concatenate([det, rand]).astype("<u8"), len(det)


def u64_sample() -> tuple[np.ndarray, int]:
    """Deterministic u64 inputs followed by random ones.

    The deterministic part: 0..3, the range ends, every power of two and its
    neighbours, the ties of every float precision p (significand bits, hidden
    bit included: e8m0 1, e5m2 3, e4m3/e2m3 4, e3m4 5, bf16 8, f16 11, f32 24,
    f64 53) just above 2^k and just below 2^(k+1), and the integer pivots of
    every destination (max, max + half ulp, ties), each with one either side.
    The random part: half raw 64-bit patterns, half shifted right by a random
    0..63 (random magnitude).
    """
    det: list[int] = [0, 1, 2, 3, (1 << 64) - 1, (1 << 64) - 2]
    for k in range(64):
        det += [(1 << k) - 1, 1 << k, (1 << k) + 1]
    for p in (1, 3, 4, 5, 8, 11, 24, 53):
        for k in range(p, 64):
            step = 1 << (k - p)
            for t in ((1 << k) + step, (1 << (k + 1)) - step):
                det += [t - 1, t, t + 1]
    for fmt in ["f16", "bf16"] + SMALL_FLOATS:
        for pts in format_pivots(fmt):
            ints = pts[(pts == np.floor(pts)) & (pts >= 1) & (pts < 2.0 ** 64)]
            for v in ints:
                det += [int(v) - 1, int(v), int(v) + 1]
    det = [d for d in det if 0 <= d < 1 << 64]
    det_arr = stable_unique(np.array(det, dtype=np.uint64))

    rng = np.random.default_rng(SEED)
    half = N_RANDOM_U64 // 2
    raw = rng.integers(0, 1 << 64, size=half, dtype=np.uint64)
    shifts = rng.integers(0, 64, size=half, dtype=np.uint64)
    shaped = rng.integers(0, 1 << 64, size=half, dtype=np.uint64) >> shifts
    return np.concatenate([det_arr, raw, shaped]).astype("<u8"), len(det_arr)


# --------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------

def gzip_bytes(payload: bytes) -> bytes:
    return gzip.compress(payload, compresslevel=9, mtime=0)


def cast(src_values: np.ndarray, dst: str) -> np.ndarray | None:
    """``src_values.astype(dst)``; None if ml_dtypes refuses the cast."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = src_values.astype(DTYPES[dst])
    except (TypeError, ValueError):
        return None
    return to_codes(out, dst)


def source_inputs() -> dict[str, tuple[np.ndarray, dict]]:
    """Input codes per source plus a manifest description."""
    inputs = {}
    for src in EXHAUSTIVE_SOURCES:
        codes = exhaustive_codes(src)
        inputs[src] = (codes, {"kind": "exhaustive", "count": int(len(codes))})
    for src, sampler, n_rand in (("f32", f32_sample, N_RANDOM_F32),
                                 ("f64", f64_sample, N_RANDOM_F64),
                                 ("u64", u64_sample, N_RANDOM_U64)):
        codes, n_det = sampler()
        inputs[src] = (codes, {
            "kind": "sampled",
            "file": f"{src}_inputs.bin.gz",
            "count": int(len(codes)),
            "deterministic": int(n_det),
            "random": int(n_rand),
        })
    return inputs


def generate(out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    inputs = source_inputs()
    files = {}
    skipped = []
    written = set()

    def emit(name: str, codes: np.ndarray, meta: dict) -> None:
        payload = np.ascontiguousarray(codes).tobytes()
        (out / name).write_bytes(gzip_bytes(payload))
        written.add(name)
        files[name] = dict(meta, count=int(len(codes)),
                           sha256=hashlib.sha256(payload).hexdigest())

    for src in SAMPLED_SOURCES:
        codes, desc = inputs[src]
        emit(desc["file"], codes, {"src": src, "dst": None, "role": "inputs"})

    for src in EXHAUSTIVE_SOURCES + SAMPLED_SOURCES:
        codes, _ = inputs[src]
        values = from_codes(codes, src)
        for dst in FLOAT_DESTINATIONS + INT_DESTINATIONS.get(src, []):
            if dst == src:
                continue
            result = cast(values, dst)
            if result is None:
                skipped.append({"src": src, "dst": dst})
                continue
            emit(f"{src}__{dst}.bin.gz", result, {"src": src, "dst": dst})

    for stale in out.glob("*.bin.gz"):
        if stale.name not in written:
            stale.unlink()

    manifest = {
        "generator": "tools/gen_ml_dtypes_vectors.py",
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "ml_dtypes": ml_dtypes.__version__,
        },
        "seed": SEED,
        "byte_order": "little",
        "sources": {src: inputs[src][1] for src in EXHAUSTIVE_SOURCES + SAMPLED_SOURCES},
        "element_bytes": {fmt: DTYPES[fmt].itemsize for fmt in DTYPES},
        "skipped": skipped,
        "files": files,
    }
    text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    (out / "manifest.json").write_text(text)
    return manifest


# --------------------------------------------------------------------------
# Report: measured ml_dtypes behaviour
# --------------------------------------------------------------------------

FNUZ = {"f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz"}
SIGN_BIT = {"f32": 1 << 31, "f16": 1 << 15, "bf16": 1 << 15,
            "f8e4m3fn": 0x80, "f8e5m2": 0x80, "f4e2m1": 0x8,
            "f8e4m3": 0x80, "f8e4m3fnuz": 0x80, "f8e5m2fnuz": 0x80,
            "f8e4m3b11fnuz": 0x80, "f8e3m4": 0x80, "f6e2m3fn": 0x20,
            "f6e3m2fn": 0x20}


def load(out: Path, name: str, fmt: str) -> np.ndarray:
    data = gzip.decompress((out / name).read_bytes())
    return np.frombuffer(data, dtype=code_dtype(fmt))


def reference_round(x: np.ndarray, dst: str):
    """Correctly rounded (ties-to-even) codes of f64 ``x`` in ``dst``.

    Returns (codes, mask) where mask marks inputs the reference covers:
    finite and strictly below max + half an ulp in magnitude.
    """
    if dst == "f32":
        pos_codes = None
        vmax = float(np.finfo(np.float32).max)
        limit = vmax + (vmax - float(np.nextafter(np.float32(vmax), np.float32(0)))) / 2
    else:
        pos_codes = np.arange(SIGN_BIT[dst], dtype=np.uint64)
        pos_vals = from_codes(pos_codes, dst).astype(np.float64)
        fin = np.isfinite(pos_vals)
        pos_codes, pos_vals = pos_codes[fin], pos_vals[fin]
        limit = pos_vals[-1] + (pos_vals[-1] - pos_vals[-2]) / 2
    ax = np.abs(x)
    mask = np.isfinite(x) & (ax < limit)
    neg = np.signbit(x)
    if dst == "f32":
        # Exact: compare against the f64 midpoint of the bracketing f32s.
        a = ax[mask]
        t = a.astype(np.float32)  # any nearby f32; fix up below
        t64 = t.astype(np.float64)
        lo = np.where(t64 > a, np.nextafter(t, np.float32(0)), t)
        lo_bits = lo.view(np.uint32).astype(np.uint64)
        hi_bits = lo_bits + 1
        mid = (lo.astype(np.float64) + hi_bits.astype(np.uint32).view(np.float32).astype(np.float64)) / 2
        pick_hi = (a > mid) | ((a == mid) & ((lo_bits & 1) == 1))
        mag = np.where(pick_hi, hi_bits, lo_bits)
    else:
        a = ax[mask]
        i = np.clip(np.searchsorted(pos_vals, a, side="right"), 1, len(pos_vals) - 1)
        lo_v, hi_v = pos_vals[i - 1], pos_vals[i]
        lo_c, hi_c = pos_codes[i - 1], pos_codes[i]
        mid = (lo_v + hi_v) / 2
        pick_hi = (a > mid) | ((a == mid) & ((lo_c & 1) == 1))
        mag = np.where(pick_hi, hi_c, lo_c)
    codes = np.zeros(len(x), dtype=np.uint64)
    sign = np.where(neg[mask], SIGN_BIT[dst], 0).astype(np.uint64)
    if dst in FNUZ:
        sign[mag == 0] = 0  # no -0: a negative value that rounds to zero is +0
    codes[mask] = mag | sign
    return codes, mask


def describe_in(src: str, code: int) -> str:
    v = from_codes(np.array([code], dtype=np.uint64), src).astype(np.float64)[0]
    width = 2 * DTYPES[src].itemsize
    return f"{src} 0x{code:0{width}x} ({v!r})"


def report(out: Path) -> None:
    """Print ml_dtypes behaviours measured from the vectors in ``out``."""
    manifest = json.loads((out / "manifest.json").read_text())
    inputs = {src: exhaustive_codes(src) for src in EXHAUSTIVE_SOURCES}
    for src in SAMPLED_SOURCES:
        inputs[src] = load(out, f"{src}_inputs.bin.gz", src)
    as_f64 = {src: from_codes(c, src).astype(np.float64) for src, c in inputs.items()}
    # u64 is left out of the sections that work on the f64 value (not exact for u64);
    # it has its own section at the end.
    all_sources = EXHAUSTIVE_SOURCES + [s for s in SAMPLED_SOURCES if s != "u64"]

    def pairs(sources, dsts=FLOAT_DESTINATIONS):
        for src in sources:
            for dst in dsts:
                if dst != src and (out / f"{src}__{dst}.bin.gz").exists():
                    yield src, dst

    def result(src, dst):
        return load(out, f"{src}__{dst}.bin.gz", dst)

    def hexes(codes, dst, limit=6):
        w = 2 * DTYPES[dst].itemsize
        return [f"0x{c:0{w}x}" for c in sorted({int(c) for c in codes})][:limit]

    def probe(src, dst, value):
        x = as_f64[src]
        hit = np.nonzero((x == value) & (np.signbit(x) == np.signbit(value)))[0]
        if len(hit) == 0:
            return "absent"
        code = int(result(src, dst)[hit[0]])
        v = from_codes(np.array([code], dtype=np.uint64), dst).astype(np.float64)[0]
        return f"0x{code:02x} ({float(v)!r})"

    print("skipped pairs (ml_dtypes raises):",
          ", ".join(f"{p['src']}->{p['dst']}" for p in manifest["skipped"]))

    print("\n== e8m0 probes ==")
    for src in ["f32", "f64"]:
        for v in [0.0, -0.0, -1.0, 1.0, 1.25, 1.5, 1.75, 3.0, 0.75, 6.0,
                  2.0 ** -127, 2.0 ** -128, 0.75 * 2.0 ** -127, 2.0 ** -149,
                  2.0 ** 127, 1.5 * 2.0 ** 127, float("inf")]:
            print(f"  {src} {v!r:>24} -> {probe(src, 'f8e8m0', v)}")
    for src in ["u8", "i8"]:
        for v in [0.0, -1.0, 3.0, 6.0, 12.0]:
            print(f"  {src} {v!r:>24} -> {probe(src, 'f8e8m0', v)}")

    print("\n== e8m0 rounding of positive finite inputs vs nearest/ties-up ==")
    for src, dst in pairs(all_sources, ["f8e8m0"]):
        x, r = as_f64[src], result(src, dst).astype(np.int64)
        ok = np.isfinite(x) & (x > 0) & (x < 1.5 * 2.0 ** 127)
        e = np.floor(np.log2(np.where(ok, x, 1.0)))
        ref = np.clip(e + 127 + (x / np.exp2(e) >= 1.5), 0, 254).astype(np.int64)
        bad = np.nonzero(ok & (r != ref))[0]
        print(f"  {src} -> e8m0: {len(bad)} of {int(ok.sum())} differ")
        for k in bad[:3]:
            print(f"     {describe_in(src, int(inputs[src][k]))}: ml_dtypes "
                  f"0x{int(r[k]):02x}, nearest/ties-up 0x{int(ref[k]):02x}")
        sub = ok & (x > 2.0 ** -127) & (x < 2.0 ** -126)
        if sub.any():
            print(f"     inputs in (2^-127, 2^-126): outputs {hexes(r[sub], dst)}")

    print("\n== NaN inputs: distinct output codes (first few) ==")
    for src, dst in pairs(["f64", "f32", "f16", "bf16", "f8e4m3fn", "f8e5m2", "f8e8m0",
                           "f8e4m3", "f8e3m4", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz"]):
        x, r = as_f64[src], result(src, dst)
        nan = np.isnan(x)
        print(f"  {src:>8} -> {dst:<8} +NaN: {hexes(r[nan & ~np.signbit(x)], dst)}"
              f"  -NaN: {hexes(r[nan & np.signbit(x)], dst)}")
    for src, dst, bits in [("f32", "f16", F32_NANS), ("f64", "f32", F64_NANS),
                           ("f64", "f16", F64_NANS)]:
        r, c = result(src, dst), inputs[src]
        w_in, w_out = 2 * DTYPES[src].itemsize, 2 * DTYPES[dst].itemsize
        maps = [f"0x{b:0{w_in}x}->0x{int(r[np.nonzero(c == b)[0][0]]):0{w_out}x}"
                for b in bits[:12]]
        print(f"  {src}->{dst} payloads: " + ", ".join(maps))

    print("\n== overflow: finite |x| >= max + half ulp, and +-inf ==")
    for src, dst in pairs(all_sources, [d for d in FLOAT_DESTINATIONS if d != "f8e8m0"]):
        x, r = as_f64[src], result(src, dst)
        _, cov = reference_round(x, dst)
        fo = ~cov & np.isfinite(x)
        if not fo.any() and not np.isinf(x).any():
            continue
        print(f"  {src:>8} -> {dst:<8} finite: {hexes(r[fo], dst)}"
              f"  inf: {hexes(r[np.isinf(x)], dst)}")
    for dst in ["f8e4m3fn"]:
        for v in [448.0, 463.99999999999994, 464.0, 464.00000000000006, 480.0]:
            print(f"  f64 {v!r} -> {dst} {probe('f64', dst, v)}")

    print("\n== mismatches vs correctly rounded RNE (finite, |x| < max + half ulp) ==")
    for src, dst in pairs(all_sources, [d for d in FLOAT_DESTINATIONS if d != "f8e8m0"]):
        x = as_f64[src]
        ref, cov = reference_round(x, dst)
        r = result(src, dst).astype(np.uint64)
        bad = np.nonzero(cov & (r != ref))[0]
        if len(bad):
            w = 2 * DTYPES[dst].itemsize
            print(f"  {src} -> {dst}: {len(bad)} of {int(cov.sum())} differ")
            for k in bad[:4]:
                print(f"     {describe_in(src, int(inputs[src][k]))}: ml_dtypes "
                      f"0x{int(r[k]):0{w}x}, correct 0x{int(ref[k]):0{w}x}")

    print("\n== is f64 -> dst identical to f64 -> f32 -> dst? ==")
    via32 = from_codes(result("f64", "f32"), "f32")
    for _, dst in pairs(["f64"], [d for d in FLOAT_DESTINATIONS if d != "f32"]):
        two_step = cast(via32, dst)
        same = np.array_equal(two_step, result("f64", dst))
        diff = int(np.count_nonzero(two_step != result("f64", dst)))
        print(f"  f64 -> {dst}: {'identical' if same else f'{diff} differ'}")

    print("\n== u64 sources ==")
    codes = [int(c) for c in inputs["u64"]]
    r32 = result("u64", "f32")
    bad = 0
    for c, got in zip(codes, r32):
        # exact round-to-nearest-even of the integer c to f32 (c < 2^64 < f32 max)
        want = int(np.float32(c)) if c < (1 << 24) else None
        if want is None:
            e = c.bit_length() - 24
            q, rem = divmod(c, 1 << e)
            half = 1 << (e - 1)
            if rem > half or (rem == half and q & 1):
                q += 1
            want = q << e
        if float(np.uint32(got).view(np.float32)) != float(want):
            bad += 1
    print(f"  u64 -> f32: {bad} of {len(codes)} differ from exact RNE")
    via32 = from_codes(r32, "f32")
    for _, dst in pairs(["u64"], [d for d in FLOAT_DESTINATIONS if d != "f32"]):
        two_step = cast(via32, dst)
        diff = int(np.count_nonzero(two_step != result("u64", dst)))
        print(f"  u64 -> {dst}: {'identical' if diff == 0 else f'{diff} differ'}"
              " from u64 -> f32 -> dst")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"output folder (default: {DEFAULT_OUT})")
    parser.add_argument("--report", action="store_true",
                        help="print measured ml_dtypes quirks after generating")
    parser.add_argument("--report-only", action="store_true",
                        help="only print the report for existing vectors in --out")
    args = parser.parse_args(argv)
    if sys.byteorder != "little":
        parser.error("this generator assumes a little-endian host")
    np.seterr(all="ignore")  # overflow/invalid are expected; casts are the data
    if not args.report_only:
        manifest = generate(args.out)
        total = sum((args.out / n).stat().st_size for n in manifest["files"])
        print(f"wrote {len(manifest['files'])} vector files to {args.out} "
              f"({total} bytes compressed); skipped {len(manifest['skipped'])} pairs")
    if args.report or args.report_only:
        report(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
