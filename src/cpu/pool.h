/* A persistent pool of worker threads (pool.c); the caller is one of its
 * threads. Workers start when a job first needs them, not at create. */
#ifndef DMLS_CPU_POOL_H
#define DMLS_CPU_POOL_H

#include <stddef.h>

typedef struct dmls_pool dmls_pool;

/* A pool of `threads` threads in all (caller included), no worker started
 * yet, for jobs of up to max_tasks tasks (1 to 65,535). NULL on failure
 * (an argument out of range, or out of memory). */
dmls_pool *dmls_pool_create(int threads, int max_tasks);
void dmls_pool_destroy(dmls_pool *pool);

/* The pool's thread count, caller included: the count asked for until a
 * worker fails to start, then the caller plus the workers that did. */
int dmls_pool_threads(const dmls_pool *pool);

/* The CPUs the process could use when the pool was created: more tasks
 * than this in one job only take turns on them. */
int dmls_pool_cpus(const dmls_pool *pool);

/* The next dmls_pool_run wakes at most `wakes` sleeping workers (never more
 * than one per CPU beside the caller's); workers still polling join it
 * whatever the limit, as they cost no wake-up. One caller at a time. */
void dmls_pool_limit_wakes(dmls_pool *pool, int wakes);

/* Starts the workers not started yet. A worker that cannot be started (the
 * process is out of threads or memory) is not retried: the pool goes on with
 * the workers it has. Returns dmls_pool_threads afterwards. One caller at a
 * time, never while a job runs. */
int dmls_pool_start(dmls_pool *pool);

/* The most bytes of arguments a job carries. */
#define DMLS_POOL_ARGS 48

/* Runs fn(args, i) for i in [0, tasks), tasks <= max_tasks, each once, on
 * the caller or on whichever worker claims it first; returns when all are
 * done. The `size` bytes at args (at most DMLS_POOL_ARGS) are copied next to
 * the job word, so a worker's first look at the job brings its arguments
 * too: fn may read them, and reaches anything it writes through pointers
 * among them. The caller runs tasks from the start and waits only for the
 * tasks a worker has claimed. One caller at a time. */
void dmls_pool_run(dmls_pool *pool, void (*fn)(const void *args, int task), const void *args, size_t size, int tasks);

#endif
