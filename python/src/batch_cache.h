/* batch_cache.h: split's and crops' batches kept and reused (batch_cache.c). */
#ifndef DMLSLICE_PY_BATCH_CACHE_H
#define DMLSLICE_PY_BATCH_CACHE_H

#include "batch_run.h"

/* A key's fixed fields, as int64 values; kept_batch appends a variable
 * part (split's sizes). */
typedef struct key_buf {
    int64_t v[8 + 2 * EXT_MAX_RANK + 2 * EXT_MAX_RANK];
    size_t n;
} key_buf;

static inline void key_add(key_buf *k, int64_t x) { k->v[k->n++] = x; }
/* Starts k: the kind's tag, the device, t's layout. */
void key_tensor(key_buf *k, int tag, const run_where *w, const bt_tensor *t);
/* The kept batch for key k + extra[0..n_extra) (a new reference to its
 * capsule "dmlslice.batch"), made by make(arg) on a miss; NULL with an
 * exception. */
PyObject *kept_batch(const key_buf *k, const int64_t *extra, size_t n_extra, void *(*make)(void *), void *arg);

#endif /* DMLSLICE_PY_BATCH_CACHE_H */
