/*
 * library_loops.h: the library's own run of the work python/bench/bench.py
 * times from Python, looped in C, so that the benchmark prints the
 * binding's cost beside the library's in the same process and run.
 */
#ifndef DMLSLICE_PY_LIBRARY_LOOPS_H
#define DMLSLICE_PY_LIBRARY_LOOPS_H

#include <Python.h>

/* Adds _library_loop to m. 0, or -1. */
int library_loops_add(PyObject *m);

#endif /* DMLSLICE_PY_LIBRARY_LOOPS_H */
