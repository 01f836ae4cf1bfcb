/* The test switch DMLSLICE_DISABLE_CPU_FEATURES (docs/cpu.md): CTest runs
 * this program under several values of it, each with the answer it must give as
 * the argument: "off" (AVX2 disabled) or "detected" (AVX2 exactly when the
 * CPU has it). Names match whole list items only ("avx" is not "avx2"), and
 * "all" disables everything. The choice must reach the plan: a stride-2
 * gather gets an AVX2 kernel (its name ends in "_avx2") when AVX2 is on and a
 * portable one when it is off, and gives the reference's bytes either way. */
#include "cpu/features.h"
#include "operator.h"
#include "test.h"

static bool cpu_has_avx2(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

int main(int argc, char **argv) {
    test_seed_rng();
    if (argc != 2 || (strcmp(argv[1], "off") != 0 && strcmp(argv[1], "detected") != 0)) {
        fprintf(stderr, "usage: test_cpu_features off|detected\n");
        return 2;
    }
    const char *env = getenv("DMLSLICE_DISABLE_CPU_FEATURES");
    const bool want = strcmp(argv[1], "off") == 0 ? false : cpu_has_avx2();
    const bool got = (dmls_cpu_features() & DMLS_CPU_AVX2) != 0;
    printf("DMLSLICE_DISABLE_CPU_FEATURES=%s%s%s: avx2 %s (cpu %s)\n", env ? "'" : "(unset)", env ? env : "",
           env ? "'" : "", got ? "on" : "off", cpu_has_avx2() ? "has it" : "lacks it");
    CHECK(got == want, "avx2 is %s, expected %s", got ? "on" : "off", want ? "on" : "off");
    CHECK(dmls_cpu_features() == dmls_cpu_features(), "features changed between calls");
    CHECK(dmls_cpu_nontemporal_threshold() > 0, "no streaming threshold");

    /* Every other float32 of 3 rows of 770: rows long enough for the shuffle. */
    int64_t in_shape[2] = {3, 770}, out_shape[2] = {3, 385}, off[2] = {0, 0}, size[2] = {3, 770}, step[2] = {1, 2};
    dmls_tensor in = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {off, size, step};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    if (op) {
        const char *kernel = dmls_cpu_kernel_name(op->cpu.kernel);
        const size_t len = strlen(kernel);
        const bool avx2_kernel = len > 5 && strcmp(kernel + len - 5, "_avx2") == 0;
        CHECK(avx2_kernel == want, "plan chose %s with AVX2 %s", kernel, want ? "on" : "off");
        const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
        unsigned char *x = malloc(ib), *y = malloc(ob), *r = malloc(ob);
        test_fill_random(x, ib);
        memset(y, 0, ob);
        CHECK_STATUS(dmls_execute_reference(op, x, ib, r, ob), DMLS_OK);
        CHECK_STATUS(dmls_execute(op, x, ib, y, ob), DMLS_OK);
        CHECK(memcmp(y, r, ob) == 0, "%s differs from the reference", dmls_cpu_kernel_name(op->cpu.kernel));
        free(x), free(y), free(r);
        dmls_destroy(op);
    }

    /* Every kernel has a name of its own; "contig" and "strided" are the portable pair. */
    for (int k = 0; k < DMLS_CPU_KERNEL_COUNT; k++) {
        const char *name = dmls_cpu_kernel_name((dmls_cpu_kernel)k);
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
