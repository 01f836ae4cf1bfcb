"""out=: written in place and returned; any layout the library can write;
shape, dtype, device, read-only and overlap mistakes refused with nothing
written."""
import numpy as np
import pytest

import dmlslice as ds

X = np.arange(24, dtype=np.float64).reshape(4, 6)


def test_out_is_written_and_returned():
    out = np.full((2, 6), -1.0)
    r = ds.index(X, "[1:3]", out=out)
    assert r is out
    assert np.array_equal(out, X[1:3])


@pytest.mark.parametrize("make", [
    lambda: np.zeros((6, 2)).T,                 # transposed
    lambda: np.zeros((2, 12))[:, ::-2],         # negative stride
    lambda: np.zeros((4, 12))[::2, 1::2],       # strided
])
def test_out_any_layout_and_gaps_untouched(make):
    out = make()
    base = out.base
    before = base.copy()
    ds.index(X, "[::2]", out=out)
    assert np.array_equal(out, X[::2])
    # Mark out's elements in a same-layout copy of base: every other byte of
    # base must have kept its value.
    offset = out.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    flat = np.zeros(base.nbytes, np.uint8)
    np.ndarray(out.shape, np.float64, buffer=flat, offset=offset, strides=out.strides)[...] = 1.0
    untouched = flat.view(np.float64).reshape(base.shape) == 0.0
    assert untouched.sum() == base.size - out.size
    assert np.array_equal(base[untouched], before[untouched])


def test_out_with_dropped_and_inserted_axes():
    out = np.zeros((3, 1, 4))[::-1]
    r = ds.index(X[:, :4], np.s_[1:, None, ::-1], out=out)
    assert r is out
    assert np.array_equal(out, X[1:, None, 3::-1])
    out2 = np.zeros((6, 3)).T  # (3, 6), transposed
    ds.index(X, np.s_[1:, 0:6], out=out2)
    assert np.array_equal(out2, X[1:])
    out3 = np.zeros((5, 1))[::2]  # (3, 1)
    ds.index(X, np.s_[:3, 2, None], out=out3)
    assert np.array_equal(out3, X[:3, 2, None])


def test_out_mistakes_write_nothing():
    out = np.full((2, 6), -1.0)
    with pytest.raises(ds.ArgumentError) as e:
        ds.index(X, "[1:4]", out=out)
    assert e.value.status == "DMLS_ERROR_SHAPE_MISMATCH" and isinstance(e.value, ValueError)
    with pytest.raises(ds.DTypeError) as e:
        ds.index(X, "[1:3]", out=out.astype(np.float32))
    assert isinstance(e.value, TypeError)
    with pytest.raises(ds.DTypeError):
        ds.index(X, "[1:3]", out=out.astype(">f8"))  # byte order is part of the dtype
    ro = out.copy()
    ro.flags.writeable = False
    with pytest.raises(ds.ArgumentError):
        ds.index(X, "[1:3]", out=ro)
    assert (out == -1.0).all() and (ro == -1.0).all()


def test_out_overlapping_the_input_is_refused():
    x = np.arange(12.0)
    before = x.copy()
    with pytest.raises(ds.ArgumentError) as e:
        ds.index(x, "[:6]", out=x[3:9])
    assert e.value.rule == "R-X-OVERLAP"
    assert np.array_equal(x, before)


def test_out_broadcast_is_refused():
    out = np.broadcast_to(np.zeros(6), (2, 6))
    with pytest.raises(ds.ArgumentError):  # read-only, and zero strides are R-T-OUTLAYOUT
        ds.index(X, "[:2]", out=out)
    z = np.zeros(6)
    zs = np.lib.stride_tricks.as_strided(z, (2, 6), (0, 8), writeable=True)
    with pytest.raises(ds.ArgumentError) as e:
        ds.index(X, "[:2]", out=zs)
    assert e.value.rule == "R-T-OUTLAYOUT"


def test_operator_out():
    op = ds.plan("webnn_reverse", X.shape, X.dtype, [1])
    out = np.empty_like(X)
    assert op(X, out=out) is out
    assert np.array_equal(out, X[:, ::-1])
