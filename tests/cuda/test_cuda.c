/* The CUDA backend against the scalar reference, byte for byte:
 *   - DirectML's four worked examples (exact values too);
 *   - every canonical benchmark case at full size;
 *   - a seeded randomized differential test: ranks 1-8, element sizes
 *     1/2/4/8, negative and zero (broadcast) input strides, padded and
 *     reversed layouts on both sides, misaligned bases and byte offsets,
 *     SLICE and SLICE_GRAD; outputs are poisoned first and every byte of the
 *     output buffer, padding included, is compared;
 *   - binding errors (nothing launched, nothing written);
 *   - with DMLS_TEST_LARGE=1, a slice of more than 2^31 elements (the 64-bit
 *     index path), checked against the CPU executor.
 * Exits 77 (CTest: skipped) when there is no GPU, after checking that
 * execute says so with DMLS_ERROR_NO_DEVICE. */
#include <cuda_runtime_api.h>

#include "cases.h"
#include "dmlslice/dmlslice_cuda.h"
#include "operator.h"
#include "test.h"

#define CU(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

/* Device arenas the random cases place their buffers in, at chosen offsets. */
#define ARENA (64u << 20)
#define GUARD 64
static unsigned char *d_in_arena, *d_out_arena;
static cudaStream_t stream;
static int launches_by_kernel[8];

/* Runs op on the GPU and the reference on the CPU from the same random input
 * and the same poisoned output, then compares the whole output buffer plus a
 * guard band after it. in_shift/out_shift misalign the bases. */
static void differential(const dmls_operator *op, const char *label, size_t in_shift, size_t out_shift) {
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    const size_t in_alloc = (size_t)in_bytes + 1, out_alloc = (size_t)out_bytes + GUARD;
    unsigned char *h_in = malloc(in_alloc), *h_ref = malloc(out_alloc), *h_got = malloc(out_alloc);
    if (!h_in || !h_ref || !h_got) {
        fprintf(stderr, "out of host memory for %s\n", label);
        exit(1);
    }
    test_fill_random(h_in, in_alloc);
    test_fill_random(h_ref, out_alloc); /* the poison */

    unsigned char *d_in = NULL, *d_out = NULL;
    bool own = in_bytes + in_shift + 1 > ARENA || out_alloc + out_shift > ARENA;
    if (own) {
        CU(cudaMalloc((void **)&d_in, in_alloc + in_shift));
        CU(cudaMalloc((void **)&d_out, out_alloc + out_shift));
    } else {
        d_in = d_in_arena, d_out = d_out_arena;
    }
    CU(cudaMemcpy(d_in + in_shift, h_in, in_alloc, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(d_out + out_shift, h_ref, out_alloc, cudaMemcpyHostToDevice));

    dmls_status s = dmls_execute_reference(op, h_in, in_bytes, h_ref, out_bytes);
    CHECK(s == DMLS_OK, "%s: reference failed: %s", label, dmls_last_error());
    s = dmls_execute_cuda(op, d_in + in_shift, in_bytes, d_out + out_shift, out_bytes, stream);
    CHECK(s == DMLS_OK, "%s: execute_cuda returned %s: %s", label, dmls_status_name(s), dmls_last_error());
    CU(cudaStreamSynchronize(stream));
    CU(cudaMemcpy(h_got, d_out + out_shift, out_alloc, cudaMemcpyDeviceToHost));
    size_t first = 0;
    while (first < out_alloc && h_got[first] == h_ref[first]) first++;
    CHECK(first == out_alloc, "%s: byte %zu of %zu differs (got %02x, want %02x)%s", label, first,
          (size_t)out_bytes, first < out_alloc ? h_got[first] : 0, first < out_alloc ? h_ref[first] : 0,
          first >= out_bytes ? " (past the tensor: an out-of-bounds write)" : "");
    /* The input is read-only. */
    unsigned char *h_back = h_got; /* reuse: at least as long? not always */
    if (in_alloc <= out_alloc) {
        CU(cudaMemcpy(h_back, d_in + in_shift, in_alloc, cudaMemcpyDeviceToHost));
        CHECK(memcmp(h_back, h_in, in_alloc) == 0, "%s: the input buffer changed", label);
    }
    if (own) {
        CU(cudaFree(d_in));
        CU(cudaFree(d_out));
    }
    free(h_in), free(h_ref), free(h_got);
}

/* ---------------------------------------------------------------- examples */

static void test_examples(void) {
    static const struct {
        DML_OPERATOR_TYPE type;
        UINT offsets[4], sizes[4];
        INT strides[4];
        UINT out[4];
        float want[4];
    } ex[] = {
        {DML_OPERATOR_SLICE, {0, 0, 1, 2}, {1, 1, 3, 2}, {1, 1, 1, 1}, {1, 1, 3, 2}, {7, 8, 11, 12}},
        {DML_OPERATOR_SLICE, {0, 0, 1, 0}, {1, 1, 2, 2}, {1, 1, 2, 3}, {1, 1, 2, 2}, {5, 8, 13, 16}},
        {DML_OPERATOR_SLICE1, {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, 2, 2}, {1, 1, 2, 2}, {2, 4, 10, 12}},
        {DML_OPERATOR_SLICE1, {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, -2, 2}, {1, 1, 2, 2}, {14, 16, 6, 8}},
    };
    static const UINT in_sizes[4] = {1, 1, 4, 4};
    float in[16];
    for (int i = 0; i < 16; i++) in[i] = (float)(i + 1);
    float *d_in, *d_out;
    CU(cudaMalloc((void **)&d_in, sizeof in));
    CU(cudaMalloc((void **)&d_out, 64));
    CU(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));
    for (size_t e = 0; e < sizeof ex / sizeof ex[0]; e++) {
        DML_BUFFER_TENSOR_DESC ib = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, in_sizes, NULL, 64, 0};
        DML_BUFFER_TENSOR_DESC ob = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, ex[e].out, NULL, 0, 0};
        uint64_t ob_bytes = 0;
        dmls_calc_buffer_tensor_size(ob.DataType, 4, ex[e].out, NULL, &ob_bytes);
        ob.TotalTensorSizeInBytes = ob_bytes;
        DML_TENSOR_DESC id = {DML_TENSOR_TYPE_BUFFER, &ib}, od = {DML_TENSOR_TYPE_BUFFER, &ob};
        DML_SLICE_OPERATOR_DESC s0 = {&id, &od, 4, ex[e].offsets, ex[e].sizes, (const UINT *)ex[e].strides};
        DML_SLICE1_OPERATOR_DESC s1 = {&id, &od, 4, ex[e].offsets, ex[e].sizes, ex[e].strides};
        DML_OPERATOR_DESC desc = {ex[e].type, ex[e].type == DML_OPERATOR_SLICE ? (const void *)&s0 : (const void *)&s1};
        dmls_operator *op = NULL;
        CHECK_STATUS(dmls_create_dml(&desc, DML_FEATURE_LEVEL_4_1, &op), DMLS_OK);
        if (op == NULL) continue;
        float got[4] = {0};
        CU(cudaMemset(d_out, 0xff, 64));
        CHECK_STATUS(dmls_execute_cuda(op, d_in, sizeof in, d_out, ob_bytes, NULL), DMLS_OK);
        CU(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
        CHECK(memcmp(got, ex[e].want, sizeof got) == 0, "example %zu: got %g %g %g %g", e, got[0], got[1], got[2],
              got[3]);
        char label[32];
        snprintf(label, sizeof label, "example %zu", e);
        differential(op, label, 0, 0);
        dmls_destroy(op);
    }
    CU(cudaFree(d_in));
    CU(cudaFree(d_out));
}

/* ---------------------------------------------------------------- binding */

static void test_binding_errors(void) {
    static const int64_t shape[2] = {4, 8}, out_shape[2] = {2, 4};
    static const int64_t offs[2] = {1, 2}, sizes[2] = {2, 4}, steps[2] = {1, 1};
    dmls_tensor in = {DMLS_FLOAT32, 2, shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    if (op == NULL) return;
    unsigned char *d, h[32 * 4];
    CU(cudaMalloc((void **)&d, 4096));
    CU(cudaMemset(d, 0x5a, 4096));
    CHECK_STATUS(dmls_execute_cuda(op, d, 127, d + 2048, 32, NULL), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "input buffer holds 127 bytes");
    CHECK_STATUS(dmls_execute_cuda(op, d, 128, d + 2048, 31, NULL), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_STATUS(dmls_execute_cuda(op, d, 128, d + 100, 32, NULL), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-X-OVERLAP", "overlap");
    CHECK_STATUS(dmls_execute_cuda(op, NULL, 128, d + 2048, 32, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_execute_cuda(NULL, d, 128, d + 2048, 32, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CU(cudaDeviceSynchronize());
    CU(cudaMemcpy(h, d + 2048, sizeof h, cudaMemcpyDeviceToHost));
    bool untouched = true;
    for (size_t i = 0; i < sizeof h; i++) untouched &= h[i] == 0x5a;
    CHECK(untouched, "a failed execute wrote to the output");
    CU(cudaFree(d));
    dmls_destroy(op);
}

/* ---------------------------------------------------------------- canonical */

static void test_canonical(void) {
    bench_case *cases = NULL;
    int n = 0;
    char err[256] = "";
    CHECK(bench_read_cases(DMLS_CASES_JSON, &cases, &n, err, sizeof err) == 0 && n > 0, "reading %s: %s",
          DMLS_CASES_JSON, err);
    for (int i = 0; i < n; i++) {
        dmls_operator *op = NULL;
        CHECK_STATUS(bench_create(&cases[i], &op), DMLS_OK);
        if (op == NULL) continue;
        differential(op, cases[i].name, 0, 0);
        printf("canonical %s: launch kind %d unit %d vec %d\n", cases[i].name, op->cuda.copy[0].kernel,
               op->cuda.copy[0].unit, op->cuda.copy[0].vec);
        dmls_destroy(op);
    }
    free(cases);
}

/* ---------------------------------------------------------------- random */

static const dmls_dtype dtypes[4] = {DMLS_UINT8, DMLS_FLOAT16, DMLS_FLOAT32, DMLS_INT64};

/* Strides for shape: packed, padded, with some dims reversed (byte_offset
 * moved so every element stays at or after the base) and, for inputs, some
 * broadcast. Adds a small random byte offset (misaligned for the element
 * sometimes). */
static void make_layout(int n, const int64_t *shape, size_t es, bool input, int64_t *strides, uint64_t *offset) {
    int64_t pitch = 1;
    int style = (int)test_range(0, 5); /* 0-2 packed, 3 padded, 4 padded+reversed, 5 all kinds */
    for (int i = n - 1; i >= 0; i--) {
        int64_t pad = style >= 3 && test_range(0, 2) == 0 ? test_range(1, 5) : 0;
        if (i == n - 1 && style >= 3 && test_range(0, 3) == 0) pitch = test_range(2, 3); /* strided inner */
        strides[i] = pitch;
        pitch = pitch * shape[i] + pad;
    }
    uint64_t off = 0;
    for (int i = 0; i < n; i++) {
        if (style >= 4 && test_range(0, 2) == 0 && shape[i] > 1) {
            off += (uint64_t)(strides[i] * (shape[i] - 1)) * es;
            strides[i] = -strides[i];
        }
        if (input && style == 5 && test_range(0, 5) == 0) strides[i] = 0;
    }
    int r = (int)test_range(0, 5);
    off += r == 0 ? (uint64_t)test_range(1, 17) : r == 1 ? es * (uint64_t)test_range(1, 5) : 0;
    *offset = off;
}

static void random_case(int iter) {
    const int n = (int)test_range(1, 8);
    const dmls_dtype dt = dtypes[test_range(0, 3)];
    const size_t es = dmls_dtype_size(dt);
    int64_t big[DMLS_MAX_RANK], small[DMLS_MAX_RANK], offs[DMLS_MAX_RANK], sizes[DMLS_MAX_RANK],
        steps[DMLS_MAX_RANK];
    /* Bounded element count; the inner dim sometimes long and a multiple of
     * 16 (vector paths), sometimes 2-3 (channels). */
    int64_t budget = test_range(0, 3) == 0 ? 200000 : 4000;
    for (int i = 0; i < n; i++) {
        int64_t cap = budget > 1 ? budget : 1;
        if (cap > 40 && i < n - 1) cap = 40 / (n > 3 ? 2 : 1) + 1;
        int64_t v = test_range(1, cap < 64 ? cap : 64);
        if (i == n - 1) {
            int r = (int)test_range(0, 3);
            if (r == 0) v = 16 * test_range(1, 32);
            else if (r == 1) v = test_range(2, 3);
        }
        big[i] = v;
        budget /= v;
    }
    for (int i = 0; i < n; i++) {
        int r = (int)test_range(0, 5);
        int64_t step = r <= 1 ? 1 : r == 2 ? -1 : r == 3 ? 2 : r == 4 ? -2 : test_range(-4, 4);
        if (step == 0) step = 3;
        offs[i] = test_range(0, big[i] - 1);
        sizes[i] = test_range(1, big[i] - offs[i]);
        if (test_range(0, 2) == 0) offs[i] = 0, sizes[i] = big[i];
        int64_t most = 1 + (sizes[i] - 1) / (step < 0 ? -step : step);
        small[i] = test_range(0, 3) == 0 ? test_range(1, most) : most;
        steps[i] = step;
    }
    /* A third of the cases are shaped for the vector launches (packed,
     * aligned, a long or channel-like inner dim, inner step +-1 or +-2), so
     * those are tested on many shapes, not just the canonical ones. */
    const bool vector_friendly = test_range(0, 2) == 0;
    if (vector_friendly) {
        const int in = n - 1;
        big[in] = test_range(0, 1) ? 16 * test_range(1, 24) : 3 * test_range(1, 2);
        static const int64_t inner_steps[4] = {1, -1, 2, -2};
        steps[in] = inner_steps[test_range(0, 3)];
        offs[in] = test_range(0, 1) ? 0 : test_range(0, big[in] - 1);
        sizes[in] = big[in] - offs[in];
        small[in] = 1 + (sizes[in] - 1) / (steps[in] < 0 ? -steps[in] : steps[in]);
    }
    const bool grad = test_range(0, 3) == 0;
    int64_t big_strides[DMLS_MAX_RANK], small_strides[DMLS_MAX_RANK];
    uint64_t big_off = 0, small_off = 0;
    if (vector_friendly) {
        for (int i = n - 1, pb = 1, ps = 1; i >= 0; i--) {
            big_strides[i] = pb, small_strides[i] = ps;
            pb *= (int)big[i], ps *= (int)small[i];
        }
    } else {
        make_layout(n, big, es, !grad, big_strides, &big_off);
        make_layout(n, small, es, grad, small_strides, &small_off);
    }
    dmls_tensor tb = {dt, n, big, big_strides, big_off}, ts = {dt, n, small, small_strides, small_off};
    dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL;
    dmls_status s = grad ? dmls_create_grad(&ts, &tb, &w, &op) : dmls_create(&tb, &ts, &w, &op);
    CHECK(s == DMLS_OK, "random %d: create failed: %s", iter, dmls_last_error());
    if (op == NULL) return;
    char label[64];
    snprintf(label, sizeof label, "random %d (%s, rank %d, %zu-byte)", iter, grad ? "grad" : "slice", n, es);
    size_t in_shift = vector_friendly || test_range(0, 1) ? 0 : (size_t)test_range(1, 31);
    size_t out_shift = vector_friendly || test_range(0, 1) ? 0 : (size_t)test_range(1, 31);
    differential(op, label, in_shift, out_shift);
    const uintptr_t a = (uintptr_t)(d_in_arena + in_shift), b = (uintptr_t)(d_out_arena + out_shift);
    for (int i = 0; i < DMLS_CUDA_CHOICES; i++) {
        const dmls_cuda_launch *L = &op->cuda.copy[i];
        if (i == DMLS_CUDA_CHOICES - 1 || (L->src_align && a % L->src_align == 0 && b % L->dst_align == 0)) {
            launches_by_kernel[L->kernel]++;
            break;
        }
    }
    dmls_destroy(op);
}

/* ---------------------------------------------------------------- large */

static void test_large(void) {
    /* 3 x (2^30 - 1) one-byte elements from a 3 x 2^30 input: over 2^31
     * elements, and the odd row length keeps it on the byte-unit path. */
    static const int64_t in_shape[2] = {3, (int64_t)1 << 30}, out_shape[2] = {3, ((int64_t)1 << 30) - 1};
    static const int64_t offs[2] = {0, 1}, sizes[2] = {3, ((int64_t)1 << 30) - 1}, steps[2] = {1, 1};
    dmls_tensor in = {DMLS_UINT8, 2, in_shape, NULL, 0}, out = {DMLS_UINT8, 2, out_shape, NULL, 0};
    dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    if (op == NULL) return;
    CHECK(op->cuda.copy[0].wide == 1, "large: expected the 64-bit index path");
    printf("large: %llu one-byte elements, 64-bit index path\n", (unsigned long long)op->cuda.copy[0].count);
    const size_t ib = (size_t)dmls_input_bytes(op), ob = (size_t)dmls_output_bytes(op);
    unsigned char *h_in = malloc(ib), *h_ref = malloc(ob), *h_got = malloc(ob), *d_in, *d_out;
    CHECK(h_in && h_ref && h_got, "large: out of host memory");
    if (h_in && h_ref && h_got) {
        test_fill_random(h_in, ib);
        CU(cudaMalloc((void **)&d_in, ib));
        CU(cudaMalloc((void **)&d_out, ob));
        CU(cudaMemcpy(d_in, h_in, ib, cudaMemcpyHostToDevice));
        CU(cudaMemset(d_out, 0x33, ob));
        CHECK_STATUS(dmls_execute_cuda(op, d_in, ib, d_out, ob, stream), DMLS_OK);
        CU(cudaStreamSynchronize(stream));
        CU(cudaMemcpy(h_got, d_out, ob, cudaMemcpyDeviceToHost));
        CHECK_STATUS(dmls_execute(op, h_in, ib, h_ref, ob), DMLS_OK);
        CHECK(memcmp(h_got, h_ref, ob) == 0, "large: GPU output differs from the CPU executor");
        CU(cudaFree(d_in));
        CU(cudaFree(d_out));
    }
    free(h_in), free(h_ref), free(h_got);
    dmls_destroy(op);
}

int main(void) {
    test_seed_rng();
    if (!dmls_cuda_available()) {
        const char *why = dmls_last_error();
        printf("no CUDA device (%s): checking the clean refusal, then skipping\n", why);
        static const int64_t shape[1] = {4}, offs[1] = {0}, sizes[1] = {4}, steps[1] = {1};
        dmls_tensor t = {DMLS_FLOAT32, 1, shape, NULL, 0};
        dmls_window w = {offs, sizes, steps};
        dmls_operator *op = NULL;
        CHECK_STATUS(dmls_create(&t, &t, &w, &op), DMLS_OK);
        static float fake_in[4], fake_out[4];
        if (op) CHECK_STATUS(dmls_execute_cuda(op, fake_in, 16, fake_out, 16, NULL), DMLS_ERROR_NO_DEVICE);
        CHECK(strstr(dmls_last_error(), "no CUDA device") != NULL, "message: %s", dmls_last_error());
        dmls_destroy(op);
        if (test_checks_failed) TEST_MAIN_END();
        printf("SKIPPED: %d checks passed\n", test_checks_passed);
        return 77;
    }
    char name[256];
    dmls_cuda_device_name(0, name, sizeof name, NULL, NULL);
    printf("device: %s\n", name);
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CU(cudaMalloc((void **)&d_in_arena, ARENA));
    CU(cudaMalloc((void **)&d_out_arena, ARENA));

    test_examples();
    test_binding_errors();
    const char *iters_env = getenv("DMLS_TEST_ITERS");
    const int iters = iters_env ? atoi(iters_env) : 1500;
    for (int i = 0; i < iters; i++) random_case(i);
    printf("random cases by first-choice launch: copy %d, gather %d, reverse %d, memset %d, fill %d\n",
           launches_by_kernel[DMLS_CUDA_COPY], launches_by_kernel[DMLS_CUDA_GATHER],
           launches_by_kernel[DMLS_CUDA_REVERSE], launches_by_kernel[DMLS_CUDA_MEMSET],
           launches_by_kernel[DMLS_CUDA_FILL]);
    if (!getenv("DMLS_TEST_NO_CANONICAL")) test_canonical();
    if (getenv("DMLS_TEST_LARGE")) test_large();

    CU(cudaFree(d_in_arena));
    CU(cudaFree(d_out_arena));
    CU(cudaStreamDestroy(stream));
    TEST_MAIN_END();
}
