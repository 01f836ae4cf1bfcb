/* The scalar reference executor: the oracle every fast path is tested
 * against. It reads the operator's definition straight from the problem (not
 * from the plans) and moves one element at a time with no cleverness. */
#include <string.h>

#include "bindings.h"
#include "checked.h"
#include "error.h"
#include "operator.h"

/* The element's byte address. Validation proved it fits 64 bits; a partial
 * product need not (esize * c[i] with c[i] near 2^62 and a stride of 0), so
 * the sum is taken modulo 2^64, exact for every address that fits. */
static int64_t byte_address(const dmls_layout *t, int32_t esize, int32_t ndim, const int64_t *c) {
    int64_t at = t->byte_offset;
    for (int i = 0; i < ndim; i++) at = dmls_wrap_add(at, dmls_wrap_mul3(esize, c[i], t->strides[i]));
    return at;
}

/* Advances c through shape in row-major order; false after the last. */
static bool next_coordinate(int32_t ndim, const int64_t *shape, int64_t *c) {
    for (int i = ndim - 1; i >= 0; i--) {
        if (++c[i] < shape[i]) return true;
        c[i] = 0;
    }
    return false;
}

static bool is_empty(int32_t ndim, const int64_t *shape) {
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0) return true;
    return false;
}

/* Every c of the dense side (out for a slice, in for a gradient) with its
 * strided counterpart b = start + step * c: a slice copies in[b] to out[c],
 * a gradient scatters in[c] to out[b]. */
static void copy_items(const dmls_problem *p, const unsigned char *in, unsigned char *out, bool scatter) {
    const int64_t *dense = scatter ? p->in.shape : p->out.shape;
    int64_t c[DMLS_MAX_RANK] = {0}, b[DMLS_MAX_RANK];
    if (is_empty(p->ndim, dense)) return;
    do {
        for (int i = 0; i < p->ndim; i++) b[i] = p->start[i] + p->step[i] * c[i];
        memcpy(out + byte_address(&p->out, p->esize, p->ndim, scatter ? b : c),
               in + byte_address(&p->in, p->esize, p->ndim, scatter ? c : b), (size_t)p->esize);
    } while (next_coordinate(p->ndim, dense, c));
}

dmls_status dmls_execute_reference(const dmls_operator *op, const void *input, uint64_t input_bytes,
                                   void *output, uint64_t output_bytes) {
    RETURN_IF_ERROR(dmls_check_bindings("execute", op, input, input_bytes, output, output_bytes));

    const dmls_problem *p = &op->problem;
    unsigned char *out = output;

    if (p->kind == DMLS_KIND_GRAD) {
        /* out is the output gradient: zeros, then the scatter. */
        int64_t c[DMLS_MAX_RANK] = {0};
        if (!is_empty(p->ndim, p->out.shape)) {
            do memset(out + byte_address(&p->out, p->esize, p->ndim, c), 0, (size_t)p->esize);
            while (next_coordinate(p->ndim, p->out.shape, c));
        }
    }
    copy_items(p, input, out, p->kind == DMLS_KIND_GRAD);
    return DMLS_OK;
}
