/* A native operator (dmls_create, or dmls_create_grad) written the way the
 * tests think of one: the dtype and rank once, then only what differs from
 * the plain case, by name:
 *
 *   dmls_operator *op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 2, .in_shape = in, .out_shape = out,
 *                               .offsets = off, .steps = st);
 *   CHECK_STATUS(OP_TRY(&op, .dtype = DMLS_FLOAT32, .ndim = 1, ...), DMLS_ERROR_OVERFLOW);
 *
 * Left out, strides are packed, byte offsets 0, window offsets 0, steps 1,
 * and the window's sizes the small tensor's shape (the output of a slice,
 * the input gradient of a grad), which with steps of 1 is the window that
 * fills it. */
#ifndef DMLS_SUPPORT_NATIVE_OP_H
#define DMLS_SUPPORT_NATIVE_OP_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlslice/dmlslice.h"
#include "support/test.h"

typedef struct op_spec {
    dmls_dtype dtype;
    int32_t ndim;
    bool grad; /* SLICE_GRAD: `in` is the input gradient, `out` the output gradient */
    const int64_t *in_shape, *in_strides, *out_shape, *out_strides;
    uint64_t in_offset, out_offset;
    const int64_t *offsets, *sizes, *steps;
} op_spec;

/* The library's status; *op the operator, or NULL. */
static inline dmls_status op_try(const op_spec *s, dmls_operator **op) {
    static const int64_t zeros[8] = {0}, ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    const dmls_tensor in = {s->dtype, s->ndim, s->in_shape, s->in_strides, s->in_offset};
    const dmls_tensor out = {s->dtype, s->ndim, s->out_shape, s->out_strides, s->out_offset};
    const dmls_window w = {s->offsets ? s->offsets : zeros, s->sizes ? s->sizes : s->grad ? s->in_shape : s->out_shape,
                           s->steps ? s->steps : ones};
    *op = NULL;
    return s->grad ? dmls_create_grad(&in, &out, &w, op) : dmls_create(&in, &out, &w, op);
}

/* The operator, which must be made: NULL after a failed check that names
 * the caller and the library's message. */
static inline dmls_operator *op_make_at(const char *file, int line, const op_spec *s) {
    dmls_operator *op;
    const dmls_status status = op_try(s, &op);
    CHECK(status == DMLS_OK, "%s:%d: a rank-%d %s of %s: %s: %s", file, line, (int)s->ndim,
          s->grad ? "grad" : "slice", dmls_dtype_name(s->dtype), dmls_status_name(status), dmls_last_error());
    return status == DMLS_OK ? op : NULL;
}

#define OP_TRY(op, ...) op_try(&(op_spec){__VA_ARGS__}, (op))
#define OP_MAKE(...) op_make_at(__FILE__, __LINE__, &(op_spec){__VA_ARGS__})

#endif
