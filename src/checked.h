/* Overflow-checked 64-bit arithmetic. Every size, index and byte count of a
 * descriptor goes through these: a wrap is always an error, never a value. */
#ifndef DMLS_CHECKED_H
#define DMLS_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

/* Each returns true on overflow and leaves *r unspecified then. */
static inline bool dmls_add_u64(uint64_t a, uint64_t b, uint64_t *r) { return __builtin_add_overflow(a, b, r); }
static inline bool dmls_mul_u64(uint64_t a, uint64_t b, uint64_t *r) { return __builtin_mul_overflow(a, b, r); }
static inline bool dmls_add_i64(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }
static inline bool dmls_mul_i64(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }

/* Signed arithmetic modulo 2^64, for byte offsets whose final value
 * validation proved to fit while a partial product may not: the result is
 * exact whenever the true result fits in int64_t, and no step is undefined
 * behaviour (the conversion back to int64_t is modulo 2^64 on every compiler
 * the project supports). */
static inline int64_t dmls_wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t dmls_wrap_mul3(int64_t a, int64_t b, int64_t c) {
    return (int64_t)((uint64_t)a * (uint64_t)b * (uint64_t)c);
}

static inline uint64_t dmls_abs_i64(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

#endif
