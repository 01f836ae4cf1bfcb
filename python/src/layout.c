/*
 * layout.c: byte strides and element splitting, in one place. Two array
 * views (any byte strides, any sign) and a lowered slice become the library's native
 * operator: strides in units of the largest of 8, 4, 2, 1 bytes that divides
 * the item size and every stride, an element wider than that unit copied as
 * k units along one more axis, axes of size 1 on both sides left out, and
 * the byte range each tensor spans. An array of more than EXT_MAX_RANK axes
 * is first folded by the library's view (dmls_lower_numpy_view).
 */
#include "layout.h"
#include "array_view.h"
#include "errors.h"
#include "lowering.h"

#include <string.h>

#include <dmlslice/dmlslice.h>
#include <dmlslice/frontends.h>
#include <dmlslice/view.h>

_Static_assert(EXT_MAX_RANK == DMLS_MAX_RANK, "the extension's rank limit is the library's");
_Static_assert(EXT_ARRAY_MAX_RANK == DMLS_NUMPY_MAX_RANK, "the extension's array rank limit is the library's");

/* One side of a copy: the library's import of its view (sizes and strides
 * in copy units, the offset from its lowest byte to element 0, its span)
 * and that lowest byte. */
typedef struct side {
    dmls_imported_view v;
    char *base;
} side;

/* data's view in elements of `unit` bytes; raises the library's error. */
static int make_side(side *s, int ndim, const int64_t *shape, const int64_t *bstrides, char *data, int64_t itemsize,
                     int64_t unit) {
    dmls_byte_view bv = {ndim, shape, bstrides, itemsize};
    dmls_status st = dmls_view_import(&bv, unit, &s->v);
    if (st != DMLS_OK) {
        ext_raise_status(st);
        return -1;
    }
    s->base = s->v.bytes ? data - s->v.byte_offset : data;
    return 0;
}

/* Packed as layout_compile describes a lowered slice's arrays: element strides in units,
 * an element being k units. */
static int is_packed(const side *s, int64_t k) {
    int64_t want = k;
    for (int i = s->v.ndim - 1; i >= 0; i--) {
        if (s->v.shape[i] > 1 && s->v.strides[i] != want) return 0;
        want *= s->v.shape[i];
    }
    return s->v.byte_offset == 0;
}

int layout_unit_dtype(int64_t unit) {
    return unit == 1 ? DMLS_UINT8 : unit == 2 ? DMLS_UINT16 : unit == 4 ? DMLS_UINT32 : DMLS_UINT64;
}

/* See layout.h. A byte stride that is no multiple of the item size (a field of
 * a record array, a view through np.lib.stride_tricks) is read exactly this
 * way. The arrays were read by arrays.c (an item of at least 1 byte, sizes
 * of at least 0, at most EXT_ARRAY_MAX_RANK axes), so the library finds no
 * fault with them; unit 1 would serve any view. */
int64_t layout_copy_unit(int64_t itemsize, int n, const int64_t *shape, const int64_t *strides, int m,
                         const int64_t *shape2, const int64_t *strides2) {
    int64_t unit = 8;
    dmls_byte_view a = {n, shape, strides, itemsize}, b = {m, shape2, strides2, itemsize};
    if (dmls_view_unit(&a, &unit) != DMLS_OK || dmls_view_unit(&b, &unit) != DMLS_OK) return 1;
    return unit;
}

/* The output's strides on the lowered slice's SLICE1 axes. Dropped (NumPy integer)
 * and inserted (None) axes have size 1, so the axes of size other than 1
 * are the same, in the same order, in both shapes. */
static void out_strides(const lowered *p, const array_view *out, int64_t *bstrides, int64_t *shape) {
    int ndim = p->ndim;
    const int64_t *sizes = p->grad ? p->final_shape : p->out_sizes;
    int j = 0;
    for (int i = 0; i < ndim; i++) {
        shape[i] = sizes[i];
        bstrides[i] = 0;
        if (sizes[i] == 1) continue;
        while (j < out->ndim && out->shape[j] == 1) j++;
        if (j < out->ndim) bstrides[i] = out->strides[j++];
    }
}

/* Makes the native operator. Axes of size 1 on both sides (the window
 * there is offset 0, size 1) move no address and are left out, which makes
 * room for the element-splitting axis at rank 8. */
static int create(const lowered *p, int64_t unit, int64_t k, const side *in, const side *out, dmls_operator **op) {
    int64_t off[EXT_MAX_RANK + 1], ws[EXT_MAX_RANK + 1], wst[EXT_MAX_RANK + 1];
    int64_t ishape[EXT_MAX_RANK + 1], istr[EXT_MAX_RANK + 1], oshape[EXT_MAX_RANK + 1], ostr[EXT_MAX_RANK + 1];
    int n = 0;
    for (int i = 0; i < p->ndim; i++) {
        if (in->v.shape[i] == 1 && out->v.shape[i] == 1) continue;
        off[n] = p->offsets[i];
        ws[n] = p->wsizes[i];
        wst[n] = p->wstrides[i];
        ishape[n] = in->v.shape[i];
        istr[n] = in->v.strides[i];
        oshape[n] = out->v.shape[i];
        ostr[n] = out->v.strides[i];
        n++;
    }
    /* An empty result is written nowhere: its elements need no splitting. */
    if (k > 1 && out->v.bytes) { /* the bytes of one element, as k units along a last axis */
        if (n == EXT_MAX_RANK) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-PY-LAYOUT",
                      "%d axes not of size 1 with elements copied as %lld parts of %lld bytes (the "
                      "item size or a byte stride is not a multiple of 8, 4 or 2) need one more "
                      "dimension than the %d dmlslice takes",
                      n, (long long)k, (long long)unit, EXT_MAX_RANK);
            return -1;
        }
        off[n] = 0, ws[n] = k, wst[n] = 1;
        ishape[n] = oshape[n] = k;
        istr[n] = ostr[n] = 1;
        n++;
    }
    dmls_tensor ti = {(dmls_dtype)layout_unit_dtype(unit), n, ishape, istr, in->v.byte_offset};
    dmls_tensor to = {(dmls_dtype)layout_unit_dtype(unit), n, oshape, ostr, out->v.byte_offset};
    dmls_window w = {off, ws, wst};
    dmls_status st = p->grad ? dmls_create_grad(&ti, &to, &w, op) : dmls_create(&ti, &to, &w, op);
    if (st != DMLS_OK) {
        ext_raise_status(st);
        return -1;
    }
    return 0;
}

/* The library's view of an array of more than EXT_MAX_RANK axes takes
 * element strides of one sign, in units (copy_unit) here. */
static int view_strides(const array_view *in, int64_t unit, int64_t *t, uint64_t *bytes) {
    uint64_t span = (uint64_t)in->itemsize;
    for (int i = 0; i < in->ndim; i++) {
        int64_t st = in->shape[i] > 1 ? in->strides[i] : 0;
        if (st < 0) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-PY-LAYOUT",
                      "the array has %d axes and a negative stride on axis %d (%lld bytes): arrays of more "
                      "than %d axes are read through a view whose strides are not negative (as .npy files' "
                      "are); pass a copy, e.g. np.ascontiguousarray(x)",
                      in->ndim, i, (long long)st, EXT_MAX_RANK);
            return -1;
        }
        t[i] = st / unit;
        span += (uint64_t)(in->shape[i] - 1) * (uint64_t)st;
    }
    *bytes = span;
    return 0;
}

/* The result of a view is its SLICE1 output, packed: out must be packed too. */
static int packed_result(const array_view *out) {
    int64_t want = out->itemsize;
    for (int i = out->ndim - 1; i >= 0; i--) {
        if (out->shape[i] > 1 && out->strides[i] != want) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-PY-OUT",
                      "out= has stride %lld on axis %d: the result of an array of more than %d axes is "
                      "written C-contiguous; pass a C-contiguous out=",
                      (long long)out->strides[i], i, EXT_MAX_RANK);
            return -1;
        }
        want *= out->shape[i];
    }
    return 0;
}

/* The packed arrays of a lowered slice's shapes, as layout_bind would
 * describe them (a transpose's input as the view its window reads, which
 * layout_is_packed_input then compares with an array's view). */
static int packed_sides(const lowered *p, int64_t itemsize, int64_t unit, side *in, side *out, int64_t *in_bstrides) {
    static char nowhere[8]; /* a base for the description; never read */
    int64_t ishape[EXT_MAX_RANK] = {0}, istr[EXT_MAX_RANK] = {0}, oshape[EXT_MAX_RANK] = {0}, ostr[EXT_MAX_RANK] = {0};
    const int64_t *osz = p->grad ? p->final_shape : p->out_sizes;
    int64_t si = itemsize, so = itemsize;
    for (int i = p->ndim - 1; i >= 0; i--) {
        ishape[i] = p->in_shape[i], istr[i] = si, si *= p->in_shape[i];
        oshape[i] = osz[i], ostr[i] = so, so *= osz[i];
    }
    if (p->transposed) { /* the window reads the packed input's permuted view */
        int64_t shape[EXT_MAX_RANK], strides[EXT_MAX_RANK];
        for (int i = 0; i < p->ndim; i++) shape[i] = ishape[p->perm[i]], strides[i] = istr[p->perm[i]];
        memcpy(ishape, shape, sizeof shape);
        memcpy(istr, strides, sizeof strides);
    }
    memcpy(in_bstrides, istr, sizeof(int64_t) * (size_t)p->ndim);
    if (make_side(in, p->ndim, ishape, istr, nowhere, itemsize, unit) < 0) return -1;
    return make_side(out, p->ndim, oshape, ostr, nowhere, itemsize, unit);
}

int layout_compile(compiled *c, const lowered *p, int64_t itemsize) {
    memset(c, 0, sizeof *c);
    c->p = *p;
    c->itemsize = itemsize;
    if (p->expr) { /* each array gets its own view (bind_view) */
        size_t n = strlen(p->expr) + 1;
        if (!(c->expr = PyMem_Malloc(n))) {
            PyErr_NoMemory();
            return -1;
        }
        c->p.expr = memcpy(c->expr, p->expr, n);
        return 0;
    }
    if (lowered_empty(p)) return 0; /* nothing to copy, ever */
    int64_t unit = itemsize & -itemsize;
    if (unit > 8) unit = 8;
    side in, out;
    if (packed_sides(p, itemsize, unit, &in, &out, c->in_strides) < 0) return -1;
    dmls_operator *op = NULL;
    if (create(p, unit, itemsize / unit, &in, &out, &op) < 0) return -1;
    c->packed_op = op;
    c->in_bytes = in.v.bytes;
    c->out_bytes = out.v.bytes;
    return 0;
}

void layout_compiled_free(compiled *c) {
    dmls_destroy(c->packed_op);
    c->packed_op = NULL;
    PyMem_Free(c->expr);
    c->expr = NULL;
}

int layout_is_packed_input(const compiled *c, const array_view *in) {
    return c->packed_op && in->itemsize == c->itemsize &&
           memcmp(in->strides, c->in_strides, sizeof(int64_t) * (size_t)c->p.ndim) == 0;
}

int layout_is_packed_output(const compiled *c, const array_view *out) {
    if (!c->packed_op || out->itemsize != c->itemsize) return 0;
    int64_t want = out->itemsize;
    for (int i = out->ndim - 1; i >= 0; i--) {
        if (out->shape[i] != 1 && out->strides[i] != want) return 0;
        want *= out->shape[i];
    }
    return 1;
}

/* A NumPy key over more than EXT_MAX_RANK axes: the library's view of this
 * array (axes of one element folded into its offset, contiguous runs
 * merged; dmls_lower_numpy_view), a window over that, the result packed. */
static int bind_view(const lowered *p, const array_view *in, const array_view *out, bound_copy *b) {
    int64_t unit = layout_copy_unit(in->itemsize, in->ndim, in->shape, in->strides, 0, NULL, NULL);
    int64_t k = in->itemsize / unit;
    int64_t t[EXT_ARRAY_MAX_RANK];
    uint64_t in_bytes;
    if (view_strides(in, unit, t, &in_bytes) < 0 || packed_result(out) < 0) return -1;
    dmls_lowered_view v;
    dmls_status st = dmls_lower_numpy_view(in->ndim, in->shape, t, p->expr, &v);
    if (st != DMLS_OK) return lowering_numpy_failed(st);
    const dmls_lowered *w = &v.slice;
    lowered q = {.ndim = w->ndim};
    side si = {.v = {.ndim = w->ndim, .byte_offset = (uint64_t)(v.in_offset * unit), .bytes = in_bytes},
               .base = in->data};
    side so = {.v = {.ndim = w->ndim, .bytes = (uint64_t)out->itemsize}, .base = out->data};
    int64_t packed = k;
    for (int i = w->ndim - 1; i >= 0; i--) {
        q.offsets[i] = w->offsets[i], q.wsizes[i] = w->sizes[i], q.wstrides[i] = w->strides[i];
        si.v.shape[i] = v.in_shape[i], si.v.strides[i] = v.in_strides[i];
        so.v.shape[i] = w->out_sizes[i], so.v.strides[i] = packed;
        packed *= w->out_sizes[i];
        so.v.bytes *= (uint64_t)w->out_sizes[i];
    }
    dmls_operator *op = NULL;
    if (create(&q, unit, k, &si, &so, &op) < 0) return -1;
    *b = (bound_copy){op, 1, si.base, so.base, si.v.bytes, so.v.bytes};
    return 0;
}

int layout_bind(const lowered *p, const compiled *c, const array_view *in, const array_view *out, bound_copy *b) {
    memset(b, 0, sizeof *b);
    if (lowered_empty(p)) return 0;
    if (p->expr) return bind_view(p, in, out, b);
    int64_t ob[EXT_MAX_RANK] = {0}, oshape[EXT_MAX_RANK] = {0};
    out_strides(p, out, ob, oshape);
    int64_t unit = layout_copy_unit(in->itemsize, in->ndim, in->shape, in->strides, p->ndim, oshape, ob);
    int64_t k = in->itemsize / unit;
    side si, so;
    if (make_side(&si, p->ndim, in->shape, in->strides, in->data, in->itemsize, unit) < 0 ||
        make_side(&so, p->ndim, oshape, ob, out->data, in->itemsize, unit) < 0)
        return -1;
    if (so.v.bytes == 0) return 0; /* an empty result: the lowered slice is valid, nothing to copy */
    int64_t cunit = in->itemsize & -in->itemsize;
    if (cunit > 8) cunit = 8;
    dmls_operator *op = NULL;
    int owned = 0;
    if (c && c->packed_op && unit == cunit && is_packed(&si, k) && is_packed(&so, k))
        op = c->packed_op;
    else if (create(p, unit, k, &si, &so, &op) < 0)
        return -1;
    else
        owned = 1;
    *b = (bound_copy){op, owned, si.base, so.base, si.v.bytes, so.v.bytes};
    return 0;
}

void layout_unbind(bound_copy *b) {
    if (b->owned) dmls_destroy(b->op);
    b->op = NULL;
}
