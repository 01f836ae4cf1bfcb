"""ds.transpose and ds.plan("transpose", ...) against NumPy's own
np.transpose, bit for bit, on random shapes, layouts and permutations
(docs/spec.md, R-PERM), and a transposed array sliced
(np.ascontiguousarray(np.transpose(x, axes)[key])) through a planned
transpose's result. PyTorch (CPU) and CUDA arrays come back as their kind."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import dmlslice as ds
from strategies import same_bits, views


@st.composite
def permutations(draw, rank):
    """None (reversed), or a permutation of range(rank), each entry written
    as itself or, NumPy's way, counted from the back."""
    if draw(st.integers(0, 4)) == 0:
        return None
    perm = draw(st.permutations(range(rank)))
    return tuple(a - rank if draw(st.booleans()) else a for a in perm)


@st.composite
def transpose_cases(draw):
    x = draw(views(max_rank=6))
    return x, draw(permutations(x.ndim))


@given(transpose_cases())
def test_transpose_matches_numpy(case):
    x, axes = case
    want = np.transpose(x, axes).copy(order="C")  # ascontiguousarray makes a 0-d array 1-d
    got = ds.transpose(x, axes)
    assert got.flags.c_contiguous
    same_bits(got, want)
    op = ds.plan("transpose", x.shape, x.dtype, axes)
    same_bits(op(x), want)
    out = np.empty_like(want)
    assert op(x, out=out) is out
    same_bits(out, want)


@st.composite
def sliced_cases(draw):
    x = draw(views(min_rank=1, max_rank=4, min_side=1))
    axes = draw(permutations(x.ndim))
    t_shape = np.transpose(np.empty(x.shape, np.uint8), axes).shape
    key = tuple(slice(draw(st.integers(-d - 1, d + 1)), draw(st.integers(-d - 1, d + 1)),
                      draw(st.integers(-3, 3).filter(bool))) for d in t_shape)
    return x, axes, key


@given(sliced_cases())
def test_transposed_then_sliced(case):
    """np.transpose(x, axes)[key]: the transpose's result sliced, each step
    dmlslice's, against NumPy's view made contiguous."""
    x, axes, key = case
    want = np.ascontiguousarray(np.transpose(x, axes)[key])
    got = ds.index(ds.transpose(x, axes), key)
    same_bits(got, want)


def test_rank0_and_defaults():
    x = np.array(7, np.int16)
    assert ds.transpose(x).shape == () and ds.transpose(x, ()) == 7
    y = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    assert np.array_equal(ds.transpose(y), y.T)
    assert np.array_equal(ds.transpose(y, axes=[-1, 0, 1]), np.transpose(y, (2, 0, 1)))
    op = ds.plan("transpose", (2, 3, 4), np.int32, (1, 2, 0))
    assert op.input_shape == (2, 3, 4) and op.output_shape == (3, 4, 2) and op.kind == "transpose"
    for _ in range(2):  # a packed input runs the operator planned once, a strided one its own
        assert np.array_equal(op(y), np.transpose(y, (1, 2, 0)))
        assert np.array_equal(op(y[:, ::-1].copy()[:, ::-1]), np.transpose(y, (1, 2, 0)))
    with pytest.raises(ds.ArgumentError):  # planned for (2, 3, 4), not its transpose
        op(np.zeros((3, 4, 2), np.int32))


@pytest.mark.parametrize("axes, fragment", [
    ((0, 1), "axes has 2 values but the input has rank 3"),
    ((0, 1, 1), "axes[2] = 1 names axis 1 a second time"),
    ((0, 3, 1), "axes[1] = 3 is outside [-3, 2] for an input of rank 3"),
    ((0, -4, 1), "axes[1] = -4 is outside [-3, 2]"),
    ((2, -1, 0), "axes[1] = -1 names axis 2 a second time"),
])
def test_perm_errors(axes, fragment):
    """R-PERM: the error names the entry and its value, one-shot and planned."""
    x = np.zeros((2, 3, 4), np.float32)
    for call in (lambda: ds.transpose(x, axes), lambda: ds.plan("transpose", x.shape, x.dtype, axes)):
        with pytest.raises(ds.Error) as e:
            call()
        assert e.value.rule == "R-PERM" and fragment in str(e.value), str(e.value)
        assert isinstance(e.value, ValueError)


def test_not_a_batch_item():
    op = ds.plan("transpose", (2, 3), np.float32)
    with pytest.raises(ds.ArgumentError):
        ds.plan_batch([op])


def test_torch_cpu():
    torch = pytest.importorskip("torch")
    x = torch.arange(2 * 3 * 4, dtype=torch.float32).reshape(2, 3, 4)[:, ::2]
    y = ds.transpose(x, (2, 0, 1))
    assert isinstance(y, torch.Tensor) and y.is_contiguous()
    assert torch.equal(y, x.permute(2, 0, 1))


needs_gpu = pytest.mark.skipif(not ds.cuda_available(),
                               reason="no CUDA GPU" if ds.cuda_built else "built without the CUDA backend")


@needs_gpu
def test_torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    x = torch.randn(8, 16, 4, 32, device="cuda", dtype=torch.float16)
    y = ds.transpose(x, (0, 2, 1, 3))
    assert isinstance(y, torch.Tensor) and y.device == x.device and y.is_contiguous()
    assert torch.equal(y, x.permute(0, 2, 1, 3).contiguous())
    op = ds.plan("transpose", tuple(x.shape), torch.float16, None)
    assert torch.equal(op(x), x.permute(3, 2, 1, 0).contiguous())


@needs_gpu
def test_cupy():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(6 * 7 * 5, dtype=cupy.int32).reshape(6, 7, 5)
    y = ds.transpose(x, (-1, 0, 1))
    assert isinstance(y, cupy.ndarray) and y.flags.c_contiguous
    assert cupy.array_equal(y, cupy.transpose(x, (2, 0, 1)))
