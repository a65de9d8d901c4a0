# Host script of sdk_gemv in the SDK tutorials' style: copies A, x and b to a 2x2 grid,
# launches `compute`, copies y and each PE's coordinates back and checks them.
import argparse
import numpy as np
from cerebras.sdk.runtime.sdkruntimepybind import SdkRuntime, MemcpyDataType, MemcpyOrder
from cerebras.sdk.sdk_utils import memcpy_view, input_array_to_u32

p = argparse.ArgumentParser()
p.add_argument("--name")
p.add_argument("--cmaddr")
args = p.parse_args()
W, H, M, N = 2, 2, 3, 4
A = np.arange(W * H * M * N, dtype=np.float32) * 0.25
x = np.ones(W * H * N, dtype=np.float32)
b = np.full(W * H * M, 2.0, dtype=np.float32)
r = SdkRuntime(args.name, cmaddr=args.cmaddr)
r.load(); r.run()
r.memcpy_h2d(r.get_id("A"), A, 0, 0, W, H, M * N, streaming=False, order=MemcpyOrder.ROW_MAJOR, data_type=MemcpyDataType.MEMCPY_32BIT, nonblock=False)
t = r.memcpy_h2d(r.get_id("x"), x, 0, 0, W, H, N, streaming=False, order=MemcpyOrder.ROW_MAJOR, data_type=MemcpyDataType.MEMCPY_32BIT, nonblock=True)
r.task_wait(t)
r.memcpy_h2d(r.get_id("b"), b, 0, 0, W, H, M, streaming=False, order=MemcpyOrder.ROW_MAJOR, data_type=MemcpyDataType.MEMCPY_32BIT, nonblock=False)
r.launch("compute", nonblock=False)
y = np.zeros(W * H * M, dtype=np.float32)
r.memcpy_d2h(y, r.get_id("y"), 0, 0, W, H, M, streaming=False, order=MemcpyOrder.ROW_MAJOR, data_type=MemcpyDataType.MEMCPY_32BIT, nonblock=False)
wh = np.zeros(W * H * 2, dtype=np.uint32)
r.memcpy_d2h(wh, r.get_id("where"), 0, 0, W, H, 2, streaming=False, order=MemcpyOrder.ROW_MAJOR, data_type=MemcpyDataType.MEMCPY_16BIT, nonblock=False)
r.stop()
want = np.concatenate([A[k*M*N:(k+1)*M*N].reshape(M, N) @ x[k*N:(k+1)*N] + b[k*M:(k+1)*M] for k in range(W * H)])
np.testing.assert_allclose(y, want, atol=0.01, rtol=0)
assert list(memcpy_view(wh, np.dtype(np.uint16))) == [0, 0, 1, 0, 0, 1, 1, 1], wh
print("SUCCESS!")
