#!/usr/bin/env cs_python
# Compile: cslc --arch=wse3 layout.csl --fabric-dims=9,3 --fabric-offsets=4,1 -o out
#            --memcpy --channels 1
# Run:     cs_python run.py --name out

import argparse
import numpy as np

from cerebras.sdk.runtime.sdkruntimepybind import SdkRuntime, MemcpyDataType, MemcpyOrder

parser = argparse.ArgumentParser()
parser.add_argument("--name", help="the compiled program's directory")
parser.add_argument("--cmaddr", help="IP:port for CS system")
args = parser.parse_args()

runner = SdkRuntime(args.name, cmaddr=args.cmaddr)
hits_id = runner.get_id("hits")
runner.load()
runner.run()
runner.launch("kick", nonblock=False)
hits = np.zeros(2, np.uint32)
runner.memcpy_d2h(hits, hits_id, 0, 0, 2, 1, 1, streaming=False,
                  order=MemcpyOrder.ROW_MAJOR, data_type=MemcpyDataType.MEMCPY_32BIT,
                  nonblock=False)
runner.stop()
# the sender keeps the payload it sent (task 33 in bits 16..21); the receiver ran task 33 once
np.testing.assert_equal(hits, np.array([33 << 16, 1], np.uint32))
print("SUCCESS!")
