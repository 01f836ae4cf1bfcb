"""NumPy keys read as NumPy reads them: boolean scalars, the exception
classes NumPy raises for a bad key, and key strings that are not text."""
import numpy as np
import pytest

import dmlslice as ds
from strategies import same_bits

X = np.arange(3 * 4 * 5, dtype=np.int32).reshape(3, 4, 5)

# A boolean scalar is an advanced index: it adds an axis of length 1 (True)
# or 0 (False), where NumPy puts the broadcast advanced axes (with the
# integers of the key, at the first of them when they are adjacent, else
# first of all).
BOOL_KEYS = [
    np.True_, np.False_, True, False, (True, True), (True, False), (np.False_, np.True_),
    (0, True), (0, slice(None), True), (slice(None), 0, True), (True, slice(None), 0),
    (None, True), (0, None, True), (Ellipsis, True), (True, Ellipsis, 0), (0, Ellipsis, True),
    (slice(None), True, None, 1), (slice(1, None, -1), np.True_, -1, slice(None, None, 2)),
    (False, 2, 3, 4), (Ellipsis, np.False_, None),
]


@pytest.mark.parametrize("key", BOOL_KEYS, ids=repr)
def test_boolean_scalars_index_like_numpy(key):
    want = X[key]
    same_bits(ds.index(X, key), want)
    same_bits(ds.plan("index", X.shape, X.dtype, key)(X), want)
    same_bits(ds.index(X, key), want)  # again, from wherever it was kept


def test_boolean_scalar_of_the_issue():
    x = np.arange(3)
    assert ds.index(x, np.True_).shape == (1, 3)
    assert ds.index(x, np.False_).shape == (0, 3)


def test_boolean_scalar_with_a_bad_integer_is_an_index_error():
    with pytest.raises(IndexError):
        X[True, 7]
    with pytest.raises(ds.Error) as e:
        ds.index(X, (True, 7))
    assert isinstance(e.value, IndexError)


@pytest.mark.parametrize("key", ["[..., ...]", (Ellipsis, Ellipsis), "[0, 0, 0, 0]", (0, 0, 0, 0),
                                 "[3]", (3,), 3, (0, -5)])
def test_numpy_index_errors_are_index_errors(key):
    with pytest.raises(IndexError):
        X[key if not isinstance(key, str) else 0, 0, 0, 0]
    with pytest.raises(ds.Error) as e:
        ds.index(X, key)
    assert isinstance(e.value, IndexError), type(e.value).__mro__


@pytest.mark.parametrize("key", [np.s_[1.5:], np.s_[:"a"]])
def test_numpy_type_errors_are_type_errors(key):
    with pytest.raises(TypeError):
        X[key]
    with pytest.raises(ds.Error) as e:
        ds.index(X, key)
    assert isinstance(e.value, TypeError)


@pytest.mark.parametrize("key", ["\x00", "[1]\x00", "[::-1\x00]", "\x00[0]"])
def test_nul_in_a_key_string_is_refused(key):
    with pytest.raises(ds.ArgumentError, match="NUL"):
        ds.index(X, key)
    with pytest.raises(ds.ArgumentError, match="NUL"):
        ds.plan("index", X.shape, X.dtype, key)


def test_surrogates_in_a_key_string_are_a_package_error():
    with pytest.raises(ds.Error):
        ds.index(X, "[\udc80]")


def test_one_key_object_over_arrays_of_other_shapes_and_items():
    """Keys are remembered by identity (strings) or binary form (tuples):
    the plan must still follow each array's shape and item size."""
    key_s, key_t = "[1:, ::-1]", np.s_[1:, ::-1]
    arrays = [np.arange(12, dtype=np.int32).reshape(3, 4), np.arange(12, dtype=np.int16).reshape(3, 4),
              np.arange(20, dtype=np.int32).reshape(4, 5), np.arange(12, dtype=np.int64).reshape(2, 6),
              np.zeros((2, 3), "V3"),
              np.arange(24, dtype=np.int8).reshape(2, 3, 4)]
    for _ in range(3):
        for x in arrays:
            same_bits(ds.index(x, key_s), x[1:, ::-1])
            same_bits(ds.index(x, key_t), x[1:, ::-1])


class _Movable:
    """An index whose value changes: a key holding it may index differently
    from one call to the next, so no cache may keep it by identity."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def test_a_reused_index_tuple_follows_what_it_holds():
    x = np.arange(10, dtype=np.int32)
    mover = _Movable(1)
    key = (slice(mover, None, 2),)
    plain = (slice(1, None, 2),)
    for start in (1, 2, 3, 0):
        mover.v = start
        for _ in range(3):  # the same tuple again and again, as a loop would pass it
            same_bits(ds.index(x, key), x[start::2])
        for _ in range(3):
            same_bits(ds.index(x, plain), x[1::2])
    key2 = (mover, Ellipsis)
    for v in (4, 6, 5):
        mover.v = v
        for _ in range(3):
            same_bits(ds.index(x, key2), x[v, ...])


def test_the_key_table_keeps_many_keys_apart():
    """More keys than the table has slots, over two shapes, twice: each call
    gets its own key's plan, whichever entries were replaced meanwhile."""
    xs = [np.arange(40, dtype=np.int16).reshape(5, 8), np.arange(48, dtype=np.int16).reshape(6, 8)]
    keys = [f"[{a}:, {b}::{c}]" for a in range(4) for b in range(8) for c in (1, 2, 3, -1, -2)]
    keys += [np.s_[a:, b::c] for a in range(3) for b in range(8) for c in (1, 2, -3)]
    for _ in range(2):
        for k in keys:
            for x in xs:
                same_bits(ds.index(x, k), x[eval("np.s_" + k) if isinstance(k, str) else k])
