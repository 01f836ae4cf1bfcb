/* How work is cut between a context's threads: one home for the numbers
 * the CPU prepare (the copy's grain), the zero fill's grain and the
 * executor's one-thread threshold use. dmlslice.h's dmls_execute_on says the
 * same in words. */
#ifndef DMLS_CPU_SPLIT_H
#define DMLS_CPU_SPLIT_H

/* Below this many bytes of memory traffic (dmls_cpu_prepared.traffic_bytes:
 * the bytes written plus the input read, where an item read from a stride of
 * a cache line or more costs a whole line, so a column of 8-byte items out
 * of a wide matrix counts 72 bytes an item, not 8; such a gather is
 * latency-bound and gains the most from more threads, whatever its small
 * output) a copy takes about as long as waking the workers, so the caller
 * does it alone. SLICE_GRAD's zero fill is measured by the bytes it writes. */
#define DMLS_PARALLEL_MIN_BYTES (512 * 1024)

/* Rows of at most this many bytes (output bytes, for a copy; bytes written,
 * for the zero fill) are never cut between threads, so a thread's share
 * starts on a row; longer rows are cut every DMLS_SPLIT_GRAIN_BYTES. */
#define DMLS_SPLIT_ROW_BYTES (64 * 1024)
#define DMLS_SPLIT_GRAIN_BYTES 4096

/* A tiled copy is cut by bands of the input's rows (dmls_cpu_split_tiled)
 * when it has at least this many column blocks, or no fewer than row blocks:
 * 64 shares out evenly to 16 threads, while a copy with few columns (a tall
 * thin transpose) keeps row blocks, which there are more of. */
#define DMLS_TILE_SPLIT_SHARES 64

#endif
