#!/usr/bin/env python3
"""Make crates/io/tests/vectors/quantize_dir/: a small sharded checkpoint (three shards, mixed
dtypes, tensors that must be left alone) and what `npusim quantize --scheme mxfp4 --exclude
'lm_head*'` then `npusim dequantize --to f32` must give, computed here independently with
numpy: the dequantized values of every quantized tensor and the error statistics of
`--stats` (per tensor and in total).

Run from the repository root:  python3 tools/make_quantize_dir_vectors.py  (numpy 2.4.6 and
safetensors from PyPI, see tools/requirements-quantize.txt; Python 3.11.7).

MXFP4 here is OCP MX v1.0 with its FLOOR scale rule along the last axis: per block of 32
(the last one shorter), e = floor(log2(amax)) - 2 clamped to [-127, 127] (an all-zero block
gets -127), each element x / 2^e rounded to the e2m1 grid {0, 0.5, 1, 1.5, 2, 3, 4, 6} to
nearest, ties to the even code, magnitudes beyond 6 clamped to 6 (saturated); the value read
back is that grid value times 2^e. The statistics are those of
crates/io/src/cast/error_stats.rs (see tools/make_error_stats_vectors.py), with `saturated`
the elements whose scaled magnitude exceeded 6.
"""

import json
import pathlib
import struct

import numpy as np
import safetensors.numpy

OUT = pathlib.Path("crates/io/tests/vectors/quantize_dir")
INDEX = "model.safetensors.index.json"
SHARDS = [f"model-0000{i}-of-00003.safetensors" for i in (1, 2, 3)]


def bf16_bits(x32):
    """float32 values rounded to bfloat16 (nearest, ties to even), as uint16 bits."""
    b = x32.astype(np.float32).view(np.uint32).astype(np.uint64)
    b = b + 0x7FFF + ((b >> 16) & 1)
    return (b >> 16).astype(np.uint16)


def from_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def weights(rng, shape, scale):
    """Gaussian weights with an all-zero row, a few tiny values (flushed) and one large."""
    x = rng.standard_normal(shape).astype(np.float64) * scale
    flat = x.reshape(-1)
    flat[:32] = 0.0  # one all-zero block
    flat[40:44] = scale * 1e-3  # far below their block's amax: flushed to zero
    flat[50] = scale * 9.0  # an outlier that sets its block's scale
    return x


# name -> (shard, dtype, values as float64 exactly representable in the dtype)
def tensors():
    rng = np.random.default_rng(20261127)
    t = {}
    t["model.embed_tokens.weight"] = (0, "F32", weights(rng, (16, 64), 0.02).astype(np.float32))
    t["model.norm.weight"] = (0, "F32", np.linspace(0.5, 1.5, 64).astype(np.float32))
    q = from_bf16(bf16_bits(weights(rng, (8, 96), 0.05)))
    t["model.layers.0.self_attn.q_proj.weight"] = (1, "BF16", q)
    t["model.layers.0.self_attn.k_proj.weight"] = (1, "F16", weights(rng, (4, 40), 0.1).astype(np.float16))
    t["model.layers.0.mlp.gate_proj.weight"] = (1, "F32", weights(rng, (32, 32), 1.5).astype(np.float32))
    t["model.layers.0.input_layernorm.weight"] = (1, "BF16", from_bf16(bf16_bits(np.ones(32))))
    t["lm_head.weight"] = (2, "F32", weights(rng, (8, 64), 0.02).astype(np.float32))
    t["model.position_ids"] = (2, "I64", np.arange(10, dtype=np.int64))
    t["model.layers.1.mlp.up_proj.weight"] = (2, "F32", weights(rng, (2, 3, 32), 3.0).astype(np.float32))
    return t


def raw(dtype, v):
    if dtype == "BF16":
        return bf16_bits(v.astype(np.float32)).astype("<u2").tobytes()
    return v.astype({"F32": "<f4", "F16": "<f2", "I64": "<i8"}[dtype]).tobytes()


def write_shard(path, items, metadata):
    """A .safetensors file (data laid out widest dtype first, then by name, as npusim does)."""
    rank = {"I64": 0, "F64": 1, "F32": 2, "BF16": 3, "F16": 4}
    order = sorted(items, key=lambda kv: (rank[kv[1][0]], kv[0]))
    header, data, at = {"__metadata__": metadata}, b"", 0
    for name, (dtype, v) in order:
        b = raw(dtype, v)
        header[name] = {"dtype": dtype, "shape": list(v.shape), "data_offsets": [at, at + len(b)]}
        data += b
        at += len(b)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)


E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def e2m1_rne(a):
    """|scaled| values rounded to the e2m1 grid, ties to the even code, clamped to 6."""
    q = np.where(a < 2.0, 0.5 * np.rint(a / 0.5), np.where(a < 4.0, np.rint(a), 2.0 * np.rint(a / 2.0)))
    return np.minimum(q, 6.0), a > 6.0


def mxfp4(x):
    """Dequantized values and saturation flags of x (float64, blocks along the last axis)."""
    n = x.shape[-1]
    rows = x.reshape(-1, n)
    y = np.empty_like(rows)
    sat = np.zeros(rows.shape, dtype=bool)
    for r in range(rows.shape[0]):
        for b0 in range(0, n, 32):
            blk = rows[r, b0:b0 + 32]
            amax = np.max(np.abs(blk))
            e = -127 if amax == 0 else int(np.floor(np.log2(amax))) - 2
            e = max(-127, min(127, e))
            if amax != 0:
                # floor(log2) exactly: fix the float rounding of log2 at binade edges
                while 2.0 ** (e + 2) > amax:
                    e -= 1
                while 2.0 ** (e + 3) <= amax:
                    e += 1
            q, s = e2m1_rne(np.abs(blk) / 2.0 ** e)
            y[r, b0:b0 + 32] = np.copysign(q * 2.0 ** e, blk)
            sat[r, b0:b0 + 32] = s
    return y.reshape(x.shape), sat.reshape(x.shape)


def with_bits(d):
    """Each float figure also as its IEEE binary64 bits (JSON readers may round decimals)."""
    out = dict(d)
    for k, v in d.items():
        if isinstance(v, float):
            out[k + "_bits"] = int(np.float64(v).view(np.uint64))
    return out


def stats(x, y, sat):
    err = np.abs(y - x).reshape(-1)
    xm = x.reshape(-1)
    nz = xm != 0
    sse = float(np.sum(err * err))
    ssx = float(np.sum(xm * xm))
    return with_bits({
        "total": int(x.size),
        "exact": int(np.sum(x == y)),
        "flushed_to_zero": int(np.sum((x != 0) & (y == 0))),
        "saturated": int(np.sum(sat)),
        "measured": int(x.size),
        "max_abs_error": float(err.max()),
        "max_rel_error": float((err[nz] / np.abs(xm[nz])).max()),
        "sum_sq_error": sse,
        "sum_sq_signal": ssx,
        "rmse": float(np.sqrt(sse / x.size)),
        "sqnr_db": float(10 * np.log10(ssx / sse)),
    })


def main():
    (OUT / "input").mkdir(parents=True, exist_ok=True)
    t = tensors()
    weight_map, total_size = {}, 0
    for i, shard in enumerate(SHARDS):
        items = [(n, (d, v)) for n, (s, d, v) in t.items() if s == i]
        write_shard(OUT / "input" / shard, items, {"format": "pt"})
        for n, (d, v) in items:
            weight_map[n] = shard
            total_size += len(raw(d, v))
    index = {"metadata": {"total_size": total_size}, "weight_map": dict(sorted(weight_map.items()))}
    (OUT / "input" / INDEX).write_text(json.dumps(index, indent=2) + "\n")
    (OUT / "input" / "config.json").write_text('{"model_type": "llama"}\n')
    # the files load with the safetensors package (bf16 has no numpy dtype: checked as bits)
    for shard in SHARDS:
        with safetensors.safe_open(OUT / "input" / shard, framework="numpy") as f:
            for n in f.keys():
                if t[n][1] != "BF16":
                    assert np.array_equal(f.get_tensor(n), t[n][2].astype(f.get_tensor(n).dtype))
    expected = {"scheme": "mxfp4", "exclude": "lm_head*", "kept": [], "quantized": []}
    xs, ys, sats = [], [], []
    for n, (s, d, v) in sorted(t.items()):
        if d == "I64" or v.ndim < 2 or n.startswith("lm_head"):
            expected["kept"].append(n)
            continue
        x = np.asarray(v, dtype=np.float64)
        y, sat = mxfp4(x)
        xs.append(x.reshape(-1))
        ys.append(y.reshape(-1))
        sats.append(sat.reshape(-1))
        expected["quantized"].append({
            "name": n,
            "shard": SHARDS[s],
            "dtype": d,
            "shape": list(v.shape),
            "f32_bits": [int(b) for b in y.astype(np.float32).reshape(-1).view(np.uint32)],
            "stats": stats(x, y, sat),
        })
    expected["total"] = stats(np.concatenate(xs), np.concatenate(ys), np.concatenate(sats))
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
