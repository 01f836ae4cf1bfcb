/* The batch kernel's entry points (batch_kernels.cu, C linkage, internal). */
#ifndef DMLS_CUDA_BATCH_KERNELS_H
#define DMLS_CUDA_BATCH_KERNELS_H

#include "batch_rules.h"

/* Enqueues phase `phase` of a prepared batch (device tables in dev, the
 * plan's sizes from host) with the bound bases; returns the CUDA runtime's
 * error code. */
int dmls_cuda_batch_enqueue(const dmls_cuda_batch_plan *host, const dmls_cuda_batch_plan *dev, int phase,
                            char *const *bases, const void *starts, void *stream);

/* For dmlslice_batchbench's sweeps only: which compiled form of the batch
 * kernel later launches use (0, the default: at least
 * DMLS_CUDA_BATCH_MIN_BLOCKS blocks resident per SM; 1: the compiler's own
 * register count). Returns the form now in use; an unknown one is ignored.
 * Not for concurrent use with launches. */
int dmls_cuda_batch_variant(int variant);

#endif
