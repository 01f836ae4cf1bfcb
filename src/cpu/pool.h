/* A persistent pool of worker threads (pool.c); the caller is one of its
 * threads. Workers start when a job first needs them, not at create. */
#ifndef DMLS_CPU_POOL_H
#define DMLS_CPU_POOL_H

typedef struct dmls_pool dmls_pool;

/* A pool of `threads` threads in all (caller included), no worker started
 * yet. NULL on failure (threads < 1, or out of memory). */
dmls_pool *dmls_pool_create(int threads);
void dmls_pool_destroy(dmls_pool *pool);

/* The pool's thread count, caller included: the count asked for until a
 * worker fails to start, then the caller plus the workers that did. */
int dmls_pool_threads(const dmls_pool *pool);

/* Starts the workers not started yet. A worker that cannot be started (the
 * process is out of threads or memory) is not retried: the pool goes on with
 * the workers it has. Returns dmls_pool_threads afterwards. One caller at a
 * time, never while a job runs. */
int dmls_pool_start(dmls_pool *pool);

/* Runs fn(arg, i) for i in [0, tasks), tasks <= dmls_pool_start(pool), task
 * 0 on the caller and task i on worker i; returns when all are done. One
 * caller at a time. */
void dmls_pool_run(dmls_pool *pool, void (*fn)(void *arg, int task), void *arg, int tasks);

#endif
