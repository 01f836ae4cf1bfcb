/*
 * keys.c: NumPy index keys. A key (a string, or what x[...] takes: an
 * integer, a slice, ..., None, a boolean scalar, or a tuple of them) becomes
 * the library's index text, which the library parses and lowers; boolean
 * scalars, which NumPy reads as advanced indices adding an axis, are taken
 * out first and their axis added to the lowered slice. keys_binary gives an index
 * tuple a binary form for the key cache, without formatting text.
 */
#include "keys.h"
#include "errors.h"
#include "lowering.h"
#include "numpy_abi.h"

#include <stdio.h>
#include <string.h>

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
    ext_raise(ERR_INDEX_TYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-KEY",
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
            ext_raise(ERR_INDEX_TYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-KEY",
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
const char *keys_string(PyObject *key, Py_ssize_t *n) {
    const char *s = PyUnicode_AsUTF8AndSize(key, n);
    if (s && strlen(s) != (size_t)*n) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_FORMAT", "R-PY-KEY",
                  "NumPy index string holds a NUL character at position %zu; a key is text", strlen(s));
        return NULL;
    }
    return s;
}

/* A NumPy index (str, or an index tuple / single item) as the library's
 * expression text; PyMem_Free it. */
char *keys_text(PyObject *key) {
    size_t len = 0, cap = 64;
    char *buf = PyMem_Malloc(cap);
    if (!buf) {
        PyErr_NoMemory();
        return NULL;
    }
    buf[0] = 0;
    if (PyUnicode_Check(key)) {
        Py_ssize_t n;
        const char *s = keys_string(key, &n);
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

static int is_bool(PyObject *item) { return PyBool_Check(item) || numpy_is_bool(item); }

int keys_have_bool(PyObject *key) {
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

/* A NumPy key (text, an index tuple or one item) for an input of `shape`.
 * Where the lowered slice keeps the key's text (p->expr: more than EXT_MAX_RANK
 * input axes), the caller frees it with PyMem_Free once compiled. */
int keys_lower(int ndim, const int64_t *shape, PyObject *key, lowered *p) {
    PyObject *rest = NULL;
    int pos = 0;
    int64_t len = 1;
    if (keys_have_bool(key) && !(key = rest = split_bools(key, ndim, &pos, &len))) return -1;
    char *expr = keys_text(key);
    int rc = expr ? lowering_numpy(ndim, shape, expr, p) : -1;
    if (rc == 0 && rest) rc = lowering_add_axis(p, pos, len);
    if (rc < 0 || !p->expr) PyMem_Free(expr); /* else p->expr is expr: the caller's to free */
    Py_XDECREF(rest);
    return rc;
}

/* An exact int, or None: a part of a key that cannot change. */
static int plain_part(PyObject *v) { return v == Py_None || PyLong_CheckExact(v); }

static int plain_slice(PyObject *item) {
    static const char *const parts[] = {"start", "stop", "step"};
    int plain = 1;
    for (int i = 0; plain && i < 3; i++) {
        PyObject *v = PyObject_GetAttrString(item, parts[i]);
        plain = v && plain_part(v);
        Py_XDECREF(v);
    }
    PyErr_Clear();
    return plain;
}

int keys_plain(PyObject *key) {
    int tuple = PyTuple_Check(key);
    Py_ssize_t n = tuple ? PyTuple_Size(key) : 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = tuple ? PyTuple_GetItem(key, i) : key;
        if (!(item == Py_Ellipsis || plain_part(item) || (PySlice_Check(item) && plain_slice(item)))) return 0;
    }
    return 1;
}

/* Per item a tag and the values keys_text would print (slices as
 * PySlice_Unpack gives them), so keys that index alike are equal. A string,
 * a boolean, an item that is no plain index, a zero step, an integer beyond
 * 64 bits or a long tuple take the text path (0). */
int keys_binary(PyObject *key, char *buf, size_t *len) {
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
