#!/usr/bin/env python3
"""Reference vectors for block-scaled formats (OCP MX v1.0 and NVFP4).

Two independent references are written, for the Rust block formats in
``crates/numerics/src/block/`` to be checked against:

1. **torchao** (``torchao.prototype.mx_formats``), called as a black box:

   * MX: ``mx_tensor.to_mx(x, elem_dtype, 32, ScaleCalculationMode.<RULE>)``
     for the element formats f8e4m3fn, f8e5m2, f6e3m2fn, f6e2m3fn, f4e2m1
     and the rules FLOOR, CEIL, EVEN, RCEIL, then
     ``mx_tensor.to_dtype(qdata, scale, elem_dtype, 32, torch.float32)``
     for the dequantised values.  (``MXTensor.to_mx`` with its default
     ``KernelPreference.EMULATED`` calls exactly these; ``--check`` verifies
     that on every block.)
   * NVFP4: ``NVFP4Tensor.to_nvfp4(x, 16, per_tensor_scale)`` and
     ``.dequantize(torch.float32)``, without a per-tensor scale and with one
     from ``nvfp4_tensor.per_tensor_amax_to_scale(amax)``.

   Sources f32 and bf16 (torchao asserts on f16 for both ``to_mx`` and
   ``nvfp4_quantize``, so there are no f16 vectors).  Each block is
   quantised by its own call (a 1 x 32 or 1 x 16 tensor; NVFP4 random blocks
   with a per-tensor scale are quantised four at a time as a 1 x 64 tensor
   sharing that scale).

2. **spec**: the OCP MX v1.0 conversion (Algorithm 1 of section 6.3, FLOOR
   scale, round-to-nearest-even elements with saturation) computed here with
   ``fractions.Fraction`` from the format definitions, not from torchao,
   for the same f32 blocks and for f8e4m3fn, f8e5m2, f6e3m2fn, f6e2m3fn,
   f4e2m1 and int8 (MXINT8, which torchao 0.18 does not implement).
   The choices the spec text leaves open are listed in
   ``docs/block_formats_reference.md`` and the vectors' README.

The file format is described in ``crates/numerics/tests/vectors/mx/README.md``.
All inputs are deterministic (seeded ``numpy.random.default_rng``); gzip
mtime is 0, so with the same versions the output is byte-identical.

Usage:
    python3 -m venv /work/venv-mx
    /work/venv-mx/bin/pip install -r tools/requirements-mx.txt
    /work/venv-mx/bin/python tools/make_mx_vectors.py --out crates/numerics/tests/vectors/mx
    /work/venv-mx/bin/python tools/make_mx_vectors.py --check   # re-derive and compare
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import platform
import struct
import sys
import warnings
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import ml_dtypes
import numpy as np

SEED = 20261127
MX_BLOCK = 32
NV_BLOCK = 16
N_RANDOM_PER_KIND = 128  # three kinds: normal, binades, heavy
NV_GROUP = 4  # random NVFP4 blocks per tensor in the per-tensor-scale mode

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "crates" / "numerics" / "tests" / "vectors" / "mx"

SOURCES = ("f32", "bf16")
MX_FORMATS = ("f8e4m3fn", "f8e5m2", "f6e3m2fn", "f6e2m3fn", "f4e2m1")
SPEC_FORMATS = MX_FORMATS + ("int8",)
RULES = ("floor", "ceil", "even", "rceil")

# element formats: (exponent bits, mantissa bits, bias, kind)
# kind: "ieee" (top exponent = inf/nan), "fn" (only S.1111.111 is NaN),
# "finite" (no inf/nan)
ELEM = {
    "f8e4m3fn": (4, 3, 7, "fn"),
    "f8e5m2": (5, 2, 15, "ieee"),
    "f6e3m2fn": (3, 2, 3, "finite"),
    "f6e2m3fn": (2, 3, 1, "finite"),
    "f4e2m1": (2, 1, 1, "finite"),
}
# largest normal value of each element format (int8: 127/64)
ELEM_MAX = {
    "f8e4m3fn": Fraction(448),
    "f8e5m2": Fraction(57344),
    "f6e3m2fn": Fraction(28),
    "f6e2m3fn": Fraction(15, 2),
    "f4e2m1": Fraction(6),
    "int8": Fraction(127, 64),
}
# emax_elem: exponent of the largest normal number
EMAX_ELEM = {"f8e4m3fn": 8, "f8e5m2": 15, "f6e3m2fn": 4, "f6e2m3fn": 2,
             "f4e2m1": 2, "int8": 0}

F32_NAN = 0x7FC00000


# ----------------------------------------------------------------- helpers

def gzip_bytes(payload: bytes) -> bytes:
    return gzip.compress(payload, compresslevel=9, mtime=0)


def f32_bits(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def bits_f32(b) -> np.ndarray:
    return np.asarray(b, dtype=np.uint32).view(np.float32)


def to_src(vals: np.ndarray, src: str) -> np.ndarray:
    """Round f32 values to the source dtype (RNE) and return them as f32."""
    v = np.asarray(vals, dtype=np.float32)
    if src == "f32":
        return v
    return v.astype(ml_dtypes.bfloat16).astype(np.float32)


def src_bits(vals_f32: np.ndarray, src: str) -> bytes:
    if src == "f32":
        return f32_bits(vals_f32).astype("<u4").tobytes()
    return (f32_bits(vals_f32) >> 16).astype("<u2").tobytes()


def step(x: float, src: str, up: bool) -> float:
    """Next representable value of the source format above/below x (x > 0)."""
    b = int(f32_bits(np.float32(x)))
    if src == "f32":
        return float(bits_f32(b + (1 if up else -1)))
    b16 = b >> 16
    return float(bits_f32((b16 + (1 if up else -1)) << 16))


def f32_max(src: str) -> float:
    return float(bits_f32(0x7F7FFFFF if src == "f32" else 0x7F7F0000))


# ------------------------------------------------------------------ inputs

def filler(bs: int, amax: float, pos: int = 0, sign: float = 1.0) -> list:
    """bs values with |v| < amax, mixed signs, and element `pos` = sign*amax."""
    out = []
    for j in range(bs):
        frac = 0.03 + 0.9 * (((j * 7919) % bs) / bs)
        out.append((-1.0) ** j * frac * amax)
    out[pos] = sign * amax
    return out


def elem_values(fmt: str) -> tuple:
    """Positive finite values of an element format, in code order."""
    return _elem_values(fmt)


@lru_cache(maxsize=None)
def _elem_values(fmt: str) -> tuple:
    if fmt == "int8":
        return tuple(Fraction(k, 64) for k in range(128))
    e, m, bias, kind = ELEM[fmt]
    vals = []
    for code in range(1 << (e + m)):
        ef, mf = code >> m, code & ((1 << m) - 1)
        if kind == "ieee" and ef == (1 << e) - 1:
            break
        if kind == "fn" and ef == (1 << e) - 1 and mf == (1 << m) - 1:
            break
        if ef == 0:
            v = Fraction(mf, 1 << m) * Fraction(2) ** (1 - bias)
        else:
            v = (1 + Fraction(mf, 1 << m)) * Fraction(2) ** (ef - bias)
        vals.append(v)
    return tuple(vals)


def hand_cases(bs: int, src: str) -> list:
    """(label, list of f32 values exactly representable in src)."""
    inf, nan = float("inf"), float("nan")
    cases = []

    def add(label, vals):
        assert len(vals) == bs, label
        cases.append((label, vals))

    add("zero", [0.0] * bs)
    add("neg_zero", [-0.0] * bs)
    mix = [0.0, -0.0] * (bs // 2)
    mix[3], mix[6], mix[9], mix[12] = 1.0, -1.0, 0.5, -0.375
    add("signed_zeros_mixed", mix)
    v = filler(bs, 1.0); v[3] = nan; add("nan_one", v)
    v = filler(bs, 1.0); v[3] = -nan; add("nan_neg_one", v)
    v = filler(bs, 1.0); v[7] = inf; add("inf_pos", v)
    v = filler(bs, 1.0); v[7] = -inf; add("inf_neg", v)
    v = filler(bs, 1.0); v[3] = nan; v[7] = inf; add("nan_and_inf", v)
    v = [0.0] * bs; v[5] = inf; add("inf_alone", v)
    v = [0.0] * bs; v[5] = nan; add("nan_alone", v)
    # amax exactly at a binade edge and its neighbours
    for k in (0, 20, -20, 100, -100):
        a = 2.0 ** k
        add(f"pow2_{k}", filler(bs, a))
        add(f"pow2_{k}_down", filler(bs, step(a, src, False)))
        add(f"pow2_{k}_up", filler(bs, step(a, src, True)))
        add(f"pow2_{k}_negamax", filler(bs, a, pos=1, sign=-1.0))
    # amax = element max normal * 2^k, and neighbours (RCEIL/CEIL probes)
    for fmt in SPEC_FORMATS:
        mx = float(ELEM_MAX[fmt])
        for k in (-20, 0, 20, 100):
            a = float(to_src(np.float32(mx * 2.0 ** k), src))
            add(f"emax_{fmt}_{k}", filler(bs, a))
            add(f"emax_{fmt}_{k}_up", filler(bs, step(a, src, True)))
            add(f"emax_{fmt}_{k}_down", filler(bs, step(a, src, False)))
        # top of the binade that holds the max normal: FLOOR saturates here
        top = 2.0 ** (EMAX_ELEM[fmt] + 1)
        add(f"binade_top_{fmt}", filler(bs, step(top, src, False)))
    # EVEN thresholds: amax = 2^e * (2 - 2^-(mbits+1)) and one ulp below
    for t in (1.75, 1.875, 1.9375, 1.96875):
        a = t * 8.0
        add(f"even_{t}", filler(bs, a))
        add(f"even_{t}_down", filler(bs, step(a, src, False)))
    # round-to-nearest-even ties after scaling by X = 1 (FLOOR), per format
    for fmt in SPEC_FORMATS:
        vals = elem_values(fmt)
        mids = [(vals[i] + vals[i + 1]) / 2 for i in range(len(vals) - 1)]
        idx = np.linspace(0, len(mids) - 1, num=min(len(mids), bs - 1))
        picked = [float(mids[int(round(i))]) for i in idx]
        while len(picked) < bs - 1:
            picked.append(float(vals[len(picked) % len(vals)]))
        v = [float(vals[-1])] + [(-1.0) ** j * p for j, p in enumerate(picked)]
        add(f"ties_{fmt}", [float(to_src(np.float32(x), src)) for x in v])
    # elements spread over 31 binades below amax: element subnormals
    add("subnormal_elems", [1.0] + [(-1.0) ** j * 2.0 ** -j for j in range(1, bs)])
    add("subnormal_elems_odd",
        [3.0] + [(-1.0) ** j * 1.5 * 2.0 ** -(j + 2) for j in range(1, bs)])
    # tiny amax: e8m0 underflow; f32 subnormal blocks
    for e in (-100, -120, -126, -127, -130, -133):
        add(f"tiny_2p{e}", filler(bs, 2.0 ** e))
    v = [(-1.0) ** j * 2.0 ** -(127 + j % 7) for j in range(bs)]
    add("f32_subnormals", v)
    v = filler(bs, 2.0 ** -126)
    v[1], v[2] = 2.0 ** -130, -(2.0 ** -133)
    add("min_normal_with_subnormals", v)
    if src == "f32":
        v = [0.0] * bs; v[0] = 2.0 ** -149; v[1] = -(2.0 ** -149)
        add("f32_min_subnormal", v)
    # huge amax: near f32 max
    fm = f32_max(src)
    add("huge_fmax", filler(bs, fm))
    add("huge_fmax_neg", filler(bs, fm, pos=2, sign=-1.0))
    add("huge_2p127", filler(bs, 2.0 ** 127))
    v = filler(bs, 1e-30); v[0] = fm; add("huge_with_tiny", v)
    add("all_equal_neg", [-3.0] * bs)
    v = [0.0] * bs; v[9] = 0.3; add("single_nonzero", v)
    return [(lab, [float(x) for x in to_src(np.array(vals, np.float32), src)])
            for lab, vals in cases]


def random_blocks(bs: int, rng: np.random.Generator) -> tuple:
    n = N_RANDOM_PER_KIND
    normal = rng.standard_normal((n, bs))
    binades = (rng.standard_normal((n, bs))
               * np.exp2(rng.integers(-120, 121, size=(n, 1)).astype(np.float64))
               * np.exp2(-rng.integers(0, 17, size=(n, bs)).astype(np.float64)))
    heavy = (rng.standard_cauchy((n, bs))
             * np.exp2(rng.integers(-20, 21, size=(n, 1)).astype(np.float64)))
    labels = ["rand_normal"] * n + ["rand_binades"] * n + ["rand_heavy"] * n
    vals = np.concatenate([normal, binades, heavy])
    vals = np.clip(vals, -3.0e38, 3.0e38).astype(np.float32)
    return labels, vals


def build_inputs(bs: int, src: str) -> tuple:
    hand = hand_cases(bs, src)
    rng = np.random.default_rng([SEED, bs])
    rlabels, rvals = random_blocks(bs, rng)
    labels = [h[0] for h in hand] + rlabels
    vals = np.concatenate([np.array([h[1] for h in hand], np.float32),
                           to_src(rvals, src).reshape(-1, bs)])
    return labels, vals, len(hand)


# ----------------------------------------------------------------- torchao

def torch_env():
    warnings.filterwarnings("ignore")
    import torch
    import torchao
    from torchao.prototype.mx_formats import mx_tensor, nvfp4_tensor
    from torchao.prototype.mx_formats.config import ScaleCalculationMode
    from torchao.prototype.mx_formats.constants import (DTYPE_FP6_E2M3,
                                                        DTYPE_FP6_E3M2)
    torch.set_num_threads(1)
    elem = {
        "f8e4m3fn": torch.float8_e4m3fn,
        "f8e5m2": torch.float8_e5m2,
        "f6e3m2fn": DTYPE_FP6_E3M2,
        "f6e2m3fn": DTYPE_FP6_E2M3,
        "f4e2m1": torch.float4_e2m1fn_x2,
    }
    modes = {r: getattr(ScaleCalculationMode, r.upper()) for r in RULES}
    return dict(torch=torch, torchao=torchao, mx=mx_tensor, nv=nvfp4_tensor,
                elem=elem, modes=modes)


def src_tensor(env, vals_f32: np.ndarray, src: str):
    torch = env["torch"]
    t = torch.from_numpy(np.ascontiguousarray(vals_f32, dtype=np.float32))
    return t if src == "f32" else t.to(torch.bfloat16)


def codes_u8(env, data) -> np.ndarray:
    torch = env["torch"]
    return data.contiguous().view(torch.uint8).numpy().reshape(-1).copy()


def run_mx(env, vals: np.ndarray, src: str, fmt: str, rule: str,
           check_api: bool) -> bytes:
    torch, mx = env["torch"], env["mx"]
    elem, mode = env["elem"][fmt], env["modes"][rule]
    out = bytearray()
    for blk in vals:
        x = src_tensor(env, blk.reshape(1, MX_BLOCK), src)
        scale, data = mx.to_mx(x, elem, MX_BLOCK, mode)
        deq = mx.to_dtype(data, scale, elem, MX_BLOCK, torch.float32)
        sbyte = codes_u8(env, scale)
        raw = codes_u8(env, data)
        if fmt == "f4e2m1":
            packed = raw
            codes = np.empty(MX_BLOCK, np.uint8)
            codes[0::2], codes[1::2] = packed & 0x0F, packed >> 4
        else:
            packed, codes = None, raw
        dq = deq.numpy().reshape(-1).astype(np.float32)
        if check_api:
            t = mx.MXTensor.to_mx(x, elem, MX_BLOCK, scaling_mode=mode)
            d2 = t.dequantize(torch.float32).numpy().reshape(-1)
            assert np.array_equal(f32_bits(d2), f32_bits(dq)), (fmt, rule)
            assert np.array_equal(codes_u8(env, t.scale), sbyte)
            assert np.array_equal(codes_u8(env, t.qdata), raw)
        assert sbyte.size == 1 and codes.size == MX_BLOCK
        out += bytes(sbyte) + codes.tobytes()
        if packed is not None:
            out += packed.tobytes()
        out += f32_bits(dq).astype("<u4").tobytes()
    return bytes(out)


def nv_records(env, vals: np.ndarray, src: str, per_tensor: bool,
               n_hand: int, hand_labels: list) -> tuple:
    """Return (payload, number of records)."""
    torch, nv = env["torch"], env["nv"]
    groups = []  # (list of block indices, amax multiplier or None)
    if not per_tensor:
        groups = [([i], None) for i in range(len(vals))]
    else:
        groups = [([i], 1.0) for i in range(n_hand)]
        for s in range(n_hand, len(vals), NV_GROUP):
            groups.append((list(range(s, min(s + NV_GROUP, len(vals)))), 1.0))
        # per-tensor scale taken from a larger / smaller tensor amax
        plain = [i for i in range(n_hand)
                 if hand_labels[i].startswith(("pow2_0", "emax_", "ties_"))]
        for i in plain[:24]:
            for mult in (2.0 ** 12, 2.0 ** -6):
                groups.append(([i], mult))
    out = bytearray()
    n = 0
    for idxs, mult in groups:
        x = src_tensor(env, vals[idxs].reshape(1, -1), src)
        pts = None
        if per_tensor:
            amax = torch.max(torch.abs(x.float()))
            pts = nv.per_tensor_amax_to_scale(amax * mult)
        t = nv.NVFP4Tensor.to_nvfp4(x, NV_BLOCK, per_tensor_scale=pts)
        deq = t.dequantize(torch.float32).numpy().reshape(-1)
        scales = codes_u8(env, t.scale)
        packed = codes_u8(env, t.qdata)
        pts_bits = 0 if pts is None else int(f32_bits(pts.float().numpy()))
        for j, bi in enumerate(idxs):
            p = packed[j * 8:(j + 1) * 8]
            codes = np.empty(NV_BLOCK, np.uint8)
            codes[0::2], codes[1::2] = p & 0x0F, p >> 4
            dq = deq[j * NV_BLOCK:(j + 1) * NV_BLOCK].astype(np.float32)
            out += struct.pack("<II", bi, pts_bits) + bytes([scales[j]])
            out += codes.tobytes() + p.tobytes()
            out += f32_bits(dq).astype("<u4").tobytes()
            n += 1
    return bytes(out), n


# -------------------------------------------------------------------- spec

def exact(v: float) -> Fraction:
    return Fraction(float(v))


def spec_quantize(q: Fraction, neg: bool, fmt: str) -> int:
    """RNE of |q| to the element format, clamping to max; returns the code."""
    vals = elem_values(fmt)
    if fmt == "int8":
        k = min(round(q * 64), 127)  # round() on Fraction: half to even
        return ((-k) & 0xFF) if neg else k
    e, m, _, _ = ELEM[fmt]
    if q >= vals[-1]:
        code = len(vals) - 1
    else:
        lo, hi = 0, len(vals) - 1  # vals[lo] <= q < vals[hi]
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if vals[mid] <= q:
                lo = mid
            else:
                hi = mid
        dl, dh = q - vals[lo], vals[hi] - q
        code = lo if dl < dh else hi if dh < dl else (lo if lo % 2 == 0 else hi)
    return code | ((1 << (e + m)) if neg else 0)


def spec_decode(code: int, fmt: str) -> Fraction:
    if fmt == "int8":
        k = code - 256 if code >= 128 else code
        return Fraction(k, 64)
    e, m, _, _ = ELEM[fmt]
    sign = code >> (e + m)
    mag = elem_values(fmt)[code & ((1 << (e + m)) - 1)]
    return -mag if sign else mag


def spec_block(blk: np.ndarray, fmt: str) -> bytes:
    bits = f32_bits(blk)
    finite = np.isfinite(blk)
    if not finite.all():
        # NaN or Inf in the block: X = NaN (0xFF); elements undefined
        return (bytes([0xFF, 0]) + bytes(MX_BLOCK)
                + np.full(MX_BLOCK, F32_NAN, "<u4").tobytes())
    amax = max(abs(exact(v)) for v in blk)
    if amax == 0:
        shared = -127
    else:
        fl = amax.numerator.bit_length() - amax.denominator.bit_length()
        if Fraction(2) ** fl > amax:
            fl -= 1
        shared = max(-127, min(127, fl - EMAX_ELEM[fmt]))
    X = Fraction(2) ** shared
    codes, deq = [], []
    for v, b in zip(blk, bits):
        neg = bool(b >> 31)
        q = abs(exact(v)) / X
        c = spec_quantize(q, neg, fmt)
        codes.append(c)
        d = spec_decode(c, fmt) * X
        dv = np.float32(float(d))
        assert Fraction(float(dv)) == d  # exact in f32 for these formats
        if d == 0 and neg and fmt != "int8":
            dv = np.float32(-0.0)
        deq.append(dv)
    return (bytes([shared + 127, 1]) + bytes(codes)
            + f32_bits(np.array(deq, np.float32)).astype("<u4").tobytes())


# -------------------------------------------------------------- deviations

MAX_POS = {f: ELEM_MAX[f] for f in MX_FORMATS}


def ceil_log2(fr: Fraction) -> int:
    fl = fr.numerator.bit_length() - fr.denominator.bit_length()
    if Fraction(2) ** fl > fr:
        fl -= 1
    return fl if Fraction(2) ** fl == fr else fl + 1


def rceil_not_exact(vals: np.ndarray, payload: bytes, fmt: str) -> list:
    """Blocks (finite) whose torchao RCEIL scale is not the cvt.rp result.

    The reference is ceil(log2(d)) clamped to [-127, 127], d = fl32(amax /
    max_pos), computed exactly; torchao's eager path uses f32 log2 + ceil.
    """
    rs = len(payload) // len(vals)
    out = []
    for i, blk in enumerate(vals):
        if not np.isfinite(blk).all():
            continue
        d = np.float32(np.max(np.abs(blk)) / np.float32(MAX_POS[fmt]))
        e = -127 if d == 0 else max(-127, min(127, ceil_log2(exact(d))))
        if payload[i * rs] != e + 127:
            out.append(i)
    return out


def spec_differs(spec_payload: bytes, mx_payload: bytes, fmt: str) -> list:
    """Blocks where torchao FLOOR (f32) differs from the spec file.

    Blocks whose spec elements are undefined compare the scale byte only;
    the others compare scale, codes and dequantised bits (any NaN equal).
    """
    n = len(spec_payload) // (2 + 5 * MX_BLOCK)
    rs = len(mx_payload) // n
    out = []
    for i in range(n):
        sp = spec_payload[i * (2 + 5 * MX_BLOCK):(i + 1) * (2 + 5 * MX_BLOCK)]
        tp = mx_payload[i * rs:(i + 1) * rs]
        if sp[0] != tp[0]:
            out.append(i)
            continue
        if sp[1] == 0:
            continue
        sd = np.frombuffer(sp[2 + MX_BLOCK:], "<u4").view(np.float32)
        td = np.frombuffer(tp[rs - 4 * MX_BLOCK:], "<u4").view(np.float32)
        if (sp[2:2 + MX_BLOCK] != tp[1:1 + MX_BLOCK]
                or not np.array_equal(sd.view(np.uint32), td.view(np.uint32))):
            out.append(i)
    return out


def int8_neg2_blocks(vals: np.ndarray, payload: bytes) -> list:
    """Spec int8 blocks where an element rounds to -128/64 and was clamped."""
    out = []
    for i, blk in enumerate(vals):
        if payload[i * (2 + 5 * MX_BLOCK) + 1] == 0:
            continue
        X = Fraction(2) ** (payload[i * (2 + 5 * MX_BLOCK)] - 127)
        if any(v < 0 and round(abs(exact(v)) / X * 64) == 128 for v in blk):
            out.append(i)
    return out


# -------------------------------------------------------------------- main

def generate(check_api: bool) -> tuple:
    env = torch_env()
    files = {}
    manifest = {
        "generator": "tools/make_mx_vectors.py",
        "python": platform.python_version(),
        "torch": env["torch"].__version__,
        "torchao": env["torchao"].__version__,
        "numpy": np.__version__,
        "ml_dtypes": ml_dtypes.__version__,
        "seed": SEED,
        "inputs": {},
        "deviations": {},
        "files": [],
    }
    for src in SOURCES:
        for kind, bs in (("mx32", MX_BLOCK), ("nv16", NV_BLOCK)):
            labels, vals, n_hand = build_inputs(bs, src)
            name = f"inputs__{kind}__{src}.bin.gz"
            files[name] = src_bits(vals.reshape(-1), src)
            manifest["inputs"][f"{kind}__{src}"] = {
                "file": name, "block": bs, "blocks": len(vals),
                "hand_blocks": n_hand, "labels": labels}
            if kind == "mx32":
                for fmt in MX_FORMATS:
                    for rule in RULES:
                        files[f"mx__{fmt}__{rule}__{src}.bin.gz"] = run_mx(
                            env, vals, src, fmt, rule, check_api)
                dev = manifest["deviations"]
                for fmt in MX_FORMATS:
                    dev[f"rceil_not_exact__{fmt}__{src}"] = rceil_not_exact(
                        vals, files[f"mx__{fmt}__rceil__{src}.bin.gz"], fmt)
                if src == "f32":
                    for fmt in SPEC_FORMATS:
                        files[f"spec__{fmt}__floor__f32.bin.gz"] = b"".join(
                            spec_block(b, fmt) for b in vals)
                    for fmt in MX_FORMATS:
                        dev[f"spec_vs_torchao_floor__{fmt}__f32"] = spec_differs(
                            files[f"spec__{fmt}__floor__f32.bin.gz"],
                            files[f"mx__{fmt}__floor__f32.bin.gz"], fmt)
                    dev["spec_int8_neg2_clamped__f32"] = int8_neg2_blocks(
                        vals, files["spec__int8__floor__f32.bin.gz"])
            else:
                for mode, pt in (("block", False), ("pertensor", True)):
                    payload, n = nv_records(env, vals, src, pt, n_hand, labels)
                    files[f"nvfp4__{mode}__{src}.bin.gz"] = payload
    for name in sorted(files):
        manifest["files"].append({
            "file": name, "bytes": len(files[name]),
            "sha256": hashlib.sha256(files[name]).hexdigest()})
    return files, manifest


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true",
                    help="re-derive everything and compare with --out")
    args = ap.parse_args()
    files, manifest = generate(check_api=args.check)
    mjson = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    if args.check:
        bad = 0
        for name, payload in files.items():
            p = args.out / name
            if not p.exists() or gzip.decompress(p.read_bytes()) != payload:
                print(f"MISMATCH {name}")
                bad += 1
        old = json.loads((args.out / "manifest.json").read_text())
        for key in ("torch", "torchao", "numpy", "ml_dtypes"):
            if old[key] != manifest[key]:
                print(f"version differs: {key} {old[key]} -> {manifest[key]}")
        if any(old[k] != manifest[k] for k in ("files", "inputs", "deviations")):
            print("MISMATCH manifest.json")
            bad += 1
        print(f"{len(files) - bad} passed, {bad} failed")
        return 1 if bad else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, payload in files.items():
        (args.out / name).write_bytes(gzip_bytes(payload))
    (args.out / "manifest.json").write_text(mjson)
    total = sum((args.out / n).stat().st_size for n in files)
    print(f"wrote {len(files)} files, {total} bytes compressed, to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
