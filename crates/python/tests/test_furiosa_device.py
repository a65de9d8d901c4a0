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
    s = dev.sub.begin(x.view()).fetch("A, B", "C # 8").fetch_table_lookup("bf16")
    with pytest.raises(npusim.FuriosaError,
                       match=r"stage 3 \(fetch_table_lookup\): fetch_table_lookup runs in the "
                             r"main context only"):
        s.collect("A, B", "C # 32").commit_trim("C # 8").commit("A, B, C # 8", name="y")
    # The refused invocation is gone; the same copy on main runs (15 packets, 15 cycles).
    y = (dev.main.begin(x.view()).fetch("A, B", "C # 8").collect("A, B", "C # 32")
         .commit_trim("C # 8").commit("A, B, C # 8", name="y", address=64))
    assert y.read().shape == (3, 5, 2)
    assert dev.cycles == 15
    with pytest.raises(npusim.FuriosaError, match="not ended"):
        dev.main.begin(x.view())
        dev.main.begin(x.view())
