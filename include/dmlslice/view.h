/*
 * dmlslice/view.h: importing a byte-strided view (NumPy's strides, the
 * array interface's, DLPack's element strides times the item size) as the
 * native API's tensor, and a DLPack tensor (dmls_dlpack_import) as such a
 * view.
 *
 * The native API counts strides in elements; an array library counts them in
 * bytes, and a byte stride need not be a multiple of the item size (a field of
 * a record array, np.lib.stride_tricks). The import reads such a view as
 * elements of a copy unit: the largest of 8, 4, 2, 1 bytes that divides the
 * item size and every byte stride, an element being item_size / unit units.
 * A copy between two views needs one unit for both: dmls_view_unit narrows a
 * unit shared by several views.
 *
 * The offset is normalised: the tensor's base is the lowest byte the view
 * touches (element 0 for non-negative strides), so a view with negative
 * strides binds the buffer at data - byte_offset. The native tensor is
 *   dmls_tensor t = {v.dtype, v.ndim, v.shape, v.strides, v.byte_offset}; Rules (docs/spec.md §5):
 * R-V-RANK, R-V-SIZES, R-V-UNIT, R-V-EXTENT; every failure names the rule,
 * the axis and the values in dmls_last_error().
 */
#ifndef DMLSLICE_VIEW_H
#define DMLSLICE_VIEW_H

#include <stdint.h>

#include "dmlslice.h"
#include "frontends.h" /* DMLS_NUMPY_MAX_RANK */

#ifdef __cplusplus
extern "C" {
#endif

/* A view as an array library describes it. */
typedef struct dmls_byte_view {
    int32_t ndim;                /* 0 to DMLS_MAX_RANK */
    const int64_t *shape;        /* ndim sizes, each >= 0 */
    const int64_t *byte_strides; /* ndim signed byte strides (any value on an axis of size 0 or 1) */
    int64_t item_size;           /* bytes of one element, >= 1 */
} dmls_byte_view;

/* The view as the native API takes it, in elements of `unit` bytes. */
typedef struct dmls_imported_view {
    dmls_dtype dtype;               /* the unsigned integer type of unit bytes */
    int32_t ndim;                   /* the view's */
    int64_t shape[DMLS_MAX_RANK];   /* the view's */
    int64_t strides[DMLS_MAX_RANK]; /* in units; 0 on an axis of size 0 or 1, which moves no address */
    int64_t units_per_item;         /* item_size / unit: an element is copied as this many units */
    uint64_t byte_offset;           /* from the lowest byte the view touches to element 0 */
    uint64_t bytes;                 /* from that byte to the byte after the highest one; 0 when empty */
} dmls_imported_view;

/* Narrows *unit (on entry 8, or a unit another view already gave) to the
 * largest power of two no larger that divides v's item size and every byte
 * stride of an axis longer than 1. v may have up to DMLS_NUMPY_MAX_RANK (64)
 * axes, as an array dmls_lower_numpy_view folds does. Returns DMLS_OK, or
 * DMLS_ERROR_INVALID_ARGUMENT when v or unit is NULL or *unit is not 1, 2, 4
 * or 8 (R-V-UNIT), or what dmls_view_import reports of v's rank and sizes. */
DMLS_API dmls_status dmls_view_unit(const dmls_byte_view *v, int64_t *unit);

/* Imports v in elements of `unit` bytes into *out. Returns DMLS_OK,
 * DMLS_ERROR_INVALID_ARGUMENT (a NULL pointer, a rank outside [0, 8]: R-V-RANK;
 * a negative size or an item size below 1: R-V-SIZES; a unit that is not 1, 2, 4
 * or 8 or does not divide the item size or a stride: R-V-UNIT) or
 * DMLS_ERROR_OVERFLOW (the view's bytes do not fit 63 bits: R-V-EXTENT). On
 * failure *out is left zeroed. */
DMLS_API dmls_status dmls_view_import(const dmls_byte_view *v, int64_t unit, dmls_imported_view *out);

/* DLPack's DLTensor (ABI 1.x), field for field, so that a DLTensor's
 * address may be passed where this is taken: the element at coordinates
 * (c_0, ...) lives at data + byte_offset + item_size * sum c_i * strides[i],
 * with item_size = bits * lanes / 8 and strides in elements (NULL: packed,
 * row-major). device_type is DLPack's (1 CPU, 2 CUDA, 3 CUDA host, ...). */
typedef struct dmls_dlpack_tensor {
    void *data;
    struct {
        int32_t device_type;
        int32_t device_id;
    } device;
    int32_t ndim;
    struct {
        uint8_t code; /* 0 int, 1 uint, 2 float, 4 bfloat, 5 complex, 6 bool */
        uint8_t bits;
        uint16_t lanes;
    } dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} dmls_dlpack_tensor;

/* A DLPack tensor as a byte-strided view: dmls_byte_view v = {d.ndim,
 * d.shape, d.byte_strides, d.item_size} then goes to dmls_view_unit and
 * dmls_view_import, and d.data is the address of element 0. */
typedef struct dmls_dlpack_view {
    void *data;          /* the tensor's data + byte_offset: element 0 */
    int32_t device_type; /* the tensor's, as DLPack numbers them */
    int32_t device_id;
    dmls_dtype dtype; /* the type of the same code and bits (lanes 1), or 0 for one dmlslice
                         does not name (bool, bfloat16, complex, vectors): its bytes copy all the same */
    int64_t item_size; /* bits * lanes / 8 */
    int32_t ndim;
    int64_t shape[DMLS_NUMPY_MAX_RANK];
    int64_t byte_strides[DMLS_NUMPY_MAX_RANK]; /* element strides times item_size */
} dmls_dlpack_view;

/* Reads t into *out. Returns DMLS_OK, DMLS_ERROR_INVALID_ARGUMENT (t or out
 * NULL, or a NULL shape: R-V-DLPACK; a rank outside [0, 64]: R-V-RANK; an
 * element that is not whole bytes: R-V-DLPACK-TYPE; a negative size:
 * R-V-SIZES) or
 * DMLS_ERROR_OVERFLOW (a byte stride or the address of element 0 does not
 * fit: R-V-EXTENT). On failure *out is left zeroed. */
DMLS_API dmls_status dmls_dlpack_import(const dmls_dlpack_tensor *t, dmls_dlpack_view *out);

#ifdef __cplusplus
}
#endif

#endif
