/*
 * params.c: each vocabulary's Python parameters read (integer lists,
 * feature levels) and lowered to a lowered slice: NumPy keys by keys.c, DirectML
 * descriptors by dml.c, ONNX and WebNN by lowering.c.
 */
#include "params.h"
#include "array_view.h"
#include "dml_params.h"
#include "errors.h"
#include "keys.h"
#include "lowering.h"
#include "numpy_abi.h"
#include "prepared.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <dmlslice/dml.h>

int params_index(PyObject *obj, int64_t *v) {
    /* NumPy's operator.index rules: True is no size (NumPy refuses np.bool_
     * there too, and a bool is refused as a split count already). */
    if (PyBool_Check(obj) || numpy_is_bool(obj)) return 1;
    PyObject *idx = PyNumber_Index(obj);
    if (!idx) {
        PyErr_Clear();
        return 1;
    }
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(idx, &overflow);
    Py_DECREF(idx);
    PyErr_Clear();
    *v = x;
    return overflow ? 2 : 0;
}

PyObject *params_sequence(PyObject *seq, const char *what, const char *rule) {
    /* A str is a sequence of characters, never of integers. */
    PyObject *fast = PyUnicode_Check(seq) || PyBytes_Check(seq) ? NULL : PySequence_Tuple(seq);
    if (!fast) {
        PyErr_Clear();
        char name[128];
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", rule, "%s must be a sequence of integers, not %s (%s)",
                  what, ext_type_name(seq, name, sizeof name), rule);
    }
    return fast;
}

int params_item(PyObject *fast, Py_ssize_t i, const char *what, const char *rule, int is_unsigned, int64_t *v) {
    PyObject *item = PyTuple_GetItem(fast, i);
    int bad = params_index(item, v);
    if (bad == 0 && !(is_unsigned && *v < 0)) return 0;
    char name[128];
    if (bad == 1)
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", rule, "%s[%zd] is %s, not an integer (%s)", what, i,
                  ext_type_name(item, name, sizeof name), rule);
    else
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", rule, "%s[%zd] is %s (%s)", what, i,
                  bad == 2 ? "outside the 64-bit integers" : "negative", rule);
    return -1;
}

/* A sequence of at most `max` integers. Returns the count, or -1. */
int params_int_list(PyObject *seq, const char *what, const char *rule, int64_t *out, int max, int is_unsigned) {
    PyObject *fast = params_sequence(seq, what, rule);
    if (!fast) return -1;
    Py_ssize_t n = PyTuple_Size(fast);
    if (n > max) {
        Py_DECREF(fast);
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", rule, "%s has %zd values; at most %d are taken (%s)", what, n,
                  max, rule);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (params_item(fast, i, what, rule, is_unsigned, &out[i]) < 0) {
            Py_DECREF(fast);
            return -1;
        }
    Py_DECREF(fast);
    return (int)n;
}

const char *params_dml_rule(int op, int field) {
    static const char *const rules[2][3] = {{"R-SLICE-BOUNDS", "R-SLICE-SIZES", "R-SLICE-STRIDE"},
                                            {"R-WIN-BOUNDS", "R-WIN-NONEMPTY", "R-WIN-STRIDE"}};
    return rules[op != DML_SLICE][field];
}

/* "1_0, 2_0, ..., 6_4": the library's list (src/dml/levels.c), for a message. */
static const char *level_list(char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < dmls_feature_level_count() && used < cap; i++) {
        const char *name = dmls_feature_level_name(dmls_feature_level_at(i));
        int n = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", name);
        if (n < 0) break;
        used += (size_t)n;
    }
    return buf;
}

int params_feature_level(PyObject *obj, int *level) {
    if (!obj || obj == Py_None) {
        *level = (int)dmls_feature_level_at(dmls_feature_level_count() - 1);
        return 0;
    }
    DML_FEATURE_LEVEL parsed;
    if (PyUnicode_Check(obj)) {
        Py_ssize_t len = 0;
        const char *s = PyUnicode_AsUTF8AndSize(obj, &len);
        if (!s) return -1;
        /* A NUL inside would end the text early: "6_4\0x" is no level. */
        *level = strlen(s) == (size_t)len && dmls_feature_level_parse(s, &parsed) == DMLS_OK ? (int)parsed : -1;
    } else {
        long v = PyLong_AsLong(obj);
        if (v == -1 && PyErr_Occurred()) PyErr_Clear();
        *level = v > 0 && v <= INT_MAX && dmls_feature_level_name((DML_FEATURE_LEVEL)v) ? (int)v : -1;
    }
    if (*level < 0) {
        PyObject *r = PyObject_Repr(obj);
        const char *s = r ? PyUnicode_AsUTF8AndSize(r, NULL) : "?";
        char list[256];
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-LEVEL",
                  "feature_level %s is not a DirectML feature level (%s, by name or value)", s ? s : "?",
                  level_list(list, sizeof list));
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
            if ((n[i] = params_int_list(a[i], names[d.op][i], params_dml_rule(d.op, i), dst[i], EXT_MAX_RANK, 0)) < 0)
                return -1;
        if (n[0] != ndim || n[1] != ndim || n[2] != ndim) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "R-OP-RANK",
                      "%s: %s, %s and %s need one value per dimension of the %s (%d); got %d, %d, %d (R-OP-RANK)",
                      kind_names[kind], names[d.op][0], names[d.op][1], names[d.op][2],
                      kind == K_SLICE_GRAD ? "forward input" : "input", ndim, n[0], n[1], n[2]);
            return -1;
        }
        d.n = ndim;
        return dml_lower(ndim, shape, &d, p);
    }
    if (kind == K_ONNX) {
        int64_t st[LIST_MAX], en[LIST_MAX], ax[LIST_MAX], sp[LIST_MAX];
        int ns = params_int_list(a[0], "starts", "R-ONNX-ARGS", st, LIST_MAX, 0);
        int ne = ns < 0 ? -1 : params_int_list(a[1], "ends", "R-ONNX-ARGS", en, LIST_MAX, 0);
        if (ne < 0) return -1;
        int nax = -1, nsp = -1;
        if (na > 2 && a[2] != Py_None && (nax = params_int_list(a[2], "axes", "R-ONNX-AXES", ax, LIST_MAX, 0)) < 0)
            return -1;
        if (na > 3 && a[3] != Py_None && (nsp = params_int_list(a[3], "steps", "R-ONNX-STEP", sp, LIST_MAX, 0)) < 0)
            return -1;
        if (ns != ne) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-ONNX-ARGS",
                      "ONNX Slice: starts has %d values and ends %d; they must agree (R-ONNX-ARGS)", ns, ne);
            return -1;
        }
        return lowering_onnx(ndim, shape, st, en, ns, nax < 0 ? NULL : ax, nax < 0 ? 0 : nax, nsp < 0 ? NULL : sp,
                             nsp < 0 ? 0 : nsp, p);
    }
    if (kind == K_WEBNN_SLICE) {
        int64_t st[LIST_MAX], sz[LIST_MAX], sd[LIST_MAX];
        int ns = params_int_list(a[0], "starts", "R-WEBNN-BOUNDS", st, LIST_MAX, 1);
        int nz = ns < 0 ? -1 : params_int_list(a[1], "sizes", "R-WEBNN-SIZE", sz, LIST_MAX, 1);
        if (nz < 0) return -1;
        int nd = -1;
        if (na > 2 && a[2] != Py_None && (nd = params_int_list(a[2], "strides", "R-WEBNN-SIZE", sd, LIST_MAX, 1)) < 0)
            return -1;
        return lowering_webnn_slice(ndim, shape, (uint64_t *)st, ns, (uint64_t *)sz, nz, nd < 0 ? NULL : (uint64_t *)sd,
                                    nd < 0 ? 0 : nd, p);
    }
    int64_t ax[LIST_MAX];
    int nax = -1;
    const char *axes_rule = kind == K_TRANSPOSE ? "R-PERM" : "R-WEBNN-AXES";
    if (na > 0 && a[0] != Py_None &&
        (nax = params_int_list(a[0], "axes", axes_rule, ax, LIST_MAX, kind != K_TRANSPOSE)) < 0)
        return -1;
    if (kind == K_TRANSPOSE) return lowering_transpose(ndim, shape, nax < 0 ? NULL : ax, nax < 0 ? 0 : nax, p);
    return lowering_webnn_reverse(ndim, shape, nax < 0 ? NULL : (uint64_t *)ax, nax < 0 ? 0 : nax, p);
}
