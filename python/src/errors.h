/* errors.h: the package's exceptions, raised with the library's status (errors.c). */
#ifndef DMLSLICE_PY_ERRORS_H
#define DMLSLICE_PY_ERRORS_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

/* Errors: the classes of dmlslice/_errors.py, by role. */
enum {
    ERR_BASE,
    ERR_ARGUMENT,      /* ValueError */
    ERR_OUT_OF_BOUNDS, /* ValueError and IndexError */
    ERR_DTYPE,         /* TypeError */
    ERR_INDEX_TYPE,    /* IndexError and TypeError */
    ERR_DEVICE,        /* RuntimeError */
    ERR_MEMORY,        /* MemoryError */
    ERR_INDEX_KEY,     /* ValueError and IndexError: a NumPy key NumPy refuses */
    ERR_FOREIGN,       /* RuntimeError: the array's own library failed */
    ERR_COUNT
};

/* Takes the classes of dmlslice/_errors.py's BY_ROLE. 0, or -1. */
int ext_set_errors(PyObject *classes);
/* Raise error class `role` with .status and .rule; returns NULL. */
PyObject *ext_raise(int role, const char *status, const char *rule, const char *fmt, ...);
/* Raise the library's last error for status `st` (a dmls_status) in the
 * class of its kind; returns NULL. */
PyObject *ext_raise_status(int st);
/* Where a call failed with an exception that is not the package's own
 * (Python's TypeError for arguments, NumPy's MemoryError, an exporter's
 * RuntimeError): replaces it with the package's class of the same built-in
 * base, the original as __cause__. Returns NULL. */
PyObject *ext_own_error(void);
/* An entry point's return: r, or where the call failed (NULL) the same NULL
 * with its exception made the package's own (ext_own_error). */
static inline PyObject *ext_own(PyObject *r) { return r ? r : ext_own_error(); }
/* name(self, args, kw), a module function taking keywords: impl(args, kw)
 * returned as ext_own returns it. Not static: module.c's one table of the
 * module's functions names it (declared in the file's header). */
#define EXT_ENTRY_KW(name, impl)                                                                                       \
    PyObject *name(PyObject *self, PyObject *args, PyObject *kw) {                                                     \
        (void)self;                                                                                                    \
        return ext_own(impl(args, kw));                                                                                \
    }
/* The name of obj's type, written to buf. */
const char *ext_type_name(PyObject *obj, char *buf, size_t size);
/* A tuple of n integers. */
PyObject *ext_shape_tuple(int n, const int64_t *shape);
/* "(2, 3)" into buf. */
void ext_shape_text(char *buf, size_t size, int n, const int64_t *s);

#endif /* DMLSLICE_PY_ERRORS_H */
