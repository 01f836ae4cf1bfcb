/*
 * library_loops.h: the library's own run of the work python/bench/bench.py
 * times from Python, looped in C, so that the benchmark prints the
 * binding's cost beside the library's in the same process and run.
 */
#ifndef DMLSLICE_PY_LIBRARY_LOOPS_H
#define DMLSLICE_PY_LIBRARY_LOOPS_H

#include <Python.h>

/* _library_loop(kind, rows, cols, n, calls, device="cpu"), taking
 * keywords (library_loops.c says what it runs): a row of module.c's
 * function table. */
PyObject *library_loop_fn(PyObject *self, PyObject *args, PyObject *kw);

#endif /* DMLSLICE_PY_LIBRARY_LOOPS_H */
