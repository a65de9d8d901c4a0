"""debug_util as npusim models it: the `<debug>` entries a program's PEs traced.

`debug_util(dirname).read_trace(x, y, key)` gives, in order, what the `<debug>` instance
imported with `.key = key` traced on the PE at fabric coordinates (x, y) in the last
SdkRuntime of `dirname` this script ran: integers (timestamps as their cycle, bools as
0 or 1), floats, and the strings of `trace_string`.
"""

import os

from cerebras.sdk.runtime.sdkruntimepybind import _Bridge

__all__ = ["debug_util"]


def _unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append("\n" if s[i + 1] == "n" else s[i + 1])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


class debug_util:  # pylint: disable=invalid-name
    """Reads the `<debug>` traces of a program run by this script."""

    def __init__(self, bindir, cmaddr=None, **kwargs):
        del cmaddr, kwargs  # one simulator: no system address
        self._dir = os.fsencode(os.fspath(bindir)).hex()
        self._bridge = _Bridge.get()

    def read_trace(self, x, y, key):
        """The entries of instance `key` on the PE at fabric coordinates (x, y), in order."""
        (nbytes,) = self._bridge.call(
            "read_trace", self._dir, int(x), int(y), key.encode("utf-8").hex()
        )
        text = self._bridge.read(int(nbytes)).decode("utf-8")
        out = []
        for line in text.splitlines():
            kind, _, value = line.partition(" ")
            if kind == "int":
                out.append(int(value))
            elif kind == "float":
                out.append(float(value))
            else:
                out.append(_unescape(value))
        return out
