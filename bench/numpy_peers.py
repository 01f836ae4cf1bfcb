"""NumPy on the canonical cases, timed as /work/shared/bench/peers.py times its
CPU peers (median of 5 after 3 warm-ups; GB/s = 2 x output bytes / time),
for machines whose python3 has NumPy but not PyTorch or ONNX Runtime.

Usage: python3 bench/numpy_peers.py [cases.json] [out.json]
"""
import json, os, statistics, sys, time
import numpy as np

from numpy_window import window_key  # beside this file

here = os.path.dirname(os.path.abspath(__file__))
cases = json.load(open(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "cases.json")))

def median_ms(fn, reps=5):
    for _ in range(3): fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); fn(); ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)

rng = np.random.default_rng(0)
rows = []
for c in cases:
    dt, shape = c["dtype"], c["input_shape"]
    x = (rng.standard_normal(shape, dtype=np.float32).astype(dt) if dt.startswith("float")
         else rng.integers(0, 100, shape).astype(dt))
    if "perm" in c:  # the stored array viewed through perm; no window lists: all of it
        x = x.transpose(c["perm"])
    offs = c.get("window_offsets", [0] * x.ndim)
    sizes, strides = c.get("window_sizes", list(x.shape)), c.get("window_strides", [1] * x.ndim)
    out_bytes = int(np.prod(c.get("output_sizes", x.shape))) * x.itemsize
    src = np.empty(out_bytes, np.uint8); src[:] = 1; dst = np.empty_like(src)
    row = {"case": c["name"], "out_bytes": out_bytes,
           "memcpy1_ms": median_ms(lambda: np.copyto(dst, src)),
           "numpy_ms": median_ms(lambda: np.ascontiguousarray(x[window_key(offs, sizes, strides)]))}
    for k in ("memcpy1", "numpy"):
        row[k + "_GBps"] = 2 * out_bytes / row[k + "_ms"] / 1e6
    rows.append(row)
    print(f"{c['name']:14s} out {out_bytes / 2**20:8.1f} MiB  memcpy1 {row['memcpy1_GBps']:6.1f}  numpy {row['numpy_GBps']:6.1f} GB/s", flush=True)
    del x
if len(sys.argv) > 2:
    json.dump({"numpy": np.__version__, "cpu_rows": rows}, open(sys.argv[2], "w"), indent=1)
