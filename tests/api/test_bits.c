/* Slicing copies bits: NaN payloads (quiet and signalling), -0.0, infinities
 * and denormals come out exactly as they went in, for 16, 32 and 64 bits. */
#include "dmlslice/dml.h"
#include "support/test.h"

static void roundtrip(dmls_dtype dtype, const void *values, size_t n, size_t esize) {
    int64_t in_shape[1] = {(int64_t)n}, out_shape[1] = {(int64_t)n};
    int64_t off[1] = {0}, size[1] = {(int64_t)n}, stride[1] = {-1};
    dmls_tensor in = {dtype, 1, in_shape, NULL, 0}, out = {dtype, 1, out_shape, NULL, 0};
    dmls_window w = {off, size, stride};
    unsigned char got[64], back[64];
    CHECK_STATUS(dmls_slice(&in, values, n * esize, &out, got, n * esize, &w), DMLS_OK);
    CHECK_STATUS(dmls_slice(&in, got, n * esize, &out, back, n * esize, &w), DMLS_OK);
    CHECK(memcmp(back, values, n * esize) == 0, "dtype %s: bits changed", dmls_dtype_name(dtype));
    for (size_t i = 0; i < n; i++)
        CHECK(memcmp(got + i * esize, (const unsigned char *)values + (n - 1 - i) * esize, esize) == 0,
              "dtype %s element %zu reversed wrongly", dmls_dtype_name(dtype), i);
}

int main(void) {
    const uint16_t h[] = {0x7E01, 0x7C01, 0xFE55, 0x8000, 0x7C00, 0x0001};
    /* aligned: the DirectML path binds it (R-X-ALIGN) */
    _Alignas(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) const uint32_t f[] = {0x7FC12345u, 0x7F800001u, 0xFFBADBADu,
                                                                        0x80000000u, 0xFF800000u, 0x00000001u};
    const uint64_t d[] = {0x7FF8DEADBEEF0001ull, 0x7FF0000000000001ull, 0xFFF123456789ABCDull,
                          0x8000000000000000ull, 0x7FF0000000000000ull, 0x0000000000000001ull};
    roundtrip(DMLS_FLOAT16, h, 6, 2);
    roundtrip(DMLS_FLOAT32, f, 6, 4);
    roundtrip(DMLS_FLOAT64, d, 6, 8);
    /* The DirectML path too, with -0.0 and a NaN payload through SLICE. */
    const UINT sizes[4] = {1, 1, 1, 6}, osz[4] = {1, 1, 1, 3}, offs[4] = {0, 0, 0, 1}, ones[4] = {1, 1, 1, 1};
    const UINT strides[4] = {1, 1, 1, 2};
    DML_BUFFER_TENSOR_DESC ib = {DML_TENSOR_DATA_TYPE_FLOAT32, 0, 4, sizes, NULL, 24, 0};
    DML_BUFFER_TENSOR_DESC ob = {DML_TENSOR_DATA_TYPE_FLOAT32, 0, 4, osz, NULL, 12, 0};
    DML_TENSOR_DESC it = {DML_TENSOR_TYPE_BUFFER, &ib}, ot = {DML_TENSOR_TYPE_BUFFER, &ob};
    DML_SLICE_OPERATOR_DESC s = {&it, &ot, 4, offs, osz, strides};
    DML_OPERATOR_DESC op = {DML_OPERATOR_SLICE, &s};
    _Alignas(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) uint32_t out[3];
    (void)ones;
    CHECK_STATUS(dmls_slice_dml(&op, DML_FEATURE_LEVEL_1_0, f, sizeof f, out, sizeof out), DMLS_OK);
    CHECK(out[0] == f[1] && out[1] == f[3] && out[2] == f[5], "SLICE changed bits: %08x %08x %08x", out[0], out[1],
          out[2]);
    TEST_MAIN_END();
}
