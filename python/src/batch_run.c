/*
 * batch_run.c: every call the extension makes into the batch library
 * (<dmlslice/batch.h>): arrays described in copy units, split, crops and
 * item batches made, and run where the arrays live (devices.c: one pass of
 * the CPU's threads, one launch on a GPU). Errors become the package's
 * exceptions.
 */
#include "batch_run.h"

#include <stddef.h>
#include <string.h>

#include "errors.h"
#include "layout.h"
#include <dmlslice/batch.h>

int bt_describe(const array_view *v, const char *what, bt_tensor *t) {
    int empty = 0;
    for (int i = 0; i < v->ndim; i++) empty |= v->shape[i] == 0;
    t->unit = layout_copy_unit(v->itemsize, v->ndim, v->shape, v->strides, 0, NULL, NULL);
    t->k = v->itemsize / t->unit;
    int rank = v->ndim + (t->k > 1);
    if (rank > EXT_MAX_RANK) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-PY-LAYOUT",
                  "%s has %d axes%s; split, crops and batches take at most %d", what, v->ndim,
                  t->k > 1 ? " and elements copied in parts (one more axis)" : "", EXT_MAX_RANK);
        return -1;
    }
    int64_t lo = 0, hi = 0;
    t->ndim = rank;
    for (int i = 0; i < v->ndim; i++) {
        int64_t st = v->shape[i] > 1 ? v->strides[i] : 0;
        t->shape[i] = v->shape[i];
        t->strides[i] = st / t->unit;
        if (st < 0)
            lo += (v->shape[i] - 1) * st;
        else
            hi += (v->shape[i] - 1) * st;
    }
    if (t->k > 1) t->shape[v->ndim] = t->k, t->strides[v->ndim] = 1;
    t->base = empty ? v->data : v->data + lo;
    t->offset = empty ? 0 : (uint64_t)-lo;
    t->bytes = empty ? 0 : (uint64_t)(hi - lo + v->itemsize);
    return 0;
}

static dmls_tensor native(const bt_tensor *t) {
    dmls_tensor n = {(dmls_dtype)layout_unit_dtype(t->unit), t->ndim, t->shape, t->strides, t->offset};
    return n;
}

int bt_split_sizes(int64_t d, int64_t n, int rule, int64_t **sizes, size_t *count) {
    dmls_status st = dmls_split_sizes(d, n, (dmls_split_rule)rule, NULL, 0, count);
    if (st == DMLS_ERROR_SHAPE_MISMATCH) { /* ONNX's rule, which names the other modes: here they are mode='s */
        ext_raise(ERR_ARGUMENT, dmls_status_name(st), dmls_last_error_rule(),
                  "%s (mode=\"array_split\" or mode=\"chunk\")", dmls_last_error());
        return -1;
    }
    if (st != DMLS_OK) {
        ext_raise_status(st);
        return -1;
    }
    *sizes = PyMem_Malloc(sizeof(int64_t) * (*count ? *count : 1));
    if (!*sizes) {
        PyErr_NoMemory();
        return -1;
    }
    st = dmls_split_sizes(d, n, (dmls_split_rule)rule, *sizes, *count, count);
    if (st != DMLS_OK) {
        PyMem_Free(*sizes);
        *sizes = NULL;
        ext_raise_status(st);
        return -1;
    }
    return 0;
}

void *bt_split(const bt_tensor *t, int axis, const int64_t *sizes, size_t n, int one_output) {
    dmls_tensor in = native(t);
    dmls_batch *b = NULL;
    dmls_status st = dmls_batch_create_split(&in, axis, sizes, n, one_output, &b);
    if (st == DMLS_OK) return b;
    ext_raise_status(st);
    return NULL;
}

void *bt_crops(const bt_tensor *t, const int64_t *size, size_t n, int width) {
    dmls_tensor in = native(t);
    dmls_batch *b = NULL;
    dmls_status st =
        dmls_batch_create_crops(&in, size, n, NULL, width == 4 ? DMLS_STARTS_INT32 : DMLS_STARTS_INT64, &b);
    if (st == DMLS_OK) return b;
    ext_raise_status(st);
    return NULL;
}

void *bt_items(void *const *ops, const uint32_t *in_slot, const uint32_t *out_slot, size_t n, uint32_t n_in,
               uint32_t n_out) {
    dmls_batch_item *items = PyMem_Calloc(n ? n : 1, sizeof *items);
    if (!items) return PyErr_NoMemory();
    for (size_t i = 0; i < n; i++) {
        items[i].op = ops[i];
        items[i].in_slot = in_slot[i];
        items[i].out_slot = out_slot[i];
    }
    dmls_batch *b = NULL;
    dmls_status st = dmls_batch_create(items, n, n_in, n_out, &b);
    PyMem_Free(items);
    if (st == DMLS_OK) return b;
    ext_raise_status(st);
    return NULL;
}

void bt_free(void *batch) { dmls_batch_destroy(batch); }

int bt_run(void *batch, const dmls_batch_input *in, uint32_t n_in, const dmls_batch_output *out, uint32_t n_out,
           uint64_t out_bytes, const run_where *w) {
    return devices_batch(w, batch, in, n_in, out, n_out, out_bytes);
}
