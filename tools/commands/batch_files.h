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


/* How a command's batches run: on the device c names, or on the CPU with
 * one pool of c->threads threads kept for all of them (crops runs its crops in
 * blocks). */
typedef struct batch_runner {
    const common_options *c;
    int threads; /* 0: $DMLSLICE_THREADS, else every CPU */
    device_choice device; /* c's, or the CPU where cuda fell back */
    dmls_context *ctx;
    bool ctx_made;
} batch_runner;

/* --device cuda without a usable device runs on the CPU, saying so
 * (device_io.h). */
void batch_runner_start(batch_runner *r, const common_options *c);
/* Runs batch (1 input slot, bound to in; n output slots, slot k written
 * into outs[k], bytes[k] bytes long). False after saying why on stderr. */
bool batch_runner_exec(batch_runner *r, dmls_batch *batch, const npy_input *in, void *const *outs,
                       const uint64_t *bytes, int n);
void batch_runner_end(batch_runner *r);

/* The end of a command that ran its batches (ran: all of them succeeded):
 * when every input is as it was when opened (npy_input_intact: one that
 * changed was read partly as other bytes), every output is committed, or
 * none (npy_commit_all); else every output is aborted. The exit status. */
int batch_files_finish(bool ran, const npy_input *const *inputs, int ninputs, npy_output *outs, int n);

/* One batch from in into outs (created), from start to finish, with
 * batch_runner and batch_files_finish. The exit status. */
int batch_files_run(dmls_batch *batch, const common_options *c, npy_input *in, npy_output *outs, int n);

#endif
