"""npusim.mx: OCP MX and NVFP4 quantisation (issue 24's Python line): shapes, dtypes, the
worked example of the numerics crate, round trips, errors, and torchao when installed."""

import ml_dtypes
import numpy as np
import pytest

import npusim


def test_the_worked_example_of_the_block_module():
    # amax 3.875 and 7.875: floor(log2) is 1 and 2, e4m3's top binade is 8: X = 2^-7, 2^-6;
    # FLOOR saturates 7.875 / 2^-6 = 504 to 448, which comes back as 7.0
    x = np.arange(64, dtype=np.float32).reshape(2, 32) / 8
    codes, scales = npusim.mx.quantize(x, "mxfp8-e4m3", axis=-1, scale_rule="floor")
    assert codes.dtype == ml_dtypes.float8_e4m3fn and codes.shape == (2, 32)
    assert scales.dtype == ml_dtypes.float8_e8m0fnu and scales.view(np.uint8).tolist() == [[120], [121]]
    y = npusim.mx.dequantize(codes, scales, "mxfp8-e4m3")
    assert y.dtype == np.float32 and y[1, 31] == 7.0


@pytest.mark.parametrize("scheme,element", [
    ("mxfp4", ml_dtypes.float4_e2m1fn), ("mxfp6-e2m3", ml_dtypes.float6_e2m3fn),
    ("mxfp6-e3m2", ml_dtypes.float6_e3m2fn), ("mxfp8-e5m2", ml_dtypes.float8_e5m2),
    ("mxint8", np.int8),
])
def test_every_mx_scheme_along_any_axis(rng, scheme, element):
    x = rng.standard_normal((64, 3, 40)).astype(np.float32)
    codes, scales = npusim.mx.quantize(x, scheme, axis=0)
    assert codes.dtype == element and codes.shape == x.shape and scales.shape == (2, 3, 40)
    y = npusim.mx.dequantize(codes, scales, scheme, axis=0)
    assert y.shape == x.shape and np.max(np.abs(y - x)) <= 0.25 * np.max(np.abs(x))
    # a short last block (40 is not a multiple of 32) along the last axis
    codes, scales = npusim.mx.quantize(x, scheme, axis=-1)
    assert scales.shape == (64, 3, 2)
    z = npusim.mx.dequantize(codes, scales, scheme, axis=-1, to="bf16")
    assert z.dtype == ml_dtypes.bfloat16


def test_nvfp4_returns_the_tensor_scale(rng):
    x = rng.standard_normal((4, 32)).astype(np.float32)
    codes, scales, ts = npusim.mx.quantize(x, "nvfp4")
    assert scales.dtype == ml_dtypes.float8_e4m3fn and scales.shape == (4, 2)
    assert ts == pytest.approx(np.float32(np.abs(x).max()) / (448 * 6), rel=1e-6)
    y = npusim.mx.dequantize(codes, scales, "nvfp4", tensor_scale=ts)
    assert np.max(np.abs(y - x)) < 0.6
    _, _, off = npusim.mx.quantize(x, "nvfp4", tensor_scale="off")
    assert off is None


def test_stochastic_rounding_of_the_elements_is_seeded(rng):
    x = rng.standard_normal((8, 64)).astype(np.float32)
    a = npusim.mx.quantize(x, "mxfp4", round="hybrid", seed=1)[0]
    b = npusim.mx.quantize(x, "mxfp4", round="hybrid", seed=1)[0]
    c = npusim.mx.quantize(x, "mxfp4", round="hybrid", seed=2)[0]
    assert a.view(np.uint8).tolist() == b.view(np.uint8).tolist() != c.view(np.uint8).tolist()


def test_errors_name_the_problem():
    x = np.ones((2, 32), np.float32)
    with pytest.raises(npusim.BlockError, match="unknown|scheme"):
        npusim.mx.quantize(x, "mxfp5")
    with pytest.raises(npusim.BlockError):
        npusim.mx.quantize(x, "nvfp4", scale_rule="ceil")
    with pytest.raises(npusim.BlockError, match="axis"):
        npusim.mx.quantize(x, "mxfp4", axis=5)
    with pytest.raises(npusim.BlockError, match="f32, f64, f16 or bf16"):
        npusim.mx.quantize(x.astype(np.int32), "mxfp4")
    codes, scales = npusim.mx.quantize(x, "mxfp4")
    with pytest.raises(npusim.BlockError):
        npusim.mx.dequantize(codes, scales[:1], "mxfp4")


RULES = ["floor", "ceil", "even", "rceil"]


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("elem", ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn_x2"])
def test_bit_exact_with_torchao(rng, rule, elem):
    torch = pytest.importorskip("torch", reason="torch is not installed: torchao comparison skipped")
    mx = pytest.importorskip("torchao.prototype.mx_formats.mx_tensor",
                             reason="torchao is not installed: comparison skipped")
    from torchao.prototype.mx_formats.config import ScaleCalculationMode
    from comparison import TALLY

    x = (rng.standard_normal((256, 32)) * rng.choice([1e-3, 1, 1e3], (256, 1))).astype(np.float32)
    scale, data = mx.to_mx(torch.from_numpy(x), getattr(torch, elem), 32,
                           getattr(ScaleCalculationMode, rule.upper()))
    scheme = {"float8_e4m3fn": "mxfp8-e4m3", "float8_e5m2": "mxfp8-e5m2",
              "float4_e2m1fn_x2": "mxfp4"}[elem]
    codes, scales = npusim.mx.quantize(x, scheme, scale_rule=rule)
    theirs_scale = scale.view(torch.uint8).numpy().reshape(-1)
    theirs = data.view(torch.uint8).numpy().reshape(-1)
    if elem == "float4_e2m1fn_x2":
        theirs = np.stack([theirs & 0xF, theirs >> 4], axis=-1).reshape(-1)
    assert scales.view(np.uint8).reshape(-1).tolist() == theirs_scale.tolist()
    assert codes.view(np.uint8).reshape(-1).tolist() == theirs.tolist()
    TALLY[("torchao", f"mx {scheme} {rule}")].update(compared=x.size, equal=x.size)
