"""dmlslice.dask (docs/dask.md): crops over chunked Dask arrays, checked
against ds.crops on the whole array (R-CROP-SIZE, R-CROP-BOUNDS), on the
threaded scheduler, a LocalCluster of worker processes and a Zarr store
larger than the workers' memory limit; the graph's size; errors at graph time."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import dmlslice as ds

# The interpreter is not instrumented under CI's sanitizer stages: the
# sanitizers' runtimes are preloaded, and a cluster's worker processes (and
# Dask's own threads) would run under them for minutes. Said, not silent.
pytestmark = pytest.mark.skipif(any(s in os.environ.get("LD_PRELOAD", "") for s in ("asan", "tsan", "ubsan")),
                                reason="Dask tests do not run under the sanitizers' preloaded runtimes")
da = pytest.importorskip("dask.array", reason="Dask is not installed (Debian: python3-dask)")
import dask  # noqa: E402 (after the skips above)
from dmlslice import dask as dsd  # noqa: E402 (after the skips above)

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16, np.int32, np.uint32, np.float32,
          np.int64, np.uint64, np.float64]


def test_without_dask_the_package_works_and_the_import_says_why():
    """import dmlslice needs no Dask; dmlslice.dask names the package it lacks."""
    code = ("import sys; sys.modules['dask'] = None\n"
            "import dmlslice\n"
            "try:\n    from dmlslice import dask\nexcept ImportError as e:\n    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "needs Dask" in r.stdout and "python3-dask" in r.stdout


def _random_case(rng, dtype):
    rank = int(rng.integers(1, 4))
    shape = tuple(int(v) for v in rng.integers(1, 24, rank))
    a = rng.integers(0, 250, shape).astype(dtype)
    chunks = tuple(int(rng.integers(1, d + 1)) for d in shape)
    size = tuple(int(rng.integers(0, d + 1)) for d in shape)
    n = int(rng.integers(0, 30))
    starts = np.stack([rng.integers(0, d - s + 1, n) for d, s in zip(shape, size)], 1).astype(np.int64)
    return a, chunks, size, starts.reshape(n, rank)


@pytest.mark.parametrize("dtype", DTYPES)
def test_crops_equal_whole_array_every_dtype(dtype):
    """R-CROP-BOUNDS, R-CROP-SIZE: random shapes, chunkings, sizes, boxes on and across chunk borders."""
    rng = np.random.default_rng(abs(hash(np.dtype(dtype).str)) % 2**32)
    for _ in range(25):
        a, chunks, size, starts = _random_case(rng, dtype)
        x = da.from_array(a, chunks=chunks)
        # from_array over NumPy is cut from the array it holds; a computed copy, block task by block task.
        for x in (x, x.map_blocks(np.copy, dtype=x.dtype)):
            y = dsd.crops(x, starts, size, chunks=int(rng.integers(1, 8)))
            ref = ds.crops(a, starts, size)
            got = y.compute(scheduler="threads")
            assert got.shape == ref.shape == y.shape and got.dtype == ref.dtype
            assert np.array_equal(got, ref), (a.shape, chunks, size, starts)


def test_crops_edges_and_straddles():
    """R-CROP-BOUNDS: every start on and next to every chunk border and at both ends of each axis."""
    a = np.arange(30 * 17, dtype=np.float32).reshape(30, 17)
    x = da.from_array(a, chunks=((7, 3, 11, 9), (5, 5, 7)))
    size = (4, 6)
    starts = np.array([(i, j) for i in (0, 3, 6, 7, 9, 10, 21, 26) for j in (0, 1, 4, 5, 9, 10, 11)])
    assert np.array_equal(dsd.crops(x, starts, size).compute(), ds.crops(a, starts, size))
    whole = np.array([[0, 0]])  # a crop of the whole array touches every block
    assert np.array_equal(dsd.crops(x, whole, a.shape).compute()[0], a)


def _block_tasks(y):
    return [k for k in y.dask if isinstance(k, tuple) and k[0].endswith("-c")]


def test_array_held_by_the_graph_is_cut_in_place():
    """R-CROP-BOUNDS: da.from_array over a NumPy array (any strides: reversed, transposed, a window
    of a larger array) gives no block tasks, one ds.crops per output block on the array itself,
    equal to ds.crops; blocks that are not views of one array (computed, or a from_array of a
    list) take the block tasks, with the same result."""
    big = np.arange(40 * 30, dtype=np.int16).reshape(40, 30)
    size = (5, 4)
    rng = np.random.default_rng(9)
    for a in (big, big[::-1, 3:], big.T, np.asfortranarray(big)[2:37, ::-3], big[5:6]):
        starts = np.stack([rng.integers(0, d - e + 1, 40) for d, e in zip(a.shape, (min(5, a.shape[0]), 4))], 1)
        sz = (min(5, a.shape[0]), 4)
        x = da.from_array(a, chunks=(7, 6))
        y = dsd.crops(x, starts, sz, chunks=9)
        assert not _block_tasks(y) and len(y.dask) == y.npartitions + 1, a.strides
        assert np.array_equal(y.compute(scheduler="threads"), ds.crops(a, starts, sz)), a.strides
    a = big[::-1, 3:]
    starts = np.stack([rng.integers(0, d - e + 1, 40) for d, e in zip(a.shape, size)], 1)
    for x in (da.from_array(a, chunks=(7, 6)).map_blocks(np.copy, dtype=a.dtype),
              da.from_array(a, chunks=(7, 6)).persist(scheduler="threads") + 0,
              da.concatenate([da.from_array(a[:20], chunks=(7, 6)), da.from_array(a[20:], chunks=(7, 6))])):
        y = dsd.crops(x, starts, size, chunks=9)
        assert _block_tasks(y)
        assert np.array_equal(y.compute(scheduler="threads"), ds.crops(a, starts, size))


def test_whole_crops_in_runs_and_alone():
    """R-CROP-BOUNDS: output blocks copy the whole crops of one block task by runs of rows that
    follow one another: runs of one to nine, broken by a crop of another block or one across a
    border, and cut by the output blocks' borders (chunks of 7)."""
    a = np.arange(40 * 40, dtype=np.int32).reshape(40, 40)
    x = da.from_array(a, chunks=10)
    rng = np.random.default_rng(7)
    starts = []
    for length in (1, 3, 9, 2, 1, 5, 1, 1, 4):
        bi, bj = rng.integers(0, 4, 2) * 10
        starts += [(bi + i % 7, bj + (2 * i) % 7) for i in range(length)]  # whole, inside block (bi, bj)
        starts.append(tuple(rng.integers(0, 37, 2)) if rng.integers(0, 2) else (8, 18))  # another, or across
    starts = np.array(starts)
    for chunks in (7, 1, len(starts)):
        assert np.array_equal(dsd.crops(x, starts, (3, 3), chunks=chunks).compute(), ds.crops(a, starts, (3, 3)))


def test_dask_starts_are_clamped():
    """R-CROP-BOUNDS: starts given as a Dask array are clamped to [0, dim - size], as on the device."""
    a = np.arange(20 * 9, dtype=np.int16).reshape(20, 9)
    x = da.from_array(a, chunks=(6, 4))
    raw = np.array([[-5, 2], [18, 7], [3, -1], [100, 100], [4, 4]], np.int32)
    y = dsd.crops(x, da.from_array(raw, chunks=2), (5, 3))
    ref = ds.crops(a, np.clip(raw, 0, [15, 6]), (5, 3))
    assert np.array_equal(y.compute(), ref)


def test_errors_at_graph_time():
    """R-CROP-SIZE, R-CROP-BOUNDS: raised when the graph is built, with ds.crops's own message."""
    a = np.zeros((10, 12), np.float32)
    x = da.from_array(a, chunks=5)
    bad = np.array([[0, 0], [7, 2]])
    with pytest.raises(ds.OutOfBoundsError) as mine:
        dsd.crops(x, bad, (4, 4))
    with pytest.raises(ds.OutOfBoundsError) as theirs:
        ds.crops(a, bad, (4, 4))
    assert str(mine.value) == str(theirs.value) and mine.value.rule == "R-CROP-BOUNDS"
    with pytest.raises(ds.OutOfBoundsError, match=r"size\[1\] = 13") as e:
        dsd.crops(x, bad[:1], (4, 13))
    assert e.value.rule == "R-CROP-SIZE"
    with pytest.raises(ds.ArgumentError, match=r"shape \(2, 3\)"):
        dsd.crops(x, np.zeros((2, 3), np.int64), (4, 4))
    with pytest.raises(ds.DTypeError, match="not a Dask array"):
        dsd.crops(a, bad[:1], (4, 4))


def test_graph_grows_with_chunks_not_boxes():
    """The tasks: one per anchor block and one per output block, whatever N."""
    x = da.zeros((4000, 4000, 4000), dtype=np.float32, chunks=500)  # 256 GB, nothing materialised
    rng = np.random.default_rng(3)
    sizes = []
    for n in (1_000, 100_000):
        starts = rng.integers(0, 980, (n, 3))  # boxes in the first 2^3 blocks and their borders
        y = dsd.crops(x, starts, (20, 20, 20), chunks=n // 4)
        own = [k for k in y.dask.layers[y.name]]
        sizes.append(len(own))
        assert len(own) <= 8 + 4
    assert sizes[0] == sizes[1]


def test_transpose_blocks_are_contiguous():
    """R-PERM: dsd.transpose equals np.transpose, block by block contiguous; a bad axes raises now."""
    a = np.arange(6 * 7 * 5, dtype=np.float64).reshape(6, 7, 5)
    x = da.from_array(a, chunks=(4, 3, 5))
    y = dsd.transpose(x, (2, 0, 1))
    assert np.array_equal(y.compute(), np.transpose(a, (2, 0, 1)))
    assert all(b.flags.c_contiguous for b in y.to_delayed().ravel() for b in [b.compute()])
    with pytest.raises(ds.ArgumentError) as e:
        dsd.transpose(x, (0, 0, 1))
    assert e.value.rule == "R-PERM"


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed", reason="distributed is not installed (python3-distributed)")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="400MB",
                                  dashboard_address=None) as c, distributed.Client(c) as client:
        yield client


def test_local_cluster_of_processes(cluster):
    """R-CROP-BOUNDS: the same result on worker processes."""
    rng = np.random.default_rng(5)
    a = rng.random((60, 50, 40)).astype(np.float32)
    starts = np.stack([rng.integers(0, d - s + 1, 500) for d, s in zip(a.shape, (9, 11, 13))], 1)
    y = dsd.crops(da.from_array(a, chunks=(16, 20, 10)), starts, (9, 11, 13), chunks=128)
    assert np.array_equal(cluster.compute(y).result(), ds.crops(a, starts, (9, 11, 13)))


def _spill_writes(client):
    """Per worker, how many keys its memory manager has written to disk so far."""
    return client.run(lambda dask_worker: dask_worker.data.get_metrics()["disk_write_count_total"])


def _vm_hwm_mib():
    """This process's peak resident memory since its exec (VmHWM): ru_maxrss is not it, since
    Linux carries the parent's peak across fork and exec (pytest's own, in the suite)."""
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) >> 10 for line in f if line.startswith("VmHWM:"))


def _worker_peak_mib(client):
    return client.run(_vm_hwm_mib)


def test_random_boxes_over_a_store_three_times_worker_memory(tmp_path):
    """Memory bounded by the chunks in flight: 1,000 boxes in random order (each output block
    draws from almost every block task) over a 768 MiB Zarr store, two worker processes of 256 MiB
    each (the store is 3x a worker's limit, 1.5x both): no worker spills a key to disk, and each
    stays under its limit. About 20 s on 2 cores."""
    distributed = pytest.importorskip("distributed", reason="distributed is not installed (python3-distributed)")
    zarr = pytest.importorskip("zarr", reason="Zarr is not installed (python3-zarr)")
    shape, chunks, limit = (192, 1024, 1024), (16, 256, 256), 256 << 20
    z = zarr.open(str(tmp_path / "v.zarr"), mode="w", shape=shape, chunks=chunks, dtype=np.float32,
                  compressor=None)
    plane = np.arange(shape[1] * shape[2], dtype=np.float32).reshape(shape[1:]) % 4099  # exact in float32
    for c in range(0, shape[0], chunks[0]):
        z[c:c + chunks[0]] = plane + np.arange(c, c + chunks[0], dtype=np.float32)[:, None, None] * 4099
    x = da.from_zarr(str(tmp_path / "v.zarr"))
    assert x.nbytes >= 3 * limit
    rng = np.random.default_rng(12)
    size = (8, 32, 32)
    starts = np.stack([rng.integers(0, d - s + 1, 1000) for d, s in zip(shape, size)], 1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=limit,
                                  dashboard_address=None) as c, distributed.Client(c) as client:
        got = client.compute(dsd.crops(x, starts, size, chunks=50)).result()
        spilled, peak = _spill_writes(client), _worker_peak_mib(client)
    print(f"keys spilled per worker: {spilled}; peak RSS MiB: {peak}")
    assert not any(spilled.values()), f"a worker spilled to disk: the input was held, not streamed: {spilled}"
    # Under the limit itself: a worker's baseline (Python, NumPy, distributed) differs between
    # machines, and the spill counters above already say whether the input was held.
    assert max(peak.values()) < limit >> 20, peak
    i, j, k = (np.arange(e)[None, :] + starts[:, [a]] for a, e in enumerate(size))
    ref = (j[:, None, :, None] * shape[2] + k[:, None, None, :]) % 4099 + i[:, :, None, None] * 4099
    assert np.array_equal(got, ref.astype(np.float32))


def _doc_blocks():
    """The ```python blocks of docs/dask.md, in order."""
    text = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "dask.md"), encoding="utf-8").read()
    blocks = [("\n" * text[:m.start(1)].count("\n")) + m.group(1)  # tracebacks give the page's lines
              for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)]
    assert blocks, "docs/dask.md has no python example"
    return blocks


def test_docs_examples_run(tmp_path, monkeypatch):
    """docs/dask.md's examples run as written (in one namespace, in a scratch folder: they write a store)."""
    pytest.importorskip("zarr", reason="Zarr is not installed (python3-zarr)")
    monkeypatch.chdir(tmp_path)
    scope = {}
    with dask.config.set(scheduler="threads"):  # not the module's cluster, once it is up
        for code in _doc_blocks():
            exec(compile(code, "docs/dask.md", "exec"), scope)


def test_each_block_has_one_reader():
    """The property that bounds memory: each input block is read by one task (which keeps only
    the crops and pieces cut from it), so no block waits in memory for an unrelated task."""
    from dask.core import get_dependencies
    x = da.zeros((40, 50, 60), dtype=np.float32, chunks=(7, 9, 11))
    rng = np.random.default_rng(11)
    size = (8, 10, 12)  # larger than a block: every crop straddles borders
    starts = np.stack([rng.integers(0, d - s + 1, 300) for d, s in zip(x.shape, size)], 1)
    y = dsd.crops(x, starts, size, chunks=50)
    dsk = dict(y.__dask_graph__())
    readers = {}
    for key, task in dsk.items():
        for dep in get_dependencies(dsk, key, task=task):
            if isinstance(dep, tuple) and dep[0] == x.name:
                readers.setdefault(dep, []).append(key)
    assert readers and all(len(r) == 1 for r in readers.values()), max(readers.values(), key=len)
    outputs = [k for k in dsk if k[0] == y.name]
    for key in outputs:  # output blocks draw from the block tasks, never from the input's blocks
        assert all(d[0] != x.name for d in get_dependencies(dsk, key)), key


def _random_key(rng, rank):
    """A NumPy basic index over rank axes: ints (negative too), slices with any step and bounds
    past the ends, None, sometimes an Ellipsis standing for the last axes."""
    items = []
    for _ in range(rank):
        kind = rng.integers(0, 4)
        if kind == 0:
            items.append(int(rng.integers(-1, 1)) if rng.integers(0, 2) else 0)
        else:
            step = int(rng.choice([-5, -3, -2, -1, 1, 2, 3, 7]))
            ends = [None if rng.integers(0, 3) == 0 else int(rng.integers(-30, 30)) for _ in range(2)]
            items.append(slice(ends[0], ends[1], step))
        if rng.integers(0, 5) == 0:
            items.append(None)
    if rank and rng.integers(0, 4) == 0:
        items = items[:int(rng.integers(0, rank))] + [Ellipsis]
    return tuple(items)


def test_index_equals_numpy():
    """R-NP-STEP, R-WIN-COUNT: dsd.index over random shapes, chunkings and keys (negative steps,
    windows across block borders and at the edges) equals NumPy's and ds.index's on the whole array."""
    rng = np.random.default_rng(21)
    for _ in range(60):
        rank = int(rng.integers(1, 4))
        shape = tuple(int(v) for v in rng.integers(1, 20, rank))
        a = rng.integers(0, 1000, shape).astype(np.int32)
        chunks = tuple(int(rng.integers(1, d + 1)) for d in shape)
        key = _random_key(rng, rank)
        y = dsd.index(da.from_array(a, chunks=chunks), key)
        got = y.compute(scheduler="sync")
        assert y.shape == got.shape == a[key].shape, (shape, chunks, key)
        assert np.array_equal(got, a[key]) and np.array_equal(got, ds.index(a, key)), (shape, chunks, key)


def test_windows_of_every_form():
    """R-WIN-BOUNDS: dsd.windows takes NumPy keys and operators of the package's slice forms
    (SLICE, SLICE1 with negative strides, ONNX, WebNN), each equal to the operator on the whole array."""
    rng = np.random.default_rng(22)
    a = rng.random((23, 31, 9)).astype(np.float32)
    x = da.from_array(a, chunks=(5, 8, 4))
    s, d = a.shape, a.dtype
    items = [(slice(None, None, -3), 4), np.s_[2:20, ::-1, None, 1:8:2],
             ds.plan("slice1", s, d, [1, 2, 0], [20, 29, 9], [-3, 2, -1]),
             ds.plan("slice", s, d, [3, 0, 1], [5, 31, 3], [4, 1, 2]),
             ds.plan("onnx_slice", s, d, [-1, 3], [0, 30], [0, 1], [-2, 9]),
             ds.plan("webnn_slice", s, d, [4, 6, 2], [17, 20, 7], [3, 1, 2]),
             ds.plan("webnn_reverse", s, d, [1])]
    got = dsd.windows(x, items)
    for item, y in zip(items, got):
        ref = item(a) if isinstance(item, ds.Operator) else a[item]
        assert y.shape == ref.shape and np.array_equal(y.compute(scheduler="threads"), ref), item


def test_window_errors_at_graph_time():
    """R-NP-BOUNDS: a bad key raises when the graph is built, with ds.index's own error; an
    operator of another shape or a transpose is refused, naming the item."""
    a = np.zeros((10, 12), np.float32)
    x = da.from_array(a, chunks=5)
    with pytest.raises(ds.Error) as mine:
        dsd.index(x, (3, 12))
    with pytest.raises(ds.Error) as theirs:
        ds.index(a, (3, 12))
    assert type(mine.value) is type(theirs.value) and str(mine.value) == str(theirs.value)
    with pytest.raises(ds.ArgumentError, match=r"item 1: the operator is planned for \(10, 13\)"):
        dsd.windows(x, [np.s_[::2], ds.plan("index", (10, 13), np.float32, np.s_[1:])])
    with pytest.raises(ds.ArgumentError, match="item 0: a transpose operator is not a window"):
        dsd.windows(x, [ds.plan("transpose", (10, 12), np.float32, None)])
    with pytest.raises(ds.DTypeError, match="not a Dask array"):
        dsd.windows(a, [np.s_[::2]])
