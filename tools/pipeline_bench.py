#!/usr/bin/env python3
"""End-to-end cast of an f32 .npy: the Python pipeline against `npusim cast`.

Makes an f32 .npy of N elements (default 64 Mi), then for each destination times
    np.load -> astype(ml_dtypes.bfloat16 / ml_dtypes.float8_e4m3fn / numpy int8) -> np.save
and
    npusim cast IN -o OUT --to bf16 / f8e4m3fn / i8
on the same file (warm page cache: one untimed run of each first), and prints the median
wall times over the repeats and their ratio (npusim / Python; below 1 means npusim is faster),
and the median CPU seconds (user + system) of each side, which a shared machine disturbs less
than the wall time (npusim's CPU time counts all its threads).

Both sides write over their previous output inside the timed region (np.save truncates it,
npusim renames its finished temporary file over it), so both pay for freeing the old pages.

The two sides do not round the same way for int8 (numpy truncates toward zero and wraps,
npusim rounds to nearest even and clamps): only the times are compared here.

Usage: python3 tools/pipeline_bench.py [--elements N] [--repeats R] [--npusim PATH] [--dir DIR]
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import ml_dtypes
import numpy as np

# npusim format name -> numpy dtype of the Python pipeline.
TARGETS = [
    ("bf16", ml_dtypes.bfloat16),
    ("f8e4m3fn", ml_dtypes.float8_e4m3fn),
    ("i8", np.int8),
]


def cpu_seconds(who):
    """User + system CPU seconds used so far by this process or its waited-for children."""
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def python_pipeline(src, dst, dtype):
    """np.load -> astype -> np.save; returns (wall, CPU) seconds."""
    c0, t0 = cpu_seconds(resource.RUSAGE_SELF), time.perf_counter()
    a = np.load(src)
    np.save(dst, a.astype(dtype))
    return time.perf_counter() - t0, cpu_seconds(resource.RUSAGE_SELF) - c0


def npusim_cast(npusim, src, dst, fmt):
    """`npusim cast SRC -o DST --to FMT`; returns (wall, CPU) seconds."""
    c0, t0 = cpu_seconds(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(
        [npusim, "cast", src, "-o", dst, "--to", fmt],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0, cpu_seconds(resource.RUSAGE_CHILDREN) - c0


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--elements", type=int, default=64 << 20)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--npusim", default=os.path.join(root, "target/release/npusim"))
    p.add_argument("--dir", default=None, help="where to put the files (default: a temp dir)")
    args = p.parse_args()
    if not os.path.exists(args.npusim):
        sys.exit(f"{args.npusim} not found: run `cargo build --release -p npusim` first")

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        src = os.path.join(tmp, "x.npy")
        rng = np.random.default_rng(0)
        np.save(src, (rng.standard_normal(args.elements, dtype=np.float32) * 4))
        print(f"{args.elements} f32 elements ({os.path.getsize(src) / 2**20:.0f} MiB), "
              f"median of {args.repeats} runs, warm page cache; "
              f"{os.cpu_count()} logical CPUs (a shared machine: times vary)")
        print(f"{'--to':<10} {'python s':>9} {'npusim s':>9} {'npusim/python':>14}"
              f" {'python cpu s':>13} {'npusim cpu s':>13} {'cpu ratio':>10}")
        for fmt, dtype in TARGETS:
            py_out = os.path.join(tmp, f"py_{fmt}.npy")
            rs_out = os.path.join(tmp, f"rs_{fmt}.npy")
            python_pipeline(src, py_out, dtype)
            npusim_cast(args.npusim, src, rs_out, fmt)
            py, rs = [], []
            for _ in range(args.repeats):
                py.append(python_pipeline(src, py_out, dtype))
                rs.append(npusim_cast(args.npusim, src, rs_out, fmt))
            py_t, rs_t = (statistics.median(t for t, _ in runs) for runs in (py, rs))
            py_c, rs_c = (statistics.median(c for _, c in runs) for runs in (py, rs))
            print(f"{fmt:<10} {py_t:>9.3f} {rs_t:>9.3f} {rs_t / py_t:>14.2f}"
                  f" {py_c:>13.3f} {rs_c:>13.3f} {rs_c / py_c:>10.2f}")
            os.remove(py_out)
            os.remove(rs_out)


if __name__ == "__main__":
    main()
