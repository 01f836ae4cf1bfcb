/*
 * key_cache.c: one-shot NumPy keys' prepared plans. A repeated
 * ds.index(x, key) skips the parse and the lowered slice and runs the operator made
 * the first time, as an Operator would.
 *
 * Two levels, both bounded and changed only under the GIL:
 *  - the last few keys, matched by identity (a string, or an index tuple of
 *    exact ints, None, ... and slices of them, which cannot change while the
 *    cache holds it) or by an index tuple's binary form (keys_binary), and
 *    the array's shape and item size;
 *  - a table of 256 slots, by a hash of (rank, class, item size, shape, the
 *    key's text or binary form), a newcomer replacing its slot's entry.
 * Entries hold references: a lowered slice evicted while a call runs it stays alive
 * until that call lets go.
 */
#include "key_cache.h"
#include "array_view.h"
#include "keys.h"
#include "lowering.h"
#include "prepared.h"

#include <string.h>

#define RECENT_MAX 4
typedef struct recent_key {
    PyObject *key; /* held by identity, or NULL: bin holds an index tuple's form */
    prepared *pr;
    size_t n;
    char bin[KEY_BYTES_MAX];
} recent_key;
static recent_key recent[RECENT_MAX];
static unsigned recent_next;
static PyObject *last_tuple; /* the index tuple of the last binary lookup */

#define TABLE_SIZE 256
typedef struct table_slot {
    uint64_t hash;
    size_t n;
    char *key; /* PyMem */
    prepared *pr;
} table_slot;
static table_slot table[TABLE_SIZE];

static int fits(const prepared *pr, const array_view *in) {
    const lowered *p = &pr->c.p;
    if (pr->c.itemsize != in->itemsize || p->ndim != in->ndim) return 0;
    return memcmp(p->in_shape, in->shape, sizeof(int64_t) * (size_t)in->ndim) == 0;
}

static prepared *recent_get(const array_view *in, PyObject *key, const char *bin, size_t n) {
    for (unsigned i = 0; i < RECENT_MAX; i++) {
        recent_key *r = &recent[i];
        if (!r->pr || !fits(r->pr, in)) continue;
        if (key ? r->key == key : !r->key && r->n == n && memcmp(r->bin, bin, n) == 0) {
            prepared_ref(r->pr);
            return r->pr;
        }
    }
    return NULL;
}

static void remember(PyObject *key, const char *bin, size_t n, prepared *pr) {
    recent_key *r = &recent[recent_next++ % RECENT_MAX];
    Py_XDECREF(r->key);
    prepared_unref(r->pr);
    r->key = Py_XNewRef(key);
    r->n = key ? 0 : n;
    if (!key) memcpy(r->bin, bin, n);
    prepared_ref(pr);
    r->pr = pr;
}

/* The table's key: the array's rank, class, item size and shape, then the
 * key's form ('T' text, 'B' binary) and bytes. PyMem_Free it. */
static char *table_key(const array_view *in, char form, const char *index, size_t n, size_t *len) {
    size_t head = 3 + sizeof(int64_t) * (size_t)(1 + in->ndim);
    char *d = PyMem_Malloc(head + n);
    if (!d) {
        PyErr_NoMemory();
        return NULL;
    }
    d[0] = (char)in->ndim;
    d[1] = (char)in->dtype_class;
    d[2] = form;
    memcpy(d + 3, &in->itemsize, sizeof(int64_t));
    memcpy(d + 3 + sizeof(int64_t), in->shape, sizeof(int64_t) * (size_t)in->ndim);
    memcpy(d + head, index, n);
    *len = head + n;
    return d;
}

static uint64_t hash_bytes(const char *s, size_t n) {
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
    return h;
}

/* The compiled slice for text `expr`, lowered and compiled now. */
static prepared *plan_text(const array_view *in, const char *expr) {
    lowered p;
    if (lowering_numpy(in->ndim, in->shape, expr, &p) < 0) return NULL;
    return prepared_new(K_INDEX, &p, in->itemsize); /* p.expr (expr) copied */
}

/* The table's compiled slice for this key, made (and kept) on a miss. text: the
 * key's text where the caller has it, else NULL (made from key_obj). */
static prepared *table_get(const array_view *in, PyObject *key_obj, char form, const char *index, size_t n,
                           const char *text) {
    size_t len;
    char *k = table_key(in, form, index, n, &len);
    if (!k) return NULL;
    uint64_t h = hash_bytes(k, len);
    table_slot *s = &table[h % TABLE_SIZE];
    if (s->pr && s->hash == h && s->n == len && memcmp(s->key, k, len) == 0) {
        PyMem_Free(k);
        prepared_ref(s->pr);
        return s->pr;
    }
    char *made = text ? NULL : keys_text(key_obj);
    prepared *pr = text || made ? plan_text(in, text ? text : made) : NULL;
    PyMem_Free(made);
    if (!pr) {
        PyMem_Free(k);
        return NULL;
    }
    s = &table[h % TABLE_SIZE]; /* keys_text may have run Python code that filled it */
    PyMem_Free(s->key);
    prepared_unref(s->pr);
    *s = (table_slot){h, len, k, pr};
    prepared_ref(pr);
    return pr;
}

/* An index tuple (or one item) in binary: the recent keys, then the table.
 * A tuple seen twice in a row whose parts cannot change is remembered by
 * identity from then on. */
static prepared *binary_get(const array_view *in, PyObject *key, const char *bin, size_t n) {
    prepared *pr = recent_get(in, NULL, bin, n);
    if (!pr && (pr = table_get(in, key, 'B', bin, n, NULL))) remember(NULL, bin, n, pr);
    if (pr && key == last_tuple && keys_plain(key)) remember(key, NULL, 0, pr);
    Py_XDECREF(last_tuple);
    last_tuple = Py_NewRef(key);
    return pr;
}

prepared *key_cache_get(const array_view *in, PyObject *key) {
    prepared *pr = recent_get(in, key, NULL, 0);
    if (pr) return pr;
    if (PyUnicode_Check(key)) {
        Py_ssize_t n;
        const char *s = keys_string(key, &n);
        if (s && (pr = table_get(in, key, 'T', s, (size_t)n, s))) remember(key, NULL, 0, pr);
        return pr;
    }
    char bin[KEY_BYTES_MAX];
    size_t n = 0;
    if (keys_binary(key, bin, &n)) return binary_get(in, key, bin, n);
    if (keys_have_bool(key)) { /* rare: planned each time */
        lowered p;
        if (keys_lower(in->ndim, in->shape, key, &p) < 0) return NULL;
        pr = prepared_new(K_INDEX, &p, in->itemsize);
        PyMem_Free((void *)p.expr);
        return pr;
    }
    char *text = keys_text(key);
    pr = text ? table_get(in, key, 'T', text, strlen(text), text) : NULL;
    PyMem_Free(text);
    return pr;
}
