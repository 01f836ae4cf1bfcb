/* A minimal test harness: CHECK records a failure and carries on; each test
 * program ends with TEST_MAIN_END, which prints "N passed, N failed" and
 * returns non-zero on any failure. Random tests seed from DMLS_TEST_SEED (a
 * fixed seed without it; support/rng.h) and print the seed on failure so a
 * run can be replayed. */
#ifndef DMLS_TEST_H
#define DMLS_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h" /* test_seed, printed by CHECK */

static int test_checks_failed = 0, test_checks_passed = 0;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (cond) {                                                             \
            test_checks_passed++;                                               \
        } else {                                                                \
            test_checks_failed++;                                               \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            if (test_seed) fprintf(stderr, "  (replay with DMLS_TEST_SEED=%" PRIu64 ")\n", test_seed); \
        }                                                                       \
    } while (0)

/* Status equality with the library's message on mismatch. */
#define CHECK_STATUS(expr, want)                                                         \
    do {                                                                                 \
        dmls_status got_ = (expr);                                                       \
        CHECK(got_ == (want), "%s returned %s, expected %s; message: %s", #expr,         \
              dmls_status_name(got_), dmls_status_name(want), dmls_last_error());        \
    } while (0)

/* The last error names the rule and contains every given fragment. */
#define CHECK_MESSAGE(rule, ...)                                                         \
    do {                                                                                 \
        const char *frags_[] = {__VA_ARGS__};                                            \
        CHECK(strcmp(dmls_last_error_rule(), (rule)) == 0, "rule %s, expected %s (message: %s)", \
              dmls_last_error_rule(), (rule), dmls_last_error());                        \
        CHECK(strstr(dmls_last_error(), "(" rule ")") != NULL, "message lacks (%s): %s", rule, \
              dmls_last_error());                                                        \
        for (size_t k_ = 0; k_ < sizeof frags_ / sizeof frags_[0]; k_++)                 \
            CHECK(strstr(dmls_last_error(), frags_[k_]) != NULL, "message lacks \"%s\": %s", \
                  frags_[k_], dmls_last_error());                                        \
    } while (0)

#define TEST_MAIN_END()                                                             \
    do {                                                                            \
        printf("%d passed, %d failed\n", test_checks_passed, test_checks_failed);   \
        return test_checks_failed ? 1 : 0;                                          \
    } while (0)

/* Ends a test whose work could not run here: CTest reports it as skipped
 * (SKIP_RETURN_CODE 77), never as passed. Checks made so far still count. */
#define TEST_MAIN_END_SKIP()                                                        \
    do {                                                                            \
        printf("%d passed, %d failed, 1 skipped\n", test_checks_passed, test_checks_failed); \
        return test_checks_failed ? 1 : 77;                                         \
    } while (0)

#endif
