/*
 * errors.c: the package's exceptions. The classes are dmlslice/_errors.py's
 * (handed over by _init); every failure of the extension is raised as one
 * of them, with the library's status name and rule ID, and an exception
 * from elsewhere (Python's, NumPy's, an array library's) is turned into the
 * package's class of the same built-in base.
 */
#include "errors.h"

#include <stdarg.h>
#include <stdio.h>

#include <dmlslice/dmlslice.h>

static PyObject *err_classes[ERR_COUNT];

int ext_set_errors(PyObject *classes) {
    if (!PyTuple_Check(classes) || PyTuple_Size(classes) != ERR_COUNT) {
        PyErr_Format(PyExc_ValueError, "dmlslice: %d error classes expected", ERR_COUNT);
        return -1;
    }
    for (int i = 0; i < ERR_COUNT; i++) {
        PyObject *c = PyTuple_GetItem(classes, i);
        Py_INCREF(c);
        Py_XDECREF(err_classes[i]);
        err_classes[i] = c;
    }
    return 0;
}

const char *ext_type_name(PyObject *obj, char *buf, size_t size) {
    PyObject *name = PyType_GetName(Py_TYPE(obj));
    const char *s = name ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    snprintf(buf, size, "%s", s ? s : "an object");
    Py_XDECREF(name);
    PyErr_Clear();
    return buf;
}

PyObject *ext_raise(int role, const char *status, const char *rule, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    PyObject *cls = err_classes[role] ? err_classes[role] : PyExc_RuntimeError;
    PyObject *exc =
        err_classes[role] ? PyObject_CallFunction(cls, "sss", msg, status, rule) : PyUnicode_FromString(msg);
    if (exc) {
        PyErr_SetObject(cls, exc);
        Py_DECREF(exc);
    }
    return NULL;
}

PyObject *ext_raise_status(int st) {
    int role = st == DMLS_ERROR_OUT_OF_BOUNDS                                                   ? ERR_OUT_OF_BOUNDS
               : st == DMLS_ERROR_OUT_OF_MEMORY                                                 ? ERR_MEMORY
               : (st == DMLS_ERROR_NO_DEVICE || st == DMLS_ERROR_DEVICE || st == DMLS_ERROR_IO) ? ERR_DEVICE
                                                                                                : ERR_ARGUMENT;
    /* The library names no rule for a missing or failing device (no input
     * broke one); the package's own, R-PY-DEVICE, says where to look. */
    const char *rule = dmls_last_error_rule();
    if (rule[0] == '\0' && role == ERR_DEVICE) rule = "R-PY-DEVICE";
    return ext_raise(role, dmls_status_name((dmls_status)st), rule, "%s", dmls_last_error());
}

PyObject *ext_shape_tuple(int n, const int64_t *shape) {
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(shape[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SetItem(t, i, v);
    }
    return t;
}

void ext_shape_text(char *buf, size_t size, int n, const int64_t *s) {
    size_t len = (size_t)snprintf(buf, size, "(");
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, i ? ", %lld" : "%lld", (long long)s[i]);
    if (len < size) snprintf(buf + len, size - len, n == 1 ? ",)" : ")");
}

/* The package's class and status for a foreign exception. */
static int foreign_role(PyObject *exc, const char **status) {
    static const struct {
        PyObject **base;
        int role;
        const char *status;
    } map[] = {
        {&PyExc_MemoryError, ERR_MEMORY, "DMLS_ERROR_OUT_OF_MEMORY"},
        {&PyExc_IndexError, ERR_INDEX_KEY, "DMLS_ERROR_INVALID_ARGUMENT"},
        {&PyExc_TypeError, ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT"},
        {&PyExc_ValueError, ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT"},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (PyObject_IsInstance(exc, *map[i].base) == 1) {
            *status = map[i].status;
            return map[i].role;
        }
    *status = "DMLS_ERROR_INVALID_ARGUMENT";
    return ERR_FOREIGN;
}

PyObject *ext_own_error(void) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (!type) return NULL;
    PyErr_NormalizeException(&type, &value, &tb);
    /* KeyboardInterrupt, SystemExit and the package's own pass as they are. */
    if (!value || !err_classes[ERR_BASE] || PyObject_IsInstance(value, err_classes[ERR_BASE]) != 0 ||
        PyObject_IsInstance(value, PyExc_Exception) != 1) {
        PyErr_Clear();
        PyErr_Restore(type, value, tb);
        return NULL;
    }
    if (tb) PyException_SetTraceback(value, tb);
    const char *status;
    int role = foreign_role(value, &status);
    char name[128];
    PyObject *text = PyObject_Str(value);
    const char *msg = text ? PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
    if (!msg) PyErr_Clear();
    ext_raise(role, status, "R-PY-ARRAY", "%s: %s", ext_type_name(value, name, sizeof name), msg ? msg : "");
    Py_XDECREF(text);
    PyObject *t2, *mine, *tb2;
    PyErr_Fetch(&t2, &mine, &tb2);
    PyErr_NormalizeException(&t2, &mine, &tb2);
    if (mine) PyException_SetCause(mine, Py_NewRef(value)); /* steals the new reference */
    PyErr_Restore(t2, mine, tb2);
    Py_DECREF(type);
    Py_DECREF(value);
    Py_XDECREF(tb);
    return NULL;
}
