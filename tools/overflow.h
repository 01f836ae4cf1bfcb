/* Overflow-checked 64-bit products for the tool's own sizes (a .npy
 * header's element count, byte size and strides). Plain C11: the library's
 * checked.h is the library's, and these are not on any hot path, so the
 * tool keeps one portable form of the few it needs. */
#ifndef DMLSLICE_TOOLS_OVERFLOW_H
#define DMLSLICE_TOOLS_OVERFLOW_H

#include <stdbool.h>
#include <stdint.h>

/* Each returns true on overflow and leaves *r unspecified then. */
static inline bool tool_mul_u64(uint64_t a, uint64_t b, uint64_t *r) {
    *r = a * b; /* unsigned: modulo 2^64, so a wrap shows as a quotient that differs */
    return a != 0 && *r / a != b;
}

static inline bool tool_add_u64(uint64_t a, uint64_t b, uint64_t *r) {
    *r = a + b; /* unsigned: a wrap leaves a sum below either addend */
    return *r < a;
}

static inline bool tool_mul_i64(int64_t a, int64_t b, int64_t *r) {
    const uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
    const uint64_t ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    uint64_t m;
    if (tool_mul_u64(ua, ub, &m)) return true;
    const bool negative = (a < 0) != (b < 0);
    if (m > (uint64_t)INT64_MAX + negative) return true; /* |INT64_MIN| for a negative product */
    /* -(m - 1) - 1 reaches INT64_MIN (m = 2^63) without a signed overflow. */
    *r = negative ? (m == 0 ? 0 : -(int64_t)(m - 1) - 1) : (int64_t)m;
    return false;
}

#endif
