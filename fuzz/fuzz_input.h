/* Helpers shared by the fuzz targets: a reader that draws values from the
 * fuzz input (zeros once it runs dry), and (from the tests' support) buffers
 * placed against inaccessible guard pages. */
#ifndef DMLS_FUZZ_INPUT_H
#define DMLS_FUZZ_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dmlslice/dmlslice.h"
#include "support/guarded.h"

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

/* After a create: whether the fuzz input goes on to execute. A failure
 * must leave no handle and explain itself (else abort); an operator whose
 * buffers exceed max_bytes is destroyed and skipped. */
static inline bool fuzz_created(dmls_status st, dmls_operator *op, uint64_t max_bytes) {
    if (st != DMLS_OK) {
        if (op != NULL || dmls_last_error()[0] == '\0') abort(); /* a failure always explains itself */
        return false;
    }
    if (dmls_input_bytes(op) > max_bytes || dmls_output_bytes(op) > max_bytes) {
        dmls_destroy(op);
        return false;
    }
    return true;
}

#endif
