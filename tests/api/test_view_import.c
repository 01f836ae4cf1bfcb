/* The view import of include/dmlslice/view.h: byte strides to a native
 * tensor of a copy unit, its offset normalised, and each of its rules
 * (R-V-RANK, R-V-SIZES, R-V-UNIT, R-V-EXTENT) with its message. */
#include <string.h>

#include "dmlslice/view.h"
#include "support/test.h"

static dmls_status import_view(int ndim, const int64_t *shape, const int64_t *bstrides, int64_t item, int64_t unit,
                               dmls_imported_view *out) {
    dmls_byte_view v = {ndim, shape, bstrides, item};
    return dmls_view_import(&v, unit, out);
}

/* Packed, reversed and record-field views, and the unit two views share. */
static void test_view_layouts(void) {
    dmls_imported_view iv;
    int64_t shape[2] = {2, 3}, packed[2] = {12, 4};
    CHECK_STATUS(import_view(2, shape, packed, 4, 4, &iv), DMLS_OK);
    CHECK(iv.dtype == DMLS_UINT32 && iv.strides[0] == 3 && iv.strides[1] == 1 && iv.byte_offset == 0 &&
              iv.bytes == 24 && iv.units_per_item == 1,
          "packed 2x3 float32: dtype %d strides %lld %lld offset %llu bytes %llu", iv.dtype, (long long)iv.strides[0],
          (long long)iv.strides[1], (unsigned long long)iv.byte_offset, (unsigned long long)iv.bytes);
    int64_t rshape[2] = {4, 1}, reversed[2] = {-8, 3};
    CHECK_STATUS(import_view(2, rshape, reversed, 8, 8, &iv), DMLS_OK);
    CHECK(iv.strides[0] == -1 && iv.strides[1] == 0 && iv.byte_offset == 24 && iv.bytes == 32,
          "reversed 4 int64: stride %lld offset %llu bytes %llu", (long long)iv.strides[0],
          (unsigned long long)iv.byte_offset, (unsigned long long)iv.bytes);
    /* A 4-byte field every 6 bytes: 2-byte units, two to an element. */
    int64_t fshape[1] = {5}, field[1] = {6}, unit = 8;
    dmls_byte_view fv = {1, fshape, field, 4};
    CHECK_STATUS(dmls_view_unit(&fv, &unit), DMLS_OK);
    CHECK(unit == 2, "unit of a 4-byte item every 6 bytes: %lld, expected 2", (long long)unit);
    CHECK_STATUS(dmls_view_import(&fv, unit, &iv), DMLS_OK);
    CHECK(iv.dtype == DMLS_UINT16 && iv.strides[0] == 3 && iv.units_per_item == 2 && iv.bytes == 28,
          "field view: dtype %d stride %lld units %lld bytes %llu", iv.dtype, (long long)iv.strides[0],
          (long long)iv.units_per_item, (unsigned long long)iv.bytes);
    dmls_byte_view pv = {2, shape, packed, 4};
    unit = 8;
    CHECK_STATUS(dmls_view_unit(&pv, &unit), DMLS_OK);
    CHECK_STATUS(dmls_view_unit(&fv, &unit), DMLS_OK);
    CHECK(unit == 2, "the unit shared by a packed float32 view and the field view: %lld, expected 2", (long long)unit);
    int64_t eshape[2] = {0, 7}, estr[2] = {-56, 8};
    CHECK_STATUS(import_view(2, eshape, estr, 8, 8, &iv), DMLS_OK);
    CHECK(iv.bytes == 0 && iv.byte_offset == 0, "an empty view spans %llu bytes from offset %llu",
          (unsigned long long)iv.bytes, (unsigned long long)iv.byte_offset);
    CHECK_STATUS(import_view(0, NULL, NULL, 2, 2, &iv), DMLS_OK);
    CHECK(iv.bytes == 2 && iv.ndim == 0, "a scalar of 2 bytes spans %llu", (unsigned long long)iv.bytes);
}

/* Each rule's failure: its status, rule ID and values, and *out zeroed. */
static void test_view_rules(void) {
    dmls_imported_view iv, zero;
    memset(&zero, 0, sizeof zero);
    int64_t shape[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2}, st[9] = {8, 8, 8, 8, 8, 8, 8, 8, 8};
    CHECK_STATUS(import_view(9, shape, st, 8, 8, &iv), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-RANK", "rank 9", "[0, 8]");
    CHECK_STATUS(import_view(1, NULL, st, 8, 8, &iv), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-RANK", "NULL shape");
    int64_t neg[1] = {-3};
    CHECK_STATUS(import_view(1, neg, st, 8, 8, &iv), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-SIZES", "shape[0] = -3");
    CHECK_STATUS(import_view(1, shape, st, 0, 1, &iv), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-SIZES", "item_size 0");
    CHECK_STATUS(import_view(1, shape, st, 8, 3, &iv), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-UNIT", "unit 3");
    int64_t odd[1] = {12};
    CHECK_STATUS(import_view(1, shape, odd, 8, 8, &iv), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-UNIT", "byte stride 12 of axis 0", "unit 8");
    CHECK(memcmp(&iv, &zero, sizeof iv) == 0, "a failed import left *out written");
    int64_t unit = 5;
    dmls_byte_view v = {1, shape, st, 8};
    CHECK_STATUS(dmls_view_unit(&v, &unit), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-UNIT", "5, not 1, 2, 4 or 8");
    /* The unit of a NumPy array of up to 64 axes, for dmls_lower_numpy_view's fold. */
    int64_t many[65], many_st[65];
    for (int i = 0; i < 65; i++) many[i] = 2, many_st[i] = 16;
    many_st[63] = 4;
    dmls_byte_view m64 = {64, many, many_st, 8}, m65 = {65, many, many_st, 8};
    unit = 8;
    CHECK_STATUS(dmls_view_unit(&m64, &unit), DMLS_OK);
    CHECK(unit == 4, "the unit of a 64-axis view with one stride of 4: %lld", (long long)unit);
    CHECK_STATUS(dmls_view_unit(&m65, &unit), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-RANK", "rank 65", "[0, 64]");
    int64_t big[2] = {INT64_C(1) << 61, 3}, wide[2] = {8, -(INT64_C(1) << 61)};
    CHECK_STATUS(import_view(1, big, wide, 8, 8, &iv), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-V-EXTENT", "axis 0", "byte stride 8");
    /* Each side fits; below + above + the item does not. */
    int64_t two[2] = {2, 2}, split[2] = {INT64_C(1) << 62, -(INT64_C(1) << 62)};
    CHECK_STATUS(import_view(2, two, split, 8, 8, &iv), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-V-EXTENT", "bytes below element 0");
    CHECK(memcmp(&iv, &zero, sizeof iv) == 0, "a failed import left *out written");
    CHECK_STATUS(dmls_view_import(NULL, 8, &iv), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(import_view(1, shape, st, 8, 8, NULL), DMLS_ERROR_INVALID_ARGUMENT);
}

int main(void) {
    test_view_layouts();
    test_view_rules();
    TEST_MAIN_END();
}
