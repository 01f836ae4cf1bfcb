/* `dmlslice grad` and `dmlslice check --output-gradient-sizes` end to end:
 * random input gradients and windows (ranks 1-4, every element size,
 * negative strides), each result compared byte for byte with the library's
 * reference executor running the same SLICE_GRAD. Prints its seed. */
#define _DEFAULT_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dmlslice/dml.h"
#include "support/run.h"

static const char *tool;
static char dir[4096];
static int failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

static uint64_t rng;
static uint32_t next(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* Runs a command line (split as sh would, no shell involved) with the
 * given standard streams (NULL: the test's own); its exit status. */
static int run(const run_io *io, const char *fmt, ...) {
    char cmd[8192], words[8192];
    const char *argv[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (run_split(cmd, words, sizeof words, argv, 64) < 1) {
        fprintf(stderr, "cannot split: %s\n", cmd);
        return -1;
    }
    return run_argv(argv, io);
}

/* The file holds the text. */
static bool file_has(const char *path, const char *text) {
    char b[4096] = "";
    FILE *f = fopen(path, "rb");
    if (f) {
        b[fread(b, 1, sizeof b - 1, f)] = '\0';
        fclose(f);
    }
    const bool ok = strstr(b, text) != NULL;
    if (!ok) fprintf(stderr, "  %s lacks \"%s\"; it holds: %s\n", path, text, b);
    return ok;
}

static const char *descr_of(size_t esize) { return esize == 1 ? "|u1" : esize == 2 ? "<u2" : esize == 4 ? "<f4" : "<i8"; }
static dmls_dtype dtype_of(size_t esize) {
    return esize == 1 ? DMLS_UINT8 : esize == 2 ? DMLS_UINT16 : esize == 4 ? DMLS_FLOAT32 : DMLS_INT64;
}

static void list(char *buf, size_t cap, int n, const int64_t *v) {
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) k += (size_t)snprintf(buf + k, cap - k, "%s%" PRId64, i ? "," : "", v[i]);
}

static void write_npy(const char *path, size_t esize, int n, const int64_t *shape, const void *data, size_t bytes) {
    char dict[256], dims[128] = "";
    size_t k = 0;
    for (int i = 0; i < n; i++) k += (size_t)snprintf(dims + k, sizeof dims - k, "%" PRId64 ",%s", shape[i], i + 1 < n ? " " : "");
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr_of(esize), dims);
    const int total = 10 + len + 1, pad = (64 - total % 64) % 64;
    FILE *f = fopen(path, "wb");
    const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    const uint16_t hl = (uint16_t)(len + pad + 1);
    fwrite(magic, 1, 8, f);
    fputc(hl & 0xFF, f), fputc(hl >> 8, f);
    fwrite(dict, 1, (size_t)len, f);
    for (int i = 0; i < pad; i++) fputc(' ', f);
    fputc('\n', f);
    fwrite(data, 1, bytes, f);
    fclose(f);
}

/* The data bytes of a .npy file: its last `bytes` bytes. */
static bool read_tail(const char *path, void *out, size_t bytes) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    bool ok = size >= (long)bytes && fseek(f, size - (long)bytes, SEEK_SET) == 0 && fread(out, 1, bytes, f) == bytes;
    fclose(f);
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
    char in_path[4200], out_path[4200], o[64], w[64], st[64], os[64], is[64];
    snprintf(in_path, sizeof in_path, "%s/grad_in.npy", dir);
    snprintf(out_path, sizeof out_path, "%s/grad_out.npy", dir);
    write_npy(in_path, esize, n, in_shape, in, in_count * esize);
    list(o, sizeof o, n, off), list(w, sizeof w, n, win), list(st, sizeof st, n, stride), list(os, sizeof os, n, out_shape);
    list(is, sizeof is, n, in_shape);
    const int rc = run(NULL, "'%s' grad '%s' -o '%s' -f --window-offsets=%s --window-sizes=%s --window-strides=%s "
                       "--output-gradient-sizes=%s",
                       tool, in_path, out_path, o, w, st, os);
    CHECK(rc == 0, "case %d: grad exited %d", iter, rc);
    CHECK(rc != 0 || (read_tail(out_path, got, out_count * esize) && memcmp(got, want, out_count * esize) == 0),
          "case %d: grad's output differs from the reference (esize %zu, rank %d)", iter, esize, n);
    /* check validates the same description without data. */
    const int crc = run(NULL, "'%s' check -q --dtype %s --input-sizes=%s --window-offsets=%s --window-sizes=%s "
                        "--window-strides=%s --output-gradient-sizes=%s",
                        tool, dmls_dtype_name(dtype_of(esize)), is, o, w, st, os);
    CHECK(crc == 0, "case %d: check exited %d", iter, crc);
    free(in);
    free(want);
    free(got);
}

static void test_errors(void) {
    char in_path[4200], out_path[4200], out_txt[4200], err_txt[4200];
    snprintf(in_path, sizeof in_path, "%s/err_in.npy", dir);
    snprintf(out_path, sizeof out_path, "%s/err_out.npy", dir);
    snprintf(out_txt, sizeof out_txt, "%s/out.txt", dir);
    snprintf(err_txt, sizeof err_txt, "%s/err.txt", dir);
    const run_io io = {.out = out_txt, .err = err_txt};
    const float data[2] = {1, 2};
    const int64_t shape[1] = {2};
    write_npy(in_path, 4, 1, shape, data, sizeof data);
    remove(out_path);
    /* The window reaches past the output gradient: R-WIN-BOUNDS, nothing written. */
    int rc = run(&io, "'%s' grad '%s' -o '%s' --window-offsets 3 --window-sizes 2 --window-strides 1 "
                 "--output-gradient-sizes 4", tool, in_path, out_path);
    CHECK(rc == 1, "out-of-bounds window: exit %d", rc);
    FILE *written = fopen(out_path, "rb");
    CHECK(written == NULL, "out-of-bounds window: an output was written");
    if (written) fclose(written);
    CHECK(file_has(err_txt, "R-WIN-BOUNDS"), "out-of-bounds window: the error does not name R-WIN-BOUNDS");
    /* Usage: no output sizes; slice's other parameters. */
    rc = run(&io, "'%s' grad '%s' -o '%s' --window-offsets 0 --window-sizes 2 --window-strides 1", tool, in_path,
             out_path);
    CHECK(rc == 2, "missing --output-gradient-sizes: exit %d", rc);
    rc = run(&io, "'%s' grad '%s' -o '%s' --index '[0]' --output-gradient-sizes 4", tool, in_path, out_path);
    CHECK(rc == 2, "--index given to grad: exit %d", rc);
    /* SLICE_GRAD at 3_0 takes ranks 1-4 only; at 2_1 rank 1 is refused too. */
    rc = run(&io, "'%s' check -q --dtype float32 --input-sizes 2 --window-offsets 0 --window-sizes 2 --window-strides 1 "
             "--output-gradient-sizes 4 --feature-level 2_1", tool);
    CHECK(rc == 1, "SLICE_GRAD at 2_1: exit %d", rc);
    rc = run(&io, "'%s' check --dtype float32 --input-sizes 2 --window-offsets 1 --window-sizes 2 --window-strides 1 "
             "--output-gradient-sizes 4", tool);
    CHECK(rc == 0 && file_has(out_txt, "valid: output gradient shape (4,), DML_OPERATOR_SLICE_GRAD"),
          "check's report for SLICE_GRAD (exit %d)", rc);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: test_grad DMLSLICE SCRATCH_DIR\n");
        return 2;
    }
    static char tool_path[4096];
    if (run_abs_path(argv[1], tool_path, sizeof tool_path) != 0) return 2;
    tool = tool_path;
    snprintf(dir, sizeof dir, "%s/grad", argv[2]);
    run_clear_folder(dir, true);
#ifdef _WIN32
    const int made = _mkdir(dir);
#else
    const int made = mkdir(dir, 0777);
#endif
    if (made != 0) {
        fprintf(stderr, "cannot make %s: %s\n", dir, strerror(errno));
        return 2;
    }
    const char *env = getenv("DMLS_TEST_SEED");
    rng = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    if (rng == 0) rng = 1;
    printf("test_grad seed %" PRIu64 " (DMLS_TEST_SEED)\n", rng);
    for (int i = 0; i < 40; i++) one_case(i);
    test_errors();
    if (failures) fprintf(stderr, "test_grad: %d failures\n", failures);
    else printf("test_grad: 40 random SLICE_GRAD cases equal the reference; errors and check as expected\n");
    return failures != 0;
}
