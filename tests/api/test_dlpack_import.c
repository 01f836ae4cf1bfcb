/* The DLPack import of include/dmlslice/view.h: a DLTensor as a
 * byte-strided view (element strides times the item size, packed strides
 * where none are given, element 0 at data + byte_offset, the type by code
 * and bits), then through dmls_view_import as a native tensor; and each of
 * its rules (R-V-DLPACK, R-V-DLPACK-TYPE, R-V-RANK, R-V-SIZES, R-V-EXTENT) with its
 * message, *out left zeroed on failure. */
#include <stddef.h>
#include <string.h>

#include "dmlslice/view.h"
#include "support/test.h"

/* The struct is DLPack's DLTensor field for field (its ABI 1.x offsets on
 * a 64-bit target), so a DLTensor's address can be passed as it is. */
static void test_layout(void) {
    if (sizeof(void *) != 8) return;
    CHECK(offsetof(dmls_dlpack_tensor, device) == 8 && offsetof(dmls_dlpack_tensor, ndim) == 16 &&
              offsetof(dmls_dlpack_tensor, dtype) == 20 && offsetof(dmls_dlpack_tensor, shape) == 24 &&
              offsetof(dmls_dlpack_tensor, strides) == 32 && offsetof(dmls_dlpack_tensor, byte_offset) == 40 &&
              sizeof(dmls_dlpack_tensor) == 48,
          "dmls_dlpack_tensor's layout differs from DLTensor's");
}

static dmls_dlpack_tensor tensor(void *data, int ndim, int64_t *shape, int64_t *strides, unsigned code,
                                 unsigned bits, unsigned lanes, uint64_t offset) {
    dmls_dlpack_tensor t;
    memset(&t, 0, sizeof t);
    t.data = data, t.ndim = ndim, t.shape = shape, t.strides = strides, t.byte_offset = offset;
    t.device.device_type = 2, t.device.device_id = 3;
    t.dtype.code = (uint8_t)code, t.dtype.bits = (uint8_t)bits, t.dtype.lanes = (uint16_t)lanes;
    return t;
}

/* Packed and strided tensors, their types, and the view they make. */
static void test_import(void) {
    static float buf[64];
    dmls_dlpack_view d;
    int64_t shape[3] = {2, 3, 4};
    dmls_dlpack_tensor t = tensor(buf, 3, shape, NULL, 2, 32, 1, 8);
    CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_OK);
    CHECK(d.data == (char *)buf + 8 && d.dtype == DMLS_FLOAT32 && d.item_size == 4 && d.ndim == 3 &&
              d.device_type == 2 && d.device_id == 3,
          "packed float32: data +%td dtype %d item %lld ndim %d device %d:%d", (char *)d.data - (char *)buf, d.dtype,
          (long long)d.item_size, d.ndim, d.device_type, d.device_id);
    CHECK(d.byte_strides[0] == 48 && d.byte_strides[1] == 16 && d.byte_strides[2] == 4 && d.shape[2] == 4,
          "packed strides: %lld %lld %lld", (long long)d.byte_strides[0], (long long)d.byte_strides[1],
          (long long)d.byte_strides[2]);
    /* A transposed, reversed float16 view: element strides scale by 2. */
    int64_t s2[2] = {3, 2}, st2[2] = {-1, 3};
    t = tensor(buf, 2, s2, st2, 2, 16, 1, 4);
    CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_OK);
    CHECK(d.dtype == DMLS_FLOAT16 && d.byte_strides[0] == -2 && d.byte_strides[1] == 6,
          "float16 strides: dtype %d %lld %lld", d.dtype, (long long)d.byte_strides[0], (long long)d.byte_strides[1]);
    /* The view it makes goes on to dmls_view_import as any byte view. */
    dmls_byte_view v = {d.ndim, d.shape, d.byte_strides, d.item_size};
    int64_t unit = 8;
    CHECK_STATUS(dmls_view_unit(&v, &unit), DMLS_OK);
    dmls_imported_view iv;
    CHECK_STATUS(dmls_view_import(&v, unit, &iv), DMLS_OK);
    CHECK(unit == 2 && iv.strides[0] == -1 && iv.strides[1] == 3 && iv.byte_offset == 4,
          "imported: unit %lld strides %lld %lld offset %llu", (long long)unit, (long long)iv.strides[0],
          (long long)iv.strides[1], (unsigned long long)iv.byte_offset);
    /* Every code and width dmlslice names; the rest copy as bytes (type 0). */
    static const struct {
        unsigned code, bits, lanes;
        dmls_dtype want;
        int64_t item;
    } types[] = {
        {0, 8, 1, DMLS_INT8, 1},     {0, 16, 1, DMLS_INT16, 2},   {0, 32, 1, DMLS_INT32, 4},
        {0, 64, 1, DMLS_INT64, 8},   {1, 8, 1, DMLS_UINT8, 1},    {1, 16, 1, DMLS_UINT16, 2},
        {1, 32, 1, DMLS_UINT32, 4},  {1, 64, 1, DMLS_UINT64, 8},  {2, 16, 1, DMLS_FLOAT16, 2},
        {2, 32, 1, DMLS_FLOAT32, 4}, {2, 64, 1, DMLS_FLOAT64, 8}, {2, 8, 1, (dmls_dtype)0, 1},
        {4, 16, 1, (dmls_dtype)0, 2}, {5, 64, 1, (dmls_dtype)0, 8}, {6, 8, 1, (dmls_dtype)0, 1},
        {2, 32, 4, (dmls_dtype)0, 16}, {1, 4, 2, (dmls_dtype)0, 1},
    };
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        t = tensor(buf, 0, NULL, NULL, types[k].code, types[k].bits, types[k].lanes, 0);
        CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_OK);
        CHECK(d.dtype == types[k].want && d.item_size == types[k].item && d.ndim == 0,
              "code %u bits %u lanes %u: dtype %d item %lld, expected %d %lld", types[k].code, types[k].bits,
              types[k].lanes, d.dtype, (long long)d.item_size, types[k].want, (long long)types[k].item);
    }
}

static void test_rules(void) {
    static char buf[16];
    dmls_dlpack_view d, zero;
    memset(&zero, 0, sizeof zero);
    int64_t shape[2] = {2, 3};
    dmls_dlpack_tensor t = tensor(buf, 2, shape, NULL, 1, 8, 1, 0);
    CHECK_STATUS(dmls_dlpack_import(NULL, &d), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-DLPACK", "tensor is NULL");
    CHECK_STATUS(dmls_dlpack_import(&t, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-DLPACK", "result is NULL");
    t.ndim = 65;
    CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-RANK", "rank 65", "[0, 64]");
    t.ndim = -1;
    CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-RANK", "rank -1");
    t = tensor(buf, 2, NULL, NULL, 1, 8, 1, 0);
    CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-DLPACK", "rank 2 with a NULL shape");
    t = tensor(buf, 2, shape, NULL, 0, 4, 1, 0);
    CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-DLPACK-TYPE", "4 bits x 1 lanes", "not whole bytes", "type code 0");
    t = tensor(buf, 2, shape, NULL, 2, 32, 0, 0);
    CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-DLPACK-TYPE", "32 bits x 0 lanes");
    int64_t negative[2] = {2, -3};
    t = tensor(buf, 2, negative, NULL, 1, 8, 1, 0);
    CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-V-SIZES", "shape[1] = -3");
    CHECK(memcmp(&d, &zero, sizeof d) == 0, "a failed import left *out written");
    int64_t wide[2] = {INT64_C(1) << 61, 1};
    t = tensor(buf, 2, shape, wide, 2, 64, 1, 0);
    CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-V-EXTENT", "stride[0] = 2305843009213693952 elements of 8 bytes");
    int64_t huge[3] = {2, INT64_C(1) << 40, INT64_C(1) << 40};
    t = tensor(buf, 3, huge, NULL, 1, 8, 1, 0);
    CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-V-EXTENT", "from axis 1 on");
    t = tensor((void *)(UINTPTR_MAX - 7), 2, shape, NULL, 1, 8, 1, 8);
    CHECK_STATUS(dmls_dlpack_import(&t, &d), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-V-EXTENT", "byte_offset 8 wraps");
    CHECK(memcmp(&d, &zero, sizeof d) == 0, "a failed import left *out written");
}

int main(void) {
    test_layout();
    test_import();
    test_rules();
    TEST_MAIN_END();
}
