"""dmlslice.dask on CuPy chunks (the GPU machine; recorded, not in CI):
each anchor task's ds.crops runs on the GPU. R-CROP-BOUNDS."""
import numpy as np
import pytest

import dmlslice as ds

cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
da = pytest.importorskip("dask.array", reason="Dask is not installed (Debian: python3-dask)")
from dmlslice import dask as dsd  # noqa: E402

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not ds.cuda_available(), reason="no CUDA device or a build without CUDA")]


def test_crops_on_cupy_chunks():
    rng = np.random.default_rng(2)
    a = rng.random((50, 60, 70)).astype(np.float32)
    x = da.from_array(cupy.asarray(a), chunks=(16, 25, 30), asarray=False)
    starts = np.stack([rng.integers(0, d - s + 1, 300) for d, s in zip(a.shape, (7, 9, 11))], 1)
    y = dsd.crops(x, starts, (7, 9, 11), chunks=64)
    got = y.compute(scheduler="threads")
    assert isinstance(got, cupy.ndarray)
    assert np.array_equal(cupy.asnumpy(got), ds.crops(a, starts, (7, 9, 11)))


def test_crops_on_gpu_worker_processes():
    """R-CROP-BOUNDS on a distributed LocalCluster of worker processes, each with CuPy chunks made
    on the worker: the anchor tasks' ds.crops run on the workers' GPU, the result comes back as a
    CuPy array equal to ds.crops on the whole array in NumPy."""
    distributed = pytest.importorskip("distributed", reason="distributed is not installed (python3-distributed)")
    rng = np.random.default_rng(4)
    a = rng.integers(0, 60000, (64, 48, 40), dtype=np.uint16)
    size = (6, 13, 9)
    starts = np.stack([rng.integers(0, d - s + 1, 400) for d, s in zip(a.shape, size)], 1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True,
                                  dashboard_address=None) as c, distributed.Client(c) as client:
        x = da.from_array(a, chunks=(20, 16, 15)).map_blocks(cupy.asarray, dtype=a.dtype,
                                                              meta=cupy.empty((0, 0, 0), a.dtype))
        y = dsd.crops(x, starts, size, chunks=96)
        got = client.compute(y).result()
        kinds = client.run(lambda: __import__("dmlslice").cuda_available())
    assert isinstance(got, cupy.ndarray)
    assert all(kinds.values()) and len(kinds) == 2
    assert np.array_equal(cupy.asnumpy(got), ds.crops(a, starts, size))
