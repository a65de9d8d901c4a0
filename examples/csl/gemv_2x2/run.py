# Host script of gemv_2x2, in the SDK tutorials' style: copies A, x and b to the 2x2 grid,
# launches `gemv`, copies y back and checks it against numpy.
#   npusim cslc --arch=wse3 layout.csl --fabric-dims=9,4 --fabric-offsets=4,1 \
#     --params=M:3,N:4 -o out --memcpy --channels=1
#   npusim cs-python run.py --name out
import argparse
import json
import numpy as np
from cerebras.sdk.runtime.sdkruntimepybind import SdkRuntime, MemcpyDataType, MemcpyOrder

p = argparse.ArgumentParser()
p.add_argument("--name", help="the compiler's output directory")
p.add_argument("--cmaddr", help="IP:port of a CS system (none: the simulator)")
args = p.parse_args()

with open(f"{args.name}/out.json", encoding="utf-8") as f:
    params = json.load(f)["params"]
M, N = int(params["M"]), int(params["N"])
W, H = 2, 2

# small values: every product and sum is exact in f32
A = (np.arange(W * H * M * N) % 7 - 3).astype(np.float32)
x = (np.arange(N) * 0.5 + 1.0).astype(np.float32)
b = np.arange(W * H * M, dtype=np.float32)

r = SdkRuntime(args.name, cmaddr=args.cmaddr)
r.load()
r.run()
kw = dict(streaming=False, order=MemcpyOrder.ROW_MAJOR, data_type=MemcpyDataType.MEMCPY_32BIT, nonblock=False)
r.memcpy_h2d(r.get_id("A"), A, 0, 0, W, H, M * N, **kw)
r.memcpy_h2d(r.get_id("x"), np.tile(x, W * H), 0, 0, W, H, N, **kw)
r.memcpy_h2d(r.get_id("b"), b, 0, 0, W, H, M, **kw)
r.launch("gemv", nonblock=False)
y = np.zeros(W * H * M, dtype=np.float32)
r.memcpy_d2h(y, r.get_id("y"), 0, 0, W, H, M, **kw)
r.stop()

# PE (i, j)'s block is block j * W + i of the host arrays (row-major over the grid)
want = A.reshape(W * H * M, N) @ x + b
np.testing.assert_array_equal(y, want)
print("y =", y)
print("SUCCESS!")
