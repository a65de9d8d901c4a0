"""JAX interop: jax.Array inputs (f32, bf16, fp8) read through ``__array__`` / DLPack, results
compared bit for bit with JAX's own ``astype``. Skipped, with the reason shown, when JAX is not
installed (CI installs numpy, ml_dtypes and pytest only)."""

import numpy as np
import pytest

import npusim
from comparison import TALLY

jax = pytest.importorskip("jax", reason="jax is not installed: JAX interop skipped")
jnp = pytest.importorskip("jax.numpy")

#: JAX's rule per destination as an npusim policy: none needed, JAX converts as ml_dtypes
#: does (overflow and ±Inf into float8_e4m3fn become NaN, unlike torch, which saturates)
POLICY: dict = {}
PAIRS = [("float32", "bf16"), ("float32", "f16"), ("float32", "f8e4m3fn"),
         ("float32", "f8e5m2"), ("bfloat16", "f32"), ("float8_e4m3fn", "f32"),
         ("float8_e5m2", "f32")]


def codes(a) -> np.ndarray:
    a = np.ascontiguousarray(np.asarray(a))
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[a.dtype.itemsize]).reshape(-1)


@pytest.mark.parametrize("src,dst", PAIRS)
def test_bit_exact_with_jax_astype(rng, src, dst):
    x = (rng.standard_normal(1 << 14) * 50).astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e30]
    xj = jnp.asarray(x).astype(getattr(jnp, src))
    ours = npusim.cast(xj, dst, **POLICY.get(dst, {}))
    theirs = np.asarray(xj.astype(np.asarray(ours).dtype))
    a, b = codes(ours), codes(theirs)
    both_nan = np.isnan(np.asarray(ours, np.float64)) & np.isnan(theirs.astype(np.float64))
    bad = np.nonzero((a != b) & ~both_nan.reshape(-1))[0]
    TALLY[("jax", f"{src} -> {dst}")].update(
        {"compared": a.size, "equal": int(np.count_nonzero(a == b))})
    assert len(bad) == 0, [(float(np.asarray(xj, np.float64)[i]), hex(a[i]), hex(b[i]))
                           for i in bad[:8]]


def test_jax_arrays_in_keep_shape_and_order():
    x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    y = npusim.cast(x, "bf16")
    assert y.shape == (3, 4) and str(y.dtype) == "bfloat16"
    np.testing.assert_array_equal(npusim.cast(x.T, "f16"), np.asarray(x.T).astype(np.float16))
    assert npusim.dtype_of(jnp.zeros(2, dtype=jnp.float8_e4m3fn)) == "f8e4m3fn"
