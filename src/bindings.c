/* The binding checks every executor shares (CPU, CUDA, reference): they
 * read only the operator's buffer needs, never a backend's data. */
#include "bindings.h"

#include "error.h"
#include "operator.h"

dmls_status dmls_check_bindings(const char *who, const dmls_operator *op, const void *input,
                                uint64_t input_bytes, const void *output, uint64_t output_bytes) {
    dmls_clear_error();
    RETURN_IF(op == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: operator is NULL", who);
    const char *name = op->problem.name;
    const dmls_buffer_needs *n = &op->needs;
    RETURN_IF(input == NULL && n->in_bytes > 0, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "%s: input buffer is NULL but the input tensor needs %llu bytes", name,
              (unsigned long long)n->in_bytes);
    RETURN_IF(output == NULL && n->out_bytes > 0, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "%s: output buffer is NULL but the output tensor needs %llu bytes", name,
              (unsigned long long)n->out_bytes);
    RETURN_IF(input_bytes < n->in_bytes, DMLS_ERROR_BUFFER_TOO_SMALL, "R-X-BOUNDS",
              "%s: input buffer holds %llu bytes but the input tensor needs %llu", name,
              (unsigned long long)input_bytes, (unsigned long long)n->in_bytes);
    RETURN_IF(output_bytes < n->out_bytes, DMLS_ERROR_BUFFER_TOO_SMALL, "R-X-BOUNDS",
              "%s: output buffer holds %llu bytes but the output tensor needs %llu", name,
              (unsigned long long)output_bytes, (unsigned long long)n->out_bytes);
    uintptr_t in = (uintptr_t)input, out = (uintptr_t)output;
    RETURN_IF(n->in_align > 1 && in % n->in_align != 0, DMLS_ERROR_MISALIGNED, "R-X-ALIGN",
              "%s: input address %p is not a multiple of %llu (%s)", name, input,
              (unsigned long long)n->in_align, n->in_align_why);
    RETURN_IF(n->out_align > 1 && out % n->out_align != 0, DMLS_ERROR_MISALIGNED, "R-X-ALIGN",
              "%s: output address %p is not a multiple of %llu (%s)", name, output,
              (unsigned long long)n->out_align, n->out_align_why);
    /* The tensors' byte ranges, [base, base + needed): distinct buffers, or
     * disjoint parts of one, are fine; any shared byte is not. */
    bool overlap = n->in_bytes > 0 && n->out_bytes > 0 && in < out + n->out_bytes && out < in + n->in_bytes;
    RETURN_IF(overlap, DMLS_ERROR_OVERLAP, "R-X-OVERLAP",
              "%s: output bytes [%p, +%llu) overlap input bytes [%p, +%llu)", name, output,
              (unsigned long long)n->out_bytes, input, (unsigned long long)n->in_bytes);
    return DMLS_OK;
}
