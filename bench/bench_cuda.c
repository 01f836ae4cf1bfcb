/* bench_cuda: the CUDA backend on the canonical cases (bench/cases.json).
 * Usage: bench_cuda [cases.json] [reps]
 * Prints one row per case (median slice time by CUDA events, GB/s, the
 * same-run device-to-device copy and the ratio), then the tiny op's host
 * cost. Exits 77 when there is no GPU, 1 on any error or wrong output. */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_bench.h"
#include "dmlslice/dmlslice_cuda.h"

static const char *kernel_name(int k) {
    static const char *names[] = {"none", "copy", "gather", "reverse", "memset", "fill"};
    return k >= 0 && k <= 5 ? names[k] : "?";
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : DMLS_CASES_JSON;
    int reps = argc > 2 ? atoi(argv[2]) : 30;
    if (reps < 1) reps = 1;
    if (!dmls_cuda_available()) {
        fprintf(stderr, "bench_cuda: skipped: %s\n", dmls_last_error());
        return 77;
    }
    char name[256], err[512];
    int major = 0, minor = 0;
    if (dmls_cuda_device_name(0, name, sizeof name, &major, &minor) != DMLS_OK) {
        fprintf(stderr, "bench_cuda: %s\n", dmls_last_error());
        return 1;
    }
    static dmls_bench_case cases[DMLS_BENCH_MAX_CASES];
    int n = dmls_bench_read_cases(path, cases, DMLS_BENCH_MAX_CASES, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "bench_cuda: %s: %s\n", path, err);
        return 1;
    }
    printf("device: %s (sm_%d%d), %d reps, median\n", name, major, minor, reps);
    printf("%-14s %10s %10s %9s %9s %6s  %-16s %s\n", "case", "out MiB", "slice us", "GB/s", "copy GB/s", "ratio",
           "launch", "ok");
    int bad = 0;
    for (int i = 0; i < n; i++) {
        dmls_bench_cuda_result r;
        if (dmls_bench_cuda_case(&cases[i], reps, &r, err, sizeof err) != 0) {
            fprintf(stderr, "bench_cuda: %s: %s\n", cases[i].name, err);
            bad = 1;
            continue;
        }
        char launch[32];
        snprintf(launch, sizeof launch, "%s/%d/%d", kernel_name(r.kernel), r.unit, r.vec);
        printf("%-14s %10.1f %10.1f %9.0f %9.0f %6.2f  %-16s %s\n", cases[i].name, r.out_bytes / 1048576.0,
               r.slice_ms * 1e3, r.slice_gbps, r.copy_gbps, r.ratio, launch, r.correct ? "yes" : "WRONG");
        fflush(stdout);
        bad |= !r.correct;
    }
    double sync_us, call_us, floor_us;
    if (dmls_bench_cuda_tiny(20000, &sync_us, &call_us, &floor_us, err, sizeof err) != 0) {
        fprintf(stderr, "bench_cuda: tiny: %s\n", err);
        return 1;
    }
    printf("tiny op (1x1x4x4 f32 SLICE1 {0,0,0,1} {1,1,4,3} {1,1,-2,2}): %.2f us execute+sync (median), "
           "%.2f us per execute call (mean); floor: 4-byte memset+sync %.2f us\n",
           sync_us, call_us, floor_us);
    return bad;
}
