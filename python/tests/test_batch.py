"""Many slices in one call (docs/spec.md section 7, issue 24): ds.split,
ds.crops and ds.plan_batch against NumPy (np.split / np.array_split, stacked
slices, x[key].copy()) and PyTorch's split family, bit for bit, on random
shapes, dtypes and layouts (strategies.views); their errors; one planned
batch shared by threads; torch CPU tensors."""
import math
import threading

import numpy as np
import pytest
from hypothesis import assume, example, given, strategies as st

import dmlslice as ds
from strategies import same_bits, views
from threaded import on_threads

try:
    import torch
except ImportError:  # the torch tests say so
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


# ------------------------------------------------------------------ split

def rule_sizes(d, n, mode):
    """The sizes each split convention gives an axis of d (docs/spec.md 7)."""
    if mode == "onnx":
        c = -(-d // n)
        return [c] * (n - 1) + [d - c * (n - 1)]
    if mode in ("array_split", "tensor_split"):
        return [d // n + (1 if i < d % n else 0) for i in range(n)]
    if mode == "chunk":
        c = -(-d // n)
        return [c] * (d // c) + ([d % c] if d % c else []) if c else [0] * n  # PyTorch: n empty chunks
    return [n] * (d // n) + ([d % n] if d % n else []) if d else [0]  # split_size


def numpy_parts(x, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1].astype(np.intp), axis=axis)


@st.composite
def split_cases(draw):
    x = draw(views(min_rank=1, max_rank=6))
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    d = x.shape[axis]
    if draw(st.booleans()):
        n = draw(st.integers(1, 5))
        cuts = sorted(draw(st.lists(st.integers(0, d), min_size=n - 1, max_size=n - 1)))
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [d])]
        return x, axis, sizes, None, sizes
    mode = draw(st.sampled_from(["onnx", "array_split", "tensor_split", "chunk", "split_size", None]))
    n = draw(st.integers(1, 6))
    rule = mode or "onnx"
    if rule == "onnx":
        assume(d - -(-d // n) * (n - 1) >= 0)  # R-SPLIT-COUNT refuses the rest (tested below)
    return x, axis, n, mode, rule_sizes(d, n, rule)


@example((np.zeros((9, 2), np.float32), 0, 4, "onnx", [3, 3, 3, 0]))  # ONNX Split-18's 9 into 4 (R-SPLIT-COUNT)
@example((np.zeros((0, 3), "V3"), 0, 3, "array_split", [0, 0, 0]))
@example((np.zeros((0, 3), "f4"), 0, 2, "split_size", [0]))
@given(split_cases())
def test_split_matches_numpy(case):
    """R-SPLIT-SUM, R-SPLIT-COUNT, R-SPLIT-AXIS: the parts NumPy's split of the same sizes gives."""
    x, axis, arg, mode, sizes = case
    parts = ds.split(x, arg, axis, mode=mode) if mode else ds.split(x, arg, axis=axis)
    want = numpy_parts(x, sizes, axis)
    assert len(parts) == len(want)
    for p, w in zip(parts, want):
        same_bits(p, w)
    if mode in ("array_split", "tensor_split"):
        for p, w in zip(parts, np.array_split(x, arg, axis=axis)):
            same_bits(p, w)


@given(st.integers(0, 40), st.integers(1, 12))
def test_split_modes_are_numpys_and_onnxs(d, n):
    x = np.arange(d, dtype=np.int16)
    got = [len(p) for p in ds.split(x, n, mode="array_split")]
    assert got == [len(p) for p in np.array_split(x, n)]
    c = -(-d // n)
    if d - c * (n - 1) >= 0:
        assert [len(p) for p in ds.split(x, n)] == [c] * (n - 1) + [d - c * (n - 1)]
    else:
        with pytest.raises(ds.ArgumentError) as e:
            ds.split(x, n)
        assert e.value.rule == "R-SPLIT-COUNT" and "array_split" in str(e.value)


@needs_torch
@given(st.integers(0, 40), st.integers(1, 12))
def test_split_modes_are_torchs(d, n):
    t = torch.arange(d, dtype=torch.float32)
    for mode, ref in (("tensor_split", torch.tensor_split), ("chunk", torch.chunk), ("split_size", torch.split)):
        got = ds.split(t, n, mode=mode)
        want = ref(t, n)
        assert [len(p) for p in got] == [len(p) for p in want], mode
        assert all(isinstance(p, torch.Tensor) and torch.equal(p, w) for p, w in zip(got, want))


def test_split_count_rule_9_into_4_and_5_into_4():
    """R-SPLIT-COUNT: ONNX's num_outputs: 9 into 4 is 3, 3, 3, 0; 5 into 4 is an error."""
    assert [len(p) for p in ds.split(np.arange(9), 4)] == [3, 3, 3, 0]
    with pytest.raises(ds.ArgumentError, match="R-SPLIT-COUNT"):
        ds.split(np.arange(5), 4)
    with pytest.raises(ds.ArgumentError, match="R-SPLIT-COUNT"):
        ds.split(np.arange(5), 0, mode="chunk")


def test_split_errors():
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(IndexError) as e:  # NumPy's AxisError is an IndexError and a ValueError
        ds.split(x, 2, axis=2)
    assert isinstance(e.value, ds.OutOfBoundsError) and e.value.rule == "R-SPLIT-AXIS"
    with pytest.raises(ds.OutOfBoundsError, match="R-SPLIT-AXIS"):
        ds.split(np.float32(1), 1)
    with pytest.raises(ValueError, match="R-SPLIT-SUM") as e:
        ds.split(x, [1, 1], axis=1)
    assert e.value.rule == "R-SPLIT-SUM"
    with pytest.raises(ds.ArgumentError, match="R-SPLIT-SUM"):
        ds.split(x, [5, -1], axis=1)
    with pytest.raises(ds.ArgumentError, match="R-SPLIT-COUNT"):
        ds.split(x, [])
    with pytest.raises(ds.ArgumentError, match="mode= applies to an integer"):
        ds.split(x, [1, 2], mode="chunk")
    with pytest.raises(ds.ArgumentError, match="mode= is"):
        ds.split(x, 2, mode="even")
    with pytest.raises(TypeError) as e:
        ds.split(x, [1.5, 1.5])
    assert isinstance(e.value, ds.DTypeError)
    with pytest.raises(ds.DTypeError):
        ds.split(x, None)
    with pytest.raises(ds.DTypeError):
        ds.split(x, 2, axis=0, bogus=1)


def test_split_out():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    outs = [np.empty((4, 1), np.float32), np.empty((4, 5), np.float32)]
    r = ds.split(x, [1, 5], axis=1, out=outs)
    assert r[0] is outs[0] and r[1] is outs[1]
    same_bits(outs[1], x[:, 1:])
    bad = [
        ([np.empty((4, 1), np.float32)], ds.ArgumentError, "1 arrays for 2 parts"),
        ([np.empty((4, 1), np.float32), np.empty((4, 4), np.float32)], ds.ArgumentError, r"out\[1\] has shape"),
        ([np.empty((4, 1), np.float32), np.empty((4, 5), np.float64)], ds.DTypeError, "dtype"),
        ([np.empty((4, 1), np.float32), np.empty((5, 4), np.float32).T], ds.ArgumentError, "C-contiguous"),
        ([np.empty((4, 1), np.float32), x[:, 1:].copy()[::1]], None, None),
    ]
    for out, err, msg in bad:
        if err is None:
            ds.split(x, [1, 5], axis=1, out=out)
            continue
        with pytest.raises(err, match=msg):
            ds.split(x, [1, 5], axis=1, out=out)
    ro = np.empty((4, 5), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ds.ArgumentError, match="read-only"):
        ds.split(x, [1, 5], axis=1, out=[outs[0], ro])
    with pytest.raises(ds.DTypeError):
        ds.split(x, [1, 5], axis=1, out=3)


def test_split_out_may_not_overlap_the_input_nothing_written():
    """R-B-OVERLAP: an output over the input (or another output) is refused, and nothing is written."""
    buf = np.arange(16, dtype=np.int32)
    x = buf[:8].reshape(2, 4)
    first = np.full((1, 4), -1, np.int32)
    with pytest.raises(ds.ArgumentError) as e:
        ds.split(x, 2, out=[first, buf[4:8].reshape(1, 4)])
    assert e.value.rule == "R-B-OVERLAP"
    assert (first == -1).all() and np.array_equal(buf, np.arange(16))
    with pytest.raises(ds.ArgumentError, match="R-B-OVERLAP"):
        ds.split(x, 2, out=[buf[8:12].reshape(1, 4), buf[10:14].reshape(1, 4)])


# ------------------------------------------------------------------ crops

@st.composite
def crop_cases(draw):
    x = draw(views(max_rank=6))
    size = [draw(st.integers(0, d)) for d in x.shape]
    n = draw(st.integers(0, 5))
    starts = np.array([[draw(st.integers(0, d - s)) for d, s in zip(x.shape, size)] for _ in range(n)],
                      dtype=draw(st.sampled_from([np.int64, np.int32, np.uint16]))).reshape(n, x.ndim)
    return x, starts, size


def stacked(x, starts, size):
    """The windows copied one by one into an (N, *size) array of x's dtype
    (np.stack would turn a big-endian dtype native)."""
    out = np.empty((len(starts),) + tuple(size), x.dtype)
    for i, row in enumerate(starts):
        out[i] = x[tuple(slice(int(s), int(s) + k) for s, k in zip(row, size)) + (Ellipsis,)]
    return out


@example((np.zeros((), "f8"), np.zeros((3, 0), np.int64), []))
@example((np.zeros((5, 0, 2), "V12"), np.zeros((2, 3), np.int64), [2, 0, 1]))
@given(crop_cases())
def test_crops_match_stacked_slices(case):
    """R-CROP-SIZE, R-CROP-BOUNDS: the windows NumPy's slices give, stacked."""
    x, starts, size = case
    y = ds.crops(x, starts, size)
    assert y.shape == (len(starts),) + tuple(size)
    same_bits(y, stacked(x, starts, size))
    out = np.empty_like(y)
    assert ds.crops(x, starts.tolist() if len(starts) else starts, size, out=out) is out
    same_bits(out, y)


@given(crop_cases(), st.data())
def test_crops_out_of_bounds_name_the_crop_and_axis(case, data):
    """R-CROP-BOUNDS: a host start outside the input is an IndexError naming crop i and axis k."""
    x, starts, size = case
    assume(len(starts) and x.ndim)
    i, k = data.draw(st.integers(0, len(starts) - 1)), data.draw(st.integers(0, x.ndim - 1))
    bad = starts.astype(np.int64)
    bad[i, k] = data.draw(st.sampled_from([-1, x.shape[k] - size[k] + 1, 2**62]))
    out = np.zeros((len(starts),) + tuple(size), x.dtype)
    with pytest.raises(IndexError) as e:
        ds.crops(x, bad, size, out=out)
    assert isinstance(e.value, ds.OutOfBoundsError) and e.value.rule == "R-CROP-BOUNDS"
    first = min((j, a) for j in range(len(bad)) for a in range(x.ndim)
                if not 0 <= bad[j, a] <= x.shape[a] - size[a])
    assert f"crop {first[0]}: start[{first[1]}] = {bad[first]}" in str(e.value)
    assert not out.view(np.uint8).any()  # nothing written


def test_crops_errors():
    x = np.zeros((3, 8, 8), np.float32)
    with pytest.raises(ds.OutOfBoundsError, match="R-CROP-SIZE") as e:
        ds.crops(x, np.zeros((1, 3), np.int64), (3, 9, 1))
    assert e.value.rule == "R-CROP-SIZE"
    with pytest.raises(ds.ArgumentError, match="R-CROP-SIZE"):
        ds.crops(x, np.zeros((1, 2), np.int64), (3, 4))
    with pytest.raises(ds.ArgumentError, match=r"an \(N, 3\) array"):
        ds.crops(x, np.zeros((1, 2), np.int64), (3, 4, 4))
    with pytest.raises(ds.ArgumentError, match=r"an \(N, 3\) array"):
        ds.crops(x, np.zeros(3, np.int64), (3, 4, 4))
    with pytest.raises(TypeError) as e:
        ds.crops(x, np.zeros((1, 3), np.float32), (3, 4, 4))
    assert isinstance(e.value, ds.DTypeError)
    with pytest.raises(ds.DTypeError):
        ds.crops(x, np.zeros((1, 3), np.int64), (3, "4", 4))
    with pytest.raises(ds.OutOfBoundsError, match="crop 0: start"):
        ds.crops(x, np.array([[0, 0, 2**64 - 1]], np.uint64), (1, 1, 1))
    with pytest.raises(ds.ArgumentError, match="R-B-OVERLAP"):
        ds.crops(x, np.zeros((1, 3), np.int64), (1, 1, 8), out=x[0, :1, None, None, :])
    with pytest.raises(ds.ArgumentError, match="C-contiguous"):
        ds.crops(x, np.zeros((2, 3), np.int64), (1, 1, 8), out=np.zeros((8, 1, 1, 2), np.float32).T)
    with pytest.raises(ds.ArgumentError, match="has shape"):
        ds.crops(x, np.zeros((2, 3), np.int64), (1, 1, 8), out=np.zeros((2, 1, 8), np.float32))
    with pytest.raises(ds.ArgumentError, match="at most 8"):
        ds.crops(np.zeros((1,) * 9, np.float32), np.zeros((1, 9), np.int64), (1,) * 9)


def test_crops_keep_nothing_of_an_earlier_array():
    """Batches are kept by layout: the same layout at another address, and the
    same shape with other strides, read their own array."""
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    b = a + 100
    st_ = np.array([[1, 2], [5, 0]])
    same_bits(ds.crops(a, st_, (2, 3)), stacked(a, st_, (2, 3)))
    same_bits(ds.crops(b, st_, (2, 3)), stacked(b, st_, (2, 3)))
    same_bits(ds.crops(a.T, st_, (2, 3)), stacked(a.T, st_, (2, 3)))
    same_bits(ds.crops(a[::-1], st_, (2, 3)), stacked(a[::-1], st_, (2, 3)))
    for _ in range(2):  # back to back, each call's batch is its own key's (the last one found is kept aside)
        same_bits(ds.crops(a, st_, (2, 3)), stacked(a, st_, (2, 3)))
        same_bits(ds.crops(a, st_[:1], (2, 3)), stacked(a, st_[:1], (2, 3)))
        same_bits(ds.crops(a, st_, (3, 2)), stacked(a, st_, (3, 2)))
        for sizes in ([2, 6], [6, 2], [2, 6, 0]):
            for p, w in zip(ds.split(a, sizes, axis=1), numpy_parts(a, sizes, 1)):
                same_bits(p, w)


# ------------------------------------------------------------------ plan_batch

@st.composite
def batch_cases(draw):
    """Items over a few packed inputs: (inputs, keys, which input each reads)."""
    n_in = draw(st.integers(1, 3))
    inputs = [np.ascontiguousarray(draw(views(max_rank=4, odd_strides=False))) for _ in range(n_in)]
    n = draw(st.integers(n_in, 6))
    reads = list(range(n_in)) + [draw(st.integers(0, n_in - 1)) for _ in range(n - n_in)]
    keys = []
    for j in reads:
        key = []
        for d in inputs[j].shape:
            if d and draw(st.booleans()):
                key.append(draw(st.integers(-d, d - 1)))
            else:
                step = draw(st.integers(-3, 3).filter(bool))
                key.append(slice(draw(st.integers(-d - 1, d + 1)), draw(st.integers(-d - 1, d + 1)), step))
        if draw(st.booleans()):
            key.insert(draw(st.integers(0, len(key))), None)
        keys.append(tuple(key))
    return inputs, keys, reads


@given(batch_cases())
def test_plan_batch_matches_numpy(case):
    """R-B-ITEM: every item's result is its own slice's."""
    inputs, keys, reads = case
    items = [(x.shape, x.dtype, k) for x, k in zip([inputs[j] for j in reads], keys)]
    b = ds.plan_batch(items, inputs=reads)
    assert len(b) == len(keys) and b.input_shapes == tuple(x.shape for x in inputs)
    got = b(inputs)
    for g, x, k in zip(got, [inputs[j] for j in reads], keys):
        same_bits(g, x[k + (Ellipsis,)].copy())
    outs = [np.empty_like(g) for g in got]
    assert all(r is o for r, o in zip(b(inputs, out=outs), outs))
    for o, g in zip(outs, got):
        same_bits(o, g)


def test_plan_batch_of_every_kind_and_one_input():
    x = np.random.default_rng(0).standard_normal((6, 7)).astype(np.float32)
    ops = [ds.plan("slice1", x.shape, x.dtype, [1, 0], [4, 7], [2, -3]),
           ds.plan("slice", x.shape, x.dtype, [0, 1], [2, 3], [3, 2]),
           ds.plan("onnx_slice", x.shape, x.dtype, [-1], [0], [1], [-2]),
           ds.plan("webnn_reverse", x.shape, x.dtype),
           ds.plan("index", x.shape, x.dtype, "[2:2]")]
    b = ds.plan_batch(ops, inputs=[0] * 5)
    for g, op in zip(b(x), ops):  # one array alone where the batch reads one
        same_bits(g, op(x))
    grad = ds.plan("slice_grad", (6, 7), np.float32, [0, 1], [2, 3], [3, 2])
    g = np.random.default_rng(1).standard_normal(grad.input_shape).astype(np.float32)
    same_bits(ds.plan_batch([grad])([g])[0], grad(g))
    assert ds.plan_batch([])([]) == []
    assert b.operators == tuple(ops) and b.output_shapes[4] == (0, 7) and "5 items" in repr(b)


def root(a):
    """The array whose memory a NumPy view lies in."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def test_plan_batch_fresh_results_are_views_of_one_array_per_input():
    """A batch's fresh results are made as one array per input, cut into
    views (runs of one shape as its rows): each result still owns its bytes
    alone (a write to one leaves the others), is C-contiguous, writable, and
    a 0-d result is a 0-d array, not a NumPy scalar."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 7)).astype(np.float32)
    y = rng.integers(0, 100, (5, 4)).astype(np.int16)
    s_ = np.s_
    keys = [(x, s_[1:3, ::2]), (x, s_[1:3, 1::2]), (x, s_[4, 2]), (y, s_[::-1]), (x, s_[2:4, ::2]),
            (x, s_[:0]), (x, s_[None, 5]), (y, s_[1:3, 2]), (x, s_[0:2, :4:2])]
    reads = [0 if a is x else 1 for a, _ in keys]
    b = ds.plan_batch([(a.shape, a.dtype, k) for a, k in keys], inputs=reads)
    got = b([x, y])
    wants = [a[k].copy() for a, k in keys]
    for g, w in zip(got, wants):
        same_bits(g, np.asarray(w))
        assert isinstance(g, np.ndarray) and g.flags.c_contiguous and g.flags.writeable
    for j in (0, 1):
        roots = {id(root(g)) for g, r in zip(got, reads) if r == j}
        assert len(roots) == 1, f"input {j}: results from {len(roots)} arrays"
    assert root(got[0]) is not root(got[3])
    for i, g in enumerate(got):
        g[...] = 99  # every other result keeps its values
        for k, (h, w) in enumerate(zip(got, wants)):
            if k != i:
                same_bits(h, np.asarray(w))
        g[...] = wants[i]
    outs = [np.empty_like(g) for g in got]  # out= as before: written in place, handed back
    assert all(r is o for r, o in zip(b([x, y], out=outs), outs))
    for o, w in zip(outs, wants):
        same_bits(o, np.asarray(w))


def test_plan_batch_errors():
    op = ds.plan("index", (2, 3), "f4", "[1]")
    op_i = ds.plan("index", (2, 3), "i8", "[1]")
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ds.DTypeError, match="item 1 is int"):
        ds.plan_batch([op, 3])
    with pytest.raises(ds.ArgumentError, match="more than 8 axes"):
        ds.plan_batch([ds.plan("index", (1,) * 9, "f4", "[0]")])
    with pytest.raises(ds.ArgumentError, match="items 0 and 1 read input 0"):
        ds.plan_batch([op, op_i], inputs=[0, 0])
    with pytest.raises(ds.OutOfBoundsError, match="item 1 reads input 5"):
        ds.plan_batch([op, op], inputs=[0, 5])
    with pytest.raises(ds.ArgumentError, match="no item reads input 0"):
        ds.plan_batch([op, op], inputs=[1, 1])
    with pytest.raises(ds.ArgumentError, match="1 slot numbers for 2 items"):
        ds.plan_batch([op, op], inputs=[0])
    b = ds.plan_batch([op, op])
    with pytest.raises(ds.ArgumentError, match="1 inputs given; the batch reads 2"):
        b([x])
    with pytest.raises(ds.DTypeError, match="list or tuple of 2 arrays"):
        b(x)
    with pytest.raises(ds.ArgumentError, match=r"inputs\[1\] has shape \(3, 2\)"):
        b([x, np.zeros((3, 2), np.float32)])
    with pytest.raises(ds.ArgumentError, match=r"inputs\[1\] is not C-contiguous"):
        b([x, np.zeros((3, 2), np.float32).T])
    with pytest.raises(ds.ArgumentError, match=r"2 arrays for 2 items|out= has 1 arrays"):
        b([x, x], out=[np.zeros(3, np.float32)])
    out = [np.full(3, 7, np.float32), x[1]]
    with pytest.raises(ds.ArgumentError, match="R-B-OVERLAP"):
        b([x, x], out=out)
    assert (out[0] == 7).all()  # nothing written
    with pytest.raises(ds.DTypeError):
        b([x, x], out=[np.zeros(3, np.float64), np.zeros(3, np.float32)])


def test_one_plan_batch_many_threads():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 256)).astype(np.float32)
    keys = ["[::-1, 3:200:2]", "[5]", "[:, ::-7]", "[10:50, None, 1::3]"]
    b = ds.plan_batch([(x.shape, x.dtype, k) for k in keys], inputs=[0] * len(keys))
    want = [x[eval("np.s_" + k)] for k in keys]

    def work(_):
        for _ in range(30):
            for g, w in zip(b([x]), want):
                assert np.array_equal(g, w)
            outs = [np.empty_like(w) for w in want]
            b([x], out=outs)
            assert all(np.array_equal(o, w) for o, w in zip(outs, want))

    on_threads(8, work)


def test_large_batches_release_the_gil_and_use_the_pool():
    x = np.random.default_rng(0).standard_normal((8, 512, 512)).astype(np.float32)  # 8 MiB
    parts = ds.split(x, 8, axis=1, mode="chunk")
    for p, w in zip(parts, np.split(x, 8, axis=1)):
        assert np.array_equal(p, w)
    starts = np.stack([np.zeros(300, np.int64), np.arange(300), np.arange(300)[::-1]], 1)
    assert np.array_equal(ds.crops(x, starts, (8, 200, 200)), stacked(x, starts, (8, 200, 200)))


def test_a_large_batch_lets_other_threads_run():
    """The GIL is let go while a batch of 64 KiB or more runs: another
    thread takes a timestamp in the middle of the call."""
    import time
    # 8-byte runs gathered from a 64 MiB array, on one thread: tens of
    # milliseconds per call on any machine.
    x = np.ones((1 << 20, 8), np.float64)
    stop, stamps, threads = threading.Event(), [], ds.get_num_threads()
    ds.set_num_threads(1)

    def stamp():
        while not stop.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0.0002)  # asks for the GIL back each time

    t = threading.Thread(target=stamp)
    t.start()
    inside = False
    try:
        for _ in range(5):
            t0 = time.perf_counter()
            ds.split(x, 8, axis=1)
            t1 = time.perf_counter()
            inside |= any(t0 + 0.001 < v < t1 - 0.001 for v in stamps[-2000:])
    finally:
        stop.set()
        t.join()
        ds.set_num_threads(threads)
    assert inside


# ------------------------------------------------------------------ PyTorch CPU tensors and other arrays

@needs_torch
def test_torch_cpu_tensors():
    t = torch.arange(60, dtype=torch.float64).reshape(3, 4, 5).transpose(1, 2)
    for p, w in zip(ds.split(t, [2, 3], axis=1), torch.split(t, [2, 3], 1)):
        assert isinstance(p, torch.Tensor) and torch.equal(p, w)
    st_ = torch.tensor([[0, 1, 0], [1, 0, 2]])
    y = ds.crops(t, st_, (2, 3, 2))
    assert isinstance(y, torch.Tensor)
    assert np.array_equal(y.numpy(), stacked(t.numpy(), st_.numpy(), (2, 3, 2)))
    b = ds.plan_batch([((3, 5, 4), torch.float64, "[1, ::2]")])
    with pytest.raises(ds.ArgumentError, match="C-contiguous"):
        b(t)
    r = b(t.contiguous())
    assert isinstance(r[0], torch.Tensor) and torch.equal(r[0], t[1, ::2])
    bt = torch.tensor([[True, False], [False, True]])
    assert torch.equal(ds.split(bt, 2, axis=1)[1], bt[:, 1:])


@needs_torch
def test_torch_batch_results_share_one_storage():
    x = torch.arange(48, dtype=torch.float32).reshape(6, 8)
    keys = [np.s_[1:3, ::2], np.s_[0:2, 1::2], np.s_[5], np.s_[2:4, :4], np.s_[3, 1]]
    b = ds.plan_batch([(x.shape, torch.float32, k) for k in keys], inputs=[0] * 5)
    got = b(x)
    wants = [x[k].clone() for k in keys]
    storage = {g.storage().data_ptr() for g in got}
    assert len(storage) == 1
    for i, g in enumerate(got):
        assert g.is_contiguous() and g.shape == wants[i].shape
        g.fill_(-1)
        assert all(torch.equal(h, w) for k, (h, w) in enumerate(zip(got, wants)) if k != i)
        g.copy_(wants[i])


def test_buffer_exporters_give_numpy():
    raw = bytearray(range(24))
    parts = ds.split(memoryview(raw).cast("B", (4, 6)), 3, axis=1)
    assert all(isinstance(p, np.ndarray) for p in parts)
    assert parts[2].tolist() == [[4, 5], [10, 11], [16, 17], [22, 23]]
    y = ds.crops(memoryview(raw), [[3], [20]], [2])
    assert y.tolist() == [[3, 4], [20, 21]]
    b = ds.plan_batch([((24,), "u1", "[::5]"), ((24,), "u1", "[1]")], inputs=[0, 1])
    got = b([memoryview(raw), np.frombuffer(bytes(raw), np.uint8)])
    assert got[0].tolist() == [0, 5, 10, 15, 20] and got[1].tolist() == 1


def test_math_of_sizes_is_the_rule():
    """rule_sizes (this file's oracle) against a direct count for a few cases."""
    assert rule_sizes(9, 4, "onnx") == [3, 3, 3, 0]
    assert rule_sizes(10, 4, "array_split") == [3, 3, 2, 2]
    assert rule_sizes(10, 4, "chunk") == [3, 3, 3, 1] and rule_sizes(6, 4, "chunk") == [2, 2, 2]
    assert rule_sizes(0, 3, "chunk") == [0, 0, 0]
    assert rule_sizes(10, 4, "split_size") == [4, 4, 2] and rule_sizes(0, 4, "split_size") == [0]
    assert sum(rule_sizes(17, 5, "onnx")) == 17 and math.ceil(17 / 5) == rule_sizes(17, 5, "onnx")[0]
