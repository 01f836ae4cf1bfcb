/* The operator: a validated problem, its buffer needs, its copy plans and
 * each backend's prepared form of them. Built in one place (create.c) and
 * immutable afterwards, so every executor only reads it. */
#ifndef DMLS_OPERATOR_H
#define DMLS_OPERATOR_H

#include <stdbool.h>

#include "copy_plan.h"
#include "cpu/prepare.h"
#include "cuda/launch.h"
#include "problem.h"

struct dmls_operator {
    dmls_problem problem;
    dmls_buffer_needs needs;
    bool zero_fill;       /* SLICE_GRAD: run fill before copy */
    dmls_copy_plan fill;  /* every element of the output (src unused) */
    dmls_copy_plan copy;
    dmls_cpu_prepared cpu; /* copy, with the CPU kernel chosen (cpu/prepare.c) */
    dmls_cuda_state cuda;  /* the CUDA launch plan; filled only when the CUDA backend is built */
    void *vulkan;          /* the Vulkan launches (vulkan/launch.h); NULL unless that backend is built */
};

/* The one create path: plans a validated problem, prepares every backend
 * built in, then allocates the operator into *out. Returns
 * DMLS_ERROR_OUT_OF_MEMORY on allocation failure (nothing else can fail
 * after validation). */
dmls_status dmls_operator_build(const dmls_problem *problem, const dmls_buffer_needs *needs,
                                dmls_operator **out);

/* The preamble every executor runs before writing anything: clears the
 * thread's error, then checks op (not NULL) and the binding (R-OP-NULL,
 * R-X-BOUNDS, R-X-ALIGN, R-X-OVERLAP; docs/spec.md section 2). who names the
 * call in the message when op is NULL ("execute", "execute_cuda"). */
dmls_status dmls_execute_begin(const char *who, const dmls_operator *op, const void *input,
                               uint64_t input_bytes, const void *output, uint64_t output_bytes);

#endif
