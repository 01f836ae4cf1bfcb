#!/usr/bin/env python3
"""dsd.crops against Dask's own ways of cutting cubes (issue 38; Dask PR
#12074's case: a 1000^3 float32 array in 100^3 chunks, 1,000 cubes of 61^3 at
random starts; --n shrinks it): x.vindex as the PR formulates it (a point
index per element, timed on --vindex cubes and scaled), a loop of x[...]
slices + da.stack, ds.crops on a memory-mapped .npy, and the floor: reading
each block a cube touches once. In memory, or with --zarr from a Zarr store
on disk. Not in CI; figures in bench/RESULTS.md.

    PYTHONPATH=build/python /usr/bin/python3 bench/dask/bench_crops.py --n 1000 [--zarr]
"""
import argparse
import os
import platform
import tempfile
import time

import dask
import dask.array as da
import numpy as np

import dmlslice as ds
from dmlslice import dask as dsd


def timed(f):
    t = time.perf_counter()
    r = f()
    return time.perf_counter() - t, r


def touched_blocks(x, starts, size):
    """The blocks any cube reaches, as block indices (the floor reads these once)."""
    bounds = [np.cumsum((0,) + c) for c in x.chunks]
    lo = np.stack([np.searchsorted(b, starts[:, k], "right") - 1 for k, b in enumerate(bounds)], 1)
    hi = np.stack([np.searchsorted(b, starts[:, k] + size[k] - 1, "right") - 1 for k, b in enumerate(bounds)], 1)
    out = set()
    for l, h in zip(lo.tolist(), hi.tolist()):
        out.update(tuple(a + d for a, d in zip(l, i)) for i in np.ndindex(*(b - a + 1 for a, b in zip(l, h))))
    return sorted(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1000, help="the array is n^3 float32")
    p.add_argument("--chunk", type=int, default=100)
    p.add_argument("--boxes", type=int, default=1000)
    p.add_argument("--edge", type=int, default=61)
    p.add_argument("--vindex", type=int, default=10, help="cubes timed through vindex (scaled to --boxes)")
    p.add_argument("--zarr", action="store_true", help="read the array from a Zarr store on disk")
    a = p.parse_args()
    dask.config.set(scheduler="threads")
    rng = np.random.default_rng(0)
    arr = rng.random((a.n,) * 3, dtype=np.float32)
    size = (a.edge,) * 3
    starts = rng.integers(0, a.n - a.edge + 1, (a.boxes, 3))
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        if a.zarr:
            da.from_array(arr, chunks=a.chunk).to_zarr(os.path.join(tmp, "x.zarr"))
            x = da.from_zarr(os.path.join(tmp, "x.zarr"))
        else:
            x = da.from_array(arr, chunks=a.chunk)
        blocks = touched_blocks(x, starts, size)
        where = "Zarr store on disk" if a.zarr else "in memory"
        print(f"{platform.node()} {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {a.n}^3 float32, {a.chunk}^3 chunks, "
              f"{a.boxes} cubes of {a.edge}^3, {where}, threads, {len(blocks)} of {x.npartitions} blocks touched",
              flush=True)
        t_dsd, got = timed(lambda: dsd.crops(x, starts, size).compute())
        report = lambda name, t: print(f"{name:40s} {t:9.3f} s   dsd.crops is {t / t_dsd:6.2f}x faster "
                                       f"(CPU {time.process_time():.0f} s so far)", flush=True)
        report("dsd.crops", t_dsd)
        t_floor, _ = timed(lambda: dask.compute(*(x.blocks[b].sum() for b in blocks)))
        report("floor (read the touched blocks once)", t_floor)
        np.save(os.path.join(tmp, "x.npy"), arr)
        m = np.load(os.path.join(tmp, "x.npy"), mmap_mode="r")
        t_np, r = timed(lambda: ds.crops(m, starts, size))
        assert np.array_equal(r, got)
        report("ds.crops on a memory-mapped .npy", t_np)
        k = min(a.vindex, a.boxes)
        off = np.stack(np.meshgrid(*(np.arange(a.edge),) * 3, indexing="ij"), -1).reshape(-1, 3)
        pts = (starts[:k, None, :] + off[None]).reshape(-1, 3)
        t_vin, v = timed(lambda: x.vindex[pts[:, 0], pts[:, 1], pts[:, 2]].compute())
        assert np.array_equal(v.reshape((k,) + size), got[:k])
        report(f"vindex (from {k} cubes, scaled)", t_vin * a.boxes / k)
        t_loop, ref = timed(lambda: da.stack([x[s0:s0 + a.edge, s1:s1 + a.edge, s2:s2 + a.edge]
                                              for s0, s1, s2 in starts]).compute())
        assert np.array_equal(got, ref)
        report("loop of x[...] + da.stack", t_loop)


if __name__ == "__main__":
    main()
