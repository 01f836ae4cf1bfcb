/* Helpers shared by the fuzz targets: a reader that draws values from the
 * fuzz input (zeros once it runs dry), and buffers placed against
 * inaccessible guard pages so any over-read or over-write faults at once,
 * even without sanitizers. */
#ifndef DMLS_FUZZ_INPUT_H
#define DMLS_FUZZ_INPUT_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct fuzz_reader {
    const uint8_t *data;
    size_t size, at;
} fuzz_reader;

static inline uint64_t fuzz_bytes(fuzz_reader *r, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)(r->at < r->size ? r->data[r->at++] : 0) << (8 * i);
    return v;
}
static inline uint8_t fuzz_u8(fuzz_reader *r) { return (uint8_t)fuzz_bytes(r, 1); }
static inline uint32_t fuzz_u32(fuzz_reader *r) { return (uint32_t)fuzz_bytes(r, 4); }
static inline uint64_t fuzz_u64(fuzz_reader *r) { return fuzz_bytes(r, 8); }

/* Mostly small values, sometimes anything: small values reach deep code,
 * extreme ones find the overflow checks. */
static inline uint32_t fuzz_small_u32(fuzz_reader *r, uint32_t small_max) {
    uint8_t sel = fuzz_u8(r);
    if (sel < 224) return sel % (small_max + 1);
    return fuzz_u32(r);
}
static inline int64_t fuzz_small_i64(fuzz_reader *r, int64_t small_max) {
    uint8_t sel = fuzz_u8(r);
    if (sel < 200) return (int64_t)(sel % (uint64_t)(2 * small_max + 1)) - small_max;
    return (int64_t)fuzz_u64(r);
}

/* A buffer of n bytes that ends exactly where a PROT_NONE page begins (or
 * fewer than align bytes before it, when a base alignment is asked for),
 * with another PROT_NONE page before its first page. */
typedef struct guarded {
    uint8_t *map;
    size_t map_bytes;
    uint8_t *data;
} guarded;

static inline int guarded_alloc(guarded *g, size_t n, size_t align) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t body = (n + page - 1) / page * page;
    g->map_bytes = body + 2 * page;
    g->map = mmap(NULL, g->map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) return -1;
    if (body && mprotect(g->map + page, body, PROT_READ | PROT_WRITE) != 0) {
        munmap(g->map, g->map_bytes);
        return -1;
    }
    g->data = g->map + page + body - n;
    if (align > 1) g->data -= (uintptr_t)g->data % align;
    return 0;
}

static inline void guarded_free(guarded *g) { munmap(g->map, g->map_bytes); }

#endif
