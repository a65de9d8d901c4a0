#!/usr/bin/env python3
"""Make crates/io/tests/vectors/error_stats.json: f32 inputs, the npusim format they are cast
to, and the error statistics numpy computes from ml_dtypes' cast of them.

Run from the repository root:  python3 tools/make_error_stats_vectors.py  (numpy + ml_dtypes
0.6.0, see tools/requirements.txt). The definitions are those of
crates/io/src/cast/error_stats.rs, computed here independently in float64 with numpy:
NaN / Inf inputs, and finite inputs whose result is NaN / Inf, are left out of the error
figures; `exact` counts results equal to their input (NaN staying NaN included);
`flushed_to_zero` non-zero finite inputs that became 0; `saturated` inputs beyond the
destination's largest finite magnitude (Inf included) that became that magnitude.
"""

import json
import pathlib

import ml_dtypes
import numpy as np

OUT = pathlib.Path("crates/io/tests/vectors/error_stats.json")


def stats(x, y, maxf):
    """The statistics of inputs x and results y (float64 arrays), largest finite maxf."""
    xn, yn = np.isnan(x), np.isnan(y)
    xi, yi = np.isinf(x), np.isinf(y)
    measured = np.isfinite(x) & np.isfinite(y)
    exact = (xn & yn) | (~xn & (x == y))
    sat = np.isfinite(y) & (np.abs(x) > maxf) & (np.abs(y) == maxf) & (np.sign(x) == np.sign(y))
    xm, ym = x[measured], y[measured]
    err = np.abs(ym - xm)
    nz = xm != 0
    sse = float(np.sum(err * err))
    ssx = float(np.sum(xm * xm))
    return {
        "total": int(x.size),
        "exact": int(np.sum(exact)),
        "flushed_to_zero": int(np.sum(measured & (x != 0) & (y == 0))),
        "saturated": int(np.sum(sat & ~xn)),
        "nan": int(np.sum(yn)),
        "inf": int(np.sum(yi)),
        "measured": int(np.sum(measured)),
        "max_abs_error": float(err.max()) if err.size else 0.0,
        "max_rel_error": float((err[nz] / np.abs(xm[nz])).max()) if np.any(nz) else 0.0,
        "rmse": float(np.sqrt(sse / xm.size)) if xm.size else 0.0,
        # JSON has no Infinity: null means +inf (no error at all).
        "sqnr_db": float(10 * np.log10(ssx / sse)) if sse > 0 else None,
    }


def case(name, values, to_name, ml_type):
    x32 = np.asarray(values, dtype=np.float32)
    y = x32.astype(ml_type).astype(np.float64)
    maxf = float(ml_dtypes.finfo(ml_type).max)
    return {
        "name": name,
        "to": to_name,
        "f32_bits": [int(b) for b in x32.view(np.uint32)],
        "stats": stats(x32.astype(np.float64), y, maxf),
    }


def main():
    rng = np.random.default_rng(12)
    w = rng.standard_normal(200) * 0.05
    special = [600.0, -1000.0, 450.0, -460.0, 1e-6, -3e-7, 0.0, -0.0, np.nan, np.inf, -np.inf]
    e4 = case("weights and specials to e4m3fn", np.concatenate([w, special]), "f8e4m3fn",
              ml_dtypes.float8_e4m3fn)
    a = rng.standard_normal(150) * 2.0
    extra = [7.0, -100.0, 6.5, 0.1, -0.2, 0.0, 1e-3]
    e2 = case("activations to e2m1", np.concatenate([a, extra]), "f4e2m1",
              ml_dtypes.float4_e2m1fn)
    b = case("weights to bf16", rng.standard_normal(100) * 3.0, "bf16", ml_dtypes.bfloat16)
    doc = {
        "generator": "tools/make_error_stats_vectors.py",
        "numpy": np.__version__,
        "ml_dtypes": ml_dtypes.__version__,
        "cases": [e4, e2, b],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    for c in doc["cases"]:
        print(c["name"], c["stats"])


if __name__ == "__main__":
    main()
