#!/usr/bin/env python3
"""Do the files `npusim quantize` writes load in torchao, the tool their layouts come from?

Writes a small `.safetensors` input (seeded), runs `npusim quantize --scheme mxfp4` and
`--scheme nvfp4` on it and `npusim dequantize` on both outputs, then, with torchao's own
functions (torchao.prototype.mx_formats, CPU):

* MXFP4: the `<name>_blocks` (U8, [rows, n/32, 16]) and `<name>_scales` (U8, [rows, n/32])
  pair is viewed as torchao's packed fp4 data (element 2i in the low nibble, as
  `kernels.unpack_uint4` reads it) and `float8_e8m0fnu` scales and rebuilt with
  `mx_tensor.to_dtype(data, scale, float4_e2m1fn_x2, 32, float32)`; torchao also quantises
  the same input with `mx_tensor.to_mx(x, float4_e2m1fn_x2, 32, ScaleCalculationMode.FLOOR)`.
* NVFP4: the `<name>` (U8 codes), `<name>_scale` (F8_E4M3) and `<name>_scale_2` (F32)
  triple is rebuilt as `NVFP4Tensor(qdata, scale, 16, float32, per_tensor_scale=...)` and
  `.dequantize(float32)`; torchao also quantises the same input with
  `NVFP4Tensor.to_nvfp4(x, 16, per_tensor_scale=per_tensor_amax_to_scale(amax))`.

Each rebuilt tensor is compared bit for bit with `npusim dequantize`'s f32 values, and
torchao's own codes and scales with npusim's. The script prints the comparison and writes
OUT_DIR/input.safetensors and OUT_DIR/torchao.json (torchao's codes, scales and
dequantised f32 bits as hex, per tensor and scheme) for the Rust test
`crates/io/tests/io/quantize_torchao.rs`, which checks `npusim_io::quantize` against them
without torch.

    /work/venv-mx/bin/python tools/check_torchao_loaders.py target/release/npusim \\
        crates/io/tests/vectors/quantize_torchao

torch and torchao from the package index: tools/requirements-mx.txt.
"""

import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torchao
from safetensors.torch import load_file, save_file
from torchao.prototype.mx_formats import mx_tensor
from torchao.prototype.mx_formats.config import ScaleCalculationMode
from torchao.prototype.mx_formats.nvfp4_tensor import NVFP4Tensor, per_tensor_amax_to_scale

FP4 = torch.float4_e2m1fn_x2


def make_input(path):
    """Two weights with Gaussian values, a few large and tiny ones, and a kept norm."""
    rng = np.random.default_rng(2024)
    a = (rng.standard_normal((16, 128)) * 0.05).astype("<f4")
    a[3, 7] = 3.5
    a[5, 40:48] = 0.0
    a[9, 64:96] *= 1e-6
    b = (rng.standard_normal((8, 64)) * 2.0).astype("<f4")
    b[2, 0] = -60.0
    tensors = {
        "a.weight": torch.from_numpy(a),
        "b.weight": torch.from_numpy(b),
        "norm.weight": torch.ones(64, dtype=torch.float32),
    }
    save_file(tensors, str(path))
    return {k: v for k, v in tensors.items() if k != "norm.weight"}


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def hexes(t):
    return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes().hex()


def bits(t):
    return t.to(torch.float32).contiguous().view(torch.int32).numpy().astype(np.uint32)


def compare(what, ours, theirs):
    diff = int((bits(ours) != bits(theirs)).sum())
    print(f"  {what}: {theirs.numel()} values, {diff} differ")
    return diff


def main():
    npusim, out_dir = sys.argv[1], pathlib.Path(sys.argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    record = {
        "torch": torch.__version__,
        "torchao": torchao.__version__,
        "mxfp4": {},
        "nvfp4": {},
    }
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        src = out_dir / "input.safetensors"
        inputs = make_input(src)
        for scheme in ("mxfp4", "nvfp4"):
            q, back = tmp / f"{scheme}.safetensors", tmp / f"{scheme}_back.safetensors"
            run([npusim, "quantize", str(src), "-o", str(q), "--scheme", scheme, "-q"])
            run([npusim, "dequantize", str(q), "-o", str(back)])
            parts, ours_back = load_file(str(q)), load_file(str(back))
            print(f"{scheme}:")
            for name, x in inputs.items():
                rows, n = x.shape
                if scheme == "mxfp4":
                    blocks, scales = parts[f"{name}_blocks"], parts[f"{name}_scales"]
                    data = blocks.reshape(rows, n // 2)
                    scale = scales.view(torch.float8_e8m0fnu)
                    rebuilt = mx_tensor.to_dtype(data, scale, FP4, 32, torch.float32)
                    t_scale, t_data = mx_tensor.to_mx(x, FP4, 32, ScaleCalculationMode.FLOOR)
                    t_back = mx_tensor.to_dtype(t_data, t_scale, FP4, 32, torch.float32)
                    t_codes, t_scales = t_data.view(torch.uint8), t_scale.view(torch.uint8)
                    ours_codes, ours_scales = data, scales
                    extra = {}
                else:
                    codes, scale = parts[name], parts[f"{name}_scale"]
                    p = parts[f"{name}_scale_2"]
                    rebuilt = NVFP4Tensor(
                        codes, scale, 16, torch.float32, per_tensor_scale=p
                    ).dequantize(torch.float32)
                    t_p = per_tensor_amax_to_scale(torch.max(torch.abs(x)))
                    t = NVFP4Tensor.to_nvfp4(x, 16, per_tensor_scale=t_p)
                    t_back = t.dequantize(torch.float32)
                    t_codes, t_scales = t.qdata.view(torch.uint8), t.scale.view(torch.uint8)
                    ours_codes, ours_scales = codes, scale.view(torch.uint8)
                    extra = {"tensor_scale": hexes(t_p.reshape(()).to(torch.float32))}
                    failures += int(hexes(p) != extra["tensor_scale"])
                    print(f"  {name} tensor scale: npusim {p.item()!r}, torchao {t_p.item()!r}")
                failures += compare(f"{name} rebuilt by torchao vs npusim dequantize",
                                    ours_back[name], rebuilt)
                failures += compare(f"{name} torchao's own round trip vs npusim dequantize",
                                    ours_back[name], t_back)
                d_codes = int((ours_codes.reshape(-1) != t_codes.reshape(-1)).sum())
                d_scales = int((ours_scales.reshape(-1) != t_scales.reshape(-1)).sum())
                print(f"  {name} codes: {t_codes.numel()} bytes, {d_codes} differ; "
                      f"scales: {t_scales.numel()}, {d_scales} differ")
                failures += d_codes + d_scales
                record[scheme][name] = {
                    "shape": [rows, n],
                    "codes": hexes(t_codes),
                    "scales": hexes(t_scales),
                    "dequantized_f32": hexes(t_back),
                    **extra,
                }
    (out_dir / "torchao.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print("differences:", failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
