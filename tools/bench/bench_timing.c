/* The clock, the median and a GPU's steady state that every timed row
 * reads (bench.h): the tool's bench on each device and the developer probes
 * under bench/probes link this one file, so that all their figures mean the
 * same. */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "platform.h"

double bench_now(void) { return 1e-9 * (double)dmls_monotonic_ns(); }

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bench_gpu_clock bench_gpu_clock_of(bool quick, bool verbose) {
    bench_gpu_clock c = {quick ? BENCH_GPU_QUICK_WARM_MS : BENCH_GPU_WARM_MS,
                         quick ? BENCH_GPU_QUICK_BURSTS : BENCH_GPU_BURSTS, quick, verbose};
    return c;
}

int bench_warm_runs(const bench_gpu_clock *c, double run_ms) {
    const double n = run_ms > 0 ? c->warm_ms / run_ms : BENCH_GPU_WARM_MAX;
    const double least = c->quick ? 1 : 3;
    return n < least ? (int)least : n > BENCH_GPU_WARM_MAX ? BENCH_GPU_WARM_MAX : (int)n;
}

double bench_steady(const bench_gpu_clock *c, bench_burst_fn burst, void *ctx, double ms_per_unit, int reps,
                    double *times) {
    double first = 0, last = -1;
    if (!burst(ctx, -1, 1, &first)) return -1;
    for (int b = 0; b < c->bursts; b++) {
        if (!burst(ctx, last > 0 ? last : first, reps, times)) return -1;
        const double m = bench_median(times, reps);
        /* On stderr, so that a GPU run's log shows how slow the clock rose. */
        if (c->verbose)
            fprintf(stderr, "dmlslice bench: burst %d: %.4f ms (the one before: %.4f ms)\n", b + 1, m * ms_per_unit,
                    last * ms_per_unit);
        if (last > 0 && m >= 0.98 * last) return m;
        last = m;
    }
    return last;
}
