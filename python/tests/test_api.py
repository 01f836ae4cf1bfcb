"""The signatures python/README.md documents: every parameter by position or
by keyword, and argument mistakes raised as the package's errors."""

import numpy as np
import pytest

import dmlslice as ds
from strategies import same_bits

X = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("fn, pos, kw", [
    (ds.index, ("[1, ::-1]",), {"key": "[1, ::-1]"}),
    (ds.slice1, ([0, 1, 0], [2, 2, 4], [1, 1, -2]), {"offsets": [0, 1, 0], "sizes": [2, 2, 4], "strides": [1, 1, -2]}),
    (ds.slice, ([0, 1, 0], [2, 2, 2], [1, 1, 2]), {"offsets": [0, 1, 0], "sizes": [2, 2, 2], "strides": [1, 1, 2]}),
    (ds.onnx_slice, ([-1], [0], [2], [-1]), {"starts": [-1], "ends": [0], "axes": [2], "steps": [-1]}),
    (ds.onnx_slice, ([0], [1]), {"starts": [0], "ends": [1]}),
    (ds.onnx_slice, ([0], [1], None, [1]), {"starts": [0], "ends": [1], "steps": [1]}),
    (ds.webnn_slice, ([0, 1, 0], [2, 2, 4], [1, 1, 2]), {"starts": [0, 1, 0], "sizes": [2, 2, 4], "strides": [1, 1, 2]}),
    (ds.webnn_slice, ([0, 1, 0], [2, 2, 4]), {"starts": [0, 1, 0], "sizes": [2, 2, 4]}),
    (ds.webnn_reverse, ([0],), {"axes": [0]}),
    (ds.webnn_reverse, (), {}),
])
def test_keywords_work_like_positions(fn, pos, kw):
    want = fn(X, *pos)
    same_bits(fn(X, **kw), want)
    same_bits(fn(x=X, **kw), want)
    names = list(kw)
    if names:  # the first positionally, the rest by name
        same_bits(fn(X, pos[0], **{k: kw[k] for k in names[1:]}), want)


def test_slice_grad_keywords():
    g = np.ones((2, 2), np.float32)
    want = ds.slice_grad(g, (3, 4), [0, 1], [2, 2], [1, 1])
    same_bits(ds.slice_grad(grad=g, input_shape=(3, 4), offsets=[0, 1], sizes=[2, 2], strides=[1, 1]), want)


def test_operator_and_plan_keywords():
    op = ds.plan("index", X.shape, X.dtype, "[::-1]")
    same_bits(op(x=X), X[::-1])
    op = ds.plan(kind="webnn_reverse", shape=X.shape, dtype=X.dtype)
    same_bits(op(X), X[::-1, ::-1, ::-1])
    same_bits(ds.plan("slice1", X.shape, X.dtype, [0, 0, 0], [2, 3, 4], [1, 1, 1], feature_level="3_0")(X), X)


@pytest.mark.parametrize("call", [
    lambda: ds.index(X),
    lambda: ds.index(),
    lambda: ds.index(X, "[0]", "[1]"),
    lambda: ds.index(X, "[0]", bogus=1),
    lambda: ds.index(X, "[0]", key="[1]"),
    lambda: ds.slice1(X, [0], [1]),
    lambda: ds.onnx_slice(X, [0], [1], [0], [1], [2]),
    lambda: ds.webnn_reverse(X, axes=[0], out=None, feature_level="6_4"),
    lambda: ds.plan("index", (2,), "f4"),
    lambda: ds.plan("index", (2,), "f4", "[0]", "[1]"),
    lambda: ds.plan("index", 7, "f4", "[0]"),
    lambda: ds.check_dml("SLICE1"),
    lambda: ds.set_num_threads("two"),
    lambda: ds.plan("index", (2,), "f4", "[0]")(),
    lambda: ds.plan("index", (2,), "f4", "[0]")(X, out=None, extra=1),
    lambda: ds.plan("index", (2,), "f4", "[0]")(X, extra=1),
    lambda: ds.plan("index", (2,), "f4", "[0]")(X, x=X),
    lambda: ds.plan("index", (2,), "f4", "[0]")(out=None),
    lambda: ds.plan("index", (2,), "f4", "[0]")(X, X),
])
def test_argument_mistakes_are_type_errors_of_the_package(call):
    with pytest.raises(ds.Error) as e:
        call()
    assert isinstance(e.value, TypeError), (type(e.value).__mro__, e.value)
