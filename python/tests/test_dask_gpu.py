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
