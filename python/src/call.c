/*
 * call.c: one call of any entry point, straight through:
 *   1. call_input   the array in, its device and (on a GPU) its stream
 *   2. call_plan    an Operator's slice, a NumPy key's cached one, or the
 *                   parameters lowered now (lowered_view then permutes the
 *                   input's view for a transpose)
 *   3. call_target  out= checked, or a new array of the input's kind
 *   4. run_copy     the copy, on the CPU or the GPU
 *   5. results_finish  what the caller gets
 */
#include "call.h"
#include "array_view.h"
#include "arrays.h"
#include "errors.h"
#include "exchange.h"
#include "frameworks.h"
#include "key_cache.h"
#include "lowering.h"
#include "numpy_abi.h"
#include "params.h"
#include "prepared.h"
#include "results.h"
#include "run.h"

#include <string.h>

#include "devices.h"
#include "dlpack.h"

/* What one call holds on its way; call_release lets it all go. */
typedef struct call_state {
    PyObject *x;          /* the array (a NumPy view of a buffer exporter) */
    PyObject *owned_x;    /* that view, when made */
    PyObject *stream_arg; /* the stream= for __dlpack__, or NULL */
    PyObject *target;     /* the array written: out= or a new one */
    prepared *pr;         /* the lowered slice's prepared form (a reference), or NULL */
    int cuda, sync, have_in, have_out;
    uintptr_t stream;
    const lowered *p;
    array_view in, out; /* valid where have_in, have_out say so */
    lowered local;
} call_state;

static int is_cuda(int type) { return devices_is_gpu(type); }

/* The device is one the library runs on; for CUDA, the stream= handed to
 * other producers' __dlpack__ (1: the legacy default stream). */
static int check_device(call_state *s, int type, int id) {
    s->cuda = is_cuda(type);
    return devices_check(type, id);
}

/* The current stream of the input's library, for an array read without
 * DLPack. */
static int known_stream(call_state *s) {
    const array_view *in = &s->in;
    if (check_device(s, in->device_type, in->device_id) < 0) return -1;
    if (!s->cuda) return 0;
    int rc = 1;
    if (in->source == SRC_TORCH)
        rc = frameworks_torch_stream(in->device_id, &s->stream);
    else if (in->source == SRC_CUPY)
        rc = frameworks_cupy_stream(in->device_id, &s->stream);
    else if (in->source == SRC_EXCHANGE)
        rc = exchange_stream(exchange_api(s->x), in->device_type, in->device_id, &s->stream);
    if (rc == 1) return frameworks_stream_of(s->x, in->device_id, &s->stream, &s->stream_arg, &s->sync);
    if (rc < 0) return -1;
    s->stream_arg = PyLong_FromUnsignedLongLong(s->stream ? (unsigned long long)s->stream : 1);
    return s->stream_arg ? 0 : -1;
}

/* Step 1. Arrays of known libraries are read first and their stream asked
 * after; for any other producer the device and stream come first, since
 * __dlpack__ takes the consumer's stream. */
static int call_input(call_state *s) {
    int rc = view_import_known(s->x, 0, &s->in);
    if (rc <= 0) {
        s->have_in = rc == 0;
        return rc < 0 ? -1 : known_stream(s);
    }
    if (view_is_buffer(s->x)) { /* a NumPy view of it (no copy): the result is a NumPy array */
        if (!(s->owned_x = s->x = numpy_asarray(s->x))) return -1;
        s->have_in = view_import_known(s->x, 0, &s->in) == 0;
        return s->have_in ? 0 : -1;
    }
    int type, id;
    if (view_device(s->x, &type, &id) < 0 || check_device(s, type, id) < 0) return -1;
    if (s->cuda && frameworks_stream_of(s->x, id, &s->stream, &s->stream_arg, &s->sync) < 0) return -1;
    if (view_import(s->x, 0, s->stream_arg, &s->in) < 0) return -1;
    s->have_in = 1;
    return 0;
}

static int shape_mismatch(const char *rule, const char *fmt, int n, const int64_t *have, int m, const int64_t *want) {
    char a[256], b[256];
    ext_shape_text(a, sizeof a, n, have);
    ext_shape_text(b, sizeof b, m, want);
    ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", rule, fmt, a, b);
    return -1;
}

static int same_shape(int n, const int64_t *a, int m, const int64_t *b) {
    return n == m && memcmp(a, b, sizeof(int64_t) * (size_t)n) == 0;
}

/* Step 2, one-shot calls of every kind but index: lower the parameters. */
static int call_lower(call *k, call_state *s) {
    const int64_t *shape = s->in.shape;
    int ndim = s->in.ndim, na = k->nparams;
    PyObject *const *pa = k->params;
    int64_t fwd[EXT_MAX_RANK];
    if (k->kind == K_SLICE_GRAD) { /* the forward input's shape comes first */
        if ((ndim = params_int_list(pa[0], "input_shape", "R-T-SIZES", fwd, EXT_MAX_RANK, 1)) < 0) return -1;
        shape = fwd, pa++, na--;
    }
    if (params_lower(k->kind, ndim, shape, s->in.itemsize, s->in.dtype_class, pa, na, k->level, &s->local) < 0)
        return -1;
    s->p = &s->local;
    if (same_shape(s->in.ndim, s->in.shape, s->p->ndim, s->p->in_shape)) return 0;
    return shape_mismatch("R-PY-SHAPE",
                          "slice_grad: the array has shape %s; the window makes an input gradient of shape %s",
                          s->in.ndim, s->in.shape, s->p->ndim, s->p->in_shape);
}

/* Step 2: the lowered slice. */
static int call_plan(call *k, call_state *s) {
    if (k->pr) {
        prepared_ref(s->pr = k->pr);
    } else if (k->kind == K_INDEX) {
        return (s->pr = key_cache_get(&s->in, k->params[0])) ? (s->p = &s->pr->c.p, 0) : -1;
    } else {
        return call_lower(k, s);
    }
    s->p = &s->pr->c.p;
    if (!same_shape(s->in.ndim, s->in.shape, s->p->ndim, s->p->in_shape))
        return shape_mismatch("R-PY-SHAPE", "the array has shape %s; the operator was planned for input shape %s",
                              s->in.ndim, s->in.shape, s->p->ndim, s->p->in_shape);
    if (s->in.itemsize == s->pr->c.itemsize) return 0;
    ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-SHAPE",
              "the operator was planned for %lld-byte elements; the array has %lld-byte elements",
              (long long)s->pr->c.itemsize, (long long)s->in.itemsize);
    return -1;
}

/* out= is on the input's device. */
static int same_device(const call_state *s, int type, int id) {
    int cuda = is_cuda(type);
    if (cuda == s->cuda && (!cuda || id == s->in.device_id)) return 0;
    ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-DEVICE",
              "out= is on %s %d and the array on %s %d; they must share a device", cuda ? "CUDA device" : "the CPU",
              cuda ? id : 0, s->cuda ? "CUDA device" : "the CPU", s->cuda ? s->in.device_id : 0);
    return -1;
}

/* out= taken in, as the input is: an array of a known library read at
 * once, any other asked for its device first. */
static int import_out(PyObject *out, call_state *s) {
    int rc = view_import_known(out, 1, &s->out);
    if (rc <= 0) {
        s->have_out = rc == 0;
        return rc < 0 ? -1 : same_device(s, s->out.device_type, s->out.device_id);
    }
    int type, id;
    if (view_device(out, &type, &id) < 0 || same_device(s, type, id) < 0) return -1;
    if (view_import(out, 1, s->stream_arg, &s->out) < 0) return -1;
    s->have_out = 1;
    return 0;
}

/* Step 3, out= given: on the array's device, of the result's shape and the
 * input's dtype. */
static int call_out(PyObject *out, call_state *s) {
    if (import_out(out, s) < 0) return -1;
    const lowered *p = s->p;
    if (!same_shape(s->out.ndim, s->out.shape, p->final_ndim, p->final_shape))
        return shape_mismatch("R-PY-OUT", "out= has shape %s; the result has shape %s", s->out.ndim, s->out.shape,
                              p->final_ndim, p->final_shape);
    int same = s->out.itemsize == s->in.itemsize && s->out.dtype_class == s->in.dtype_class;
    if (same && numpy_is_array(s->x) && numpy_is_array(out))
        same = PyObject_RichCompareBool(numpy_descr(s->x), numpy_descr(out), Py_EQ);
    if (same < 0) return -1;
    if (!same) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-OUT",
                  "out= must have the input's dtype (slicing copies bits; no casting)");
        return -1;
    }
    s->target = Py_NewRef(out);
    return 0;
}

/* Step 3: the array written. */
static int call_target(call *k, call_state *s) {
    if (k->out && k->out != Py_None) return call_out(k->out, s);
    s->target = results_new(s->x, &s->in, s->p, s->pr ? s->pr->shape : NULL, s->stream_arg, &s->out);
    s->have_out = s->target != NULL;
    return s->have_out ? 0 : -1;
}

static void call_release(call_state *s) {
    if (s->have_out) view_release(&s->out);
    if (s->have_in) view_release(&s->in);
    Py_XDECREF(s->target);
    Py_XDECREF(s->stream_arg);
    Py_XDECREF(s->owned_x);
    prepared_unref(s->pr);
}

PyObject *call_run(call *k) {
    call_state s;
    memset(&s, 0, offsetof(call_state, in)); /* the views and the lowered slice are set as they are made */
    s.x = k->x;
    PyObject *result = NULL;
    if (call_input(&s) == 0 && call_plan(k, &s) == 0) {
        lowered_view(s.p, &s.in); /* a transpose reads the array's permuted view */
        if (call_target(k, &s) == 0 && run_copy(s.p, s.pr ? &s.pr->c : NULL, &s.in, &s.out, s.stream, s.sync) == 0)
            result = k->out && k->out != Py_None ? Py_NewRef(s.target) : results_finish(s.x, &s.in, s.target);
    }
    call_release(&s);
    return result;
}
