#!/usr/bin/env python3
"""Extract the two 512-element result examples of seed 002 (AscendC Cast, Atlas training
series) into plain text files for npusim-examples (the tour and the npusim-ascend tests).

Each output file holds two lines of whitespace-separated numbers: the 512 inputs exactly as
the seed prints them (numpy float16 reprs) and the 512 printed outputs (int32).

Usage: python3 tools/extract_more_samples.py ../shared/seeds/002_*.txt crates/examples/data/ascend
"""
import re
import sys
from pathlib import Path


def numbers_after(lines, start):
    """Numbers of the bracketed list that starts at or after line `start`."""
    text = []
    i = start
    while "[" not in lines[i]:
        i += 1
    while True:
        text.append(lines[i])
        if "]" in lines[i]:
            break
        i += 1
    body = " ".join(text)
    body = body[body.index("[") + 1 : body.index("]")]
    return body.split(), i + 1


def main():
    seed, out = Path(sys.argv[1]), Path(sys.argv[2])
    lines = seed.read_text(encoding="utf-8").splitlines()
    marks = [i for i, l in enumerate(lines) if l.strip() == "Input (srcLocal):"]
    names = ["more_samples_ceil_mask64.txt", "more_samples_ceil_mask32.txt"]
    if len(marks) != 2:
        sys.exit(f"expected 2 result examples, found {len(marks)}")
    for name, mark in zip(names, marks):
        src, nxt = numbers_after(lines, mark)
        dst, _ = numbers_after(lines, nxt)
        if len(src) != 512 or len(dst) != 512:
            sys.exit(f"{name}: {len(src)} inputs, {len(dst)} outputs (expected 512 each)")
        for tok in src + dst:
            if not re.fullmatch(r"-?[0-9.]+(e-?[0-9]+)?", tok):
                sys.exit(f"{name}: unexpected token {tok!r}")
        (out / name).write_text(" ".join(src) + "\n" + " ".join(dst) + "\n")
        print(f"wrote {out / name}")


if __name__ == "__main__":
    main()
