"""split, crops and planned batches of CUDA arrays (issue 24): PyTorch and
CuPy tensors on their current stream, starts held by the device (clamped),
CUDA graph capture. Skipped (with the reason) without a GPU, the CUDA
backend or the array library."""
import numpy as np
import pytest

import dmlslice as ds
from threaded import on_threads

pytestmark = pytest.mark.skipif(not ds.cuda_available(),
                                reason="no CUDA GPU" if ds.cuda_built else "built without the CUDA backend")


def torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    return torch


def crops_ref(x, starts, size):
    """The stacked windows, starts clamped as jax.lax.dynamic_slice clamps."""
    dims = np.array(x.shape)
    st = np.clip(np.asarray(starts, np.int64), 0, dims - np.array(size))
    return np.stack([x[tuple(slice(s, s + n) for s, n in zip(row, size))] for row in st]).reshape(
        (len(st),) + tuple(size))


# (mode, count, the sizes along an axis of 9): ONNX Split-18's 9 into 4 is
# 3, 3, 3, 0 (R-SPLIT-COUNT); the others are PyTorch's own.
SPLITS = [("onnx", 4, [3, 3, 3, 0]), (None, 3, [3, 3, 3]), ("array_split", 4, [3, 2, 2, 2]),
          ("tensor_split", 4, [3, 2, 2, 2]), ("chunk", 4, [3, 3, 3]), ("split_size", 2, [2, 2, 2, 2, 1])]


@pytest.mark.parametrize("mode,n,sizes", SPLITS)
def test_split_torch_cuda_matches_torch(mode, n, sizes):
    torch = torch_cuda()
    x = torch.randn(6, 9, 5, device="cuda").transpose(0, 1)  # (9, 6, 5), not contiguous
    parts = ds.split(x, n, axis=0, mode=mode) if mode else ds.split(x, n, axis=0)
    peer = {"array_split": torch.tensor_split, "tensor_split": torch.tensor_split, "chunk": torch.chunk,
            "split_size": torch.split}.get(mode)
    want = peer(x, n, 0) if peer else torch.split(x, sizes, 0)
    assert [p.shape[0] for p in parts] == sizes == [w.shape[0] for w in want]
    for p, w in zip(parts, want):
        assert isinstance(p, torch.Tensor) and p.device == x.device
        assert torch.equal(p, w.contiguous())


def test_split_torch_cuda_out_and_dtypes():
    torch = torch_cuda()
    for dtype in (torch.float16, torch.bfloat16, torch.int64, torch.uint8, torch.complex128):
        x = torch.arange(4 * 10 * 3, device="cuda").reshape(4, 10, 3).to(dtype)
        outs = [torch.empty(4, k, 3, dtype=dtype, device="cuda") for k in (2, 5, 3)]
        r = ds.split(x, [2, 5, 3], axis=1, out=outs)
        assert all(a is b for a, b in zip(r, outs))
        for o, w in zip(outs, torch.split(x, [2, 5, 3], 1)):
            assert torch.equal(o, w)


def test_split_many_parts_one_launch_and_slot_limit():
    torch = torch_cuda()
    x = torch.randn(300, 7, device="cuda")
    parts = ds.split(x, [1] * 300)  # one output buffer: no slot limit
    assert torch.equal(torch.cat(parts), x)
    with pytest.raises(ds.Error):  # 300 out= arrays are more slots than one launch binds
        ds.split(x, [1] * 300, out=[torch.empty(1, 7, device="cuda") for _ in range(300)])


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_crops_device_starts_clamped(dtype):
    torch = torch_cuda()
    x = torch.randn(3, 40, 50, device="cuda")
    rng = np.random.default_rng(0)
    starts = np.stack([rng.integers(-5, 3, 64), rng.integers(-10, 45, 64), rng.integers(-10, 55, 64)], 1)
    ts = torch.from_numpy(starts.astype(dtype)).cuda()
    y = ds.crops(x, ts, (3, 4, 4))
    assert y.device == x.device and y.shape == (64, 3, 4, 4)
    assert np.array_equal(y.cpu().numpy(), crops_ref(x.cpu().numpy(), starts, (3, 4, 4)))  # R-CROP-BOUNDS


def test_crops_host_starts_on_gpu_checked_and_copied():
    torch = torch_cuda()
    x = torch.randn(3, 40, 50, device="cuda")[:, ::2]  # strided
    starts = np.array([[0, 0, 0], [0, 16, 46], [0, 3, 7]])
    y = ds.crops(x, starts, (3, 4, 4))
    assert np.array_equal(y.cpu().numpy(), crops_ref(x.cpu().numpy(), starts, (3, 4, 4)))
    y2 = ds.crops(x, torch.from_numpy(starts), (3, 4, 4))  # a CPU tensor is host starts
    assert torch.equal(y, y2)
    with pytest.raises(ds.OutOfBoundsError, match=r"crop 1: start\[1\] = 17"):
        ds.crops(x, np.array([[0, 0, 0], [0, 17, 0]]), (3, 4, 4))


def test_crops_devices_must_agree():
    torch = torch_cuda()
    with pytest.raises(ds.ArgumentError, match="starts is on CUDA device 0 and the array on the CPU"):
        ds.crops(np.zeros((4, 4), np.float32), torch.zeros(1, 2, dtype=torch.int64, device="cuda"), (2, 2))
    x = torch.zeros(4, 4, device="cuda")
    with pytest.raises(ds.ArgumentError, match="out= is on the CPU 0 and the array on CUDA device 0"):
        ds.crops(x, [[0, 0]], (2, 2), out=torch.zeros(1, 2, 2))
    b = ds.plan_batch([((4, 4), torch.float32, "[1:3]")])
    with pytest.raises(ds.ArgumentError, match=r"out\[0\] is on the CPU 0 and the array on CUDA device 0"):
        b(x, out=[torch.zeros(2, 4)])
    with pytest.raises(ds.DTypeError):
        ds.crops(torch.zeros(4, 4, device="cuda"), torch.zeros(1, 2, device="cuda"), (2, 2))  # float starts
    with pytest.raises(ds.ArgumentError):
        ds.crops(torch.zeros(4, 4, device="cuda"), torch.zeros(1, 3, dtype=torch.int64, device="cuda"), (2, 2))


def test_crops_on_current_stream():
    torch = torch_cuda()
    s = torch.cuda.Stream()
    x = torch.randn(3, 256, 256, device="cuda")
    st = torch.randint(0, 250, (512, 3), device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        x2 = x * 2  # queued on s: the crops must see it
        st2 = st + 1
        y = ds.crops(x2, st2, (3, 5, 5))
    s.synchronize()
    assert np.array_equal(y.cpu().numpy(), crops_ref((x * 2).cpu().numpy(), (st + 1).cpu().numpy(), (3, 5, 5)))


def test_crops_in_a_cuda_graph():
    torch = torch_cuda()
    x = torch.randn(3, 64, 64, device="cuda")
    starts = torch.zeros(128, 3, dtype=torch.int64, device="cuda")
    out = torch.empty(128, 3, 4, 4, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        ds.crops(x, starts, (3, 4, 4), out=out)  # the batch made and prepared outside the capture
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        ds.crops(x, starts, (3, 4, 4), out=out)
    new = np.random.default_rng(1).integers(0, 60, (128, 3))
    starts.copy_(torch.from_numpy(new))
    g.replay()
    torch.cuda.synchronize()
    assert np.array_equal(out.cpu().numpy(), crops_ref(x.cpu().numpy(), new, (3, 4, 4)))


def test_plan_batch_cuda_matches_operators_and_threads():
    torch = torch_cuda()
    a = torch.randn(8, 9, device="cuda")
    b = torch.randn(5, 6, 7, device="cuda").to(torch.float16)
    ops = [ds.plan("slice1", (8, 9), torch.float32, [1, 0], [6, 9], [2, -4]),
           ds.plan("index", (5, 6, 7), torch.float16, "[::-1, 2, None, 1:5]"),
           ds.plan("index", (8, 9), torch.float32, "[:0]"),
           ((8, 9), torch.float32, "[3]")]
    bt = ds.plan_batch(ops, inputs=[0, 1, 0, 0])
    want = [ops[0](a), ops[1](b), ops[2](a), a[3]]

    def work(_):
        for _ in range(20):
            got = bt([a, b])
            for g, w in zip(got, want):
                assert g.device == a.device and torch.equal(g, w)

    on_threads(4, work)


def test_plan_batch_cuda_results_views_of_one_tensor():
    """64 windows of one image: the fresh results are rows of one new tensor
    (one allocation, not 64), each its own bytes; out= as before."""
    torch = torch_cuda()
    x = torch.randn(3, 64, 64, device="cuda")
    rng = np.random.default_rng(5)
    corners = rng.integers(0, 60, (64, 2)).tolist()
    keys = [np.s_[:, y:y + 4, c:c + 4] for y, c in corners] + [np.s_[1, 2, 3], np.s_[0, :5]]
    b = ds.plan_batch([(x.shape, torch.float32, k) for k in keys], inputs=[0] * len(keys))
    got = b(x)
    wants = [x[k].clone() for k in keys]
    assert len({g.untyped_storage().data_ptr() for g in got}) == 1
    for g, w in zip(got, wants):
        assert g.device == x.device and g.is_contiguous() and torch.equal(g, w)
    got[3].fill_(-1)
    assert all(torch.equal(g, w) for i, (g, w) in enumerate(zip(got, wants)) if i != 3)
    outs = [torch.empty_like(w) for w in wants]
    assert all(r is o for r, o in zip(b(x, out=outs), outs))
    assert all(torch.equal(o, w) for o, w in zip(outs, wants))


def test_cupy_split_and_crops():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(4 * 6 * 8, dtype=cupy.float32).reshape(4, 6, 8)[:, ::-1]
    parts = ds.split(x, 3, axis=2, mode="array_split")
    for p, w in zip(parts, cupy.array_split(x, 3, axis=2)):
        assert isinstance(p, cupy.ndarray) and cupy.array_equal(p, w)
    st = cupy.asarray(np.array([[0, 1, 2], [2, 9, -1]], np.int32))
    y = ds.crops(x, st, (2, 3, 4))
    assert isinstance(y, cupy.ndarray)
    assert np.array_equal(cupy.asnumpy(y), crops_ref(cupy.asnumpy(x), cupy.asnumpy(st), (2, 3, 4)))


def test_cupy_plan_batch_results_views_of_one_array():
    """CuPy arrays' fresh results: rows (row, ...) of one new array per input,
    a 0-d result a 0-d CuPy array; each result its own bytes."""
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(6 * 8, dtype=cupy.float32).reshape(6, 8)
    y = cupy.arange(5 * 4, dtype=cupy.int16).reshape(5, 4)
    keys = [(x, np.s_[1:3, ::2]), (x, np.s_[0:2, 1::2]), (x, np.s_[4, 2]), (y, np.s_[::-1]), (x, np.s_[5])]
    reads = [0 if a is x else 1 for a, _ in keys]
    b = ds.plan_batch([(a.shape, a.dtype, k) for a, k in keys], inputs=reads)
    got = b([x, y])
    wants = [a[k].copy() for a, k in keys]
    for g, w in zip(got, wants):
        assert isinstance(g, cupy.ndarray) and g.shape == w.shape and g.flags.c_contiguous
        assert cupy.array_equal(g, w)
    assert len({got[i].data.mem.ptr for i in (0, 1, 2, 4)}) == 1  # one allocation for input 0
    got[1][...] = -1
    assert all(cupy.array_equal(g, w) for i, (g, w) in enumerate(zip(got, wants)) if i != 1)


def test_crops_host_starts_reusable_at_once_behind_queued_work():
    """Host starts are copied through pinned memory, queued behind the
    stream's work: the caller may overwrite its array as soon as crops
    returns, and the crops still read the starts it passed."""
    torch = torch_cuda()
    x = torch.randn(3, 256, 256, device="cuda")
    busy = torch.randn(2048, 2048, device="cuda")
    xh = x.cpu().numpy()
    rng = np.random.default_rng(7)
    results, wants = [], []
    for _ in range(8):
        busy @ busy  # keeps the stream busy while the starts are copied
        st = np.zeros((64, 3), np.int64)
        st[:, 1:] = rng.integers(0, 252, (64, 2))
        wants.append(crops_ref(xh, st, (3, 4, 4)))
        results.append(ds.crops(x, st, (3, 4, 4)))
        st[...] = 0
    torch.cuda.synchronize()
    for y, w in zip(results, wants):
        assert np.array_equal(y.cpu().numpy(), w)
