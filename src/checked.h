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

static inline uint64_t dmls_abs_i64(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

#endif
