/* dmlslice bench: the CPU crops rows' context (its cases run through the
 * device interface, bench_device.c), and the random fill every row uses;
 * see bench.h. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct bench_cpu {
    dmls_context *ctx;
};

void bench_fill(void *p, uint64_t bytes, uint64_t seed) {
    uint64_t x = seed | 1;
    unsigned char *b = p;
    for (uint64_t i = 0; i < bytes; i += 8) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        const uint64_t v = x * 0x2545F4914F6CDD1DULL;
        memcpy(b + i, &v, bytes - i < 8 ? bytes - i : 8);
    }
}

bench_cpu *bench_cpu_open(int threads) {
    bench_cpu *b = calloc(1, sizeof *b);
    if (b == NULL) {
        fprintf(stderr, "dmlslice bench: out of memory\n");
        return NULL;
    }
    if (dmls_context_create(threads, &b->ctx) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: %s\n", dmls_last_error());
        free(b);
        return NULL;
    }
    return b;
}

dmls_context *bench_cpu_context(const bench_cpu *b) { return b->ctx; }

void bench_cpu_close(bench_cpu *b) {
    if (b == NULL) return;
    dmls_context_destroy(b->ctx);
    free(b);
}
