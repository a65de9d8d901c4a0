#!/usr/bin/env cs_python
# Compile: cslc --arch=wse3 layout.csl --fabric-dims=10,3 --fabric-offsets=4,1
#            --params=n:4 -o out --memcpy --channels 1
# Run:     cs_python run.py --name out

import argparse
import json
import numpy as np

from cerebras.sdk.debug.debug_util import debug_util
from cerebras.sdk.runtime.sdkruntimepybind import SdkRuntime, MemcpyDataType, MemcpyOrder

parser = argparse.ArgumentParser()
parser.add_argument("--name", help="the compiled program's directory")
parser.add_argument("--cmaddr", help="IP:port for CS system")
args = parser.parse_args()

with open(f"{args.name}/out.json", encoding="utf-8") as f:
    n = int(json.load(f)["params"]["n"])

runner = SdkRuntime(args.name, cmaddr=args.cmaddr)
buf_id = runner.get_id("buf")
runner.load()
runner.run()

x = np.arange(1, n + 1, dtype=np.float32)
kw = dict(streaming=False, order=MemcpyOrder.ROW_MAJOR,
          data_type=MemcpyDataType.MEMCPY_32BIT, nonblock=False)
runner.memcpy_h2d(buf_id, x, 0, 0, 1, 1, n, **kw)

# a launch with the wrong number of arguments is refused, naming the counts
try:
    runner.launch("start", np.float32(2.0), nonblock=False)
    raise SystemExit("a launch with one argument of two was accepted")
except RuntimeError as e:
    assert "takes 2 arguments, launch() gave 1" in str(e), e

runner.launch("start", np.float32(2.0), np.int16(-1), nonblock=False)
out = np.zeros(3 * n, np.float32)
runner.memcpy_d2h(out, buf_id, 0, 0, 3, 1, n, **kw)
runner.stop()

expected = 2.0 * x - 1.0
np.testing.assert_equal(out, np.concatenate([expected] * 3))

debug = debug_util(args.name, cmaddr=args.cmaddr)
sender_log = debug.read_trace(4, 1, "log")
assert sender_log == ["sender start", -1, "sender done"], sender_log
clock = debug.read_trace(4, 1, "clock")
assert len(clock) == 2 and clock[0] < clock[1], clock
for px in (5, 6):
    log = debug.read_trace(px, 1, "log")
    assert log[0] == "receiver ready", log
    assert log[1:-1:2] == ["got"] * n, log
    assert log[2:-1:2] == list(np.cumsum(expected)), log
    assert log[-1] == n, log
    assert debug.read_trace(px, 1, "clock") == [], px
print("SUCCESS!")
