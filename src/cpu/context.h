/* The inside of a dmls_context (context.c), for the CPU executor
 * (run.c), and the tests' hook on its one-thread threshold. */
#ifndef DMLS_CPU_CONTEXT_H
#define DMLS_CPU_CONTEXT_H

#include <stdint.h>

#include "../platform/platform.h"
#include "dmlslice/dmlslice.h"
#include "pool.h"

/* A batch is cut into up to this many shares per thread, claimed as
 * threads arrive (pool.c): a thread descheduled while holding a share then
 * delays the call by a quarter of its part at most. */
#define DMLS_SHARES_PER_THREAD 4

struct dmls_context {
    dmls_pool *pool;
    dmls_mutex turn;       /* one job on the pool at a time */
    uint64_t *splits;      /* threads + 1 share bounds of dmls_execute_on's cut (run.c), under turn */
    uint64_t parallel_min_bytes;
};

/* Test hook: copies that move at least this many bytes (output plus input
 * lines read) are cut between a context's threads (default
 * DMLS_PARALLEL_MIN_BYTES, split.h; 0 cuts every copy). */
void dmls_context_set_parallel_min_bytes(dmls_context *ctx, uint64_t bytes);

#endif
