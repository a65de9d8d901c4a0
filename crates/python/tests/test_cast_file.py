"""npusim.cast_file: whole .safetensors files through npusim-io, with globs, reports and the
atomic writer (an error leaves no output)."""

import os

import ml_dtypes
import numpy as np
import pytest

import npusim
import safetensors_file


@pytest.fixture
def model(tmp_path, rng):
    path = tmp_path / "model.safetensors"
    tensors = {
        "layers.0.mlp.up": rng.standard_normal((8, 16)).astype(np.float32),
        "layers.0.attn.q": rng.standard_normal((4, 4)).astype(np.float32),
        "step": np.int32([7]),
    }
    safetensors_file.write(path, tensors)
    return path, tensors


def test_the_snippets_cast_of_the_mlp_tensors(model, tmp_path):
    src, tensors = model
    dst = tmp_path / "model_e4m3.safetensors"
    reports = npusim.cast_file(src, dst, to="f8e4m3fn", tensors=["*.mlp.*"])
    by_name = {r["name"]: r for r in reports}
    assert by_name["layers.0.mlp.up"]["action"] == "cast"
    assert by_name["layers.0.mlp.up"]["to"] == "f8e4m3fn"
    assert by_name["layers.0.attn.q"]["action"] == "kept"
    header, data = safetensors_file.read(dst)
    assert header["layers.0.mlp.up"]["dtype"] == "F8_E4M3"
    got = np.frombuffer(data["layers.0.mlp.up"], ml_dtypes.float8_e4m3fn).reshape(8, 16)
    want = npusim.cast(tensors["layers.0.mlp.up"], "f8e4m3fn")
    assert got.view(np.uint8).tolist() == want.view(np.uint8).tolist()
    assert data["layers.0.attn.q"] == tensors["layers.0.attn.q"].tobytes()


def test_exclude_wins_and_stats_are_the_arrays(model, tmp_path):
    src, tensors = model
    dst = tmp_path / "out.safetensors"
    reports = npusim.cast_file(src, dst, to="bf16", exclude=["*.attn.*"], stats=True)
    r = {r["name"]: r for r in reports}
    assert r["layers.0.attn.q"]["action"] == "kept"
    st = r["layers.0.mlp.up"]["stats"]
    _, ours = npusim.cast(tensors["layers.0.mlp.up"], "bf16", stats=True)
    assert (st.total, st.exact, st.flushed, st.saturated, st.nan, st.inf) == (
        ours.total, ours.exact, ours.flushed, ours.saturated, ours.nan, ours.inf)
    assert st.max_abs == ours.max_abs and st.max_rel == ours.max_rel


def test_a_failed_cast_writes_nothing_and_keeps_an_existing_output(model, tmp_path):
    src, _ = model
    dst = tmp_path / "out.safetensors"
    dst.write_bytes(b"old contents")
    with pytest.raises(npusim.FileError, match="no tensor"):
        npusim.cast_file(src, dst, to="bf16", tensors=["nothing.*"], fail_on_empty=True)
    assert dst.read_bytes() == b"old contents"
    big = tmp_path / "big.safetensors"
    safetensors_file.write(big, {"w": np.float32([1.0, 1e6])})
    with pytest.raises(npusim.FileError):
        npusim.cast_file(big, tmp_path / "nan.safetensors", to="f8e4m3fn", fail_on_nan=True)
    assert not (tmp_path / "nan.safetensors").exists()
    assert [p for p in os.listdir(tmp_path) if p.startswith(".")] == []
    with pytest.raises(npusim.FileError):
        npusim.cast_file(tmp_path / "missing.safetensors", tmp_path / "x.safetensors", to="f16")
    with pytest.raises(ValueError, match="unknown format"):
        npusim.cast_file(src, dst, to="f9")
