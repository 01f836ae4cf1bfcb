/*
 * pool.c: the process's CPU thread pool, one dmls_context shared by every
 * copy big enough to want helpers.
 *
 * Guarded by the GIL alone: a copy counts itself in as a user (GIL held)
 * before it lets the GIL go, and out after it has it back, so
 * set_num_threads can swap in a new pool at any time and the old one is
 * destroyed by whoever leaves it last. No lock of the extension's own is
 * ever waited on with the GIL held (the deadlock of a lock taken in the
 * other order), and the library's context guards its own workers.
 */
#include "ext.h"

#include <dmlslice/dmlslice.h>

struct pool_ref {
    dmls_context *ctx;
    Py_ssize_t users;
    int retired; /* replaced: destroyed when its last user leaves */
};

static pool_ref *pool;  /* made at the first copy that wants it */
static int pool_wanted; /* 0: the library's default size */

static void pool_destroy(pool_ref *r) {
    /* Joining the workers needs no Python: let other threads run. */
    Py_BEGIN_ALLOW_THREADS dmls_context_destroy(r->ctx);
    Py_END_ALLOW_THREADS PyMem_Free(r);
}

static pool_ref *pool_make(int n) {
    pool_ref *r = PyMem_Calloc(1, sizeof *r);
    if (!r) {
        PyErr_NoMemory();
        return NULL;
    }
    dmls_status st = dmls_context_create(n, &r->ctx);
    if (st != DMLS_OK) {
        PyMem_Free(r);
        ext_raise_status(st);
        return NULL;
    }
    return r;
}

/* The current pool with one more user, or NULL with an exception. */
pool_ref *pool_enter(void) {
    if (!pool && !(pool = pool_make(pool_wanted))) return NULL;
    pool->users++;
    return pool;
}

void *pool_context(pool_ref *r) { return r->ctx; }

void pool_leave(pool_ref *r) {
    if (--r->users == 0 && r->retired) pool_destroy(r);
}

void pool_after_fork_child(void) {
    /* The parent's workers are not in the child: the pool is dropped, not
     * destroyed (there are no threads to stop), and the child makes its own. */
    pool = NULL;
}

int pool_set_threads(int n) {
    pool_ref *fresh = pool_make(n);
    if (!fresh) return -1;
    pool_ref *old = pool;
    pool = fresh;
    pool_wanted = n;
    if (old) {
        old->retired = 1;
        if (old->users == 0) pool_destroy(old);
    }
    return 0;
}

int pool_threads(void) {
    pool_ref *r = pool_enter();
    if (!r) return -1;
    int n = dmls_context_threads(r->ctx);
    pool_leave(r);
    return n;
}
