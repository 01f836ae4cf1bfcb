"""CUDA arrays: PyTorch and CuPy tensors and a JAX array, sliced on their GPU
on their current stream, results on the same device. Skipped (with the
reason) where there is no GPU, no CUDA backend, or no such library."""
import numpy as np
import pytest

import dmlslice as ds

needs_gpu = pytest.mark.skipif(not ds.cuda_available(),
                               reason="no CUDA GPU" if ds.cuda_built else "built without the CUDA backend")

pytestmark = needs_gpu

CASES = ["[1:, ::-1, None, 2]", "[..., ::3]", "[::-2, 1:3]", "[0]", "[:, :, :0]"]


def torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    return torch


@pytest.mark.parametrize("key", CASES)
def test_torch_cuda_matches_torch(key):
    torch = torch_cuda()
    x = torch.randn(5, 6, 7, device="cuda")
    y = ds.index(x, key)
    assert isinstance(y, torch.Tensor) and y.device == x.device
    ref = torch.from_numpy(x.cpu().numpy()[eval("np.s_" + key)].copy())
    assert torch.equal(y.cpu(), ref)


def test_torch_cuda_non_contiguous_and_dtypes():
    torch = torch_cuda()
    for dtype in (torch.float16, torch.bfloat16, torch.int64, torch.uint8, torch.float64):
        x = torch.arange(4 * 6 * 8, device="cuda").reshape(4, 6, 8).to(dtype).transpose(0, 2)[::2]
        y = ds.onnx_slice(x, [-1, 1], [-100, 5], [0, 2], [-1, 2])
        assert torch.equal(y, x.flip(0)[:, :, 1:5:2])


def test_torch_cuda_current_stream_and_out():
    torch = torch_cuda()
    s = torch.cuda.Stream()
    x = torch.randn(256, 1024, device="cuda")
    with torch.cuda.stream(s):
        x2 = x * 2  # queued on s: the slice must see it
        out = torch.empty(128, 1024, device="cuda")
        r = ds.index(x2, "[::2]", out=out)
        assert r is out
        y = ds.webnn_reverse(x2, [1])
    s.synchronize()
    assert torch.equal(out, (x * 2)[::2])
    assert torch.equal(y, (x * 2).flip(1))


def test_torch_cuda_operator_and_grad():
    torch = torch_cuda()
    op = ds.plan("slice1", (8, 9), torch.float32, [1, 0], [6, 9], [2, -4])
    x = torch.randn(8, 9, device="cuda")
    assert torch.equal(op(x).cpu(), torch.from_numpy(ds.slice1(x.cpu().numpy(), [1, 0], [6, 9], [2, -4])))
    g = torch.randn(*op.output_shape, device="cuda")
    z = ds.slice_grad(g, (8, 9), [1, 0], [6, 9], [2, -4])
    assert torch.equal(z.cpu(), torch.from_numpy(ds.slice_grad(g.cpu().numpy(), (8, 9), [1, 0], [6, 9], [2, -4])))


def test_mixed_devices_are_refused():
    torch = torch_cuda()
    x = torch.randn(4, 4, device="cuda")
    with pytest.raises(ds.ArgumentError):
        ds.index(x, "[1:]", out=np.empty((3, 4), np.float32))


def test_cupy():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(6 * 7 * 8, dtype=cupy.float32).reshape(6, 7, 8)[:, ::-1]
    y = ds.index(x, "[1:5, ::2, None, -1]")
    assert isinstance(y, cupy.ndarray) and y.device == x.device
    assert cupy.array_equal(y, x[1:5, ::2, None, -1])
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        x3 = x * 3
        y3 = ds.webnn_slice(x3, [0, 1, 2], [6, 5, 4], [2, 2, 1])
    s.synchronize()
    assert cupy.array_equal(y3, (x * 3)[0:6:2, 1:6:2, 2:6])


def test_cupy_operator_out_and_dtypes():
    """CuPy arrays are read through their own attributes (data.ptr, shape,
    strides, dtype), results made by CuPy on the array's device."""
    cupy = pytest.importorskip("cupy")
    for dt in (cupy.float16, cupy.int64, cupy.complex128, cupy.bool_, cupy.uint8):
        x = (cupy.arange(5 * 6) % 3).astype(dt).reshape(5, 6).T  # not contiguous
        op = ds.plan("index", x.shape, x.dtype, "[::-2, 1:4]")
        y = op(x)
        assert isinstance(y, cupy.ndarray) and y.dtype == x.dtype and y.device == x.device
        assert cupy.array_equal(y, x[::-2, 1:4])
        out = cupy.zeros_like(y)
        assert op(x, out=out) is out and cupy.array_equal(out, x[::-2, 1:4])
        assert cupy.array_equal(ds.index(x, np.s_[1:, ::3]), x[1:, ::3])
    x = cupy.zeros((4, 4), cupy.float32)
    with pytest.raises(ds.DTypeError):
        ds.index(x, "[::2]", out=cupy.zeros((2, 4), cupy.int32))
    with pytest.raises(ds.ArgumentError):
        ds.index(x, "[::2]", out=cupy.zeros((3, 4), cupy.float32))


def test_jax():
    jax = pytest.importorskip("jax")
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError:
        pytest.skip("JAX sees no GPU")
    import jax.numpy as jnp
    x = jax.device_put(jnp.arange(5 * 6, dtype=jnp.float32).reshape(5, 6), gpu)
    y = ds.index(x, "[::-1, 1::2]")
    assert isinstance(y, jax.Array)
    assert np.array_equal(np.asarray(y), np.asarray(x)[::-1, 1::2])


def test_torch_cuda_bool_grad_subclass_and_many_axes():
    """Issue 21's promises on the GPU: bool tensors and tensors that require
    grad read by their attributes, a subclass back as its kind, a NumPy key
    over more than 8 axes, a boolean scalar in the key."""
    torch = torch_cuda()
    b = torch.arange(12, device="cuda").reshape(3, 4) % 3 == 0
    assert torch.equal(ds.index(b, "[::-1, 1:]"), b.flip(0)[:, 1:])
    g = torch.arange(12.0, device="cuda").reshape(3, 4).requires_grad_()
    y = ds.index(g, "[1:, ::-2]")
    assert not y.requires_grad and torch.equal(y, g.detach()[1:].flip(1)[:, ::2])

    class Tagged(torch.Tensor):
        pass
    t = torch.arange(6.0, device="cuda").as_subclass(Tagged)
    assert type(ds.index(t, "[::-1]")) is Tagged
    x = torch.arange(2 ** 10, device="cuda", dtype=torch.int16).reshape((2,) * 10)
    assert torch.equal(ds.index(x, "[1, ..., ::-1, 0]"), x[1, ..., 0].flip(-1))
    assert ds.index(x[0, 0], (np.True_, 0)).shape == (1,) + (2,) * 7
