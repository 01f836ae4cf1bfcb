"""python/bench/bench.py: the layout cases (issue 34), a case with a "perm"
getting a row, checked against NumPy before it is timed, with the library's
copy of the same bytes beside it and NumPy's copyto as a peer; and the
binding's own cost (issue 36), _library_loop on each device and the
overhead rows."""
import importlib.util
import json
import os

import numpy as np
import pytest

import dmlslice as ds

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(os.path.dirname(HERE), "bench", "bench.py")


def load_bench():
    spec = importlib.util.spec_from_file_location("dmls_bench", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_perm_cases_get_rows(tmp_path):
    bench = load_bench()
    path = tmp_path / "cases.json"
    wanted = [{"name": "t2d_f32", "dtype": "float32", "input_shape": [67, 130], "perm": [1, 0]},
              {"name": "nchw_to_nhwc_f16", "dtype": "float16", "input_shape": [2, 40, 5, 7], "perm": [0, 2, 3, 1]},
              {"name": "t2d_u8", "dtype": "uint8", "input_shape": [1 << 12, 70], "perm": [1, 0]}]
    path.write_text(json.dumps(wanted))
    rows = bench.cases(str(path), 1, "cpu", 0)
    assert [r["case"] for r in rows] == [c["name"] for c in wanted]
    for r, c in zip(rows, wanted):
        assert r["out_bytes"] == np.dtype(c["dtype"]).itemsize * int(np.prod(c["input_shape"]))
        for k in ("dmlslice", "new", "copy", "numpy"):
            assert r[k + "_GBps"] > 0, (c["name"], k, r.get(k + "_error"))
        assert r["of_copy"] == r["dmlslice_GBps"] / r["copy_GBps"]


def test_perm_case_shrinks_its_first_axis():
    bench = load_bench()
    c, scaled = bench.shrink_perm({"name": "t", "dtype": "float32", "input_shape": [1024, 1024], "perm": [1, 0]}, 1)
    assert scaled and c["input_shape"] == [256, 1024]
    c, scaled = bench.shrink_perm({"name": "t", "dtype": "uint8", "input_shape": [16, 16], "perm": [1, 0]}, 1)
    assert not scaled and c["input_shape"] == [16, 16]


loop = ds._dmlslice._library_loop


@pytest.mark.parametrize("args", [("slice", 8, 8, 0), ("split", 4, 64, 16)])
def test_library_loop_cpu_times_its_calls(args):
    """The old call (no device) and device="cpu" run; the seconds returned
    are the loop's, so more calls take longer (a loop that ran nothing, or
    timed nothing, would not)."""
    assert loop(*args, 0) is not None
    few = min(loop(*args, 10, device="cpu") for _ in range(3))
    many = min(loop(*args, 20000) for _ in range(3))
    assert 0 <= few < many, (few, many)


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:999"])
def test_library_loop_on_a_missing_gpu_names_it(device):
    """Without a GPU (or without the CUDA backend in this build) a CUDA loop
    is the package's DeviceError naming the device; with one, cuda:0 runs."""
    if ds.cuda_available() and device != "cuda:999":
        assert loop("split", 4, 64, 16, 10, device) > 0
        return
    with pytest.raises(ds.DeviceError) as e:
        loop("slice", 8, 8, 0, 10, device)
    assert e.value.status == "DMLS_ERROR_NO_DEVICE" and e.value.rule == "R-PY-DEVICE"
    assert f"device '{device}'" in str(e.value)
    assert "has no cuda backend" in str(e.value) or "sees 0 devices" in str(e.value) or device == "cuda:999"


@pytest.mark.parametrize("device, exc", [("vulkan", ValueError), ("cudax", ValueError), ("cuda:x", ds.ArgumentError)])
def test_library_loop_refuses_other_devices(device, exc):
    with pytest.raises(exc) as e:
        loop("slice", 8, 8, 0, 10, device)
    assert device in str(e.value)


def test_overhead_rows_on_the_cpu():
    """The CPU rows keep their labels and targets; each difference is the
    Python figure less the C one, and the slope is over 14 extra arrays."""
    bench = load_bench()
    rows = bench.overhead(1, 1, "cpu")
    assert [r["what"] for r in rows] == [
        "one input, one output: op(x, out=y) (8x8 f32, [1:3, ::2])", "  the same, op(x): NumPy makes the result",
        "split(x, 2, out=) (4x64 f32)", "split(x, 16, out=)", "  per extra array (slope 2 -> 16, out=)",
        "  per extra array, NumPy making the parts"]
    assert [r["target_us"] for r in rows] == [3.0, None, None, None, 0.3, None]
    for r in rows[:4]:
        assert r["py_us"] > 0 and r["c_us"] > 0 and r["binding_us"] == r["py_us"] - r["c_us"]
    assert rows[4]["binding_us"] == pytest.approx((rows[3]["binding_us"] - rows[2]["binding_us"]) / 14)
    assert "(target <= 3 us: met)" in bench.fmt_overhead(dict(rows[0], binding_us=2.9))
    assert "(target <= 0.3 us: MISSED)" in bench.fmt_overhead(dict(rows[4], binding_us=0.31))


def test_cuda_overhead_without_a_gpu_is_the_device_error():
    """bench.library_seconds on CUDA reaches _library_loop's device path."""
    if ds.cuda_available():
        pytest.skip("a GPU is here: the CUDA rows run (bench.py --device cuda --tiny)")
    bench = load_bench()
    with pytest.raises(ds.DeviceError, match="device 'cuda'"):
        bench.library_seconds("slice", 8, 8, 0, calls=10, reps=1, device="cuda")
