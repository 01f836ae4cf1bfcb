/* `dmlslice grad` and `dmlslice check --output-gradient-sizes` end to end:
 * random input gradients and windows (ranks 1-4, every element size,
 * negative strides), each result compared byte for byte with the library's
 * reference executor running the same SLICE_GRAD. Prints its seed
 * (support/rng.h: the same cases on every run unless DMLS_TEST_SEED asks).
 * Usage: test_grad DMLSLICE SCRATCH_PARENT_DIR */
#define _DEFAULT_SOURCE
#include <inttypes.h>
#include <stdbool.h>

#include "dmlslice/dml.h"
#include "support/tool.h"
#include "support/test.h"

static uint32_t next(void) { return (uint32_t)(test_rand() >> 11); }

static const char *descr_of(size_t esize) { return esize == 1 ? "|u1" : esize == 2 ? "<u2" : esize == 4 ? "<f4" : "<i8"; }
static dmls_dtype dtype_of(size_t esize) {
    return esize == 1 ? DMLS_UINT8 : esize == 2 ? DMLS_UINT16 : esize == 4 ? DMLS_FLOAT32 : DMLS_INT64;
}

static void list(char *buf, size_t cap, int n, const int64_t *v) {
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) k += (size_t)snprintf(buf + k, cap - k, "%s%" PRId64, i ? "," : "", v[i]);
}

/* The data bytes of a .npy file the tool wrote: its last `bytes` bytes. */
static bool read_tail(const char *name, void *out, size_t bytes) {
    size_t len;
    unsigned char *b = slurp(name, &len);
    const bool ok = b && len >= bytes;
    if (ok) memcpy(out, b + len - bytes, bytes);
    free(b);
    return ok;
}

static void one_case(int iter) {
    const size_t esize = (size_t)1 << (next() % 4);
    const int n = 1 + (int)(next() % 4);
    int64_t out_shape[4], off[4], win[4], stride[4], in_shape[4];
    UINT u_out[4], u_in[4], u_off[4], u_win[4];
    INT s_stride[4];
    size_t in_count = 1, out_count = 1;
    for (int i = 0; i < n; i++) {
        out_shape[i] = 1 + next() % 6;
        off[i] = next() % (uint32_t)out_shape[i];
        win[i] = 1 + next() % (uint32_t)(out_shape[i] - off[i]);
        stride[i] = (int64_t)(1 + next() % 3) * (next() % 2 ? -1 : 1);
        const int64_t mag = stride[i] < 0 ? -stride[i] : stride[i];
        in_shape[i] = 1 + (win[i] - 1) / mag;
        u_out[i] = (UINT)out_shape[i], u_in[i] = (UINT)in_shape[i], u_off[i] = (UINT)off[i], u_win[i] = (UINT)win[i];
        s_stride[i] = (INT)stride[i];
        in_count *= (size_t)in_shape[i];
        out_count *= (size_t)out_shape[i];
    }
    unsigned char *in = malloc(in_count * esize + 8), *want = malloc(out_count * esize + 8),
                  *got = malloc(out_count * esize + 8);
    for (size_t i = 0; i < in_count * esize; i++) in[i] = (unsigned char)next();
    /* The reference: the same SLICE_GRAD through the DirectML path. */
    DML_BUFFER_TENSOR_DESC ib = {(DML_TENSOR_DATA_TYPE)dtype_of(esize), DML_TENSOR_FLAG_NONE, (UINT)n, u_in, NULL, 0, 0},
                           ob = {(DML_TENSOR_DATA_TYPE)dtype_of(esize), DML_TENSOR_FLAG_NONE, (UINT)n, u_out, NULL, 0, 0};
    dmls_calc_buffer_tensor_size(ib.DataType, ib.DimensionCount, u_in, NULL, &ib.TotalTensorSizeInBytes);
    dmls_calc_buffer_tensor_size(ob.DataType, ob.DimensionCount, u_out, NULL, &ob.TotalTensorSizeInBytes);
    DML_TENSOR_DESC it = {DML_TENSOR_TYPE_BUFFER, &ib}, ot = {DML_TENSOR_TYPE_BUFFER, &ob};
    DML_SLICE_GRAD_OPERATOR_DESC g = {&it, &ot, (UINT)n, u_off, u_win, s_stride};
    DML_OPERATOR_DESC d = {DML_OPERATOR_SLICE_GRAD, &g};
    dmls_operator *op = NULL;
    dmls_status s = dmls_create_dml(&d, DML_FEATURE_LEVEL_6_4, &op);
    CHECK(s == DMLS_OK, "case %d: create: %s", iter, dmls_last_error());
    if (s == DMLS_OK) {
        unsigned char *padded_in = calloc(1, ib.TotalTensorSizeInBytes);
        memcpy(padded_in, in, in_count * esize);
        unsigned char *padded_out = calloc(1, ob.TotalTensorSizeInBytes);
        s = dmls_execute_reference(op, padded_in, ib.TotalTensorSizeInBytes, padded_out, ob.TotalTensorSizeInBytes);
        CHECK(s == DMLS_OK, "case %d: reference: %s", iter, dmls_last_error());
        memcpy(want, padded_out, out_count * esize);
        free(padded_in);
        free(padded_out);
    }
    dmls_destroy(op);
    char o[64], w[64], st[64], os[64], is[64];
    write_npy("grad_in.npy", descr_of(esize), false, n, in_shape, in, in_count * esize);
    list(o, sizeof o, n, off), list(w, sizeof w, n, win), list(st, sizeof st, n, stride), list(os, sizeof os, n, out_shape);
    list(is, sizeof is, n, in_shape);
    const int rc = run("grad grad_in.npy -o grad_out.npy -f --window-offsets=%s --window-sizes=%s --window-strides=%s "
                       "--output-gradient-sizes=%s",
                       o, w, st, os);
    CHECK(rc == 0, "case %d: grad exited %d", iter, rc);
    CHECK(rc != 0 || (read_tail("grad_out.npy", got, out_count * esize) && memcmp(got, want, out_count * esize) == 0),
          "case %d: grad's output differs from the reference (esize %zu, rank %d)", iter, esize, n);
    /* check validates the same description without data. */
    const int crc = run("check -q --dtype %s --input-sizes=%s --window-offsets=%s --window-sizes=%s "
                        "--window-strides=%s --output-gradient-sizes=%s",
                        dmls_dtype_name(dtype_of(esize)), is, o, w, st, os);
    CHECK(crc == 0, "case %d: check exited %d", iter, crc);
    free(in);
    free(want);
    free(got);
}

static void test_errors(void) {
    const float data[2] = {1, 2};
    const int64_t shape[1] = {2};
    write_npy("err_in.npy", "<f4", false, 1, shape, data, sizeof data);
    rm("err_out.npy");
    /* The window reaches past the output gradient: R-WIN-BOUNDS, nothing written. */
    int rc = run("grad err_in.npy -o err_out.npy --window-offsets 3 --window-sizes 2 --window-strides 1 "
                 "--output-gradient-sizes 4");
    CHECK(rc == 1, "out-of-bounds window: exit %d", rc);
    CHECK(!exists("err_out.npy"), "out-of-bounds window: an output was written");
    CHECK(err_has("R-WIN-BOUNDS"), "out-of-bounds window: the error does not name R-WIN-BOUNDS");
    /* Usage: no output sizes; slice's other parameters. */
    rc = run("grad err_in.npy -o err_out.npy --window-offsets 0 --window-sizes 2 --window-strides 1");
    CHECK(rc == 2, "missing --output-gradient-sizes: exit %d", rc);
    rc = run("grad err_in.npy -o err_out.npy --index '[0]' --output-gradient-sizes 4");
    CHECK(rc == 2, "--index given to grad: exit %d", rc);
    /* SLICE_GRAD at 3_0 takes ranks 1-4 only; at 2_1 rank 1 is refused too. */
    rc = run("check -q --dtype float32 --input-sizes 2 --window-offsets 0 --window-sizes 2 --window-strides 1 "
             "--output-gradient-sizes 4 --feature-level 2_1");
    CHECK(rc == 1, "SLICE_GRAD at 2_1: exit %d", rc);
    rc = run("check --dtype float32 --input-sizes 2 --window-offsets 1 --window-sizes 2 --window-strides 1 "
             "--output-gradient-sizes 4");
    CHECK(rc == 0 && out_has("valid: output gradient shape (4,), DML_OPERATOR_SLICE_GRAD"),
          "check's report for SLICE_GRAD (exit %d)", rc);
}

int main(int argc, char **argv) {
    const int setup = tool_setup(argc, argv, "grad_scratch");
    if (setup != 0) return setup;
    test_seed_rng();
    for (int i = 0; i < 40; i++) one_case(i);
    test_errors();
    tool_finish();
    TEST_MAIN_END();
}
