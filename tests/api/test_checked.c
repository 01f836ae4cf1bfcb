/* The portable overflow checks of checked.h (what compilers without
 * __builtin_*_overflow, such as MSVC, build) and the tool's own products
 * (tools/overflow.h) against the compiler's builtins, on every pair of edge
 * values and on random pairs. Skipped (77) where the compiler has no
 * builtins to compare with. */
#define DMLS_NO_OVERFLOW_BUILTINS
#include "checked.h"
#include "overflow.h"
#include "support/test.h"

#ifdef DMLS_OVERFLOW_BUILTINS
#error "DMLS_NO_OVERFLOW_BUILTINS must select the portable code"
#endif

#if defined(__GNUC__) || defined(__clang__)
static void check_pair(uint64_t x, uint64_t y) {
    uint64_t ur = 0, uw = 0;
    bool uo = dmls_add_u64(x, y, &ur), uwo = __builtin_add_overflow(x, y, &uw);
    CHECK(uo == uwo && (uo || ur == uw), "add_u64(%llu, %llu): overflow %d value %llu, expected %d %llu",
          (unsigned long long)x, (unsigned long long)y, uo, (unsigned long long)ur, uwo, (unsigned long long)uw);
    uo = dmls_mul_u64(x, y, &ur), uwo = __builtin_mul_overflow(x, y, &uw);
    CHECK(uo == uwo && (uo || ur == uw), "mul_u64(%llu, %llu): overflow %d value %llu, expected %d %llu",
          (unsigned long long)x, (unsigned long long)y, uo, (unsigned long long)ur, uwo, (unsigned long long)uw);
    const int64_t a = (int64_t)x, b = (int64_t)y;
    int64_t sr = 0, sw = 0;
    bool so = dmls_add_i64(a, b, &sr), swo = __builtin_add_overflow(a, b, &sw);
    CHECK(so == swo && (so || sr == sw), "add_i64(%lld, %lld): overflow %d value %lld, expected %d %lld",
          (long long)a, (long long)b, so, (long long)sr, swo, (long long)sw);
    so = dmls_mul_i64(a, b, &sr), swo = __builtin_mul_overflow(a, b, &sw);
    CHECK(so == swo && (so || sr == sw), "mul_i64(%lld, %lld): overflow %d value %lld, expected %d %lld",
          (long long)a, (long long)b, so, (long long)sr, swo, (long long)sw);
    uo = tool_mul_u64(x, y, &ur), uwo = __builtin_mul_overflow(x, y, &uw);
    CHECK(uo == uwo && (uo || ur == uw), "tool_mul_u64(%llu, %llu): overflow %d value %llu, expected %d %llu",
          (unsigned long long)x, (unsigned long long)y, uo, (unsigned long long)ur, uwo, (unsigned long long)uw);
    so = tool_mul_i64(a, b, &sr), swo = __builtin_mul_overflow(a, b, &sw);
    CHECK(so == swo && (so || sr == sw), "tool_mul_i64(%lld, %lld): overflow %d value %lld, expected %d %lld",
          (long long)a, (long long)b, so, (long long)sr, swo, (long long)sw);
}

int main(void) {
    test_seed_rng();
    static const uint64_t edges[] = {0, 1, 2, 3, 0x7fffffffull, 0x80000000ull, 0xffffffffull, 0x100000000ull,
                                     0x100000001ull, (uint64_t)INT64_MAX / 2, (uint64_t)INT64_MAX / 3,
                                     (uint64_t)INT64_MAX - 1, (uint64_t)INT64_MAX};
    uint64_t values[2 * sizeof edges / sizeof edges[0]];
    size_t nv = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        values[nv++] = edges[i];
        values[nv++] = (uint64_t)0 - edges[i]; /* the negative (and, unsigned, the values near 2^64) */
    }
    for (size_t i = 0; i < nv; i++)
        for (size_t j = 0; j < nv; j++) check_pair(values[i], values[j]);
    for (int k = 0; k < 200000; k++) {
        uint64_t x, y;
        test_fill_random(&x, sizeof x);
        test_fill_random(&y, sizeof y);
        /* Random magnitudes too, so products near the limits are common. */
        x >>= test_range(0, 63);
        y >>= test_range(0, 63);
        if (test_range(0, 1)) x = (uint64_t)0 - x;
        if (test_range(0, 1)) y = (uint64_t)0 - y;
        check_pair(x, y);
    }
    printf("portable overflow checks agree with the builtins on %zu edge pairs and 200000 random ones\n", nv * nv);
    TEST_MAIN_END();
}
#else
int main(void) {
    printf("no overflow builtins to compare with; skipped\n");
    return 77;
}
#endif
