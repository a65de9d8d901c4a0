"""npusim.cast: arrays in and out, layouts, options, errors (issue 23, "What a user does")."""

import sys
import threading
import time

import ml_dtypes
import numpy as np
import pytest

import npusim


def bits(a):
    """The raw bytes of an array, C order, for bit-exact comparisons."""
    return np.ascontiguousarray(a).view(np.uint8)


def test_ml_dtypes_formats_come_back_with_their_dtype(rng):
    x = rng.standard_normal((64, 32)).astype(np.float32)
    y = npusim.cast(x, "f8e4m3fn", round="rint", saturate=True)
    assert y.dtype == ml_dtypes.float8_e4m3fn and y.shape == x.shape
    assert npusim.cast(x, "bfloat16").dtype == ml_dtypes.bfloat16
    assert npusim.cast(x, "f4e2m1").dtype == ml_dtypes.float4_e2m1fn
    assert npusim.cast(x, "i4").dtype == ml_dtypes.int4
    assert npusim.cast(x, "f16").dtype == np.float16
    assert npusim.cast(x, "torch.float64").dtype == np.float64


def test_formats_ml_dtypes_lacks_come_back_as_codes_with_their_format(rng):
    x = np.float32([1.0, 2.0, -0.5, 3.0])
    h = npusim.cast(x, "hif8", round="hybrid", seed=7)
    assert isinstance(h, npusim.Codes) and h.dtype == np.uint8
    assert h.format == "hif8" and npusim.dtype_of(h) == "hif8"
    assert npusim.dtype_of(h[1:]) == "hif8"  # views keep the format
    np.testing.assert_array_equal(npusim.cast(h, "f32"), x)  # all exact in hif8
    e = npusim.cast(x, "f4e1m2")
    assert e.format == "f4e1m2"
    # uint8 codes given with from_=
    np.testing.assert_array_equal(npusim.cast(np.asarray(h), "f32", from_="hif8"), x)


def test_dtype_of_names_numpy_and_ml_dtypes_dtypes():
    assert npusim.dtype_of(np.zeros(2, np.float32)) == "f32"
    assert npusim.dtype_of(np.zeros(2, ml_dtypes.float8_e8m0fnu)) == "f8e8m0"
    assert npusim.dtype_of(np.zeros(2, ml_dtypes.uint4)) == "u4"
    with pytest.raises(npusim.DtypeError, match="no format for dtype complex64"):
        npusim.dtype_of(np.zeros(2, np.complex64))


def test_the_snippets_stats_and_round_trip(rng):
    x = rng.standard_normal((256, 256)).astype(np.float32)
    y, st = npusim.cast(x, "f4e2m1", stats=True)
    assert st.total == x.size and st.measured == x.size
    assert st.max_abs > 0 and st.rmse > 0 and 0 < st.sqnr_db < 40
    assert st.flushed == int(np.sum((x != 0) & (np.abs(x) < 0.25)))
    z = npusim.cast(y, "f32")
    assert z.dtype == np.float32
    np.testing.assert_array_equal(z, y.astype(np.float32))
    assert dict(st.status)["inexact"] > 0
    assert st.as_dict()["sqnr_db"] == st.sqnr_db


def test_without_stats_the_status_counts_are_returned_only_on_request():
    y = npusim.cast(np.float32([1.0]), "bf16")
    assert isinstance(y, np.ndarray)
    y, st = npusim.cast(np.float32([1.0, 1e-30, 1e9]), "f8e4m3fn", saturate=True, stats=True)
    assert (st.exact, st.flushed, st.saturated) == (1, 1, 1)


@pytest.mark.parametrize("mode", ["rint", "round", "floor", "ceil", "trunc", "odd", "hybrid"])
def test_every_layout_gives_the_bits_of_the_contiguous_cast(rng, mode):
    x = rng.standard_normal((40, 70)).astype(np.float32) * 100
    want = npusim.cast(x, "f8e5m2", round=mode, seed=3)
    f = np.asfortranarray(x)
    got_f = npusim.cast(f, "f8e5m2", round=mode, seed=3)
    assert got_f.flags.f_contiguous == (mode != "hybrid")
    np.testing.assert_array_equal(bits(got_f), bits(want))
    # strided rows (a view, cast row by row) and a strided last axis (copied)
    np.testing.assert_array_equal(
        bits(npusim.cast(x[::3, 5:60], "f8e5m2", round=mode, seed=3)),
        bits(npusim.cast(np.ascontiguousarray(x[::3, 5:60]), "f8e5m2", round=mode, seed=3)),
    )
    np.testing.assert_array_equal(
        bits(npusim.cast(x[:, ::2], "f8e5m2", round=mode, seed=3)),
        bits(npusim.cast(np.ascontiguousarray(x[:, ::2]), "f8e5m2", round=mode, seed=3)),
    )
    np.testing.assert_array_equal(
        bits(npusim.cast(x[::-1], "f8e5m2", round=mode, seed=3)),
        bits(npusim.cast(x[::-1].copy(), "f8e5m2", round=mode, seed=3)),
    )


def test_stochastic_rounding_does_not_depend_on_threads(rng):
    x = rng.standard_normal(300_000).astype(np.float32)
    a = npusim.cast(x, "bf16", round="hybrid", seed=11, threads=1)
    b = npusim.cast(x, "bf16", round="hybrid", seed=11, threads=3)
    c = npusim.cast(x, "bf16", round="hybrid", seed=11)
    np.testing.assert_array_equal(bits(a), bits(b))
    np.testing.assert_array_equal(bits(a), bits(c))
    assert not np.array_equal(bits(a), bits(npusim.cast(x, "bf16", round="hybrid", seed=12)))


def test_casts_from_many_threads_at_once_agree_with_one_thread(rng):
    # every calling thread casts in its own pool (the thread one of its workers); threads that
    # start, cast split casts concurrently and end must give the one-thread bits and statuses
    x = rng.standard_normal(400_000).astype(np.float32) * np.float32(300)
    x[::97] = np.nan
    want, want_st = npusim.cast(x, "f8e4m3fn", round="hybrid", seed=4, threads=1, stats=True)
    got = [None] * 6

    def work(k):
        for _ in range(3):
            got[k] = npusim.cast(x, "f8e4m3fn", round="hybrid", seed=4, stats=True)

    for _ in range(2):  # the second round's threads build new pools after the first's ended
        threads = [threading.Thread(target=work, args=(k,)) for k in range(len(got))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for y, st in got:
            np.testing.assert_array_equal(bits(y), bits(want))
            assert st.as_dict() == want_st.as_dict()


def test_shapes_scalars_empties_and_sequences():
    assert npusim.cast(np.float32(1.5), "f16").shape == ()
    assert npusim.cast(np.zeros((0, 3), np.float32), "bf16").shape == (0, 3)
    np.testing.assert_array_equal(npusim.cast([1.0, 2.0], "f32"), np.float32([1, 2]))
    big_endian = np.array([1.0, 2.5], dtype=">f4")
    np.testing.assert_array_equal(npusim.cast(big_endian, "f16"), np.float16([1, 2.5]))


def test_saturate_follows_the_clis_three_policies():
    x = np.float32([1000.0, np.inf, 300.0])
    assert np.isnan(npusim.cast(x, "f8e4m3fn").astype(np.float32)[0])  # IEEE: NaN (no Inf)
    np.testing.assert_array_equal(
        npusim.cast(x, "f8e4m3fn", saturate=True).astype(np.float32), [448, 448, 288]
    )
    np.testing.assert_array_equal(npusim.cast(np.float32([300.0]), "i8"), [127])
    np.testing.assert_array_equal(npusim.cast(np.float32([300.0]), "i8", saturate=False), [44])


def test_errors_are_value_and_type_errors_with_the_librarys_message():
    x = np.float32([1.0])
    with pytest.raises(ValueError, match="unknown format `f9`; valid formats: f64 f32"):
        npusim.cast(x, "f9")
    with pytest.raises(npusim.FormatError):
        npusim.cast(x, "f16", round="sideways")
    with pytest.raises(npusim.CastError, match="threads=0"):
        npusim.cast(x, "f16", threads=0)
    with pytest.raises(TypeError, match="no format for dtype bool"):
        npusim.cast(np.array([True]), "f16")
    with pytest.raises(TypeError, match="2-byte integer elements"):
        npusim.cast(np.float32([1]), "f32", from_="bf16")
    assert issubclass(npusim.FormatError, npusim.NpusimError)
    assert issubclass(npusim.NpusimError, ValueError)
    assert issubclass(npusim.DtypeError, TypeError)


def test_the_gil_is_released_during_a_cast(rng):
    # With a switch interval of 1000 s the interpreter never takes the GIL from a thread that
    # holds it: the other thread (which gives the GIL up at every sleep) can step while the
    # main thread is inside npusim.cast only if the cast released it.
    x = rng.standard_normal(1 << 23).astype(np.float32)
    steps = []
    done = threading.Event()

    def other():
        while not done.is_set():
            steps.append(1)
            time.sleep(0.0001)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    t = threading.Thread(target=other)
    try:
        t.start()
        before = len(steps)
        for _ in range(3):
            npusim.cast(x, "f8e4m3fn", threads=1, stats=True)
        during = len(steps) - before
    finally:
        done.set()
        sys.setswitchinterval(old)
        t.join()
    assert during > 0


def test_a_panic_in_native_code_is_an_npusim_error_not_an_abort():
    with pytest.raises(npusim.NpusimError, match="internal error in npusim .* deliberate panic"):
        npusim._native._panic_for_tests()
    # the interpreter and the package keep working
    assert npusim.cast(np.float32([2.0]), "bf16").tolist() == [2.0]


def test_out_receives_the_result_and_is_returned(rng):
    x = rng.standard_normal((33, 17)).astype(np.float32)
    want = npusim.cast(x, "f8e5m2")
    out = np.full(x.shape, 0x7F, ml_dtypes.float8_e5m2)
    got, st = npusim.cast(x, "f8e5m2", out=out, stats=True)
    assert got is out and st.total == x.size
    assert bits(out).tobytes() == bits(want).tobytes()
    # a Fortran-ordered and a strided input write the same C-ordered result into out
    out2 = np.empty(x.shape, ml_dtypes.float8_e5m2)
    npusim.cast(np.asfortranarray(x), "f8e5m2", out=out2)
    assert bits(out2).tobytes() == bits(want).tobytes()
    wide = np.zeros((33, 34), np.float32)
    wide[:, ::2] = x
    npusim.cast(wide[:, ::2], "f8e5m2", out=out2)
    assert bits(out2).tobytes() == bits(want).tobytes()
    # a format ml_dtypes lacks writes its codes into a uint8 out
    codes = np.empty(x.shape, np.uint8)
    assert npusim.cast(x, "hif8", out=codes) is codes
    assert bits(codes).tobytes() == bits(npusim.cast(x, "hif8")).tobytes()


def test_an_out_that_does_not_fit_is_refused_naming_the_difference():
    x = np.float32([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match=r"shape \(3,\).*shape \(4,\)"):
        npusim.cast(x, "f16", out=np.empty(3, np.float16))
    with pytest.raises(ValueError, match="dtype float32.*dtype float16"):
        npusim.cast(x, "f16", out=np.empty(4, np.float32))
    with pytest.raises(ValueError, match="C-contiguous"):
        npusim.cast(x, "f16", out=np.empty(8, np.float16)[::2])
    with pytest.raises(TypeError, match="numpy array"):
        npusim.cast(x, "f16", out=[0, 0, 0, 0])
