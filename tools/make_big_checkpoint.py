#!/usr/bin/env python3
"""Write a sharded checkpoint of about SIZE GiB of f32 weights (default 2) for timing
`npusim quantize` on a directory against `cat` of the same files (docs/quantize.md).

    python3 tools/make_big_checkpoint.py OUT_DIR [SIZE_GIB]

numpy only. Four shards; each holds 2-d f32 weights of 4096 x 4096 (64 MiB) with Gaussian
values, and a 1-d norm. The data is not committed: it is made where the timing runs.
"""

import json
import pathlib
import struct
import sys

import numpy as np


def main():
    out = pathlib.Path(sys.argv[1])
    gib = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    out.mkdir(parents=True, exist_ok=True)
    rows, cols = 4096, 4096
    per_weight = rows * cols * 4
    weights = int(gib * (1 << 30)) // per_weight
    shards = 4
    rng = np.random.default_rng(24)
    block = (rng.standard_normal((rows, cols)) * 0.02).astype("<f4")
    weight_map, total = {}, 0
    for s in range(shards):
        name = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        mine = [i for i in range(weights) if i % shards == s]
        header, at = {"__metadata__": {"format": "pt"}}, 0
        for i in mine:
            header[f"model.layers.{i}.mlp.weight"] = {
                "dtype": "F32", "shape": [rows, cols], "data_offsets": [at, at + per_weight]}
            at += per_weight
        header[f"model.norm{s}.weight"] = {"dtype": "F32", "shape": [cols], "data_offsets": [at, at + 4 * cols]}
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * (-len(text) % 8)
        with open(out / name, "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text)
            for k, i in enumerate(mine):
                # a different tensor each time: roll the rows
                f.write(np.roll(block, k + 7 * s, axis=0).tobytes())
            f.write(np.ones(cols, dtype="<f4").tobytes())
        for key in header:
            if key != "__metadata__":
                weight_map[key] = name
        total += at + 4 * cols
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    (out / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")


if __name__ == "__main__":
    main()
