/* The tests' and fuzzers' random numbers: xorshift64*, small, fast and the
 * same on every platform, so a seed replays a run anywhere. Random tests
 * call test_seed_rng, which prints the seed. CI's verdict must depend only
 * on the code, so without DMLS_TEST_SEED every run draws the same cases
 * (TEST_DEFAULT_SEED); DMLS_TEST_SEED=N replays a run and
 * DMLS_TEST_SEED=random draws new cases from the clock (README.md, "Tests"). */
#ifndef DMLS_SUPPORT_RNG_H
#define DMLS_SUPPORT_RNG_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t test_seed = 0; /* 0 until test_seed_rng: CHECK prints it on failure */
static uint64_t test_rng_state = 1;

static inline uint64_t test_rand(void) {
    uint64_t x = test_rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    test_rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [lo, hi]. */
static inline int64_t test_range(int64_t lo, int64_t hi) {
    return lo + (int64_t)(test_rand() % (uint64_t)(hi - lo + 1));
}

/* n random bytes, 8 per draw (buffers run to megabytes). */
static inline void test_fill_random(void *p, size_t n) {
    unsigned char *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v = test_rand();
        memcpy(b + i, &v, 8);
    }
    for (; i < n; i++) b[i] = (unsigned char)test_rand();
}

#define TEST_DEFAULT_SEED UINT64_C(20261124)

/* The seed DMLS_TEST_SEED's text asks for: NULL or "" the default, a
 * decimal number itself (0 stands for 1: xorshift's state must not be 0),
 * "random" one from the clock. False for any other text. */
static inline bool test_seed_parse(const char *text, uint64_t *seed) {
    if (text == NULL || *text == '\0') {
        *seed = TEST_DEFAULT_SEED;
        return true;
    }
    if (strcmp(text, "random") == 0) {
        *seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    } else {
        uint64_t v = 0;
        for (const char *c = text; *c; c++) {
            if (*c < '0' || *c > '9' || v > (UINT64_MAX - (uint64_t)(*c - '0')) / 10) return false;
            v = v * 10 + (uint64_t)(*c - '0');
        }
        *seed = v;
    }
    if (*seed == 0) *seed = 1;
    return true;
}

static inline void test_seed_rng(void) {
    const char *env = getenv("DMLS_TEST_SEED");
    if (!test_seed_parse(env, &test_seed)) {
        fprintf(stderr, "DMLS_TEST_SEED='%s' is neither a decimal number below 2^64 nor 'random'\n", env);
        exit(2);
    }
    test_rng_state = test_seed;
    printf("seed %" PRIu64 "\n", test_seed);
}

#endif
