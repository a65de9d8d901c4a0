"""Host helpers of the SDK for 16-bit copies, as npusim models them."""

import numpy as np

__all__ = ["input_array_to_u32", "memcpy_view"]


def input_array_to_u32(np_arr, sentinel, fast_dim_sz):
    """The array as 32-bit words for memcpy: 32-bit elements as their bits, 16-bit ones
    zero-extended (the upper half, which a 16-bit copy-mode memcpy ignores, stays 0; the
    sentinel and fast_dim_sz matter to streaming mode, which npusim does not model yet)."""
    del sentinel, fast_dim_sz
    a = np.ascontiguousarray(np_arr).reshape(-1)
    if a.dtype.itemsize == 4:
        return a.view(np.uint32).copy()
    if a.dtype.itemsize == 2:
        return a.view(np.uint16).astype(np.uint32)
    raise TypeError(f"expected 16- or 32-bit elements, found {a.dtype}")


def memcpy_view(arr, dtype):
    """A view of a 32-bit host array as `dtype`: for a 16-bit dtype, the low half of each
    word (what a 16-bit memcpy_d2h wrote), otherwise the words themselves."""
    dtype = np.dtype(dtype)
    words = arr.view(np.uint32)
    if dtype.itemsize == 2:
        return words.view(dtype)[..., ::2]
    return words.view(dtype)
