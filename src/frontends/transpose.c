/* ONNX Transpose, WebNN transpose and NumPy np.transpose lowered to a
 * permuted view of the input (docs/spec.md section 9, R-PERM). A transpose
 * moves no element by itself: the view is read by a copy (or any slice
 * lowered over it) like any other strided input. */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "../checked.h"
#include "../error.h"
#include "dmlslice/frontends.h"

/* One front end's names and range: negatives count from the back only
 * where the front end says so (NumPy). */
typedef struct perm_rules {
    const char *name, *arg;
    bool negatives;
} perm_rules;

static const perm_rules ONNX = {"ONNX Transpose", "perm", false};
static const perm_rules WEBNN = {"WebNN transpose", "permutation", false};
static const perm_rules NUMPY = {"NumPy transpose", "axes", true};

/* The input's element strides: given, or packed C order. An empty array
 * addresses nothing, so its packed strides may saturate (NumPy takes
 * (0, 2**32, 2**32, 4)); a non-empty one that overflows is refused. */
static dmls_status input_strides(const perm_rules *r, int32_t ndim, const int64_t *shape, const int64_t *strides,
                                 int64_t *t) {
    bool empty = false;
    for (int32_t i = 0; i < ndim; i++) empty |= shape[i] == 0;
    int64_t packed = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        if (strides) {
            t[i] = strides[i];
            continue;
        }
        t[i] = packed;
        if (dmls_mul_i64(packed, shape[i] ? shape[i] : 1, &packed)) {
            RETURN_IF(!empty, DMLS_ERROR_OVERFLOW, "R-FE-OVERFLOW", "%s: the input's element count overflows 64 bits", r->name);
            packed = INT64_MAX;
        }
    }
    return DMLS_OK;
}

/* signed_perm or unsigned_perm (WebNN's values) holds the entries. */
static dmls_status lower_transpose(const perm_rules *r, int32_t ndim, const int64_t *shape, const int64_t *strides,
                                   const int64_t *signed_perm, const uint64_t *unsigned_perm, int32_t n,
                                   dmls_transposed *out) {
    RETURN_IF(out == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-FE-INPUT", "%s: the result pointer is NULL", r->name);
    memset(out, 0, sizeof *out);
    RETURN_IF(ndim < 0 || ndim > DMLS_NUMPY_MAX_RANK, DMLS_ERROR_UNSUPPORTED, "R-FE-INPUT",
              "%s: input rank %d is outside 0 to %d", r->name, (int)ndim, DMLS_NUMPY_MAX_RANK);
    RETURN_IF(ndim > 0 && shape == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-FE-INPUT", "%s: input shape is NULL with rank %d",
              r->name, (int)ndim);
    for (int32_t i = 0; i < ndim; i++)
        RETURN_IF(shape[i] < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-FE-INPUT", "%s: input shape[%d] = %" PRId64 " is negative",
                  r->name, (int)i, shape[i]);
    const bool given = signed_perm != NULL || unsigned_perm != NULL;
    RETURN_IF(given && n != ndim, DMLS_ERROR_INVALID_ARGUMENT, "R-PERM",
              "%s: %s has %d value%s but the input has rank %d; it names each axis once", r->name, r->arg, (int)n,
              n == 1 ? "" : "s", (int)ndim);
    int64_t t[DMLS_NUMPY_MAX_RANK];
    RETURN_IF_ERROR(input_strides(r, ndim, shape, strides, t));
    bool seen[DMLS_NUMPY_MAX_RANK] = {false};
    const int64_t lo = r->negatives ? -(int64_t)ndim : 0;
    for (int32_t i = 0; i < ndim; i++) {
        int64_t axis = ndim - 1 - i; /* the default: the axes reversed */
        if (unsigned_perm) {
            RETURN_IF(unsigned_perm[i] >= (uint64_t)ndim, DMLS_ERROR_INVALID_ARGUMENT, "R-PERM",
                      "%s: %s[%d] = %" PRIu64 " is outside [0, %d] for an input of rank %d", r->name, r->arg, (int)i,
                      unsigned_perm[i], (int)ndim - 1, (int)ndim);
            axis = (int64_t)unsigned_perm[i];
        } else if (signed_perm) {
            RETURN_IF(signed_perm[i] < lo || signed_perm[i] >= ndim, DMLS_ERROR_INVALID_ARGUMENT, "R-PERM",
                      "%s: %s[%d] = %" PRId64 " is outside [%" PRId64 ", %d] for an input of rank %d", r->name, r->arg,
                      (int)i, signed_perm[i], lo, (int)ndim - 1, (int)ndim);
            axis = signed_perm[i] < 0 ? signed_perm[i] + ndim : signed_perm[i];
        }
        RETURN_IF(seen[axis], DMLS_ERROR_INVALID_ARGUMENT, "R-PERM", "%s: %s[%d] = %" PRId64 " names axis %d a second time",
                  r->name, r->arg, (int)i, unsigned_perm ? (int64_t)unsigned_perm[i] : signed_perm[i], (int)axis);
        seen[axis] = true;
        out->perm[i] = (int32_t)axis;
        out->shape[i] = shape[axis];
        out->strides[i] = t[axis];
    }
    out->ndim = ndim;
    return DMLS_OK;
}

static dmls_status finish(dmls_status s, dmls_transposed *out) {
    if (s != DMLS_OK && out != NULL) memset(out, 0, sizeof *out);
    return s;
}

dmls_status dmls_lower_onnx_transpose(int32_t ndim, const int64_t *shape, const int64_t *strides, const int64_t *perm,
                                      int32_t n_perm, dmls_transposed *out) {
    dmls_clear_error();
    return finish(lower_transpose(&ONNX, ndim, shape, strides, perm, NULL, n_perm, out), out);
}

dmls_status dmls_lower_webnn_transpose(int32_t ndim, const int64_t *shape, const int64_t *strides,
                                       const uint64_t *permutation, int32_t n_perm, dmls_transposed *out) {
    dmls_clear_error();
    return finish(lower_transpose(&WEBNN, ndim, shape, strides, NULL, permutation, n_perm, out), out);
}

dmls_status dmls_lower_numpy_transpose(int32_t ndim, const int64_t *shape, const int64_t *strides, const int64_t *axes,
                                       int32_t n_axes, dmls_transposed *out) {
    dmls_clear_error();
    return finish(lower_transpose(&NUMPY, ndim, shape, strides, axes, NULL, n_axes, out), out);
}

dmls_tensor dmls_transposed_tensor(const dmls_transposed *t, dmls_dtype dtype, uint64_t byte_offset) {
    if (t == NULL) return (dmls_tensor){dtype, 0, NULL, NULL, byte_offset};
    dmls_tensor v = {dtype, t->ndim, t->shape, t->strides, byte_offset};
    return v;
}
