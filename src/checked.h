/* Overflow-checked 64-bit arithmetic. Every size, index and byte count of a
 * descriptor goes through these: a wrap is always an error, never a value. */
#ifndef DMLS_CHECKED_H
#define DMLS_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"

/* The compiler's overflow builtins where it has them (GCC 5+, clang), else
 * portable C (MSVC, other C11 compilers, a DMLS_PORTABLE_FALLBACKS build).
 * DMLS_NO_OVERFLOW_BUILTINS forces the portable code, so tests can check it
 * against the builtins. clang says __GNUC__ 4 whatever its version, and has
 * had both builtins since 3.8. */
#if DMLS_GNU_C && !defined(DMLS_NO_OVERFLOW_BUILTINS) && (defined(__clang__) || __GNUC__ >= 5)
#define DMLS_OVERFLOW_BUILTINS 1
#endif

static inline uint64_t dmls_abs_i64(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

/* Each returns true on overflow and leaves *r unspecified then. */
#ifdef DMLS_OVERFLOW_BUILTINS
static inline bool dmls_add_u64(uint64_t a, uint64_t b, uint64_t *r) { return __builtin_add_overflow(a, b, r); }
static inline bool dmls_mul_u64(uint64_t a, uint64_t b, uint64_t *r) { return __builtin_mul_overflow(a, b, r); }
static inline bool dmls_add_i64(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }
static inline bool dmls_mul_i64(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }
#else
static inline bool dmls_add_u64(uint64_t a, uint64_t b, uint64_t *r) {
    *r = a + b; /* unsigned: modulo 2^64, so a carry shows as a smaller sum */
    return *r < a;
}
static inline bool dmls_mul_u64(uint64_t a, uint64_t b, uint64_t *r) {
    *r = a * b;
    return a != 0 && *r / a != b;
}
static inline bool dmls_add_i64(int64_t a, int64_t b, int64_t *r) {
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return true;
    *r = a + b;
    return false;
}
static inline bool dmls_mul_i64(int64_t a, int64_t b, int64_t *r) {
    uint64_t m;
    if (dmls_mul_u64(dmls_abs_i64(a), dmls_abs_i64(b), &m)) return true;
    const uint64_t limit = (uint64_t)INT64_MAX + ((a < 0) != (b < 0)); /* |INT64_MIN| for a negative product */
    if (m > limit) return true;
    /* -(m - 1) - 1 reaches INT64_MIN (m = 2^63) without a signed overflow. */
    *r = (a < 0) != (b < 0) ? (m == 0 ? 0 : -(int64_t)(m - 1) - 1) : (int64_t)m;
    return false;
}
#endif

/* Signed arithmetic modulo 2^64, for byte offsets whose final value
 * validation proved to fit while a partial product may not: the result is
 * exact whenever the true result fits in int64_t, and no step is undefined
 * behaviour (the conversion back to int64_t is modulo 2^64 on every compiler
 * the project supports). */
static inline int64_t dmls_wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t dmls_wrap_mul3(int64_t a, int64_t b, int64_t c) {
    return (int64_t)((uint64_t)a * (uint64_t)b * (uint64_t)c);
}

#endif
