"""``python -m npusim.bench``: npusim.cast against ml_dtypes ``astype`` and torch ``.to``
(when torch is installed) on the same arrays in one process, printed as ratios (how many
times longer the peer takes than npusim; above 1 means npusim is faster).

Each figure is the best of ``--repeat`` runs (wall time of one call, output allocation
included, as a user sees it), after one small warm-up cast that builds npusim's cached kernel
tables (a one-time cost per cast and policy in a process), and after 50 ms idle, so that the
library timed before (torch's OpenMP threads spin between calls) no longer holds a core. Inputs are seeded standard-normal f32 values scaled to
each destination's range; the 8-bit and narrower destinations cover every f32 → 8-bit cast
both peers have.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import npusim
from ._dtypes import dtype_for

#: (source, destination) pairs of the table
CASTS = [
    ("f32", "bf16"), ("f32", "f16"), ("f32", "f8e4m3fn"), ("f32", "f8e5m2"),
    ("f32", "f8e4m3fnuz"), ("f32", "f8e5m2fnuz"), ("f32", "f8e4m3"), ("f32", "f8e3m4"),
    ("f32", "f8e4m3b11fnuz"), ("f32", "f8e8m0"), ("f32", "f6e2m3fn"), ("f32", "f4e2m1"),
    ("f32", "i8"), ("bf16", "f32"), ("f8e4m3fn", "f32"), ("bf16", "f8e4m3fn"),
]
#: npusim name -> torch dtype name, for the casts torch has
TORCH = {"f32": "float32", "bf16": "bfloat16", "f16": "float16", "f8e4m3fn": "float8_e4m3fn",
         "f8e5m2": "float8_e5m2", "f8e4m3fnuz": "float8_e4m3fnuz",
         "f8e5m2fnuz": "float8_e5m2fnuz", "f8e8m0": "float8_e8m0fnu", "i8": "int8"}


#: idle time before each figure, so that the threads of the library timed before (torch's
#: OpenMP threads spin for a while after each call) have stopped competing for the cores
SETTLE_S = 0.05


def best(f, repeat: int) -> float:
    """The shortest of ``repeat`` calls of ``f``, in seconds, after ``SETTLE_S`` idle."""
    time.sleep(SETTLE_S)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def source(src: str, n: int, rng) -> np.ndarray:
    x = rng.standard_normal(n, dtype=np.float32) * np.float32(4)
    return x if src == "f32" else x.astype(dtype_for(src))


def run(sizes, casts, repeat: int, threads, torch_mod) -> list:
    rows = []
    rng = np.random.default_rng(20261127)
    for n in sizes:
        base = rng.standard_normal(n, dtype=np.float32) * np.float32(4)
        for src, dst in casts:
            x = base if src == "f32" else base.astype(dtype_for(src))
            dt = dtype_for(dst)
            npusim.cast(x[:1024], dst, threads=threads)  # builds the cached kernel tables once
            npu = best(lambda: npusim.cast(x, dst, threads=threads), repeat)
            ml = best(lambda: x.astype(dt), repeat)
            tor = None
            if torch_mod is not None and src in TORCH and dst in TORCH:
                t = torch_mod.from_numpy(np.asarray(x).view({1: np.uint8, 2: np.int16, 4: np.float32}[x.itemsize]))
                if src != "f32":
                    t = t.view(getattr(torch_mod, TORCH[src]))
                target = getattr(torch_mod, TORCH[dst])
                try:
                    t.to(target)
                    tor = best(lambda: t.to(target), repeat)
                except (RuntimeError, TypeError):
                    tor = None
            rows.append((f"{src} -> {dst}", n, npu, ml, tor))
    return rows


def size_name(n: int) -> str:
    return f"{n >> 20} Mi" if n % (1 << 20) == 0 else str(n)


def table(rows, markdown: bool) -> str:
    head = ["cast", "elements", "npusim ms", "ml_dtypes ms", "ml_dtypes / npusim",
            "torch ms", "torch / npusim"]
    body = []
    for name, n, npu, ml, tor in rows:
        body.append([name, size_name(n), f"{npu * 1e3:.2f}", f"{ml * 1e3:.2f}", f"{ml / npu:.1f}x",
                     "-" if tor is None else f"{tor * 1e3:.2f}",
                     "-" if tor is None else f"{tor / npu:.1f}x"])
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([fmt(head)] + [fmt(r) for r in body])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m npusim.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1048576,67108864",
                   help="element counts, comma-separated (default: 1 Mi and 64 Mi)")
    p.add_argument("--casts", default=None,
                   help="casts as src:dst, comma-separated (default: the built-in list)")
    p.add_argument("--repeat", type=int, default=5, help="runs per figure, the best kept")
    p.add_argument("--threads", type=int, default=None, help="npusim threads (default: all)")
    p.add_argument("--no-torch", action="store_true", help="leave torch out even if installed")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")
    a = p.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",")]
    casts = CASTS if a.casts is None else [tuple(c.split(":")) for c in a.casts.split(",")]
    torch_mod = None
    if not a.no_torch:
        try:
            import torch as torch_mod  # noqa: F401
        except ImportError:
            print("torch is not installed: the torch column is empty")
    import os

    print(f"npusim bench: {os.cpu_count()} CPUs, best of {a.repeat} runs")
    print(table(run(sizes, casts, a.repeat, a.threads, torch_mod), a.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
