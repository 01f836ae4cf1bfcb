/* Split and crops as batches (docs/spec.md section 7): each builds the
 * operators its pieces need, shares one among pieces of one shape, and
 * hands them to dmls_batch_build with the items.
 *
 * A piece (a split's output, a crop) is read through a view of the piece's
 * own shape with the input's strides, so pieces of one shape share one
 * operator and differ only in their input offset within the slot. Offsets
 * are unsigned, so with a negative stride the view's byte_offset takes the
 * lowest piece's shift and each item the rest:
 *   input 4x6 float32 packed, crops of 2x3 at (0,0) and (2,3):
 *   view shape {2,3} strides {6,1}; offsets 0 and (2*6 + 3) * 4 = 60. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "checked.h"
#include "error.h"

/* ------------------------------------------------------------ split sizes */

static dmls_status onnx_sizes(int64_t d, int64_t n, int64_t *c, int64_t *last) {
    *c = d / n + (d % n != 0);
    int64_t used;
    /* c * (n - 1) <= d + n - 1 - c overflows only where it exceeds d anyway */
    bool over = dmls_mul_i64(*c, n - 1, &used) || used > d;
    RETURN_IF(over, DMLS_ERROR_SHAPE_MISMATCH, "R-SPLIT-COUNT",
              "split: num_outputs = %" PRId64 " on an axis of %" PRId64 ": ceil(%" PRId64 "/%" PRId64 ") = %" PRId64
              " each leaves %" PRId64 " - %" PRId64 "*%" PRId64 " < 0 for the last (ONNX Split-18); "
              "the modes array_split (NumPy's array_split, PyTorch's tensor_split) and chunk "
              "(PyTorch's chunk) give the other conventions",
              n, d, d, n, *c, d, *c, n - 1);
    *last = d - used;
    return DMLS_OK;
}

dmls_status dmls_split_sizes(int64_t d, int64_t n, dmls_split_rule rule, int64_t *sizes, size_t capacity,
                             size_t *count) {
    dmls_clear_error();
    RETURN_IF(count == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "split_sizes: count is NULL");
    *count = 0;
    RETURN_IF(d < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-SPLIT-SUM", "split_sizes: axis length %" PRId64 " is negative", d);
    RETURN_IF(n < 1, DMLS_ERROR_INVALID_ARGUMENT, "R-SPLIT-COUNT", "split_sizes: count %" PRId64 " is below 1", n);
    int64_t c = 0, last = 0, outputs = n;
    switch (rule) {
    case DMLS_SPLIT_ONNX: RETURN_IF_ERROR(onnx_sizes(d, n, &c, &last)); break;
    case DMLS_SPLIT_TORCH_SIZE: /* chunks of n, the last smaller; one empty output for d == 0 */
        c = n;
        outputs = d == 0 ? 1 : d / n + (d % n != 0);
        last = d - c * (outputs - 1);
        break;
    case DMLS_SPLIT_ARRAY_SPLIT: break;
    case DMLS_SPLIT_TORCH_CHUNK: /* chunks of ceil(d/n); n empty outputs for d == 0 */
        c = d / n + (d % n != 0);
        outputs = d == 0 ? n : d / c + (d % c != 0);
        last = d - c * (outputs - 1);
        break;
    default:
        return dmls_fail(DMLS_ERROR_INVALID_ARGUMENT, NULL, "split_sizes: rule %d is not a dmls_split_rule", (int)rule);
    }
    RETURN_IF((uint64_t)outputs > SIZE_MAX, DMLS_ERROR_OVERFLOW, NULL, "split_sizes: %" PRId64 " outputs", outputs);
    *count = (size_t)outputs;
    if (sizes == NULL) return DMLS_OK;
    RETURN_IF(capacity < (size_t)outputs, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "split_sizes: %" PRId64 " outputs do not fit sizes[%zu]", outputs, capacity);
    for (int64_t j = 0; j < outputs; j++) {
        if (rule == DMLS_SPLIT_ARRAY_SPLIT)
            sizes[j] = d / n + (j < d % n);
        else
            sizes[j] = j == outputs - 1 ? last : c;
    }
    return DMLS_OK;
}

/* ------------------------------------------------------------ pieces */

/* The input resolved: strides filled in (packed where NULL). */
typedef struct source {
    dmls_tensor view;
    int64_t shape[DMLS_MAX_RANK], strides[DMLS_MAX_RANK];
    int64_t esize;
    uint64_t in_bytes; /* what a buffer needs to hold the whole input */
} source;

static dmls_status resolve(const char *who, const dmls_tensor *t, source *s) {
    RETURN_IF(t == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: input is NULL", who);
    RETURN_IF(t->ndim < 0 || t->ndim > DMLS_MAX_RANK, DMLS_ERROR_UNSUPPORTED, "R-OP-RANK",
              "%s: input.ndim = %d is outside 0 to %d", who, (int)t->ndim, DMLS_MAX_RANK);
    RETURN_IF(t->ndim > 0 && t->shape == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "%s: input.shape is NULL with ndim %d", who, (int)t->ndim);
    s->esize = (int64_t)dmls_dtype_size(t->dtype);
    RETURN_IF(s->esize == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-T-DTYPE", "%s: input.dtype = %d is not a known data type",
              who, (int)t->dtype);
    /* Validating the whole input once makes every later stride product fit. */
    dmls_operator *whole = NULL;
    const int64_t ones[DMLS_MAX_RANK] = {1, 1, 1, 1, 1, 1, 1, 1}, zeros[DMLS_MAX_RANK] = {0};
    dmls_tensor out = {t->dtype, t->ndim, t->shape, NULL, 0};
    dmls_window w = {zeros, t->shape, ones};
    RETURN_IF_ERROR(dmls_create(t, &out, &w, &whole));
    for (int i = 0; i < t->ndim; i++) {
        s->shape[i] = t->shape[i];
        s->strides[i] = whole->problem.in.strides[i];
    }
    s->in_bytes = whole->needs.in_bytes;
    dmls_destroy(whole);
    s->view = *t;
    s->view.shape = s->shape;
    s->view.strides = s->strides;
    return DMLS_OK;
}

/* The operator copying a piece of shape `shape` read through the input's
 * strides from byte_offset, into a packed output. */
static dmls_status piece_op(const source *s, const int64_t *shape, uint64_t byte_offset, dmls_operator **op) {
    const int64_t ones[DMLS_MAX_RANK] = {1, 1, 1, 1, 1, 1, 1, 1}, zeros[DMLS_MAX_RANK] = {0};
    dmls_tensor in = s->view, out = {s->view.dtype, s->view.ndim, shape, NULL, 0};
    in.shape = shape;
    in.byte_offset = byte_offset;
    dmls_window w = {zeros, shape, ones};
    return dmls_create(&in, &out, &w, op);
}

static uint64_t packed_bytes(const source *s, const int64_t *shape) {
    uint64_t n = (uint64_t)s->esize; /* fits: a part of the validated input */
    for (int i = 0; i < s->view.ndim; i++) n *= (uint64_t)shape[i];
    return n;
}

/* ------------------------------------------------------------ split */

static dmls_status check_split(const source *s, int32_t axis, const int64_t *sizes, size_t n, int32_t *k) {
    const int32_t r = s->view.ndim;
    RETURN_IF(r < 1 || axis < -r || axis > r - 1, DMLS_ERROR_INVALID_ARGUMENT, "R-SPLIT-AXIS",
              "split: axis %d is outside [-%d, %d] for an input of rank %d", (int)axis, (int)r, (int)r - 1, (int)r);
    *k = axis < 0 ? axis + r : axis;
    RETURN_IF(sizes == NULL && n > 0, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "split: sizes is NULL with n %zu", n);
    RETURN_IF(n == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-SPLIT-COUNT", "split: no outputs");
    RETURN_IF(n > UINT32_MAX, DMLS_ERROR_INVALID_ARGUMENT, "R-SPLIT-COUNT", "split: %zu outputs", n);
    int64_t sum = 0;
    for (size_t j = 0; j < n; j++) {
        RETURN_IF(sizes[j] < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-SPLIT-SUM",
                  "split: sizes[%zu] = %" PRId64 " is negative", j, sizes[j]);
        RETURN_IF(dmls_add_i64(sum, sizes[j], &sum) || sum > s->shape[*k], DMLS_ERROR_SHAPE_MISMATCH, "R-SPLIT-SUM",
                  "split: sizes[0..%zu] sum past the axis length %" PRId64 " (axis %d)", j, s->shape[*k], (int)*k);
    }
    RETURN_IF(sum != s->shape[*k], DMLS_ERROR_SHAPE_MISMATCH, "R-SPLIT-SUM",
              "split: sizes sum to %" PRId64 " but axis %d has length %" PRId64, sum, (int)*k, s->shape[*k]);
    return DMLS_OK;
}

/* Items of a split; ops receives the operators made (at most n). */
static dmls_status split_items(const source *s, int32_t k, const int64_t *sizes, size_t n, int one_output,
                               dmls_batch_item *items, dmls_operator **ops, size_t *n_ops) {
    /* Bytes per step along the axis, modulo 2^64: exact wherever a piece
     * has elements (then validation proved its shift fits), unused elsewhere. */
    const int64_t stride = dmls_wrap_mul3(1, s->strides[k], s->esize);
    int64_t begin = 0;
    uint64_t out_at = 0;
    int64_t shape[DMLS_MAX_RANK];
    memcpy(shape, s->shape, sizeof shape);
    for (size_t j = 0; j < n; j++) {
        shape[k] = sizes[j];
        dmls_batch_item *it = &items[j];
        /* The shift begin * stride is an element's, so it fits (validated
         * input); an empty piece has no element and needs no shift. */
        bool empty = false;
        for (int i = 0; i < s->view.ndim; i++) empty |= shape[i] == 0;
        const int64_t shift = empty ? 0 : dmls_wrap_mul3(1, begin, stride);
        const bool share = s->strides[k] >= 0 && j > 0 && (sizes[j] == sizes[j - 1] || sizes[j] == sizes[0]);
        if (share) {
            it->op = sizes[j] == sizes[j - 1] ? items[j - 1].op : items[0].op;
        } else {
            const uint64_t at =
                s->strides[k] >= 0 ? s->view.byte_offset : (uint64_t)((int64_t)s->view.byte_offset + shift);
            RETURN_IF_ERROR(piece_op(s, shape, at, &ops[*n_ops]));
            it->op = ops[(*n_ops)++];
        }
        it->in_slot = 0;
        it->in_offset = s->strides[k] >= 0 ? (uint64_t)shift : 0;
        it->out_slot = one_output ? 0 : (uint32_t)j;
        it->out_offset = one_output ? out_at : 0;
        out_at += packed_bytes(s, shape);
        begin += sizes[j];
    }
    return DMLS_OK;
}

dmls_status dmls_batch_create_split(const dmls_tensor *input, int32_t axis, const int64_t *sizes, size_t n,
                                    int one_output, dmls_batch **batch) {
    dmls_clear_error();
    RETURN_IF(batch == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "split: batch (the result pointer) is NULL");
    *batch = NULL;
    source s;
    int32_t k = 0;
    RETURN_IF_ERROR(resolve("split", input, &s));
    RETURN_IF_ERROR(check_split(&s, axis, sizes, n, &k));
    dmls_batch_item *items = calloc(n, sizeof *items);
    dmls_operator **ops = calloc(n, sizeof *ops);
    size_t n_ops = 0;
    dmls_status st = items && ops ? DMLS_OK : dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "split: out of memory");
    if (st == DMLS_OK) st = split_items(&s, k, sizes, n, one_output, items, ops, &n_ops);
    if (st != DMLS_OK) {
        for (size_t j = 0; j < n_ops; j++) dmls_destroy(ops[j]);
        free(ops);
        free(items);
        return st;
    }
    st = dmls_batch_build(items, n, 1, one_output ? 1 : (uint32_t)n, ops, n_ops, NULL, batch);
    free(items);
    return st;
}

/* ------------------------------------------------------------ crops */

/* Checks size (R-CROP-SIZE) and fills the crops' shared geometry. */
static dmls_status crop_geometry(const source *s, const int64_t *size, dmls_batch_bound_crops *c, bool *empty) {
    const int32_t r = s->view.ndim;
    RETURN_IF(r > 0 && size == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "crops: size is NULL with rank %d",
              (int)r);
    memset(c, 0, sizeof *c);
    c->rank = r;
    *empty = false;
    int64_t low = 0; /* the lowest shift any crop can have, in bytes (<= 0) */
    for (int k = 0; k < r; k++) {
        RETURN_IF(size[k] < 0 || size[k] > s->shape[k], DMLS_ERROR_OUT_OF_BOUNDS, "R-CROP-SIZE",
                  "crops: size[%d] = %" PRId64 " is outside [0, %" PRId64 "] (input axis %d)", k, size[k], s->shape[k],
                  k);
        c->dim[k] = s->shape[k];
        c->size[k] = size[k];
        *empty |= size[k] == 0;
    }
    /* Only an axis a crop can move along has a step: there the input has 2
     * or more elements, so validation proved stride * (dim - 1) bytes fit. */
    for (int k = 0; k < r && !*empty; k++) {
        c->stride_bytes[k] = c->dim[k] > c->size[k] ? s->strides[k] * s->esize : 0;
        if (c->stride_bytes[k] < 0) low += (c->dim[k] - c->size[k]) * c->stride_bytes[k];
    }
    c->base_offset = -low;
    return DMLS_OK;
}

static dmls_status crop_offsets(const dmls_batch_bound_crops *c, size_t n, const void *starts, dmls_starts_type type,
                                bool empty, dmls_batch_item *items) {
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < c->rank; k++) {
            const int64_t v = dmls_batch_read_start(starts, type, i * (size_t)c->rank + (size_t)k);
            RETURN_IF(v < 0 || v > c->dim[k] - c->size[k], DMLS_ERROR_OUT_OF_BOUNDS, "R-CROP-BOUNDS",
                      "crops: crop %zu: start[%d] = %" PRId64 " with size %" PRId64 " reaches outside [0, %" PRId64
                      ") (axis %d)",
                      i, k, v, c->size[k], c->dim[k], k);
        }
        items[i].in_offset = empty ? 0 : dmls_batch_crop_offset(c, starts, i);
    }
    return DMLS_OK;
}

dmls_status dmls_batch_create_crops(const dmls_tensor *input, const int64_t *size, size_t n, const void *starts,
                                    dmls_starts_type starts_type, dmls_batch **batch) {
    dmls_clear_error();
    RETURN_IF(batch == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "crops: batch (the result pointer) is NULL");
    *batch = NULL;
    RETURN_IF(starts_type != DMLS_STARTS_INT32 && starts_type != DMLS_STARTS_INT64, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "crops: starts_type %d is neither DMLS_STARTS_INT32 nor DMLS_STARTS_INT64", (int)starts_type);
    source s;
    dmls_batch_bound_crops c;
    bool empty = false;
    RETURN_IF_ERROR(resolve("crops", input, &s));
    RETURN_IF_ERROR(crop_geometry(&s, size, &c, &empty));
    c.width = (int32_t)starts_type;
    const uint64_t crop_bytes = packed_bytes(&s, size);
    RETURN_IF(n > 0 && crop_bytes > UINT64_MAX / n, DMLS_ERROR_OVERFLOW, "R-CROP-SIZE",
              "crops: %zu crops of %" PRIu64 " bytes overflow 64 bits", n, crop_bytes);
    RETURN_IF(starts == NULL && n > SIZE_MAX / 8 / DMLS_MAX_RANK, DMLS_ERROR_OVERFLOW, NULL, "crops: %zu crops", n);
    dmls_operator **ops = calloc(1, sizeof *ops);
    dmls_batch_item *items = calloc(n ? n : 1, sizeof *items);
    dmls_status st = ops && items ? DMLS_OK : dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "crops: out of memory");
    const uint64_t at = empty ? s.view.byte_offset : s.view.byte_offset - (uint64_t)c.base_offset;
    if (st == DMLS_OK) st = piece_op(&s, size, at, ops);
    if (st == DMLS_OK && starts != NULL) st = crop_offsets(&c, n, starts, starts_type, empty, items);
    if (st != DMLS_OK) {
        if (ops) dmls_destroy(ops[0]);
        free(ops);
        free(items);
        return st;
    }
    for (size_t i = 0; i < n; i++) items[i].op = ops[0], items[i].out_offset = i * crop_bytes;
    c.on = starts == NULL;
    c.in_bytes = s.in_bytes;
    st = dmls_batch_build(items, n, c.on ? 2 : 1, 1, ops, 1, &c, batch);
    free(items);
    return st;
}
