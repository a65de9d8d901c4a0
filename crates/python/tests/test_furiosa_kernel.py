"""npusim.furiosa.run_kernel: the issue's DM-to-DM kernel (docs/furiosa-engines.md, K6) from
arrays to arrays, its schedule and trace, and its refusals. Expected values are the
document's hand sums: y[t, a] = wrap_i8(4a + 4000t - 600) for x[r, t, a] = a + 1000t - 100r."""

import json
from pathlib import Path

import numpy as np
import pytest

import npusim

K6 = (Path(__file__).resolve().parents[3]
      / "crates/furiosa/examples/pipelines/kernel_inter_slice_reduce_cast.toml")


def k6_input():
    r, t, a = np.meshgrid(np.arange(4), np.arange(16), np.arange(512), indexing="ij")
    return (a + 1000 * t - 100 * r).astype(np.int32)


def test_k6_from_arrays_to_arrays():
    res = npusim.furiosa.run_kernel(K6, {"x": k6_input()})
    y = res.tensors["y"]
    assert y.dtype == np.int8 and y.shape == (16, 512)
    t, a = np.meshgrid(np.arange(16), np.arange(512), indexing="ij")
    np.testing.assert_array_equal(y, (4 * a + 4000 * t - 600).astype(np.int64).astype(np.int8))
    assert (y[0, 0], y[1, 3], y[0, 150], y[15, 511]) == (-88, 84, 0, 4)
    assert res.cycles == 19
    assert "vector   |      16 |           1 |      16 |     3 |       0 |      19 |       0" \
        in res.schedule
    events = [e for e in json.loads(res.trace)["traceEvents"] if e["ph"] == "X"]
    assert [(e["name"], e["ts"], e["dur"]) for e in events] == [
        ("fetch", 0, 16), ("collect", 0, 16), ("vector", 0, 19), ("cast", 3, 16),
        ("commit", 3, 16)]
    assert len(res.stages) == 9 and "DmTensor `y`" in res.stages[-1]


def test_k6_refusals():
    with pytest.raises(npusim.FuriosaError, match="no DM tensor is named `w`"):
        npusim.furiosa.run_kernel(K6, {"w": k6_input()})
    with pytest.raises(TypeError, match="DM tensor `x` holds i32 but the array holds f32"):
        npusim.furiosa.run_kernel(K6, {"x": k6_input().astype(np.float32)})
    with pytest.raises(npusim.FuriosaError, match="declares no \\[\\[dm\\]\\] tensors"):
        npusim.furiosa.run_kernel({"axes": "A=8", "dtype": "i32", "chip": "1", "cluster": "1",
                                   "slice": "1", "time": "1", "packet": "A"})


EXAMPLES = Path(__file__).resolve().parents[3] / "examples/furiosa"


def test_lift_and_interleaved_kernel_files():
    # L1 and I1 of docs/furiosa-engines.md §4.4 as the shipped kernel files.
    x = np.arange(128 * 4 * 16, dtype=np.uint16).reshape(128, 4, 16)
    import ml_dtypes
    res = npusim.furiosa.run_kernel(EXAMPLES / "kernel_slice_lift.toml",
                                    {"x": x.view(ml_dtypes.bfloat16)})
    np.testing.assert_array_equal(res.tensors["y"].view(np.uint16), x)
    assert res.cycles == 2
    a, b = np.meshgrid(np.arange(16), np.arange(32), indexing="ij")
    res = npusim.furiosa.run_kernel(EXAMPLES / "kernel_interleaved.toml",
                                    {"lhs": (a + b).astype(np.int8),
                                     "rhs": (100 + a + b).astype(np.int8)})
    y = res.tensors["y"]
    assert y.shape == (16, 2, 32)
    assert (y[1, 1, 2], y[0, 0, 31], y[15, 1, 0]) == (103, 31, 115)
    assert res.cycles == 32
