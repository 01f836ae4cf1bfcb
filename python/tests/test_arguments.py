"""Integer arguments as NumPy's operator.index reads them (issue 35 item 7):
integer arrays as split sizes, an axis past the 64-bit integers as the
out-of-bounds error of R-SPLIT-AXIS, booleans refused wherever an integer
is taken, and every error raised for an argument form carrying the rule
its parameter is checked by."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import dmlslice as ds

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def test_split_takes_integer_arrays_as_sizes():
    """R-SPLIT-SUM: an integer array is a sequence of sizes, as a list is."""
    for sizes in (np.array([1, 3]), np.array([1, 3], np.int32), np.array([1, 3], np.uint8)):
        parts = ds.split(X, sizes, axis=2)
        assert [p.shape for p in parts] == [(2, 3, 1), (2, 3, 3)]
        assert all(np.array_equal(p, w) for p, w in zip(parts, np.split(X, [1], axis=2)))
    # A 0-d integer array is a count, as operator.index reads it.
    assert [p.shape for p in ds.split(X, np.array(2))] == [(1, 3, 4), (1, 3, 4)]
    assert [p.shape for p in ds.split(X, np.int64(3), axis=1)] == [(2, 1, 4)] * 3


@pytest.mark.parametrize("axis", [2**40, -2**40, 2**63 - 1, 2**63, -2**63 - 1, 2**100, np.int64(2**40)])
def test_split_axis_far_outside_is_out_of_bounds(axis):
    """R-SPLIT-AXIS: any integer outside [-r, r-1], 64-bit or not, is NumPy's AxisError (an IndexError)."""
    with pytest.raises(ds.OutOfBoundsError) as e:
        ds.split(X, 2, axis=axis)
    assert isinstance(e.value, IndexError) and not isinstance(e.value, ds.ArrayLibraryError)
    assert e.value.rule == "R-SPLIT-AXIS" and "R-SPLIT-AXIS" in str(e.value)
    assert e.value.status == "DMLS_ERROR_OUT_OF_BOUNDS"


@pytest.mark.parametrize("call, rule", [
    (lambda b: ds.split(X, b), "R-SPLIT-COUNT"),
    (lambda b: ds.split(X, 2, axis=b), "R-SPLIT-AXIS"),
    (lambda b: ds.split(X, [1, b], axis=0), "R-SPLIT-SUM"),
    (lambda b: ds.split(X, np.array([b, b]), axis=0), "R-SPLIT-SUM"),
    (lambda b: ds.crops(X, [[0, 0, 0]], (b,) * 3), "R-CROP-SIZE"),
    (lambda b: ds.crops(X, [[0, 0, 0]], b), "R-CROP-SIZE"),
    (lambda b: ds.crops(X, [[0, 0, 0]], np.array([b] * 3)), "R-CROP-SIZE"),
    (lambda b: ds.slice1(X, [0, 0, b], [2, 3, 4], [1, 1, 1]), "R-WIN-BOUNDS"),
    (lambda b: ds.slice1(X, [0, 0, 0], [2, 3, 4], [1, b, 1]), "R-WIN-STRIDE"),
    (lambda b: ds.slice(X, [0, 0, 0], [2, 3, b], [1, 1, 1]), "R-SLICE-SIZES"),
    (lambda b: ds.onnx_slice(X, [0], [b]), "R-ONNX-ARGS"),
    (lambda b: ds.onnx_slice(X, [0], [1], [b]), "R-ONNX-AXES"),
    (lambda b: ds.onnx_slice(X, [0], [1], [0], [b]), "R-ONNX-STEP"),
    (lambda b: ds.webnn_slice(X, [b, 0, 0], [1, 1, 1]), "R-WEBNN-BOUNDS"),
    (lambda b: ds.webnn_slice(X, [0, 0, 0], [1, b, 1]), "R-WEBNN-SIZE"),
    (lambda b: ds.webnn_reverse(X, [b]), "R-WEBNN-AXES"),
    (lambda b: ds.transpose(X, [b, 1, 2]), "R-PERM"),
])
@pytest.mark.parametrize("b", [True, False, np.True_, np.False_])
def test_booleans_are_no_integers(call, rule, b):
    """A bool where an integer is taken is a TypeError (DTypeError), as operator.index refuses np.bool_."""
    with pytest.raises(ds.DTypeError) as e:
        call(b)
    assert isinstance(e.value, TypeError) and e.value.rule == rule and rule in str(e.value)


def test_slice1_lists_of_the_wrong_length_name_the_rule():
    """R-OP-RANK: one offset, size and stride per dimension."""
    with pytest.raises(ds.ArgumentError) as e:
        ds.slice1(X, [0, 1], [2, 2, 4], [1, 1, 1])
    assert e.value.rule == "R-OP-RANK" and "got 2, 3, 3" in str(e.value)


def test_split_count_error_names_the_mode_option():
    """R-SPLIT-COUNT: 5 into 4 by ONNX's rule names the other modes and mode=, which give them."""
    with pytest.raises(ds.ArgumentError, match='mode="array_split"') as e:
        ds.split(np.arange(5), 4)
    assert e.value.rule == "R-SPLIT-COUNT"
    assert [len(p) for p in ds.split(np.arange(5), 4, mode="array_split")] == [2, 1, 1, 1]
    assert [len(p) for p in ds.split(np.arange(5), 4, mode="chunk")] == [2, 2, 1]
    with pytest.raises(ds.ArgumentError) as e:
        ds.split(np.arange(5), 4, mode="numpy")
    assert e.value.rule == "R-SPLIT-COUNT"


# The forms an integer argument is written in: ints of every size, NumPy
# scalars and arrays, booleans, floats, strings, None and nested lists.
scalars = st.one_of(
    st.integers(-2**70, 2**70), st.integers(-3, 5), st.booleans(),
    st.sampled_from([np.True_, np.int8(2), np.uint64(2**64 - 1)]),
    st.floats(allow_nan=True), st.just(None), st.text(max_size=2), st.integers(0, 4).map(np.int64))
forms = st.one_of(
    scalars, st.lists(scalars, max_size=4), st.lists(scalars, max_size=4).map(tuple),
    st.lists(st.integers(-3, 5), max_size=4).map(np.array), st.lists(scalars, max_size=3).map(lambda v: [v]))


@given(st.sampled_from(["split", "split_axis", "split_mode", "crops", "slice1", "slice", "onnx", "webnn"]),
       forms, forms)
def test_every_argument_error_carries_a_rule(fn, a, b):
    """Every error raised for an argument form is a ds.Error with a status and a rule ID of docs/spec.md."""
    calls = {
        "split": lambda: ds.split(X, a),
        "split_axis": lambda: ds.split(X, 2, axis=a),
        "split_mode": lambda: ds.split(X, a, mode="array_split"),
        "crops": lambda: ds.crops(X, [[0, 0, 0]], a),
        "slice1": lambda: ds.slice1(X, a, b, [1, 1, 1]),
        "slice": lambda: ds.slice(X, [0, 0, 0], a, b),
        "onnx": lambda: ds.onnx_slice(X, a, b),
        "webnn": lambda: ds.webnn_slice(X, a, b),
    }
    try:
        calls[fn]()
    except ds.Error as e:
        assert e.rule.startswith("R-"), (fn, a, b, e.status, str(e))
        assert e.status.startswith("DMLS_"), (fn, a, b, str(e))
