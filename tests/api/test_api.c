/* The public API's edges that the rule tests do not reach: NULL arguments on
 * every entry point of the native and DirectML paths (R-OP-NULL), unknown
 * data types (R-T-DTYPE) and ranks (R-OP-RANK) on the native path, the
 * operator queries, the name tables, the one-shot calls' failures (nothing
 * written), empty operators, the 64-bit edges of native views (R-T-ELEMS,
 * R-T-TOTAL), and the overflow guards of the output-layout check
 * (R-T-OUTLAYOUT) and of the normalizer. */
#include "dmlslice/frontends.h"
#include "operator.h"
#include "plan/rule_cases.h"
#include "plan/validate.h"
#include "support/test.h"

#define FL41 DML_FEATURE_LEVEL_4_1

/* The native 4x4 -> 2x2 slice of test_rules' native tests, as variables a
 * test can break one at a time. */
typedef struct native {
    int64_t in_shape[2], out_shape[2], off[2], size[2], stride[2];
    dmls_tensor in, out;
    dmls_window w;
} native;

static void native_init(native *n) {
    *n = (native){{4, 4}, {2, 2}, {0, 1}, {4, 3}, {2, 2}, {0}, {0}, {0}};
    n->in = (dmls_tensor){DMLS_FLOAT32, 2, n->in_shape, NULL, 0};
    n->out = (dmls_tensor){DMLS_FLOAT32, 2, n->out_shape, NULL, 0};
    n->w = (dmls_window){n->off, n->size, n->stride};
}

/* The native cases that break one field of native_init's operator: dmls_create,
 * or dmls_create_grad with the 2x2 as the input gradient. Each rule's test_*
 * runs its rows (docs/RULES.md names those functions). */
typedef struct native_case {
    const char *rule;
    bool grad;
    field_write set;
    dmls_status want;
    const char *message;
} native_case;
#define NSET(field, v) FIELD_SET(native, field, v)

static const native_case native_cases[] = {
    {"R-OP-NULL", false, NSET(in.shape, 0), DMLS_ERROR_INVALID_ARGUMENT, "slice: input.shape is NULL with ndim 2"},
    {"R-OP-NULL", true, NSET(in.shape, 0), DMLS_ERROR_INVALID_ARGUMENT,
     "slice_grad: output_grad.shape is NULL with ndim 2"},
    {"R-OP-NULL", false, NSET(w.offsets, 0), DMLS_ERROR_INVALID_ARGUMENT, "slice: window offsets is NULL with ndim 2"},
    {"R-OP-NULL", false, NSET(w.strides, 0), DMLS_ERROR_INVALID_ARGUMENT, "slice: window strides is NULL with ndim 2"},
    {"R-T-DTYPE", false, NSET(in.dtype, 0), DMLS_ERROR_INVALID_ARGUMENT,
     "slice: input.dtype = 0 is not a known data type"},
    {"R-T-DTYPE", false, NSET(out.dtype, 12), DMLS_ERROR_INVALID_ARGUMENT,
     "slice: output.dtype = 12 is not a known data type"},
    {"R-T-DTYPE", true, NSET(in.dtype, -3), DMLS_ERROR_INVALID_ARGUMENT,
     "slice_grad: output_grad.dtype = -3 is not a known data type"},
    {"R-OP-RANK", false, NSET(in.ndim, -1), DMLS_ERROR_UNSUPPORTED, "slice: input.ndim = -1 is outside 0 to 8"},
    {"R-OP-RANK", false, NSET(out.ndim, 1), DMLS_ERROR_SHAPE_MISMATCH,
     "slice: output.ndim = 1 differs from input.ndim = 2"},
    {"R-OP-RANK", true, NSET(in.ndim, 1), DMLS_ERROR_SHAPE_MISMATCH,
     "slice_grad: output_grad.ndim = 1 differs from input_grad.ndim = 2"},
};
enum { NATIVE_CASES = sizeof native_cases / sizeof native_cases[0] };
static int native_cases_run; /* main checks that every row ran */

static void run_native_cases(const char *rule) {
    for (size_t i = 0; i < NATIVE_CASES; i++) {
        const native_case *c = &native_cases[i];
        if (strcmp(c->rule, rule) != 0) continue;
        native n;
        native_init(&n);
        field_write_apply(&n, &c->set);
        dmls_operator *op = NULL;
        const dmls_status got =
            c->grad ? dmls_create_grad(&n.out, &n.in, &n.w, &op) : dmls_create(&n.in, &n.out, &n.w, &op);
        CHECK(got == c->want, "native row %zu: %s, expected %s; message: %s", i, dmls_status_name(got),
              dmls_status_name(c->want), dmls_last_error());
        check_rule_message(rule, (const char *const[RULE_FRAGS]){c->message});
        native_cases_run++;
    }
}

/* R-OP-NULL on the native path: each pointer in turn, and *op reset. */
static void test_native_null(void) {
    native n;
    native_init(&n);
    dmls_operator *op = (dmls_operator *)&n;
    CHECK_STATUS(dmls_create(&n.in, &n.out, &n.w, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "slice: op (the result pointer) is NULL");
    CHECK_STATUS(dmls_create(NULL, &n.out, &n.w, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "slice: input is NULL");
    CHECK(op == NULL, "op not reset to NULL on failure");
    CHECK_STATUS(dmls_create(&n.in, NULL, &n.w, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "slice: output is NULL");
    CHECK_STATUS(dmls_create_grad(NULL, &n.in, &n.w, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "slice_grad: input_grad is NULL");
    CHECK_STATUS(dmls_create_grad(&n.out, NULL, &n.w, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "slice_grad: output_grad is NULL");
    CHECK_STATUS(dmls_create_grad(&n.out, &n.in, &n.w, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "slice_grad: op (the result pointer) is NULL");

    CHECK_STATUS(dmls_create(&n.in, &n.out, NULL, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "slice: window is NULL with ndim 2");
    run_native_cases("R-OP-NULL"); /* the arrays */

    /* Rank 0 needs no arrays at all: a scalar copied as it is. */
    dmls_tensor s_in = {DMLS_INT64, 0, NULL, NULL, 0}, s_out = {DMLS_INT64, 0, NULL, NULL, 0};
    CHECK_STATUS(dmls_create(&s_in, &s_out, NULL, &op), DMLS_OK);
    if (op) {
        int64_t x = -1234567890123LL, y = 0;
        CHECK(dmls_input_bytes(op) == 8 && dmls_output_bytes(op) == 8, "a scalar needs 8 bytes each side");
        CHECK_STATUS(dmls_execute(op, &x, 8, &y, 8), DMLS_OK);
        CHECK(y == x, "scalar copy gave %lld", (long long)y);
        dmls_destroy(op);
    }
}

/* R-T-DTYPE on the native path, and the dtype tables it relies on. */
static void test_native_dtype(void) {
    run_native_cases("R-T-DTYPE");

    static const struct {
        dmls_dtype t;
        size_t size;
        const char *name;
    } table[] = {
        {DMLS_FLOAT32, 4, "float32"}, {DMLS_FLOAT16, 2, "float16"}, {DMLS_UINT32, 4, "uint32"},
        {DMLS_UINT16, 2, "uint16"},   {DMLS_UINT8, 1, "uint8"},     {DMLS_INT32, 4, "int32"},
        {DMLS_INT16, 2, "int16"},     {DMLS_INT8, 1, "int8"},       {DMLS_FLOAT64, 8, "float64"},
        {DMLS_UINT64, 8, "uint64"},   {DMLS_INT64, 8, "int64"},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        CHECK(dmls_dtype_size(table[k].t) == table[k].size, "dtype %d: size %zu, want %zu", (int)table[k].t,
              dmls_dtype_size(table[k].t), table[k].size);
        const char *name = dmls_dtype_name(table[k].t);
        CHECK(name && strcmp(name, table[k].name) == 0, "dtype %d: name %s, want %s", (int)table[k].t,
              name ? name : "(null)", table[k].name);
    }
    CHECK(dmls_dtype_size((dmls_dtype)0) == 0 && dmls_dtype_size((dmls_dtype)12) == 0, "unknown dtypes have size 0");
    CHECK(dmls_dtype_name((dmls_dtype)0) == NULL && dmls_dtype_name((dmls_dtype)12) == NULL,
          "unknown dtypes have no name");
}

/* R-OP-RANK on the native path: the range, and the two ranks agreeing. */
static void test_native_rank(void) { run_native_cases("R-OP-RANK"); }

/* R-OP-NULL on the DirectML path: the pointers test_rules leaves out. */
static void test_dml_null(void) {
    static const rule_case rows[] = {
        {"R-OP-NULL", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET_NULL(op.Desc)},
         .frags = {"SLICE: operator Desc is NULL"}},
        {"R-OP-NULL", DML_OPERATOR_SLICE_GRAD, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET_NULL(op.Desc)},
         .frags = {"SLICE_GRAD: operator Desc is NULL"}},
        {"R-OP-NULL", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET_NULL(slice.Sizes)},
         .frags = {"SLICE: Sizes is NULL"}},
        {"R-OP-NULL", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET_NULL(slice.Strides)},
         .frags = {"SLICE: Strides is NULL"}},
        {"R-OP-NULL", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT,
         .set = {SET_NULL(slice1.InputWindowOffsets)}, .frags = {"SLICE1: InputWindowOffsets is NULL"}},
        {"R-OP-NULL", DML_OPERATOR_SLICE_GRAD, FL41, DMLS_ERROR_INVALID_ARGUMENT,
         .set = {SET_NULL(grad.InputWindowSizes)}, .frags = {"SLICE_GRAD: InputWindowSizes is NULL"}},
    };
    run_rule_cases(rows, sizeof rows / sizeof rows[0], "R-OP-NULL"); /* each checks no operator came back */
    fixture f;
    dmls_operator *op = NULL;

    /* DML_OPERATOR_INVALID (0) is a listed enum value but no slice operator. */
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.op.Type = DML_OPERATOR_INVALID;
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "operator Type 0 is not SLICE (60), SLICE1 (111) or SLICE_GRAD (135)") != NULL,
          "message: %s", dmls_last_error());
    CHECK(dmls_last_error_rule()[0] == '\0', "an unknown operator type names no rule: %s", dmls_last_error_rule());

    const UINT sizes[2] = {3, 5};
    uint64_t bytes = 77;
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 2, NULL, NULL, &bytes),
                 DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "calc_buffer_tensor_size: Sizes is NULL with DimensionCount 2");
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL, NULL),
                 DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "calc_buffer_tensor_size: bytes is NULL");
    CHECK(bytes == 77, "bytes written on failure");
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 0, NULL, NULL, &bytes), DMLS_OK);
    CHECK(bytes == 4, "a rank-0 float32 needs 4 bytes, got %llu", (unsigned long long)bytes);
}

/* The queries, on the DirectML path, the native path and SLICE_GRAD. */
static void test_queries(void) {
    fixture f;
    dmls_operator *op = NULL;
    int64_t shape[DMLS_MAX_RANK];
    fixture_init(&f, DML_OPERATOR_SLICE1);
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (op) {
        dmls_output_shape(op, shape);
        CHECK(dmls_output_rank(op) == 4 && dmls_element_size(op) == 4, "SLICE1: rank %d, element size %zu",
              (int)dmls_output_rank(op), dmls_element_size(op));
        CHECK(shape[0] == 1 && shape[1] == 1 && shape[2] == 2 && shape[3] == 2, "SLICE1 output shape");
        CHECK(dmls_input_bytes(op) == 64 && dmls_output_bytes(op) == 16, "SLICE1 bytes");
        dmls_destroy(op);
    }
    fixture_init(&f, DML_OPERATOR_SLICE_GRAD); /* execute writes the 1x1x4x4 output gradient */
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (op) {
        dmls_output_shape(op, shape);
        CHECK(dmls_output_rank(op) == 4 && shape[2] == 4 && shape[3] == 4, "SLICE_GRAD output shape %lldx%lld",
              (long long)shape[2], (long long)shape[3]);
        CHECK(dmls_input_bytes(op) == 16 && dmls_output_bytes(op) == 64, "SLICE_GRAD bytes");
        dmls_destroy(op);
    }
    /* Native int16, rank 3, a padded output: bytes count the padding. */
    int64_t in_shape[3] = {5, 6, 7}, out_shape[3] = {2, 3, 7}, out_strides[3] = {40, 10, 1};
    int64_t off[3] = {1, 0, 0}, size[3] = {4, 6, 7}, step[3] = {2, 2, 1};
    dmls_tensor in = {DMLS_INT16, 3, in_shape, NULL, 0}, out = {DMLS_INT16, 3, out_shape, out_strides, 6};
    dmls_window w = {off, size, step};
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    if (op) {
        for (int i = 0; i < DMLS_MAX_RANK; i++) shape[i] = -9;
        dmls_output_shape(op, shape);
        CHECK(dmls_output_rank(op) == 3 && dmls_element_size(op) == 2, "native: rank %d, element size %zu",
              (int)dmls_output_rank(op), dmls_element_size(op));
        CHECK(shape[0] == 2 && shape[1] == 3 && shape[2] == 7 && shape[3] == -9,
              "native output shape, and nothing past rank 3 written");
        /* byte_offset 6 + 2 * (40 + 2 * 10 + 6 + 1) */
        CHECK(dmls_input_bytes(op) == 420 && dmls_output_bytes(op) == 140, "native bytes %llu, %llu",
              (unsigned long long)dmls_input_bytes(op), (unsigned long long)dmls_output_bytes(op));
        dmls_destroy(op);
    }
    dmls_destroy(NULL);
}

/* The backend table (backend.h): the CPU always, CUDA exactly where this
 * build has it, in their enum slots; every operator holds a prepared form
 * for each backend built in and none for the others. */
static void test_backend_table(void) {
    CHECK(dmls_backends[DMLS_BACKEND_CPU] != NULL && strcmp(dmls_backends[DMLS_BACKEND_CPU]->name, "cpu") == 0,
          "the CPU backend's entry");
#ifdef DMLS_HAVE_CUDA
    CHECK(dmls_backends[DMLS_BACKEND_CUDA] != NULL && strcmp(dmls_backends[DMLS_BACKEND_CUDA]->name, "cuda") == 0,
          "the CUDA backend's entry in a CUDA build");
#else
    CHECK(dmls_backends[DMLS_BACKEND_CUDA] == NULL, "a CUDA entry in a build without CUDA");
#endif
    fixture f;
    dmls_operator *op = NULL;
    fixture_init(&f, DML_OPERATOR_SLICE_GRAD);
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (op) {
        for (int id = 0; id < DMLS_BACKEND_COUNT; id++)
            CHECK((dmls_operator_prepared(op, (dmls_backend_id)id) != NULL) == (dmls_backends[id] != NULL),
                  "backend %d: prepared %p, built in %d", id, dmls_operator_prepared(op, (dmls_backend_id)id),
                  dmls_backends[id] != NULL);
        dmls_destroy(op);
    }
}

/* The queries answer a NULL handle with the neutral value dmlslice.h and
 * frontends.h state, as dmls_destroy and dmls_execute accept NULL, and never
 * crash; dmls_output_shape also takes a NULL array. */
static void test_null_queries(void) {
    CHECK(dmls_input_bytes(NULL) == 0 && dmls_output_bytes(NULL) == 0, "NULL op: bytes");
    CHECK(dmls_output_rank(NULL) == -1, "NULL op: rank %d", (int)dmls_output_rank(NULL));
    CHECK(dmls_element_size(NULL) == 0, "NULL op: element size %zu", dmls_element_size(NULL));
    int64_t shape[DMLS_MAX_RANK] = {-9, -9};
    dmls_output_shape(NULL, shape);
    CHECK(shape[0] == -9 && shape[1] == -9, "NULL op: output shape written");
    CHECK(dmls_context_threads(NULL) == 1, "NULL context: %d threads", dmls_context_threads(NULL));
    dmls_window w = dmls_lowered_window(NULL);
    CHECK(w.offsets == NULL && w.sizes == NULL && w.strides == NULL, "NULL lowered: window not empty");
    fixture f;
    dmls_operator *op = NULL;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    dmls_output_shape(op, NULL);
    dmls_destroy(op);
    dmls_context_destroy(NULL);
}

/* Every status has its enum's name; the version is the header's. */
static void test_names(void) {
    static const struct {
        dmls_status s;
        const char *name;
    } table[] = {
        {DMLS_OK, "DMLS_OK"},
        {DMLS_ERROR_INVALID_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT"},
        {DMLS_ERROR_UNSUPPORTED, "DMLS_ERROR_UNSUPPORTED"},
        {DMLS_ERROR_OUT_OF_BOUNDS, "DMLS_ERROR_OUT_OF_BOUNDS"},
        {DMLS_ERROR_SHAPE_MISMATCH, "DMLS_ERROR_SHAPE_MISMATCH"},
        {DMLS_ERROR_OVERFLOW, "DMLS_ERROR_OVERFLOW"},
        {DMLS_ERROR_BUFFER_TOO_SMALL, "DMLS_ERROR_BUFFER_TOO_SMALL"},
        {DMLS_ERROR_MISALIGNED, "DMLS_ERROR_MISALIGNED"},
        {DMLS_ERROR_OVERLAP, "DMLS_ERROR_OVERLAP"},
        {DMLS_ERROR_OUT_OF_MEMORY, "DMLS_ERROR_OUT_OF_MEMORY"},
        {DMLS_ERROR_NO_DEVICE, "DMLS_ERROR_NO_DEVICE"},
        {DMLS_ERROR_DEVICE, "DMLS_ERROR_DEVICE"},
        {DMLS_ERROR_IO, "DMLS_ERROR_IO"},
        {DMLS_ERROR_FORMAT, "DMLS_ERROR_FORMAT"},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        CHECK(strcmp(dmls_status_name(table[k].s), table[k].name) == 0, "status %d named %s, want %s",
              (int)table[k].s, dmls_status_name(table[k].s), table[k].name);
    CHECK(strcmp(dmls_status_name((dmls_status)1), "DMLS_ERROR_UNKNOWN_STATUS") == 0 &&
              strcmp(dmls_status_name((dmls_status)-1), "DMLS_ERROR_UNKNOWN_STATUS") == 0,
          "unlisted statuses are DMLS_ERROR_UNKNOWN_STATUS");
    CHECK(strcmp(dmls_version(), DMLS_VERSION_STRING) == 0, "version %s, header %s", dmls_version(),
          DMLS_VERSION_STRING);
}

/* A NULL operator, a NULL output and a misaligned output, on each executor;
 * nothing is written on any of these failures. */
static void test_execute_errors(void) {
    _Alignas(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) float in[16] = {0}, out[4] = {-1, -1, -1, -1};
    CHECK_STATUS(dmls_execute(NULL, in, sizeof in, out, sizeof out), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(dmls_last_error(), "execute: operator is NULL") == 0, "message: %s", dmls_last_error());
    CHECK_STATUS(dmls_execute_reference(NULL, in, sizeof in, out, sizeof out), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(dmls_last_error(), "execute: operator is NULL") == 0, "message: %s", dmls_last_error());

    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.out_buf.GuaranteedBaseOffsetAlignment = 32; /* above DirectML's minimum of 16 */
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (!op) return;
    CHECK_STATUS(dmls_execute(op, in, sizeof in, NULL, sizeof out), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "SLICE1: output buffer is NULL but the output tensor needs 16 bytes");
    CHECK_STATUS(dmls_execute_reference(op, in, sizeof in, NULL, sizeof out), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "output buffer is NULL");
    _Alignas(32) float wide[16] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    CHECK_STATUS(dmls_execute(op, in, sizeof in, wide + 4, 16), DMLS_ERROR_MISALIGNED); /* 16-aligned, not 32 */
    CHECK_MESSAGE("R-X-ALIGN", "SLICE1: output address", "multiple of 32", "OutputTensor's GuaranteedBaseOffsetAlignment");
    CHECK_STATUS(dmls_execute_reference(op, in, sizeof in, wide + 4, 16), DMLS_ERROR_MISALIGNED);
    CHECK_MESSAGE("R-X-ALIGN", "output address");
    CHECK(out[0] == -1 && wide[4] == -1 && wide[7] == -1, "a failed execute wrote its output");
    for (int i = 0; i < 16; i++) in[i] = (float)(i + 1);
    CHECK_STATUS(dmls_execute(op, in, sizeof in, wide + 8, 16), DMLS_OK); /* 32-byte aligned is enough */
    CHECK(wide[8] == 2 && wide[9] == 4 && wide[10] == 10 && wide[11] == 12 && wide[7] == -1 && wide[12] == -1,
          "aligned output: %g %g %g %g", wide[8], wide[9], wide[10], wide[11]);
    dmls_destroy(op);
}

/* The one-shot calls return create's error, or execute's, and write nothing
 * then; on success they give the worked example's values. */
static void test_one_shot(void) {
    _Alignas(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) float in[16], out[4] = {-1, -1, -1, -1};
    for (int i = 0; i < 16; i++) in[i] = (float)(i + 1);
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.strides[2] = 0; /* R-WIN-STRIDE */
    CHECK_STATUS(dmls_slice_dml(&f.op, FL41, in, sizeof in, out, sizeof out), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-WIN-STRIDE", "InputWindowStrides[2] = 0");
    fixture_init(&f, DML_OPERATOR_SLICE1);
    CHECK_STATUS(dmls_slice_dml(&f.op, FL41, in, sizeof in, out, 12), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "output buffer holds 12 bytes");
    CHECK(out[0] == -1 && out[3] == -1, "a failed one-shot call wrote its output");
    CHECK_STATUS(dmls_slice_dml(&f.op, FL41, in, sizeof in, out, sizeof out), DMLS_OK);
    CHECK(out[0] == 2 && out[1] == 4 && out[2] == 10 && out[3] == 12, "SLICE1 example: %g %g %g %g", out[0],
          out[1], out[2], out[3]);

    /* Native: flip the columns of rows 1..2 of a 4x4. */
    int64_t in_shape[2] = {4, 4}, out_shape[2] = {2, 4}, off[2] = {1, 0}, size[2] = {2, 4}, step[2] = {1, -1};
    dmls_tensor ti = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, to = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {off, size, step};
    float flipped[8];
    for (int i = 0; i < 8; i++) flipped[i] = -1;
    off[0] = 3; /* R-WIN-BOUNDS: rows 3..4 */
    CHECK_STATUS(dmls_slice(&ti, in, sizeof in, &to, flipped, sizeof flipped, &w), DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-WIN-BOUNDS", "window.offsets[0] + window.sizes[0] = 3 + 2 = 5 exceeds input size 4");
    off[0] = 1;
    CHECK_STATUS(dmls_slice(&ti, in, 32, &to, flipped, sizeof flipped, &w), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "input buffer holds 32 bytes but the input tensor needs 64");
    CHECK(flipped[0] == -1 && flipped[7] == -1, "a failed one-shot call wrote its output");
    CHECK_STATUS(dmls_slice(&ti, in, sizeof in, &to, flipped, sizeof flipped, &w), DMLS_OK);
    const float want[8] = {8, 7, 6, 5, 12, 11, 10, 9};
    CHECK(memcmp(flipped, want, sizeof want) == 0, "flipped rows: %g %g %g %g ...", flipped[0], flipped[1],
          flipped[2], flipped[3]);
}

/* A slice with no elements: made, needing no bytes, and executing on NULL
 * buffers; the operator, or NULL where it was not made. */
static dmls_operator *empty_slice(const dmls_tensor *in, const dmls_tensor *out, const dmls_window *w,
                                  const char *what) {
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(in, out, w, &op), DMLS_OK);
    if (op) {
        CHECK(dmls_input_bytes(op) == 0 && dmls_output_bytes(op) == 0, "%s needs no bytes", what);
        CHECK_STATUS(dmls_execute(op, NULL, 0, NULL, 0), DMLS_OK);
    }
    return op;
}

/* Empty operators copy nothing, need no buffers, and write nothing: SLICE
 * and SLICE_GRAD, on every executor (R-WIN-NONEMPTY's native exception),
 * with a negative step on the empty axis too. */
static void test_empty(void) {
    int64_t big[2] = {0, 3}, small[2] = {0, 2}, off[2] = {0, 0}, size[2] = {0, 3}, step[2] = {-1, 2};
    dmls_tensor tb = {DMLS_UINT8, 2, big, NULL, 0}, ts = {DMLS_UINT8, 2, small, NULL, 0};
    dmls_window w = {off, size, step};
    dmls_operator *op = empty_slice(&tb, &ts, &w, "an empty slice");
    if (op) {
        CHECK_STATUS(dmls_execute_reference(op, NULL, 0, NULL, 0), DMLS_OK);
        CHECK_STATUS(dmls_execute_on(op, NULL, NULL, 0, NULL, 0), DMLS_OK);
        dmls_destroy(op);
    }
    CHECK_STATUS(dmls_create_grad(&ts, &tb, &w, &op), DMLS_OK);
    if (op) {
        unsigned char sentinel = 0xAB;
        CHECK_STATUS(dmls_execute(op, NULL, 0, &sentinel, 0), DMLS_OK);
        CHECK_STATUS(dmls_execute_reference(op, NULL, 0, &sentinel, 0), DMLS_OK);
        CHECK(sentinel == 0xAB, "an empty SLICE_GRAD wrote a byte");
        dmls_destroy(op);
    }
}

/* R-T-ELEMS and R-T-TOTAL at the 64-bit edges of the native path: an empty
 * view's other sizes may multiply past 2^63 (it has no elements and needs
 * no bytes), and negative strides whose reaches add up past -2^63 overflow. */
static void test_native_edges(void) {
    int64_t in_shape[3] = {0, INT64_MAX, 3}, out_shape[3] = {0, 1, 3};
    int64_t off[3] = {0, 5, 0}, size[3] = {0, 1, 3}, step[3] = {1, 1, 1};
    dmls_tensor in = {DMLS_UINT8, 3, in_shape, NULL, 0}, out = {DMLS_UINT8, 3, out_shape, NULL, 0};
    dmls_window w = {off, size, step};
    dmls_operator *op = empty_slice(&in, &out, &w, "an empty view");
    dmls_destroy(op);
    in_shape[0] = 3; /* no longer empty: 3 * (2^63 - 1) elements */
    out_shape[0] = 1, size[0] = 1;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-ELEMS", "slice: input has more than 2^63-1 elements");

    int64_t shape2[2] = {3, 3}, neg[2] = {-((int64_t)1 << 62), -((int64_t)1 << 62)};
    int64_t off2[2] = {0, 0}, size2[2] = {1, 1}, step2[2] = {1, 1}, one[2] = {1, 1};
    dmls_tensor t2 = {DMLS_UINT8, 2, shape2, neg, (uint64_t)INT64_MAX}, o2 = {DMLS_UINT8, 2, one, NULL, 0};
    dmls_window w2 = {off2, size2, step2};
    CHECK_STATUS(dmls_create(&t2, &o2, &w2, &op), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-TOTAL", "slice: input.strides[1] = -4611686018427387904 times shape - 1 = 2 overflows 64 bits");
}

/* R-T-OUTLAYOUT: a layout whose reach does not fit 64 bits is rejected, not
 * wrapped into a false "injective"; an empty layout never collides; size-1
 * dims never matter. */
static void test_layout_overflow(void) {
    const int64_t shape_a[2] = {3, 3}, strides_a[2] = {1, INT64_MAX}; /* reach 2 + 2 * (2^63 - 1) */
    CHECK(!dmls_layout_injective(2, shape_a, strides_a), "a reach past 2^64 passed");
    const int64_t shape_b[2] = {3, 2}, strides_b[2] = {INT64_MIN, 1}; /* |INT64_MIN| * 2 */
    CHECK(!dmls_layout_injective(2, shape_b, strides_b), "an extent past 2^64 passed");
    const int64_t shape_c[2] = {2, 2}, strides_c[2] = {INT64_MAX, 1}; /* offsets 0, 1, 2^63 - 1, 2^63 */
    CHECK(dmls_layout_injective(2, shape_c, strides_c), "the largest nesting layout was rejected");
    const int64_t shape_d[3] = {4, 0, 4}, strides_d[3] = {0, 0, 0};
    CHECK(dmls_layout_injective(3, shape_d, strides_d), "an empty layout was rejected");
    const int64_t shape_e[3] = {1, 5, 1}, strides_e[3] = {0, -3, 0};
    CHECK(dmls_layout_injective(3, shape_e, strides_e), "size-1 dims with stride 0 were held against it");
    const int64_t shape_f[2] = {5, 2}, strides_f[2] = {0, 1};
    CHECK(!dmls_layout_injective(2, shape_f, strides_f), "a stride of 0 over 5 elements passed");
}

/* The normalizer never merges two dims when a span overflows: the merged
 * stride would be a wrapped value. */
static void test_normalize_overflow(void) {
    dmls_copy_plan p;
    memset(&p, 0, sizeof p);
    p.esize = 1;
    p.ndim = 2;
    p.shape[0] = 3, p.src_stride[0] = 1, p.dst_stride[0] = 2;
    p.shape[1] = 2, p.src_stride[1] = (int64_t)1 << 62, p.dst_stride[1] = 1; /* 2^62 * 2 overflows */
    dmls_normalize(&p);
    CHECK(p.ndim == 2 && p.count == 6, "ndim %d count %llu", (int)p.ndim, (unsigned long long)p.count);
    CHECK(p.shape[0] == 3 && p.shape[1] == 2 && p.src_stride[1] == (int64_t)1 << 62 && p.dst_stride[0] == 2,
          "dims changed: shape {%lld, %lld}", (long long)p.shape[0], (long long)p.shape[1]);
    memset(&p, 0, sizeof p);
    p.esize = 1;
    p.ndim = 2;
    p.shape[0] = 2, p.src_stride[0] = 1, p.dst_stride[0] = INT64_MAX;
    p.shape[1] = 2, p.src_stride[1] = 2, p.dst_stride[1] = (int64_t)1 << 62; /* 2^62 * 2 overflows */
    dmls_normalize(&p);
    CHECK(p.ndim == 2 && p.count == 4 && p.dst_stride[0] == INT64_MAX && p.dst_stride[1] == (int64_t)1 << 62,
          "ndim %d count %llu", (int)p.ndim, (unsigned long long)p.count);
}

int main(void) {
    test_native_null();
    test_native_dtype();
    test_native_rank();
    test_dml_null();
    test_queries();
    test_backend_table();
    test_null_queries();
    test_names();
    test_execute_errors();
    test_one_shot();
    test_empty();
    test_native_edges();
    test_layout_overflow();
    test_normalize_overflow();
    CHECK(native_cases_run == NATIVE_CASES, "%d of %d native rows ran: a row's rule has no test_* to run it",
          native_cases_run, (int)NATIVE_CASES);
    TEST_MAIN_END();
}
