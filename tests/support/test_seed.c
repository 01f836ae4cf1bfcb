/* The random tests' seed (support/rng.h): without DMLS_TEST_SEED every run
 * draws the same cases, so CI's verdict depends only on the code; a given
 * seed replays a run's cases exactly; "random" asks for new ones. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "test.h"

/* Sets or (value NULL) removes DMLS_TEST_SEED for test_seed_rng. */
static void set_seed_env(const char *value) {
#ifdef _WIN32
    _putenv_s("DMLS_TEST_SEED", value ? value : "");
#else
    if (value) setenv("DMLS_TEST_SEED", value, 1);
    else unsetenv("DMLS_TEST_SEED");
#endif
}

#define NDRAWS 64

/* The cases a random test would draw after test_seed_rng: numbers in a
 * range and bytes, as the tests draw them. */
static void draw_cases(const char *env, uint64_t *seed, int64_t *cases) {
    set_seed_env(env);
    test_seed_rng();
    *seed = test_seed;
    for (int k = 0; k < NDRAWS / 2; k++) cases[k] = test_range(-1000, 1000);
    test_fill_random(cases + NDRAWS / 2, sizeof(int64_t) * (NDRAWS / 2));
}

static void test_parse(void) {
    uint64_t s = 0;
    CHECK(test_seed_parse(NULL, &s) && s == TEST_DEFAULT_SEED, "unset: seed %" PRIu64, s);
    CHECK(test_seed_parse("", &s) && s == TEST_DEFAULT_SEED, "empty: seed %" PRIu64, s);
    CHECK(test_seed_parse("12345", &s) && s == 12345, "12345: seed %" PRIu64, s);
    CHECK(test_seed_parse("18446744073709551615", &s) && s == UINT64_MAX, "2^64-1: seed %" PRIu64, s);
    CHECK(test_seed_parse("0", &s) && s == 1, "0 stands for 1: seed %" PRIu64, s);
    CHECK(test_seed_parse("random", &s) && s != 0, "random: seed %" PRIu64, s);
    const char *bad[] = {"abc", "12x", "-1", " 1", "18446744073709551616", "Random"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        CHECK(!test_seed_parse(bad[k], &s), "'%s' taken as seed %" PRIu64, bad[k], s);
}

static void test_replay(void) {
    uint64_t s1, s2, s3, s4, s5;
    int64_t a[NDRAWS], b[NDRAWS], c[NDRAWS], d[NDRAWS], e[NDRAWS];
    draw_cases("12345", &s1, a);
    draw_cases("12345", &s2, b);
    CHECK(s1 == 12345 && s2 == 12345, "seeds %" PRIu64 " and %" PRIu64 ", want 12345", s1, s2);
    CHECK(memcmp(a, b, sizeof a) == 0, "the same seed drew different cases");
    draw_cases("12346", &s3, c);
    CHECK(memcmp(a, c, sizeof a) != 0, "seeds 12345 and 12346 drew the same cases");
    draw_cases(NULL, &s4, d);
    draw_cases(NULL, &s5, e);
    CHECK(s4 == TEST_DEFAULT_SEED && s5 == TEST_DEFAULT_SEED, "unset: seeds %" PRIu64 " and %" PRIu64, s4, s5);
    CHECK(memcmp(d, e, sizeof d) == 0, "two runs without DMLS_TEST_SEED drew different cases");
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, TEST_DEFAULT_SEED);
    draw_cases(text, &s1, a);
    CHECK(memcmp(a, d, sizeof a) == 0, "the printed default seed does not replay the default run");
}

int main(void) {
    test_parse();
    test_replay();
    set_seed_env(NULL);
    test_seed = 0; /* nothing random left to replay */
    TEST_MAIN_END();
}
