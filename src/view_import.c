/* view_import.c: byte-strided views (an array library's) as native tensors
 * of a copy unit (include/dmlslice/view.h; docs/spec.md §5, R-V-*). */
#include <string.h>

#include "checked.h"
#include "error.h"

#include "dmlslice/frontends.h" /* DMLS_NUMPY_MAX_RANK */
#include "dmlslice/view.h"

static int is_unit(int64_t u) { return u == 1 || u == 2 || u == 4 || u == 8; }

/* R-V-RANK and R-V-SIZES: what every later step reads. */
static dmls_status check_shape(const dmls_byte_view *v, int max_rank) {
    RETURN_IF(!v, DMLS_ERROR_INVALID_ARGUMENT, "R-V-RANK", "view: the view is NULL");
    RETURN_IF(v->ndim < 0 || v->ndim > max_rank, DMLS_ERROR_INVALID_ARGUMENT, "R-V-RANK",
              "view: rank %d is outside [0, %d]", (int)v->ndim, max_rank);
    RETURN_IF(v->ndim > 0 && (!v->shape || !v->byte_strides), DMLS_ERROR_INVALID_ARGUMENT, "R-V-RANK",
              "view: rank %d with a NULL %s", (int)v->ndim, v->shape ? "byte_strides" : "shape");
    RETURN_IF(v->item_size < 1, DMLS_ERROR_INVALID_ARGUMENT, "R-V-SIZES", "view: item_size %lld is below 1",
              (long long)v->item_size);
    for (int i = 0; i < v->ndim; i++)
        RETURN_IF(v->shape[i] < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-V-SIZES", "view: shape[%d] = %lld is negative", i,
                  (long long)v->shape[i]);
    return DMLS_OK;
}

dmls_status dmls_view_unit(const dmls_byte_view *v, int64_t *unit) {
    dmls_clear_error();
    RETURN_IF_ERROR(check_shape(v, DMLS_NUMPY_MAX_RANK));
    RETURN_IF(!unit || !is_unit(*unit), DMLS_ERROR_INVALID_ARGUMENT, "R-V-UNIT",
              "view: the unit to narrow is %s%lld, not 1, 2, 4 or 8", unit ? "" : "NULL, ",
              unit ? (long long)*unit : 0LL);
    /* A power of two divides x exactly when x has no lower bit set. */
    uint64_t bits = (uint64_t)v->item_size;
    for (int i = 0; i < v->ndim; i++)
        if (v->shape[i] > 1) bits |= (uint64_t)v->byte_strides[i];
    while (bits & (uint64_t)(*unit - 1)) *unit /= 2;
    return DMLS_OK;
}

/* R-V-EXTENT: the byte span, and the lowest byte's distance below element 0,
 * each in 63 bits. */
static dmls_status extent(const dmls_byte_view *v, dmls_imported_view *out) {
    uint64_t below = 0, above = 0;
    for (int i = 0; i < v->ndim; i++) {
        if (v->shape[i] < 2) continue;
        uint64_t reach;
        uint64_t *side = v->byte_strides[i] < 0 ? &below : &above;
        RETURN_IF(dmls_mul_u64((uint64_t)(v->shape[i] - 1), dmls_abs_i64(v->byte_strides[i]), &reach) ||
                      dmls_add_u64(*side, reach, side) || *side > INT64_MAX,
                  DMLS_ERROR_OVERFLOW, "R-V-EXTENT",
                  "view: axis %d (size %lld, byte stride %lld) reaches past 2^63 - 1 bytes", i, (long long)v->shape[i],
                  (long long)v->byte_strides[i]);
    }
    uint64_t bytes;
    RETURN_IF(dmls_add_u64(below, above, &bytes) || dmls_add_u64(bytes, (uint64_t)v->item_size, &bytes) ||
                  bytes > INT64_MAX,
              DMLS_ERROR_OVERFLOW, "R-V-EXTENT",
              "view: %llu bytes below element 0, %llu above and an item of %lld "
              "span more than 2^63 - 1 bytes",
              (unsigned long long)below, (unsigned long long)above, (long long)v->item_size);
    out->byte_offset = below;
    out->bytes = bytes;
    return DMLS_OK;
}

static dmls_status import(const dmls_byte_view *v, int64_t unit, dmls_imported_view *out) {
    RETURN_IF(!out, DMLS_ERROR_INVALID_ARGUMENT, "R-V-RANK", "view: out is NULL");
    RETURN_IF_ERROR(check_shape(v, DMLS_MAX_RANK));
    RETURN_IF(!is_unit(unit) || v->item_size % unit, DMLS_ERROR_INVALID_ARGUMENT, "R-V-UNIT",
              "view: unit %lld is not 1, 2, 4 or 8 dividing the item size %lld", (long long)unit,
              (long long)v->item_size);
    int empty = 0;
    for (int i = 0; i < v->ndim; i++) {
        empty |= v->shape[i] == 0;
        int64_t st = v->shape[i] > 1 ? v->byte_strides[i] : 0;
        RETURN_IF(st % unit, DMLS_ERROR_INVALID_ARGUMENT, "R-V-UNIT",
                  "view: byte stride %lld of axis %d is no multiple of the unit %lld", (long long)st, i,
                  (long long)unit);
        out->shape[i] = v->shape[i];
        out->strides[i] = st / unit;
    }
    if (!empty) RETURN_IF_ERROR(extent(v, out));
    out->ndim = v->ndim;
    out->dtype = unit == 1 ? DMLS_UINT8 : unit == 2 ? DMLS_UINT16 : unit == 4 ? DMLS_UINT32 : DMLS_UINT64;
    out->units_per_item = v->item_size / unit;
    return DMLS_OK;
}

dmls_status dmls_view_import(const dmls_byte_view *v, int64_t unit, dmls_imported_view *out) {
    dmls_clear_error();
    if (out) memset(out, 0, sizeof *out);
    dmls_status st = import(v, unit, out);
    if (st != DMLS_OK && out) memset(out, 0, sizeof *out);
    return st;
}
