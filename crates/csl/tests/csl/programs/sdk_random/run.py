#!/usr/bin/env cs_python
# Compile: cslc --arch=wse3 layout.csl --fabric-dims=9,3 --fabric-offsets=4,1
#            --params=seed:4660 -o out --memcpy --channels 1
# Run:     cs_python run.py --name out
# Checks every draw against the generator the SDK documents for @random16 (an LFSR with
# polynomial x^23 + x^18 + 1, advanced 128 steps after each use, starting at 0xdeadbeef on
# every PE) and npusim's documented mapping of its values to <random>'s results.

import argparse
import json
import math
import numpy as np

from cerebras.sdk.sdk_utils import memcpy_view
from cerebras.sdk.runtime.sdkruntimepybind import SdkRuntime, MemcpyDataType, MemcpyOrder

parser = argparse.ArgumentParser()
parser.add_argument("--name", help="the compiled program's directory")
parser.add_argument("--cmaddr", help="IP:port for CS system")
args = parser.parse_args()

with open(f"{args.name}/out.json", encoding="utf-8") as f:
    seed = int(json.load(f)["params"]["seed"])


class Lfsr:
    def __init__(self, state):
        self.s = state & 0x7FFFFF

    def next16(self):
        v = self.s & 0xFFFF
        for _ in range(128):
            bit = ((self.s >> 22) ^ (self.s >> 17)) & 1
            self.s = ((self.s << 1) | bit) & 0x7FFFFF
        return v

    def next32(self):
        a = self.next16()
        return (a << 16) | self.next16()

    def f32(self, lo, hi):
        u = (self.next32() >> 8) / 2.0**24
        return np.float32(lo + (hi - lo) * u)


def expected(x):
    g = Lfsr(0xDEADBEEF)
    raw = [g.next16(), g.next16()]
    uni = [g.f32(-1.0, 1.0), g.f32(-1.0, 1.0)]
    g = Lfsr(seed + x)
    pow_ = g.next32() >> 22
    half = np.float16(2.0 * ((g.next16() >> 5) / 2.0**11))
    u1 = float(g.f32(0.0, 1.0))
    u2 = float(g.f32(0.0, 1.0))
    gauss = np.float32(math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2))
    return raw, uni, pow_, half, gauss


runner = SdkRuntime(args.name, cmaddr=args.cmaddr)
syms = {n: runner.get_id(n) for n in ["raw", "uni", "pow", "half", "gauss"]}
runner.load()
runner.run()
runner.launch("draw", nonblock=False)


def read(name, n, dtype, bits16):
    out = np.zeros(2 * n, np.uint32)
    runner.memcpy_d2h(out, syms[name], 0, 0, 2, 1, n, streaming=False,
                      order=MemcpyOrder.ROW_MAJOR,
                      data_type=MemcpyDataType.MEMCPY_16BIT if bits16 else MemcpyDataType.MEMCPY_32BIT,
                      nonblock=False)
    if bits16:
        return memcpy_view(out, np.dtype(dtype)).reshape(2, n)
    return out.view(dtype).reshape(2, n)


raw = read("raw", 2, np.uint16, True)
uni = read("uni", 2, np.float32, False)
pow_ = read("pow", 1, np.uint32, False)
half = read("half", 1, np.float16, True)
gauss = read("gauss", 1, np.float32, False)
runner.stop()

for x in range(2):
    e_raw, e_uni, e_pow, e_half, e_gauss = expected(x)
    assert list(raw[x]) == e_raw, (x, raw[x], e_raw)
    assert list(uni[x]) == e_uni, (x, uni[x], e_uni)
    assert all(-1.0 <= v < 1.0 for v in uni[x]), uni[x]
    assert pow_[x][0] == e_pow and pow_[x][0] < 1024, (x, pow_[x], e_pow)
    assert half[x][0] == e_half and 0.0 <= half[x][0] < 2.0, (x, half[x], e_half)
    assert gauss[x][0] == e_gauss, (x, gauss[x], e_gauss)
# every PE starts from the same state; the reseeded PEs differ
assert list(raw[0]) == list(raw[1])
assert pow_[0][0] != pow_[1][0] or gauss[0][0] != gauss[1][0]
print("SUCCESS!")
