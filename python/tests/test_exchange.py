"""DLPack's C exchange API (__dlpack_c_exchange_api__): a producer that
offers it is read, asked for its stream and made results through its C
functions, never through __dlpack__; one that offers only a major version
other than 1 is read through __dlpack__ as before. The producer is a CPU
one made with ctypes (exchange_producer.py)."""
import numpy as np
import pytest

import dmlslice as ds
from exchange_producer import make_producer


def test_exchange_reads_and_makes_the_result():
    P = make_producer()
    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    y = ds.index(P(x), "[1:5, ::-3]")
    assert type(y) is P  # a result of the producer's kind, made by its allocator
    assert np.array_equal(y.arr, x[1:5, ::-3])
    assert P.calls["dltensor_from_py"] == 1 and P.calls["allocator"] == 1 and P.calls["to_py"] == 1
    assert P.calls["__dlpack__"] == 0 and P.calls["__dlpack_device__"] == 0
    # every managed tensor the consumer took was deleted (the result's
    # import is one), and none is left behind
    assert P.calls["deleter"] == P.calls["managed_from_py"] and not P.live


def test_exchange_operator_and_other_vocabularies():
    P = make_producer()
    x = np.arange(2 * 3 * 4, dtype=np.int16).reshape(2, 3, 4)
    op = ds.plan("slice1", x.shape, x.dtype, [0, 1, 0], [2, 2, 4], [1, 1, -2])
    assert np.array_equal(op(P(x)).arr, x[:, 1:3, ::-2])
    assert np.array_equal(ds.webnn_reverse(P(x), [2]).arr, x[:, :, ::-1])
    assert P.calls["__dlpack__"] == 0


def test_exchange_out_is_read_with_its_flags():
    P = make_producer()
    x = np.arange(16, dtype=np.float64).reshape(4, 4)
    out = P(np.zeros((2, 4)))
    r = ds.index(P(x), "[::2]", out=out)
    assert r is out and np.array_equal(out.arr, x[::2])
    assert P.calls["managed_from_py"] >= 1 and not P.live
    ro = np.zeros((2, 4))
    ro.flags.writeable = False
    with pytest.raises(ds.ArgumentError, match="read-only"):
        ds.index(P(x), "[::2]", out=P(ro))
    assert not ro.any() and not P.live


def test_exchange_without_a_dltensor_view_uses_the_managed_tensor():
    P = make_producer(with_dltensor=False)
    x = np.arange(10, dtype=np.uint8)
    assert np.array_equal(ds.index(P(x), "[7:1:-2]").arr, x[7:1:-2])
    assert P.calls["dltensor_from_py"] == 0 and P.calls["managed_from_py"] >= 1 and not P.live


def test_exchange_of_another_major_version_falls_back_to_dlpack():
    P = make_producer(major=2)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = ds.index(P(x), "[1:, ::2]")
    # read through __dlpack__; the result of a CPU producer without a usable
    # table is a NumPy array, as for any DLPack producer
    assert isinstance(y, np.ndarray) and np.array_equal(y, x[1:, ::2])
    assert P.calls["__dlpack__"] >= 1
    assert P.calls["dltensor_from_py"] == 0 and P.calls["allocator"] == 0
