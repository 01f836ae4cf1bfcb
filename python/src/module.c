/*
 * module.c: the Python surface of dmlslice._dmlslice: the one-shot slicing
 * functions of each vocabulary, the Operator type (plan once, call many
 * times), check_dml, the thread pool settings. No call into the library is
 * made here (library.c makes them all).
 *
 * A call: find the array's device (and, for CUDA, its stream), take it in
 * (arrays.c), lower the parameters to a plan, make the result through the
 * array's own framework (dmlslice/_kinds.py) or take out=, run.
 */
#include "ext.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "dlpack.h"

/* ------------------------------------------------------------ state */

static PyObject *np_empty;                              /* numpy.empty */
static PyObject *np_asarray;                            /* numpy.asarray */
static PyObject *k_empty_like, *k_finish, *k_stream_of; /* dmlslice._kinds */

static PyObject *shape_tuple(int ndim, const int64_t *shape) {
    PyObject *t = PyTuple_New(ndim);
    if (!t) return NULL;
    for (int i = 0; i < ndim; i++) {
        PyObject *v = PyLong_FromLongLong(shape[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SetItem(t, i, v);
    }
    return t;
}

/* ------------------------------------------------------------ arguments */

/* A sequence of at most `max` integers. Returns the count, or -1. */
static int int_list(PyObject *seq, const char *what, int64_t *out, int max, int is_unsigned) {
    PyObject *fast = PySequence_Fast(seq, "");
    if (!fast) {
        PyErr_Clear();
        char name[128];
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "", "%s must be a sequence of integers, not %s", what,
                  ext_type_name(seq, name, sizeof name));
        return -1;
    }
    Py_ssize_t n = PySequence_Size(fast);
    if (n > max) {
        Py_DECREF(fast);
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "", "%s has %zd values; at most %d are taken", what, n, max);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(fast, i);
        PyObject *idx = item ? PyNumber_Index(item) : NULL;
        Py_XDECREF(item);
        if (!idx) {
            Py_DECREF(fast);
            PyErr_Clear();
            ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "", "%s[%zd] is not an integer", what, i);
            return -1;
        }
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
        Py_DECREF(idx);
        if (overflow || (is_unsigned && v < 0)) {
            Py_DECREF(fast);
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "", "%s[%zd] is %s", what, i,
                      overflow ? "outside the 64-bit integers" : "negative");
            return -1;
        }
        out[i] = v;
    }
    Py_DECREF(fast);
    return (int)n;
}

static int feature_level(PyObject *obj, int *level) {
    if (!obj || obj == Py_None) {
        *level = lib_latest_feature_level();
        return 0;
    }
    if (PyUnicode_Check(obj)) {
        Py_ssize_t len = 0;
        const char *s = PyUnicode_AsUTF8AndSize(obj, &len);
        if (!s) return -1;
        /* A NUL inside would end the text early: "6_4\0x" is no level. */
        *level = strlen(s) == (size_t)len ? lib_feature_level(s) : -1;
    } else {
        long v = PyLong_AsLong(obj);
        if (v == -1 && PyErr_Occurred()) PyErr_Clear();
        *level = lib_feature_level_name((int)v) ? (int)v : -1;
    }
    if (*level < 0) {
        PyObject *r = PyObject_Repr(obj);
        const char *s = r ? PyUnicode_AsUTF8AndSize(r, NULL) : "?";
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "",
                  "feature_level %s is not a DirectML feature level (e.g. \"6_4\" or 0x6400)", s ? s : "?");
        Py_XDECREF(r);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ NumPy keys */

static int add_text(char **buf, size_t *len, size_t *cap, const char *s) {
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        size_t c = (*cap + n + 1) * 2;
        char *b = PyMem_Realloc(*buf, c);
        if (!b) {
            PyErr_NoMemory();
            return -1;
        }
        *buf = b, *cap = c;
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
    return 0;
}

static int add_int(char **buf, size_t *len, size_t *cap, PyObject *v) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (!overflow) {
        char t[32];
        snprintf(t, sizeof t, "%lld", x);
        return add_text(buf, len, cap, t);
    }
    /* Beyond int64: the library saturates a slice bound and rejects an
     * index, as NumPy does; hand it the digits. */
    PyObject *s = PyObject_Str(v);
    const char *c = s ? PyUnicode_AsUTF8AndSize(s, NULL) : NULL;
    int rc = c ? add_text(buf, len, cap, c) : -1;
    Py_XDECREF(s);
    return rc;
}

static int bad_index(PyObject *item) {
    char name[128];
    ext_raise(ERR_INDEX_TYPE, "DMLS_ERROR_INVALID_ARGUMENT", "",
              "only integers, slices (`:`), ellipsis (`...`) and None are valid indices for "
              "slicing, not %s (arrays, lists and booleans are advanced indexing)",
              ext_type_name(item, name, sizeof name));
    return -1;
}

static int add_item(char **buf, size_t *len, size_t *cap, PyObject *item) {
    if (item == Py_None) return add_text(buf, len, cap, "None");
    if (item == Py_Ellipsis) return add_text(buf, len, cap, "...");
    if (PySlice_Check(item)) {
        /* Omitted parts become the values Python's slice.indices() gives
         * them (0 / PY_SSIZE_T_MAX / PY_SSIZE_T_MIN by the step's sign), and
         * bounds beyond them saturate; the library clamps them alike. */
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(item, &start, &stop, &step) < 0) {
            if (PyErr_ExceptionMatches(PyExc_ValueError)) { /* step 0: the library says so */
                PyErr_Clear();
                return add_text(buf, len, cap, "::0");
            }
            PyErr_Clear();
            ext_raise(ERR_INDEX_TYPE, "DMLS_ERROR_INVALID_ARGUMENT", "",
                      "slice indices must be integers or None or have an __index__ method");
            return -1;
        }
        char t[80];
        snprintf(t, sizeof t, "%zd:%zd:%zd", start, stop, step);
        return add_text(buf, len, cap, t);
    }
    if (PyBool_Check(item) || PyUnicode_Check(item) || PyBytes_Check(item)) return bad_index(item);
    PyObject *idx = PyNumber_Index(item);
    if (!idx) {
        PyErr_Clear();
        return bad_index(item);
    }
    int rc = add_int(buf, len, cap, idx);
    Py_DECREF(idx);
    return rc;
}

/* A key string's UTF-8, refused where it holds a NUL: the library reads C
 * strings, and a NUL would end the key there unseen. */
static const char *key_string(PyObject *key, Py_ssize_t *n) {
    const char *s = PyUnicode_AsUTF8AndSize(key, n);
    if (s && strlen(s) != (size_t)*n) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_FORMAT", "",
                  "NumPy index string holds a NUL character at position %zu; a key is text", strlen(s));
        return NULL;
    }
    return s;
}

/* A NumPy index (str, or an index tuple / single item) as the library's
 * expression text; PyMem_Free it. */
static char *key_expr(PyObject *key) {
    size_t len = 0, cap = 64;
    char *buf = PyMem_Malloc(cap);
    if (!buf) {
        PyErr_NoMemory();
        return NULL;
    }
    buf[0] = 0;
    if (PyUnicode_Check(key)) {
        Py_ssize_t n;
        const char *s = key_string(key, &n);
        if (!s || add_text(&buf, &len, &cap, s) < 0) goto fail;
        return buf;
    }
    if (PyTuple_Check(key)) {
        Py_ssize_t n = PyTuple_Size(key);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (i && add_text(&buf, &len, &cap, ",") < 0) goto fail;
            if (add_item(&buf, &len, &cap, PyTuple_GetItem(key, i)) < 0) goto fail;
        }
        /* "(1,)" and "1" index alike; "()" takes everything. */
        return buf;
    }
    if (add_item(&buf, &len, &cap, key) < 0) goto fail;
    return buf;
fail:
    PyMem_Free(buf);
    return NULL;
}

/* ------------------------------------------------------------ boolean scalars */

static PyObject *np_bool; /* numpy.bool_ */

static int is_bool(PyObject *item) {
    return PyBool_Check(item) || (np_bool && Py_TYPE(item) == (PyTypeObject *)np_bool);
}

static int has_bool(PyObject *key) {
    if (!PyTuple_Check(key)) return is_bool(key);
    for (Py_ssize_t i = 0; i < PyTuple_Size(key); i++)
        if (is_bool(PyTuple_GetItem(key, i))) return 1;
    return 0;
}

/* NumPy reads a boolean scalar as an advanced index: with the key's
 * integers (then advanced too) it makes one axis of length 1, or 0 where a
 * boolean is false, placed where the first advanced item stands when they
 * are all adjacent, else in front. Returns the key without its booleans (a
 * new tuple) and that axis's position and length. */
static PyObject *split_bools(PyObject *key, int ndim, int *pos, int64_t *len) {
    PyObject *items = PyTuple_Check(key) ? Py_NewRef(key) : PyTuple_Pack(1, key);
    if (!items) return NULL;
    Py_ssize_t n = PyTuple_Size(items), first = -1, last = -1, advanced = 0, bools = 0;
    int consumed = 0;
    *len = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PyTuple_GetItem(items, i);
        if (it == Py_None || it == Py_Ellipsis) continue;
        if (PySlice_Check(it)) {
            consumed++;
            continue;
        }
        if (is_bool(it)) {
            bools++;
            if (PyObject_IsTrue(it) == 0) *len = 0;
        } else {
            consumed++; /* an integer, or what the key text will refuse */
        }
        first = first < 0 ? i : first;
        last = i;
        advanced++;
    }
    *pos = 0;
    for (Py_ssize_t i = 0; last - first + 1 == advanced && i < first; i++) {
        PyObject *it = PyTuple_GetItem(items, i);
        *pos += it == Py_Ellipsis ? (ndim > consumed ? ndim - consumed : 0) : 1;
    }
    PyObject *rest = PyTuple_New(n - bools);
    for (Py_ssize_t i = 0, m = 0; rest && i < n; i++) {
        PyObject *it = PyTuple_GetItem(items, i);
        if (!is_bool(it)) PyTuple_SetItem(rest, m++, Py_NewRef(it));
    }
    Py_DECREF(items);
    return rest;
}

/* ------------------------------------------------------------ lowering */

enum { K_INDEX, K_SLICE, K_SLICE1, K_SLICE_GRAD, K_ONNX, K_WEBNN_SLICE, K_WEBNN_REVERSE, K_COUNT };
static const char *const kind_names[K_COUNT] = {"index",      "slice",       "slice1",       "slice_grad",
                                                "onnx_slice", "webnn_slice", "webnn_reverse"};
static const int kind_min[K_COUNT] = {1, 3, 3, 3, 2, 2, 0};
static const int kind_max[K_COUNT] = {1, 3, 3, 3, 4, 3, 1};

/* A NumPy key (text, an index tuple or one item) for an input of `shape`.
 * Where the plan keeps the key's text (p->expr: more than EXT_MAX_RANK
 * input axes), the caller frees it with PyMem_Free once compiled. */
static int lower_index(int ndim, const int64_t *shape, PyObject *key, plan *p) {
    PyObject *rest = NULL;
    int pos = 0;
    int64_t len = 1;
    if (has_bool(key) && !(key = rest = split_bools(key, ndim, &pos, &len))) return -1;
    char *expr = key_expr(key);
    int rc = expr ? lib_lower_numpy(ndim, shape, expr, p) : -1;
    if (rc == 0 && rest) rc = lib_plan_add_axis(p, pos, len);
    if (rc < 0 || !p->expr) PyMem_Free(expr); /* else p->expr is expr: the caller's to free */
    Py_XDECREF(rest);
    return rc;
}

#define LIST_MAX 64 /* ONNX and WebNN lists longer than any rank: the front end names the excess */

static int lower(int kind, int ndim, const int64_t *shape, int64_t itemsize, int cls, PyObject *const *a, int na,
                 PyObject *level_obj, plan *p) {
    if (na < kind_min[kind] || na > kind_max[kind]) {
        PyErr_Format(PyExc_TypeError, "%s takes %d to %d parameters after the array, got %d", kind_names[kind],
                     kind_min[kind], kind_max[kind], na);
        return -1;
    }
    if (kind == K_INDEX) return lower_index(ndim, shape, a[0], p);
    if (kind == K_SLICE || kind == K_SLICE1 || kind == K_SLICE_GRAD) {
        static const char *const names[3][3] = {{"Offsets", "Sizes", "Strides"},
                                                {"InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"},
                                                {"InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"}};
        dml_params d = {.op = kind == K_SLICE    ? DML_SLICE
                              : kind == K_SLICE1 ? DML_SLICE1
                                                 : DML_SLICE_GRAD,
                        .itemsize = itemsize,
                        .dtype_class = cls,
                        .any_itemsize = 1};
        if (feature_level(level_obj, &d.level) < 0) return -1;
        int n[3];
        int64_t *dst[3] = {d.offsets, d.sizes, d.strides};
        for (int i = 0; i < 3; i++)
            if ((n[i] = int_list(a[i], names[d.op][i], dst[i], EXT_MAX_RANK, 0)) < 0) return -1;
        if (n[0] != ndim || n[1] != ndim || n[2] != ndim) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "",
                      "%s: %s, %s and %s need one value per dimension of the %s (%d); got %d, %d, %d", kind_names[kind],
                      names[d.op][0], names[d.op][1], names[d.op][2], kind == K_SLICE_GRAD ? "forward input" : "input",
                      ndim, n[0], n[1], n[2]);
            return -1;
        }
        d.n = ndim;
        return lib_lower_dml(ndim, shape, &d, p);
    }
    if (kind == K_ONNX) {
        int64_t st[LIST_MAX], en[LIST_MAX], ax[LIST_MAX], sp[LIST_MAX];
        int ns = int_list(a[0], "starts", st, LIST_MAX, 0);
        int ne = ns < 0 ? -1 : int_list(a[1], "ends", en, LIST_MAX, 0);
        if (ne < 0) return -1;
        int nax = -1, nsp = -1;
        if (na > 2 && a[2] != Py_None && (nax = int_list(a[2], "axes", ax, LIST_MAX, 0)) < 0) return -1;
        if (na > 3 && a[3] != Py_None && (nsp = int_list(a[3], "steps", sp, LIST_MAX, 0)) < 0) return -1;
        if (ns != ne) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "",
                      "ONNX Slice: starts has %d values and ends %d; they must agree", ns, ne);
            return -1;
        }
        return lib_lower_onnx(ndim, shape, st, en, ns, nax < 0 ? NULL : ax, nax < 0 ? 0 : nax, nsp < 0 ? NULL : sp,
                              nsp < 0 ? 0 : nsp, p);
    }
    if (kind == K_WEBNN_SLICE) {
        int64_t st[LIST_MAX], sz[LIST_MAX], sd[LIST_MAX];
        int ns = int_list(a[0], "starts", st, LIST_MAX, 1);
        int nz = ns < 0 ? -1 : int_list(a[1], "sizes", sz, LIST_MAX, 1);
        if (nz < 0) return -1;
        int nd = -1;
        if (na > 2 && a[2] != Py_None && (nd = int_list(a[2], "strides", sd, LIST_MAX, 1)) < 0) return -1;
        return lib_lower_webnn_slice(ndim, shape, (uint64_t *)st, ns, (uint64_t *)sz, nz,
                                     nd < 0 ? NULL : (uint64_t *)sd, nd < 0 ? 0 : nd, p);
    }
    int64_t ax[LIST_MAX];
    int nax = -1;
    if (na > 0 && a[0] != Py_None && (nax = int_list(a[0], "axes", ax, LIST_MAX, 1)) < 0) return -1;
    return lib_lower_webnn_reverse(ndim, shape, nax < 0 ? NULL : (uint64_t *)ax, nax < 0 ? 0 : nax, p);
}

/* ------------------------------------------------------------ a call */

static int same_shape(int n, const int64_t *a, int m, const int64_t *b) {
    if (n != m) return 0;
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

static void shape_text(char *buf, size_t size, int n, const int64_t *s) {
    size_t len = (size_t)snprintf(buf, size, "(");
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, i ? ", %lld" : "%lld", (long long)s[i]);
    if (len < size) snprintf(buf + len, size - len, n == 1 ? ",)" : ")");
}

/* What one call of any entry point needs. */
typedef struct call {
    int kind;
    PyObject *x, *out, *level;
    PyObject *const *params;
    int nparams;
    const compiled *c;  /* an Operator's plan, or NULL */
    PyObject *op_dtype; /* an Operator's dtype, for messages */
    PyObject *shape;    /* an Operator's result shape as a tuple, or NULL */
} call;

/* ------------------------------------------------------------ plan cache */

/* One-shot NumPy indexing plans, by (input shape, element, index text): a
 * repeated x[...]-style call skips the parse and the plan and runs the
 * operator made the first time, as an Operator would. Bounded; emptied
 * when full. Read and written under the GIL. */
#define PLAN_CACHE_MAX 256
static PyObject *plan_cache; /* dict: bytes -> Operator */

typedef struct OperatorObject OperatorObject;
struct OperatorObject {
    PyObject_HEAD compiled c;
    int kind;
    PyObject *dtype;
    PyObject *shape; /* the result's shape, made once */
};

static OperatorObject *make_operator(int kind, const plan *p, int64_t itemsize, PyObject *dtype);

/* The cache key: the array's rank, class, item size and shape, then the
 * index as text ('T') or as an index tuple's binary form ('B', key_bytes). */
static PyObject *cache_key(const array_view *in, char form, const char *index, size_t n) {
    size_t head = 3 + sizeof(int64_t) * (size_t)(1 + in->ndim);
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(head + n));
    if (!b) return NULL;
    char *d = PyBytes_AsString(b);
    d[0] = (char)in->ndim;
    d[1] = (char)in->dtype_class;
    d[2] = form;
    memcpy(d + 3, &in->itemsize, sizeof(int64_t));
    memcpy(d + 3 + sizeof(int64_t), in->shape, sizeof(int64_t) * (size_t)in->ndim);
    memcpy(d + head, index, n);
    return b;
}

#define KEY_BYTES_MAX 512

/* An index tuple (or a single item) in binary, without formatting text: per
 * item a tag and the values key_expr would print (slices as
 * PySlice_Unpack gives them), so keys that index alike are equal. Returns 1
 * with *len set, or 0 for a key the text path must take (a string, an item
 * that is no plain index, a zero step, an integer beyond 64 bits, a long
 * tuple): key_expr then parses it or raises the error. */
static int key_bytes(PyObject *key, char *buf, size_t *len) {
    if (PyUnicode_Check(key)) return 0;
    int tuple = PyTuple_Check(key);
    Py_ssize_t n = tuple ? PyTuple_Size(key) : 1;
    size_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = tuple ? PyTuple_GetItem(key, i) : key;
        if (at + 1 + 3 * sizeof(Py_ssize_t) > KEY_BYTES_MAX) return 0;
        if (item == Py_None) {
            buf[at++] = 'N';
        } else if (item == Py_Ellipsis) {
            buf[at++] = 'E';
        } else if (PySlice_Check(item)) {
            Py_ssize_t v[3];
            if (PySlice_Unpack(item, &v[0], &v[1], &v[2]) < 0) {
                PyErr_Clear();
                return 0;
            }
            buf[at++] = 'S';
            memcpy(buf + at, v, sizeof v);
            at += sizeof v;
        } else if (PyLong_CheckExact(item)) {
            int overflow = 0;
            long long x = PyLong_AsLongLongAndOverflow(item, &overflow);
            if (overflow || (x == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                return 0;
            }
            buf[at++] = 'I';
            memcpy(buf + at, &x, sizeof x);
            at += sizeof x;
        } else {
            return 0;
        }
    }
    *len = at;
    return 1;
}

/* The cached operator for this index on this array (a new reference), or
 * NULL with an exception set. A string is looked up as it is, an index
 * tuple by its binary form; only a miss formats and parses the text. */
/* The last few keys, looked at before the dict: a loop that slices alike
 * skips the dict key's allocation and hashing. A string is matched by
 * identity (it cannot change), an index tuple by its binary form. */
#define RECENT_MAX 4
typedef struct recent_key {
    PyObject *str;      /* the string key, or NULL: bin holds the tuple's form */
    OperatorObject *op; /* strong references both */
    size_t n;
    char bin[KEY_BYTES_MAX];
} recent_key;
static recent_key recent[RECENT_MAX];
static unsigned recent_next;

static int fits(const OperatorObject *op, const array_view *in) {
    const plan *p = &op->c.p;
    if (op->c.itemsize != in->itemsize || p->ndim != in->ndim) return 0;
    for (int i = 0; i < in->ndim; i++)
        if (p->in_shape[i] != in->shape[i]) return 0;
    return 1;
}

static OperatorObject *recent_op(const array_view *in, PyObject *str, const char *bin, size_t n) {
    for (unsigned i = 0; i < RECENT_MAX; i++) {
        const recent_key *r = &recent[i];
        if (!r->op || !fits(r->op, in)) continue;
        if (str ? r->str == str : !r->str && r->n == n && memcmp(r->bin, bin, n) == 0) {
            Py_INCREF((PyObject *)r->op);
            return r->op;
        }
    }
    return NULL;
}

static void remember(PyObject *str, const char *bin, size_t n, OperatorObject *op) {
    recent_key *r = &recent[recent_next++ % RECENT_MAX];
    Py_XDECREF(r->str);
    Py_XDECREF((PyObject *)r->op);
    r->str = str ? Py_NewRef(str) : NULL;
    r->op = (OperatorObject *)Py_NewRef((PyObject *)op);
    r->n = str ? 0 : n;
    if (!str) memcpy(r->bin, bin, n);
}

static OperatorObject *cached_index(const array_view *in, PyObject *key_obj) {
    int is_str = PyUnicode_Check(key_obj);
    OperatorObject *hit = is_str ? recent_op(in, key_obj, NULL, 0) : NULL;
    if (hit) return hit;
    if (has_bool(key_obj)) { /* rare: planned each time */
        plan p;
        if (lower_index(in->ndim, in->shape, key_obj, &p) < 0) return NULL;
        OperatorObject *op = make_operator(K_INDEX, &p, in->itemsize, Py_None);
        PyMem_Free((void *)p.expr);
        return op;
    }
    char bin[KEY_BYTES_MAX];
    size_t n = 0;
    char *expr = NULL;
    const char *index;
    char form;
    if (is_str) {
        Py_ssize_t sn;
        if (!(index = key_string(key_obj, &sn))) return NULL;
        n = (size_t)sn, form = 'T';
    } else if (key_bytes(key_obj, bin, &n)) {
        if ((hit = recent_op(in, NULL, bin, n))) return hit;
        index = bin, form = 'B';
    } else {
        if (!(expr = key_expr(key_obj))) return NULL;
        index = expr, n = strlen(expr), form = 'T';
    }
    OperatorObject *op = NULL;
    PyObject *key = cache_key(in, form, index, n);
    if (!key) goto done;
    if (!plan_cache && !(plan_cache = PyDict_New())) goto done;
    op = (OperatorObject *)PyDict_GetItemWithError(plan_cache, key);
    if (op) {
        Py_INCREF((PyObject *)op);
        goto done;
    }
    if (PyErr_Occurred()) goto done;
    if (!expr && !(expr = key_expr(key_obj))) goto done;
    plan p;
    if (lib_lower_numpy(in->ndim, in->shape, expr, &p) < 0) goto done;
    op = make_operator(K_INDEX, &p, in->itemsize, Py_None);
    if (!op) goto done;
    if (PyDict_Size(plan_cache) >= PLAN_CACHE_MAX) PyDict_Clear(plan_cache);
    if (PyDict_SetItem(plan_cache, key, (PyObject *)op) < 0) Py_CLEAR(op);
done:
    if (op && (is_str || form == 'B')) remember(is_str ? key_obj : NULL, bin, n, op);
    Py_XDECREF(key);
    PyMem_Free(expr);
    return op;
}

/* What one call holds on its way: the array taken in, its device and
 * stream, the plan, the result. call_release lets it all go. */
typedef struct call_state {
    PyObject *x;          /* the array (a NumPy view of a buffer exporter) */
    PyObject *owned_x;    /* that view, when made */
    PyObject *stream_arg; /* the stream= for __dlpack__, or NULL */
    PyObject *target;     /* the array written: out= or a new one */
    OperatorObject *cached;
    int cuda, dev_id, sync, have_in, have_out;
    uintptr_t stream;
    const plan *p;
    plan local;
    array_view in, out; /* valid where have_in, have_out say so */
} call_state;

static int shape_mismatch(const char *fmt, int n, const int64_t *have, int m, const int64_t *want) {
    char a[256], b[256];
    shape_text(a, sizeof a, n, have);
    shape_text(b, sizeof b, m, want);
    ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "", fmt, a, b);
    return -1;
}

/* Step 1: the array's device and, on a GPU, the stream to run on. */
static int call_device(call_state *s) {
    int type;
    if (view_is_buffer(s->x)) {
        /* Any other exporter of the buffer protocol: a NumPy view of it
         * (no copy), so that the result is a NumPy array. */
        s->owned_x = s->x = PyObject_CallFunctionObjArgs(np_asarray, s->x, NULL);
        if (!s->x) return -1;
    }
    if (view_device(s->x, &type, &s->dev_id) < 0) return -1;
    s->cuda = type == DL_CUDA || type == DL_CUDA_MANAGED;
    if (!s->cuda) {
        if (type == DL_CPU || type == DL_CUDA_HOST) return 0;
        ext_raise(ERR_DEVICE, "DMLS_ERROR_NO_DEVICE", "",
                  "the array is on DLPack device type %d; dmlslice slices CPU and CUDA arrays", type);
        return -1;
    }
    if (lib_cuda_check(s->dev_id) < 0) return -1;
    /* A torch tensor: the stream as _kinds.stream_of finds it, without the call. */
    int got = view_is_torch(s->x) ? view_torch_stream(s->dev_id, &s->stream) : 1;
    if (got < 0) return -1;
    if (got == 0) {
        s->stream_arg = PyLong_FromUnsignedLongLong(s->stream ? (unsigned long long)s->stream : 1);
        return s->stream_arg ? 0 : -1;
    }
    PyObject *r = PyObject_CallFunction(k_stream_of, "Oi", s->x, s->dev_id);
    if (!r) return -1;
    PyObject *ptr = PyTuple_GetItem(r, 0);
    s->stream = ptr ? (uintptr_t)PyLong_AsUnsignedLongLong(ptr) : 0;
    s->stream_arg = Py_XNewRef(PyTuple_GetItem(r, 1));
    s->sync = PyObject_IsTrue(PyTuple_GetItem(r, 2)) == 1;
    Py_DECREF(r);
    return PyErr_Occurred() ? -1 : 0;
}

/* Step 3, one-shot calls of every kind but index: lower the parameters. */
static int call_lower(call *k, call_state *s) {
    const int64_t *shape = s->in.shape;
    int ndim = s->in.ndim, na = k->nparams;
    PyObject *const *pa = k->params;
    int64_t fwd[EXT_MAX_RANK];
    if (k->kind == K_SLICE_GRAD) { /* the forward input's shape comes first */
        if ((ndim = int_list(pa[0], "input_shape", fwd, EXT_MAX_RANK, 1)) < 0) return -1;
        shape = fwd, pa++, na--;
    }
    if (lower(k->kind, ndim, shape, s->in.itemsize, s->in.dtype_class, pa, na, k->level, &s->local) < 0) return -1;
    s->p = &s->local;
    if (same_shape(s->in.ndim, s->in.shape, s->p->ndim, s->p->in_shape)) return 0;
    return shape_mismatch("slice_grad: the array has shape %s; the window makes an input gradient of shape %s",
                          s->in.ndim, s->in.shape, s->p->ndim, s->p->in_shape);
}

/* Step 3: the plan: an Operator's, the cached one of a NumPy key, or one
 * lowered now. */
static int call_plan(call *k, call_state *s) {
    if (!k->c && k->kind == K_INDEX) {
        if (!(s->cached = cached_index(&s->in, k->params[0]))) return -1;
        k->c = &s->cached->c;
        k->shape = s->cached->shape;
    }
    if (!k->c) return call_lower(k, s);
    s->p = &k->c->p;
    if (!same_shape(s->in.ndim, s->in.shape, s->p->ndim, s->p->in_shape))
        return shape_mismatch("the array has shape %s; the operator was planned for input shape %s", s->in.ndim,
                              s->in.shape, s->p->ndim, s->p->in_shape);
    if (s->in.itemsize == k->c->itemsize) return 0;
    ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "",
              "the operator was planned for %lld-byte elements; the array has %lld-byte elements",
              (long long)k->c->itemsize, (long long)s->in.itemsize);
    return -1;
}

/* Step 4, out= given: on the array's device, of the result's shape and the
 * input's dtype. */
static int call_out(call *k, call_state *s) {
    int type, id;
    if (view_device(k->out, &type, &id) < 0) return -1;
    int cuda = type == DL_CUDA || type == DL_CUDA_MANAGED;
    if (cuda != s->cuda || (cuda && id != s->dev_id)) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "",
                  "out= is on %s %d and the array on %s %d; they must share a device", cuda ? "CUDA device" : "the CPU",
                  id, s->cuda ? "CUDA device" : "the CPU", s->dev_id);
        return -1;
    }
    if (view_import(k->out, 1, s->stream_arg, &s->out) < 0) return -1;
    s->have_out = 1;
    const plan *p = s->p;
    if (!same_shape(s->out.ndim, s->out.shape, p->final_ndim, p->final_shape))
        return shape_mismatch("out= has shape %s; the result has shape %s", s->out.ndim, s->out.shape, p->final_ndim,
                              p->final_shape);
    int same = s->out.itemsize == s->in.itemsize && s->out.dtype_class == s->in.dtype_class;
    if (same && view_is_numpy(s->x) && view_is_numpy(k->out))
        same = PyObject_RichCompareBool(view_numpy_descr(s->x), view_numpy_descr(k->out), Py_EQ);
    if (same < 0) return -1;
    if (!same) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "",
                  "out= must have the input's dtype (slicing copies bits; no casting)");
        return -1;
    }
    s->target = Py_NewRef(k->out);
    return 0;
}

/* Step 4, no out=: a new array of the input's kind, made by its library. */
static int call_new_result(call *k, call_state *s) {
    const plan *p = s->p;
    PyObject *shape = k->shape ? Py_NewRef(k->shape) : shape_tuple(p->final_ndim, p->final_shape);
    if (!shape) return -1;
    if (view_is_numpy(s->x)) {
        s->target = PyObject_CallFunctionObjArgs(np_empty, shape, view_numpy_descr(s->x), NULL);
    } else if (view_is_torch(s->x)) {
        s->target = view_torch_empty(s->x, shape);
    } else {
        /* NumPy's name of the element type, for producers whose result is
         * a NumPy array (a CPU array of another kind). */
        static const char codes[] = "iuf?Vc?"; /* DLPack codes 0-6: 3 opaque, 4 bfloat */
        const array_view *in = &s->in;
        char hint[16], c = in->dl_code >= 0 && in->dl_code < 7 ? codes[in->dl_code] : 'V';
        if (in->dl_code == 6)
            snprintf(hint, sizeof hint, "?");
        else if (c == '?' || c == 'V' || in->dl_code == 4)
            snprintf(hint, sizeof hint, "V%lld", (long long)in->itemsize);
        else
            snprintf(hint, sizeof hint, "%c%lld", c, (long long)in->itemsize);
        s->target = PyObject_CallFunction(k_empty_like, "OOs", s->x, shape, hint);
    }
    Py_DECREF(shape);
    if (!s->target || view_import(s->target, 1, s->stream_arg, &s->out) < 0) return -1;
    s->have_out = 1;
    return 0;
}

/* Step 6: what the caller gets: out=, or the new array as its library
 * hands it back (JAX's from the buffer it was written into). */
static PyObject *call_result(call *k, call_state *s) {
    if ((k->out && k->out != Py_None) || view_is_numpy(s->x) || view_is_torch(s->x)) return Py_NewRef(s->target);
    return PyObject_CallFunctionObjArgs(k_finish, s->x, s->target, NULL);
}

static void call_release(call_state *s) {
    if (s->have_out) view_release(&s->out);
    if (s->have_in) view_release(&s->in);
    Py_XDECREF(s->target);
    Py_XDECREF(s->stream_arg);
    Py_XDECREF(s->owned_x);
    Py_XDECREF((PyObject *)s->cached);
}

/* One call, straight through: device (1), array in (2), plan (3), result
 * array (4), run (5), result handed back (6). */
static PyObject *run_call(call *k) {
    call_state s;
    memset(&s, 0, offsetof(call_state, local)); /* the views and the plan are set as they are made */
    s.x = k->x;
    PyObject *result = NULL;
    int ok = call_device(&s) == 0 && view_import(s.x, 0, s.stream_arg, &s.in) == 0;
    s.have_in = ok;
    ok = ok && call_plan(k, &s) == 0;
    ok = ok && (k->out && k->out != Py_None ? call_out(k, &s) : call_new_result(k, &s)) == 0;
    if (ok && lib_run(s.p, k->c, &s.in, &s.out, s.stream, s.sync) == 0) result = call_result(k, &s);
    call_release(&s);
    return result;
}

/* A vectorcall's arguments into slots[0..n) by position (the first npos)
 * or by name, NULL where not given; the first nreq are required. Mistakes
 * are TypeErrors worded as Python's own. */
static int parse_args(const char *fname, const char *const *names, int n, int npos, int nreq, PyObject *const *args,
                      Py_ssize_t nargs, PyObject *kwnames, PyObject **slots) {
    if (nargs > npos) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)", fname, npos, nargs);
        return -1;
    }
    for (int i = 0; i < n; i++) slots[i] = i < nargs ? args[i] : NULL;
    Py_ssize_t nk = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nk; k++) {
        PyObject *name = PyTuple_GetItem(kwnames, k);
        int i = 0;
        while (i < n && PyUnicode_CompareWithASCIIString(name, names[i]) != 0) i++;
        if (i == n) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, name);
            return -1;
        }
        if (slots[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname, names[i]);
            return -1;
        }
        slots[i] = args[nargs + k];
    }
    for (int i = 0; i < nreq; i++)
        if (!slots[i]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", fname, names[i], i + 1);
            return -1;
        }
    return 0;
}

/* Each function's parameters: positional-or-keyword, then out= (and
 * feature_level= for DirectML's) by keyword only. */
static const char *const kind_args[K_COUNT][8] = {
    {"x", "key", "out"},
    {"x", "offsets", "sizes", "strides", "out", "feature_level"},
    {"x", "offsets", "sizes", "strides", "out", "feature_level"},
    {"grad", "input_shape", "offsets", "sizes", "strides", "out", "feature_level"},
    {"x", "starts", "ends", "axes", "steps", "out"},
    {"x", "starts", "sizes", "strides", "out"},
    {"x", "axes", "out"},
};
static const int kind_npos[K_COUNT] = {2, 4, 4, 5, 5, 4, 2};
static const int kind_nreq[K_COUNT] = {2, 4, 4, 5, 3, 3, 1};

static PyObject *one_shot(int kind, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *slots[8];
    int npos = kind_npos[kind], dml = kind == K_SLICE || kind == K_SLICE1 || kind == K_SLICE_GRAD;
    if (parse_args(kind_names[kind], kind_args[kind], npos + 1 + dml, npos, kind_nreq[kind], args, nargs, kwnames,
                   slots) < 0)
        return ext_own_error();
    for (int i = 1; i < npos; i++)
        if (!slots[i]) slots[i] = Py_None; /* an optional parameter left out */
    call k = {.kind = kind,
              .x = slots[0],
              .params = slots + 1,
              .nparams = npos - 1,
              .out = slots[npos],
              .level = dml ? slots[npos + 1] : NULL};
    PyObject *r = run_call(&k);
    return r ? r : ext_own_error();
}

#define ONE_SHOT(name, kind)                                                                                           \
    static PyObject *fn_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {           \
        (void)self;                                                                                                    \
        return one_shot(kind, args, nargs, kwnames);                                                                   \
    }
ONE_SHOT(index, K_INDEX)
ONE_SHOT(slice, K_SLICE)
ONE_SHOT(slice1, K_SLICE1)
ONE_SHOT(slice_grad, K_SLICE_GRAD)
ONE_SHOT(onnx_slice, K_ONNX)
ONE_SHOT(webnn_slice, K_WEBNN_SLICE)
ONE_SHOT(webnn_reverse, K_WEBNN_REVERSE)

/* ------------------------------------------------------------ Operator */

static PyObject *operator_type;

static void op_dealloc(PyObject *self) {
    OperatorObject *o = (OperatorObject *)self;
    lib_compiled_free(&o->c);
    Py_XDECREF(o->dtype);
    Py_XDECREF(o->shape);
    PyTypeObject *tp = Py_TYPE(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

/* op(x, *, out=None); x may be named too. */
static int op_args(PyObject *args, PyObject *kw, PyObject **x, PyObject **out) {
    Py_ssize_t n = PyTuple_Size(args);
    if (n > 1) {
        PyErr_Format(PyExc_TypeError, "Operator() takes at most 1 positional argument (%zd given)", n);
        return -1;
    }
    *x = n ? PyTuple_GetItem(args, 0) : NULL;
    *out = NULL;
    PyObject *name, *value;
    Py_ssize_t pos = 0;
    while (kw && PyDict_Next(kw, &pos, &name, &value)) {
        PyObject **slot = PyUnicode_CompareWithASCIIString(name, "x") == 0     ? x
                          : PyUnicode_CompareWithASCIIString(name, "out") == 0 ? out
                                                                               : NULL;
        if (!slot || *slot) {
            PyErr_Format(PyExc_TypeError,
                         slot ? "Operator() got multiple values for argument '%U'"
                              : "Operator() got an unexpected keyword argument '%U'",
                         name);
            return -1;
        }
        *slot = value;
    }
    if (!*x) {
        PyErr_SetString(PyExc_TypeError, "Operator() missing required argument 'x' (pos 1)");
        return -1;
    }
    return 0;
}

static PyObject *op_call(PyObject *self, PyObject *args, PyObject *kw) {
    OperatorObject *o = (OperatorObject *)self;
    call k = {.kind = o->kind, .c = &o->c, .op_dtype = o->dtype, .shape = o->shape};
    if (op_args(args, kw, &k.x, &k.out) < 0) return ext_own_error();
    PyObject *r = run_call(&k);
    return r ? r : ext_own_error();
}

static PyObject *op_get(PyObject *self, void *which) {
    OperatorObject *o = (OperatorObject *)self;
    const plan *p = &o->c.p;
    switch ((intptr_t)which) {
    case 0: return shape_tuple(p->ndim, p->in_shape);
    case 1: return shape_tuple(p->final_ndim, p->final_shape);
    case 2: Py_INCREF(o->dtype); return o->dtype;
    case 3: return PyUnicode_FromString(kind_names[o->kind]);
    default: return shape_tuple(p->ndim, p->out_sizes);
    }
}

static PyObject *op_repr(PyObject *self) {
    OperatorObject *o = (OperatorObject *)self;
    char a[256], b[256];
    shape_text(a, sizeof a, o->c.p.ndim, o->c.p.in_shape);
    shape_text(b, sizeof b, o->c.p.final_ndim, o->c.p.final_shape);
    return PyUnicode_FromFormat("<dmlslice.Operator %s %s -> %s, dtype=%R>", kind_names[o->kind], a, b, o->dtype);
}

static PyGetSetDef op_getset[] = {
    {"input_shape", op_get, NULL, "The shape the input array must have.", (void *)0},
    {"output_shape", op_get, NULL, "The shape of the result.", (void *)1},
    {"dtype", op_get, NULL, "The dtype the operator was planned for.", (void *)2},
    {"kind", op_get, NULL, "The vocabulary it was made from (\"index\", \"slice1\", ...).", (void *)3},
    {"window_shape", op_get, NULL, "The SLICE1 output sizes (one per input axis).", (void *)4},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot op_slots[] = {
    {Py_tp_dealloc, op_dealloc},
    {Py_tp_call, op_call},
    {Py_tp_repr, op_repr},
    {Py_tp_getset, op_getset},
    {Py_tp_doc, "A slice planned once for one input shape and dtype; call it on arrays:\n"
                "op(x, out=None). Safe to call from several threads at once.\n"
                "Made by dmlslice.plan(...)."},
    {0, NULL},
};

static PyType_Spec op_spec = {"dmlslice.Operator", sizeof(OperatorObject), 0, Py_TPFLAGS_DEFAULT, op_slots};

/* _plan(kind, shape, dtype, params, feature_level) */
static PyObject *plan_impl(PyObject *self, PyObject *args) {
    (void)self;
    const char *kname;
    PyObject *shape_obj, *dtype, *params, *level;
    if (!PyArg_ParseTuple(args, "sOOO!O", &kname, &shape_obj, &dtype, &PyTuple_Type, &params, &level))
        return ext_own_error();
    int kind = -1;
    for (int i = 0; i < K_COUNT; i++)
        if (strcmp(kname, kind_names[i]) == 0) kind = i;
    if (kind < 0) return PyErr_Format(PyExc_ValueError, "unknown slice kind '%s'", kname);
    int64_t shape[EXT_ARRAY_MAX_RANK], itemsize;
    int cls;
    int ndim = int_list(shape_obj, "shape", shape, EXT_ARRAY_MAX_RANK, 1);
    if (ndim < 0 || view_dtype_info(dtype, &itemsize, &cls) < 0) return NULL;
    Py_ssize_t n = PyTuple_Size(params);
    PyObject *a[4];
    for (Py_ssize_t i = 0; i < n && i < 4; i++) a[i] = PyTuple_GetItem(params, i);
    plan p;
    if (lower(kind, ndim, shape, itemsize, cls, a, (int)(n > 4 ? 5 : n), level, &p) < 0) return NULL;
    PyObject *op = (PyObject *)make_operator(kind, &p, itemsize, dtype);
    PyMem_Free((void *)p.expr);
    return op;
}

static PyObject *fn_plan(PyObject *self, PyObject *args) {
    PyObject *r = plan_impl(self, args);
    return r ? r : ext_own_error();
}

static OperatorObject *make_operator(int kind, const plan *p, int64_t itemsize, PyObject *dtype) {
    OperatorObject *o = PyObject_New(OperatorObject, (PyTypeObject *)operator_type);
    if (!o) return NULL;
    o->kind = kind;
    o->dtype = dtype;
    Py_INCREF(dtype);
    o->c.packed_op = NULL;
    o->c.expr = NULL;
    o->shape = shape_tuple(p->final_ndim, p->final_shape);
    if (!o->shape || lib_compile(&o->c, p, itemsize) < 0) {
        Py_DECREF(o);
        return NULL;
    }
    return o;
}

/* ------------------------------------------------------------ check_dml */

static int tensor_args(PyObject *sizes, PyObject *strides, PyObject *total, PyObject *align, const char *what,
                       dml_tensor_args *t) {
    char name[64];
    memset(t, 0, sizeof *t);
    snprintf(name, sizeof name, "%s sizes", what);
    if ((t->ndim = int_list(sizes, name, t->sizes, EXT_MAX_RANK, 0)) < 0) return -1;
    if (strides && strides != Py_None) {
        snprintf(name, sizeof name, "%s strides", what);
        int n = int_list(strides, name, t->strides, EXT_MAX_RANK, 0);
        if (n < 0) return -1;
        if (n != t->ndim) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "", "%s: %d strides for %d sizes", what, n, t->ndim);
            return -1;
        }
        t->has_strides = 1;
    }
    if (total && total != Py_None) {
        t->total_bytes = PyLong_AsUnsignedLongLong(total);
        if (PyErr_Occurred()) return -1;
    }
    if (align && align != Py_None) {
        t->alignment = PyLong_AsUnsignedLongLong(align);
        if (PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *check_dml_impl(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static const char *kwlist[] = {"operator",
                                   "input_sizes",
                                   "output_sizes",
                                   "offsets",
                                   "sizes",
                                   "strides",
                                   "dtype",
                                   "feature_level",
                                   "input_strides",
                                   "output_strides",
                                   "input_total_bytes",
                                   "output_total_bytes",
                                   "alignment",
                                   NULL};
    const char *opname;
    PyObject *isz, *osz, *offs, *sizes, *strides, *dtype = NULL, *level = NULL, *istr = NULL, *ostr = NULL,
                                                  *itot = NULL, *otot = NULL, *align = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sOOOOO|$OOOOOOO:check_dml", (char **)kwlist, &opname, &isz, &osz, &offs,
                                     &sizes, &strides, &dtype, &level, &istr, &ostr, &itot, &otot, &align))
        return NULL;
    dml_params d = {0};
    if (strcmp(opname, "SLICE") == 0)
        d.op = DML_SLICE;
    else if (strcmp(opname, "SLICE1") == 0)
        d.op = DML_SLICE1;
    else if (strcmp(opname, "SLICE_GRAD") == 0)
        d.op = DML_SLICE_GRAD;
    else
        return ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-OP-TYPE",
                         "operator '%s' is not SLICE, SLICE1 or SLICE_GRAD (R-OP-TYPE)", opname);
    if (feature_level(level, &d.level) < 0) return NULL;
    PyObject *dflt = NULL;
    if (!dtype) dtype = dflt = PyUnicode_FromString("float32");
    int rc = dtype ? view_dtype_info(dtype, &d.itemsize, &d.dtype_class) : -1;
    Py_XDECREF(dflt);
    if (rc < 0) return NULL;
    int n[3];
    int64_t *dst[3] = {d.offsets, d.sizes, d.strides};
    PyObject *src[3] = {offs, sizes, strides};
    static const char *const names[] = {"offsets", "sizes", "strides"};
    for (int i = 0; i < 3; i++)
        if ((n[i] = int_list(src[i], names[i], dst[i], EXT_MAX_RANK, 0)) < 0) return NULL;
    if (n[0] != n[1] || n[1] != n[2])
        return ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "",
                         "%s: offsets, sizes and strides have %d, %d and %d values; DimensionCount "
                         "needs one count",
                         opname, n[0], n[1], n[2]);
    d.n = n[0];
    dml_tensor_args ti, to;
    if (tensor_args(isz, istr, itot, align, "input", &ti) < 0 || tensor_args(osz, ostr, otot, align, "output", &to) < 0)
        return NULL;
    int rank;
    int64_t shape[EXT_MAX_RANK];
    if (lib_check_dml(&d, &ti, &to, &rank, shape) < 0) return NULL;
    return shape_tuple(rank, shape);
}

static PyObject *fn_check_dml(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *r = check_dml_impl(self, args, kw);
    return r ? r : ext_own_error();
}

/* ------------------------------------------------------------ settings */

static PyObject *set_num_threads_impl(PyObject *self, PyObject *arg) {
    (void)self;
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0 || n > 1024)
        return ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "",
                         "num_threads %ld is not 0 (the default) or 1 to 1024", n);
    if (lib_set_threads((int)n) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *fn_set_num_threads(PyObject *self, PyObject *arg) {
    PyObject *r = set_num_threads_impl(self, arg);
    return r ? r : ext_own_error();
}

static PyObject *get_num_threads_impl(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    int n = lib_threads();
    return n < 0 ? NULL : PyLong_FromLong(n);
}

static PyObject *fn_get_num_threads(PyObject *self, PyObject *unused) {
    PyObject *r = get_num_threads_impl(self, unused);
    return r ? r : ext_own_error();
}

static PyObject *fn_after_fork_child(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    lib_after_fork_child();
    Py_RETURN_NONE;
}

static PyObject *fn_cuda_available(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    return PyBool_FromLong(lib_cuda_available());
}

static PyObject *fn_init(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *errors, *np, *kinds;
    if (!PyArg_ParseTuple(args, "O!OO", &PyTuple_Type, &errors, &np, &kinds)) return NULL;
    if (ext_set_errors(errors) < 0) return NULL;
    PyObject *nd = PyObject_GetAttrString(np, "ndarray");
    Py_XDECREF(np_bool);
    np_bool = PyObject_GetAttrString(np, "bool_");
    np_empty = PyObject_GetAttrString(np, "empty");
    np_asarray = PyObject_GetAttrString(np, "asarray");
    k_empty_like = PyObject_GetAttrString(kinds, "empty_like");
    k_finish = PyObject_GetAttrString(kinds, "finish");
    k_stream_of = PyObject_GetAttrString(kinds, "stream_of");
    if (!nd || !np_bool || !np_empty || !np_asarray || !k_empty_like || !k_finish || !k_stream_of ||
        view_set_kinds(nd, kinds) < 0) {
        Py_XDECREF(nd);
        return NULL;
    }
    Py_DECREF(nd);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------ docstrings */

PyDoc_STRVAR(doc_index, "index(x, key, *, out=None)\n"
                        "\n"
                        "NumPy basic indexing: key is a string such as \"[1:3, ::-1, None, ...]\" or\n"
                        "what x[...] takes (an int, a slice, Ellipsis, None, a boolean scalar, or a\n"
                        "tuple of them, e.g. np.s_[1:3, ::-1]). The same result as x[key].copy(), bit\n"
                        "for bit.");

PyDoc_STRVAR(doc_slice1, "slice1(x, offsets, sizes, strides, *, out=None, feature_level=None)\n"
                         "\n"
                         "DirectML SLICE1: a window (offsets, sizes) over x walked with non-zero\n"
                         "strides; a negative stride starts at the window's end. The result has\n"
                         "1 + (size - 1) // |stride| elements per axis. The parameters are validated as\n"
                         "DirectML validates them at feature_level (default: the latest).");

PyDoc_STRVAR(doc_slice, "slice(x, offsets, sizes, strides, *, out=None, feature_level=None)\n"
                        "\n"
                        "DirectML SLICE: out[c] = x[offsets + strides * c]; sizes are the output's\n"
                        "sizes, strides >= 1. Validated as DirectML does at feature_level.");

PyDoc_STRVAR(doc_slice_grad, "slice_grad(grad, input_shape, offsets, sizes, strides, *, out=None, feature_level=None)\n"
                             "\n"
                             "DirectML SLICE_GRAD: a zero array of input_shape with grad's elements\n"
                             "written where slice1(..., offsets, sizes, strides) would read them.");

PyDoc_STRVAR(doc_onnx_slice, "onnx_slice(x, starts, ends, axes=None, steps=None, *, out=None)\n"
                             "\n"
                             "ONNX Slice (opsets 1-13): negative values count from the end and clamp.");

PyDoc_STRVAR(doc_webnn_slice, "webnn_slice(x, starts, sizes, strides=None, *, out=None)\n"
                              "\n"
                              "WebNN slice(input, starts, sizes, {strides}) with WebNN's validation.");

PyDoc_STRVAR(doc_webnn_reverse, "webnn_reverse(x, axes=None, *, out=None)\n"
                                "\n"
                                "WebNN reverse(input, {axes}); axes=None reverses every axis.");

PyDoc_STRVAR(doc_check_dml,
             "check_dml(operator, input_sizes, output_sizes, offsets, sizes, strides, *,\n"
             "          dtype=\"float32\", feature_level=None, input_strides=None, output_strides=None,\n"
             "          input_total_bytes=None, output_total_bytes=None, alignment=0) -> tuple\n"
             "\n"
             "Validate a DirectML SLICE, SLICE1 or SLICE_GRAD descriptor without data, as\n"
             "DirectML does at feature_level (default: the latest). For SLICE_GRAD the input\n"
             "is the input gradient and the output the output gradient. Total sizes default\n"
             "to the least the tensor needs. Returns the output shape; raises Error naming\n"
             "the rule otherwise.");

PyDoc_STRVAR(doc_set_num_threads, "set_num_threads(n, /)\n"
                                  "\n"
                                  "Resize the process's shared copy pool: n threads in all (the caller\n"
                                  "included), or 0 for the library's default (DMLSLICE_THREADS, else the number\n"
                                  "of online CPUs).");

PyDoc_STRVAR(doc_get_num_threads, "get_num_threads() -> int\n"
                                  "\n"
                                  "The shared pool's thread count (the calling thread included).");

PyDoc_STRVAR(doc_cuda_available, "cuda_available() -> bool\n"
                                 "\n"
                                 "True when this build has the CUDA backend and a CUDA GPU is present.");

#define FASTKW(name, doc)                                                                                              \
    { #name, (PyCFunction)(void (*)(void))fn_##name, METH_FASTCALL | METH_KEYWORDS, doc }

static PyMethodDef methods[] = {
    FASTKW(index, doc_index),
    FASTKW(slice, doc_slice),
    FASTKW(slice1, doc_slice1),
    FASTKW(slice_grad, doc_slice_grad),
    FASTKW(onnx_slice, doc_onnx_slice),
    FASTKW(webnn_slice, doc_webnn_slice),
    FASTKW(webnn_reverse, doc_webnn_reverse),
    {"check_dml", (PyCFunction)(void (*)(void))fn_check_dml, METH_VARARGS | METH_KEYWORDS, doc_check_dml},
    {"_plan", fn_plan, METH_VARARGS, NULL},
    {"_init", fn_init, METH_VARARGS, NULL},
    {"_after_fork_child", fn_after_fork_child, METH_NOARGS, NULL},
    {"set_num_threads", fn_set_num_threads, METH_O, doc_set_num_threads},
    {"get_num_threads", fn_get_num_threads, METH_NOARGS, doc_get_num_threads},
    {"cuda_available", fn_cuda_available, METH_NOARGS, doc_cuda_available},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT,
                                       "_dmlslice",
                                       "The C half of dmlslice; use the dmlslice package.",
                                       -1,
                                       methods,
                                       NULL,
                                       NULL,
                                       NULL,
                                       NULL};

PyMODINIT_FUNC PyInit__dmlslice(void) {
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    operator_type = PyType_FromSpec(&op_spec);
    if (!operator_type || PyModule_AddObject(m, "Operator", operator_type) < 0) goto fail;
    Py_INCREF(operator_type); /* AddObject stole one; the module keeps it too */
    if (PyModule_AddStringConstant(m, "library_version", lib_version()) < 0 ||
        PyModule_AddIntConstant(m, "cuda_built", lib_cuda_built()) < 0 ||
        PyModule_AddIntConstant(m, "MAX_RANK", EXT_MAX_RANK) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
