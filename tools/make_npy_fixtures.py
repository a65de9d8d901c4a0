#!/usr/bin/env python3
"""Make the .npy fixtures of the npusim CLI tests, and check npusim's .npy output.

The fixtures are written by numpy + ml_dtypes exactly as users' files would be, so the
Rust tests can check without Python that `npusim cast` reads what ml_dtypes writes and
writes what ml_dtypes reads.

Written to crates/cli/tests/fixtures/ (or --out DIR):

* ``f32_values.npy``: a (2, 4) float32 array of test values (``VALUES``).
* ``i8_values.npy``: a (2, 4) int8 array of int4-range values (``INT4_VALUES``).
* ``ml_<type>.npy``: ``np.save`` of the values cast with ``.astype(ml_dtypes.<type>)``:
  float32 values for the float types, int8 values for ``int4``. ml_dtypes 0.6.0 saves
  these with descr ``'<V2'`` (bfloat16), ``'<f1'`` (float8_e5m2; numpy cannot load it back)
  and ``'<V1'`` (every other type; 4-bit types one element per byte, low nibble).
* ``ml_<type>_as_f32.npy`` (``_as_i8`` for int4): that array cast back with ``.astype``,
  the values npusim must produce when it reads ``ml_<type>.npy``.
* ``be_<dtype>_values.npy``: the values saved big-endian (``'>f4'`` for ``VALUES``,
  ``'>i2'`` for ``INT4_VALUES``), which npusim reads by swapping each element; cast to
  float32 / int8 they must equal ``f32_values.npy`` / ``i8_values.npy``.
* ``manifest.json``: versions, the descr of each file, and the values.

Check mode (``--check DIR``) loads the files ``DIR/<npusim format>.npy`` that
``npusim cast f32_values.npy --to <format>`` (or i8_values.npy for i4) wrote, views them as
the ml_dtypes type, and compares with ml_dtypes' own cast:

    for f in bf16 f8e4m3fn f8e5m2 f4e2m1; do
        npusim cast crates/cli/tests/fixtures/f32_values.npy --to $f -o /tmp/chk/$f.npy
    done
    npusim cast crates/cli/tests/fixtures/i8_values.npy --to i4 -o /tmp/chk/i4.npy
    python3 tools/make_npy_fixtures.py --check /tmp/chk

Usage:
    pip install -r tools/requirements.txt
    python3 tools/make_npy_fixtures.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

VALUES = np.array(
    [[1.0, -2.5, 3.14159, 0.1], [-0.0, 448.0, 0.001, 5.75]], dtype=np.float32
)
INT4_VALUES = np.array([[-8, -3, -1, 0], [1, 2, 5, 7]], dtype=np.int8)

# ml_dtypes type -> npusim format name
TYPES = {
    "bfloat16": "bf16",
    "float8_e4m3fn": "f8e4m3fn",
    "float8_e5m2": "f8e5m2",
    "float4_e2m1fn": "f4e2m1",
    "int4": "i4",
}


def descr_of(path: Path) -> str:
    data = path.read_bytes()
    header_len = int.from_bytes(data[8:10], "little")
    header = data[10 : 10 + header_len].decode("latin1")
    start = header.index("'descr': '") + len("'descr': '")
    return header[start : header.index("'", start)]


def make(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    manifest = {
        "numpy": np.__version__,
        "ml_dtypes": ml_dtypes.__version__,
        "values": VALUES.tolist(),
        "int4_values": INT4_VALUES.tolist(),
        "files": {},
    }
    np.save(out / "f32_values.npy", VALUES)
    np.save(out / "i8_values.npy", INT4_VALUES)
    np.save(out / "be_f4_values.npy", VALUES.astype(">f4"))
    np.save(out / "be_i2_values.npy", INT4_VALUES.astype(">i2"))
    for name in (
        "f32_values.npy",
        "i8_values.npy",
        "be_f4_values.npy",
        "be_i2_values.npy",
    ):
        manifest["files"][name] = descr_of(out / name)
    for ml_name, npusim_name in TYPES.items():
        t = getattr(ml_dtypes, ml_name)
        if ml_name == "int4":
            arr = INT4_VALUES.astype(t)
            back = arr.astype(np.int8)
            back_name = f"ml_{ml_name}_as_i8.npy"
        else:
            arr = VALUES.astype(t)
            back = arr.astype(np.float32)
            back_name = f"ml_{ml_name}_as_f32.npy"
        np.save(out / f"ml_{ml_name}.npy", arr)
        np.save(out / back_name, back)
        manifest["files"][f"ml_{ml_name}.npy"] = descr_of(out / f"ml_{ml_name}.npy")
        manifest["files"][back_name] = descr_of(out / back_name)
        manifest.setdefault("npusim_format", {})[ml_name] = npusim_name
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    for name, descr in sorted(manifest["files"].items()):
        print(f"{name:32} {descr}")


def check(directory: Path) -> int:
    failures = 0
    for ml_name, npusim_name in TYPES.items():
        path = directory / f"{npusim_name}.npy"
        if not path.exists():
            print(f"skip {path} (not written)")
            continue
        t = getattr(ml_dtypes, ml_name)
        src = INT4_VALUES if ml_name == "int4" else VALUES
        want = src.astype(t)
        got = np.load(path).view(t)
        same = got.shape == want.shape and np.array_equal(
            got.view(np.uint8), want.view(np.uint8)
        )
        print(
            f"{'ok  ' if same else 'FAIL'} {path.name:14} descr {descr_of(path)!r:7} "
            f"np.load(...).view(ml_dtypes.{ml_name}) = {got.tolist()}"
        )
        failures += not same
    return 1 if failures else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent.parent / "crates/cli/tests/fixtures",
    )
    ap.add_argument("--check", type=Path, help="check npusim-written files in this folder")
    args = ap.parse_args()
    if args.check:
        return check(args.check)
    make(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
