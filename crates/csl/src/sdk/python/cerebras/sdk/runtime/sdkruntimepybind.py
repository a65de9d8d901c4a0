"""SdkRuntime, MemcpyDataType and MemcpyOrder as npusim models them.

Each call is sent to the `npusim cs-python` process that started this interpreter (a Unix
socket named by NPUSIM_SDK_SOCKET), where the Rust SdkRuntime runs the compiled program on
the simulator. Arrays travel as their raw 32-bit words.
"""

import enum
import os
import socket

import numpy as np

__all__ = ["MemcpyDataType", "MemcpyOrder", "SdkRuntime"]


class MemcpyDataType(enum.Enum):
    """Element size of a copy-mode memcpy on the device."""

    MEMCPY_16BIT = 16
    MEMCPY_32BIT = 32


class MemcpyOrder(enum.Enum):
    """How a host array maps to PEs and elements (C or Fortran order of (h, w, elements))."""

    ROW_MAJOR = 0
    COL_MAJOR = 1


class _Bridge:
    """The connection to the npusim process."""

    _shared = None

    @classmethod
    def get(cls):
        if cls._shared is None:
            cls._shared = cls()
        return cls._shared

    def __init__(self):
        path = os.environ.get("NPUSIM_SDK_SOCKET")
        if not path:
            raise RuntimeError(
                "npusim's cerebras.sdk runs inside `npusim cs-python script.py ...` "
                "(NPUSIM_SDK_SOCKET is not set)"
            )
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.connect(path)
        self._file = self._sock.makefile("rwb")

    def call(self, *words, payload=b""):
        line = " ".join(str(w) for w in words)
        self._file.write(line.encode("utf-8") + b"\n")
        if payload:
            self._file.write(payload)
        self._file.flush()
        reply = self._file.readline().decode("utf-8").rstrip("\n")
        if reply.startswith("err "):
            raise RuntimeError(reply[4:].replace("\\n", "\n").replace("\\\\", "\\"))
        if not reply.startswith("ok"):
            raise RuntimeError("npusim cs-python closed the connection")
        return reply.split(" ")[1:]

    def read(self, n):
        data = self._file.read(n)
        if len(data) != n:
            raise RuntimeError("npusim cs-python closed the connection")
        return data


def _flag(b):
    return 1 if b else 0


def _order(order):
    return "col" if order == MemcpyOrder.COL_MAJOR else "row"


_LAUNCH_KINDS = {
    np.dtype(np.int16): "i16",
    np.dtype(np.uint16): "u16",
    np.dtype(np.int32): "i32",
    np.dtype(np.uint32): "u32",
}


def _launch_arg(a):
    """One argument of launch() as the bridge's `kind:value` word."""
    if isinstance(a, (bool, np.bool_)):
        return f"b:{1 if a else 0}"
    if isinstance(a, np.generic):
        dt = a.dtype
        if dt in _LAUNCH_KINDS:
            return f"{_LAUNCH_KINDS[dt]}:{int(a)}"
        if dt == np.float16:
            return f"f16:{int(np.array(a).view(np.uint16))}"
        if dt == np.float32:
            return f"f32:{int(np.array(a).view(np.uint32))}"
        raise TypeError(f"launch() takes arguments of 16- or 32-bit types or bool, not {dt}")
    if isinstance(a, int):
        return f"i:{a}"
    if isinstance(a, float):
        return f"f:{a!r}"
    raise TypeError(f"launch() takes numbers, not {type(a).__name__}")


def _bits(data_type):
    return 16 if data_type == MemcpyDataType.MEMCPY_16BIT else 32


def _words(array):
    """The host array's elements as little-endian 32-bit words (16-bit ones zero-extended)."""
    a = np.ascontiguousarray(array).reshape(-1)
    if a.dtype.itemsize == 4:
        return a.view(np.uint32).astype("<u4", copy=False)
    if a.dtype.itemsize == 2:
        return a.view(np.uint16).astype("<u4")
    raise TypeError(f"memcpy copies arrays of 16- or 32-bit elements, not {a.dtype}")


class SdkRuntime:
    """Loads and runs a program compiled by `npusim cslc` (its output directory)."""

    def __init__(self, bindir, cmaddr=None, **kwargs):
        del cmaddr, kwargs  # one simulator: no system address
        path = os.fsencode(os.fspath(bindir)).hex()
        self._bridge = _Bridge.get()
        (self._id,) = self._bridge.call("open", path)

    def get_id(self, name):
        """The exported symbol or function `name`."""
        (symbol,) = self._bridge.call("get_id", self._id, name)
        return symbol

    def load(self):
        self._bridge.call("load", self._id)

    def run(self):
        self._bridge.call("run", self._id)

    def stop(self):
        self._bridge.call("stop", self._id)

    def launch(self, name, *args, nonblock=False):
        """Starts exported function `name` with `args` (numpy scalars of its parameters'
        types, or plain Python numbers converted to them)."""
        words = [_launch_arg(a) for a in args]
        self._bridge.call("launch", self._id, name, _flag(nonblock), *words)
        return self._done()

    def _done(self):
        """A handle of a finished command: every command has finished when it returns."""
        self._tasks = getattr(self, "_tasks", 0) + 1
        return self._tasks

    def task_wait(self, task):
        """Waits for a command given with nonblock=True (each has already finished)."""
        del task

    def memcpy_h2d(self, dest, src, px, py, w, h, elem_per_pe, streaming=False,
                   data_type=MemcpyDataType.MEMCPY_32BIT, order=MemcpyOrder.ROW_MAJOR,
                   nonblock=False):
        words = _words(src)
        self._bridge.call(
            "h2d", self._id, dest, px, py, w, h, elem_per_pe, _flag(streaming),
            _order(order), _bits(data_type), _flag(nonblock), words.size,
            payload=words.tobytes(),
        )
        return self._done()

    def memcpy_d2h(self, dest, src, px, py, w, h, elem_per_pe, streaming=False,
                   data_type=MemcpyDataType.MEMCPY_32BIT, order=MemcpyOrder.ROW_MAJOR,
                   nonblock=False):
        if not isinstance(dest, np.ndarray) or not dest.flags.c_contiguous:
            raise TypeError("memcpy_d2h writes into a C-contiguous numpy array")
        (nbytes,) = self._bridge.call(
            "d2h", self._id, src, px, py, w, h, elem_per_pe, _flag(streaming),
            _order(order), _bits(data_type), _flag(nonblock), dest.size,
        )
        words = np.frombuffer(self._bridge.read(int(nbytes)), dtype="<u4")
        flat = dest.reshape(-1)
        if dest.dtype.itemsize == 4:
            flat.view(np.uint32)[: words.size] = words
        elif dest.dtype.itemsize == 2:
            flat.view(np.uint16)[: words.size] = words.astype(np.uint16)
        else:
            raise TypeError(f"memcpy copies into arrays of 16- or 32-bit elements, not {dest.dtype}")
        return self._done()
