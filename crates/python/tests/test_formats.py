"""npusim.formats() and npusim.finfo against ml_dtypes.finfo / np.finfo."""

import ml_dtypes
import numpy as np
import pytest

import npusim

ML = {
    "bf16": ml_dtypes.bfloat16, "f8e4m3fn": ml_dtypes.float8_e4m3fn,
    "f8e4m3": ml_dtypes.float8_e4m3, "f8e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
    "f8e5m2": ml_dtypes.float8_e5m2, "f8e5m2fnuz": ml_dtypes.float8_e5m2fnuz,
    "f8e4m3b11fnuz": ml_dtypes.float8_e4m3b11fnuz, "f8e3m4": ml_dtypes.float8_e3m4,
    "f6e2m3fn": ml_dtypes.float6_e2m3fn, "f6e3m2fn": ml_dtypes.float6_e3m2fn,
    "f4e2m1": ml_dtypes.float4_e2m1fn, "f16": np.float16, "f32": np.float32, "f64": np.float64,
}


def test_the_table_has_every_format_with_its_aliases():
    rows = npusim.formats()
    names = [r["name"] for r in rows]
    assert names[:4] == ["f64", "f32", "f16", "bf16"] and len(names) == 29
    assert {"hif8", "f4e1m2", "f8e8m0", "i4", "u64"} <= set(names)
    e4 = rows[names.index("f8e4m3fn")]
    assert (e4["bits"], e4["bias"], e4["max"], e4["min_normal"]) == (8, 7, 448.0, 2.0**-6)
    assert "float8_e4m3fn" in e4["aliases"] and not e4["has_inf"] and e4["has_nan"]
    i4 = rows[names.index("i4")]
    assert (i4["min"], i4["max"]) == (-8, 7)
    assert rows[names.index("u64")]["max"] == 2**64 - 1


@pytest.mark.parametrize("name", sorted(ML))
def test_finfo_agrees_with_ml_dtypes(name):
    ours, theirs = npusim.finfo(name), ml_dtypes.finfo(ML[name])
    assert ours.bits == theirs.bits
    assert ours.max == float(theirs.max) and ours.min == float(theirs.min)
    assert ours.eps == float(theirs.eps)
    assert ours.smallest_normal == float(theirs.smallest_normal)
    assert ours.smallest_subnormal == float(theirs.smallest_subnormal)
    assert ours.dtype == np.dtype(ML[name])


def test_finfo_of_formats_ml_dtypes_lacks_and_of_aliases():
    h = npusim.finfo("hifloat8_t")
    assert (h.name, h.max, h.smallest_subnormal, h.dtype) == ("hif8", 32768.0, 2.0**-22, None)
    assert npusim.finfo("e8m0").max == 2.0**127
    with pytest.raises(npusim.FormatError, match="i8 is an integer format"):
        npusim.finfo("int8")
    with pytest.raises(ValueError, match="unknown format"):
        npusim.finfo("float7")
