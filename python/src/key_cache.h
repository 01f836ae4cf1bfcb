/* key_cache.h: one-shot NumPy keys' prepared plans, by key (key_cache.c). */
#ifndef DMLSLICE_PY_KEY_CACHE_H
#define DMLSLICE_PY_KEY_CACHE_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "array_view.h"
#include "prepared.h"

/* The prepared slice of NumPy key `key` for arrays like in (a reference the
 * caller unrefs), or NULL with an exception. */
prepared *key_cache_get(const array_view *in, PyObject *key);

#endif /* DMLSLICE_PY_KEY_CACHE_H */
