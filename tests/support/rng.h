/* The tests' and fuzzers' random numbers: xorshift64*, small, fast and the
 * same on every platform, so a seed replays a run anywhere. Random tests
 * seed from DMLS_TEST_SEED (or the clock) and print the seed. */
#ifndef DMLS_SUPPORT_RNG_H
#define DMLS_SUPPORT_RNG_H

#include <inttypes.h>
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

static inline void test_seed_rng(void) {
    const char *env = getenv("DMLS_TEST_SEED");
    test_seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    if (test_seed == 0) test_seed = 1;
    test_rng_state = test_seed;
    printf("seed %" PRIu64 "\n", test_seed);
}

#endif
