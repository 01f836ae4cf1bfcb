/* Single-thread speed of the CPU kernels, for kernel work (not a test; the
 * figures of record come from `dmlslice bench`). Each case of bench/cases.json
 * that kernel work targets runs at its full size, at a size that stays in the
 * L2 cache and at one that stays in L1 (on this VM the L2 cases still
 * measure L2 bandwidth; the L1 ones measure the kernel's own cost).
 * Prints, per case and size: the kernel chosen, the median GB/s (2 x output
 * bytes per second) of the slice and of a memcpy of the same bytes, measured
 * interleaved, the median of the per-repetition ratios (neighbours in
 * time see the same machine: steadier than a ratio of medians on a shared
 * VM), and the ratio of the fastest repetitions (least disturbed).
 *
 *   cpu_kernel_speed [--reps N] [--portable] [--no-nt] [NAME-SUBSTRING...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/context.h"
#include "cpu/execute.h"
#include "cpu/features.h"
#include "operator.h"
#include "platform/platform.h"
#include "support/dtype.h"

typedef struct speed_case {
    const char *name;
    int esize, ndim;
    int64_t shape[8], off[8], size[8], step[8];
} speed_case;

static const speed_case cases[] = {
    {"deep8d_f32", 4, 8, {8, 8, 8, 8, 8, 8, 8, 8}, {1, 1, 1, 1, 1, 1, 1, 1}, {6, 6, 6, 6, 6, 6, 6, 6}, {1, 1, 1, 1, 1, 1, 1, 1}},
    {"deep8d_f32/L2", 4, 8, {8, 8, 8, 8, 8, 8, 8, 8}, {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 3, 6, 6, 6, 6, 6}, {1, 1, 1, 1, 1, 1, 1, 1}},
    {"deep8d_f32/L1", 4, 8, {8, 8, 8, 8, 8, 8, 8, 8}, {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 6, 6, 6, 6}, {1, 1, 1, 1, 1, 1, 1, 1}},
    {"flip_last_f32", 4, 4, {64, 64, 256, 256}, {0}, {64, 64, 256, 256}, {1, 1, 1, -1}},
    {"flip_last_f32/L2", 4, 4, {1, 1, 128, 256}, {0}, {1, 1, 128, 256}, {1, 1, 1, -1}},
    {"flip_last_f32/L1", 4, 4, {1, 1, 8, 256}, {0}, {1, 1, 8, 256}, {1, 1, 1, -1}},
    {"stride2_f32", 4, 4, {64, 64, 256, 256}, {0}, {64, 64, 256, 256}, {1, 1, 2, 2}},
    {"stride2_f32/L2", 4, 4, {1, 2, 256, 256}, {0}, {1, 2, 256, 256}, {1, 1, 2, 2}},
    {"stride2_f32/L1", 4, 4, {1, 1, 16, 256}, {0}, {1, 1, 16, 256}, {1, 1, 2, 2}},
    {"neg2_f32", 4, 4, {64, 64, 256, 256}, {0, 0, 0, 1}, {64, 64, 256, 255}, {1, 1, -2, 2}},
    {"neg2_f32/L2", 4, 4, {1, 2, 256, 256}, {0, 0, 0, 1}, {1, 2, 256, 255}, {1, 1, -2, 2}},
    {"rgb_u8", 1, 3, {8192, 8192, 3}, {1024, 1024, 0}, {6144, 6144, 2}, {1, 1, 1}},
    {"rgb_u8/L2", 1, 3, {8192, 8192, 3}, {1024, 1024, 0}, {24, 2048, 2}, {1, 1, 1}},
    {"rgb_u8/L1", 1, 3, {64, 8192, 3}, {0, 1024, 0}, {4, 512, 2}, {1, 1, 1}},
};


static double now(void) { return 1e-9 * (double)dmls_monotonic_ns(); }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

int main(int argc, char **argv) {
    int reps = 15;
    unsigned features = dmls_cpu_features();
    bool nt = true;
    int first_name = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--portable") == 0) features = 0;
        else if (strcmp(argv[i], "--no-nt") == 0) nt = false;
        else { first_name = i; break; }
    }
    if (reps < 1 || reps > 99) reps = 15;
    printf("one thread, %d reps, median; GB/s = 2 x output bytes / time; features 0x%x%s\n", reps, features,
           nt ? "" : ", no streaming stores");
    printf("%-18s %-18s %8s %8s %8s %7s %7s\n", "case", "kernel", "out KiB", "GB/s", "copy", "ratio", "best");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const speed_case *k = &cases[c];
        bool want = first_name == argc;
        for (int i = first_name; i < argc; i++) want |= strstr(k->name, argv[i]) != NULL;
        if (!want) continue;
        int64_t out_shape[8];
        for (int i = 0; i < k->ndim; i++) {
            int64_t t = k->step[i] < 0 ? -k->step[i] : k->step[i];
            out_shape[i] = 1 + (k->size[i] - 1) / t;
        }
        dmls_tensor in = {test_dtype_of_size(k->esize), k->ndim, (int64_t *)k->shape, NULL, 0};
        dmls_tensor out = {test_dtype_of_size(k->esize), k->ndim, out_shape, NULL, 0};
        dmls_window w = {(int64_t *)k->off, (int64_t *)k->size, (int64_t *)k->step};
        dmls_operator *op;
        if (dmls_create(&in, &out, &w, &op) != DMLS_OK) {
            fprintf(stderr, "%s: %s\n", k->name, dmls_last_error());
            return 1;
        }
        dmls_operator v = *op;
        dmls_cpu_prepared cpu; /* the CPU data, prepared again for the variant */
        dmls_cpu_prepare(&cpu, &v.copy, features, nt ? dmls_cpu_nontemporal_threshold() : UINT64_MAX, dmls_cpu_cache_size());
        v.prepared[DMLS_BACKEND_CPU] = &cpu;
        uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
        unsigned char *src = dmls_aligned_alloc(64, (ib + 63) / 64 * 64), *dst = dmls_aligned_alloc(64, (ob + 63) / 64 * 64);
        unsigned char *csrc = dmls_aligned_alloc(64, (ob + 63) / 64 * 64), *cdst = dmls_aligned_alloc(64, (ob + 63) / 64 * 64);
        for (uint64_t i = 0; i < ib; i++) src[i] = (unsigned char)(i * 131 + 7);
        memset(dst, 1, ob);
        memset(csrc, 2, ob);
        memset(cdst, 3, ob);
        /* Enough calls per sample for about 10 ms. */
        double t0 = now();
        dmls_execute(&v, src, ib, dst, ob);
        double once = now() - t0;
        int calls = once > 0.01 ? 1 : (int)(0.01 / (once > 1e-7 ? once : 1e-7)) + 1;
        double ts[99], tc[99], ratio[99];
        for (int r = 0; r < reps; r++) {
            t0 = now();
            for (int j = 0; j < calls; j++) memcpy(cdst, csrc, ob);
            tc[r] = (now() - t0) / calls;
            t0 = now();
            for (int j = 0; j < calls; j++) dmls_execute(&v, src, ib, dst, ob);
            ts[r] = (now() - t0) / calls;
            ratio[r] = tc[r] / ts[r];
        }
        double q = median(ratio, reps), s = median(ts, reps), cp = median(tc, reps);
        double best = tc[0] / ts[0]; /* both sorted by median() */
        printf("%-18s %-18s %8.0f %8.2f %8.2f %7.2f %7.2f\n", k->name, dmls_cpu_kernel_name(cpu.kernel),
               (double)ob / 1024, 2.0 * (double)ob / s * 1e-9, 2.0 * (double)ob / cp * 1e-9, q, best);
        fflush(stdout);
        dmls_aligned_free(src), dmls_aligned_free(dst), dmls_aligned_free(csrc), dmls_aligned_free(cdst);
        dmls_destroy(op);
    }
    return 0;
}
