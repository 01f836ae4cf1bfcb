/* The host's planning of a CUDA batch (batch_prepare.c): its tables
 * (batch_rules.h) built once from a dmls_batch, and the test a launch makes
 * of them against the bound bases. */
#ifndef DMLS_CUDA_BATCH_PREPARE_H
#define DMLS_CUDA_BATCH_PREPARE_H

#include "batch_rules.h"

/* Whether every entry of a phase runs its operator's first launch, and
 * that launch streams, with these bound bases: the phase has one operator
 * and one entry per per_entry blocks, and the alignment all entries'
 * addresses share (the used bases' and the layout's) chooses the first launch,
 * which every entry, aligned at least as well, then chooses too. Such a
 * phase runs the streaming kernel, which reads that launch from its
 * parameters instead of choosing per entry (batch_kernels.cu). */
int dmls_cuda_batch_uniform(const dmls_cuda_batch_plan *p, int phase, const uint64_t *bases);

struct dmls_batch;

/* Builds the host tables of a batch; DMLS_ERROR_OUT_OF_MEMORY or
 * DMLS_ERROR_UNSUPPORTED (more than DMLS_BATCH_CUDA_MAX_SLOTS slots, or
 * 2^32 - 1 items or more: the block map numbers entries in 32 bits). */
dmls_status dmls_cuda_batch_plan_build(const struct dmls_batch *b, dmls_cuda_batch_plan *plan);
void dmls_cuda_batch_plan_free(dmls_cuda_batch_plan *plan);

#endif
