"""npusim.cast called again with options already seen (the path that reuses their parsed form):
the same bits, figures and errors as the first call of each option set."""

import ml_dtypes
import numpy as np
import pytest

import npusim
from npusim import _cast


def bits(a):
    """The raw bytes of an array, C order, for bit-exact comparisons."""
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


def fresh(*args, **kw):
    """``npusim.cast`` with no parsed options kept (the first call of its option set)."""
    _cast._PLAIN.clear()
    return npusim.cast(*args, **kw)


def stats_of(st):
    return (st.total, st.exact, st.flushed, st.saturated, st.nan, st.inf, st.status,
            st.max_abs, st.rmse)


SPECIALS = np.float32([0.0, -0.0, 1e-45, -1e-40, 1e-8, 65504.0, 65520.0, 1e30, -1e30,
                       np.inf, -np.inf, np.nan, -np.nan, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11])


@pytest.mark.parametrize("to", ["f16", "bf16", "f8e4m3fn", "f8e5m2", "i8", "f32"])
@pytest.mark.parametrize("round_", ["rint", "floor", "round", "trunc", "hybrid"])
@pytest.mark.parametrize("saturate", [None, True, False])
def test_a_repeat_call_gives_the_bits_and_figures_of_the_first(rng, to, round_, saturate):
    x = np.concatenate([rng.standard_normal(1000).astype(np.float32) * 300, SPECIALS])
    x = np.concatenate([x, SPECIALS.view(np.uint32).__or__(np.uint32(0x12345)).view(np.float32)])
    kw = dict(round=round_, saturate=saturate, seed=7 if round_ == "hybrid" else None,
              threads=1)
    want, want_st = fresh(x, to, stats=True, **kw)
    for _ in range(2):  # the first call keeps the options, the second reuses them
        got, st = npusim.cast(x, to, stats=True, **kw)
        assert got.dtype == want.dtype and bits(got) == bits(want)
        assert stats_of(st) == stats_of(want_st)
        out = np.empty(x.shape, want.dtype)
        out.view(np.uint8)[:] = 0x5A
        assert npusim.cast(x, to, out=out, **kw) is out and bits(out) == bits(want)
        assert bits(npusim.cast(x, to, **kw)) == bits(want)
    assert (x.dtype, to, round_, saturate, kw["seed"], 1) in _cast._PLAIN


@pytest.mark.parametrize("shape", [(), (1,), (5, 7), (2, 3, 4), (0,), (3, 0)])
def test_every_shape_on_a_repeat_call(rng, shape):
    x = (rng.standard_normal(shape) * 8).astype(np.float16)
    want = fresh(x, "f32")
    for _ in range(2):
        got = npusim.cast(x, "f32")
        assert got.shape == x.shape and bits(got) == bits(want)
        out = np.empty(shape, np.float32)
        assert npusim.cast(x, "f32", out=out, threads=1) is out and bits(out) == bits(want)


def test_layouts_and_byte_orders_the_repeat_path_leaves_to_the_general_one(rng):
    x = rng.standard_normal((16, 8)).astype(np.float32) * 100
    want = fresh(x, "bf16")
    for _ in range(2):
        f = npusim.cast(np.asfortranarray(x), "bf16")
        assert f.flags.f_contiguous and bits(f) == bits(want)
        assert bits(npusim.cast(x[:, ::2], "bf16")) == bits(want[:, ::2])
        assert bits(npusim.cast(x.astype(">f4"), "bf16")) == bits(want)
        assert bits(npusim.cast(x, "bf16")) == bits(want)


def test_options_of_another_type_behave_as_on_a_first_call():
    x = np.float32([1.0, 2.5, 1000.0])
    npusim.cast(x, "f8e4m3fn", saturate=True, seed=5, threads=1)
    npusim.cast(x, "f8e4m3fn", saturate=True, seed=5, threads=1)
    # equal values of other types (1 == True, 5.0 == 5) are not the options kept above
    for kw in [dict(saturate=1, seed=5, threads=1), dict(saturate=True, seed=5.0, threads=1),
               dict(saturate=True, seed=5, threads=1.0)]:
        with pytest.raises(TypeError):
            npusim.cast(x, "f8e4m3fn", **kw)
        _cast._PLAIN.clear()
        with pytest.raises(TypeError):
            npusim.cast(x, "f8e4m3fn", **kw)
    # numpy integers and bools are what the first call accepts too
    a = npusim.cast(x, "f8e4m3fn", saturate=np.True_, seed=np.int64(5), threads=1)
    assert bits(a) == bits(npusim.cast(x, "f8e4m3fn", saturate=True, seed=5, threads=1))


def test_errors_on_a_repeat_call_are_those_of_a_first_call():
    x = np.float32([1.0, 2.0, 3.0, 4.0])
    for _ in range(2):
        npusim.cast(x, "f16", threads=1)
        with pytest.raises(npusim.CastError, match="threads=0"):
            npusim.cast(x, "f16", threads=0)
        with pytest.raises(ValueError, match=r"shape \(3,\).*shape \(4,\)"):
            npusim.cast(x, "f16", out=np.empty(3, np.float16), threads=1)
        with pytest.raises(ValueError, match="dtype float32.*dtype float16"):
            npusim.cast(x, "f16", out=np.empty(4, np.float32), threads=1)
        with pytest.raises(ValueError, match="C-contiguous"):
            npusim.cast(x, "f16", out=np.empty(8, np.float16)[::2], threads=1)
        ro = np.empty(4, np.float16)
        ro.flags.writeable = False
        with pytest.raises(ValueError, match="writeable"):
            npusim.cast(x, "f16", out=ro, threads=1)
        with pytest.raises(TypeError, match="numpy array"):
            npusim.cast(x, "f16", out=[0, 0, 0, 0], threads=1)
        with pytest.raises(ValueError, match="unknown format `f9`"):
            npusim.cast(x, "f9", threads=1)


def test_the_parsed_options_refuse_what_cast_into_refuses():
    with pytest.raises(npusim.CastError, match="threads=0"):
        npusim._native.Prepared("f32", "f16", "rint", None, None, 0)
    with pytest.raises(ValueError, match="unknown format `f9`"):
        npusim._native.Prepared("f9", "f16")
    p = npusim._native.Prepared("f32", "bf16")
    src = np.float32([1.0, 3.0]).view(np.uint8)
    with pytest.raises(npusim.CastError, match="not whole f32 elements"):
        p.run(src, np.empty(3, np.uint8))
    with pytest.raises(npusim.CastError, match="not whole f32 elements"):
        p.run(src[:7], np.empty(2, np.uint8))
    dst = np.empty(4, np.uint8)
    assert p.run(src, dst) is None
    assert dst.view(ml_dtypes.bfloat16).tolist() == [1.0, 3.0]
    assert p.run(src, dst, True).total == 2
