/*
 * library_loops.c: _library_loop(kind, rows, cols, n, calls), the
 * library's calls for the benchmark's overhead rows, made `calls` times
 * back to back on this thread with the GIL held, as the binding makes
 * them; Python times the whole loop (one Python call over many library
 * calls). On a float32 rows x cols C-contiguous array of the library's own:
 *   "slice"  dmls_execute of x[1:3, ::2] (n unused), a plan made once
 *   "split"  dmls_batch_execute of a split of the last axis into n equal
 *            parts (cols a multiple of n), the batch made once
 * The bench compares these with ds.index / Operator and ds.split on an
 * array of the same shape.
 */
#include "library_loops.h"

#include <stdlib.h>
#include <string.h>

#include <dmlslice/batch.h>

#include "errors.h"

#define MAX_PARTS 64

static dmls_status loop_slice(int64_t rows, int64_t cols, long calls, const float *x, float *y) {
    const int64_t in_shape[2] = {rows, cols}, out_shape[2] = {2, (cols + 1) / 2};
    const int64_t offs[2] = {1, 0}, sizes[2] = {2, cols}, steps[2] = {1, 2};
    const dmls_tensor in = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    const dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL;
    dmls_status st = dmls_create(&in, &out, &w, &op);
    const uint64_t in_bytes = (uint64_t)(rows * cols) * 4, out_bytes = (uint64_t)(2 * out_shape[1]) * 4;
    for (long k = 0; st == DMLS_OK && k < calls; k++) st = dmls_execute(op, x, in_bytes, y, out_bytes);
    dmls_destroy(op);
    return st;
}

static dmls_status loop_split(int64_t rows, int64_t cols, int64_t n, long calls, const float *x, float *y) {
    const int64_t shape[2] = {rows, cols};
    int64_t sizes[MAX_PARTS];
    dmls_batch_output out[MAX_PARTS];
    for (int64_t j = 0; j < n; j++) {
        sizes[j] = cols / n;
        out[j] = (dmls_batch_output){y + j * rows * (cols / n), (uint64_t)(rows * (cols / n)) * 4};
    }
    const dmls_tensor in = {DMLS_FLOAT32, 2, shape, NULL, 0};
    const dmls_batch_input src = {x, (uint64_t)(rows * cols) * 4};
    dmls_batch *b = NULL;
    dmls_status st = dmls_batch_create_split(&in, 1, sizes, (size_t)n, 0, &b);
    for (long k = 0; st == DMLS_OK && k < calls; k++) st = dmls_batch_execute(b, NULL, &src, 1, out, (uint32_t)n);
    dmls_batch_destroy(b);
    return st;
}

static PyObject *fn_library_loop(PyObject *self, PyObject *args) {
    (void)self;
    const char *kind;
    long long rows, cols, n;
    long calls;
    if (!PyArg_ParseTuple(args, "sLLLl", &kind, &rows, &cols, &n, &calls)) return NULL;
    const int split = strcmp(kind, "split") == 0;
    if ((!split && strcmp(kind, "slice") != 0) || rows < 3 || cols < 1 || rows * cols > (1 << 24) ||
        (split && (n < 1 || n > MAX_PARTS || cols % n != 0)))
        return PyErr_Format(PyExc_ValueError,
                            "_library_loop: kind '%s' (slice or split), %lld x %lld (at least 3 x 1, at most 2^24 "
                            "elements), %lld parts (1..%d dividing the columns)",
                            kind, rows, cols, n, MAX_PARTS);
    float *x = calloc((size_t)(rows * cols), sizeof *x), *y = calloc((size_t)(rows * cols), sizeof *y);
    dmls_status st = x && y ? DMLS_OK : DMLS_ERROR_OUT_OF_MEMORY;
    if (st == DMLS_OK) st = split ? loop_split(rows, cols, n, calls, x, y) : loop_slice(rows, cols, calls, x, y);
    free(x), free(y);
    if (!x || !y) return PyErr_NoMemory();
    if (st != DMLS_OK) return ext_raise_status(st);
    Py_RETURN_NONE;
}

static PyMethodDef library_loop_methods[] = {
    {"_library_loop", fn_library_loop, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

int library_loops_add(PyObject *m) { return PyModule_AddFunctions(m, library_loop_methods); }
