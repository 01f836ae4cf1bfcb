/* The CUDA backend's entry in the table of backends (backend.h): its data
 * is the launch set (launch.h), derived once at create (prepare.c) so that
 * dmls_execute_cuda (run.c) only checks the binding and launches. Plain C,
 * no CUDA header: preparing needs no device. */
#include <stdlib.h>

#include "../device/device_ops.h"
#include "../error.h"
#include "launch.h"

static dmls_status cuda_prepare(const dmls_operator *op, void **prepared) {
    dmls_cuda_state *state = malloc(sizeof *state);
    RETURN_IF(state == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL,
              "%s: out of memory creating the operator (its CUDA launches)", op->problem.name);
    dmls_cuda_prepare(state, &op->copy, op->zero_fill ? &op->fill : NULL);
    *prepared = state;
    return DMLS_OK;
}

void dmls_batch_cuda_release(struct dmls_batch *b); /* batch_launch.c */

const dmls_backend dmls_cuda_backend = {"cuda", cuda_prepare, free, NULL, dmls_batch_cuda_release,
                                     &dmls_cuda_device};
