#!/usr/bin/env python3
"""Compare `npusim cast --json` error statistics with numpy + ml_dtypes on a .safetensors file.

Usage (from the repository root, after `cargo build --release -p npusim`):

    python3 tools/compare_cast_stats.py [--npusim target/release/npusim]
        [--file examples/model.safetensors] [--to f8e4m3fn f4e2m1]

For every target format it runs `npusim cast FILE -o TMP --to FMT --json`, casts every
floating-point tensor of FILE with ml_dtypes (`.astype`), computes the statistics with numpy
(tools/make_error_stats_vectors.py's `stats`), and prints both side by side with the largest
relative difference of the figures; counts must be equal. Exits non-zero on a mismatch.
"""

import argparse
import json
import pathlib
import struct
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from make_error_stats_vectors import stats  # noqa: E402

ML = {"f8e4m3fn": ml_dtypes.float8_e4m3fn, "f4e2m1": ml_dtypes.float4_e2m1fn,
      "f8e5m2": ml_dtypes.float8_e5m2, "bf16": ml_dtypes.bfloat16, "f16": np.float16}
DTYPES = {"F32": np.float32, "BF16": ml_dtypes.bfloat16, "F16": np.float16, "F64": np.float64}
COUNTS = ["total", "exact", "flushed_to_zero", "saturated", "nan", "inf", "measured"]
FIGURES = ["max_abs_error", "max_rel_error", "rmse", "sqnr_db"]


def read_safetensors(path):
    """name -> float ndarray for every floating-point tensor of a .safetensors file."""
    b = pathlib.Path(path).read_bytes()
    (n,) = struct.unpack("<Q", b[:8])
    header = json.loads(b[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__" or t["dtype"] not in DTYPES:
            continue
        s, e = t["data_offsets"]
        out[name] = np.frombuffer(b[8 + n + s:8 + n + e], dtype=DTYPES[t["dtype"]]).reshape(t["shape"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--npusim", default="target/release/npusim")
    ap.add_argument("--file", default="examples/model.safetensors")
    ap.add_argument("--to", nargs="+", default=["f8e4m3fn", "f4e2m1"])
    args = ap.parse_args()
    tensors = read_safetensors(args.file)
    ok = True
    for to in args.to:
        with tempfile.TemporaryDirectory() as d:
            run = subprocess.run([args.npusim, "cast", args.file, "-o", f"{d}/o.safetensors",
                                  "--to", to, "--json"], capture_output=True, check=True)
        doc = json.loads(run.stdout)
        print(f"\n== {args.file} -> {to}: npusim (first line) vs numpy + ml_dtypes {ml_dtypes.__version__} (second line)")
        print(f"{'tensor':<48} {'max abs err':>12} {'max rel err':>12} {'RMSE':>12} {'SQNR dB':>9} "
              f"{'exact':>6} {'flushed':>7} {'sat':>5} {'NaN':>4} {'Inf':>4}")
        worst = 0.0
        for t in doc["tensors"]:
            if t["action"] != "cast":
                continue
            x = tensors[t["name"]].astype(np.float64).ravel()
            y = tensors[t["name"]].astype(ML[to]).astype(np.float64).ravel()
            ref = stats(x, y, float(ml_dtypes.finfo(ML[to]).max))
            got = t["error"]
            for label, s in (("npusim", got), ("numpy", ref)):
                name = t["name"] if label == "npusim" else ""
                print(f"{name:<48} {s['max_abs_error']:>12.5g} {s['max_rel_error']:>12.5g} "
                      f"{s['rmse']:>12.5g} {s['sqnr_db'] if s['sqnr_db'] is not None else float('inf'):>9.3f} "
                      f"{s['exact']:>6} {s['flushed_to_zero']:>7} {s['saturated']:>5} {s['nan']:>4} {s['inf']:>4}")
            for k in COUNTS:
                key = "elements" if k == "total" else k
                if got[key] != ref[k]:
                    ok = False
                    print(f"   MISMATCH {k}: npusim {got[key]} numpy {ref[k]}")
            for k in FIGURES:
                a, b = got[k], ref[k]
                if a is None or b is None:
                    ok &= a == b
                    continue
                worst = max(worst, abs(a - b) / max(abs(b), 1e-300))
        print(f"largest relative difference of a figure: {worst:.3g}")
        ok &= worst < 1e-9
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
