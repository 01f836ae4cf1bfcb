/* The device interface (dmlslice/device.h), one body run over every device
 * this machine has: the CPU always, CUDA and Vulkan devices where they are
 * built and present (lavapipe counts). Each device's results are compared
 * byte for byte with the reference executor on the host, output padding
 * included; each failure must leave the device's buffers as they were.
 * The conformance cases (support/conformance.h: DirectML's examples,
 * random and permuted slices) run here on every device; the backends'
 * suites add what only their own entry points have. */
#include "dmlslice/device.h"
#include "support/conformance.h"
#include "support/permuted_case.h"
#include "support/test.h"

/* op over random input into a poisoned output buffer, each bound at a byte
 * offset (shift) into its buffer, against the reference: every byte of the
 * output buffer compared, padding and a guard band past the tensor
 * included, and the input unchanged. */
#define GUARD 64
static void differential(dmls_device *dev, const char *dev_name, const char *label, const dmls_operator *op,
                         uint64_t in_shift, uint64_t out_shift) {
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    const size_t in_all = (size_t)(in_shift + in_bytes + 1), out_all = (size_t)(out_shift + out_bytes + GUARD);
    unsigned char *in = malloc(in_all), *want = malloc(out_all), *got = malloc(out_all);
    test_fill_random(in, in_all);
    test_fill_random(want, out_all);
    memcpy(got, want, out_all);
    CHECK_STATUS(dmls_execute_reference(op, in + in_shift, in_bytes, want + out_shift, out_bytes), DMLS_OK);
    dmls_device_buffer *bi = NULL, *bo = NULL;
    CHECK_STATUS(dmls_device_alloc(dev, in_all, &bi), DMLS_OK);
    CHECK_STATUS(dmls_device_alloc(dev, out_all, &bo), DMLS_OK);
    if (bi != NULL && bo != NULL) {
        CHECK_STATUS(dmls_device_upload(dev, bi, 0, in, in_all), DMLS_OK);
        CHECK_STATUS(dmls_device_upload(dev, bo, 0, got, out_all), DMLS_OK);
        const dmls_device_binding i = {bi, in_shift, in_bytes}, o = {bo, out_shift, out_bytes};
        CHECK_STATUS(dmls_device_execute(dev, op, i, o), DMLS_OK);
        CHECK_STATUS(dmls_device_download(dev, bo, 0, got, out_all), DMLS_OK);
        conformance_compare(got + out_shift, want + out_shift, out_all - out_shift, out_bytes, label, dev_name);
        CHECK(memcmp(got, want, (size_t)out_shift) == 0, "%s: %s: wrote before the output", dev_name, label);
        unsigned char *back = malloc(in_all);
        CHECK_STATUS(dmls_device_download(dev, bi, 0, back, in_all), DMLS_OK);
        CHECK(memcmp(back, in, in_all) == 0, "%s: %s: the input buffer changed", dev_name, label);
        free(back);
    }
    dmls_device_free(dev, bi);
    dmls_device_free(dev, bo);
    free(in), free(want), free(got);
}

/* Slices of every element size the shaders treat apart (1, 2, 4, 8 and 16
 * bytes through the float64 pairs below), forward and reversed, strided
 * and padded, and a SLICE_GRAD, each through differential. */
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
            if (op != NULL) differential(dev, name, label, op, 0, 0);
            dmls_destroy(op);
        }
}

/* The conformance body every device runs (support/conformance.h):
 * DirectML's worked examples with their exact values, then random slices
 * and permuted slices (some empty, any layouts) at random byte offsets
 * into their buffers. The backends' suites run the same cases deeper,
 * through their own entry points and limits. */
static void test_conformance(dmls_device *dev, const char *name, int iters) {
    float in[16];
    conformance_example_input(in);
    for (size_t e = 0; e < CONFORMANCE_EXAMPLES; e++) {
        float want[4], got[4] = {0};
        dmls_operator *op = conformance_example(e, want);
        if (op == NULL) continue;
        dmls_device_buffer *bi = NULL, *bo = NULL;
        CHECK_STATUS(dmls_device_alloc(dev, sizeof in, &bi), DMLS_OK);
        CHECK_STATUS(dmls_device_alloc(dev, dmls_output_bytes(op), &bo), DMLS_OK);
        if (bi != NULL && bo != NULL) {
            CHECK_STATUS(dmls_device_upload(dev, bi, 0, in, sizeof in), DMLS_OK);
            const dmls_device_binding i = {bi, 0, sizeof in}, o = {bo, 0, dmls_output_bytes(op)};
            CHECK_STATUS(dmls_device_execute(dev, op, i, o), DMLS_OK);
            CHECK_STATUS(dmls_device_download(dev, bo, 0, got, sizeof got), DMLS_OK);
            conformance_example_check(name, e, got, want);
        }
        dmls_device_free(dev, bi);
        dmls_device_free(dev, bo);
        dmls_destroy(op);
    }
    static const conformance_random how = {50000, 2000, true, true};
    for (int iter = 0; iter < iters; iter++) {
        char label[128];
        size_t shift[2] = {0, 0};
        dmls_operator *op = NULL;
        if (iter % 4 == 3) CHECK_STATUS(permuted_case_create(iter, &op, label, sizeof label), DMLS_OK);
        else op = conformance_random_case(&how, iter, label, sizeof label, shift);
        if (op == NULL) continue;
        differential(dev, name, label, op, shift[0], shift[1]);
        dmls_destroy(op);
    }
}

/* x[1:3, 2:6] of a 4 x 8 float32 array: 128 bytes in, 32 out. */
static dmls_operator *small_slice(void) {
    static const int64_t shape[2] = {4, 8}, out_shape[2] = {2, 4};
    static const int64_t offs[2] = {1, 2}, sizes[2] = {2, 4}, steps[2] = {1, 1};
    const dmls_tensor in = {DMLS_FLOAT32, 2, shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    const dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    return op;
}

/* Ranges outside a buffer, and the library's own binding rules, through
 * the interface: each an error that names the values, nothing written.
 * The one home of the binding rules every backend shares (R-X-BOUNDS,
 * R-X-OVERLAP); a backend's suite tests only its own entry points' extras. */
static void test_binding_errors(dmls_device *dev, const char *name) {
    dmls_operator *op = small_slice();
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
 * memory (the buffer still downloads). Devices without addresses refuse;
 * a GPU refuses the host's memory (here the stack's), saying so. */
static void test_wrap(dmls_device *dev, const char *name, const char *kind) {
    float x[32], want[8], got[8];
    for (int k = 0; k < 32; k++) x[k] = (float)k;
    dmls_operator *op = small_slice();
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
    if (strcmp(kind, "cpu") != 0) {
        CHECK_STATUS(dmls_device_wrap(dev, x, sizeof x, &wi), DMLS_ERROR_INVALID_ARGUMENT);
        CHECK(wi == NULL && strstr(dmls_last_error(), "unregistered host memory, not the device's") != NULL, "%s: %s",
              name, dmls_last_error());
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

/* The last error, which carries no rule (a device call's own argument),
 * says every fragment. */
#define CHECK_SAYS(...)                                                                                     \
    do {                                                                                                    \
        const char *frags_[] = {__VA_ARGS__};                                                               \
        CHECK(strcmp(dmls_last_error_rule(), "") == 0, "rule %s on: %s", dmls_last_error_rule(),           \
              dmls_last_error());                                                                           \
        for (size_t k_ = 0; k_ < sizeof frags_ / sizeof frags_[0]; k_++)                                    \
            CHECK(strstr(dmls_last_error(), frags_[k_]) != NULL, "message lacks \"%s\": %s", frags_[k_],    \
                  dmls_last_error());                                                                       \
    } while (0)

/* dmls_device_copy at odd sizes and offsets (the staged path's chunk
 * borders where DMLSLICE_VK_STAGE_BYTES is small), the bytes around the
 * destination untouched; and its refusals, nothing written. */
static void test_copy(dmls_device *dev, const char *name) {
    enum { BYTES = 300007 };
    unsigned char *src = malloc(BYTES), *dst = malloc(BYTES), *got = malloc(BYTES);
    dmls_device_buffer *a = NULL, *b = NULL;
    CHECK_STATUS(dmls_device_alloc(dev, BYTES, &a), DMLS_OK);
    CHECK_STATUS(dmls_device_alloc(dev, BYTES, &b), DMLS_OK);
    if (a == NULL || b == NULL) goto done;
    test_fill_random(src, BYTES);
    test_fill_random(dst, BYTES);
    CHECK_STATUS(dmls_device_upload(dev, a, 0, src, BYTES), DMLS_OK);
    CHECK_STATUS(dmls_device_upload(dev, b, 0, dst, BYTES), DMLS_OK);
    static const uint64_t cases[][3] = {{0, 0, 1}, {3, 17, 1000}, {16, 32, 4096}, {1, 0, 250001}, {0, 0, BYTES}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const uint64_t from = cases[k][0], to = cases[k][1], n = cases[k][2];
        CHECK_STATUS(dmls_device_copy(dev, (dmls_device_binding){b, to, n}, (dmls_device_binding){a, from, n}), DMLS_OK);
        memcpy(dst + to, src + from, (size_t)n);
        CHECK_STATUS(dmls_device_download(dev, b, 0, got, BYTES), DMLS_OK);
        CHECK(memcmp(got, dst, BYTES) == 0, "%s: copy of %llu bytes from %llu to %llu differs", name,
              (unsigned long long)n, (unsigned long long)from, (unsigned long long)to);
    }
    CHECK_STATUS(dmls_device_copy(dev, (dmls_device_binding){b, 0, 8}, (dmls_device_binding){a, 0, 9}),
                 DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_SAYS("destination's 8 bytes", "source's 9");
    CHECK_STATUS(dmls_device_copy(dev, (dmls_device_binding){a, 100, 64}, (dmls_device_binding){a, 60, 64}),
                 DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_SAYS("overlap", "[100, +64)", "[60, +64)");
    CHECK_STATUS(dmls_device_copy(dev, (dmls_device_binding){b, BYTES - 8, 16}, (dmls_device_binding){a, 0, 16}),
                 DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_SAYS("destination", "leave the buffer");
    CHECK_STATUS(dmls_device_copy(dev, (dmls_device_binding){a, 164, 64}, (dmls_device_binding){a, 100, 64}),
                 DMLS_OK); /* adjacent ranges of one buffer */
    CHECK_STATUS(dmls_device_download(dev, b, 0, got, BYTES), DMLS_OK);
    CHECK(memcmp(got, dst, BYTES) == 0, "%s: a refused copy wrote", name);
    CHECK_STATUS(dmls_device_copy(NULL, (dmls_device_binding){b, 0, 8}, (dmls_device_binding){a, 0, 8}),
                 DMLS_ERROR_INVALID_ARGUMENT);
done:
    dmls_device_free(dev, a);
    dmls_device_free(dev, b);
    free(src), free(dst), free(got);
}

/* Runs the work of one timed run must have made: the output poisoned, one
 * run timed, the output checked against want (n bytes at out[0]). */
static void check_timed(dmls_device *dev, const char *name, const char *what, const dmls_device_work *w,
                        const void *want, uint64_t n) {
    unsigned char *poison = malloc(n), *got = malloc(n);
    memset(poison, 0xA5, n);
    CHECK_STATUS(dmls_device_upload(dev, w->out[0].buffer, w->out[0].offset, poison, n), DMLS_OK);
    double s[3] = {-1, -1, -1};
    CHECK_STATUS(dmls_device_time(dev, w, 0, 1, 1, s), DMLS_OK);
    CHECK(s[0] >= 0 && s[0] < 60, "%s: %s: one run timed %g s", name, what, s[0]);
    CHECK_STATUS(dmls_device_download(dev, w->out[0].buffer, w->out[0].offset, got, n), DMLS_OK);
    CHECK(memcmp(got, want, n) == 0, "%s: %s: the timed run's output differs", name, what);
    CHECK_STATUS(dmls_device_time(dev, w, 2, 3, 4, s), DMLS_OK); /* samples of 4 runs */
    for (int i = 0; i < 3; i++) CHECK(s[i] >= 0 && s[i] < 60, "%s: %s: run %d timed %g s", name, what, i, s[i]);
    free(poison), free(got);
}

/* dmls_device_time over an execute, a batch and a copy: each timed run
 * does the work (its output checked) and every time is sane; the work's
 * arguments are checked once, as its own call checks them. */
static void test_time(dmls_device *dev, const char *name) {
    float x[32], want[8];
    for (int k = 0; k < 32; k++) x[k] = (float)k * 0.5f;
    dmls_operator *op = small_slice();
    dmls_batch *split = NULL;
    static const int64_t shape[2] = {4, 8}, parts[2] = {4, 4};
    const dmls_tensor t = {DMLS_FLOAT32, 2, shape, NULL, 0};
    CHECK_STATUS(dmls_batch_create_split(&t, 1, parts, 2, 0, &split), DMLS_OK);
    dmls_device_buffer *b = NULL;
    CHECK_STATUS(dmls_device_alloc(dev, 4096, &b), DMLS_OK);
    if (op == NULL || split == NULL || b == NULL) goto done;
    CHECK_STATUS(dmls_execute(op, x, sizeof x, want, sizeof want), DMLS_OK);
    CHECK_STATUS(dmls_device_upload(dev, b, 0, x, sizeof x), DMLS_OK);
    const dmls_device_binding in = {b, 0, sizeof x}, out = {b, 1024, sizeof want};
    const dmls_device_work exec = {op, NULL, &in, &out, 1, 1};
    check_timed(dev, name, "execute", &exec, want, sizeof want);
    const dmls_device_binding copy_out = {b, 2048, sizeof x};
    const dmls_device_work copy = {NULL, NULL, &in, &copy_out, 1, 1};
    check_timed(dev, name, "copy", &copy, x, sizeof x);
    /* The split's first part: columns 0..3 of each row. */
    float first[16];
    for (int r = 0; r < 4; r++) memcpy(first + 4 * r, x + 8 * r, 4 * sizeof(float));
    const dmls_device_binding halves[2] = {{b, 3072, 64}, {b, 3200, 64}};
    const dmls_device_work batch = {NULL, split, &in, halves, 1, 2};
    CHECK_STATUS(dmls_device_batch_prepare(dev, split), DMLS_OK);
    check_timed(dev, name, "batch", &batch, first, sizeof first);
    double s[2];
    CHECK_STATUS(dmls_device_time(dev, &exec, 1, 2, 1, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_SAYS("seconds is NULL");
    CHECK_STATUS(dmls_device_time(dev, &exec, 1, 2, 0, s), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_SAYS("per_sample is 0");
    CHECK_STATUS(dmls_device_time(dev, &exec, 2, UINT32_MAX / 2, 2, s), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_SAYS("2 + 2147483647 x 2 runs pass 2^32 - 1");
    const dmls_device_binding past = {b, 4090, sizeof want};
    const dmls_device_work outside = {op, NULL, &in, &past, 1, 1};
    CHECK_STATUS(dmls_device_time(dev, &outside, 1, 2, 1, s), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_SAYS("output", "leave the buffer of 4096 bytes");
    const dmls_device_work no_out = {op, NULL, &in, NULL, 1, 0};
    CHECK_STATUS(dmls_device_time(dev, &no_out, 1, 2, 1, s), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_SAYS("out[0]");
    const dmls_device_work null_out = {NULL, split, NULL, NULL, 0, 2};
    CHECK_STATUS(dmls_device_time(dev, &null_out, 1, 2, 1, s), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_SAYS("out is NULL for 2 slots");
    const dmls_device_binding overlapping = {b, 16, sizeof x};
    const dmls_device_work bad_copy = {NULL, NULL, &in, &overlapping, 1, 1};
    CHECK_STATUS(dmls_device_time(dev, &bad_copy, 0, 1, 1, s), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_SAYS("overlap");
    CHECK_STATUS(dmls_device_time(dev, NULL, 0, 1, 1, s), DMLS_ERROR_INVALID_ARGUMENT);
done:
    dmls_device_free(dev, b);
    dmls_batch_destroy(split);
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
    const int iters = getenv("DMLS_TEST_ITERS") ? atoi(getenv("DMLS_TEST_ITERS")) : 100;
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
        test_conformance(dev, info.name, iters);
        test_binding_errors(dev, info.name);
        test_batch(dev, info.name);
        test_wrap(dev, info.name, info.kind);
        test_copy(dev, info.name);
        test_time(dev, info.name);
        CHECK_STATUS(dmls_device_use_stream(dev, NULL), DMLS_OK);
        dmls_device_close(dev);
    }
    TEST_MAIN_END();
}
