/* The 3-thread pool the fuzz targets run their second pass on, with no
 * minimum size per thread, so that every copy and zero fill is cut between
 * threads and kernels also run on shares that start and end inside rows. */
#ifndef DMLS_FUZZ_POOL_H
#define DMLS_FUZZ_POOL_H

#include <stdlib.h>

#include "cpu/context.h" /* dmls_context_set_parallel_min_bytes */
#include "dmlslice/dmlslice.h"

/* Created on first use and kept for the process: a pool per input would
 * spend the run starting threads. */
static inline dmls_context *fuzz_pool3(void) {
    static dmls_context *ctx;
    if (ctx == NULL) {
        if (dmls_context_create(3, &ctx) != DMLS_OK) abort();
        dmls_context_set_parallel_min_bytes(ctx, 0);
    }
    return ctx;
}

#endif
