/* The device interface (dmlslice/device.h), one body run over every device
 * this machine has: the CPU always, CUDA and Vulkan devices where they are
 * built and present (lavapipe counts). Each device's results are compared
 * byte for byte with the reference executor on the host, output padding
 * included; each failure must leave the device's buffers as they were. */
#include "dmlslice/device.h"
#include "support/native_op.h"
#include "support/test.h"

/* Runs op on dev over in_bytes of input and an output buffer of out_bytes
 * holding 0x5A, and compares every output byte with the reference's. */
static void check_op(dmls_device *dev, const char *dev_name, const char *label, const dmls_operator *op) {
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    unsigned char *in = malloc(in_bytes + 1), *want = malloc(out_bytes + 1), *got = malloc(out_bytes + 1);
    test_fill_random(in, (size_t)in_bytes);
    memset(want, 0x5A, (size_t)out_bytes);
    memset(got, 0, (size_t)out_bytes);
    CHECK_STATUS(dmls_execute_reference(op, in, in_bytes, want, out_bytes), DMLS_OK);
    dmls_device_buffer *bi = NULL, *bo = NULL;
    CHECK_STATUS(dmls_device_alloc(dev, in_bytes, &bi), DMLS_OK);
    CHECK_STATUS(dmls_device_alloc(dev, out_bytes, &bo), DMLS_OK);
    if (bi != NULL && bo != NULL) {
        unsigned char *pad = malloc(out_bytes + 1);
        memset(pad, 0x5A, (size_t)out_bytes);
        CHECK_STATUS(dmls_device_upload(dev, bi, 0, in, in_bytes), DMLS_OK);
        CHECK_STATUS(dmls_device_upload(dev, bo, 0, pad, out_bytes), DMLS_OK);
        const dmls_device_binding i = {bi, 0, in_bytes}, o = {bo, 0, out_bytes};
        CHECK_STATUS(dmls_device_execute(dev, op, i, o), DMLS_OK);
        CHECK_STATUS(dmls_device_download(dev, bo, 0, got, out_bytes), DMLS_OK);
        CHECK(memcmp(got, want, (size_t)out_bytes) == 0, "%s: %s: the output differs from the reference", dev_name,
              label);
        free(pad);
    }
    dmls_device_free(dev, bi);
    dmls_device_free(dev, bo);
    free(in), free(want), free(got);
}

/* Slices of every element size the shaders treat apart (1, 2, 4, 8 and 16
 * bytes through the float64 pairs below), forward and reversed, strided
 * and padded, and a SLICE_GRAD, each through check_op. */
static void test_operators(dmls_device *dev, const char *name) {
    static const dmls_dtype types[] = {DMLS_UINT8, DMLS_FLOAT16, DMLS_FLOAT32, DMLS_FLOAT64};
    static const int64_t shape[3] = {5, 7, 33}, out_shape[3] = {2, 7, 16};
    static const int64_t offs[3] = {1, 0, 1}, sizes[3] = {4, 7, 32}, fwd[3] = {2, 1, 2}, rev[3] = {-2, -1, 2};
    static const int64_t padded[3] = {7 * 20, 20, 1}; /* each output row 4 elements longer than it is */
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (int variant = 0; variant < 4; variant++) {
            const dmls_tensor in = {types[t], 3, shape, NULL, 0};
            const dmls_tensor out = {types[t], 3, out_shape, variant == 2 ? padded : NULL, 0};
            const dmls_window w = {offs, sizes, variant == 1 ? rev : fwd};
            dmls_operator *op = NULL;
            if (variant == 3)
                CHECK_STATUS(dmls_create_grad(&out, &in, &w, &op), DMLS_OK);
            else
                CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
            char label[64];
            snprintf(label, sizeof label, "%s, %s", dmls_dtype_name(types[t]),
                     (const char *[]){"forward", "reversed", "padded output", "SLICE_GRAD"}[variant]);
            if (op != NULL) check_op(dev, name, label, op);
            dmls_destroy(op);
        }
}

/* The 2x4 block at (1, 2) of a packed 4x8 float32 input: the operator the
 * binding and wrapping tests bind to buffers; NULL (after a failed check)
 * where it was not made. */
static dmls_operator *block_op(void) {
    static const int64_t shape[2] = {4, 8}, out_shape[2] = {2, 4}, offs[2] = {1, 2};
    return OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 2, .in_shape = shape, .out_shape = out_shape, .offsets = offs);
}

/* Ranges outside a buffer, and the library's own binding rules, through
 * the interface: each an error that names the values, nothing written.
 * The one home of the binding rules every backend shares (R-X-BOUNDS,
 * R-X-OVERLAP); a backend's suite tests only its own entry points' extras. */
static void test_binding_errors(dmls_device *dev, const char *name) {
    dmls_operator *op = block_op();
    dmls_device_buffer *b = NULL;
    CHECK_STATUS(dmls_device_alloc(dev, 4096, &b), DMLS_OK);
    if (op == NULL || b == NULL) goto done;
    CHECK(dmls_device_buffer_bytes(b) == 4096, "%s: buffer of %llu bytes", name,
          (unsigned long long)dmls_device_buffer_bytes(b));
    unsigned char fill[4096], back[4096];
    memset(fill, 0x5A, sizeof fill);
    CHECK_STATUS(dmls_device_upload(dev, b, 0, fill, sizeof fill), DMLS_OK);
    CHECK_STATUS(dmls_device_upload(dev, b, 4000, fill, 97), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "[4000, 4000 + 97) leave the buffer of 4096 bytes") != NULL, "%s: %s", name,
          dmls_last_error());
    CHECK_STATUS(dmls_device_download(dev, b, UINT64_MAX, back, 2), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_device_execute(dev, op, (dmls_device_binding){b, 0, 128}, (dmls_device_binding){b, 4090, 32}),
                 DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "output: bytes [4090, 4090 + 32)") != NULL, "%s: %s", name, dmls_last_error());
    CHECK_STATUS(dmls_device_execute(dev, op, (dmls_device_binding){b, 0, 128}, (dmls_device_binding){b, 2048, 31}),
                 DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "31");
    CHECK_STATUS(dmls_device_execute(dev, op, (dmls_device_binding){b, 0, 127}, (dmls_device_binding){b, 2048, 32}),
                 DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "input buffer holds 127 bytes", "needs 128");
    CHECK_STATUS(dmls_device_execute(dev, op, (dmls_device_binding){b, 0, 128}, (dmls_device_binding){b, 64, 32}),
                 DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-X-OVERLAP", "overlap");
    CHECK_STATUS(dmls_device_execute(dev, op, (dmls_device_binding){b, 16, 128}, (dmls_device_binding){b, 0, 32}),
                 DMLS_ERROR_OVERLAP); /* the output before the input */
    CHECK_STATUS(dmls_device_download(dev, b, 0, back, sizeof back), DMLS_OK);
    CHECK(memcmp(back, fill, sizeof back) == 0, "%s: a failed call wrote to the buffer", name);
    CHECK_STATUS(dmls_device_execute(dev, op, (dmls_device_binding){b, 0, 128}, (dmls_device_binding){b, 128, 32}),
                 DMLS_OK); /* adjacent ranges do not overlap */
    CHECK_STATUS(dmls_device_execute(dev, NULL, (dmls_device_binding){b, 0, 128}, (dmls_device_binding){b, 2048, 32}),
                 DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_device_synchronize(dev), DMLS_OK);
done:
    dmls_device_free(dev, b);
    dmls_destroy(op);
}

/* An ONNX-style split of a 6 x 40 int32 matrix into 3 outputs along the
 * last axis, prepared and run as one batch, against the CPU's batch run. */
static void test_batch(dmls_device *dev, const char *name) {
    static const int64_t shape[2] = {6, 40}, parts[3] = {16, 16, 8};
    const dmls_tensor in = {DMLS_INT32, 2, shape, NULL, 0};
    dmls_batch *batch = NULL;
    CHECK_STATUS(dmls_batch_create_split(&in, -1, parts, 3, 0, &batch), DMLS_OK);
    if (batch == NULL) return;
    int32_t x[240], want[3][96], got[3][96];
    for (int k = 0; k < 240; k++) x[k] = k * 7 - 3;
    const dmls_batch_input hin = {x, sizeof x};
    dmls_batch_output hout[3];
    dmls_device_buffer *bin = NULL, *bout[3] = {NULL, NULL, NULL};
    dmls_device_binding din = {NULL, 0, sizeof x}, dout[3];
    CHECK_STATUS(dmls_device_alloc(dev, sizeof x, &bin), DMLS_OK);
    CHECK_STATUS(dmls_device_upload(dev, bin, 0, x, sizeof x), DMLS_OK);
    din.buffer = bin;
    for (int j = 0; j < 3; j++) {
        const uint64_t bytes = dmls_batch_output_bytes(batch, (uint32_t)j);
        hout[j] = (dmls_batch_output){want[j], bytes};
        CHECK_STATUS(dmls_device_alloc(dev, bytes, &bout[j]), DMLS_OK);
        dout[j] = (dmls_device_binding){bout[j], 0, bytes};
    }
    CHECK_STATUS(dmls_batch_execute(batch, NULL, &hin, 1, hout, 3), DMLS_OK);
    CHECK_STATUS(dmls_device_batch_prepare(dev, batch), DMLS_OK);
    CHECK_STATUS(dmls_device_batch_execute(dev, batch, &din, 1, dout, 2), DMLS_ERROR_INVALID_ARGUMENT);
    dout[1].offset = 8; /* past the buffer's end: refused, the slot named */
    CHECK_STATUS(dmls_device_batch_execute(dev, batch, &din, 1, dout, 3), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "outputs[1]: bytes [8, 8 + 384) leave the buffer of 384 bytes") != NULL, "%s: %s", name, dmls_last_error());
    dout[1].offset = 0;
    CHECK_STATUS(dmls_device_batch_execute(dev, batch, &din, 1, dout, 3), DMLS_OK);
    CHECK_STATUS(dmls_device_synchronize(dev), DMLS_OK);
    for (int j = 0; j < 3; j++) {
        memset(got[j], 0, sizeof got[j]);
        CHECK_STATUS(dmls_device_download(dev, bout[j], 0, got[j], hout[j].bytes), DMLS_OK);
        CHECK(memcmp(got[j], want[j], (size_t)hout[j].bytes) == 0, "%s: split output %d differs", name, j);
    }
    dmls_device_free(dev, bin);
    for (int j = 0; j < 3; j++) dmls_device_free(dev, bout[j]);
    dmls_batch_destroy(batch);
}

/* dmls_device_wrap over memory the caller owns (here an allocated
 * buffer's, by address, so that the same body serves host and device
 * memory): runs as the buffer would, and freeing the handle leaves the
 * memory (the buffer still downloads). Devices without addresses refuse. */
static void test_wrap(dmls_device *dev, const char *name) {
    float x[32], want[8], got[8];
    for (int k = 0; k < 32; k++) x[k] = (float)k;
    dmls_operator *op = block_op();
    dmls_device_buffer *b = NULL, *wi = NULL, *wo = NULL;
    CHECK_STATUS(dmls_execute(op, x, sizeof x, want, sizeof want), DMLS_OK);
    CHECK_STATUS(dmls_device_alloc(dev, 4096, &b), DMLS_OK);
    CHECK_STATUS(dmls_device_upload(dev, b, 0, x, sizeof x), DMLS_OK);
    unsigned char *at = dmls_device_buffer_address(b);
    if (at == NULL) {
        CHECK_STATUS(dmls_device_wrap(dev, x, sizeof x, &wi), DMLS_ERROR_UNSUPPORTED);
        CHECK(wi == NULL && strstr(dmls_last_error(), "no addresses") != NULL, "%s: %s", name, dmls_last_error());
        goto done;
    }
    CHECK_STATUS(dmls_device_wrap(dev, at, sizeof x, &wi), DMLS_OK);
    CHECK_STATUS(dmls_device_wrap(dev, at + 2048, sizeof got, &wo), DMLS_OK);
    CHECK(dmls_device_buffer_address(wi) == at && dmls_device_buffer_bytes(wo) == sizeof got, "%s: wrap", name);
    CHECK_STATUS(dmls_device_execute(dev, op, (dmls_device_binding){wi, 0, sizeof x},
                                     (dmls_device_binding){wo, 0, sizeof got}),
                 DMLS_OK);
    CHECK_STATUS(dmls_device_execute(dev, op, (dmls_device_binding){wi, 0, sizeof x},
                                     (dmls_device_binding){wo, 4, sizeof got}),
                 DMLS_ERROR_INVALID_ARGUMENT); /* the wrapped range ends where the caller said */
    dmls_device_free(dev, wi); /* the handles only: the memory is b's */
    dmls_device_free(dev, wo);
    CHECK_STATUS(dmls_device_wrap(dev, NULL, 16, &wi), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(wi == NULL, "%s: a failed wrap left a handle", name);
    CHECK_STATUS(dmls_device_download(dev, b, 2048, got, sizeof got), DMLS_OK);
    CHECK(memcmp(got, want, sizeof got) == 0, "%s: the output through wrapped memory differs", name);
done:
    dmls_device_free(dev, b);
    dmls_destroy(op);
}

/* Names that are no device's: each refused with the name quoted. */
static void test_names(void) {
    static const char *const bad[] = {"gpu", "vulkan:x", "cpu:1", "cuda:", "cuda:-1", "vulkan:99999999", "", "Cpu"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        dmls_device *dev = (dmls_device *)&dev;
        CHECK_STATUS(dmls_device_open(bad[k], &dev), DMLS_ERROR_INVALID_ARGUMENT);
        CHECK(dev == NULL, "'%s': *dev not NULL", bad[k]);
        char quoted[40];
        snprintf(quoted, sizeof quoted, "'%s'", bad[k]);
        CHECK(strstr(dmls_last_error(), quoted) != NULL, "message lacks %s: %s", quoted, dmls_last_error());
    }
    dmls_device *dev = NULL;
    CHECK_STATUS(dmls_device_open("vulkan:999", &dev), DMLS_ERROR_NO_DEVICE);
    CHECK(strstr(dmls_last_error(), "'vulkan:999'") != NULL, "%s", dmls_last_error());
    CHECK_STATUS(dmls_device_open("cuda:999", &dev), DMLS_ERROR_NO_DEVICE);
    CHECK_STATUS(dmls_device_open(NULL, &dev), DMLS_ERROR_INVALID_ARGUMENT);
    dmls_device_info info;
    CHECK_STATUS(dmls_device_info_at(dmls_device_count(), &info), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_device_info_at(0, &info), DMLS_OK);
    CHECK(strcmp(info.name, "cpu") == 0 && strcmp(info.kind, "cpu") == 0, "device 0 is %s (%s)", info.name,
          info.kind);
}

/* The CPU device: no streams to take; its thread count set and read back. */
static void test_cpu_threads_and_streams(void) {
    dmls_device *dev = NULL;
    CHECK_STATUS(dmls_device_open("cpu", &dev), DMLS_OK);
    void *stream = NULL;
    CHECK_STATUS(dmls_device_use_stream(dev, &stream), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "no streams") != NULL, "%s", dmls_last_error());
    CHECK_STATUS(dmls_device_set_threads(dev, 3), DMLS_OK);
    CHECK(dmls_device_threads(dev) == 3, "cpu: %d threads, not 3", dmls_device_threads(dev));
    CHECK_STATUS(dmls_device_set_threads(dev, -1), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(dmls_device_threads(dev) == 3, "cpu: a refused count changed it to %d", dmls_device_threads(dev));
    dmls_device_close(dev);
}

int main(void) {
    test_seed_rng();
    test_names();
    test_cpu_threads_and_streams();
    const size_t n = dmls_device_count();
    CHECK(n >= 1, "%zu devices: the CPU is always one", n);
    for (size_t k = 0; k < n; k++) {
        dmls_device_info info, again;
        CHECK_STATUS(dmls_device_info_at(k, &info), DMLS_OK);
        dmls_device *dev = NULL;
        CHECK_STATUS(dmls_device_open(info.name, &dev), DMLS_OK);
        if (dev == NULL) continue;
        printf("device %s: %s (%s) %s\n", info.name, info.description, info.kind, info.driver);
        CHECK_STATUS(dmls_device_describe(dev, &again), DMLS_OK);
        CHECK(strcmp(again.name, info.name) == 0, "describe says %s, not %s", again.name, info.name);
        test_operators(dev, info.name);
        test_binding_errors(dev, info.name);
        test_batch(dev, info.name);
        test_wrap(dev, info.name);
        CHECK_STATUS(dmls_device_use_stream(dev, NULL), DMLS_OK);
        dmls_device_close(dev);
    }
    TEST_MAIN_END();
}
