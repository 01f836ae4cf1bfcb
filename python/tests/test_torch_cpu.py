"""DLPack round trips with PyTorch on the CPU: tensors in (contiguous or not),
tensors out, through the legacy capsule PyTorch hands out."""
import numpy as np
import pytest

import dmlslice as ds

torch = pytest.importorskip("torch")


def bits(t):
    """The tensor's bytes in row-major order, whatever its dtype."""
    t = t.contiguous()
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.view(torch.int16)
    if t.dtype == torch.bool:
        t = t.view(torch.uint8)
    return t.numpy().tobytes()


DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8,
          torch.int16, torch.int32, torch.int64, torch.bool, torch.complex64]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_contiguous_tensor_round_trip(dtype):
    g = torch.Generator().manual_seed(1)
    x = torch.randint(0, 100, (3, 4, 5), generator=g).to(dtype)
    try:
        x.__dlpack__()
    except RuntimeError as e:  # e.g. bool before PyTorch 2
        pytest.skip(f"this PyTorch cannot export {dtype} through DLPack: {e}")
    y = ds.index(x, "[1:, ::-2, None, 2]")
    assert isinstance(y, torch.Tensor) and y.dtype == dtype and y.device == x.device
    want = x.flip(1)[1:, ::2, None, 2]
    assert y.shape == want.shape
    assert bits(y) == bits(want)


def test_non_contiguous_tensor_is_read_in_place():
    base = torch.arange(6 * 8, dtype=torch.float32).reshape(6, 8)
    x = base.t()[::2]  # transposed and strided: not contiguous
    assert not x.is_contiguous()
    y = ds.index(x, "[1:3, ::-1]")
    assert torch.equal(y, x[1:3].flip(1))
    y = ds.webnn_reverse(x)
    assert torch.equal(y, x.flip(0, 1))
    assert torch.equal(ds.slice1(x, [0, 1], [4, 5], [1, -2]), x[:, 1:6].flip(1)[:, ::2])


def test_broadcast_tensor_zero_strides():
    x = torch.arange(4, dtype=torch.int64).expand(3, 4)
    assert x.stride() == (0, 1)
    assert torch.equal(ds.onnx_slice(x, [-1, 3], [0, -5], [0, 1], [-1, -1]), x.flip(0, 1)[:2])


def test_nan_payload_and_negative_zero_survive():
    raw = np.array([0x7FC00123, 0x80000000, 0xFFA00001, 0x3F800000], dtype=np.uint32).view(np.int32)
    x = torch.from_numpy(raw.copy()).view(torch.float32)
    y = ds.index(x, "[::-1]")
    assert y.view(torch.int32).numpy().tolist() == raw[::-1].tolist()


def test_out_tensor_is_written_and_returned():
    x = torch.arange(12.0).reshape(3, 4)
    out = torch.full((2, 4), -1.0)
    r = ds.index(x, "[::2]", out=out)
    assert r is out
    assert torch.equal(out, x[::2])
    holder = torch.zeros(2, 6)
    strided = holder[:, ::3]  # a non-contiguous out=
    ds.index(x, "[1:, 0:4:3]", out=strided)
    assert torch.equal(strided, x[1:, 0:4:3])
    assert torch.count_nonzero(holder[:, 1::3]) == 0  # the gaps keep their bytes


def test_operator_on_tensors_and_numpy_alike():
    op = ds.plan("slice1", (4, 6), torch.float32, [1, 0], [3, 6], [1, -3])
    x = torch.arange(24.0).reshape(4, 6)
    assert op.output_shape == (3, 2)
    assert torch.equal(op(x), x[1:4].flip(1)[:, ::3])
    n = x.numpy()
    assert np.array_equal(op(n), n[1:4, ::-1][:, ::3])
    with pytest.raises(ds.DTypeError):
        op(x.double())
    with pytest.raises(ds.ArgumentError):
        op(x[:3])


def test_numpy_result_into_torch_and_back():
    x = np.arange(10, dtype=np.int32)
    t = torch.from_dlpack(ds.index(x, "[::-1]"))
    assert t.tolist() == list(range(9, -1, -1))


# Plain tensors are read through their own attributes (data_ptr, shape,
# stride), others through DLPack: both must read the same elements.

def test_tensor_with_storage_offset():
    base = torch.arange(10 * 12, dtype=torch.float32).reshape(10, 12)
    x = base[3:, 2:][:, ::3]  # starts 38 elements into its storage, not contiguous
    assert x.storage_offset() == 38 and not x.is_contiguous()
    assert torch.equal(ds.index(x, "[::-2, 1:]"), x.flip(0)[::2, 1:])
    out = torch.full((10, 12), -1.0)[5:, 1:][:, :3]  # an out= with an offset of its own
    ds.index(x, "[2:7, 1:]", out=out)
    assert torch.equal(out, x[2:7, 1:])
    assert torch.equal(ds.slice1(x, [1, 0], [4, 4], [1, -1]), x[1:5].flip(1))


def test_tensor_ways_in_agree():
    """A subclass (here a Parameter) and the plain tensor of the same memory
    read the same elements."""
    x = torch.arange(5 * 6, dtype=torch.int16).reshape(5, 6).t()[1:, ::2]
    p = torch.nn.Parameter(x, requires_grad=False)
    assert type(p) is not torch.Tensor
    assert bits(ds.index(p, "[::-1, 1:]")) == bits(ds.index(x, "[::-1, 1:]")) == bits(x.flip(0)[:, 1:])


def test_tensor_negative_bit_is_refused():
    z = torch.complex(torch.arange(4.0), torch.arange(4.0) + 10)
    w = z.conj().imag  # values -10..-13, memory 10..13
    if not w.is_neg():
        pytest.skip("this PyTorch resolves the negation at once")
    with pytest.raises(ds.ArgumentError, match="negative bit"):
        ds.index(w, "[::-1]")
    assert torch.equal(ds.index(w.resolve_neg(), "[::-1]"), w.flip(0))


def test_tensor_needing_grad_is_read_as_torch_indexing_reads_it():
    """torch's own x[...] reads a tensor that requires grad; so does the
    package, and the result (a new tensor) carries no autograd graph."""
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    y = ds.index(x, "[::-1, 1:]")
    assert isinstance(y, torch.Tensor) and not y.requires_grad and y.grad_fn is None
    assert torch.equal(y, x.detach().flip(0)[:, 1:])
    assert torch.equal(ds.plan("index", (2, 3), torch.float32, "[:, ::2]")(x), x.detach()[:, ::2])


def test_bool_tensors_are_read_by_their_attributes():
    """Debian's torch 1.13 refuses bool tensors through DLPack: plain
    tensors never go that way."""
    x = torch.tensor([[True, False, True], [False, False, True]])
    y = ds.index(x, "[::-1, 1:]")
    assert y.dtype == torch.bool and torch.equal(y, x.flip(0)[:, 1:])
    out = torch.zeros(3, dtype=torch.bool)
    assert ds.index(x, "[1]", out=out) is out and torch.equal(out, x[1])


def test_conjugate_bit_is_refused_saying_why():
    """Like the negative bit: the memory holds the values before
    conjugation, which a copy of bits cannot apply."""
    z = torch.complex(torch.arange(4.0), torch.arange(4.0) + 10)
    c = z.conj()
    if not c.is_conj():
        pytest.skip("this PyTorch resolves the conjugation at once")
    with pytest.raises(ds.ArgumentError, match="conjugate bit.*resolve_conj"):
        ds.index(c, "[::-1]")
    assert torch.equal(ds.index(c.resolve_conj(), "[::-1]"), c.resolve_conj().flip(0))


def test_tensor_subclass_comes_back_as_its_kind():
    class Tagged(torch.Tensor):
        pass
    x = torch.arange(12.0).reshape(3, 4).as_subclass(Tagged)
    y = ds.index(x, "[1:, ::-1]")
    assert type(y) is Tagged
    assert torch.equal(y.as_subclass(torch.Tensor), x.as_subclass(torch.Tensor)[1:].flip(1))
    p = torch.nn.Parameter(torch.ones(3, 2))
    assert type(ds.index(p, "[1:]")) is torch.Tensor  # a Parameter's slice is a plain tensor, as in torch


def test_rank0_and_empty_tensors():
    x = torch.tensor(2.5)
    y = ds.index(x, "[None]")
    assert isinstance(y, torch.Tensor) and y.shape == (1,) and y.item() == 2.5
    e = torch.empty(0, 3)
    assert ds.index(e, "[:, ::-1]").shape == (0, 3)
