/* The test switch DMLSLICE_DISABLE_CPU_FEATURES (docs/cpu.md): CTest runs
 * this program under several values of it, each with the answer it must give
 * as the argument: "off" (this machine's SIMD feature disabled: AVX2 on x86,
 * NEON on AArch64), "detected" (on exactly when the CPU has it) or
 * "off:NAME" ("off" where the feature is NAME, else "detected"). Names
 * match whole list items only ("avx" is not "avx2"), and "all" disables
 * everything. The choice must reach the plan: a stride-2 gather gets a SIMD
 * kernel (its name ends in "_avx2" or "_neon") when the feature is on and a
 * portable one when it is off, and gives the reference's bytes either way. */
#include "cpu/features.h"
#include "cpu/kernels.h"
#include "cpu/execute.h"
#include "operator.h"
#include "support/native_op.h"
#include "support/test.h"

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1ul << 1)
#endif
#endif

/* This machine's SIMD feature as the library names it, its bit, and the
 * suffix of its kernels' names; empty where the build has no SIMD kernels. */
#if defined(__x86_64__) || defined(__i386__)
static const char *const simd_name = "avx2", *const simd_suffix = "_avx2";
static const unsigned simd_bit = DMLS_CPU_AVX2;
#elif DMLS_CPU_NEON_KERNELS
static const char *const simd_name = "neon", *const simd_suffix = "_neon";
static const unsigned simd_bit = DMLS_CPU_NEON;
#else
static const char *const simd_name = "", *const simd_suffix = "";
static const unsigned simd_bit = 0;
#endif

/* Asked of the compiler's runtime or the system, not of the library. The
 * library detects AVX2 through GNU C only (src/compiler.h), so a build of the
 * plain-C fallbacks (DMLS_PORTABLE_FALLBACKS, what MSVC gets) must see none. */
static bool cpu_has_simd(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(DMLS_PORTABLE_FALLBACKS)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#elif defined(__aarch64__) && defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#else
    return false;
#endif
}

/* Whether this build compiles kernel k: the AVX2 ones on x86, the NEON
 * ones on AArch64, the portable ones everywhere. */
static bool built_here(dmls_cpu_kernel k) {
    switch (k) {
    case DMLS_CPU_CONTIG_NT_AVX2:
    case DMLS_CPU_SHUFFLE_AVX2:
    case DMLS_CPU_STRIDED_WIDE_AVX2:
    case DMLS_CPU_REVERSE_AVX2:
    case DMLS_CPU_STRIDE2_AVX2:
    case DMLS_CPU_SHUFFLE3_AVX2:
    case DMLS_CPU_DEINTERLEAVE_AVX2:
    case DMLS_CPU_TILED_AVX2:
#if defined(__x86_64__) || defined(__i386__)
        return true;
#else
        return false;
#endif
    case DMLS_CPU_REVERSE_NEON:
    case DMLS_CPU_SHUFFLE_NEON:
    case DMLS_CPU_TILED_NEON:
    case DMLS_CPU_DEINTERLEAVE_NEON: return DMLS_CPU_NEON_KERNELS;
    case DMLS_CPU_REVERSE_SIMD128:
    case DMLS_CPU_SHUFFLE_SIMD128:
    case DMLS_CPU_TILED_SIMD128:
    case DMLS_CPU_DEINTERLEAVE_SIMD128:
    case DMLS_CPU_STRIDE2_SIMD128: return DMLS_CPU_SIMD128_KERNELS;
    default: return true;
    }
}

int main(int argc, char **argv) {
    test_seed_rng();
    if (argc != 2 || (strcmp(argv[1], "off") != 0 && strcmp(argv[1], "detected") != 0 &&
                      strncmp(argv[1], "off:", 4) != 0)) {
        fprintf(stderr, "usage: test_cpu_features off|detected|off:FEATURE\n");
        return 2;
    }
    const char *env = getenv("DMLSLICE_DISABLE_CPU_FEATURES");
    const bool disabled = strcmp(argv[1], "off") == 0 ||
                     (strncmp(argv[1], "off:", 4) == 0 && strcmp(argv[1] + 4, simd_name) == 0);
    const bool want = disabled ? false : cpu_has_simd();
    const bool got = (dmls_cpu_features() & simd_bit) != 0;
    printf("DMLSLICE_DISABLE_CPU_FEATURES=%s%s%s: %s %s (cpu %s)\n", env ? "'" : "(unset)", env ? env : "",
           env ? "'" : "", simd_name[0] ? simd_name : "no SIMD kernels", got ? "on" : "off",
           cpu_has_simd() ? "has it" : "lacks it");
    CHECK(got == want, "%s is %s, expected %s", simd_name[0] ? simd_name : "SIMD", got ? "on" : "off",
          want ? "on" : "off");
    CHECK((dmls_cpu_features() & ~simd_bit) == 0, "features 0x%x name one this build has no kernels for",
          dmls_cpu_features());
    CHECK(dmls_cpu_features() == dmls_cpu_features(), "features changed between calls");
    CHECK(dmls_cpu_nontemporal_threshold() > 0, "no streaming threshold");

    /* Every other float32 of 3 rows of 770: rows long enough for the shuffle. */
    const int64_t in_shape[2] = {3, 770}, out_shape[2] = {3, 385}, step[2] = {1, 2};
    dmls_operator *op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 2, .in_shape = in_shape, .out_shape = out_shape,
                                .sizes = in_shape, .steps = step);
    if (op) {
        const char *kernel = dmls_cpu_kernel_name(dmls_cpu_prepared_of(op)->kernel);
        const size_t len = strlen(kernel);
        const bool simd_kernel = simd_suffix[0] && len > 5 && strcmp(kernel + len - 5, simd_suffix) == 0;
        CHECK(simd_kernel == want, "plan chose %s with %s %s", kernel, simd_name[0] ? simd_name : "SIMD",
              want ? "on" : "off");
        const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
        unsigned char *x = malloc(ib), *y = malloc(ob), *r = malloc(ob);
        test_fill_random(x, ib);
        memset(y, 0, ob);
        CHECK_STATUS(dmls_execute_reference(op, x, ib, r, ob), DMLS_OK);
        CHECK_STATUS(dmls_execute(op, x, ib, y, ob), DMLS_OK);
        CHECK(memcmp(y, r, ob) == 0, "%s differs from the reference", dmls_cpu_kernel_name(dmls_cpu_prepared_of(op)->kernel));
        free(x), free(y), free(r);
        dmls_destroy(op);
    }

    /* Every kernel this build has has a name of its own, the other
     * architecture's are "?"; "contig" and "strided" are the portable pair. */
    for (int k = 0; k < DMLS_CPU_KERNEL_COUNT; k++) {
        const char *name = dmls_cpu_kernel_name((dmls_cpu_kernel)k);
        if (!built_here((dmls_cpu_kernel)k)) {
            CHECK(strcmp(name, "?") == 0, "kernel %d (%s) is not built here but has a name", k, name);
            continue;
        }
        CHECK(strcmp(name, "?") != 0 && name[0] != '\0', "kernel %d has no name", k);
        for (int j = 0; j < k; j++)
            CHECK(strcmp(name, dmls_cpu_kernel_name((dmls_cpu_kernel)j)) != 0, "kernels %d and %d both named %s", j,
                  k, name);
    }
    CHECK(strcmp(dmls_cpu_kernel_name(DMLS_CPU_CONTIG), "contig") == 0 &&
              strcmp(dmls_cpu_kernel_name(DMLS_CPU_STRIDED), "strided") == 0,
          "portable kernels named %s and %s", dmls_cpu_kernel_name(DMLS_CPU_CONTIG),
          dmls_cpu_kernel_name(DMLS_CPU_STRIDED));
    CHECK(strcmp(dmls_cpu_kernel_name(DMLS_CPU_KERNEL_COUNT), "?") == 0 &&
              strcmp(dmls_cpu_kernel_name((dmls_cpu_kernel)-1), "?") == 0,
          "an unknown kernel is named \"?\"");
    TEST_MAIN_END();
}
