"""A DirectML window (DML_SLICE1's offsets, sizes and strides) as the NumPy
key that views the same elements in the same order: the one home of this
translation, for the NumPy peers (bench/numpy_peers.py, python/bench/bench.py)
and the property tests' oracle (python/tests/test_properties.py)."""


def window_key(offs, sizes, strides):
    key = []
    for o, s, t in zip(offs, sizes, strides):
        n = 1 + (s - 1) // abs(t)  # the elements the axis keeps
        if t > 0:
            key.append(slice(o, o + t * (n - 1) + 1, t))
        else:  # backwards from the window's last element; a stop before index 0 is None
            start = o + s - 1
            stop = start + t * (n - 1) - 1
            key.append(slice(start, None if stop < 0 else stop, t))
    return tuple(key)
