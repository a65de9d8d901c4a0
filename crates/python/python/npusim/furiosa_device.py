"""The vendor-shaped Furiosa API in Python: ``Device`` with ``main`` and ``sub`` contexts, DM
tensors, and one method per engine stage, so that a kernel reads as the Rust
``npusim_furiosa::device`` chain (and the furiosa-opt book's) does::

    y = dev.main.begin(x.view()).fetch("T", "A % 8").collect("T", "A % 8").vector_init() \\
        .vector_inter_slice_reduce("A / 8, 1 # 4", "T", "AddSat").vector_final() \\
        .cast("i8", "A % 8 # 32").commit_trim("A % 8").commit("T, A % 8", name="y")

Mappings are m-notation strings over the device's axes. Each method appends the stage of the
same name to the device's kernel (the ``[[stage]]`` entries of a kernel file) and checks it
at once through the library's engines (its mappings, its place in the chain, its context's
rules and its engine's rules on the data), so a refused stage raises ``npusim.FuriosaError``
from the call itself, naming the stage ("stage 3 (collect): ..."). A refusal drops the
invocation it belongs to; the device stays usable (begin a new one), and further calls on the
dropped stream raise."""

from __future__ import annotations

import json
from typing import Optional

import numpy as np

from . import _native
from ._arrays import as_array, with_format
from ._dtypes import dtype_for, dtype_of

__all__ = ["Device", "DmTensor", "DmView", "TuContext", "TuStream"]


class Device:
    """A Furiosa RNGD device over the axes ``axes`` (``"R=4, A=512, T=16"``): DM tensors are
    placed with :meth:`place`, kernels run on ``dev.main`` and ``dev.sub``.

    >>> dev = npusim.furiosa.Device("B=4, A=8")
    >>> x = dev.place("x", "i32", "1", "1", "1", "B, A", 0,
    ...               data=np.arange(32, dtype=np.int32).reshape(4, 8) * 37 - 500)
    >>> y = dev.main.begin(x.view()).fetch("B", "A").collect("B", "A") \\
    ...     .cast("i8", "A # 32").commit_trim("A").commit("B, A", name="y", address=128)
    >>> y.read()[0, :3], dev.cycles
    (array([12, 49, 86], dtype=int8), 4)
    """

    def __init__(self, axes: str, fill_undefined: int = 0):
        self.axes = axes
        self.fill_undefined = fill_undefined
        self.main = TuContext(self, "main")
        self.sub = TuContext(self, "sub")
        self._dm = []
        self._stages = []
        self._inputs = {}
        self._result = None
        self._open = False
        self._begun = 0
        self._invocation = 0

    def place(self, name: str, dtype: str, chip: str, cluster: str, slice: str,
              element: str, address: int, logical: Optional[str] = None,
              data=None) -> "DmTensor":
        """``DmTensor::<D, Chip, Cluster, Slice, Element>::from_addr(address)`` named
        ``name``, holding ``data`` (an array of its logical shape) or the ramp 0, 1, 2, ..."""
        spec = {"name": name, "dtype": dtype, "chip": chip, "cluster": cluster,
                "slice": slice, "element": element, "address": address}
        if logical is not None:
            spec["logical"] = logical
        self._dm.append(spec)
        if data is not None:
            self._inputs[name] = np.ascontiguousarray(as_array(data)).reshape(-1)
        self._result = None
        return DmTensor(self, name)

    def kernel(self) -> dict:
        """The kernel so far, as the fields of a kernel file."""
        k = {"axes": self.axes, "dm": list(self._dm), "stage": list(self._stages)}
        if self.fill_undefined:
            k["fill_undefined"] = self.fill_undefined
        return k

    def _run(self):
        if self._result is None:
            given = [(n, dtype_of(a), a.view(np.uint8)) for n, a in self._inputs.items()]
            self._result = _native.furiosa_kernel(json.dumps(self.kernel()), True, given,
                                                  True)
        return self._result

    def _push(self, stage: dict):
        self._stages.append(stage)
        self._result = None

    def _check(self):
        """Runs the kernel so far (it may end inside the open invocation); a refusal drops
        the open invocation and raises."""
        given = [(n, dtype_of(a), a.view(np.uint8)) for n, a in self._inputs.items()]
        try:
            r = _native.furiosa_kernel(json.dumps(self.kernel()), True, given, True)
        except Exception:
            del self._stages[self._begun:]
            self._open = False
            self._result = None
            raise
        if not self._open:
            self._result = r

    def _begin(self, stage: dict) -> "TuStream":
        if self._open:
            raise _native.FuriosaError(
                f"stage {len(self._stages) + 1} ({stage['op']}): the previous invocation "
                "has not ended with a commit or commit_view")
        self._open = True
        self._begun = len(self._stages)
        self._invocation += 1
        self._push(stage)
        self._check()
        return TuStream(self, self._invocation)

    @property
    def cycles(self) -> int:
        """The schedule's makespan (cycles per slice) of every committed invocation."""
        return self._run()["cycles"]

    @property
    def schedule(self) -> str:
        """The schedule as text: per invocation its context, engines and total."""
        return self._run()["schedule"]

    @property
    def trace(self) -> str:
        """The schedule as a Chrome trace (JSON text)."""
        return self._run()["trace"]

    @property
    def stages(self) -> list:
        """A line per stage run (what each produced)."""
        return self._run()["stages"]


class DmTensor:
    """A DM tensor of a device, by name (declared with ``place`` or made by a commit)."""

    def __init__(self, device: Device, name: str):
        self.device = device
        self.name = name

    def view(self) -> "DmView":
        """The read view of the whole tensor."""
        return DmView(self, None)

    def view_mut(self) -> "DmView":
        """The write view of the whole tensor (for ``commit_view``)."""
        return DmView(self, None)

    def read(self) -> np.ndarray:
        """The tensor's logical elements as an array of its logical shape."""
        tensors = self.device._run()["tensors"]
        if self.name not in tensors:
            raise _native.FuriosaError(f"no DM tensor is named `{self.name}`")
        fmt, _order, shape, data = tensors[self.name]
        dt = dtype_for(fmt)
        arr = data.view(dt) if dt is not None else data
        return with_format(arr.reshape(shape), fmt)


class DmView:
    """A view of a DM tensor, whole or a tile."""

    def __init__(self, tensor: DmTensor, tile: Optional[dict]):
        self.tensor = tensor
        self.tile_spec = tile

    def tile(self, index: str, len: int, element: str, start: int) -> "DmView":
        """``view.tile::<Index, LEN, Element2>(start)``."""
        return DmView(self.tensor, {"index": index, "len": len, "element": element,
                                    "start": start})

    def _fields(self) -> dict:
        f = {"tensor": self.tensor.name}
        if self.tile_spec is not None:
            f["tile"] = dict(self.tile_spec)
        return f


class TuContext:
    """A Tensor Unit context of a device (``dev.main`` or ``dev.sub``)."""

    def __init__(self, device: Device, name: str):
        self.device = device
        self.name = name

    def begin(self, view: DmView) -> "TuStream":
        """``ctx.begin(view)``: starts an invocation on this context."""
        return self.device._begin({"op": "begin", "context": self.name, **view._fields()})

    def begin_interleaved(self, axis: str, lhs: DmView, rhs: DmView) -> "TuStream":
        """``ctx.begin_interleaved::<I>(lhs, rhs)``: two whole tensors with identical
        mappings, alternated along the size-2 axis ``axis`` of the fetch's Time."""
        for side, view in (("lhs", lhs), ("rhs", rhs)):
            if view.tile_spec is not None:
                raise _native.FuriosaError(
                    f"begin_interleaved: {side} is a tile; an interleaved fetch reads whole "
                    "tensors")
        return self.device._begin({"op": "begin_interleaved", "context": self.name,
                                   "axis": axis, "lhs": lhs.tensor.name,
                                   "rhs": rhs.tensor.name})


class TuStream:
    """An invocation under way; each method appends its engine stage and returns the stream
    (commits return the written tensor)."""

    def __init__(self, device: Device, invocation: int):
        self.device = device
        self.invocation = invocation

    def _then(self, op: str, ends: bool = False, **fields) -> "TuStream":
        dev = self.device
        if not dev._open or dev._invocation != self.invocation:
            raise _native.FuriosaError(
                f"`{op}` cannot be called on this stream: its invocation has ended (rule: a "
                "commit ends an invocation, a refused stage drops it; begin a new one)")
        dev._push({"op": op, **{k: v for k, v in fields.items() if v is not None}})
        if ends:
            dev._open = False
        dev._check()
        return self

    def fetch(self, time: str, packet: str) -> "TuStream":
        """``.fetch::<OutTime, OutPacket>()``."""
        return self._then("fetch", time=time, packet=packet)

    def fetch_chip_lift(self, chip: str, time: str) -> "TuStream":
        """``.fetch_chip_lift::<OutChip, OutTime>()``."""
        return self._then("fetch_chip_lift", chip=chip, time=time)

    def fetch_cluster_lift(self, cluster: str, time: str) -> "TuStream":
        """``.fetch_cluster_lift::<OutCluster, OutTime>()``."""
        return self._then("fetch_cluster_lift", cluster=cluster, time=time)

    def fetch_slice_lift(self, slice: str, time: str) -> "TuStream":
        """``.fetch_slice_lift::<OutSlice, OutTime>()``: moves axes from Time to Slice, each
        slice reading from its own base (the source replicated over the slices)."""
        return self._then("fetch_slice_lift", slice=slice, time=time)

    def fetch_mask(self) -> "TuStream":
        """``.fetch_mask()``."""
        return self._then("fetch_mask")

    def fetch_table_lookup(self, dtype: str) -> "TuStream":
        """``.fetch_table_lookup::<OutD>()`` (main context only)."""
        return self._then("fetch_table_lookup", dtype=dtype)

    def fetch_cast(self, dtype: str) -> "TuStream":
        """``.fetch_cast::<OutD>()``."""
        return self._then("fetch_cast", dtype=dtype)

    def switch(self, slice: str, time: str, config: str, **sizes: int) -> "TuStream":
        """``.switch::<OutSlice, OutTime>(config)``; ``sizes``: ``slice1``, ``slice0``,
        ``time0`` or ``ring_size`` as the variant takes them."""
        return self._then("switch", slice=slice, time=time, config=config, **sizes)

    def collect(self, time: str, packet: str) -> "TuStream":
        """``.collect::<Time2, Packet2>()``."""
        return self._then("collect", time=time, packet=packet)

    def vector_init(self) -> "TuStream":
        """``.vector_init()``: enters the Vector Engine."""
        return self._then("vector_init")

    def vector_stage(self, op: str, **fields) -> "TuStream":
        """Any Vector Engine stage by its kernel-file name and keys (``"branch"``,
        ``"narrow_trim"``, ``"intra_slice_reduce"``, ...)."""
        return self._then(op, **fields)

    def vector_inter_slice_reduce(self, slice: str, time: str, op: str) -> "TuStream":
        """``.vector_inter_slice_reduce::<OutSlice, OutTime>(op)``."""
        return self._then("inter_slice_reduce", out_slice=slice, out_time=time, name=op)

    def vector_final(self) -> "TuStream":
        """``.vector_final()``: leaves the Vector Engine."""
        return self._then("vector_final")

    def cast(self, dtype: str, out_packet: str) -> "TuStream":
        """``.cast::<OutD, OutPacket>()`` (the Cast Engine)."""
        return self._then("cast", dtype=dtype, out_packet=out_packet)

    def commit_trim(self, packet: str) -> "TuStream":
        """``.commit_trim::<OutPacket>()``."""
        return self._then("commit_trim", packet=packet)

    def commit_cast(self) -> "TuStream":
        """``.commit_cast::<bf16>()`` (main context only)."""
        return self._then("commit_cast")

    def commit_cast_relu(self) -> "TuStream":
        """``.commit_cast_relu::<bf16>()`` (main context only)."""
        return self._then("commit_cast_relu")

    def commit(self, element: str, name: str, address: Optional[int] = None,
               logical: Optional[str] = None) -> DmTensor:
        """``.commit()`` (``address``: 0.3.0's ``commit::<Element>(address)``): a new DM
        tensor named ``name``; ends the invocation."""
        self._then("commit", ends=True, element=element, name=name, address=address,
                   logical=logical)
        return DmTensor(self.device, name)

    def commit_view(self, view: DmView) -> DmTensor:
        """``.commit_view(view_mut)``: writes into an existing tensor or a tile of it; ends
        the invocation."""
        self._then("commit_view", ends=True, **view._fields())
        return view.tensor
