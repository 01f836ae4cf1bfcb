"""Ranks at the library's limit and beyond it: empty arrays at rank 8 need
no element-splitting axis, and inputs and results of more than 8 axes are
taken as the command line takes them (axes that vanish do not count)."""
import numpy as np
import pytest

import dmlslice as ds
from strategies import same_bits


@pytest.mark.parametrize("shape, dtype", [((0,) * 8, np.complex128), ((0,) * 8, "S3"),
                                          ((2,) * 7 + (0,), np.complex128), ((2,) * 7 + (0,), "S3")])
def test_empty_rank_8_needs_no_split(shape, dtype):
    x = np.zeros(shape, dtype)
    same_bits(ds.index(x, ()), x[()])
    same_bits(ds.index(x, "[::-1]"), x[::-1])
    op = ds.plan("index", x.shape, x.dtype, "[..., ::-1]")
    same_bits(op(x), x[..., ::-1])
    same_bits(ds.onnx_slice(x, [0], [5]), x[0:5])
    same_bits(ds.webnn_reverse(x), x[(slice(None, None, -1),) * 8])


def test_nonempty_result_of_an_empty_window_at_rank_8():
    x = np.zeros((2,) * 8, np.complex128)
    same_bits(ds.index(x, "[..., 1:1]"), x[..., 1:1])


def test_rank_8_split_message_says_not_of_size_1():
    x = np.zeros((2,) * 8, np.complex128)
    with pytest.raises(ds.ArgumentError, match="axes not of size 1"):
        ds.index(x, "...")


RANK9 = [
    ((1,) * 9, "..."),
    ((2, 1, 3, 1, 2, 1, 2, 1, 2), "[1, ..., ::-1]"),
    ((2,) * 10, "[0, 1, ::-1, 0, 1, 0, :, 0, 1, 1]"),
    ((2,) * 9, "[...]"),                       # contiguous axes merge into one run
    ((3,) * 9, "[::2, 0, 1, 2, 0, 1, 2, 0, 1]"),
    ((2,) * 9, "[..., 0:0]"),                  # empty
    ((1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2), "[:, ::-1]"),
]


@pytest.mark.parametrize("shape, key", RANK9)
@pytest.mark.parametrize("dtype", [np.float32, np.complex128, "V3"])
def test_more_than_8_axes_in(shape, key, dtype):
    x = np.arange(int(np.prod(shape)) * np.dtype(dtype).itemsize, dtype=np.uint8).view(dtype).reshape(shape)
    want = eval(f"x{key}") if key.startswith("[") else x[...]
    same_bits(ds.index(x, key), want)
    op = ds.plan("index", shape, dtype, key)
    assert op.output_shape == want.shape
    same_bits(op(x), want)
    out = np.empty(want.shape, x.dtype)
    assert ds.index(x, key, out=out) is out
    same_bits(out, want)


def test_more_than_8_axes_strided_in():
    base = np.arange(4 ** 5 * 2 ** 4, dtype=np.int16).reshape((4,) * 5 + (2,) * 4)
    x = base[1:3, ::2, :, 1:, ::3]  # not contiguous, 9 axes
    for key in ("[...]", "[::-1]", "[:, 1, ..., ::-1, 0]", "[0, 0, :, 0]", "[..., None, 1]"):
        same_bits(ds.index(x, key), eval(f"x{key}"))


def test_more_than_8_axes_out():
    x = np.arange(4 * 5, dtype=np.float64).reshape(4, 5)
    key = (None,) * 5 + (slice(None, None, -1), None, None, slice(1, 4), None)
    want = x[key]
    assert want.ndim == 10
    same_bits(ds.index(x, key), want)
    same_bits(ds.plan("index", x.shape, x.dtype, key)(x), want)
    out = np.empty(want.shape, x.dtype)
    ds.index(x, key, out=out)
    same_bits(out, want)


def test_more_than_8_strided_dimensions_still_refused_saying_why():
    y = np.lib.stride_tricks.as_strided(np.zeros(4096, np.uint8), (2,) * 9, tuple(3 ** i for i in range(9)))
    with pytest.raises(ds.ArgumentError, match="strided dimensions"):
        ds.index(y, "...")


def test_more_than_8_axes_with_a_negative_stride_says_why():
    """The library's view of many axes takes strides of one sign (.npy files
    have no other): a reversed view of more than 8 axes is refused, saying
    what to pass instead."""
    x = np.arange(2 ** 9, dtype=np.uint16).reshape((2,) * 9)[:, ::-1]
    with pytest.raises(ds.ArgumentError, match="negative") as e:
        ds.index(x, "[0, ...]")
    assert "axis 1" in e.value.message
    same_bits(ds.index(np.ascontiguousarray(x), "[0, ...]"), x[0, ...])


def test_directml_forms_keep_their_rank_limit():
    x = np.zeros((1,) * 9, np.float32)
    with pytest.raises(ds.ArgumentError):
        ds.slice1(x, [0] * 9, [1] * 9, [1] * 9)
