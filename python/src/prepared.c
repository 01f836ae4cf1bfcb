/*
 * prepared.c: a lowered slice compiled once and shared. An Operator holds one, the
 * key cache holds one per key, and a call in flight holds one while it
 * runs; the last to let go frees it. The counts change only under the GIL.
 */
#include "prepared.h"
#include "errors.h"
#include "layout.h"
#include "lowering.h"

const char *const kind_names[K_COUNT] = {"index",      "slice",       "slice1",        "slice_grad",
                                         "onnx_slice", "webnn_slice", "webnn_reverse", "transpose"};

prepared *prepared_new(int kind, const lowered *p, int64_t itemsize) {
    prepared *pr = PyMem_Calloc(1, sizeof *pr);
    if (!pr) {
        PyErr_NoMemory();
        return NULL;
    }
    pr->refs = 1;
    pr->kind = kind;
    if (layout_compile(&pr->c, p, itemsize) < 0 || !(pr->shape = ext_shape_tuple(p->final_ndim, p->final_shape))) {
        prepared_unref(pr);
        return NULL;
    }
    return pr;
}

void prepared_ref(prepared *pr) { pr->refs++; }

void prepared_unref(prepared *pr) {
    if (!pr || --pr->refs > 0) return;
    layout_compiled_free(&pr->c);
    Py_XDECREF(pr->shape);
    PyMem_Free(pr);
}
