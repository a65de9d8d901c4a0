"""npusim.furiosa.Device: the vendor-shaped chain in Python (docs/furiosa-engines.md §11.1).
Expected values are the document's hand derivations: K6 (y[t, a] = wrap_i8(4a + 4000t - 600),
19 cycles), K4 with tiles and commit_view (y equals x; 2048 cycles on main, 4096 with the
second segment on sub, M1), and the sub context's refusals."""

import doctest
import json

import numpy as np
import pytest

import npusim
import npusim.furiosa_device


def test_docstring_examples():
    r = doctest.testmod(npusim.furiosa_device, extraglobs={"np": np, "npusim": npusim},
                        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert r.failed == 0 and r.attempted > 0


def k6_input():
    r, t, a = np.meshgrid(np.arange(4), np.arange(16), np.arange(512), indexing="ij")
    return (a + 1000 * t - 100 * r).astype(np.int32)


def test_k6_as_a_chain():
    dev = npusim.furiosa.Device("R=4, A=512, T=16")
    x = dev.place("x", "i32", "1", "1 # 2", "A / 8, R", "T, A % 8", 0, logical="R, T, A",
                  data=k6_input())
    y = (dev.main.begin(x.view())
         .fetch("T", "A % 8")
         .collect("T", "A % 8")
         .vector_init()
         .vector_inter_slice_reduce("A / 8, 1 # 4", "T", "AddSat")
         .vector_final()
         .cast("i8", "A % 8 # 32")
         .commit_trim("A % 8")
         .commit("T, A % 8", name="y", address=512, logical="T, A"))
    out = y.read()
    t, a = np.meshgrid(np.arange(16), np.arange(512), indexing="ij")
    np.testing.assert_array_equal(out, (4 * a + 4000 * t - 600).astype(np.int64).astype(np.int8))
    assert dev.cycles == 19
    events = [e for e in json.loads(dev.trace)["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in events] == ["fetch", "collect", "vector", "cast", "commit"]


def k4(second):
    dev = npusim.furiosa.Device("A=2048, B=32")
    data = (np.arange(65536) * 7 + np.arange(65536) // 251) % 256
    x = dev.place("x", "i8", "1", "1", "1", "A, B", 0,
                  data=data.astype(np.uint8).view(np.int8).reshape(2048, 32))
    y = dev.place("y", "i8", "1", "1", "1", "A, B", 262144)
    for k, ctx in [(0, dev.main), (1, second(dev))]:
        src = x.view().tile("A", 1024, "A = 1024 # 2048, B", 1024 * k)
        dst = y.view_mut().tile("A", 1024, "A = 1024 # 2048, B", 1024 * k)
        (ctx.begin(src).fetch("A = 1024", "B").collect("A = 1024", "B").commit_trim("B")
         .commit_view(dst))
    return dev, x, y


def test_k4_tiles_and_commit_view():
    dev, x, y = k4(lambda d: d.main)
    np.testing.assert_array_equal(y.read(), x.read())
    assert dev.cycles == 2048


def test_m1_second_segment_on_sub():
    dev, x, y = k4(lambda d: d.sub)
    np.testing.assert_array_equal(y.read(), x.read())
    assert dev.cycles == 4096


def test_refusals_name_the_stage_and_leave_the_device_usable():
    dev = npusim.furiosa.Device("A=3, B=5, C=2")
    x = dev.place("x", "f8e4m3", "1", "1", "1", "A, B, C", 0)
    s = dev.sub.begin(x.view()).fetch("A, B", "C # 8")
    # The context rule is checked when the stage is called, not at the commit (F12).
    with pytest.raises(npusim.FuriosaError,
                       match=r"stage 3 \(fetch_table_lookup\): fetch_table_lookup runs in the "
                             r"main context only"):
        s.fetch_table_lookup("bf16")
    # The refused invocation is dropped: its stream is dead, the kernel holds no stage.
    with pytest.raises(npusim.FuriosaError, match="its invocation has ended"):
        s.collect("A, B", "C # 32")
    assert dev.kernel()["stage"] == []
    # The same copy on main runs (15 packets, 15 cycles).
    y = (dev.main.begin(x.view()).fetch("A, B", "C # 8").collect("A, B", "C # 32")
         .commit_trim("C # 8").commit("A, B, C # 8", name="y", address=64))
    assert y.read().shape == (3, 5, 2)
    assert dev.cycles == 15
    dev.main.begin(x.view())
    with pytest.raises(npusim.FuriosaError, match=r"stage 7 \(begin\): .*not ended"):
        dev.main.begin(x.view())


def f8_device():
    dev = npusim.furiosa.Device("A=3, B=5, C=2")
    x = dev.place("x", "f8e4m3", "1", "1", "1", "A, B, C", 0)
    return dev, x


def test_each_stage_is_checked_when_called():
    dev, x = f8_device()
    # A mapping over an undeclared axis: refused at the fetch call.
    with pytest.raises(npusim.FuriosaError, match=r"stage 2 \(fetch\) time: "):
        dev.main.begin(x.view()).fetch("A, Z", "C # 8")
    # The order of stages: a BeginTensor goes on with fetch.
    with pytest.raises(npusim.FuriosaError,
                       match=r"^stage 2 \(collect\): a BeginTensor goes on with fetch$"):
        dev.main.begin(x.view()).collect("A, B", "C # 8")
    # The 8-byte packet rule (F8): Packet = C is 2 bytes, refused at the collect call.
    s = dev.main.begin(x.view()).fetch("A, B", "C")
    with pytest.raises(npusim.FuriosaError, match=r"stage 3 \(collect\): .*2 bytes"):
        s.collect("A, B", "C # 32")
    # A commit's tensor name is checked at the commit: a begin on an unknown tensor.
    with pytest.raises(npusim.FuriosaError, match=r"no DM tensor is named `w`"):
        dev.main.begin(npusim.furiosa.DmTensor(dev, "w").view())
    # commit_cast on sub: the context rule, at the call.
    s = dev.sub.begin(x.view()).fetch("A, B", "C # 8").collect("A, B", "C # 32") \
        .commit_trim("C # 8")
    with pytest.raises(npusim.FuriosaError, match=r"stage 5 \(commit_cast\): .*main context"):
        s.commit_cast()
    # After every refusal the device is as before: no stage, and a good chain runs.
    assert dev.kernel()["stage"] == []
    y = (dev.main.begin(x.view()).fetch("A, B", "C # 8").collect("A, B", "C # 32")
         .commit_trim("C # 8").commit("A, B, C # 8", name="y", address=64))
    assert y.read().shape == (3, 5, 2) and dev.cycles == 15
    # A committed stream is ended: a further stage raises.
    s = dev.main.begin(y.view()).fetch("A, B", "C # 8")
    s.collect("A, B", "C # 32").commit_trim("C # 8").commit("A, B, C # 8", name="z",
                                                           address=128)
    with pytest.raises(npusim.FuriosaError, match="its invocation has ended"):
        s.commit_trim("C # 8")


def test_slice_lift_as_a_chain():
    # L1 (docs/furiosa-engines.md §4.4): slice 2a + h reads rows 2h, 2h + 1 from base 32h
    # elements, 2 time steps instead of 4; y placed with Q / 2 in the slice holds x.
    dev = npusim.furiosa.Device("A=128, Q=4, V=16")
    x = dev.place("x", "bf16", "1", "1 # 2", "A, 2", "Q, V", 0, logical="A, Q, V")
    y = (dev.main.begin(x.view()).fetch("Q", "V").fetch_slice_lift("A, Q / 2", "Q % 2")
         .collect("Q % 2", "V").commit_trim("V")
         .commit("Q % 2, V", name="y", logical="A, Q, V"))
    np.testing.assert_array_equal(y.read().view(np.uint16), x.read().view(np.uint16))
    assert dev.cycles == 2
    s = dev.main.begin(x.view()).fetch("Q", "V")
    with pytest.raises(npusim.FuriosaError,
                       match=r"stage 9 \(fetch_slice_lift\): .*m!\[A\] \(128 positions\) "
                             r"from m!\[A, 2\] \(256\)"):
        s.fetch_slice_lift("A", "Q % 2")


def test_interleaved_fetch_as_a_chain():
    # I1: time 2a + i holds row a of lhs (i = 0) or rhs (i = 1); 32 steps of one read.
    dev = npusim.furiosa.Device("A=16, B=32, I=2")
    a, b = np.meshgrid(np.arange(16), np.arange(32), indexing="ij")
    lhs = dev.place("lhs", "i8", "1", "1", "1", "A, B", 0, data=(a + b).astype(np.int8))
    rhs = dev.place("rhs", "i8", "1", "1", "1", "A, B", 512,
                    data=(100 + a + b).astype(np.int8))
    y = (dev.main.begin_interleaved("I", lhs.view(), rhs.view()).fetch("A, I", "B")
         .collect("A, I", "B").commit_trim("B")
         .commit("A, I, B", name="y", address=1024, logical="A, I, B"))
    out = y.read()
    assert (out[1, 1, 2], out[0, 0, 31], out[15, 1, 0]) == (103, 31, 115)
    assert dev.cycles == 32
    with pytest.raises(npusim.FuriosaError, match=r"stage 7 \(fetch\): Time = m!\[A\] does not "
                                                  r"use the interleave axis I"):
        dev.main.begin_interleaved("I", lhs.view(), rhs.view()).fetch("A", "B")
    with pytest.raises(npusim.FuriosaError, match="reads whole tensors"):
        dev.main.begin_interleaved("I", lhs.view().tile("A", 8, "A = 8 # 16, B", 0),
                                   rhs.view())
