"""Hypothesis properties of npusim.cast: the round trip ``cast(cast(x, f), "f32")`` stays
within the rounding bound of each mode, and the status counts of ``npusim.cast(stats=True)``
equal those of ``npusim cast --stats`` (the library's file cast, ``npusim.cast_file``)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import npusim
import safetensors_file

BINARY = ["f16", "bf16", "f8e4m3fn", "f8e4m3", "f8e5m2", "f8e3m4", "f8e4m3fnuz", "f8e5m2fnuz",
          "f6e2m3fn", "f6e3m2fn", "f4e2m1", "f4e1m2"]
f32s = hnp.arrays(np.float32, st.integers(1, 64),
                  elements=st.floats(width=32, allow_nan=False, allow_infinity=False))


def ulp_bound(x: np.ndarray, fi) -> np.ndarray:
    """One unit in the last place of format ``fi`` at each |x| (subnormal spacing below the
    normal range)."""
    ax = np.abs(x.astype(np.float64))
    with np.errstate(divide="ignore"):
        e = np.floor(np.log2(np.maximum(ax, fi.smallest_normal)))
    return np.exp2(e - fi.nmant)


@settings(max_examples=60, deadline=None)
@given(x=f32s, fmt=st.sampled_from(BINARY),
       mode=st.sampled_from(["rint", "round", "floor", "ceil", "trunc", "odd", "hybrid"]),
       seed=st.integers(0, 2**64 - 1))
def test_round_trip_error_is_within_the_modes_bound(x, fmt, mode, seed):
    fi = npusim.finfo(fmt)
    y = npusim.cast(npusim.cast(x, fmt, round=mode, saturate=True, seed=seed), "f32")
    y64, x64 = y.astype(np.float64), x.astype(np.float64)
    inside = np.abs(x64) <= fi.max
    err = np.abs(y64 - x64)[inside]
    ulp = ulp_bound(x, fi)[inside]
    nearest = mode in ("rint", "round")
    assert np.all(err <= (0.5 if nearest else 1.0) * ulp), (fmt, mode, x[inside], y[inside])
    # directed modes land on the right side
    if mode == "floor":
        assert np.all(y64[inside] <= x64[inside])
    if mode == "ceil":
        assert np.all(y64[inside] >= x64[inside])
    if mode == "trunc":
        assert np.all(np.abs(y64[inside]) <= np.abs(x64[inside]))
    # beyond the range, saturation gives ±max
    out = ~inside
    assert np.all(np.abs(y64[out]) == fi.max)


@settings(max_examples=40, deadline=None)
@given(x=hnp.arrays(np.float32, st.integers(1, 200), elements=st.floats(width=32)),
       fmt=st.sampled_from(["bf16", "f16", "f8e4m3fn", "f8e5m2", "f4e2m1", "i8", "hif8"]),
       saturate=st.sampled_from([None, True]))
def test_status_counts_equal_the_clis_stats(tmp_path_factory, x, fmt, saturate):
    d = tmp_path_factory.mktemp("stats")
    safetensors_file.write(d / "in.safetensors", {"w": x})
    (report,) = npusim.cast_file(d / "in.safetensors", d / "out.safetensors", to=fmt,
                                 saturate=saturate, stats=True)
    cli = report["stats"]
    _, ours = npusim.cast(x, fmt, saturate=saturate, stats=True)
    for k in ("total", "exact", "flushed", "saturated", "nan", "inf", "nan_inputs",
              "inf_inputs", "measured"):
        assert getattr(ours, k) == getattr(cli, k), k
    for k in ("max_abs", "max_rel"):
        assert getattr(ours, k) == getattr(cli, k) or (
            math.isnan(getattr(ours, k)) and math.isnan(getattr(cli, k)))
    assert report["nan"] == ours.nan and report["inf"] == ours.inf


@settings(max_examples=40, deadline=None)
@given(x=f32s, fmt=st.sampled_from(BINARY + ["hif8", "f8e8m0"]))
def test_casting_back_a_cast_is_exact(x, fmt):
    y = npusim.cast(x, fmt, saturate=True)
    assert npusim.cast(npusim.cast(y, "f64"), fmt).view(np.uint8).tolist() == \
        np.asarray(y).view(np.uint8).tolist()
