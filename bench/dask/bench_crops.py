#!/usr/bin/env python3
"""dsd.crops against Dask's own ways of cutting cubes (issue 38). Not in CI;
figures in bench/RESULTS.md.

--case pr12074 (default): Dask PR #12074's case, a 1000^3 float32 array in
  100^3 chunks, 1,000 cubes of 61^3 at random starts (--n shrinks it), in
  memory or with --zarr from a Zarr store on disk.
--case cellfinder: a 500 x 2000 x 2000 uint16 Zarr volume (4 GB on disk,
  written chunk by chunk, as is its .npy twin), 100,000 cubes of 20 x 50 x 50.
  The cubes are 10 GB: each method hands its output block by block to a
  consumer that keeps one element per cube, and the starts are in plane order,
  as a detector that walks the planes finds cells (docs/dask.md, Memory).
--case graph: the graph of 1 M boxes of 20 x 50 x 50 over a 10 TB da.zeros,
  built and not run: its time and the process's peak memory.

Against: x.vindex as the PR formulates it (a point per element), a loop of
x[...] slices + da.stack, ds.crops on a memory-mapped .npy, and the floor:
reading once each block a cube touches. vindex and the plain loop are timed
on the first cubes and scaled to all of them, saying so (their cost grows at
least linearly with the cubes). dsd.crops, the floor and ds.crops on the .npy
run --repeat times, round robin, and are compared by their medians and by their
first runs (the first run of the process is the one that touches fresh memory).
Each line prints the issue's target as met or not met.

    PYTHONPATH=build/python /usr/bin/python3 bench/dask/bench_crops.py [--case C] [--zarr] [--n 1000]
"""
import argparse
import os
import platform
import resource
import tempfile
import time

import dask
import dask.array as da
import numpy as np

import dmlslice as ds
from dmlslice import dask as dsd

# The targets: dsd.crops's speed over each other method's (1 / ratio for the floor).
TARGETS = {"vindex": 10.0, "loop": 3.0, "floor": 0.8}


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


def header(text):
    load = " ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"{platform.node()} {os.cpu_count()} cores, load average {load}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {text}", flush=True)


class Report:
    """One line per method: its time, dsd.crops's speed-up over it, the target if the issue sets one.
    With repeats, each ratio is of medians, and again of first runs: the first run of a process
    touches fresh memory, which costs more than the computing on the 2-core VM (docs/dask.md)."""

    def __init__(self, t_dsd):
        self.t_dsd = t_dsd if isinstance(t_dsd, list) else [t_dsd]

    def __call__(self, name, t, target=None, note=""):
        runs = t if isinstance(t, list) else [t]
        ratio = float(np.median(runs)) / float(np.median(self.t_dsd))
        goal = ""
        if target is not None:
            want = TARGETS[target]
            goal = f"   target >= {want:g}x: {'met' if ratio >= want else 'NOT met'}"
        if len(runs) > 1:
            first = runs[0] / self.t_dsd[0]
            goal += (f"   first runs {first:.2f}x" + (f" ({'met' if first >= TARGETS[target] else 'NOT met'})"
                                                     if target else "")
                     + f"; runs {', '.join(f'{v:.2f}' for v in runs)} s")
        print(f"{name:48s} {float(np.median(runs)):9.2f} s   dsd.crops {ratio:7.2f}x{goal}{note}   "
              f"(CPU {time.process_time():.0f} s so far)", flush=True)


def vindex_points(starts, size):
    """The PR's formulation: one point index per element of every cube."""
    off = np.stack(np.meshgrid(*(np.arange(e) for e in size), indexing="ij"), -1).reshape(-1, len(size))
    pts = (starts[:, None, :] + off[None]).reshape(-1, len(size))
    return tuple(pts[:, k] for k in range(len(size)))


def loop_slices(x, starts, size, one_chunk):
    """A loop of x[...] slices + da.stack. Plain, da.stack unifies the slices' chunks into their
    common refinement: k cubes at different offsets make up to k^3 chunks each (k^4 tasks), which
    is why the plain loop does not finish at 1,000 cubes. one_chunk rechunks each slice to one
    chunk first, the form that runs."""
    cubes = [x[tuple(slice(s, s + e) for s, e in zip(row, size))] for row in starts.tolist()]
    return da.stack([c.rechunk(size) for c in cubes] if one_chunk else cubes)


def compare(x, starts, size, consume, reference, a, chunks=None):
    """Time dsd.crops (output blocks of chunks cubes) and the other methods on the same cubes;
    consume(y) computes a lazy (N, *size) array into what is compared (the whole result, or one
    element per cube)."""
    blocks = touched_blocks(x, starts, size)
    runs = {"dsd": [], "floor": [], "npy": []}
    for rep in range(a.repeat):  # round robin: each method meets memory in the states the others leave
        t, r = timed(lambda: consume(dsd.crops(x, starts, size, chunks=chunks)))
        runs["dsd"].append(t)
        got = r if rep == 0 else got
        assert rep == 0 or np.array_equal(r, got)
        del r
        runs["floor"].append(timed(lambda: dask.compute(*(x.blocks[b].max() for b in blocks)))[0])
        t, r = timed(reference)
        runs["npy"].append(t)
        assert np.array_equal(r, got)
        del r
    report = Report(runs["dsd"])
    report("dsd.crops" + (f" (median of {a.repeat})" if a.repeat > 1 else ""), runs["dsd"])
    report(f"floor (read the {len(blocks)} touched blocks once)", runs["floor"], "floor")
    report("ds.crops on a memory-mapped .npy", runs["npy"])
    k = min(a.vindex, len(starts))
    t_vin, v = timed(lambda: x.vindex[vindex_points(starts[:k], size)].compute())
    assert np.array_equal(consume(da.from_array(v.reshape((k,) + size))), got[:k])
    report(f"vindex (timed on {k} cubes, scaled)", t_vin * len(starts) / k, "vindex")
    k = min(a.plain, len(starts))
    t_plain, _ = timed(lambda: loop_slices(x, starts[:k], size, False).compute())
    report(f"loop of x[...] + da.stack ({k} cubes, scaled)", t_plain * len(starts) / k, "loop",
           "   (a lower bound: its tasks grow as cubes^4)")
    k = min(a.loop, len(starts))
    t_loop, ref = timed(lambda: consume(loop_slices(x, starts[:k], size, True)))
    assert np.array_equal(got[:k], ref)
    scaled = f" ({k} cubes, scaled)" if k < len(starts) else ""
    report(f"loop of x[...].rechunk() + da.stack{scaled}", t_loop * len(starts) / k, "loop")


def case_pr12074(a, tmp):
    rng = np.random.default_rng(0)
    arr = rng.random((a.n,) * 3, dtype=np.float32)
    size = (a.edge,) * 3
    starts = rng.integers(0, a.n - a.edge + 1, (a.boxes, 3))
    if a.zarr:
        da.from_array(arr, chunks=a.chunk).to_zarr(os.path.join(tmp, "x.zarr"))
        x = da.from_zarr(os.path.join(tmp, "x.zarr"))
    else:
        x = da.from_array(arr, chunks=a.chunk)
    np.save(os.path.join(tmp, "x.npy"), arr)
    del arr
    m = np.load(os.path.join(tmp, "x.npy"), mmap_mode="r")
    header(f"{a.n}^3 float32, {a.chunk}^3 chunks, {a.boxes} cubes of {a.edge}^3 at random starts, "
           f"{'Zarr store on disk' if a.zarr else 'in memory'}, threads")
    compare(x, starts, size, lambda y: y.compute(), lambda: ds.crops(m, starts, size), a)


def write_volume(tmp, shape, chunks):
    """The cellfinder-like volume as a Zarr store and a .npy, both written one chunk at a time
    (random uint16: nothing to compress), so it never sits in memory."""
    import zarr
    z = zarr.open(os.path.join(tmp, "v.zarr"), mode="w", shape=shape, chunks=chunks, dtype=np.uint16,
                  compressor=None)
    m = np.lib.format.open_memmap(os.path.join(tmp, "v.npy"), mode="w+", dtype=np.uint16, shape=shape)
    rng = np.random.default_rng(1)
    for corner in np.ndindex(*(-(-d // c) for d, c in zip(shape, chunks))):
        where = tuple(slice(i * c, min((i + 1) * c, d)) for i, c, d in zip(corner, chunks, shape))
        block = rng.integers(0, 65536, tuple(s.stop - s.start for s in where), dtype=np.uint16)
        z[where] = block
        m[where] = block
    m.flush()
    del m
    return da.from_zarr(os.path.join(tmp, "v.zarr")), np.load(os.path.join(tmp, "v.npy"), mmap_mode="r")


def case_cellfinder(a, tmp):
    shape, chunks, size = (500, 2000, 2000), (50, 250, 250), (20, 50, 50)
    t_write, (x, m) = timed(lambda: write_volume(tmp, shape, chunks))
    rng = np.random.default_rng(2)
    starts = np.stack([rng.integers(0, d - e + 1, a.cells) for d, e in zip(shape, size)], 1)
    starts = starts[np.argsort(starts[:, 0], kind="stable")]  # plane order, as a detector finds them
    rows = a.rows

    def consume(y):
        """One element per cube, output block by output block: the cubes are cut, never all held."""
        y = y.rechunk((rows,) + size) if y.chunks[0][0] != rows else y
        return y.map_blocks(lambda b: b[:, :1, :1, :1].copy(), chunks=(y.chunks[0],) + (1,) * 3).compute()

    def reference():
        out = np.empty((len(starts), 1, 1, 1), np.uint16)
        buf = np.empty((rows,) + size, np.uint16)
        for i in range(0, len(starts), rows):
            part = ds.crops(m, starts[i:i + rows], size, out=buf[:len(starts[i:i + rows])])
            out[i:i + len(part)] = part[:, :1, :1, :1]
        return out

    header(f"cellfinder-like: {shape} uint16 Zarr store on disk ({x.nbytes / 1e9:.1f} GB, {chunks} chunks, "
           f"written with its .npy in {t_write:.0f} s), {a.cells} cubes of {size} in plane order, "
           f"output blocks of {rows} cubes, threads")
    compare(x, starts, size, consume, reference, a, chunks=rows)


def case_graph(a):
    """The graph alone: 1 M boxes over a 10 TB array that nothing materialises."""
    x = da.zeros((10000, 10000, 25000), dtype=np.float32, chunks=256)
    size = (20, 50, 50)
    rng = np.random.default_rng(4)
    starts = np.stack([rng.integers(0, d - e + 1, a.cells) for d, e in zip(x.shape, size)], 1)
    header(f"graph: {a.cells} boxes of {size} over da.zeros({x.shape}, float32, chunks=256), "
           f"{x.nbytes / 1e12:.0f} TB, {x.npartitions} blocks, nothing materialised")
    cpu, wall = time.process_time(), time.perf_counter()
    y = dsd.crops(x, starts, size)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    tasks = len(y.dask.layers[y.name])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"graph built: {cpu:.1f} s CPU ({wall:.1f} s wall), target <= 5 s: {'met' if cpu <= 5 else 'NOT met'}; "
          f"{tasks} tasks of our own ({y.npartitions} output blocks); peak RSS of the process "
          f"(Dask's import included) {peak:.0f} MiB, target <= 2048 MiB: {'met' if peak <= 2048 else 'NOT met'}",
          flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--case", choices=("pr12074", "cellfinder", "graph"), default="pr12074")
    p.add_argument("--n", type=int, default=1000, help="pr12074: the array is n^3 float32")
    p.add_argument("--chunk", type=int, default=100, help="pr12074: chunk edge")
    p.add_argument("--boxes", type=int, default=1000, help="pr12074: cubes")
    p.add_argument("--edge", type=int, default=61, help="pr12074: cube edge")
    p.add_argument("--zarr", action="store_true", help="pr12074: read the array from a Zarr store on disk")
    p.add_argument("--cells", type=int, default=None, help="cellfinder: cubes (100,000); graph: boxes (1 M)")
    p.add_argument("--rows", type=int, default=1000, help="cellfinder: cubes per output block")
    p.add_argument("--vindex", type=int, default=10, help="cubes timed through vindex (scaled to all)")
    p.add_argument("--plain", type=int, default=10, help="cubes timed through the plain loop + da.stack")
    p.add_argument("--repeat", type=int, default=3,
                   help="runs of dsd.crops, the floor and ds.crops on the .npy, round robin (the median is "
                        "compared, and the first runs: fresh memory)")
    p.add_argument("--loop", type=int, default=None,
                   help="cubes timed through the loop with one chunk per slice (default: all for pr12074, "
                        "2,000 for cellfinder)")
    a = p.parse_args()
    dask.config.set(scheduler="threads")
    if a.case == "graph":
        a.cells = a.cells or 1_000_000
        return case_graph(a)
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        if a.case == "pr12074":
            a.loop = a.loop or a.boxes
            case_pr12074(a, tmp)
        else:
            a.cells, a.loop = a.cells or 100_000, a.loop or 2000
            case_cellfinder(a, tmp)


if __name__ == "__main__":
    main()
