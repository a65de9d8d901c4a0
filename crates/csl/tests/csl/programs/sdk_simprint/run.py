#!/usr/bin/env cs_python
# Compile: cslc --arch=wse3 layout.csl --fabric-dims=9,3 --fabric-offsets=4,1
#            --params=n:3 -o out --memcpy --channels 1
# Run:     cs_python run.py --name out   (the printed lines follow on standard error)

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
words_id = runner.get_id("words")
runner.load()
runner.run()
kw = dict(streaming=False, order=MemcpyOrder.ROW_MAJOR,
          data_type=MemcpyDataType.MEMCPY_32BIT, nonblock=False)
x = np.array([5, 255, 70000][:n], dtype=np.uint32)
runner.memcpy_h2d(words_id, x, 0, 0, 1, 1, n, **kw)
runner.launch("go", nonblock=False)
out = np.zeros(2 * n, np.uint32)
runner.memcpy_d2h(out, words_id, 0, 0, 2, 1, n, **kw)
runner.stop()
np.testing.assert_equal(out, np.concatenate([x, x]))
print("SUCCESS!")
