#!/usr/bin/env python3
"""Make the small example tensors that the README's commands read (examples/ at the repo root).

Run from the repository root:  python3 tools/make_examples.py  (numpy + ml_dtypes 0.6.0, see
tools/requirements.txt). The output is deterministic (fixed seed), so re-running it changes
nothing unless this script changes. Written to examples/ (or --out DIR):

* ``w.npy``: float32 (32, 64) weights, normal with sigma 0.05, and four outliers
  (±600, ±1000) beyond e4m3fn's largest finite value 448, so that saturation shows.
* ``x.npy``: float32 (64,) activations in [-4, 4], the source of the Ascend 950 example.
* ``act_bf16.npy``: bfloat16 (4, 16) activations as ml_dtypes saves them (descr ``'<V2'``).
* ``x.bin``: raw little-endian float16, 2 x 3 x 4 = 24 values (read with
  ``--from f16 --shape 2,3,4``).
* ``model.safetensors``: a checkpoint-like file: an embedding, two transformer layers (attention
  and MLP projections, layer norms), a final norm and an lm_head in float32 (one layer's MLP in
  bfloat16), an int64 ``position_ids`` tensor and ``__metadata__``. Written by hand (the
  format is an 8-byte header length, a JSON header, then the tensor bytes), so the
  ``safetensors`` Python package is not needed.
"""

import argparse
import json
import pathlib
import struct

import ml_dtypes
import numpy as np

SEED = 20261123


def safetensors_bytes(tensors, metadata):
    """The bytes of a .safetensors file holding `tensors` (name -> (dtype name, ndarray))."""
    header = {}
    data = bytearray()
    for name, (dtype, array) in tensors.items():
        raw = np.ascontiguousarray(array).tobytes()
        header[name] = {
            "dtype": dtype,
            "shape": list(array.shape),
            "data_offsets": [len(data), len(data) + len(raw)],
        }
        data += raw
    header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # align the data to 8 bytes, as the Rust writer does
    return struct.pack("<Q", len(text)) + text + bytes(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="examples", help="output directory (default: examples)")
    out = pathlib.Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)

    w = (rng.standard_normal((32, 64)) * 0.05).astype(np.float32)
    w[0, 0], w[1, 1], w[2, 2], w[3, 3] = 600.0, -600.0, 1000.0, -1000.0
    np.save(out / "w.npy", w)

    x = rng.uniform(-4.0, 4.0, 64).astype(np.float32)
    np.save(out / "x.npy", x)

    act = rng.standard_normal((4, 16)).astype(ml_dtypes.bfloat16)
    np.save(out / "act_bf16.npy", act)

    (rng.standard_normal((2, 3, 4)) * 8).astype("<f2").tofile(out / "x.bin")

    hidden, inter, vocab = 32, 64, 48

    def weight(*shape, scale=0.05):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    tensors = {"model.embed_tokens.weight": ("F32", weight(vocab, hidden, scale=1.0))}
    for layer in range(2):
        p = f"model.layers.{layer}"
        for proj in ["q_proj", "k_proj", "v_proj", "o_proj"]:
            tensors[f"{p}.self_attn.{proj}.weight"] = ("F32", weight(hidden, hidden))
        mlp = {
            "gate_proj": weight(inter, hidden),
            "up_proj": weight(inter, hidden),
            "down_proj": weight(hidden, inter),
        }
        for proj, array in mlp.items():
            if layer == 1:
                tensors[f"{p}.mlp.{proj}.weight"] = ("BF16", array.astype(ml_dtypes.bfloat16))
            else:
                tensors[f"{p}.mlp.{proj}.weight"] = ("F32", array)
        for norm in ["input_layernorm", "post_attention_layernorm"]:
            tensors[f"{p}.{norm}.weight"] = ("F32", 1.0 + weight(hidden, scale=0.1))
    tensors["model.norm.weight"] = ("F32", 1.0 + weight(hidden, scale=0.1))
    tensors["lm_head.weight"] = ("F32", weight(vocab, hidden))
    tensors["position_ids"] = ("I64", np.arange(16, dtype="<i8").reshape(1, 16))
    meta = {"format": "pt", "source": "tools/make_examples.py (random weights)"}
    (out / "model.safetensors").write_bytes(safetensors_bytes(tensors, meta))

    for f in sorted(out.iterdir()):
        if f.is_file():
            print(f"{f}: {f.stat().st_size} bytes")


if __name__ == "__main__":
    main()
