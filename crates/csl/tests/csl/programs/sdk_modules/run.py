#!/usr/bin/env cs_python
# Compile: cslc --arch=wse3 layout.csl --fabric-dims=9,3 --fabric-offsets=4,1
#            --params=n:4 -o out --memcpy --channels 1
# Run:     cs_python run.py --name out

import argparse
import json
import numpy as np

from cerebras.sdk.runtime.sdkruntimepybind import SdkRuntime, MemcpyDataType, MemcpyOrder

parser = argparse.ArgumentParser()
parser.add_argument("--name", help="the compiled program's directory")
parser.add_argument("--cmaddr", help="IP:port for CS system")
args = parser.parse_args()

with open(f"{args.name}/out.json", encoding="utf-8") as f:
    n = int(json.load(f)["params"]["n"])

runner = SdkRuntime(args.name, cmaddr=args.cmaddr)
a_id, b_id, result_id = runner.get_id("a"), runner.get_id("b"), runner.get_id("result")
runner.load()
runner.run()

a = np.arange(1, 2 * n + 1, dtype=np.float32)
b = np.arange(10, 10 + 2 * n, dtype=np.float32)
kw = dict(streaming=False, order=MemcpyOrder.ROW_MAJOR,
          data_type=MemcpyDataType.MEMCPY_32BIT, nonblock=False)
runner.memcpy_h2d(a_id, a, 0, 0, 2, 1, n, **kw)
runner.memcpy_h2d(b_id, b, 0, 0, 2, 1, n, **kw)
runner.launch("compute", nonblock=False)

a_out = np.zeros(2 * n, np.float32)
b_out = np.zeros(2 * n, np.float32)
result = np.zeros(6, np.uint32)
runner.memcpy_d2h(a_out, a_id, 0, 0, 2, 1, n, **kw)
runner.memcpy_d2h(b_out, b_id, 0, 0, 2, 1, n, **kw)
runner.memcpy_d2h(result, result_id, 0, 0, 2, 1, 3, **kw)
runner.stop()

np.testing.assert_equal(a_out, 2 * a)
np.testing.assert_equal(b_out, 3 * b)
# tally: 10, +100 by its task at start, +1 twice; one call of each scale instance
np.testing.assert_equal(result, np.array([112, 1, 10 + n] * 2, np.uint32))
print("SUCCESS!")
