"""One operator on several threads at once, the GIL released while copying,
and the shared pool's size."""
import threading

import numpy as np
import pytest

import dmlslice as ds
from threaded import on_threads


def test_one_operator_many_threads():
    x = np.random.default_rng(0).standard_normal((64, 256, 64)).astype(np.float32)
    op = ds.plan("index", x.shape, x.dtype, "[::-1, 3:200:2, ::3]")
    want = x[::-1, 3:200:2, ::3]
    results = [None] * 8

    def work(i):
        out = np.empty(op.output_shape, np.float32)
        for _ in range(10):
            op(x, out=out)
            assert np.array_equal(out, want)
            assert np.array_equal(op(x[:, :, :]), want)
        results[i] = ds.index(x, "[::-1, 3:200:2, ::3]")

    on_threads(8, work)
    for r in results:
        assert np.array_equal(r, want)


def test_gil_is_released_while_copying():
    """A thread that only needs the GIL makes progress while another copies."""
    x = np.ones((2048, 2048), np.float64)  # 32 MiB per copy
    op = ds.plan("index", x.shape, x.dtype, "[::-1]")
    stop = threading.Event()
    ticks = [0]

    def spin():
        while not stop.is_set():
            ticks[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        before = ticks[0]
        for _ in range(20):
            op(x)
        during = ticks[0] - before
    finally:
        stop.set()
        t.join()
    assert during > 0


def test_pool_size_is_settable():
    default = ds.get_num_threads()
    assert default >= 1
    try:
        ds.set_num_threads(3)
        assert ds.get_num_threads() == 3
        x = np.arange(1 << 20, dtype=np.float32)
        assert np.array_equal(ds.index(x, "[::-1]"), x[::-1])
        ds.set_num_threads(1)
        assert ds.get_num_threads() == 1
    finally:
        ds.set_num_threads(0)
    assert ds.get_num_threads() == default
    with pytest.raises(ds.ArgumentError):
        ds.set_num_threads(5000)


def test_fork_child_gets_its_own_pool():
    import os
    ds.set_num_threads(2)
    x = np.arange(1 << 20, dtype=np.float32)
    ds.index(x, "[::-1]")
    pid = os.fork()
    if pid == 0:  # the child: the parent's workers are not here
        ok = np.array_equal(ds.index(x, "[::-1]"), x[::-1])
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    ds.set_num_threads(0)
    assert os.WEXITSTATUS(status) == 0


def test_set_num_threads_while_slicing_never_hangs():
    """One thread slicing while another resizes the pool: both finish (the
    resize used to take the pool's lock and then wait for the GIL, which
    the slicing thread held while waiting for that lock)."""
    import subprocess
    import sys
    code = """if True:
        import threading, numpy as np, dmlslice as ds
        x = np.zeros(1000, np.float32)
        big = np.zeros(1 << 18, np.float32)
        def a():
            for i in range(20000):
                ds.index(x if i % 8 else big, "[::-1]")
        def b():
            for i in range(4000):
                ds.set_num_threads(1 + i % 2)
        ts = [threading.Thread(target=a), threading.Thread(target=b)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        ds.set_num_threads(0)
        print("done")
    """
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "done", r.stderr
