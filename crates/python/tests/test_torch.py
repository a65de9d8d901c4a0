"""torch interop: CPU tensors in (``__array__`` / DLPack, and bf16 / fp8 tensors numpy has no
dtype for), results compared bit for bit with ``torch.Tensor.to``. Skipped, with the reason
shown, when torch is not installed."""

import numpy as np
import pytest

import npusim
from comparison import TALLY

torch = pytest.importorskip("torch", reason="torch is not installed: torch interop skipped")

PAIRS = [("float32", "bfloat16"), ("float32", "float16"), ("float32", "float8_e4m3fn"),
         ("float32", "float8_e5m2"), ("bfloat16", "float8_e4m3fn"), ("float16", "float8_e5m2"),
         ("bfloat16", "float32"), ("float8_e4m3fn", "float32"), ("float8_e5m2", "bfloat16"),
         ("float64", "bfloat16"), ("float32", "float8_e4m3fnuz"), ("float32", "float8_e5m2fnuz")]


def torch_source(rng, name, n):
    x = torch.from_numpy((rng.standard_normal(n) * 50).astype(np.float32))
    bits = torch.from_numpy(rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.int32))
    x = torch.cat([x, bits.view(torch.float32)])
    return x.to(getattr(torch, name))


#: torch's rule per destination, as an npusim policy: torch saturates overflow and ±Inf into
#: float8_e4m3fn (npusim ``saturate=True``); everything else is IEEE (the default)
POLICY = {"float8_e4m3fn": {"saturate": True}}


def codes(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


@pytest.mark.parametrize("src,dst", PAIRS)
def test_bit_exact_with_tensor_to(rng, src, dst):
    if src.startswith("float8"):
        t = torch.arange(256, dtype=torch.uint8).view(getattr(torch, src))  # every code
    else:
        t = torch_source(rng, src, 1 << 16)
    ours = npusim.cast(t, dst, **POLICY.get(dst, {}))
    theirs = t.to(getattr(torch, dst))
    a = codes(np.asarray(ours)).reshape(-1)
    b = codes(theirs.contiguous().view(getattr(torch, {1: "uint8", 2: "int16", 4: "int32",
                                                        8: "int64"}[theirs.element_size()]))
              .numpy()).reshape(-1).astype(a.dtype)
    diff = a != b
    both_nan = (np.isnan(np.asarray(ours).astype(np.float64)).reshape(-1)
                & torch.isnan(theirs.to(torch.float64)).numpy().reshape(-1))
    nan_diff = int(np.count_nonzero(diff & both_nan))
    tally = {"compared": t.numel(), "equal": int(t.numel() - np.count_nonzero(diff))}
    if nan_diff:
        tally["nan payload or sign"] = nan_diff
    TALLY[("torch", f"{src} -> {dst}")].update(tally)
    bad = np.nonzero(diff & ~both_nan)[0]
    assert len(bad) == 0, [(float(t.reshape(-1)[i]), hex(a[i]), hex(b[i])) for i in bad[:8]]


def test_tensors_in_without_a_copy_and_results_out():
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    y = npusim.cast(t, "bf16")
    assert y.shape == (3, 4) and str(y.dtype) == "bfloat16"
    back = torch.from_numpy(np.asarray(y).view(np.int16)).view(torch.bfloat16)
    assert torch.equal(back, t.to(torch.bfloat16))
    # DLPack: the numpy view shares the tensor's memory
    view = np.from_dlpack(t)
    assert view.__array_interface__["data"][0] == t.data_ptr()
    # a transposed tensor (Fortran order) and a tensor with a gradient
    np.testing.assert_array_equal(npusim.cast(t.T, "f16"), t.T.numpy().astype(np.float16))
    g = torch.ones(4, requires_grad=True)
    np.testing.assert_array_equal(npusim.cast(g, "f16"), np.ones(4, np.float16))
    assert npusim.dtype_of(torch.zeros(2, dtype=torch.float8_e4m3fn)) == "f8e4m3fn"
