/* keys.h: NumPy index keys (text, tuples, booleans) lowered (keys.c). */
#ifndef DMLSLICE_PY_KEYS_H
#define DMLSLICE_PY_KEYS_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "lowering.h"

/* A NumPy key (text, an index tuple or one item, boolean scalars included)
 * for an input of `shape`. Where the lowered slice keeps the key's text (p->expr:
 * more than EXT_MAX_RANK input axes), the caller frees it with PyMem_Free
 * once compiled. */
int keys_lower(int ndim, const int64_t *shape, PyObject *key, lowered *p);
/* A key string's UTF-8, refused where it holds a NUL. */
const char *keys_string(PyObject *key, Py_ssize_t *n);
/* The key as the library's text; PyMem_Free it. */
char *keys_text(PyObject *key);
#define KEY_BYTES_MAX 512
/* An index tuple (or one item) in binary, for the key cache: 1 with *len
 * set, or 0 for a key the text path must take (booleans among them). */
int keys_binary(PyObject *key, char *buf, size_t *len);
/* True where every part of the key is an exact int, None, ... or a slice
 * of those: the key cannot index differently while it lives. */
int keys_plain(PyObject *key);
/* True where the key holds a boolean scalar. */
int keys_have_bool(PyObject *key);

#endif /* DMLSLICE_PY_KEYS_H */
