/*
 * params.c: each vocabulary's Python parameters read (integer lists,
 * feature levels) and lowered to a lowered slice: NumPy keys by keys.c, DirectML
 * descriptors by dml.c, ONNX and WebNN by lowering.c.
 */
#include "ext.h"

#include <string.h>

/* A sequence of at most `max` integers. Returns the count, or -1. */
int params_int_list(PyObject *seq, const char *what, int64_t *out, int max, int is_unsigned) {
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

int params_feature_level(PyObject *obj, int *level) {
    if (!obj || obj == Py_None) {
        *level = dml_latest_feature_level();
        return 0;
    }
    if (PyUnicode_Check(obj)) {
        Py_ssize_t len = 0;
        const char *s = PyUnicode_AsUTF8AndSize(obj, &len);
        if (!s) return -1;
        /* A NUL inside would end the text early: "6_4\0x" is no level. */
        *level = strlen(s) == (size_t)len ? dml_feature_level(s) : -1;
    } else {
        long v = PyLong_AsLong(obj);
        if (v == -1 && PyErr_Occurred()) PyErr_Clear();
        *level = dml_feature_level_name((int)v) ? (int)v : -1;
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

static const int kind_min[K_COUNT] = {1, 3, 3, 3, 2, 2, 0, 0};
static const int kind_max[K_COUNT] = {1, 3, 3, 3, 4, 3, 1, 1};

#define LIST_MAX 64 /* ONNX and WebNN lists longer than any rank: the front end names the excess */

int params_lower(int kind, int ndim, const int64_t *shape, int64_t itemsize, int cls, PyObject *const *a, int na,
                 PyObject *level_obj, lowered *p) {
    if (na < kind_min[kind] || na > kind_max[kind]) {
        PyErr_Format(PyExc_TypeError, "%s takes %d to %d parameters after the array, got %d", kind_names[kind],
                     kind_min[kind], kind_max[kind], na);
        return -1;
    }
    if (kind == K_INDEX) return keys_lower(ndim, shape, a[0], p);
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
        if (params_feature_level(level_obj, &d.level) < 0) return -1;
        int n[3];
        int64_t *dst[3] = {d.offsets, d.sizes, d.strides};
        for (int i = 0; i < 3; i++)
            if ((n[i] = params_int_list(a[i], names[d.op][i], dst[i], EXT_MAX_RANK, 0)) < 0) return -1;
        if (n[0] != ndim || n[1] != ndim || n[2] != ndim) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "",
                      "%s: %s, %s and %s need one value per dimension of the %s (%d); got %d, %d, %d", kind_names[kind],
                      names[d.op][0], names[d.op][1], names[d.op][2], kind == K_SLICE_GRAD ? "forward input" : "input",
                      ndim, n[0], n[1], n[2]);
            return -1;
        }
        d.n = ndim;
        return dml_lower(ndim, shape, &d, p);
    }
    if (kind == K_ONNX) {
        int64_t st[LIST_MAX], en[LIST_MAX], ax[LIST_MAX], sp[LIST_MAX];
        int ns = params_int_list(a[0], "starts", st, LIST_MAX, 0);
        int ne = ns < 0 ? -1 : params_int_list(a[1], "ends", en, LIST_MAX, 0);
        if (ne < 0) return -1;
        int nax = -1, nsp = -1;
        if (na > 2 && a[2] != Py_None && (nax = params_int_list(a[2], "axes", ax, LIST_MAX, 0)) < 0) return -1;
        if (na > 3 && a[3] != Py_None && (nsp = params_int_list(a[3], "steps", sp, LIST_MAX, 0)) < 0) return -1;
        if (ns != ne) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "",
                      "ONNX Slice: starts has %d values and ends %d; they must agree", ns, ne);
            return -1;
        }
        return lower_onnx(ndim, shape, st, en, ns, nax < 0 ? NULL : ax, nax < 0 ? 0 : nax, nsp < 0 ? NULL : sp,
                          nsp < 0 ? 0 : nsp, p);
    }
    if (kind == K_WEBNN_SLICE) {
        int64_t st[LIST_MAX], sz[LIST_MAX], sd[LIST_MAX];
        int ns = params_int_list(a[0], "starts", st, LIST_MAX, 1);
        int nz = ns < 0 ? -1 : params_int_list(a[1], "sizes", sz, LIST_MAX, 1);
        if (nz < 0) return -1;
        int nd = -1;
        if (na > 2 && a[2] != Py_None && (nd = params_int_list(a[2], "strides", sd, LIST_MAX, 1)) < 0) return -1;
        return lower_webnn_slice(ndim, shape, (uint64_t *)st, ns, (uint64_t *)sz, nz, nd < 0 ? NULL : (uint64_t *)sd,
                                 nd < 0 ? 0 : nd, p);
    }
    int64_t ax[LIST_MAX];
    int nax = -1;
    if (na > 0 && a[0] != Py_None && (nax = params_int_list(a[0], "axes", ax, LIST_MAX, kind != K_TRANSPOSE)) < 0)
        return -1;
    if (kind == K_TRANSPOSE) return lower_transpose(ndim, shape, nax < 0 ? NULL : ax, nax < 0 ? 0 : nax, p);
    return lower_webnn_reverse(ndim, shape, nax < 0 ? NULL : (uint64_t *)ax, nax < 0 ? 0 : nax, p);
}
