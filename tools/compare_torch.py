#!/usr/bin/env python3
"""npusim against torch on the casts torch has, side by side in one process.

Each side writes into a preallocated output: `npusim.cast(x, to, out=buf)` and torch's
`buf.copy_(x)` on tensors sharing the same input memory. Casts: f32 -> {f16, bf16, e4m3fn,
e5m2, e4m3fnuz, e5m2fnuz, i8} and {f16, bf16, e4m3fn, e5m2} -> f32. Data: `plain` (standard
normal x 4),
`nan1%` (one element in a hundred NaN, +Inf, -Inf in turn) and `masked` (a causal attention
mask: rows of 1024, row r keeping r + 1 values and -Inf after them, about half the elements).
Sizes: 1 Mi elements on one thread (both sides), and 64 Mi on every core (both sides).

Each figure is the median of `--repeat` timed calls after one untimed call; the ratio is
npusim's speed over torch's (above 1: npusim is faster). The `bits` column compares the two
outputs byte for byte where both sides round to nearest even and keep NaN as NaN (every
float cast; NaNs whose payload or sign differ are counted apart); the i8 cast is timed only (torch truncates toward zero and wraps, npusim rounds
to nearest even and clamps).

Needs numpy, ml_dtypes, torch and the npusim package (`tools/test-python` builds a venv with
it; add torch with `pip install torch --index-url https://download.pytorch.org/whl/cpu`).

Usage: python3 tools/compare_torch.py [--small N] [--large N] [--repeat R] [--markdown]
                                      [--cast TEXT]...
"""

import argparse
import os
import platform
import statistics
import time

import ml_dtypes
import numpy as np
import torch

import npusim

#: npusim name -> (torch dtype, numpy dtype)
DTYPES = {
    "f32": (torch.float32, np.dtype(np.float32)),
    "f16": (torch.float16, np.dtype(np.float16)),
    "bf16": (torch.bfloat16, np.dtype(ml_dtypes.bfloat16)),
    "f8e4m3fn": (torch.float8_e4m3fn, np.dtype(ml_dtypes.float8_e4m3fn)),
    "f8e5m2": (torch.float8_e5m2, np.dtype(ml_dtypes.float8_e5m2)),
    "f8e4m3fnuz": (torch.float8_e4m3fnuz, np.dtype(ml_dtypes.float8_e4m3fnuz)),
    "f8e5m2fnuz": (torch.float8_e5m2fnuz, np.dtype(ml_dtypes.float8_e5m2fnuz)),
    "i8": (torch.int8, np.dtype(np.int8)),
}
#: torch's rule per destination as an npusim policy: torch saturates overflow and ±Inf into
#: float8_e4m3fn; everything else is IEEE (npusim's default; into the fnuz formats, which have
#: no Inf, overflow and ±Inf become their NaN 0x80 on both sides)
POLICY = {"f8e4m3fn": {"saturate": True}}
CASTS = [("f32", d) for d in ("f16", "bf16", "f8e4m3fn", "f8e5m2", "f8e4m3fnuz", "f8e5m2fnuz",
                              "i8")] + [
    (s, "f32") for s in ("f16", "bf16", "f8e4m3fn", "f8e5m2")
]
DATA = ("plain", "nan1%", "masked")


def f32_data(kind: str, n: int, rng) -> np.ndarray:
    """The f32 input of a data kind."""
    x = rng.standard_normal(n, dtype=np.float32) * np.float32(4)
    if kind == "nan1%":
        specials = np.float32([np.nan, np.inf, -np.inf])
        idx = np.arange(0, n, 100)
        x[idx] = specials[np.arange(idx.size) % 3]
    elif kind == "masked":
        col = np.arange(n) % 1024
        row = (np.arange(n) // 1024) % 1024
        x[col > row] = -np.inf
    return x


def as_torch(a: np.ndarray, dtype) -> torch.Tensor:
    """A torch tensor over the same bytes as `a`."""
    raw = {1: np.uint8, 2: np.int16, 4: np.int32}[a.itemsize]
    return torch.from_numpy(a.view(raw)).view(dtype)


def median_seconds(f, repeat: int) -> float:
    f()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def compare(src: str, dst: str, kind: str, n: int, threads, repeat: int, rng) -> dict:
    x32 = f32_data(kind, n, rng)
    x = x32 if src == "f32" else npusim.cast(x32, src)
    out_np = np.empty(n, DTYPES[dst][1])
    out_t = torch.empty(n, dtype=DTYPES[dst][0])
    x_t = as_torch(np.asarray(x), DTYPES[src][0])
    torch.set_num_threads(threads or os.cpu_count())
    policy = POLICY.get(dst, {})
    npu = median_seconds(lambda: npusim.cast(x, dst, out=out_np, threads=threads, **policy),
                         repeat)
    tor = median_seconds(lambda: out_t.copy_(x_t), repeat)
    bits = "-"
    if dst != "i8":
        ours = out_np.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[out_np.itemsize])
        theirs = out_t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32}[out_np.itemsize])
        theirs = theirs.numpy().view(ours.dtype)
        differ = ours != theirs
        nan = np.isnan(out_np.astype(np.float64)) & torch.isnan(out_t.to(torch.float64)).numpy()
        payload = int(np.count_nonzero(differ & nan))
        other = int(np.count_nonzero(differ & ~nan))
        bits = "same" if other == 0 else f"{other} differ"
        if payload:
            bits += f" ({payload} NaN payloads)"
    return {"cast": f"{src} -> {dst}", "data": kind, "n": n, "threads": threads or os.cpu_count(),
            "npusim": n / npu / 1e9, "torch": n / tor / 1e9, "bits": bits}


def size_name(n: int) -> str:
    return f"{n >> 20} Mi" if n % (1 << 20) == 0 else f"{n >> 10} Ki" if n % 1024 == 0 else str(n)


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--small", type=int, default=1 << 20, help="elements of the one-thread runs")
    p.add_argument("--large", type=int, default=1 << 26, help="elements of the all-core runs")
    p.add_argument("--repeat", type=int, default=9, help="timed calls per figure (median)")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")
    p.add_argument("--cast", action="append", default=[],
                   help="only the casts whose name (e.g. 'f32 -> f16') contains this text; "
                        "repeatable")
    a = p.parse_args()
    rng = np.random.default_rng(20261128)
    level = os.environ.get("NPUSIM_KERNEL", "best the machine has")
    print(f"{cpu_name()}, {os.cpu_count()} CPUs; npusim kernel level: {level}; "
          f"torch {torch.__version__}; median of {a.repeat} calls; Gelem/s")
    rows = []
    for n, threads in ((a.small, 1), (a.large, None)):
        for src, dst in CASTS:
            if a.cast and not any(t in f"{src} -> {dst}" for t in a.cast):
                continue
            for kind in DATA:
                rows.append(compare(src, dst, kind, n, threads, a.repeat, rng))
    head = ["cast", "data", "elements", "thr", "npusim", "torch", "npusim/torch", "bits"]
    body = [[r["cast"], r["data"], size_name(r["n"]), str(r["threads"]), f"{r['npusim']:.2f}",
             f"{r['torch']:.2f}", f"{r['npusim'] / r['torch']:.2f}x", r["bits"]] for r in rows]
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in body:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
        for r in [head] + body:
            print("  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                            for i, (c, w) in enumerate(zip(r, widths))))
    behind = [r for r in rows if r["npusim"] < r["torch"]]
    print(f"\n{len(rows) - len(behind)} of {len(rows)} rows at or above torch")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
