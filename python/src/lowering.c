/*
 * lowering.c: the front ends' parameters (NumPy keys as text, ONNX, WebNN)
 * lowered by the library to a lowered slice: a SLICE1 window over the input and the
 * result's shape. The library holds every front end's rules; this file
 * turns its answers into plans and its refusals into the package's
 * exceptions.
 */
#include "lowering.h"
#include "array_view.h"
#include "errors.h"

#include <string.h>

#include <dmlslice/dmlslice.h>
#include <dmlslice/frontends.h>

static int from_lowered(dmls_status st, const dmls_lowered *l, int ndim, const int64_t *shape, lowered *p) {
    if (st != DMLS_OK) {
        ext_raise_status(st);
        return -1;
    }
    memset(p, 0, sizeof *p);
    p->ndim = l->ndim;
    memcpy(p->in_shape, shape, sizeof(int64_t) * (size_t)ndim);
    memcpy(p->offsets, l->offsets, sizeof l->offsets);
    memcpy(p->wsizes, l->sizes, sizeof l->sizes);
    memcpy(p->wstrides, l->strides, sizeof l->strides);
    memcpy(p->out_sizes, l->out_sizes, sizeof l->out_sizes);
    p->final_ndim = l->final_ndim;
    memcpy(p->final_shape, l->final_shape, sizeof l->final_shape);
    return 0;
}

int lowering_numpy_failed(int st) {
    /* What NumPy refuses with IndexError (two ellipses, too many axes) is an
     * IndexError here too; out of bounds already is one. */
    if (st == DMLS_ERROR_INVALID_ARGUMENT || st == DMLS_ERROR_UNSUPPORTED) {
        ext_raise(ERR_INDEX_KEY, dmls_status_name((dmls_status)st), dmls_last_error_rule(), "%s", dmls_last_error());
        return -1;
    }
    ext_raise_status(st);
    return -1;
}

/* One parse of the key, whatever the rank: the library's view of a packed
 * array of this shape checks the key and gives NumPy's shape. Up to
 * EXT_MAX_RANK input axes its window is over the input itself; above that,
 * each array's own view is made when it is sliced (layout.c's bind_view). */
int lowering_numpy(int ndim, const int64_t *shape, const char *expr, lowered *p) {
    dmls_lowered_view v;
    dmls_status st = dmls_lower_numpy_view(ndim, shape, NULL, expr, &v);
    if (st != DMLS_OK) return lowering_numpy_failed(st);
    memset(p, 0, sizeof *p);
    p->ndim = ndim;
    memcpy(p->in_shape, shape, sizeof(int64_t) * (size_t)ndim);
    p->expr = expr;
    if (ndim <= EXT_MAX_RANK) { /* the window is over the input itself */
        memcpy(p->offsets, v.slice.offsets, sizeof p->offsets);
        memcpy(p->wsizes, v.slice.sizes, sizeof p->wsizes);
        memcpy(p->wstrides, v.slice.strides, sizeof p->wstrides);
        memcpy(p->out_sizes, v.slice.out_sizes, sizeof p->out_sizes);
        p->expr = NULL;
    }
    p->final_ndim = v.final_ndim;
    memcpy(p->final_shape, v.final_shape, sizeof(int64_t) * (size_t)v.final_ndim);
    return 0;
}

int lowering_add_axis(lowered *p, int pos, int64_t len) {
    if (p->final_ndim == EXT_ARRAY_MAX_RANK) {
        ext_raise(ERR_INDEX_KEY, "DMLS_ERROR_UNSUPPORTED", "R-PY-KEY",
                  "NumPy index: the result would have more than %d axes", EXT_ARRAY_MAX_RANK);
        return -1;
    }
    memmove(p->final_shape + pos + 1, p->final_shape + pos, sizeof(int64_t) * (size_t)(p->final_ndim - pos));
    p->final_shape[pos] = len;
    p->final_ndim++;
    return 0;
}

int lowering_transpose(int ndim, const int64_t *shape, const int64_t *axes, int n_axes, lowered *p) {
    dmls_transposed t;
    dmls_status st = dmls_lower_numpy_transpose(ndim, shape, NULL, axes, n_axes, &t);
    if (st != DMLS_OK) {
        ext_raise_status(st);
        return -1;
    }
    if (ndim > EXT_MAX_RANK) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-OP-RANK",
                  "transpose: the array has %d axes; at most %d are taken", ndim, EXT_MAX_RANK);
        return -1;
    }
    memset(p, 0, sizeof *p);
    p->ndim = p->final_ndim = ndim;
    p->transposed = 1;
    memcpy(p->in_shape, shape, sizeof(int64_t) * (size_t)ndim);
    for (int i = 0; i < ndim; i++) {
        p->perm[i] = t.perm[i];
        p->wsizes[i] = p->out_sizes[i] = p->final_shape[i] = t.shape[i];
        p->wstrides[i] = 1;
    }
    return 0;
}

void lowered_view(const lowered *p, array_view *v) {
    if (!p->transposed) return;
    int64_t shape[EXT_MAX_RANK], strides[EXT_MAX_RANK];
    for (int i = 0; i < p->ndim; i++) shape[i] = v->shape[p->perm[i]], strides[i] = v->strides[p->perm[i]];
    memcpy(v->shape, shape, sizeof(int64_t) * (size_t)p->ndim);
    memcpy(v->strides, strides, sizeof(int64_t) * (size_t)p->ndim);
}

/* True where the result has no element (a boolean scalar's empty axis may
 * be the only sign of it: the SLICE1 window is then the whole input). */
int lowered_empty(const lowered *p) {
    for (int i = 0; i < p->final_ndim; i++)
        if (p->final_shape[i] == 0) return 1;
    return 0;
}

int lowering_onnx(int ndim, const int64_t *shape, const int64_t *starts, const int64_t *ends, int n,
                  const int64_t *axes, int n_axes, const int64_t *steps, int n_steps, lowered *p) {
    dmls_lowered l;
    dmls_status st = dmls_lower_onnx(ndim, shape, starts, ends, n, axes, n_axes, steps, n_steps, &l);
    return from_lowered(st, &l, ndim, shape, p);
}

int lowering_webnn_slice(int ndim, const int64_t *shape, const uint64_t *starts, int n_starts, const uint64_t *sizes,
                         int n_sizes, const uint64_t *strides, int n_strides, lowered *p) {
    dmls_lowered l;
    dmls_status st = dmls_lower_webnn_slice(ndim, shape, starts, n_starts, sizes, n_sizes, strides, n_strides, &l);
    return from_lowered(st, &l, ndim, shape, p);
}

int lowering_webnn_reverse(int ndim, const int64_t *shape, const uint64_t *axes, int n_axes, lowered *p) {
    dmls_lowered l;
    dmls_status st = dmls_lower_webnn_reverse(ndim, shape, axes, n_axes, &l);
    return from_lowered(st, &l, ndim, shape, p);
}
