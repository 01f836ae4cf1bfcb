"""Errors: the package's classes, the status names and rule IDs of
docs/spec.md, the library's messages, and the built-in classes a NumPy user
catches."""
import numpy as np
import pytest

import dmlslice as ds

X = np.zeros((3, 4), np.float32)


def raises(cls, status, rule, fn, *args, **kw):
    with pytest.raises(cls) as e:
        fn(*args, **kw)
    err = e.value
    assert isinstance(err, ds.Error)
    assert err.status == status, (err.status, str(err))
    assert err.rule == rule, (err.rule, str(err))
    assert str(err) == err.message
    if rule:
        assert f"({rule})" in err.message  # the library's message names it too
    return err


@pytest.mark.parametrize("fn, args, cls, status, rule", [
    (ds.slice1, ([0, 3], [1, 2], [1, 1]), ds.OutOfBoundsError, "DMLS_ERROR_OUT_OF_BOUNDS", "R-WIN-BOUNDS"),
    (ds.slice1, ([0, 0], [2, 2], [1, 0]), ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-WIN-STRIDE"),
    (ds.slice1, ([0, 0], [2, 0], [1, 1]), ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-WIN-NONEMPTY"),
    (ds.slice, ([0, 0], [2, 2], [1, 0]), ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-SLICE-STRIDE"),
    (ds.slice, ([0, 0], [2, 3], [1, 2]), ds.OutOfBoundsError, "DMLS_ERROR_OUT_OF_BOUNDS", "R-SLICE-BOUNDS"),
])
def test_directml_rules(fn, args, cls, status, rule):
    raises(cls, status, rule, fn, X, *args)


def test_out_of_bounds_is_both_value_and_index_error():
    err = raises(ds.OutOfBoundsError, "DMLS_ERROR_OUT_OF_BOUNDS", "R-WIN-BOUNDS", ds.slice1, X, [2, 0], [2, 4], [1, 1])
    assert isinstance(err, ValueError) and isinstance(err, IndexError)
    assert "InputWindowOffsets[0] + InputWindowSizes[0]" in err.message


def test_slice_grad_rules_name_the_gradient():
    g = np.zeros((2, 2), np.float32)
    raises(ds.OutOfBoundsError, "DMLS_ERROR_OUT_OF_BOUNDS", "R-WIN-BOUNDS", ds.slice_grad, g, (3, 4), [2, 0], [2, 2], [1, 1])
    raises(ds.ArgumentError, "DMLS_ERROR_SHAPE_MISMATCH", "R-PY-SHAPE", ds.slice_grad, g, (3, 4), [0, 0], [3, 2], [1, 1])


def test_rank_zero_is_not_directml():
    raises(ds.ArgumentError, "DMLS_ERROR_UNSUPPORTED", "R-OP-RANK", ds.slice1, np.float32(1).reshape(()), [], [], [])


def test_feature_levels():
    x4 = np.zeros((2, 2, 2, 2), np.int64)
    raises(ds.ArgumentError, "DMLS_ERROR_UNSUPPORTED", "R-OP-TYPE", ds.slice, x4, [0] * 4, [1] * 4, [1] * 4,
           feature_level="1_0")
    raises(ds.ArgumentError, "DMLS_ERROR_UNSUPPORTED", "R-OP-RANK", ds.slice, X, [0, 0], [1, 1], [1, 1],
           feature_level="1_0")
    assert ds.slice(x4, [0] * 4, [1] * 4, [1] * 4, feature_level="5_0").shape == (1, 1, 1, 1)
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-LEVEL", ds.slice1, X, [0, 0], [1, 1], [1, 1],
           feature_level="9_9")
    # The library's parser: its three forms, nothing around them.
    for text in ("5.0", "0x5000", "0X5000"):
        assert ds.slice(x4, [0] * 4, [1] * 4, [1] * 4, feature_level=text).shape == (1, 1, 1, 1)
    for text in (" 6_4", "6_4 ", "6_4\x00", "0x", "", "6" * 1000):
        raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-LEVEL", ds.slice1, X, [0, 0], [1, 1], [1, 1],
               feature_level=text)
    # An unknown level, by name or by value, is answered with the library's list (src/dml/levels.c), the
    # binding keeping none of its own. The list is written out here independently of the library's.
    listed = "1_0, 2_0, 2_1, 3_0, 3_1, 4_0, 4_1, 5_0, 5_1, 5_2, 6_0, 6_1, 6_2, 6_3, 6_4"
    for level in ("9_9", 0x9900):
        e = raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-LEVEL", ds.slice1, X, [0, 0], [1, 1],
                   [1, 1], feature_level=level)
        assert listed in str(e), str(e)


def test_check_dml_without_data():
    assert ds.check_dml("SLICE1", [2, 3, 4], [2, 2, 2], [0, 1, 0], [2, 2, 4], [1, 1, -2]) == (2, 2, 2)
    assert ds.check_dml("SLICE_GRAD", [1, 2], [3, 4], [1, 0], [1, 4], [1, 2]) == (3, 4)
    assert ds.check_dml("SLICE", [1, 1, 4, 4], [1, 1, 2, 2], [0, 0, 0, 0], [1, 1, 2, 2], [1, 1, 2, 2], dtype=np.float16,
                        feature_level=0x1000) == (1, 1, 2, 2)
    raises(ds.ArgumentError, "DMLS_ERROR_UNSUPPORTED", "R-OP-TYPE", ds.check_dml, "SLICE",
           [2, 2, 2, 2], [1, 1, 1, 1], [0] * 4, [1] * 4, [1] * 4, dtype="float64", feature_level="2_0")
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-T-TOTAL", ds.check_dml, "SLICE1",
           [2, 2, 2, 2], [1, 1, 1, 1], [0] * 4, [1] * 4, [1] * 4, input_total_bytes=8)
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-T-ALIGN", ds.check_dml, "SLICE1",
           [2, 4], [2, 2], [0, 0], [2, 4], [1, -2], alignment=3)
    raises(ds.OutOfBoundsError, "DMLS_ERROR_OUT_OF_BOUNDS", "R-WIN-BOUNDS", ds.check_dml, "SLICE1",
           [2, 4], [2, 2], [0, 1], [2, 4], [1, 2])
    # Values past their 32-bit DirectML fields are refused by the library, never truncated.
    e = raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-DML-FIELD", ds.check_dml, "SLICE1",
               [2, 4], [2, 2], [0, 0], [2, 4], [1, 2**31])
    assert "InputWindowStrides[1] = 2147483648 does not fit" in str(e)
    e = raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-DML-FIELD", ds.check_dml, "SLICE1",
               [2, 4], [2, 2], [0, 0], [2, 4], [1, 2], alignment=2**32)
    assert "GuaranteedBaseOffsetAlignment = 4294967296 does not fit" in str(e)
    raises(ds.ArgumentError, "DMLS_ERROR_OVERFLOW", "R-T-ELEMS", ds.check_dml, "SLICE1",
           [2, 2**32], [2, 2], [0, 0], [2, 4], [1, 2])
    # An operator other than the three carries no rule, as the library's create_dml does (R-OP-TYPE
    # is about data types).
    e = raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", None, ds.check_dml, "CONV",
               [2], [2], [0], [2], [1])
    assert "'CONV' is not SLICE, SLICE1 or SLICE_GRAD" in str(e)
    # Strided descriptors, as DirectML takes them.
    assert ds.check_dml("SLICE1", [2, 3], [2, 1], [0, 1], [2, 1], [1, 1], input_strides=[4, 1]) == (2, 1)


def test_numpy_index_mistakes_raise_what_numpy_raises():
    err = raises(ds.OutOfBoundsError, "DMLS_ERROR_OUT_OF_BOUNDS", "R-NP-BOUNDS", ds.index, X, 3)
    assert isinstance(err, IndexError)
    with pytest.raises(IndexError):
        X[3]
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-NP-STEP", ds.index, X, np.s_[::0])
    raises(ds.ArgumentError, "DMLS_ERROR_FORMAT", "R-NP-SYNTAX", ds.index, X, "[1:2")
    for key in ([1, 2], np.array([0, 1]), 1.5, "x", (0, [1])):  # (booleans: test_keys.py)
        err = raises(ds.IndexTypeError, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-KEY", ds.index, X,
                     key if not isinstance(key, str) else (key,))
        assert isinstance(err, IndexError) and isinstance(err, TypeError)
    raises(ds.IndexTypeError, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-KEY", ds.index, X, np.s_[1.5:])


def test_front_end_errors():
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-ONNX-AXES", ds.onnx_slice, X, [0, 0], [1, 1], [0, 0])
    # The package's own argument checks name the front end's rule of the parameter.
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-ONNX-ARGS", ds.onnx_slice, X, [0, 0], [1])
    raises(ds.OutOfBoundsError, "DMLS_ERROR_OUT_OF_BOUNDS", "R-WEBNN-BOUNDS", ds.webnn_slice, X, [3, 0], [1, 1])
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-WEBNN-BOUNDS", ds.webnn_slice, X, [-1, 0], [1, 1])
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-WEBNN-SIZE", ds.webnn_slice, X, [0, 0], [1, -1])
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-ONNX-STEP", ds.onnx_slice, X, [0], [1], None, [2 ** 64])
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-WEBNN-SIZE", ds.webnn_slice, X, [0, 0], [1, 2], [2, 1])
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-WEBNN-AXES", ds.webnn_reverse, X, [0, 0])
    raises(ds.ArgumentError, "DMLS_ERROR_SHAPE_MISMATCH", "R-OP-RANK", ds.slice1, X, [0], [1], [1])


def test_arrays_it_cannot_take():
    raises(ds.DTypeError, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY", ds.index, np.array([None, 1]), "...")
    raises(ds.DTypeError, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY", ds.index, [1, 2], "...")
    assert ds.index(np.zeros((1,) * 9), "...").shape == (1,) * 9  # more axes: test_ranks.py
    with pytest.raises(TypeError):
        ds.index(X, "[0]", bogus=1)
    with pytest.raises(ds.DTypeError):
        ds.plan("index", (2,), object, "[0]")


def test_cuda_array_without_cuda_says_so():
    from test_capsules import Producer
    p = Producer(np.arange(4, dtype=np.float32), device=(2, 0))
    if ds.cuda_available():
        pytest.skip("a GPU is present")
    with pytest.raises(ds.DeviceError) as e:
        ds.index(p, "[::-1]")
    assert e.value.status == "DMLS_ERROR_NO_DEVICE"
    assert e.value.rule == "R-PY-DEVICE", str(e.value)
    # The library's device interface answers, naming the device it was asked for.
    assert "device 'cuda:0'" in e.value.message, e.value.message
    if not ds.cuda_built:
        assert "this build has no cuda backend" in e.value.message


def test_settings_errors():
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-THREADS", ds.set_num_threads, -1)
    raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-KIND", ds.plan, "cut", (2,), "f4")


def test_a_result_too_large_for_memory_is_a_package_memory_error():
    x = np.broadcast_to(np.zeros(1, np.uint8), (1 << 40, 1 << 20))
    with pytest.raises(ds.OutOfMemoryError) as e:
        ds.index(x, "[:]")
    assert isinstance(e.value, MemoryError)
    assert "1099511627776" in e.value.message or "EiB" in e.value.message


def test_errors_from_the_array_library_are_package_errors():
    class Refuses:
        def __dlpack_device__(self):
            return (1, 0)

        def __dlpack__(self, *args, **kw):
            raise RuntimeError("cannot export")

    with pytest.raises(ds.Error) as e:
        ds.index(Refuses(), "[::-1]")
    assert isinstance(e.value, RuntimeError) and "cannot export" in e.value.message
    assert isinstance(e.value.__cause__, RuntimeError)


def test_more_axes_than_numpy_allows_are_refused():
    import ctypes
    from test_capsules import Producer

    class Wide(Producer):  # 65 axes of 1, more than any NumPy makes
        def _tensor(self):
            t = super()._tensor()
            shape = (ctypes.c_int64 * 65)(*([1] * 65))
            self._keep.append(shape)
            t.ndim, t.shape, t.strides = 65, shape, None
            return t

    err = raises(ds.ArgumentError, "DMLS_ERROR_INVALID_ARGUMENT", "R-V-RANK", ds.index, Wide(np.zeros(1, np.float32)),
                 "...")
    assert "rank 65" in err.message and "[0, 64]" in err.message


def _read_only():
    out = np.zeros((1, 1), np.float32)
    out.flags.writeable = False
    return out


def _documented_rules():
    """The rule IDs of docs/spec.md and the package's own (python/README.md)."""
    import pathlib
    import re
    root = pathlib.Path(__file__).resolve().parents[2]
    text = (root / "docs" / "spec.md").read_text() + (root / "python" / "README.md").read_text()
    return set(re.findall(r"\*\*(R-[A-Z]+(?:-[A-Z]+)*)\*\*", text))


@pytest.mark.parametrize("call, cls, rule", [
    (lambda: ds.slice1(object(), [0], [1], [1]), ds.DTypeError, "R-PY-ARRAY"),
    (lambda: ds.slice1(np.array([None, 1], dtype=object), [0], [1], [1]), ds.DTypeError, "R-PY-ARRAY"),
    (lambda: ds.slice1(X, [0, 0], [1, 1], [1, 1], out=_read_only()), ds.ArgumentError, "R-PY-OUT"),
    (lambda: ds.slice1(X, [0, 0], [1, 1], [1, 1], out=np.zeros((1, 1), np.float64)), ds.DTypeError, "R-PY-OUT"),
    (lambda: ds.slice1(X, [0, 0], [1, 1], [1, 1], out=np.zeros((2, 1), np.float32)), ds.ArgumentError, "R-PY-OUT"),
    (lambda: ds.split(X, 2, out=[np.zeros((2, 4), np.float32)]), ds.ArgumentError, "R-PY-OUT"),
    (lambda: ds.index(X, (1.5,)), ds.IndexTypeError, "R-PY-KEY"),
    (lambda: ds.index(X, "0\x00"), ds.ArgumentError, "R-PY-KEY"),
    (lambda: ds.plan("nope", (3, 4), np.float32), ds.ArgumentError, "R-PY-KIND"),
    (lambda: ds.slice1(X, [0, 0], [1, 1], [1, 1], feature_level="9_9"), ds.ArgumentError, "R-PY-LEVEL"),
    (lambda: ds.set_num_threads(5000), ds.ArgumentError, "R-PY-THREADS"),
    (lambda: ds.plan("slice1", (3, 4), np.float32, [0, 0], [1, 1], [1, 1])(np.zeros((2, 2), np.float32)),
     ds.ArgumentError, "R-PY-SHAPE"),
    # 3-byte items copied as 3 bytes along a ninth axis: one more than the library takes.
    (lambda: ds.slice1(np.zeros((2,) * 8, "V3"), [0] * 8, [2] * 8, [1] * 8), ds.ArgumentError, "R-PY-LAYOUT"),
])
def test_errors_of_python_only_arguments_carry_a_documented_rule(call, cls, rule):
    """Issue 35 item 7: no error the package raises has an empty .rule; what only Python checks has the
    package's own rule of python/README.md, named in the message as the library names its rules."""
    with pytest.raises(cls) as e:
        call()
    assert e.value.rule == rule, (e.value.rule, str(e.value))
    assert f"({rule})" in str(e.value)
    assert rule in _documented_rules()


def test_every_refused_slice_names_its_rule():
    """Random, mostly wrong, parameters through every front end: each refusal
    carries a rule ID, documented, also named in the message (issue: 142 of
    27,899 property cases raised with an empty rule)."""
    hyp = pytest.importorskip("hypothesis")
    st = hyp.strategies
    documented = set(_documented_rules())
    ints = st.integers(-6, 6)
    lists = st.lists(ints, min_size=0, max_size=4)
    text = st.text(alphabet="0123456789:-,.[]() Nonex", max_size=12)
    calls = st.one_of(
        st.tuples(st.just(ds.index), st.tuples(text)),
        st.tuples(st.just(ds.onnx_slice), st.tuples(lists, lists, lists)),
        st.tuples(st.just(ds.onnx_slice), st.tuples(lists, lists, lists, lists)),
        st.tuples(st.just(ds.webnn_slice), st.tuples(lists, lists)),
        st.tuples(st.just(ds.webnn_slice), st.tuples(lists, lists, lists)),
        st.tuples(st.just(ds.webnn_reverse), st.tuples(lists)),
        st.tuples(st.just(ds.slice1), st.tuples(lists, lists, lists)),
        st.tuples(st.just(ds.slice), st.tuples(lists, lists, lists)),
        st.tuples(st.just(ds.transpose), st.tuples(lists)))

    @hyp.settings(max_examples=600, deadline=None, derandomize=True)
    @hyp.given(calls)
    def check(call):
        fn, args = call
        try:
            fn(X, *args)
        except ds.Error as err:
            assert err.rule, (fn.__name__, args, str(err))
            assert err.rule in documented, (err.rule, str(err))
            assert f"({err.rule})" in err.message, str(err)

    check()


def test_not_an_array_names_its_type():
    e = raises(ds.DTypeError, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY", ds.index, object(), "[0]")
    assert "expected an array (the buffer protocol or __dlpack__), got object" in e.message

    class BadDevice:
        def __dlpack__(self, **kw):
            raise AssertionError("not reached: the device is asked first")

        def __dlpack_device__(self):
            return "cpu"  # not (device_type, device_id)

    e = raises(ds.DTypeError, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY", ds.index, BadDevice(), "[0]")
    assert "BadDevice did not return (device_type, device_id)" in e.message, e.message
