/* The operator lifecycle: allocation, the binding checks (R-X-*), execution
 * on the CPU, queries and the one-shot calls. Validation lives in
 * validate_dml.c and validate_native.c; planning in plan.c. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "operator.h"

dmls_status dmls_operator_new(const char *name, const dmls_problem *problem, uint64_t in_bytes,
                              uint64_t out_bytes, uint64_t in_align, uint64_t out_align,
                              dmls_operator **out) {
    dmls_operator *op = calloc(1, sizeof *op);
    RETURN_IF(op == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "%s: out of memory creating the operator", name);
    op->name = name;
    op->problem = *problem;
    op->in_bytes = in_bytes;
    op->out_bytes = out_bytes;
    op->in_align = in_align;
    op->out_align = out_align;
    dmls_plan(op);
    dmls_cpu_plan_build(&op->cpu, &op->copy, dmls_cpu_features(), dmls_cpu_nontemporal_threshold());
    *out = op;
    return DMLS_OK;
}

void dmls_destroy(dmls_operator *op) { free(op); }

dmls_status dmls_check_binding(const dmls_operator *op, const void *input, uint64_t input_bytes,
                               const void *output, uint64_t output_bytes) {
    const char *name = op->name;
    RETURN_IF(input == NULL && op->in_bytes > 0, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "%s: input buffer is NULL but the input tensor needs %llu bytes", name,
              (unsigned long long)op->in_bytes);
    RETURN_IF(output == NULL && op->out_bytes > 0, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "%s: output buffer is NULL but the output tensor needs %llu bytes", name,
              (unsigned long long)op->out_bytes);
    RETURN_IF(input_bytes < op->in_bytes, DMLS_ERROR_BUFFER_TOO_SMALL, "R-X-BOUNDS",
              "%s: input buffer holds %llu bytes but the input tensor needs %llu", name,
              (unsigned long long)input_bytes, (unsigned long long)op->in_bytes);
    RETURN_IF(output_bytes < op->out_bytes, DMLS_ERROR_BUFFER_TOO_SMALL, "R-X-BOUNDS",
              "%s: output buffer holds %llu bytes but the output tensor needs %llu", name,
              (unsigned long long)output_bytes, (unsigned long long)op->out_bytes);
    uintptr_t in = (uintptr_t)input, out = (uintptr_t)output;
    RETURN_IF(op->in_align > 1 && in % op->in_align != 0, DMLS_ERROR_MISALIGNED, "R-X-ALIGN",
              "%s: input address %p is not a multiple of GuaranteedBaseOffsetAlignment %llu", name,
              input, (unsigned long long)op->in_align);
    RETURN_IF(op->out_align > 1 && out % op->out_align != 0, DMLS_ERROR_MISALIGNED, "R-X-ALIGN",
              "%s: output address %p is not a multiple of GuaranteedBaseOffsetAlignment %llu", name,
              output, (unsigned long long)op->out_align);
    /* The tensors' byte ranges, [base, base + needed): distinct buffers, or
     * disjoint parts of one, are fine; any shared byte is not. */
    bool overlap = op->in_bytes > 0 && op->out_bytes > 0 && in < out + op->out_bytes &&
                   out < in + op->in_bytes;
    RETURN_IF(overlap, DMLS_ERROR_OVERLAP, "R-X-OVERLAP",
              "%s: output bytes [%p, +%llu) overlap input bytes [%p, +%llu)", name, output,
              (unsigned long long)op->out_bytes, input, (unsigned long long)op->in_bytes);
    return DMLS_OK;
}

dmls_status dmls_execute(const dmls_operator *op, const void *input, uint64_t input_bytes,
                         void *output, uint64_t output_bytes) {
    dmls_clear_error();
    RETURN_IF(op == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "execute: operator is NULL");
    RETURN_IF_ERROR(dmls_check_binding(op, input, input_bytes, output, output_bytes));
    if (op->zero_fill) dmls_cpu_fill_zero(&op->fill, output);
    dmls_cpu_run_range(&op->cpu, input, output, 0, op->cpu.items);
    return DMLS_OK;
}

uint64_t dmls_input_bytes(const dmls_operator *op) { return op->in_bytes; }
uint64_t dmls_output_bytes(const dmls_operator *op) { return op->out_bytes; }
int32_t dmls_output_rank(const dmls_operator *op) { return op->problem.ndim; }
size_t dmls_element_size(const dmls_operator *op) { return (size_t)op->problem.esize; }

void dmls_output_shape(const dmls_operator *op, int64_t *shape) {
    for (int i = 0; i < op->problem.ndim; i++) shape[i] = op->problem.out.shape[i];
}

dmls_status dmls_slice_dml(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level,
                           const void *input, uint64_t input_bytes, void *output,
                           uint64_t output_bytes) {
    dmls_operator *op = NULL;
    RETURN_IF_ERROR(dmls_create_dml(desc, level, &op));
    dmls_status s = dmls_execute(op, input, input_bytes, output, output_bytes);
    dmls_destroy(op);
    return s;
}

dmls_status dmls_slice(const dmls_tensor *input, const void *input_data, uint64_t input_bytes,
                       const dmls_tensor *output, void *output_data, uint64_t output_bytes,
                       const dmls_window *window) {
    dmls_operator *op = NULL;
    RETURN_IF_ERROR(dmls_create(input, output, window, &op));
    dmls_status s = dmls_execute(op, input_data, input_bytes, output_data, output_bytes);
    dmls_destroy(op);
    return s;
}
