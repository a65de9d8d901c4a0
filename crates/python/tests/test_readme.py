"""The README's Python examples (the issue's snippet, with its placeholders filled in) run as
written, from a fresh interpreter, in a scratch directory that sees the repository's
``examples/`` and ``crates/`` (as the README's command-line tour does)."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
README = ROOT / "README.md"


def python_blocks() -> list:
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_the_readme_has_the_issues_snippet():
    (block,) = python_blocks()
    for call in ["npusim.cast(x, \"f8e4m3fn\", round=\"rint\", saturate=True)",
                 "npusim.cast(x, \"f4e2m1\", stats=True)", "npusim.formats()",
                 "npusim.finfo(\"f8e4m3fn\")", "npusim.cast_file(", "npusim.ascend.cast(",
                 "npusim.furiosa.Mapping(\"A / 8, R # 4\", A=64, R=4)", "npusim.furiosa.run(",
                 "npusim.cerebras.access(\"|i|{5} -> A[2 * i + 1]\", A=(10,))",
                 "npusim.cerebras.run(\"gemv-08-routes-3\", arch=\"wse3\")", "npusim.mx.quantize("]:
        assert call in block, call


def test_the_readme_examples_run_from_a_fresh_import(tmp_path):
    if not (ROOT / "examples" / "model.safetensors").exists():
        pytest.skip("the repository's examples/ are not next to the tests")
    for name in ("examples", "crates"):
        os.symlink(ROOT / name, tmp_path / name)
    for block in python_blocks():
        run = subprocess.run([sys.executable, "-I", "-c", block], cwd=tmp_path,
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        assert "hif8 hif8" in run.stdout
    assert (tmp_path / "model_e4m3.safetensors").exists()
