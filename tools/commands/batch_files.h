/* What `dmlslice split` and `dmlslice crops` share: the .npy input as a
 * batch's input tensor, and the run of a planned batch (<dmlslice/batch.h>)
 * from that input into .npy outputs, on the CPU or CUDA, with every output
 * written or none (npy_commit_all). */
#ifndef DMLSLICE_TOOLS_BATCH_FILES_H
#define DMLSLICE_TOOLS_BATCH_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlslice/batch.h"
#include "npy_input.h"
#include "npy_output.h"
#include "options.h"

/* The input's view for the library: its dtype, shape and (Fortran order)
 * element strides. Items of more than one part (complex, records) get one
 * more, innermost axis of their parts, so each item moves whole: the caller
 * adds that axis to sizes and starts too. shape and strides hold
 * NPY_MAX_RANK + 1 values. */
void batch_input_tensor(const npy_input *in, int64_t *shape, int64_t *strides, dmls_tensor *t);

/* Before any work: every output of c can be written (npy_output_check
 * against the input and against other, an extra input such as crops'
 * starts, or NULL) and no two name the same file. False after saying why on
 * stderr. */
bool batch_outputs_check(const common_options *c, const char *other);


/* Runs batch (1 input slot, n output slots, slot k written into outs[k],
 * which are created) on the device c names, threads threads on the CPU (0:
 * $DMLSLICE_THREADS, else every CPU), then commits every output or none.
 * Every output is aborted on failure. Returns the exit status. */
int batch_files_run(dmls_batch *batch, const common_options *c, int64_t threads, npy_input *in, npy_output *outs,
                    int n);

#endif
