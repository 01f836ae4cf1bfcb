/* Buffers placed against inaccessible guard pages, so any over-read or
 * over-write faults at once, even without sanitizers. */
#ifndef DMLS_SUPPORT_GUARDED_H
#define DMLS_SUPPORT_GUARDED_H

#include <stdint.h>

#include "platform/platform.h" /* the pages, from the system */

typedef struct guarded {
    uint8_t *map;
    size_t map_bytes;
    uint8_t *data;
} guarded;

/* A buffer of n bytes between two inaccessible pages: when at_end, it ends
 * exactly where the upper guard begins (or fewer than align bytes before
 * it, when a base alignment is asked for); else it starts just after the
 * lower one. Returns 0, or -1 when the memory could not be had. */
static inline int guarded_place(guarded *g, size_t n, size_t align, int at_end) {
    const size_t page = dmls_page_size();
    const size_t body = (n + page - 1) / page * page;
    g->map_bytes = body + 2 * page;
    g->map = dmls_pages_reserve(g->map_bytes);
    if (g->map == NULL) return -1;
    if (body && dmls_pages_open(g->map + page, body) != 0) {
        dmls_pages_release(g->map, g->map_bytes);
        return -1;
    }
    if (!at_end) {
        g->data = g->map + page;
        return 0;
    }
    g->data = g->map + page + body - n;
    if (align > 1) g->data -= (uintptr_t)g->data % align;
    return 0;
}

/* The buffer against the upper guard (see guarded_place). */
static inline int guarded_alloc(guarded *g, size_t n, size_t align) { return guarded_place(g, n, align, 1); }

static inline void guarded_free(guarded *g) { dmls_pages_release(g->map, g->map_bytes); }

#endif
