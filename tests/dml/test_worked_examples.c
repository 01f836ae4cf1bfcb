/* The four worked examples of DirectML's SLICE and SLICE1 pages, byte-exact,
 * on both API paths; and SLICE_GRAD on the reverse of each SLICE1 example. */
#include "support/dml_fixture.h"
#include "support/test.h"
#include "worked_examples.h"

static void set_example(fixture *f, const dmls_worked_example *s, DML_OPERATOR_TYPE type) {
    fixture_init(f, type);
    memcpy(f->offsets, s->offsets, sizeof s->offsets);
    memcpy(f->sizes, s->sizes, sizeof s->sizes);
    memcpy(f->strides, s->strides, sizeof s->strides);
    for (int i = 0; i < 4; i++) f->slice_strides[i] = (UINT)s->strides[i];
    memcpy(type == DML_OPERATOR_SLICE_GRAD ? f->in_sizes : f->out_sizes, s->out_sizes, sizeof s->out_sizes);
    fixture_sizes(f);
}

static size_t count_of(const UINT *sizes) { return (size_t)sizes[0] * sizes[1] * sizes[2] * sizes[3]; }

static void test_dml_path(void) {
    for (size_t k = 0; k < DMLS_WORKED_EXAMPLE_COUNT; k++) {
        const dmls_worked_example *s = &dmls_worked_examples[k];
        fixture f;
        set_example(&f, s, s->type);
        _Alignas(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) float out[8], ref[8];
        memset(out, 0xA5, sizeof out);
        memset(ref, 0xA5, sizeof ref);
        const size_t n = count_of(s->out_sizes);
        /* Every feature level where the operator exists at rank 4 runs it. */
        CHECK_STATUS(dmls_slice_dml(&f.op, s->type == DML_OPERATOR_SLICE ? DML_FEATURE_LEVEL_1_0 : DML_FEATURE_LEVEL_2_1,
                                    dmls_worked_input, sizeof dmls_worked_input, out, n * 4),
                     DMLS_OK);
        CHECK(memcmp(out, s->expected, n * 4) == 0, "%s: output differs", s->name);
        CHECK(((unsigned char *)out)[n * 4] == 0xA5, "%s: wrote past the output", s->name);
        dmls_operator *op = NULL;
        CHECK_STATUS(dmls_create_dml(&f.op, DML_FEATURE_LEVEL_6_4, &op), DMLS_OK);
        if (!op) continue;
        CHECK_STATUS(dmls_execute_reference(op, dmls_worked_input, sizeof dmls_worked_input, ref, n * 4), DMLS_OK);
        CHECK(memcmp(ref, s->expected, n * 4) == 0, "%s: reference output differs", s->name);
        dmls_destroy(op);
    }
}

static void test_native_path(void) {
    for (size_t k = 0; k < DMLS_WORKED_EXAMPLE_COUNT; k++) {
        const dmls_worked_example *s = &dmls_worked_examples[k];
        int64_t in_shape[4] = {1, 1, 4, 4}, out_shape[4], off[4], size[4], stride[4];
        for (int i = 0; i < 4; i++) {
            out_shape[i] = s->out_sizes[i];
            off[i] = s->offsets[i];
            stride[i] = s->strides[i];
            /* SLICE's Sizes are output sizes: its window spans (size-1)*stride+1. */
            size[i] = s->type == DML_OPERATOR_SLICE ? (int64_t)(s->sizes[i] - 1) * stride[i] + 1 : s->sizes[i];
        }
        dmls_tensor in = {DMLS_FLOAT32, 4, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 4, out_shape, NULL, 0};
        dmls_window w = {off, size, stride};
        float o[6];
        const size_t n = count_of(s->out_sizes);
        CHECK_STATUS(dmls_slice(&in, dmls_worked_input, sizeof dmls_worked_input, &out, o, n * 4, &w), DMLS_OK);
        CHECK(memcmp(o, s->expected, n * 4) == 0, "%s (native): output differs", s->name);
    }
}

/* SLICE_GRAD with each SLICE1 example's window: the example's output, fed
 * back as the input gradient, lands where SLICE1 read it; zeros elsewhere. */
static void test_grad_of_slice1(void) {
    for (size_t k = 2; k < 4; k++) {
        const dmls_worked_example *s = &dmls_worked_examples[k];
        fixture f;
        set_example(&f, s, DML_OPERATOR_SLICE_GRAD);
        float expected[16] = {0};
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 4; j++)
                if (s->expected[j] == dmls_worked_input[i]) expected[i] = dmls_worked_input[i];
        _Alignas(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) float out[16], ref[16], grad[4];
        memcpy(grad, s->expected, sizeof grad); /* bound where DirectML would bind it (R-X-ALIGN) */
        for (int m = 0; m < 16; m++) out[m] = ref[m] = -99.0f; /* the zeros must be written */
        CHECK_STATUS(dmls_slice_dml(&f.op, DML_FEATURE_LEVEL_3_0, grad, 16, out, sizeof out), DMLS_OK);
        CHECK(memcmp(out, expected, sizeof out) == 0, "%s: SLICE_GRAD output differs", s->name);
        dmls_operator *op = NULL;
        CHECK_STATUS(dmls_create_dml(&f.op, DML_FEATURE_LEVEL_3_1, &op), DMLS_OK);
        if (!op) continue;
        CHECK_STATUS(dmls_execute_reference(op, grad, 16, ref, sizeof ref), DMLS_OK);
        CHECK(memcmp(ref, expected, sizeof ref) == 0, "%s: SLICE_GRAD reference differs", s->name);
        dmls_destroy(op);
        /* Round trip: SLICE1 of the gradient gives the input gradient back. */
        fixture g;
        set_example(&g, s, DML_OPERATOR_SLICE1);
        _Alignas(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) float back[4];
        CHECK_STATUS(dmls_slice_dml(&g.op, DML_FEATURE_LEVEL_2_1, out, sizeof out, back, sizeof back), DMLS_OK);
        CHECK(memcmp(back, s->expected, sizeof back) == 0, "%s: SLICE1(SLICE_GRAD(x)) != x", s->name);
    }
}

/* dmls_calc_buffer_tensor_size: DirectML's helper, in 64 bits (R-T-TOTAL). */
static void test_buffer_size(void) {
    uint64_t b = 0;
    const UINT s4[4] = {1, 1, 3, 2}, odd[1] = {3};
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 4, s4, NULL, &b), DMLS_OK);
    CHECK(b == 24, "packed 1x1x3x2 float32: %llu", (unsigned long long)b);
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT8, 1, odd, NULL, &b), DMLS_OK);
    CHECK(b == 4, "3 bytes round up to 4: %llu", (unsigned long long)b);
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT16, 1, odd, NULL, &b), DMLS_OK);
    CHECK(b == 8, "6 bytes round up to 8: %llu", (unsigned long long)b);
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT4, 1, odd, NULL, &b), DMLS_OK);
    CHECK(b == 4, "3 nibbles: ceil(12/8)=2 -> 4: %llu", (unsigned long long)b);
    const UINT st[4] = {100, 50, 8, 1};
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT64, 4, s4, st, &b), DMLS_OK);
    CHECK(b == (2 * 8 + 1 + 1) * 8, "strided: %llu", (unsigned long long)b);
    const UINT big[2] = {4294967295u, 4294967295u};
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_INT64, 2, big, NULL, &b), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-TOTAL", "overflows");
    const UINT zero[1] = {0};
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_INT64, 1, zero, NULL, &b),
                 DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-SIZES", "Sizes[0] = 0");
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UNKNOWN, 1, odd, NULL, &b),
                 DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-DTYPE", "DataType 0");
}

/* Status names: every listed value has its own name, others a fallback. */
static void test_status_names(void) {
    const dmls_status all[] = {DMLS_OK, DMLS_ERROR_INVALID_ARGUMENT, DMLS_ERROR_UNSUPPORTED,
                               DMLS_ERROR_OUT_OF_BOUNDS, DMLS_ERROR_SHAPE_MISMATCH, DMLS_ERROR_OVERFLOW,
                               DMLS_ERROR_BUFFER_TOO_SMALL, DMLS_ERROR_MISALIGNED, DMLS_ERROR_OVERLAP,
                               DMLS_ERROR_OUT_OF_MEMORY, DMLS_ERROR_NO_DEVICE, DMLS_ERROR_DEVICE,
                               DMLS_ERROR_IO, DMLS_ERROR_FORMAT};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        CHECK(strncmp(dmls_status_name(all[i]), "DMLS_", 5) == 0, "status %d", (int)all[i]);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(dmls_status_name(all[i]), dmls_status_name(all[j])) != 0, "duplicate name %s",
                  dmls_status_name(all[i]));
    }
    CHECK(strcmp(dmls_status_name(DMLS_ERROR_OVERLAP), "DMLS_ERROR_OVERLAP") == 0, "name");
    CHECK(strcmp(dmls_status_name((dmls_status)999), "DMLS_ERROR_UNKNOWN_STATUS") == 0, "unknown");
}

int main(void) {
    test_dml_path();
    test_native_path();
    test_grad_of_slice1();
    test_buffer_size();
    test_status_names();
    TEST_MAIN_END();
}
