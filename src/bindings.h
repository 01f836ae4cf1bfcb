/* The binding checks every executor runs first (bindings.c): the CPU's,
 * CUDA's and the reference's. */
#ifndef DMLS_BINDINGS_H
#define DMLS_BINDINGS_H

#include <stdint.h>

#include "dmlslice/dmlslice.h"

/* The preamble every executor runs before writing anything: clears the
 * thread's error, then checks op (not NULL) and the binding (R-OP-NULL,
 * R-X-BOUNDS, R-X-ALIGN, R-X-OVERLAP; docs/spec.md section 2). who names the
 * call in the message when op is NULL ("execute", "execute_cuda"). */
dmls_status dmls_check_bindings(const char *who, const dmls_operator *op, const void *input, uint64_t input_bytes,
                                const void *output, uint64_t output_bytes);

#endif
