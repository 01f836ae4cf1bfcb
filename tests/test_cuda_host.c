/* The CUDA backend's host-side contract, on any machine that builds it: the
 * argument checks, the binding checks (R-X-*) made before the device is
 * asked for, on the native and the DirectML path (so a bad call fails the
 * same way with or without a GPU, and as dmls_execute fails it), and
 * the device queries: DMLS_ERROR_NO_DEVICE with the runtime's reason where
 * there is no GPU, names and versions where there is. Nothing is launched:
 * the GPU paths are tests/cuda's. */
#include "dmlslice/dml.h"
#include "dmlslice/dmlslice_cuda.h"
#include "support/native_op.h"
#include "support/test.h"

int main(void) {
    int count = -5;
    CHECK_STATUS(dmls_cuda_device_count(NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(dmls_last_error(), "cuda_device_count: count is NULL") == 0, "message: %s", dmls_last_error());
    CHECK_STATUS(dmls_execute_cuda(NULL, NULL, 0, NULL, 0, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(dmls_last_error(), "execute_cuda: operator is NULL") == 0, "message: %s", dmls_last_error());

    /* A 4x4 float32 -> 2x2 slice; host buffers stand in for device pointers,
     * which is safe because every call below fails before any launch. */
    const int64_t in_shape[2] = {4, 4}, out_shape[2] = {2, 2}, off[2] = {0, 1}, size[2] = {4, 3}, step[2] = {2, 2};
    dmls_operator *op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 2, .in_shape = in_shape, .out_shape = out_shape,
                                .offsets = off, .sizes = size, .steps = step);
    if (op) {
        float buf[32];
        CHECK_STATUS(dmls_execute_cuda(op, buf, 60, buf + 16, 16, NULL), DMLS_ERROR_BUFFER_TOO_SMALL);
        CHECK_MESSAGE("R-X-BOUNDS", "slice: input buffer holds 60 bytes but the input tensor needs 64");
        CHECK_STATUS(dmls_execute_cuda(op, buf, 64, buf + 12, 16, NULL), DMLS_ERROR_OVERLAP);
        CHECK_MESSAGE("R-X-OVERLAP", "slice: output bytes");
        CHECK_STATUS(dmls_execute_cuda(op, buf, 64, NULL, 16, NULL), DMLS_ERROR_INVALID_ARGUMENT);
        CHECK_MESSAGE("R-OP-NULL", "slice: output buffer is NULL");
        dmls_destroy(op);
    }

    /* The DirectML path binds under DirectML's rules here too: a base that
     * is not a multiple of 16 is refused before any device is asked for. */
    const UINT isz[1] = {16}, osz[1] = {4}, woff[1] = {1}, wsize[1] = {8};
    const INT wstride[1] = {2};
    DML_BUFFER_TENSOR_DESC ib = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 1, isz, NULL, 64, 0};
    DML_BUFFER_TENSOR_DESC ob = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 1, osz, NULL, 16, 0};
    DML_TENSOR_DESC it = {DML_TENSOR_TYPE_BUFFER, &ib}, ot = {DML_TENSOR_TYPE_BUFFER, &ob};
    DML_SLICE1_OPERATOR_DESC s1 = {&it, &ot, 1, woff, wsize, wstride};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &s1};
    CHECK_STATUS(dmls_create_dml(&desc, DML_FEATURE_LEVEL_6_4, &op), DMLS_OK);
    if (op) {
        _Alignas(64) unsigned char buf[256];
        CHECK_STATUS(dmls_execute_cuda(op, buf + 4, 64, buf + 128, 16, NULL), DMLS_ERROR_MISALIGNED);
        CHECK_MESSAGE("R-X-ALIGN", "SLICE1: input address", "multiple of 16", "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT");
        CHECK_STATUS(dmls_execute_cuda(op, buf, 64, buf + 136, 16, NULL), DMLS_ERROR_MISALIGNED);
        CHECK_MESSAGE("R-X-ALIGN", "SLICE1: output address", "multiple of 16");
        CHECK_STATUS(dmls_execute_cuda(op, buf, 64, buf + 48, 16, NULL), DMLS_ERROR_OVERLAP);
        CHECK_MESSAGE("R-X-OVERLAP", "SLICE1");
        dmls_destroy(op);
    }

    char name[128] = "unchanged";
    int major = -1, minor = -1;
    if (!dmls_cuda_available()) {
        CHECK_STATUS(dmls_cuda_device_count(&count), DMLS_ERROR_NO_DEVICE);
        CHECK(count == 0, "count %d without a device", count);
        CHECK(strncmp(dmls_last_error(), "cuda_device_count: no CUDA device: ", 35) == 0 &&
                  strlen(dmls_last_error()) > 35,
              "message without the runtime's reason: %s", dmls_last_error());
        char first[512];
        snprintf(first, sizeof first, "%s", dmls_last_error());
        CHECK_STATUS(dmls_cuda_device_count(&count), DMLS_ERROR_NO_DEVICE);
        CHECK(strcmp(first, dmls_last_error()) == 0, "the reason changed: %s, then %s", first, dmls_last_error());
        CHECK_STATUS(dmls_cuda_device_name(0, name, sizeof name, &major, &minor), DMLS_ERROR_NO_DEVICE);
        CHECK(strstr(dmls_last_error(), "no CUDA device") != NULL, "message: %s", dmls_last_error());
        CHECK(strcmp(name, "unchanged") == 0 && major == -1 && minor == -1, "a failed query wrote its results");
        printf("no CUDA device here (%s): checked the refusals\n", first);
        TEST_MAIN_END();
    }
    CHECK_STATUS(dmls_cuda_device_count(&count), DMLS_OK);
    CHECK(count >= 1, "%d devices", count);
    CHECK_STATUS(dmls_cuda_device_name(count, name, sizeof name, NULL, NULL), DMLS_ERROR_NO_DEVICE);
    char want[96];
    snprintf(want, sizeof want, "cuda_device_name: device %d does not exist (%d devices)", count, count);
    CHECK(strcmp(dmls_last_error(), want) == 0, "message: %s", dmls_last_error());
    CHECK_STATUS(dmls_cuda_device_name(-1, name, sizeof name, NULL, NULL), DMLS_ERROR_NO_DEVICE);
    CHECK_STATUS(dmls_cuda_device_name(0, name, sizeof name, &major, &minor), DMLS_OK);
    CHECK(name[0] != '\0' && strcmp(name, "unchanged") != 0 && major >= 1 && minor >= 0, "device 0: %s %d.%d",
          name, major, minor);
    CHECK_STATUS(dmls_cuda_device_name(0, NULL, 0, NULL, NULL), DMLS_OK); /* every output optional */
    printf("%d CUDA devices; device 0: %s (sm_%d%d)\n", count, name, major, minor);
    TEST_MAIN_END();
}
