"""dmlslice from Python against its peers, CPU and GPU, in one run.

  1. Per-call overhead of a tiny slice (an 8 x 8 float32 array, "[1:3, ::2]"),
     in microseconds per call: dmlslice (one-shot index() with a string and
     with an index tuple, a planned Operator, an Operator with out=) against
     NumPy's x[1:3, ::2].copy() and PyTorch's x[1:3, ::2].contiguous(); on the
     GPU (when there is one) the same with CUDA tensors, calls back to back,
     one synchronize per batch. Then, on each device, the binding's own
     cost (issue 36): op(x, out=y) on that slice and ds.split(x, n,
     out=parts) for 2 and 16 parts, each beside the library's own run of
     the same work looped in C in the same process (_library_loop; on CUDA
     through the device interface, on CuPy's arrays where CuPy imports,
     else PyTorch's), the difference printed per call and per extra array
     against the issue's targets (`--device cuda --tiny`: the CUDA rows
     alone).
  2. The canonical cases of bench/cases.json in GB/s (2 x output bytes /
     time): dmlslice as a planned Operator writing into a reused out= (column
     "dmlslice", the work `dmlslice bench` times: that is the figure Python /
     C compares) and the same Operator making its result each call (column
     "new", op(x): the result's allocation and first-touch page faults
     included, as a user of x[...].copy() pays them), against NumPy, PyTorch
     and, on the GPU, CuPy and JAX; with --cli, also the C figures of
     `dmlslice bench` run on the same machine, and Python / C. out= is made by
     np.empty / torch.empty as a user would make it (NumPy places a large
     array 16 bytes past a page boundary; the C bench's buffers are 64-byte
     aligned: the "align" field records the offset). The layout cases (a
     stored shape and a "perm", issue 34) time ds.plan("transpose", ...)
     making x.transpose(perm) contiguous, beside the library's own copy of
     the same bytes on the same threads (column "copy", the yardstick of
     `dmlslice bench`), NumPy's copyto and PyTorch's copy_ into a reused
     output, ONNX Runtime's Transpose (all cores, a new output per call;
     where onnxruntime and onnx are installed), and on the GPU PyTorch's
     copy_, CuPy's ascontiguousarray and JAX's transpose.

  3. Many slices in one call (issue 24), in microseconds per call: ds.crops
     of 1,024 boxes of 3 x 4 x 4 float32 from a 3 x 512 x 512 image (starts on
     the host and, on the GPU, held by the device) against a PyTorch / NumPy
     loop of slices, a stack of views and the advanced-indexing gather
     x[:, iy, ix] with its index arrays built beforehand; ds.split of a 64 x
     3072 QKV into three against torch.split + contiguous (and NumPy's split
     copies); a planned batch of 64 windows against a loop of Operators; on
     the GPU the KV-cache gather of issue 24 (512 pages of 16 x 8 x 128
     float16 of 4,096, page numbers on the device) against index_select. On
     the GPU each form is also timed with a synchronize after every call
     ("+ sync": the latency a caller waiting for the result sees).

Timing as `dmlslice bench` times: per rep, one untimed call, then a batch
of back-to-back calls lasting at least 20 ms; the median of --reps reps
(part 1: the lowest such median of --rounds rounds, the forms taking turns).

Usage (from the repository root, the package built, e.g. PYTHONPATH=build/python):
  python3 python/bench/bench.py [--cases bench/cases.json] [--reps 7]
      [--device cpu|cuda|all] [--cli build/dmlslice] [--max-mib N] [--json out.json]
      [--tiny] [--rounds 5] [--batch-only]
--max-mib shrinks cases whose input exceeds N MiB along their first axis
(for a quick run on a small machine; the table marks them).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import dmlslice as ds

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from numpy_window import window_key  # noqa: E402  (bench/numpy_window.py)


def optional(name):
    try:
        return __import__(name)
    except Exception:
        return None


torch = optional("torch")
cupy = optional("cupy")
jax = optional("jax")
ort = optional("onnxruntime")
onnx = optional("onnx")


def gpu_ready():
    return ds.cuda_available() and torch is not None and torch.cuda.is_available()


# ------------------------------------------------------------------ timing

def time_batches(fn, reps, sync=None, min_s=0.02):
    """Median seconds per call: each rep one untimed call, then a batch of at
    least min_s seconds (batch size found once)."""
    fn()
    if sync:
        sync()
    batch = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        if sync:
            sync()
        dt = time.perf_counter() - t0
        if dt >= min_s or batch >= 1 << 22:
            break
        batch = max(batch * 2, int(batch * min_s / max(dt, 1e-9)) + 1)
    times = []
    for _ in range(reps):
        fn()
        if sync:
            sync()
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        if sync:
            sync()
        times.append((time.perf_counter() - t0) / batch)
    return statistics.median(times), batch


# ------------------------------------------------------------------ part 1: tiny

def dmlslice_forms(a, label, op, out, keys):
    """dmlslice's forms on the array a (label names it in the rows): ds.index
    with each (kind, key) of keys, then the Operator without and with out=;
    every kind of array times the same forms beside its own copy."""
    forms = [(f"dmlslice.index({label}, {kind})", lambda k=k: ds.index(a, k)) for kind, k in keys]
    return forms + [(f"dmlslice Operator op({label})", lambda: op(a)),
                    (f"dmlslice Operator op({label}, out=)", lambda: op(a, out=out))]


def tiny(reps, device, rounds=1):
    """Per-call microseconds of each form; with rounds > 1, the forms are
    timed in turn that many times and each keeps its lowest median (a noisy
    machine slows some rounds, never speeds one up). "vs" is the form's time
    over the reference's (the first row: NumPy's copy on the CPU, PyTorch's
    on the GPU; CuPy's own copy for the CuPy rows)."""
    rows = []
    key_s, key_t = "[1:3, ::2]", np.s_[1:3, ::2]
    keys = [("str", key_s), ("tuple", key_t)]
    if device == "cpu":
        x = np.arange(64, dtype=np.float32).reshape(8, 8)
        op = ds.plan("index", x.shape, x.dtype, key_s)
        out = np.empty(op.output_shape, x.dtype)
        cands = [("numpy x[1:3, ::2].copy()", lambda: x[1:3, ::2].copy())]
        cands += dmlslice_forms(x, "x", op, out, keys)
        if torch is not None:
            t = torch.arange(64, dtype=torch.float32).reshape(8, 8)
            tout = torch.empty(op.output_shape, dtype=torch.float32)
            cands += [("torch x[1:3, ::2].contiguous()", lambda: t[1:3, ::2].contiguous())]
            cands += dmlslice_forms(t, "torch", op, tout, [])
        sync = None
    else:
        t = torch.arange(64, dtype=torch.float32, device="cuda").reshape(8, 8)
        op = ds.plan("index", tuple(t.shape), torch.float32, key_s)
        out = torch.empty(op.output_shape, dtype=torch.float32, device="cuda")
        cands = [("torch x[1:3, ::2].contiguous()", lambda: t[1:3, ::2].contiguous())]
        cands += dmlslice_forms(t, "torch", op, out, keys)
        if cupy is not None:
            c = cupy.arange(64, dtype=cupy.float32).reshape(8, 8)
            cout = cupy.empty(op.output_shape, dtype=cupy.float32)
            cands += [("cupy cupy.ascontiguousarray(x[1:3, ::2])", lambda: cupy.ascontiguousarray(c[1:3, ::2]))]
            cands += dmlslice_forms(c, "cupy", op, cout, keys[:1])
        sync = torch.cuda.synchronize
    best = {}
    for _ in range(max(1, rounds)):
        for name, fn in cands:
            s, batch = time_batches(fn, reps, sync)
            if name not in best or s < best[name][0]:
                best[name] = (s, batch)
    ref = None
    for name, _ in cands:
        s, batch = best[name]
        if ref is None or name.startswith("cupy "):
            ref = s
        rows.append({"device": device, "what": name, "us": s * 1e6, "batch": batch, "vs": s / ref})
    return rows


def library_seconds(kind, rows, cols, n, calls=20000, reps=5, device="cpu"):
    """Seconds per call of the library's own run of the same work, looped in
    C on device (ds._dmlslice._library_loop: one Python call over `calls`
    library calls). The loop's own time, which _library_loop measures after
    one untimed call: on a GPU, opening the device, allocating its buffers
    and the first launch's kernel loading take milliseconds that `calls`
    would not amortize."""
    return min(ds._dmlslice._library_loop(kind, rows, cols, n, calls, device) for _ in range(reps)) / calls


def overhead_arrays(device):
    """What overhead() times on device: the array library's name, the tiny
    slice's 8 x 8 and the split's 4 x 64 float32 arrays, an empty(shape) of
    float32 and the synchronize that ends a batch (None on the CPU). On the
    CPU NumPy's; on CUDA CuPy's where it imports, else PyTorch's."""
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    q = np.arange(256, dtype=np.float32).reshape(4, 64)
    if device == "cpu":
        return "NumPy", x, q, lambda shape: np.empty(shape, np.float32), None
    if cupy is not None:
        return ("CuPy", cupy.asarray(x), cupy.asarray(q), lambda shape: cupy.empty(shape, cupy.float32),
                cupy.cuda.Device().synchronize)
    return ("PyTorch", torch.from_numpy(x).cuda(), torch.from_numpy(q).cuda(),
            lambda shape: torch.empty(shape, dtype=torch.float32, device="cuda"), torch.cuda.synchronize)


def describe_questions(lib):
    """The questions the binding asks an array of lib to take it in without
    copying (python/src/frameworks.c): CuPy's memory pointer, device, dtype,
    shape and strides; None where the binding reads the array's own fields
    (NumPy) or asks through a method call (PyTorch), which Python cannot
    time apart."""
    if lib != "CuPy":
        return None
    return lambda a: (a.data.ptr, a.data.device_id, a.dtype, a.shape, a.strides)


def overhead(reps, rounds=1, device="cpu"):
    """The binding's own cost on device (issue 36's targets: at most 3 us per
    call over one input and one output, at most 0.3 us per further array),
    each Python form beside the library's own run of the same work timed in
    C in the same process: a call is Operator op(x, out=y) on the tiny slice
    against dmls_execute of it; an extra array is the slope of ds.split(x,
    n, axis=-1, out=parts) of a 4 x 64 float32 array from 2 to 16 parts
    against dmls_batch_execute of that split. The rows without out= add the
    results the array library makes (its own charge, not the binding's).
    On CUDA the C side runs through the device interface on buffers of the
    device's own, enqueued as the binding enqueues (_library_loop); calls
    run back to back with one synchronize per batch on both sides, so where
    the GPU takes longer per launch than the host, both figures are the
    GPU's and the difference understates the binding's cost."""
    lib, x, q, empty, sync = overhead_arrays(device)
    op = ds.plan("index", tuple(x.shape), np.float32, "[1:3, ::2]")
    out = empty(op.output_shape)
    parts = {n: [empty((4, 64 // n)) for _ in range(n)] for n in (2, 16)}
    forms = {"call": lambda: op(x, out=out), "call new": lambda: op(x)}
    for n in (2, 16):
        forms[f"split {n}"] = (lambda n=n: ds.split(q, n, axis=-1, out=parts[n]))
        forms[f"split {n} new"] = (lambda n=n: ds.split(q, n, axis=-1))
    # What the array library charges to say what an array is, asked as the
    # binding asks it (attribute by attribute), from Python: each extra array's
    # share of the slope that is the library's, not the binding's. The same
    # loop asking nothing is taken off (Python's own call per array).
    ask = describe_questions(lib)
    if ask is not None:
        nothing = lambda a: a  # noqa: E731
        for n in (2, 16):
            forms[f"ask {n}"] = lambda n=n: [ask(a) for a in parts[n]]
            forms[f"ask none {n}"] = lambda n=n: [nothing(a) for a in parts[n]]
    best = {}
    for _ in range(max(1, rounds)):
        for name, fn in forms.items():
            best[name] = min(best.get(name, 1.0), time_batches(fn, reps, sync)[0])
    c = {"call": library_seconds("slice", 8, 8, 0, device=device)}
    for n in (2, 16):
        c[f"split {n}"] = library_seconds("split", 4, 64, n, device=device)
    py = {k: v * 1e6 for k, v in best.items()}
    c = {k: v * 1e6 for k, v in c.items()}
    per = ((py["split 16"] - c["split 16"]) - (py["split 2"] - c["split 2"])) / 14
    per_new = ((py["split 16 new"] - c["split 16"]) - (py["split 2 new"] - c["split 2"])) / 14
    asked = ((py["ask 16"] - py["ask 2"]) - (py["ask none 16"] - py["ask none 2"])) / 14 if "ask 16" in py else None
    return [
        {"what": "one input, one output: op(x, out=y) (8x8 f32, [1:3, ::2])", "py_us": py["call"],
         "c_us": c["call"], "binding_us": py["call"] - c["call"], "target_us": 3.0},
        {"what": f"  the same, op(x): {lib} makes the result", "py_us": py["call new"], "c_us": c["call"],
         "binding_us": py["call new"] - c["call"], "target_us": None},
        {"what": "split(x, 2, out=) (4x64 f32)", "py_us": py["split 2"], "c_us": c["split 2"],
         "binding_us": py["split 2"] - c["split 2"], "target_us": None},
        {"what": "split(x, 16, out=)", "py_us": py["split 16"], "c_us": c["split 16"],
         "binding_us": py["split 16"] - c["split 16"], "target_us": None},
        {"what": "  per extra array (slope 2 -> 16, out=)", "py_us": None, "c_us": None, "binding_us": per,
         "target_us": 0.3},
        {"what": f"  per extra array, {lib} making the parts", "py_us": None, "c_us": None, "binding_us": per_new,
         "target_us": None},
    ] + ([] if asked is None else [
        {"what": f"  of which {lib} answering what each array is", "py_us": asked, "c_us": None, "binding_us": None,
         "target_us": None},
        {"what": f"  per extra array beyond {lib}'s answers", "py_us": None, "c_us": None, "binding_us": per - asked,
         "target_us": 0.3}])


def fmt_overhead(r):
    col = lambda v: f"{v:8.3f}" if v is not None else " " * 8
    target = f"  (target <= {r['target_us']:g} us: {'met' if r['binding_us'] <= r['target_us'] else 'MISSED'})" \
        if r["target_us"] is not None else ""
    return f"  {r['what']:58s} {col(r['py_us'])} {col(r['c_us'])} {col(r['binding_us'])}{target}"


# ------------------------------------------------------------------ part 3: batches

def crop_inputs(n=1024, seed=0):
    """The image, and n boxes' starts (channel 0, y, x) as an (n, 3) array."""
    rng = np.random.default_rng(seed)
    img = rng.standard_normal((3, 512, 512), dtype=np.float32)
    starts = np.zeros((n, 3), np.int64)
    starts[:, 1:] = rng.integers(0, 512 - 4 + 1, (n, 2))
    return img, starts


def batch_cands(device):
    """(name, fn, reference name) of every form part 3 times on device."""
    img, starts = crop_inputs()
    ys, xs = starts[:, 1].tolist(), starts[:, 2].tolist()
    iy = starts[:, 1, None, None] + np.arange(4)[None, :, None]  # (n, 4, 1)
    ix = starts[:, 2, None, None] + np.arange(4)[None, None, :]  # (n, 1, 4)
    want = np.stack([img[:, y:y + 4, x:x + 4] for y, x in zip(ys, xs)])
    qkv = np.random.default_rng(1).standard_normal((64, 3072), dtype=np.float32)
    wins = [ds.plan("index", img.shape, img.dtype, f"[:, {y}:{y + 4}, {x}:{x + 4}]") for y, x in zip(ys[:64], xs[:64])]
    b = ds.plan_batch(wins, inputs=[0] * 64)
    if device == "cpu":
        assert np.array_equal(ds.crops(img, starts, (3, 4, 4)), want)
        out = np.empty(want.shape, np.float32)
        c = [("numpy loop x[:, y:y+4, x:x+4].copy()", lambda: [img[:, y:y + 4, x:x + 4].copy() for y, x in zip(ys, xs)]),
             ("numpy np.stack of the views", lambda: np.stack([img[:, y:y + 4, x:x + 4] for y, x in zip(ys, xs)])),
             ("numpy gather x[:, iy, ix]", lambda: img[:, iy, ix]),
             ("dmlslice.crops(x, host starts)", lambda: ds.crops(img, starts, (3, 4, 4))),
             ("dmlslice.crops(x, host starts, out=)", lambda: ds.crops(img, starts, (3, 4, 4), out=out)),
             ("numpy split copies [p.copy() for p in np.split(qkv, 3, 1)]",
              lambda: [p.copy() for p in np.split(qkv, 3, axis=1)]),
             ("dmlslice.split(qkv, 3, axis=1)", lambda: ds.split(qkv, 3, axis=1)),
             ("loop of 64 Operators op(x)", lambda: [op(img) for op in wins]),
             ("dmlslice plan_batch of 64 windows b(x)", lambda: b(img))]
        if torch is not None:
            t = torch.from_numpy(img)
            c.insert(3, ("torch loop x[:, y:y+4, x:x+4].contiguous()",
                         lambda: [t[:, y:y + 4, x:x + 4].contiguous() for y, x in zip(ys, xs)]))
        return [(n, f, None) for n, f in c]
    t = torch.from_numpy(img).cuda()
    ds_dev = torch.from_numpy(starts).cuda()
    tiy, tix = torch.from_numpy(iy).cuda(), torch.from_numpy(ix).cuda()
    tq = torch.from_numpy(qkv).cuda()
    out = torch.empty(want.shape, dtype=torch.float32, device="cuda")
    assert np.array_equal(ds.crops(t, ds_dev, (3, 4, 4)).cpu().numpy(), want)
    assert np.array_equal(ds.crops(t, starts, (3, 4, 4)).cpu().numpy(), want)
    c = [("torch loop x[:, y:y+4, x:x+4].contiguous()",
          lambda: [t[:, y:y + 4, x:x + 4].contiguous() for y, x in zip(ys, xs)]),
         ("torch.stack of the views", lambda: torch.stack([t[:, y:y + 4, x:x + 4] for y, x in zip(ys, xs)])),
         ("torch gather x[:, iy, ix]", lambda: t[:, tiy, tix]),
         ("dmlslice.crops(x, device starts)", lambda: ds.crops(t, ds_dev, (3, 4, 4))),
         ("dmlslice.crops(x, device starts, out=)", lambda: ds.crops(t, ds_dev, (3, 4, 4), out=out)),
         ("dmlslice.crops(x, host starts)", lambda: ds.crops(t, starts, (3, 4, 4))),
         ("torch split copies [p.contiguous() for p in torch.split(qkv, 1024, 1)]",
          lambda: [p.contiguous() for p in torch.split(tq, 1024, 1)]),
         ("dmlslice.split(qkv, 3, axis=1)", lambda: ds.split(tq, 3, axis=1)),
         ("loop of 64 Operators op(x)", lambda: [op(t) for op in wins]),
         ("dmlslice plan_batch of 64 windows b(x)", lambda: b(t))]
    # KV-cache gather: 512 pages of 16 x 8 x 128 float16 from a 4,096-page
    # cache, page numbers held by the device.
    cache = torch.randn(4096, 16, 8, 128, device="cuda").half()
    pages = torch.randperm(4096, device="cuda")[:512]
    pstarts = torch.zeros(512, 4, dtype=torch.int64, device="cuda")
    pstarts[:, 0] = pages
    kv_out = torch.empty(512, 1, 16, 8, 128, dtype=torch.float16, device="cuda")
    kv_src = torch.empty_like(kv_out)
    assert torch.equal(ds.crops(cache, pstarts, (1, 16, 8, 128))[:, 0], cache.index_select(0, pages))
    c += [("KV gather torch.index_select(cache, 0, pages)", lambda: cache.index_select(0, pages)),
          ("KV gather dmlslice.crops(cache, device starts, out=)",
           lambda: ds.crops(cache, pstarts, (1, 16, 8, 128), out=kv_out)),
          ("KV gather: a device copy of the same 16 MiB", lambda: kv_out.copy_(kv_src))]
    if hasattr(torch, "split_with_sizes_copy"):
        c.insert(7, ("torch.split_with_sizes_copy(qkv, [1024] * 3, 1)",
                     lambda: torch.split_with_sizes_copy(tq, [1024] * 3, 1)))
    sync = torch.cuda.synchronize

    def synced(f):
        return lambda: (f(), sync())
    lat = [(n + " + sync", synced(f), None) for n, f in c if "loop" not in n and "stack" not in n]
    return [(n, f, sync) for n, f in c] + lat


def batches(reps, device):
    """Microseconds per call of each of part 3's forms."""
    rows = []
    for name, fn, sync in batch_cands(device):
        s, batch = time_batches(fn, reps, sync)
        rows.append({"device": device, "what": name, "us": s * 1e6, "batch": batch})
        print(f"  {name:64s} {s * 1e6:10.2f} us", flush=True)
    return rows


# ------------------------------------------------------------------ part 2: cases

def positive_view(offs, sizes, strides):
    """Per axis: a positive-step slice of the window's elements, and whether
    the axis is read backwards (for peers without negative steps)."""
    sl, flip = [], []
    for i, (o, s, t) in enumerate(zip(offs, sizes, strides)):
        n = 1 + (s - 1) // abs(t)
        if t > 0:
            sl.append(slice(o, o + t * (n - 1) + 1, t))
        else:
            last = o + s - 1
            sl.append(slice(last - (-t) * (n - 1), last + 1, -t))
            flip.append(i)
    return tuple(sl), flip


def shrink(case, max_mib):
    """The case with its first axis cut so that the input fits max_mib."""
    c = dict(case)
    item = np.dtype(c["dtype"]).itemsize
    size = item * int(np.prod(c["input_shape"]))
    if not max_mib or size <= max_mib << 20:
        return c, False
    d0 = c["input_shape"][0]
    keep = max(c["window_offsets"][0] + 1, int(d0 * (max_mib << 20) / size))
    keep = min(keep, d0)
    c["input_shape"] = [keep] + c["input_shape"][1:]
    w = min(c["window_sizes"][0], keep - c["window_offsets"][0])
    c["window_sizes"] = [w] + c["window_sizes"][1:]
    c["output_sizes"] = [1 + (w - 1) // abs(c["window_strides"][0])] + c["output_sizes"][1:]
    return c, True


def shrink_perm(case, max_mib):
    """A layout case with its first stored axis cut so that the input fits max_mib."""
    c = dict(case)
    size = np.dtype(c["dtype"]).itemsize * int(np.prod(c["input_shape"]))
    if not max_mib or size <= max_mib << 20:
        return c, False
    d0 = c["input_shape"][0]
    c["input_shape"] = [max(1, min(d0, int(d0 * (max_mib << 20) / size)))] + c["input_shape"][1:]
    return c, True


def random_array(rng, shape, dt):
    return (rng.standard_normal(shape, dtype=np.float32).astype(dt) if dt.kind == "f"
            else rng.integers(0, 100, shape).astype(dt))


def ort_transpose(x, perm):
    """ONNX Runtime's Transpose of x (all cores, a new output per call), or
    None where onnxruntime or onnx is missing or has no such tensor type."""
    if ort is None or onnx is None:
        return None
    from onnx import TensorProto, helper
    types = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16, "uint8": TensorProto.UINT8,
             "float64": TensorProto.DOUBLE, "int64": TensorProto.INT64, "int32": TensorProto.INT32}
    if x.dtype.name not in types:
        return None
    tt, out_shape = types[x.dtype.name], [x.shape[p] for p in perm]
    g = helper.make_graph([helper.make_node("Transpose", ["x"], ["y"], perm=list(perm))], "t",
                          [helper.make_tensor_value_info("x", tt, list(x.shape))],
                          [helper.make_tensor_value_info("y", tt, out_shape)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    so = ort.SessionOptions()
    so.intra_op_num_threads = os.cpu_count() or 1
    sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return lambda: sess.run(None, {"x": x})


def perm_cands(c, x, device):
    """A layout case: the planned transpose, its checks, and the peers."""
    perm = tuple(c["perm"])
    op = ds.plan("transpose", x.shape, x.dtype, perm)
    want = np.ascontiguousarray(x.transpose(perm))
    if device == "cpu":
        out = np.empty(op.output_shape, x.dtype)
        op(x, out=out)
        assert np.array_equal(out.view(np.uint8), want.view(np.uint8)), c["name"]
        flat = x.reshape(-1).view(np.uint8)  # the yardstick: the library copying the same bytes whole
        cop = ds.plan("index", flat.shape, flat.dtype, "[:]")
        cout, dst = np.empty_like(flat), np.empty_like(want)
        cands = [("dmlslice", lambda: op(x, out=out), None), ("new", lambda: op(x), None),
                 ("copy", lambda: cop(flat, out=cout), None),
                 ("numpy", lambda: np.copyto(dst, x.transpose(perm)), None)]
        if torch is not None:
            tv, tout = torch.from_numpy(x).permute(perm), torch.from_numpy(np.empty_like(want))
            cands.append(("torch", lambda: tout.copy_(tv), None))
        f = ort_transpose(x, perm)
        if f is not None:
            cands.append(("ort", f, None))
        return out, cands
    tx = torch.from_numpy(x).cuda()
    out = torch.empty(op.output_shape, dtype=tx.dtype, device="cuda")
    op(tx, out=out)
    torch.cuda.synchronize()
    assert np.array_equal(out.cpu().numpy().view(np.uint8), want.view(np.uint8)), c["name"]
    sync, tv, tout = torch.cuda.synchronize, tx.permute(perm), torch.empty_like(out)
    flat = tx.reshape(-1)
    cflat = torch.empty_like(flat)
    cands = [("dmlslice", lambda: op(tx, out=out), sync), ("new", lambda: op(tx), sync),
             ("copy", lambda: cflat.copy_(flat), sync), ("torch", lambda: tout.copy_(tv), sync)]
    if cupy is not None:
        cv = cupy.asarray(x).transpose(perm)
        cands.append(("cupy", lambda: cupy.ascontiguousarray(cv), cupy.cuda.Device().synchronize))
    if jax is not None and any(d.platform == "gpu" for d in jax.devices()):
        jx = jax.device_put(x, [d for d in jax.devices() if d.platform == "gpu"][0])
        f = jax.jit(lambda a: jax.numpy.transpose(a, perm))
        cands.append(("jax", lambda: f(jx).block_until_ready(), None))
    return out, cands


def time_cands(row, cands, reps):
    for name, fn, sync in cands:
        try:
            s, batch = time_batches(fn, reps, sync)
            row[name + "_GBps"] = 2 * row["out_bytes"] / s / 1e9
            row[name + "_ms"] = s * 1e3
        except Exception as e:  # a peer that cannot run the case: say so, go on
            row[name + "_error"] = str(e)[:200]
    if "dmlslice_GBps" in row and "copy_GBps" in row:
        row["of_copy"] = row["dmlslice_GBps"] / row["copy_GBps"]


def cases(path, reps, device, max_mib):
    rows = []
    rng = np.random.default_rng(0)
    for case in json.load(open(path)):
        if "perm" in case:
            c, scaled = shrink_perm(case, max_mib)
            x = random_array(rng, c["input_shape"], np.dtype(c["dtype"]))
            out, cands = perm_cands(c, x, device)
            row = {"device": device, "case": c["name"], "out_bytes": x.nbytes, "scaled": scaled}
            if device == "cpu":
                row["align"] = out.ctypes.data % 64
            time_cands(row, cands, reps)
            rows.append(row)
            print(fmt_case(row), flush=True)
            del x, out, cands
            if device == "cuda":
                torch.cuda.empty_cache()
            continue
        c, scaled = shrink(case, max_mib)
        dt, shape = np.dtype(c["dtype"]), c["input_shape"]
        offs, sizes, strides = c["window_offsets"], c["window_sizes"], c["window_strides"]
        x = random_array(rng, shape, dt)
        op = ds.plan("slice1", x.shape, x.dtype, offs, sizes, strides)
        out_bytes = int(np.prod(op.output_shape)) * dt.itemsize
        nview = window_key(offs, sizes, strides)
        pview, flip = positive_view(offs, sizes, strides)
        row = {"device": device, "case": c["name"], "out_bytes": out_bytes, "scaled": scaled}
        cands = []
        if device == "cpu":
            out = np.empty(op.output_shape, dt)
            op(x, out=out)
            assert np.array_equal(out.view(np.uint8), np.ascontiguousarray(x[nview]).view(np.uint8)), c["name"]
            dst = np.empty_like(out)
            row["align"] = out.ctypes.data % 64
            cands = [("dmlslice", lambda: op(x, out=out), None),
                     ("new", lambda: op(x), None),
                     ("numpy", lambda: np.copyto(dst, x[nview]), None)]
            if torch is not None:
                tx = torch.from_numpy(x)
                tv = tx[pview]
                cands.append(("torch", (lambda: torch.flip(tv, flip)) if flip else (lambda: tv.contiguous()), None))
        else:
            tx = torch.from_numpy(x).cuda()
            out = torch.empty(op.output_shape, dtype=tx.dtype, device="cuda")
            op(tx, out=out)
            torch.cuda.synchronize()
            assert np.array_equal(out.cpu().numpy().view(np.uint8),
                                  np.ascontiguousarray(x[nview]).view(np.uint8)), c["name"]
            tv = tx[pview]
            sync = torch.cuda.synchronize
            cands = [("dmlslice", lambda: op(tx, out=out), sync),
                     ("new", lambda: op(tx), sync),
                     ("torch", (lambda: torch.flip(tv, flip)) if flip else (lambda: tv.contiguous()), sync)]
            if cupy is not None:
                cx = cupy.asarray(x)
                cv = cx[nview]
                cands.append(("cupy", lambda: cupy.ascontiguousarray(cv), cupy.cuda.Device().synchronize))
            if jax is not None and any(d.platform == "gpu" for d in jax.devices()):
                jx = jax.device_put(x, [d for d in jax.devices() if d.platform == "gpu"][0])
                f = jax.jit(lambda a: a[nview])
                cands.append(("jax", lambda: f(jx).block_until_ready(), None))
        time_cands(row, cands, reps)
        rows.append(row)
        print(fmt_case(row), flush=True)
        del x
        if device == "cuda":
            del tx, out, tv
            torch.cuda.empty_cache()
    return rows


def fmt_case(r):
    cols = [f"{r['device']:4s} {r['case']:14s}{'*' if r['scaled'] else ' '} {r['out_bytes'] / 2**20:8.1f} MiB"]
    for k in ("dmlslice", "new", "copy", "numpy", "torch", "ort", "cupy", "jax", "c"):
        if k + "_GBps" in r:
            cols.append(f"{k} {r[k + '_GBps']:7.1f}")
    if "of_copy" in r:
        cols.append(f"of copy {r['of_copy']:.2f}")
    if r.get("align"):
        cols.append(f"out= at 64+{r['align']}")
    if "py_over_c" in r:
        cols.append(f"py/C {r['py_over_c']:.3f}")
    return "  ".join(cols)


def c_figures(cli, cases_path, device, reps):
    """GB/s per case from `dmlslice bench --json` on this machine."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "c.json")
        subprocess.run([cli, "bench", "--device", device, "--cases", cases_path, "--reps", str(reps),
                        "--json", path], check=True, stdout=subprocess.DEVNULL)
        data = json.load(open(path))
    return {c["case"]: c["GBps"] for c in data.get("cases", []) if "GBps" in c}


OVERHEAD_HEADS = {
    "cpu": "\n== cpu: the binding's own cost, us per call: Python, the library's same work timed in C, "
           "the difference\n  (CPU here; the issue's targets were set on an H100 host's CUDA path)",
    "cuda": "\n== cuda: the binding's own cost, us per call: Python on CUDA arrays (CuPy's, else PyTorch's), "
            "the library's same work\n  timed in C through the device interface, the difference (calls back to "
            "back, one synchronize per batch)"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default=os.path.join(ROOT, "bench", "cases.json"))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--device", choices=["cpu", "cuda", "all"], default="all")
    ap.add_argument("--cli", help="the dmlslice program, to run `dmlslice bench` for the C figures")
    ap.add_argument("--max-mib", type=int, default=0)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--tiny", action="store_true", help="only part 1, the per-call overhead")
    ap.add_argument("--rounds", type=int, default=5, help="part 1: the lowest of this many medians per form")
    ap.add_argument("--batch-only", action="store_true", help="only part 3, many slices in one call")
    a = ap.parse_args()
    devices = ["cpu", "cuda"] if a.device == "all" else [a.device]
    if "cuda" in devices and not gpu_ready():
        print("no CUDA GPU (or no PyTorch with CUDA): CPU only", file=sys.stderr)
        devices = [d for d in devices if d == "cpu"]
    result = {"dmlslice": ds.__version__, "numpy": np.__version__,
              "torch": getattr(torch, "__version__", None), "cupy": getattr(cupy, "__version__", None),
              "jax": getattr(jax, "__version__", None), "threads": ds.get_num_threads(),
              "python": sys.version.split()[0], "tiny": [], "cases": [], "batch": []}
    for dev in devices:
        print(f"\n== {dev}: many slices in one call (1,024 crops 3x4x4 of 3x512x512 float32; QKV split)")
        result["batch"] += batches(a.reps, dev)
    for dev in devices if not a.batch_only else []:
        print(f"\n== {dev}: per-call overhead, tiny slice (8 x 8 float32, [1:3, ::2])")
        for r in tiny(a.reps, dev, a.rounds):
            print(f"  {r['what']:42s} {r['us']:8.3f} us  {r['vs']:5.2f}x")
            result["tiny"].append(r)
    for dev in devices if not a.batch_only else []:
        print(OVERHEAD_HEADS[dev])
        print(f"  {'':58s} {'python':>8s} {'C':>8s} {'binding':>8s}")
        rows = overhead(a.reps, a.rounds, dev)
        result["overhead" if dev == "cpu" else "overhead_" + dev] = rows
        for r in rows:
            print(fmt_overhead(r))
    for dev in devices if not (a.tiny or a.batch_only) else []:
        print(f"\n== {dev}: canonical cases, GB/s = 2 x output bytes / time (* = scaled by --max-mib)\n"
              f"   dmlslice: op(x, out=y), y reused (as `dmlslice bench`); new: op(x), a new result each call")
        rows = cases(a.cases, a.reps, dev, a.max_mib)
        if a.cli:
            cfig = c_figures(a.cli, a.cases, dev, a.reps)
            for r in rows:
                if r["case"] in cfig and "dmlslice_GBps" in r and not r["scaled"]:
                    r["c_GBps"] = cfig[r["case"]]
                    r["py_over_c"] = r["dmlslice_GBps"] / cfig[r["case"]]
            print(f"-- with `{a.cli} bench --device {dev}` (py/C: Python's GB/s over C's)")
            for r in rows:
                print(fmt_case(r))
        result["cases"] += rows
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
