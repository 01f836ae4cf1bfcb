/*
 * library.c: every call the extension makes into the dmlslice library.
 *
 * The front ends lower to a `plan` (a SLICE1 window plus the result's
 * shape); lib_run turns a plan and two array views into native tensors
 * (dmls_create / dmls_create_grad with the arrays' own strides) and runs
 * them on the shared CPU pool or on the GPU. Errors become the package's
 * exceptions with the library's status name, rule ID and message.
 */
#include "ext.h"

#include <stdio.h>
#include <string.h>

#include <dmlslice/dml.h>
#include <dmlslice/dmlslice.h>
#include <dmlslice/frontends.h>
#ifdef DMLS_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <dmlslice/dmlslice_cuda.h>
#endif

#include "dlpack.h"

_Static_assert(EXT_MAX_RANK == DMLS_MAX_RANK, "the extension's rank limit is the library's");
_Static_assert(EXT_ARRAY_MAX_RANK == DMLS_NUMPY_MAX_RANK, "the extension's array rank limit is the library's");

/* Copies below this many output bytes keep the GIL: releasing and taking it
 * back costs more than the copy. */
#define GIL_FREE_BYTES 65536

/* ------------------------------------------------------------ errors */

static void *lib_raise(dmls_status st) {
    int role = st == DMLS_ERROR_OUT_OF_BOUNDS                                                   ? ERR_OUT_OF_BOUNDS
               : st == DMLS_ERROR_OUT_OF_MEMORY                                                 ? ERR_MEMORY
               : (st == DMLS_ERROR_NO_DEVICE || st == DMLS_ERROR_DEVICE || st == DMLS_ERROR_IO) ? ERR_DEVICE
                                                                                                : ERR_ARGUMENT;
    return ext_raise(role, dmls_status_name(st), dmls_last_error_rule(), "%s", dmls_last_error());
}

/* ------------------------------------------------------------ front ends */

static int from_lowered(dmls_status st, const dmls_lowered *l, int ndim, const int64_t *shape, plan *p) {
    if (st != DMLS_OK) {
        lib_raise(st);
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

static int numpy_failed(dmls_status st) {
    /* What NumPy refuses with IndexError (two ellipses, too many axes) is an
     * IndexError here too; out of bounds already is one. */
    if (st == DMLS_ERROR_INVALID_ARGUMENT || st == DMLS_ERROR_UNSUPPORTED) {
        ext_raise(ERR_INDEX_KEY, dmls_status_name(st), dmls_last_error_rule(), "%s", dmls_last_error());
        return -1;
    }
    lib_raise(st);
    return -1;
}

/* More than EXT_MAX_RANK input or result axes: the library's view of a
 * packed array of that shape checks the key and gives NumPy's shape; each
 * array's own view is made when it is sliced (run_view). */
static int lower_numpy_view(int ndim, const int64_t *shape, const char *expr, plan *p) {
    dmls_lowered_view v;
    dmls_status st = dmls_lower_numpy_view(ndim, shape, NULL, expr, &v);
    if (st != DMLS_OK) return numpy_failed(st);
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

int lib_lower_numpy(int ndim, const int64_t *shape, const char *expr, plan *p) {
    if (ndim > EXT_MAX_RANK) return lower_numpy_view(ndim, shape, expr, p);
    dmls_lowered l;
    dmls_status st = dmls_lower_numpy(ndim, shape, expr, &l);
    if (st == DMLS_ERROR_UNSUPPORTED) return lower_numpy_view(ndim, shape, expr, p);
    if (st != DMLS_OK) return numpy_failed(st);
    return from_lowered(st, &l, ndim, shape, p);
}

int lib_plan_add_axis(plan *p, int pos, int64_t len) {
    if (p->final_ndim == EXT_ARRAY_MAX_RANK) {
        ext_raise(ERR_INDEX_KEY, "DMLS_ERROR_UNSUPPORTED", "", "NumPy index: the result would have more than %d axes",
                  EXT_ARRAY_MAX_RANK);
        return -1;
    }
    memmove(p->final_shape + pos + 1, p->final_shape + pos, sizeof(int64_t) * (size_t)(p->final_ndim - pos));
    p->final_shape[pos] = len;
    p->final_ndim++;
    return 0;
}

/* True where the result has no element (a boolean scalar's empty axis may
 * be the only sign of it: the SLICE1 window is then the whole input). */
static int plan_empty(const plan *p) {
    for (int i = 0; i < p->final_ndim; i++)
        if (p->final_shape[i] == 0) return 1;
    return 0;
}

int lib_lower_onnx(int ndim, const int64_t *shape, const int64_t *starts, const int64_t *ends, int n,
                   const int64_t *axes, int n_axes, const int64_t *steps, int n_steps, plan *p) {
    dmls_lowered l;
    dmls_status st = dmls_lower_onnx(ndim, shape, starts, ends, n, axes, n_axes, steps, n_steps, &l);
    return from_lowered(st, &l, ndim, shape, p);
}

int lib_lower_webnn_slice(int ndim, const int64_t *shape, const uint64_t *starts, int n_starts, const uint64_t *sizes,
                          int n_sizes, const uint64_t *strides, int n_strides, plan *p) {
    dmls_lowered l;
    dmls_status st = dmls_lower_webnn_slice(ndim, shape, starts, n_starts, sizes, n_sizes, strides, n_strides, &l);
    return from_lowered(st, &l, ndim, shape, p);
}

int lib_lower_webnn_reverse(int ndim, const int64_t *shape, const uint64_t *axes, int n_axes, plan *p) {
    dmls_lowered l;
    dmls_status st = dmls_lower_webnn_reverse(ndim, shape, axes, n_axes, &l);
    return from_lowered(st, &l, ndim, shape, p);
}

/* ------------------------------------------------------------ DirectML */

static const char *const op_names[] = {"SLICE", "SLICE1", "SLICE_GRAD"};

static int dml_data_type(const dml_params *d, DML_TENSOR_DATA_TYPE *t) {
    static const DML_TENSOR_DATA_TYPE by_size[4][4] = {
        /* 1, 2, 4, 8 bytes */
        {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT32,
         DML_TENSOR_DATA_TYPE_UINT64}, /* CLS_OTHER: the bits as unsigned */
        {DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT64},
        {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT32,
         DML_TENSOR_DATA_TYPE_UINT64},
        {DML_TENSOR_DATA_TYPE_UNKNOWN, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT32,
         DML_TENSOR_DATA_TYPE_FLOAT64},
    };
    int64_t size = d->itemsize, cls = d->dtype_class;
    if (d->any_itemsize && size != 1 && size != 2 && size != 4 && size != 8) {
        /* An array of elements DirectML has no type for (complex128, a
         * record): its parameters are checked on the element's parts. */
        size = size & -size;
        size = size > 8 ? 8 : size;
        cls = CLS_OTHER;
    }
    int col = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
    if (col < 0 || by_size[cls][col] == DML_TENSOR_DATA_TYPE_UNKNOWN) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_UNSUPPORTED", "R-T-DTYPE",
                  "%s: DirectML has no data type for %lld-byte elements of this kind", op_names[d->op],
                  (long long)d->itemsize);
        return -1;
    }
    *t = by_size[cls][col];
    return 0;
}

/* The output count of a window axis, or 1 where the window is itself
 * invalid (the rules then name the window, not the output). */
static int64_t window_count(int64_t size, int64_t stride) {
    if (size < 1 || stride == 0) return 1;
    uint64_t a = stride < 0 ? 0 - (uint64_t)stride : (uint64_t)stride;
    return (int64_t)(1 + (uint64_t)(size - 1) / a);
}

/* The library checks each value against its 32-bit DirectML field
 * (dmls_create_dml_lists), then validates as DirectML does. */
static int dml_validate(const dml_params *d, const dml_tensor_args *in, const dml_tensor_args *out,
                        dmls_operator **keep) {
    static const DML_OPERATOR_TYPE types[] = {DML_OPERATOR_SLICE, DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE_GRAD};
    DML_TENSOR_DATA_TYPE type;
    if (dml_data_type(d, &type) < 0) return -1;
    const dmls_dml_lists lists = {
        types[d->op],
        type,
        {in->ndim, in->sizes, in->has_strides ? in->strides : NULL, in->total_bytes, in->alignment},
        {out->ndim, out->sizes, out->has_strides ? out->strides : NULL, out->total_bytes, out->alignment},
        d->n,
        d->offsets,
        d->sizes,
        d->strides};
    dmls_operator *op = NULL;
    dmls_status st = dmls_create_dml_lists(&lists, (DML_FEATURE_LEVEL)d->level, &op);
    if (st != DMLS_OK) {
        lib_raise(st);
        return -1;
    }
    if (keep)
        *keep = op;
    else
        dmls_destroy(op);
    return 0;
}

int lib_lower_dml(int ndim, const int64_t *shape, const dml_params *d, plan *p) {
    dml_tensor_args fwd = {.ndim = ndim}, other = {.ndim = d->n};
    memcpy(fwd.sizes, shape, sizeof(int64_t) * (size_t)ndim);
    for (int i = 0; i < d->n; i++)
        other.sizes[i] = d->op == DML_SLICE ? d->sizes[i] : window_count(d->sizes[i], d->strides[i]);
    int rc = d->op == DML_SLICE_GRAD ? dml_validate(d, &other, &fwd, NULL) : dml_validate(d, &fwd, &other, NULL);
    if (rc < 0) return -1;
    /* Valid: DimensionCount equals the rank, every window lies inside. */
    memset(p, 0, sizeof *p);
    p->grad = d->op == DML_SLICE_GRAD;
    p->ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        p->offsets[i] = d->offsets[i];
        p->wstrides[i] = d->strides[i];
        p->wsizes[i] = d->op == DML_SLICE ? (d->sizes[i] - 1) * d->strides[i] + 1 : d->sizes[i];
        p->out_sizes[i] = other.sizes[i];
        p->in_shape[i] = p->grad ? other.sizes[i] : shape[i];
        p->final_shape[i] = p->grad ? shape[i] : other.sizes[i];
    }
    p->final_ndim = ndim;
    return 0;
}

int lib_check_dml(const dml_params *d, const dml_tensor_args *in, const dml_tensor_args *out, int *rank,
                  int64_t *shape) {
    dmls_operator *op = NULL;
    if (dml_validate(d, in, out, &op) < 0) return -1;
    *rank = dmls_output_rank(op);
    dmls_output_shape(op, shape);
    dmls_destroy(op);
    return 0;
}

const char *lib_feature_level_name(int level) { return dmls_feature_level_name((DML_FEATURE_LEVEL)level); }

int lib_feature_level(const char *name) {
    DML_FEATURE_LEVEL level;
    return dmls_feature_level_parse(name, &level) == DMLS_OK ? (int)level : -1;
}

int lib_latest_feature_level(void) { return (int)dmls_feature_level_at(dmls_feature_level_count() - 1); }

/* ------------------------------------------------------------ threads */

/* The shared pool, guarded by the GIL alone: a copy counts itself in as a
 * user (GIL held) before it lets the GIL go, and out after it has it back,
 * so set_num_threads can swap in a new pool at any time and the old one is
 * destroyed by whoever leaves it last. No lock of the extension's own is
 * ever waited on with the GIL held (the deadlock of a lock taken in the
 * other order), and the library's context guards its own workers. */
typedef struct pool_ref {
    dmls_context *ctx;
    Py_ssize_t users;
    int retired; /* replaced: destroyed when its last user leaves */
} pool_ref;

static pool_ref *pool;  /* made at the first copy that wants it */
static int pool_wanted; /* 0: the library's default size */

static void pool_destroy(pool_ref *r) {
    /* Joining the workers needs no Python: let other threads run. */
    Py_BEGIN_ALLOW_THREADS dmls_context_destroy(r->ctx);
    Py_END_ALLOW_THREADS PyMem_Free(r);
}

static pool_ref *pool_make(int n) {
    pool_ref *r = PyMem_Calloc(1, sizeof *r);
    if (!r) {
        PyErr_NoMemory();
        return NULL;
    }
    dmls_status st = dmls_context_create(n, &r->ctx);
    if (st != DMLS_OK) {
        PyMem_Free(r);
        lib_raise(st);
        return NULL;
    }
    return r;
}

/* The current pool with one more user, or NULL with an exception. */
static pool_ref *pool_enter(void) {
    if (!pool && !(pool = pool_make(pool_wanted))) return NULL;
    pool->users++;
    return pool;
}

static void pool_leave(pool_ref *r) {
    if (--r->users == 0 && r->retired) pool_destroy(r);
}

void lib_after_fork_child(void) {
    /* The parent's workers are not in the child: the pool is dropped, not
     * destroyed (there are no threads to stop), and the child makes its own. */
    pool = NULL;
}

int lib_set_threads(int n) {
    pool_ref *fresh = pool_make(n);
    if (!fresh) return -1;
    pool_ref *old = pool;
    pool = fresh;
    pool_wanted = n;
    if (old) {
        old->retired = 1;
        if (old->users == 0) pool_destroy(old);
    }
    return 0;
}

int lib_threads(void) {
    pool_ref *r = pool_enter();
    if (!r) return -1;
    int n = dmls_context_threads(r->ctx);
    pool_leave(r);
    return n;
}

const char *lib_version(void) { return dmls_version(); }

int lib_cuda_built(void) {
#ifdef DMLS_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

int lib_cuda_check(int device) {
#ifdef DMLS_HAVE_CUDA
    int count = 0;
    dmls_status st = dmls_cuda_device_count(&count);
    if (st != DMLS_OK) {
        lib_raise(st);
        return -1;
    }
    if (device < 0 || device >= count) {
        ext_raise(ERR_DEVICE, "DMLS_ERROR_NO_DEVICE", "",
                  "the array is on CUDA device %d; the runtime sees %d device(s)", device, count);
        return -1;
    }
    return 0;
#else
    ext_raise(ERR_DEVICE, "DMLS_ERROR_NO_DEVICE", "",
              "the array is on CUDA device %d, but this dmlslice was built without the CUDA "
              "backend (no nvcc at build time); only CPU arrays can be sliced",
              device);
    return -1;
#endif
}

int lib_cuda_available(void) {
#ifdef DMLS_HAVE_CUDA
    return dmls_cuda_available();
#else
    return 0;
#endif
}

/* ------------------------------------------------------------ execute */

/* One side of a copy as the native API takes it: sizes and element strides
 * in units of `unit` bytes, the lowest byte the tensor touches (base), the
 * offset from there to element 0, and the bytes from base to its end. */
typedef struct side {
    int ndim;
    int64_t shape[EXT_MAX_RANK];
    int64_t strides[EXT_MAX_RANK];
    char *base;
    uint64_t offset;
    uint64_t bytes;
} side;

static int64_t gcd64(int64_t a, int64_t b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Byte strides -> element strides of `unit`, and the span. Strides of
 * size-1 axes never move an address and are set to 0. */
static void make_side(side *s, int ndim, const int64_t *shape, const int64_t *bstrides, char *data, int64_t itemsize,
                      int64_t unit, int empty) {
    s->ndim = ndim;
    int64_t lo = 0, hi = 0;
    for (int i = 0; i < ndim; i++) {
        s->shape[i] = shape[i];
        int64_t st = shape[i] > 1 ? bstrides[i] : 0;
        s->strides[i] = st / unit;
        if (!empty) {
            if (st < 0)
                lo += (shape[i] - 1) * st;
            else
                hi += (shape[i] - 1) * st;
        }
    }
    s->base = empty ? data : data + lo;
    s->offset = empty ? 0 : (uint64_t)-lo;
    s->bytes = empty ? 0 : (uint64_t)(hi - lo + itemsize);
}

/* Packed as lib_compile describes a plan's arrays: element strides in units,
 * an element being k units. */
static int is_packed(const side *s, int64_t k) {
    int64_t want = k;
    for (int i = s->ndim - 1; i >= 0; i--) {
        if (s->shape[i] > 1 && s->strides[i] != want) return 0;
        want *= s->shape[i];
    }
    return s->offset == 0;
}

static dmls_dtype unit_dtype(int64_t unit) {
    return unit == 1 ? DMLS_UINT8 : unit == 2 ? DMLS_UINT16 : unit == 4 ? DMLS_UINT32 : DMLS_UINT64;
}

/* The largest of 8, 4, 2, 1 that divides the item size and every stride that
 * moves an address: the element size the copy runs at. A byte stride that is
 * no multiple of the item size (a field of a record array, a view through
 * np.lib.stride_tricks) is read exactly this way. */
static int64_t copy_unit(int64_t itemsize, int n, const int64_t *shape, const int64_t *strides, int m,
                         const int64_t *shape2, const int64_t *strides2) {
    int64_t g = itemsize;
    for (int i = 0; i < n; i++)
        if (shape[i] > 1) g = gcd64(g, strides[i]);
    for (int i = 0; i < m; i++)
        if (shape2[i] > 1) g = gcd64(g, strides2[i]);
    g &= -g; /* its largest power-of-two factor */
    return g > 8 ? 8 : g;
}

/* The output's strides on the plan's SLICE1 axes. Dropped (NumPy integer)
 * and inserted (None) axes have size 1, so the axes of size other than 1
 * are the same, in the same order, in both shapes. */
static void out_strides(const plan *p, const array_view *out, int64_t *bstrides, int64_t *shape) {
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
static int create(const plan *p, int64_t unit, int64_t k, const side *in, const side *out, dmls_operator **op) {
    int64_t off[EXT_MAX_RANK + 1], ws[EXT_MAX_RANK + 1], wst[EXT_MAX_RANK + 1];
    int64_t ishape[EXT_MAX_RANK + 1], istr[EXT_MAX_RANK + 1], oshape[EXT_MAX_RANK + 1], ostr[EXT_MAX_RANK + 1];
    int n = 0;
    for (int i = 0; i < p->ndim; i++) {
        if (in->shape[i] == 1 && out->shape[i] == 1) continue;
        off[n] = p->offsets[i];
        ws[n] = p->wsizes[i];
        wst[n] = p->wstrides[i];
        ishape[n] = in->shape[i];
        istr[n] = in->strides[i];
        oshape[n] = out->shape[i];
        ostr[n] = out->strides[i];
        n++;
    }
    /* An empty result is written nowhere: its elements need no splitting. */
    if (k > 1 && out->bytes) { /* the bytes of one element, as k units along a last axis */
        if (n == EXT_MAX_RANK) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "",
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
    dmls_tensor ti = {unit_dtype(unit), n, ishape, istr, in->offset};
    dmls_tensor to = {unit_dtype(unit), n, oshape, ostr, out->offset};
    dmls_window w = {off, ws, wst};
    dmls_status st = p->grad ? dmls_create_grad(&ti, &to, &w, op) : dmls_create(&ti, &to, &w, op);
    if (st != DMLS_OK) {
        lib_raise(st);
        return -1;
    }
    return 0;
}

int lib_compile(compiled *c, const plan *p, int64_t itemsize) {
    c->p = *p;
    c->itemsize = itemsize;
    c->packed_op = NULL;
    c->expr = NULL;
    if (p->expr) { /* each array gets its own view (run_view) */
        size_t n = strlen(p->expr) + 1;
        if (!(c->expr = PyMem_Malloc(n))) {
            PyErr_NoMemory();
            return -1;
        }
        c->p.expr = memcpy(c->expr, p->expr, n);
        return 0;
    }
    if (plan_empty(p)) return 0; /* nothing to copy, ever */
    int64_t unit = itemsize & -itemsize;
    if (unit > 8) unit = 8;
    int64_t k = itemsize / unit;
    /* Packed arrays of the plan's shapes, as lib_run would describe them. */
    array_view vi = {.ndim = p->ndim, .itemsize = itemsize};
    array_view vo = {.ndim = p->ndim, .itemsize = itemsize};
    const int64_t *osz = p->grad ? p->final_shape : p->out_sizes;
    int64_t si = itemsize, so = itemsize;
    int ei = 0, eo = 0;
    for (int i = p->ndim - 1; i >= 0; i--) {
        vi.shape[i] = p->in_shape[i], vi.strides[i] = si, si *= p->in_shape[i];
        vo.shape[i] = osz[i], vo.strides[i] = so, so *= osz[i];
        ei |= p->in_shape[i] == 0;
        eo |= osz[i] == 0;
    }
    side in, out;
    static char dummy[8];
    make_side(&in, p->ndim, vi.shape, vi.strides, dummy, itemsize, unit, ei);
    make_side(&out, p->ndim, vo.shape, vo.strides, dummy, itemsize, unit, eo);
    dmls_operator *op = NULL;
    if (create(p, unit, k, &in, &out, &op) < 0) return -1;
    c->packed_op = op;
    return 0;
}

void lib_compiled_free(compiled *c) {
    dmls_destroy(c->packed_op);
    c->packed_op = NULL;
    PyMem_Free(c->expr);
    c->expr = NULL;
}

static int run_cpu(const dmls_operator *op, const side *in, const side *out) {
    pool_ref *r = pool_enter();
    if (!r) return -1;
    dmls_status st;
    if (out->bytes >= GIL_FREE_BYTES) {
        Py_BEGIN_ALLOW_THREADS st = dmls_execute_on(op, r->ctx, in->base, in->bytes, out->base, out->bytes);
        Py_END_ALLOW_THREADS
    } else {
        st = dmls_execute_on(op, r->ctx, in->base, in->bytes, out->base, out->bytes);
    }
    pool_leave(r);
    if (st != DMLS_OK) {
        lib_raise(st);
        return -1;
    }
    return 0;
}

static int run_cuda(const dmls_operator *op, const side *in, const side *out, int device, uintptr_t stream, int sync) {
#ifdef DMLS_HAVE_CUDA
    dmls_status st = DMLS_OK;
    cudaError_t err = cudaSuccess;
    const char *what = "";
    Py_BEGIN_ALLOW_THREADS int prev = -1;
    err = cudaGetDevice(&prev);
    if (err == cudaSuccess && prev != device) err = cudaSetDevice(device);
    if (err != cudaSuccess) what = "selecting the array's device";
    if (err == cudaSuccess) {
        st = dmls_execute_cuda(op, in->base, in->bytes, out->base, out->bytes, (void *)stream);
        if (st == DMLS_OK && sync) {
            err = cudaStreamSynchronize((cudaStream_t)stream);
            if (err != cudaSuccess) what = "waiting for the copy";
        }
        if (prev >= 0 && prev != device) cudaSetDevice(prev);
    }
    Py_END_ALLOW_THREADS if (st != DMLS_OK) {
        lib_raise(st);
        return -1;
    }
    if (err != cudaSuccess) {
        ext_raise(ERR_DEVICE, "DMLS_ERROR_DEVICE", "", "CUDA device %d: %s failed: %s", device, what,
                  cudaGetErrorString(err));
        return -1;
    }
    return 0;
#else
    (void)op, (void)in, (void)out, (void)stream, (void)sync;
    ext_raise(ERR_DEVICE, "DMLS_ERROR_NO_DEVICE", "",
              "the array is on CUDA device %d, but this dmlslice was built without the CUDA "
              "backend (no nvcc at build time); only CPU arrays can be sliced",
              device);
    return -1;
#endif
}

/* The library's view of an array of more than EXT_MAX_RANK axes takes
 * element strides of one sign, in units (copy_unit) here. */
static int view_strides(const array_view *in, int64_t unit, int64_t *t, uint64_t *bytes) {
    uint64_t span = (uint64_t)in->itemsize;
    for (int i = 0; i < in->ndim; i++) {
        int64_t st = in->shape[i] > 1 ? in->strides[i] : 0;
        if (st < 0) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "",
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
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "",
                      "out= has stride %lld on axis %d: the result of an array of more than %d axes is "
                      "written C-contiguous; pass a C-contiguous out=",
                      (long long)out->strides[i], i, EXT_MAX_RANK);
            return -1;
        }
        want *= out->shape[i];
    }
    return 0;
}

static int execute(const dmls_operator *op, const side *si, const side *so, const array_view *in, uintptr_t stream,
                   int sync) {
    return in->device_type == DL_CUDA || in->device_type == DL_CUDA_MANAGED
               ? run_cuda(op, si, so, in->device_id, stream, sync)
               : run_cpu(op, si, so);
}

/* A NumPy key over more than EXT_MAX_RANK axes: the library's view of this
 * array (axes of one element folded into its offset, contiguous runs
 * merged; dmls_lower_numpy_view), a window over that, the result packed. */
static int run_view(const plan *p, const array_view *in, const array_view *out, uintptr_t stream, int sync) {
    int64_t unit = copy_unit(in->itemsize, in->ndim, in->shape, in->strides, 0, NULL, NULL);
    int64_t k = in->itemsize / unit;
    int64_t t[EXT_ARRAY_MAX_RANK];
    uint64_t in_bytes;
    if (view_strides(in, unit, t, &in_bytes) < 0 || packed_result(out) < 0) return -1;
    dmls_lowered_view v;
    dmls_status st = dmls_lower_numpy_view(in->ndim, in->shape, t, p->expr, &v);
    if (st != DMLS_OK) return numpy_failed(st);
    const dmls_lowered *w = &v.slice;
    plan q = {.ndim = w->ndim};
    side si = {.ndim = w->ndim, .base = in->data, .offset = (uint64_t)(v.in_offset * unit), .bytes = in_bytes};
    side so = {.ndim = w->ndim, .base = out->data, .bytes = (uint64_t)out->itemsize};
    int64_t packed = k;
    for (int i = w->ndim - 1; i >= 0; i--) {
        q.offsets[i] = w->offsets[i], q.wsizes[i] = w->sizes[i], q.wstrides[i] = w->strides[i];
        si.shape[i] = v.in_shape[i], si.strides[i] = v.in_strides[i];
        so.shape[i] = w->out_sizes[i], so.strides[i] = packed;
        packed *= w->out_sizes[i];
        so.bytes *= (uint64_t)w->out_sizes[i];
    }
    dmls_operator *op = NULL;
    if (create(&q, unit, k, &si, &so, &op) < 0) return -1;
    int rc = execute(op, &si, &so, in, stream, sync);
    dmls_destroy(op);
    return rc;
}

int lib_run(const plan *p, const compiled *c, const array_view *in, const array_view *out, uintptr_t stream, int sync) {
    if (plan_empty(p)) return 0;
    if (p->expr) return run_view(p, in, out, stream, sync);
    int64_t ob[EXT_MAX_RANK] = {0}, oshape[EXT_MAX_RANK] = {0};
    out_strides(p, out, ob, oshape);
    int64_t unit = copy_unit(in->itemsize, in->ndim, in->shape, in->strides, p->ndim, oshape, ob);
    int64_t k = in->itemsize / unit;
    int ei = 0, eo = 0;
    for (int i = 0; i < p->ndim; i++) {
        ei |= in->shape[i] == 0;
        eo |= oshape[i] == 0;
    }
    side si, so;
    make_side(&si, p->ndim, in->shape, in->strides, in->data, in->itemsize, unit, ei);
    make_side(&so, p->ndim, oshape, ob, out->data, in->itemsize, unit, eo);
    if (so.bytes == 0) return 0; /* an empty result: the plan is valid, nothing to copy */

    dmls_operator *op = NULL, *made = NULL;
    int64_t cunit = in->itemsize & -in->itemsize;
    if (cunit > 8) cunit = 8;
    if (c && c->packed_op && unit == cunit && is_packed(&si, k) && is_packed(&so, k))
        op = c->packed_op;
    else if (create(p, unit, k, &si, &so, &made) < 0)
        return -1;
    else
        op = made;

    int rc = execute(op, &si, &so, in, stream, sync);
    dmls_destroy(made);
    return rc;
}
