"""Every vocabulary against NumPy's own slicing of the same array, bit for bit,
on random shapes (rank 0-8), dtypes and layouts (strategies.views)."""
import os
import sys

import numpy as np
import pytest
from hypothesis import assume, example, given, strategies as st

import dmlslice as ds
from strategies import same_bits, shapes, views

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from numpy_window import window_key  # noqa: E402  (the oracle: bench/numpy_window.py)

INT64_MAX, INT64_MIN = 2**63 - 1, -2**63


# ------------------------------------------------------------------ NumPy indexing

@st.composite
def index_keys(draw, shape):
    items = []
    for d in shape:
        kind = draw(st.sampled_from(["int", "slice", "slice", "whole"]))
        if kind == "int":
            items.append(draw(st.integers(-d - 2, d + 1)))
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-d - 3, d + 3),
                              st.sampled_from([INT64_MAX, INT64_MIN, 2**70, -2**70]))
            step = st.one_of(st.none(), st.integers(-4, 4).filter(bool), st.sampled_from([INT64_MAX, -INT64_MAX]))
            items.append(slice(draw(bound), draw(bound), draw(step)))
        else:
            items.append(slice(None))
    items = items[: draw(st.integers(0, len(items)))]
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    if draw(st.integers(0, 5)) == 0:  # a boolean scalar: NumPy's axis of length 1 or 0
        items.insert(draw(st.integers(0, len(items))), draw(st.sampled_from([True, False, np.True_, np.False_])))
    return tuple(items)


def view_of(x, key):
    """x[key] as a view: a trailing ... keeps an all-integer key from making a
    NumPy scalar, which would normalize bits (a bool byte of 0x37 -> True)."""
    return x[key] if any(k is Ellipsis for k in key) else x[key + (Ellipsis,)]


def key_text(key):
    def one(k):
        if k is None:
            return "None"
        if k is Ellipsis:
            return "..."
        if isinstance(k, slice):
            return ":".join("" if v is None else str(v) for v in (k.start, k.stop, k.step))
        return str(k)
    if not key:
        return "[()]"  # x[()]: "[]" is Python's syntax error, and the library's
    return "[" + ", ".join(one(k) for k in key) + "]"


@st.composite
def index_cases(draw):
    x = draw(views())
    return x, draw(index_keys(x.shape))


# Cases the random profile found (conftest.py), kept as examples.
@example((np.zeros((0,) * 8, np.complex128), ()))             # empty at rank 8 needs no split
@example((np.zeros((2,) * 7 + (0,), "S3"), (Ellipsis,)))
@given(index_cases())
def test_index_matches_numpy(case):
    x, key = case
    assume(len([k for k in key if k is not None]) <= 8 and len(key) - key.count(None) <= x.ndim + 1)
    # A result of more than 8 axes is refused for its rank, which may come
    # before NumPy's bounds check of an integer in the same key.
    assume(x.ndim + key.count(None) - sum(type(k) is int for k in key) <= 8)
    text = not any(isinstance(k, (bool, np.bool_)) for k in key)  # the key language has no booleans
    assume(x.ndim + key.count(None) + (not text) - sum(type(k) is int for k in key) <= 8)
    try:
        want = view_of(x, key)
    except IndexError:
        with pytest.raises(IndexError):
            ds.index(x, key)
        if text:
            with pytest.raises(IndexError):
                ds.index(x, key_text(key))
        return
    if want.ndim > 8:
        return
    same_bits(ds.index(x, key), want)
    if text:
        same_bits(ds.index(x, key_text(key)), want)
    op = ds.plan("index", x.shape, x.dtype, key)
    same_bits(op(x), want)


@given(views(max_rank=6))
def test_single_items_index_like_numpy(x):
    for key in (Ellipsis, None, slice(None, None, -1), 0, -1):
        try:
            want = view_of(x, (key,))
        except IndexError:
            with pytest.raises(IndexError):
                ds.index(x, key)
            continue
        same_bits(ds.index(x, key), want)


# ------------------------------------------------------------------ DirectML

@st.composite
def windows(draw, shape):
    offs, sizes, strides = [], [], []
    for d in shape:
        o = draw(st.integers(0, d - 1))
        offs.append(o)
        sizes.append(draw(st.integers(1, d - o)))
        strides.append(draw(st.integers(-3, 3).filter(bool)))
    return offs, sizes, strides


@given(st.data())
def test_slice1_matches_numpy(data):
    x = data.draw(views(min_rank=1, min_side=1))
    offs, sizes, strides = data.draw(windows(x.shape))
    want = x[window_key(offs, sizes, strides)]
    same_bits(ds.slice1(x, offs, sizes, strides), want)
    same_bits(ds.plan("slice1", x.shape, x.dtype, offs, sizes, strides)(x), want) \
        if x.dtype.itemsize in (1, 2, 4, 8) else None


@given(st.data())
def test_slice_matches_numpy(data):
    x = data.draw(views(min_rank=1, min_side=1, dtypes=["u1", "<i2", ">f4", "<f8", "<c8"]))
    offs, outs, strides = [], [], []
    for d in x.shape:
        o = data.draw(st.integers(0, d - 1))
        t = data.draw(st.integers(1, 3))
        offs.append(o)
        strides.append(t)
        outs.append(data.draw(st.integers(1, 1 + (d - 1 - o) // t)))
    want = x[tuple(slice(o, o + (n - 1) * t + 1, t) for o, n, t in zip(offs, outs, strides))]
    same_bits(ds.slice(x, offs, outs, strides), want)


@given(st.data())
def test_slice_grad_matches_numpy(data):
    shape = data.draw(shapes(min_rank=1, min_side=1))
    offs, sizes, strides = data.draw(windows(shape))
    view = window_key(offs, sizes, strides)
    gshape = np.empty(shape)[view].shape
    g = data.draw(views(shape=gshape, dtypes=["u1", ">i2", "<f4", ">f8", "<i8"]))
    want = np.zeros(shape, g.dtype)
    want[view] = g
    same_bits(ds.slice_grad(g, shape, offs, sizes, strides), want)
    same_bits(ds.plan("slice_grad", shape, g.dtype, offs, sizes, strides)(g), want)


# ------------------------------------------------------------------ ONNX

def onnx_reference(x, starts, ends, axes, steps):
    n = len(starts)
    axes = list(range(n)) if axes is None else [a + x.ndim if a < 0 else a for a in axes]
    steps = [1] * n if steps is None else steps
    sl = [slice(None)] * x.ndim
    for s, e, a, t in zip(starts, ends, axes, steps):
        d = x.shape[a]
        s = s + d if s < 0 else s
        e = e + d if e < 0 else e
        if t > 0:
            s, e = min(max(s, 0), d), min(max(e, 0), d)
        else:
            s, e = min(max(s, 0), d - 1), min(max(e, -1), d - 1)
            s = max(s, 0)
        sl[a] = slice(s, None if e < 0 else e, t)
    return x[tuple(sl) + (Ellipsis,)]


@given(st.data())
def test_onnx_matches_reference(data):
    x = data.draw(views())
    n = data.draw(st.integers(0, x.ndim))
    use_axes = data.draw(st.booleans())
    if use_axes:
        axes = data.draw(st.permutations(range(x.ndim)))[:n]
        axes = [a - x.ndim if data.draw(st.booleans()) else a for a in axes]
    else:
        axes = None
    dims = [x.shape[a] for a in (axes if axes is not None else range(n))]
    val = lambda d: st.one_of(st.integers(-d - 3, d + 3), st.sampled_from([INT64_MIN, INT64_MAX]))
    starts = [data.draw(val(d)) for d in dims]
    ends = [data.draw(val(d)) for d in dims]
    steps = data.draw(st.one_of(st.none(), st.lists(st.integers(-3, 3).filter(bool), min_size=n, max_size=n)))
    want = onnx_reference(x, starts, ends, axes, steps)
    same_bits(ds.onnx_slice(x, starts, ends, axes, steps), want)


# ------------------------------------------------------------------ WebNN

@given(st.data())
def test_webnn_slice_matches_numpy(data):
    x = data.draw(views(min_side=1))
    starts, sizes, strides = [], [], []
    for d in x.shape:
        s = data.draw(st.integers(0, d - 1))
        starts.append(s)
        sizes.append(data.draw(st.integers(1, d - s)))
        strides.append(data.draw(st.integers(1, min(3, sizes[-1]))))  # WebNN: stride <= size
    want = x[tuple(slice(s, s + z, t) for s, z, t in zip(starts, sizes, strides)) + (Ellipsis,)]
    same_bits(ds.webnn_slice(x, starts, sizes, strides), want)
    if all(t == 1 for t in strides):
        same_bits(ds.webnn_slice(x, starts, sizes), want)


@given(st.data())
def test_webnn_reverse_matches_numpy(data):
    x = data.draw(views())
    axes = data.draw(st.one_of(st.none(), st.permutations(range(x.ndim))))
    if axes is not None:
        axes = axes[: data.draw(st.integers(0, x.ndim))]
    rev = set(range(x.ndim)) if axes is None else set(axes)
    want = x[tuple(slice(None, None, -1) if i in rev else slice(None) for i in range(x.ndim)) + (Ellipsis,)]
    same_bits(ds.webnn_reverse(x, axes), want)


# ------------------------------------------------------------------ zero copy in

def test_input_is_read_in_place_not_copied():
    base = np.arange(4 * 6, dtype=np.float32).reshape(4, 6)
    x = base[::-1, ::2]
    before = base.copy()
    y = ds.index(x, "[1:]")
    same_bits(y, x[1:])
    same_bits(base, before)  # never written
    b = np.broadcast_to(np.arange(3, dtype=np.int16), (5, 3))
    same_bits(ds.index(b, "[::2, ::-1]"), b[::2, ::-1])


def test_big_endian_in_big_endian_out():
    x = np.arange(12, dtype=">f8").reshape(3, 4)
    y = ds.index(x, "[:, ::-1]")
    assert y.dtype == np.dtype(">f8")
    same_bits(y, x[:, ::-1])


def test_buffer_exporters_other_than_numpy_give_numpy():
    import array
    a = array.array("h", range(10))
    y = ds.index(a, "[::-3]")
    assert isinstance(y, np.ndarray) and y.dtype == np.int16
    assert y.tolist() == [9, 6, 3, 0]
    assert ds.index(memoryview(b"abcdef"), "[1:4]").tobytes() == b"bcd"


def test_rank_8_with_unaligned_strides_says_why():
    strides = [2 + 4 * 2 ** i for i in range(8)]  # byte strides 6, 10, 18, ...: copied as 2-byte parts
    raw = bytearray(sum(strides) + 4)
    x = np.ndarray((2,) * 8, np.int32, buffer=raw, offset=0, strides=strides)
    x[...] = np.arange(256).reshape((2,) * 8)
    with pytest.raises(ds.ArgumentError) as e:
        ds.index(x, "...")
    assert e.value.status == "DMLS_ERROR_UNSUPPORTED"
    y = x[..., :1]  # an axis of size 1 makes room for the split
    same_bits(ds.index(y, "[::-1]"), y[::-1])
    c = np.zeros((2,) * 8, np.complex128)  # 16-byte elements need the split too
    with pytest.raises(ds.ArgumentError):
        ds.index(c, "...")
    same_bits(ds.index(c[:1], "[::-1]"), c[:1])


def test_index_tuples_that_look_alike_are_told_apart():
    """Index tuples are cached by a binary form: keys that differ only in
    order, kind or sign of an item must not share a plan."""
    x = np.arange(4 * 5 * 6, dtype=np.int32).reshape(4, 5, 6)
    keys = [(1,), 1, (slice(None), 1), (1, slice(None)), (slice(1, None),), (slice(None, 1),),
            (-1,), (slice(-1, None),), (slice(None, None, -1),), (slice(None, None, 1),),
            (None, 1), (1, None), (Ellipsis, 1), (1, Ellipsis), (slice(0, None),), (),
            (slice(2**70),), (slice(-2**70, None, 2),), (np.int64(2), slice(None, None, -2))]
    for _ in range(2):  # the second round runs from the cache
        for key in keys:
            same_bits(ds.index(x, key), x[key if isinstance(key, tuple) else (key,)][...])
            if isinstance(key, tuple):
                same_bits(ds.index(x, key), ds.index(x, key_text(key)))


def test_overlapping_odd_items_dropped_axis():
    # Three-byte items one byte apart (found by Hypothesis): an integer key
    # must not take the packed plan, whose elements are three bytes apart.
    buf = np.frombuffer(bytes([0x5F, 0x82, 0xC2, 0xD9]), dtype=np.uint8)
    x = np.ndarray(shape=(2,), dtype="V3", buffer=buf, strides=(1,))
    for key in (0, -1, slice(None, None, -1), Ellipsis, None):
        same_bits(ds.index(x, key), view_of(x, (key,)))
