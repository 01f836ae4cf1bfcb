/* The CPU backend's entry in the table of backends (backend.h): its data is
 * the copy plan recast for the CPU kernels, with the kernel chosen once
 * (prepare.c); its execute is dmls_execute_on (run.c); a batch's data is
 * its work prefix (batch_run.c). */
#include <stdlib.h>

#include "../batch/batch.h" /* dmls_cpu_batch_work */
#include "../device/device_ops.h"
#include "../error.h"
#include "../operator.h"
#include "features.h"
#include "prepare.h"

static dmls_status cpu_prepare(const dmls_operator *op, void **prepared) {
    dmls_cpu_prepared *cp = malloc(sizeof *cp);
    RETURN_IF(cp == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "%s: out of memory creating the operator (its CPU copy)",
              op->problem.name);
    dmls_cpu_prepare(cp, &op->copy, dmls_cpu_features(), dmls_cpu_nontemporal_threshold(), dmls_cpu_cache_size());
    *prepared = cp;
    return DMLS_OK;
}

const dmls_backend dmls_cpu_backend = {"cpu", cpu_prepare, free, dmls_cpu_batch_work, NULL,
                                    &dmls_cpu_device};
