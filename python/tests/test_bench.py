"""python/bench/bench.py's layout cases (issue 34): a case with a "perm" gets
a row, checked against NumPy before it is timed, with the library's copy of
the same bytes beside it and NumPy's copyto as a peer."""
import importlib.util
import json
import os

import numpy as np

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
