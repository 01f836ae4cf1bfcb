/* The binding checks every executor shares (CPU, CUDA, reference, Vulkan):
 * they read only the operator's buffer needs, never a backend's data. */
#include "bindings.h"

#include <stdio.h>

#include "error.h"
#include "operator.h"

const dmls_place_words dmls_pointer_words = {false, "buffer", "NULL"};

/* A place's start as the words say: "0x1000" (an address, %p) or "4096". */
static const char *start_of(const dmls_place_words *w, uint64_t at, char *buf, size_t size) {
    if (w->offsets)
        snprintf(buf, size, "%llu", (unsigned long long)at);
    else
        snprintf(buf, size, "%p", (void *)(uintptr_t)at);
    return buf;
}

dmls_status dmls_check_places(const dmls_operator *op, const dmls_place *in, const dmls_place *out,
                              const dmls_place_words *w) {
    const char *name = op->problem.name;
    const dmls_buffer_needs *n = &op->needs;
    RETURN_IF(!in->bound && n->in_bytes > 0, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "%s: input %s is %s but the input tensor needs %llu bytes", name, w->buffer, w->null_word,
              (unsigned long long)n->in_bytes);
    RETURN_IF(!out->bound && n->out_bytes > 0, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "%s: output %s is %s but the output tensor needs %llu bytes", name, w->buffer, w->null_word,
              (unsigned long long)n->out_bytes);
    RETURN_IF(in->bytes < n->in_bytes, DMLS_ERROR_BUFFER_TOO_SMALL, "R-X-BOUNDS",
              "%s: input buffer holds %llu bytes but the input tensor needs %llu", name,
              (unsigned long long)in->bytes, (unsigned long long)n->in_bytes);
    RETURN_IF(out->bytes < n->out_bytes, DMLS_ERROR_BUFFER_TOO_SMALL, "R-X-BOUNDS",
              "%s: output buffer holds %llu bytes but the output tensor needs %llu", name,
              (unsigned long long)out->bytes, (unsigned long long)n->out_bytes);
    char a[48], b[48];
    RETURN_IF(n->in_align > 1 && in->at % n->in_align != 0, DMLS_ERROR_MISALIGNED, "R-X-ALIGN",
              "%s: input %s %s is not a multiple of %llu (%s)", name, w->offsets ? "offset" : "address",
              start_of(w, in->at, a, sizeof a),
              (unsigned long long)n->in_align, n->in_align_why);
    RETURN_IF(n->out_align > 1 && out->at % n->out_align != 0, DMLS_ERROR_MISALIGNED, "R-X-ALIGN",
              "%s: output %s %s is not a multiple of %llu (%s)", name, w->offsets ? "offset" : "address",
              start_of(w, out->at, a, sizeof a),
              (unsigned long long)n->out_align, n->out_align_why);
    /* The tensors' byte ranges, [start, start + needed): distinct buffers, or
     * disjoint parts of one, are fine; any shared byte is not. */
    const bool overlap = in->space == out->space && n->in_bytes > 0 && n->out_bytes > 0 &&
                         in->at < out->at + n->out_bytes && out->at < in->at + n->in_bytes;
    RETURN_IF(overlap, DMLS_ERROR_OVERLAP, "R-X-OVERLAP", "%s: output bytes [%s, +%llu) overlap input bytes [%s, +%llu)%s%s",
              name, start_of(w, out->at, a, sizeof a), (unsigned long long)n->out_bytes,
              start_of(w, in->at, b, sizeof b), (unsigned long long)n->in_bytes, w->offsets ? " of the same " : "",
              w->offsets ? w->buffer : "");
    return DMLS_OK;
}

dmls_status dmls_check_bindings(const char *who, const dmls_operator *op, const void *input,
                                uint64_t input_bytes, const void *output, uint64_t output_bytes) {
    dmls_clear_error();
    RETURN_IF(op == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: operator is NULL", who);
    const dmls_place in = {0, (uint64_t)(uintptr_t)input, input_bytes, input != NULL};
    const dmls_place out = {0, (uint64_t)(uintptr_t)output, output_bytes, output != NULL};
    return dmls_check_places(op, &in, &out, &dmls_pointer_words);
}
