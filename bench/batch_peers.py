"""Time the peers of dmlslice's batches (issue 24's benchmark table) on the
same cases as dmlslice_batchbench (bench/batch_bench.c), in one process.

Usage: python3 bench/batch_peers.py [gpu|cpu|all] [out.json]
GPU (PyTorch):
  crops  1,024 windows of 3x4x4 float32 from a 3x512x512 image: a loop of
         x[:, y:y+4, x:x+4].contiguous(), torch.stack of the views, and the
         advanced-indexing gather x[:, iy, ix] with the index tensors already
         built, each per call incl. launch + synchronize (host clock), beside
         an empty synchronize.
  kv     512 pages of 16x8x128 float16 from a 4,096-page cache by page numbers
         on the device: torch.index_select, beside a copy of the same bytes
         (CUDA events).
  split  1 GiB float32 (4096 x 65536) into 8 along axis 1: split + contiguous,
         split_with_sizes_copy (where this torch has it), beside a copy of the
         same bytes (CUDA events).
CPU: the same 1,024 crops as loops of NumPy and PyTorch copies into one
stacked output, and NumPy's advanced-indexing gather.
Every peer's result is checked against the plain loop's.
"""
import json
import statistics
import sys
import time

import numpy as np

N_CROPS, IMG = 1024, (3, 512, 512)


def crop_starts():
    rng = np.random.default_rng(24)
    return rng.integers(0, 509, size=(N_CROPS, 2))


def host_us(fn, reps, sync):
    """Median host time of fn() + sync(), in microseconds."""
    for _ in range(3):
        fn()
    sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(ts)


def gpu_crops(torch, res):
    dev = torch.device("cuda")
    x = torch.arange(int(np.prod(IMG)), dtype=torch.float32, device=dev).reshape(IMG)
    st = crop_starts()
    ys, xs = [int(v) for v in st[:, 0]], [int(v) for v in st[:, 1]]
    out = torch.empty((N_CROPS, 3, 4, 4), dtype=torch.float32, device=dev)
    iy = (torch.tensor(st[:, 0], device=dev).view(-1, 1, 1) + torch.arange(4, device=dev).view(1, 4, 1))
    ix = (torch.tensor(st[:, 1], device=dev).view(-1, 1, 1) + torch.arange(4, device=dev).view(1, 1, 4))
    sync = torch.cuda.synchronize

    def loop():
        for i in range(N_CROPS):
            out[i] = x[:, ys[i]:ys[i] + 4, xs[i]:xs[i] + 4]

    def loop_contiguous():
        return [x[:, ys[i]:ys[i] + 4, xs[i]:xs[i] + 4].contiguous() for i in range(N_CROPS)]

    def stack():
        return torch.stack([x[:, ys[i]:ys[i] + 4, xs[i]:xs[i] + 4] for i in range(N_CROPS)])

    def gather():
        return x[:, iy, ix]

    loop()
    want = out.clone()
    assert torch.equal(stack(), want)
    assert torch.equal(gather().permute(1, 0, 2, 3), want)
    r = {"loop_contiguous_us": host_us(loop_contiguous, 5, sync), "loop_into_us": host_us(loop, 5, sync),
         "stack_us": host_us(stack, 10, sync), "gather_us": host_us(gather, 2000, sync),
         "sync_us": host_us(lambda: None, 2000, sync)}
    try:
        r["gather_graph_us"] = gather_graph_us(torch, gather, want)
    except Exception as e:  # a torch that cannot capture it: report the rest
        print("gather in a CUDA graph failed:", e)
        r["gather_graph_us"] = float("nan")
    res["gpu_crops"] = r
    print("gpu crops 1024 3x4x4 f32 (per call incl. sync): loop of .contiguous() %.0f us, loop into one output"
          " %.0f us, stack of views %.0f us, gather x[:, iy, ix] %.1f us (as graph %.1f us), empty sync %.1f us" %
          (r["loop_contiguous_us"], r["loop_into_us"], r["stack_us"], r["gather_us"], r["gather_graph_us"],
           r["sync_us"]), flush=True)


def gather_graph_us(torch, gather, want):
    """The gather replayed from a CUDA graph: PyTorch's floor for this op."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            gather()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        gy = gather()
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(gy.permute(1, 0, 2, 3), want)
    return host_us(g.replay, 2000, torch.cuda.synchronize)


def events_ms(torch, fn, reps=30, calls=1):
    """Median ms per call between CUDA events around `calls` calls back to
    back (calls > 1: the host's launch hidden behind the running work, as
    dmlslice_batchbench's back-to-back figures)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(calls):
            fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / calls)
    return statistics.median(ts)


def gpu_kv(torch, res):
    dev = torch.device("cuda")
    cache = torch.randn((4096, 16, 8, 128), device=dev).to(torch.float16)
    rng = np.random.default_rng(7)
    pages = torch.tensor(rng.integers(0, 4096, size=512), dtype=torch.int64, device=dev)
    out = torch.empty((512, 16, 8, 128), dtype=torch.float16, device=dev)
    flat_src = cache.view(-1)[:out.numel()]
    flat_dst = out.view(-1).clone()
    torch.index_select(cache, 0, pages, out=out)
    assert torch.equal(out, cache[pages])
    nbytes = out.numel() * 2
    r = {"bytes": nbytes, "index_select_ms": events_ms(torch, lambda: torch.index_select(cache, 0, pages, out=out)),
         "copy_ms": events_ms(torch, lambda: flat_dst.copy_(flat_src)),
         "index_select_b2b_ms": events_ms(torch, lambda: torch.index_select(cache, 0, pages, out=out), 30, 10),
         "copy_b2b_ms": events_ms(torch, lambda: flat_dst.copy_(flat_src), 30, 10)}
    for k in ("index_select", "copy", "index_select_b2b", "copy_b2b"):
        r[k + "_GBps"] = 2 * nbytes / r[k + "_ms"] / 1e6
    res["gpu_kv"] = r
    print("gpu KV gather 512 pages 16x8x128 f16: index_select %.1f us (%.0f GB/s), copy %.1f us (%.0f GB/s);"
          " 10 back to back: index_select %.1f us, copy %.1f us" %
          (r["index_select_ms"] * 1e3, r["index_select_GBps"], r["copy_ms"] * 1e3, r["copy_GBps"],
           r["index_select_b2b_ms"] * 1e3, r["copy_b2b_ms"] * 1e3), flush=True)
    del cache, out, flat_dst
    torch.cuda.empty_cache()


def gpu_split(torch, res):
    dev = torch.device("cuda")
    x = torch.randn((4096, 65536), device=dev)
    nbytes = x.numel() * 4
    outs = [torch.empty((4096, 8192), device=dev) for _ in range(8)]
    r = {"bytes": nbytes, "split_contiguous_ms": events_ms(torch, lambda: [t.contiguous() for t in x.split(8192, 1)], 10)}
    try:
        torch.split_with_sizes_copy(x, [8192] * 8, dim=1, out=outs)
        assert all(torch.equal(o, t) for o, t in zip(outs, x.split(8192, 1)))
        r["split_with_sizes_copy_ms"] = events_ms(
            torch, lambda: torch.split_with_sizes_copy(x, [8192] * 8, dim=1, out=outs), 10)
    except (AttributeError, RuntimeError, TypeError) as e:  # absent from this torch
        print("split_with_sizes_copy:", e)
    del outs
    torch.cuda.empty_cache()
    y = torch.empty_like(x)
    r["copy_ms"] = events_ms(torch, lambda: y.copy_(x), 10)
    for k in ("split_contiguous", "split_with_sizes_copy", "copy"):
        if k + "_ms" in r:
            r[k + "_GBps"] = 2 * nbytes / r[k + "_ms"] / 1e6
    res["gpu_split"] = r
    print("gpu split 1 GiB f32 into 8 along axis 1: split+contiguous %.3f ms (%.0f GB/s), split_with_sizes_copy %s,"
          " copy %.3f ms (%.0f GB/s)" % (r["split_contiguous_ms"], r["split_contiguous_GBps"],
                                         "%.3f ms (%.0f GB/s)" % (r["split_with_sizes_copy_ms"],
                                                                  r["split_with_sizes_copy_GBps"])
                                         if "split_with_sizes_copy_ms" in r else "absent",
                                         r["copy_ms"], r["copy_GBps"]), flush=True)
    del x, y
    torch.cuda.empty_cache()


def cpu_crops(res):
    import torch
    x = np.arange(np.prod(IMG), dtype=np.float32).reshape(IMG)
    tx = torch.from_numpy(x)
    st = crop_starts()
    ys, xs = [int(v) for v in st[:, 0]], [int(v) for v in st[:, 1]]
    out = np.empty((N_CROPS, 3, 4, 4), np.float32)
    tout = torch.from_numpy(np.empty_like(out))
    iy = st[:, 0].reshape(-1, 1, 1) + np.arange(4).reshape(1, 4, 1)
    ix = st[:, 1].reshape(-1, 1, 1) + np.arange(4).reshape(1, 1, 4)

    def np_loop():
        for i in range(N_CROPS):
            out[i] = x[:, ys[i]:ys[i] + 4, xs[i]:xs[i] + 4]

    def torch_loop():
        for i in range(N_CROPS):
            tout[i].copy_(tx[:, ys[i]:ys[i] + 4, xs[i]:xs[i] + 4])

    np_loop()
    torch_loop()
    assert np.array_equal(tout.numpy(), out)
    assert np.array_equal(x[:, iy, ix].transpose(1, 0, 2, 3), out)
    r = {"numpy_loop_us": host_us(np_loop, 15, lambda: None), "torch_loop_us": host_us(torch_loop, 15, lambda: None),
         "numpy_gather_us": host_us(lambda: x[:, iy, ix], 50, lambda: None), "torch_threads": torch.get_num_threads()}
    for k in ("numpy_loop", "torch_loop", "numpy_gather"):
        r[k + "_Mwin_per_s"] = N_CROPS / r[k + "_us"]
    res["cpu_crops"] = r
    print("cpu crops 1024 3x4x4 f32: NumPy loop %.0f us (%.1f M windows/s), PyTorch loop %.0f us (%.1f M/s),"
          " NumPy gather x[:, iy, ix] %.0f us (%.1f M/s)" %
          (r["numpy_loop_us"], r["numpy_loop_Mwin_per_s"], r["torch_loop_us"], r["torch_loop_Mwin_per_s"],
           r["numpy_gather_us"], r["numpy_gather_Mwin_per_s"]), flush=True)


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    path = sys.argv[2] if len(sys.argv) > 2 else "batch_peers.json"
    res = {}
    if which in ("gpu", "all"):
        import torch
        res["gpu"] = torch.cuda.get_device_name(0)
        res["torch"] = torch.__version__
        gpu_crops(torch, res)
        gpu_kv(torch, res)
        gpu_split(torch, res)
    if which in ("cpu", "all"):
        cpu_crops(res)
    with open(path, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
