/* The pool the fuzz targets run the library's threaded paths on: three
 * threads, every job split however small (parallel_min_bytes 0). Made on
 * first use and kept for the process: a pool per input would spend the
 * run starting threads. */
#ifndef DMLS_FUZZ_POOL_H
#define DMLS_FUZZ_POOL_H

#include <stdlib.h>

#include "cpu/context.h" /* dmls_context_set_parallel_min_bytes */
#include "dmlslice/dmlslice.h"

static inline dmls_context *fuzz_pool3(void) {
    static dmls_context *ctx;
    if (ctx == NULL) {
        if (dmls_context_create(3, &ctx) != DMLS_OK) abort();
        dmls_context_set_parallel_min_bytes(ctx, 0);
    }
    return ctx;
}

#endif
