/* The clock and the median every timed row reads (bench.h): the tool's
 * bench on each device and the developer probes under bench/probes link
 * this one file, so that all their figures mean the same. */
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
