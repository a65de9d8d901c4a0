"""npusim.ascend, npusim.furiosa, npusim.cerebras: the issue's calls, their results against
the vendor documents' examples, and their errors."""

import numpy as np
import pytest

import npusim


def test_ascend_cast_with_mask_repeat_and_params():
    # 950 float -> half, CAST_RINT; 64 lanes per repeat, 2 repeats, the destination advancing
    # 8 blocks (128 halves) and the source 4 blocks (32 floats) per repeat
    src = np.arange(256, dtype=np.float32) + np.float32(0.25)
    r = npusim.ascend.cast(src, dst_dtype="half", mode="CAST_RINT", mask=64, repeat_times=2,
                           params=(1, 1, 8, 4), product="950")
    assert r.dst.dtype == np.float16 and r.steps == 2
    assert r.written == list(range(64)) + list(range(128, 192))
    np.testing.assert_array_equal(r.dst[:64], src[:64].astype(np.float16))
    np.testing.assert_array_equal(r.dst[128:192], src[32:96].astype(np.float16))
    assert not r.dst[64:128].any()


def test_ascend_refuses_what_the_product_lacks_with_its_message():
    src = np.ones(64, np.float32)
    with pytest.raises(npusim.AscendError, match="does not accept round mode CAST_RINT"):
        npusim.ascend.cast(src, dst_dtype="half", mode="CAST_RINT", mask=64, repeat_times=1)
    with pytest.raises(npusim.AscendError, match="repeatTimes 300 is out of range"):
        npusim.ascend.cast(src, dst_dtype="half", mode="CAST_ODD", mask=64, repeat_times=300)
    with pytest.raises(ValueError, match="unknown field|bogus"):
        npusim.ascend.cast(src, dst_dtype="half", mode="CAST_ODD", bogus=1)


def test_ascend_4bit_destination_is_one_element_per_byte():
    import ml_dtypes

    r = npusim.ascend.cast(np.float16([1.5, -2.5, 7.9] * 32), dst_dtype="int4b_t",
                           mode="CAST_RINT", count=96, product="950")
    assert r.dst.dtype == ml_dtypes.int4 and r.dst[:3].tolist() == [2, -2, 7]


def test_furiosa_mapping_as_the_issue_writes_it():
    m = npusim.furiosa.Mapping("A / 8, R # 4", A=64, R=4)
    assert m.size == 32 and len(m) == 32
    assert m.cell(5) == {"A": 8, "R": 1}
    assert m.cell(0) == {}
    assert m.cell(40) == "out of bounds"
    assert str(m) == "(A / 8, R # 4)"
    assert len(m.cells()) == 32
    with pytest.raises(npusim.FuriosaError, match="unknown axis `Q`"):
        npusim.furiosa.Mapping("A / 8, Q", A=64)


PIPELINE = {"axes": "B=4, A=8", "dtype": "i32", "chip": "1", "cluster": "1", "slice": "1",
            "time": "B", "packet": "A",
            "stage": [{"op": "cast", "dtype": "i8", "out_packet": "A # 32"}]}


def test_furiosa_run_from_a_dict_and_from_a_file(tmp_path):
    x = np.arange(32, dtype=np.int32) * 7 - 100  # within i8: the cast is exact
    r = npusim.furiosa.run(PIPELINE, x)
    assert r.output.dtype == np.int8 and r.output.size == 128
    assert "A # 32" in r.layout and r.cycles > 0 and r.stages[0]["name"] == "cast"
    path = tmp_path / "p.toml"
    path.write_text('axes = "B=4, A=8"\ndtype = "i32"\nchip = "1"\ncluster = "1"\nslice = "1"\n'
                    'time = "B"\npacket = "A"\n[[stage]]\nop = "cast"\ndtype = "i8"\n'
                    'out_packet = "A # 32"\n')
    assert npusim.furiosa.run(path, x).output.tolist() == r.output.tolist()
    # each packet of 8 i32 values becomes 8 i8 values then 24 padding lanes
    live = r.output.reshape(4, 32)[:, :8].reshape(-1)
    np.testing.assert_array_equal(live, x)
    with pytest.raises(npusim.FuriosaError, match="32 physical positions"):
        npusim.furiosa.run(PIPELINE, np.arange(31, dtype=np.int32))
    with pytest.raises(TypeError, match="input dtype is i32"):
        npusim.furiosa.run(PIPELINE, np.arange(32, dtype=np.float32))


def test_cerebras_access_as_the_issue_writes_it():
    a = npusim.cerebras.access("|i|{5} -> A[2 * i + 1]", A=(10,))
    assert (a.offset, a.extent, a.stride) == (1, [5], [2])
    assert a.addresses.tolist() == [1, 3, 5, 7, 9] and a.kind == "mem1d"
    with pytest.raises(npusim.CerebrasError, match="array given is `B`"):
        npusim.cerebras.access("|i|{5} -> A[i]", B=(10,))


@pytest.mark.parametrize("arch", ["wse2", "wse3"])
def test_cerebras_run_passes_on_both_generations(arch):
    r = npusim.cerebras.run("gemv-08-routes-3", arch=arch)
    assert r["pass"] is True and r["arch"] in (arch, arch.upper(), arch.replace("wse", "WSE-"))
    assert all(o["pass"] for o in r["outputs"])
    out = r["outputs"][0]
    np.testing.assert_array_equal(out["got"], out["expected"])
    assert "gemv-08-routes-3" in npusim.cerebras.programs()
    with pytest.raises(npusim.CerebrasError, match="unknown architecture"):
        npusim.cerebras.run("gemv-08-routes-3", arch="wse9")
