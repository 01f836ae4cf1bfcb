/* End-to-end tests of the dmlslice tool: every front end and DirectML form,
 * every data type in both byte orders, Fortran order, bool, rank 0, empty
 * results, stdin/stdout, every malformed-file case, and the atomic-output
 * guarantees. Usage: test_cli PATH/TO/dmlslice SCRATCH_PARENT_DIR */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "dmlslice/dmlslice.h"
#include "support/run.h"
#include "test.h"

static const char *tool;
static char dir[4096], parent[4096];

static void path_of(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", dir, name); }

/* Runs "TOOL args" in the scratch folder (the test's working folder), args
 * split into words as sh would (no shell runs: the same on Windows), with
 * the given standard streams; returns the exit status. */
static int run_v(const run_io *io, const char *fmt, va_list ap) {
    char args[2048], words[2400];
    const char *argv[128] = {tool};
    vsnprintf(args, sizeof args, fmt, ap);
    if (run_split(args, words, sizeof words, argv + 1, 127) < 0) {
        fprintf(stderr, "  cannot split: %s\n", args);
        return -1;
    }
    return run_argv(argv, io);
}

/* stdout to out.txt, stderr to err.txt. */
static int run(const char *fmt, ...) {
    const run_io io = {.out = "out.txt", .err = "err.txt"};
    va_list ap;
    va_start(ap, fmt);
    const int rc = run_v(&io, fmt, ap);
    va_end(ap);
    return rc;
}

/* The same with n bytes through a pipe as standard input (the shell's
 * `cat FILE | dmlslice ...`) and standard output to out. */
static int run_fed(const void *in, size_t n, const char *out, const char *fmt, ...) {
    const run_io io = {.in_bytes = in, .in_len = n, .out = out, .err = "err.txt"};
    va_list ap;
    va_start(ap, fmt);
    const int rc = run_v(&io, fmt, ap);
    va_end(ap);
    return rc;
}

static unsigned char *slurp(const char *name, size_t *len) {
    char p[4200];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "rb");
    *len = 0;
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, f);
    b[*len] = '\0';
    fclose(f);
    return b;
}

static bool exists(const char *name) {
    char p[4200];
    struct stat st;
    path_of(p, sizeof p, name);
#ifdef _WIN32
    return stat(p, &st) == 0;
#else
    return lstat(p, &st) == 0;
#endif
}

static void rm(const char *name) {
    char p[4200];
    path_of(p, sizeof p, name);
    remove(p);
}

/* stderr of the last run contains every fragment. */
static bool err_has(const char *frag) {
    size_t n;
    unsigned char *e = slurp("err.txt", &n);
    bool ok = e && strstr((char *)e, frag) != NULL;
    if (!ok) fprintf(stderr, "  stderr was: %s\n", e ? (char *)e : "(none)");
    free(e);
    return ok;
}

/* The same without printing: for fragments that must be absent. */
static bool has_quiet(const char *file, const char *frag) {
    size_t n;
    unsigned char *e = slurp(file, &n);
    bool ok = e && strstr((char *)e, frag) != NULL;
    free(e);
    return ok;
}
static bool err_has_quiet(const char *frag) { return has_quiet("err.txt", frag); }
static bool out_has_quiet(const char *frag) { return has_quiet("out.txt", frag); }

static bool out_has(const char *frag) {
    size_t n;
    unsigned char *e = slurp("out.txt", &n);
    bool ok = e && strstr((char *)e, frag) != NULL;
    if (!ok) fprintf(stderr, "  stdout was: %s\n", e ? (char *)e : "(none)");
    free(e);
    return ok;
}

/* No temporary file (".NAME.XXXXXX") is left in the scratch folder. */
static bool no_temp_files(void) {
    DIR *d = opendir(dir);
    struct dirent *e;
    bool clean = true;
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            fprintf(stderr, "  left behind: %s\n", e->d_name);
            clean = false;
        }
    if (d) closedir(d);
    return clean;
}

static void write_raw(const char *name, const void *data, size_t n) {
    char p[4200];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
}

/* A .npy file: version major.0, the given dict text verbatim (padded to 64
 * bytes as NumPy does), then the data. Returns the header length. */
static size_t write_npy_dict(const char *name, int major, const char *dict, const void *data, size_t n) {
    const size_t pre = major == 1 ? 10 : 12;
    size_t total = (pre + strlen(dict) + 1 + 63) / 64 * 64;
    unsigned char *b = calloc(1, total + n + 1);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = 0;
    const size_t hlen = total - pre;
    b[8] = (unsigned char)hlen;
    b[9] = (unsigned char)(hlen >> 8);
    if (major != 1) b[10] = b[11] = 0;
    memset(b + pre, ' ', hlen);
    memcpy(b + pre, dict, strlen(dict));
    b[total - 1] = '\n';
    if (n) memcpy(b + total, data, n);
    write_raw(name, b, total + n);
    free(b);
    return total;
}

static void shape_text(char *buf, size_t cap, int ndim, const int64_t *shape) {
    int k = snprintf(buf, cap, "(");
    for (int i = 0; i < ndim; i++) k += snprintf(buf + k, cap - (size_t)k, "%s%lld", i ? ", " : "", (long long)shape[i]);
    snprintf(buf + k, cap - (size_t)k, "%s)", ndim == 1 ? "," : "");
}

static void write_npy(const char *name, const char *descr, bool fortran, int ndim, const int64_t *shape,
                      const void *data, size_t n) {
    char dict[2048], st[1600];
    shape_text(st, sizeof st, ndim, shape);
    const char *q = descr[0] == '[' ? "" : "'"; /* a record's descr is a list */
    snprintf(dict, sizeof dict, "{'descr': %s%s%s, 'fortran_order': %s, 'shape': %s, }", q, descr, q,
             fortran ? "True" : "False", st);
    write_npy_dict(name, 1, dict, data, n);
}

/* The output file's header names descr and shape, and its data equals want. */
static bool check_npy(const char *what, const char *name, const char *descr, int ndim, const int64_t *shape,
                      const void *want, size_t n) {
    size_t len;
    unsigned char *b = slurp(name, &len);
    CHECK(b != NULL, "%s: %s was not written", what, name);
    if (b == NULL) return false;
    bool ok = len >= 10 && memcmp(b, "\x93NUMPY\x01\x00", 8) == 0;
    const size_t hlen = ok ? 10 + (size_t)(b[8] | b[9] << 8) : 0;
    ok = ok && hlen % 64 == 0 && hlen <= len && b[hlen - 1] == '\n';
    CHECK(ok, "%s: %s has no valid version 1.0 preamble", what, name);
    char frag[1700], st[1600];
    const char *q = descr[0] == '[' ? "" : "'";
    snprintf(frag, sizeof frag, "'descr': %s%s%s", q, descr, q);
    CHECK(ok && strstr((char *)b + 10, frag) != NULL, "%s: header lacks %s: %.*s", what, frag, (int)hlen, b);
    shape_text(st, sizeof st, ndim, shape);
    snprintf(frag, sizeof frag, "'shape': %s", st);
    CHECK(ok && strstr((char *)b + 10, frag) != NULL, "%s: header lacks %s: %.*s", what, frag, (int)hlen, b);
    CHECK(ok && strstr((char *)b + 10, "'fortran_order': False") != NULL, "%s: output not C order", what);
    CHECK(ok && len - hlen == n, "%s: %zu data bytes, want %zu", what, len - hlen, n);
    bool same = ok && len - hlen == n && memcmp(b + hlen, want, n) == 0;
    CHECK(same, "%s: data differs", what);
    free(b);
    return same;
}

/* ---------------------------------------------------------------- tests */

/* A 4x5 int32 array holding 0..19, used by the front-end tests. */
static const int64_t S45[2] = {4, 5};
static int32_t a45[20];

static void test_front_ends(void) {
    for (int i = 0; i < 20; i++) a45[i] = i;
    write_npy("a.npy", "<i4", false, 2, S45, a45, sizeof a45);

    CHECK(run("slice a.npy -o o.npy --index '[1:3, ::-2]'") == 0, "numpy slice failed");
    const int32_t w1[6] = {9, 7, 5, 14, 12, 10};
    const int64_t s23[2] = {2, 3};
    check_npy("numpy", "o.npy", "<i4", 2, s23, w1, sizeof w1);
    rm("o.npy");

    /* Integer drops the axis; None inserts one. */
    CHECK(run("slice a.npy -o o.npy --index '[-1, None, 1::2]'") == 0, "numpy int/None failed");
    const int32_t w2[2] = {16, 18};
    const int64_t s12[2] = {1, 2};
    check_npy("numpy int None", "o.npy", "<i4", 2, s12, w2, sizeof w2);
    rm("o.npy");

    CHECK(run("slice a.npy -o o.npy --onnx-starts -1,4 --onnx-ends -9223372036854775808,0 --onnx-axes 0,-1 "
              "--onnx-steps -2,-3") == 0,
          "onnx failed");
    const int32_t w3[4] = {19, 16, 9, 6};
    const int64_t s22[2] = {2, 2};
    check_npy("onnx", "o.npy", "<i4", 2, s22, w3, sizeof w3);
    rm("o.npy");

    CHECK(run("slice a.npy -o o.npy --webnn-starts 1,1 --webnn-sizes 3,4 --webnn-strides 2,3") == 0, "webnn failed");
    const int32_t w4[4] = {6, 9, 16, 19};
    check_npy("webnn slice", "o.npy", "<i4", 2, s22, w4, sizeof w4);
    rm("o.npy");

    CHECK(run("slice a.npy -o o.npy --webnn-reverse 0") == 0, "webnn reverse failed");
    int32_t w5[20];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 5; c++) w5[r * 5 + c] = a45[(3 - r) * 5 + c];
    check_npy("webnn reverse", "o.npy", "<i4", 2, S45, w5, sizeof w5);
    rm("o.npy");

    CHECK(run("slice a.npy -o o.npy --webnn-reverse all") == 0, "webnn reverse all failed");
    int32_t w6[20];
    for (int i = 0; i < 20; i++) w6[i] = 19 - i;
    check_npy("webnn reverse all", "o.npy", "<i4", 2, S45, w6, sizeof w6);
    rm("o.npy");

    /* DML_SLICE: offsets (1, 0), sizes (2, 2), strides (1, 2). */
    CHECK(run("slice a.npy -o o.npy --offsets 1,0 --sizes 2,2 --strides 1,2") == 0, "DML SLICE failed");
    const int32_t w7[4] = {5, 7, 10, 12};
    check_npy("DML SLICE", "o.npy", "<i4", 2, s22, w7, sizeof w7);
    rm("o.npy");

    /* DML_SLICE1 with a negative stride: window rows 0..3 walked by -2,
     * output sizes defaulted to what the window holds. */
    CHECK(run("slice a.npy -o o.npy --window-offsets 0,1 --window-sizes 4,3 --window-strides -2,2") == 0,
          "DML SLICE1 failed");
    const int32_t w8[4] = {16, 18, 6, 8};
    check_npy("DML SLICE1", "o.npy", "<i4", 2, s22, w8, sizeof w8);
    rm("o.npy");
    CHECK(run("slice a.npy -o o.npy --window-offsets 0,1 --window-sizes 4,3 --window-strides -2,2 --output-sizes 1,2")
              == 0,
          "DML SLICE1 --output-sizes failed");
    const int64_t s12b[2] = {1, 2};
    check_npy("DML SLICE1 short output", "o.npy", "<i4", 2, s12b, w8, 8);
    rm("o.npy");

    /* Empty results are answers. */
    CHECK(run("slice a.npy -o o.npy --index '[2:2]'") == 0, "empty numpy failed");
    const int64_t s05[2] = {0, 5};
    check_npy("empty", "o.npy", "<i4", 2, s05, "", 0);
    rm("o.npy");
    CHECK(run("slice a.npy -o o.npy --onnx-starts 1000 --onnx-ends 1000 --onnx-axes 1") == 0, "empty onnx failed");
    const int64_t s40[2] = {4, 0};
    check_npy("empty onnx", "o.npy", "<i4", 2, s40, "", 0);
    rm("o.npy");

    /* Rank 0: a scalar file. */
    const int64_t none[1] = {0};
    const int16_t scalar = 0x1234;
    write_npy("s.npy", "<i2", false, 0, none, &scalar, 2);
    CHECK(run("slice s.npy -o o.npy --index '[None]'") == 0, "rank 0 failed");
    const int64_t s1[1] = {1};
    check_npy("rank 0 None", "o.npy", "<i2", 1, s1, &scalar, 2);
    rm("o.npy");
    CHECK(run("slice s.npy -o o.npy --webnn-starts '' --webnn-sizes ''") == 0, "rank 0 webnn failed");
    check_npy("rank 0 webnn", "o.npy", "<i2", 0, none, &scalar, 2);
    rm("o.npy");
    /* DirectML has no rank-0 tensors. */
    CHECK(run("slice s.npy -o o.npy --offsets '' --sizes '' --strides ''") == 1, "rank 0 DML accepted");
    CHECK(!exists("o.npy"), "failed run left o.npy");

    /* Front-end errors name the problem and leave nothing behind. */
    CHECK(run("slice a.npy -o o.npy --index '[4]'") == 1, "out-of-range index accepted");
    CHECK(err_has("index 4 is out of bounds for axis 0 with size 4"), "numpy message");
    CHECK(run("slice a.npy -o o.npy --index '[1:2'") == 1, "bad expression accepted");
    CHECK(err_has("DMLS_ERROR_FORMAT"), "format status");
    CHECK(run("slice a.npy -o o.npy --onnx-starts 0,0 --onnx-ends 1,1 --onnx-axes 1,1") == 1, "duplicate axes");
    CHECK(err_has("second time"), "duplicate message");
    CHECK(run("slice a.npy -o o.npy --onnx-starts 0 --onnx-ends 1 --onnx-steps 0") == 1, "zero step");
    CHECK(run("slice a.npy -o o.npy --webnn-starts 0,-1 --webnn-sizes 1,1") == 1, "negative webnn start");
    CHECK(err_has("unsigned"), "webnn unsigned message");
    CHECK(run("slice a.npy -o o.npy --webnn-starts 0,4 --webnn-sizes 1,2") == 1, "webnn past the end");
    CHECK(err_has("exceeds the input's size 5"), "webnn bounds message");
    CHECK(run("slice a.npy -o o.npy --window-offsets 0,3 --window-sizes 4,3 --window-strides 1,1") == 1,
          "DML window past the end");
    CHECK(err_has("R-WIN-BOUNDS"), "rule in message");
    CHECK(run("slice a.npy -o o.npy --offsets 0,-1 --sizes 1,1 --strides 1,1") == 1, "negative UINT");
    CHECK(err_has("SLICE: Offsets[1] = -1 does not fit DirectML's 32-bit UINT field"), "UINT message");
    CHECK(!exists("o.npy") && no_temp_files(), "a failed run left files");
}

typedef struct dtype_case {
    const char *descr;
    size_t esize;
} dtype_case;

/* Every DirectML type in both byte orders, plus '=' and bool: a slice
 * copies bits, so the output's bytes are the input's, reordered, and the
 * descr is kept ('=' written as the order it means on this machine). */
static void test_dtypes(void) {
    static const dtype_case cases[] = {
        {"<f4", 4}, {"<f2", 2}, {"<u4", 4}, {"<u2", 2}, {"|u1", 1}, {"<i4", 4}, {"<i2", 2}, {"|i1", 1},
        {"<f8", 8}, {"<u8", 8}, {"<i8", 8}, {">f4", 4}, {">f2", 2}, {">u4", 4}, {">u2", 2}, {">i4", 4},
        {">i2", 2}, {">f8", 8}, {">u8", 8}, {">i8", 8}, {"=f4", 4}, {"=i8", 8}, {"|b1", 1},
    };
    const int64_t shape[2] = {3, 4}, out_shape[2] = {3, 2};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const size_t es = cases[k].esize;
        unsigned char in[12 * 8], want[6 * 8];
        test_fill_random(in, sizeof in);
        if (cases[k].descr[1] == 'b')
            for (int i = 0; i < 12; i++) in[i] &= 1;
        /* [:, ::-2] -> columns 3, 1 */
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 2; c++) memcpy(want + (r * 2 + c) * es, in + (r * 4 + (3 - 2 * c)) * es, es);
        char descr[8];
        snprintf(descr, sizeof descr, "%s", cases[k].descr);
        if (descr[0] == '=') {
            const uint16_t probe = 1;
            descr[0] = *(const unsigned char *)&probe ? '<' : '>';
        }
        write_npy("t.npy", cases[k].descr, false, 2, shape, in, 12 * es);
        char what[64];
        snprintf(what, sizeof what, "dtype %s numpy", cases[k].descr);
        CHECK(run("slice t.npy -o o.npy --index '[:, ::-2]'") == 0, "%s failed", what);
        check_npy(what, "o.npy", descr, 2, out_shape, want, 6 * es);
        rm("o.npy");
        /* The same through DML_SLICE1 at the default level (6_4 takes every
         * type; bool travels as UINT8). */
        snprintf(what, sizeof what, "dtype %s SLICE1", cases[k].descr);
        CHECK(run("slice t.npy -o o.npy --window-offsets 0,1 --window-sizes 3,3 --window-strides 1,-2") == 0,
              "%s failed", what);
        check_npy(what, "o.npy", descr, 2, out_shape, want, 6 * es);
        rm("o.npy");
    }
    /* 64-bit types do not exist in DirectML before 4_1. */
    const double d[12] = {0};
    write_npy("t.npy", "<f8", false, 2, shape, d, sizeof d);
    CHECK(run("slice t.npy -o o.npy --offsets 0,0 --sizes 1,1 --strides 1,1 --feature-level 4_0") == 1,
          "float64 at 4_0 accepted");
    CHECK(err_has("R-OP-TYPE"), "type rule");
    CHECK(run("slice t.npy -o o.npy --offsets 0,0 --sizes 1,1 --strides 1,1 --feature-level 4_1") == 0,
          "float64 at 4_1 refused");
    rm("o.npy");
}

/* Items of every size NumPy saves (complex, strings, dates, records) are
 * copied whole, in either byte order, through every kind of parameters; an
 * item of n bytes is item_byte(i, j) at byte j of item i. */
static unsigned char item_byte(int i, size_t j) { return (unsigned char)(i * 31 + (int)j * 7 + 1); }

/* want: the items of a 4x5 C-order input at the given flat indices. */
static size_t pick_items(unsigned char *want, size_t es, const int *flat, int n) {
    for (int k = 0; k < n; k++)
        for (size_t j = 0; j < es; j++) want[k * es + j] = item_byte(flat[k], j);
    return (size_t)n * es;
}

static void test_item_sizes(void) {
    static const struct {
        const char *descr;
        size_t esize;
        const char *info;
    } cases[] = {
        {"<c16", 16, "(complex, 16-byte items, little-endian)"},
        {">c8", 8, "(complex, 8-byte items, big-endian)"},
        {"<c32", 32, "(complex, 32-byte items, little-endian)"},
        {"|S3", 3, "(bytes, 3-byte items)"},
        {"<U2", 8, "(str, 8-byte items, little-endian)"},
        {"|V6", 6, "(void, 6-byte items)"},
        {">M8[ns]", 8, "(datetime64, 8-byte items, big-endian)"},
        {"<m8[s]", 8, "(timedelta64, 8-byte items, little-endian)"},
        {"[('a', '<i4'), ('b', '|u1')]", 5, "(record, 5-byte items)"},
        {"[('t', '>f8'), ('v', [('x', '<i2'), ('y', '|S3')], (2,))]", 18, "(record, 18-byte items)"},
    };
    const int64_t shape[2] = {4, 5};
    unsigned char in[20 * 32], fin[20 * 32], want[30 * 32];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const size_t es = cases[k].esize;
        for (int i = 0; i < 20; i++)
            for (size_t j = 0; j < es; j++) {
                in[i * es + j] = item_byte(i, j);
                fin[((i % 5) * 4 + i / 5) * es + j] = item_byte(i, j); /* column-major */
            }
        write_npy("t.npy", cases[k].descr, false, 2, shape, in, 20 * es);
        write_npy("tf.npy", cases[k].descr, true, 2, shape, fin, 20 * es);
        char what[160];
        snprintf(what, sizeof what, "%s info", cases[k].descr);
        CHECK(run("info t.npy") == 0 && out_has(cases[k].info), "%s", what);
        /* NumPy [::-2, 1:4:2] (rows 3, 1; columns 1, 3), from C and Fortran order */
        const int idx[4] = {16, 18, 6, 8};
        const int64_t s22[2] = {2, 2};
        size_t n = pick_items(want, es, idx, 4);
        for (int fortran = 0; fortran < 2; fortran++) {
            snprintf(what, sizeof what, "%s numpy%s", cases[k].descr, fortran ? " fortran" : "");
            CHECK(run("slice %s -o o.npy --index '[::-2, 1:4:2]'", fortran ? "tf.npy" : "t.npy") == 0, "%s", what);
            check_npy(what, "o.npy", cases[k].descr, 2, s22, want, n);
            rm("o.npy");
        }
        /* DML_SLICE1: rows 3, 1 and columns 1, 4 */
        const int idx1[4] = {16, 19, 6, 9};
        n = pick_items(want, es, idx1, 4);
        snprintf(what, sizeof what, "%s SLICE1", cases[k].descr);
        CHECK(run("slice t.npy -o o.npy --window-offsets 1,1 --window-sizes 3,4 --window-strides -2,3") == 0, "%s",
              what);
        check_npy(what, "o.npy", cases[k].descr, 2, s22, want, n);
        rm("o.npy");
        /* DML_SLICE: rows 0, 2 and columns 2, 3 */
        const int idx2[4] = {2, 3, 12, 13};
        n = pick_items(want, es, idx2, 4);
        snprintf(what, sizeof what, "%s SLICE", cases[k].descr);
        CHECK(run("slice t.npy -o o.npy --offsets 0,2 --sizes 2,2 --strides 2,1") == 0, "%s", what);
        check_npy(what, "o.npy", cases[k].descr, 2, s22, want, n);
        rm("o.npy");
        /* ONNX: columns 4, 3 of every row */
        const int idx3[8] = {4, 3, 9, 8, 14, 13, 19, 18};
        const int64_t s42[2] = {4, 2};
        n = pick_items(want, es, idx3, 8);
        snprintf(what, sizeof what, "%s ONNX", cases[k].descr);
        CHECK(run("slice tf.npy -o o.npy --onnx-starts -1 --onnx-ends 2 --onnx-axes 1 --onnx-steps -1") == 0, "%s",
              what);
        check_npy(what, "o.npy", cases[k].descr, 2, s42, want, n);
        rm("o.npy");
        /* SLICE_GRAD: the 4x5 input lands in rows 1..4 of a 6x5 zero gradient */
        const int64_t s65[2] = {6, 5};
        memset(want, 0, 30 * es);
        memcpy(want + 5 * es, in, 20 * es);
        snprintf(what, sizeof what, "%s grad", cases[k].descr);
        CHECK(run("grad t.npy -o o.npy --window-offsets 1,0 --window-sizes 4,5 --window-strides 1,1 "
                  "--output-gradient-sizes 6,5") == 0,
              "%s", what);
        check_npy(what, "o.npy", cases[k].descr, 2, s65, want, 30 * es);
        rm("o.npy");
    }
    /* Parts of an item take an axis: 8 axes of 16-byte items leave none. */
    const int64_t s8[8] = {1, 2, 1, 2, 1, 2, 1, 2};
    write_npy("t.npy", "<c16", false, 8, s8, in, 16 * 16);
    CHECK(run("slice t.npy -o o.npy --index '[::-1]'") == 1 && err_has("16-byte items") &&
              err_has("8 axes and that one are more than the 8") && !exists("o.npy"),
          "8 axes of complex128");
    write_npy("t.npy", "|O", false, 2, shape, in, 20 * 8);
    CHECK(run("slice t.npy -o o.npy --index '[::-1]'") == 1 && err_has("object arrays hold Python pointers"),
          "object arrays are refused");
    rm("t.npy");
    rm("tf.npy");
}

/* Sets or (NULL) removes an environment variable the tool will see. */
static void set_env(const char *name, const char *value) {
#ifdef _WIN32
    _putenv_s(name, value ? value : "");
#else
    if (value) setenv(name, value, 1);
    else unsetenv(name);
#endif
}

/* A copy run in pieces of its output's rows (as it is, so that progress can
 * count them, when the output is over DMLSLICE_PIECE_BYTES) writes what the
 * whole copy writes: every kind of parameters, both orders, 16-byte items. */
static bool same_file(const char *a, const char *b) {
    size_t na, nb;
    unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
    const bool same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

static void test_pieces(void) {
    static const char *const params[] = {
        "--index '[::-2, 1:6, ::-1]'",
        "--index '[None, 2, ..., 1:3]'",
        "--index '[::-1]'",
        "--window-offsets 1,0,0 --window-sizes 5,7,5 --window-strides -2,3,1",
        "--window-offsets 1,0,0 --window-sizes 5,7,5 --window-strides -2,3,1 --output-sizes 2,2,5",
        "--offsets 0,1,0 --sizes 3,2,5 --strides 2,3,1",
        "--onnx-starts -1 --onnx-ends -9223372036854775808 --onnx-steps -1",
        "--webnn-starts 0,0,1 --webnn-sizes 1,7,4 --webnn-strides 1,2,3",
    };
    const int64_t shape[3] = {6, 7, 5};
    static unsigned char data[6 * 7 * 5 * 16];
    test_fill_random(data, sizeof data);
    const char *descrs[2] = {"<i4", "<c16"};
    const size_t sizes[2] = {4, 16};
    int compared = 0;
    for (int d = 0; d < 2; d++)
        for (int fortran = 0; fortran < 2; fortran++) {
            write_npy("p.npy", descrs[d], fortran, 3, shape, data, 6 * 7 * 5 * sizes[d]);
            for (size_t k = 0; k < sizeof params / sizeof params[0]; k++)
                for (int threads = 1; threads <= 2; threads++) {
                    set_env("DMLSLICE_PIECE_BYTES", NULL);
                    const int whole = run("slice p.npy -o whole.npy --threads %d %s", threads, params[k]);
                    set_env("DMLSLICE_PIECE_BYTES", "40");
                    const int pieces = run("slice p.npy -o pieces.npy --threads %d %s", threads, params[k]);
                    CHECK(whole == 0 && pieces == 0 && same_file("whole.npy", "pieces.npy"),
                          "%s%s %s, %d threads: in pieces (exit %d) differs from whole (exit %d)", descrs[d],
                          fortran ? " Fortran" : "", params[k], threads, pieces, whole);
                    compared++;
                    rm("whole.npy");
                    rm("pieces.npy");
                }
        }
    set_env("DMLSLICE_PIECE_BYTES", NULL);
    CHECK(compared == 64, "%d comparisons", compared);
    rm("p.npy");
}

/* A Fortran-order file is read through strides and written in C order. */
static void test_fortran(void) {
    const int64_t shape[3] = {2, 3, 4};
    int32_t logical[24], fdata[24];
    for (int i = 0; i < 24; i++) logical[i] = 100 + i;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 4; c++) fdata[a + 2 * b + 6 * c] = logical[a * 12 + b * 4 + c];
    write_npy("f.npy", "<i4", true, 3, shape, fdata, sizeof fdata);
    CHECK(run("info f.npy") == 0 && out_has("Fortran"), "info does not report Fortran order");
    CHECK(run("slice f.npy -o o.npy --index '[1, ::-1, 1:3]'") == 0, "fortran slice failed");
    int32_t want[6];
    for (int b = 0; b < 3; b++)
        for (int c = 0; c < 2; c++) want[b * 2 + c] = logical[1 * 12 + (2 - b) * 4 + (1 + c)];
    const int64_t s32[2] = {3, 2};
    check_npy("fortran numpy", "o.npy", "<i4", 2, s32, want, sizeof want);
    rm("o.npy");
    CHECK(run("slice f.npy -o o.npy --offsets 1,0,1 --sizes 1,3,2 --strides 1,1,1") == 0, "fortran DML failed");
    int32_t want2[6];
    for (int b = 0; b < 3; b++)
        for (int c = 0; c < 2; c++) want2[b * 2 + c] = logical[12 + b * 4 + 1 + c];
    const int64_t s132[3] = {1, 3, 2};
    check_npy("fortran DML", "o.npy", "<i4", 3, s132, want2, sizeof want2);
    rm("o.npy");
}

static void test_versions_and_pipes(void) {
    const int64_t shape[1] = {6};
    const uint16_t v[6] = {1, 2, 3, 4, 5, 6};
    for (int major = 2; major <= 3; major++) {
        write_npy_dict("v.npy", major, "{'descr': '<u2', 'fortran_order': False, 'shape': (6,), }", v, sizeof v);
        CHECK(run("slice v.npy -o o.npy --index 1::2") == 0, "version %d.0 failed", major);
        const uint16_t want[3] = {2, 4, 6};
        const int64_t s3[1] = {3};
        check_npy("version 2/3", "o.npy", "<u2", 1, s3, want, sizeof want);
        rm("o.npy");
    }
    write_npy("p.npy", "<u2", false, 1, shape, v, sizeof v);
    size_t pn;
    unsigned char *pb = slurp("p.npy", &pn);
    CHECK(run_fed(pb, pn, "piped.npy", "slice - -o - --index '::-1'") == 0, "stdin/stdout failed");
    free(pb);
    const uint16_t rev[6] = {6, 5, 4, 3, 2, 1};
    check_npy("stdin/stdout", "piped.npy", "<u2", 1, shape, rev, sizeof rev);
    /* TOOL slice p.npy -o - --index ::-1 | TOOL info - */
    const char *const slicer[] = {tool, "slice", "p.npy", "-o", "-", "--index", "::-1", NULL};
    const char *const info[] = {tool, "info", "-", NULL};
    const run_io io = {.out = "out.txt", .err = "err.txt"};
    int slicer_rc;
    CHECK(run_pipeline(slicer, info, &io, &slicer_rc) == 0 && slicer_rc == 0, "stdout pipe");
    CHECK(out_has("(6,)"), "info of piped output");
    CHECK(run_fed("junk", 4, "out.txt", "slice - -o o.npy --index 0") == 1, "junk stdin accepted");
    CHECK(err_has("<stdin>") && err_has("not a .npy file"), "stdin error names <stdin>");
    CHECK(!exists("o.npy"), "failed stdin run left o.npy");
    rm("piped.npy");
}

/* DirectML parameters on a .npy whose data does not start at a multiple of
 * 16 bytes (a writer that pads its header less than NumPy's does): DirectML
 * binds buffers at multiples of 16 (R-X-ALIGN), so the tool binds an aligned
 * copy and the result is the same, from a file, from standard input, with
 * SLICE, SLICE1 and SLICE_GRAD. */
static void test_unaligned_data(void) {
    int32_t a[16];
    for (int i = 0; i < 16; i++) a[i] = i;
    const char *dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (4, 4), }";
    unsigned char b[84 + sizeof a];
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = 84 - 10, b[9] = 0; /* the data at byte 84: 4 past a multiple of 16 */
    memset(b + 10, ' ', 74);
    memcpy(b + 10, dict, strlen(dict));
    b[83] = '\n';
    memcpy(b + 84, a, sizeof a);
    write_raw("u.npy", b, sizeof b);
    const int64_t s22[2] = {2, 2};
    const int32_t want[4] = {4, 6, 12, 14}, want1[4] = {13, 15, 5, 7};
    for (int threads = 1; threads <= 2; threads++) {
        CHECK(run("slice u.npy -o o.npy -f --threads %d --offsets 1,0 --sizes 2,2 --strides 2,2", threads) == 0 ||
                  err_has("(no error expected)"),
              "SLICE on unaligned data failed (threads %d)", threads);
        check_npy("unaligned SLICE", "o.npy", "<i4", 2, s22, want, sizeof want);
    }
    CHECK(run_fed(b, sizeof b, "out.txt", "slice - -o o.npy -f --window-offsets 0,1 --window-sizes 4,3 "
                  "--window-strides -2,2") == 0 ||
              err_has("(no error expected)"),
          "SLICE1 on unaligned stdin failed");
    check_npy("unaligned SLICE1 from stdin", "o.npy", "<i4", 2, s22, want1, sizeof want1);
    memcpy(b + 84, want, sizeof want);
    memcpy(b + 10, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", strlen(dict));
    write_raw("g.npy", b, 84 + sizeof want);
    CHECK(run("grad g.npy -o o.npy -f --output-gradient-sizes 4,4 --window-offsets 1,0 --window-sizes 3,4 "
              "--window-strides 2,2") == 0 ||
              err_has("(no error expected)"),
          "SLICE_GRAD on unaligned data failed");
    int32_t grad[16] = {0};
    grad[4] = 4, grad[6] = 6, grad[12] = 12, grad[14] = 14;
    const int64_t s44[2] = {4, 4};
    check_npy("unaligned SLICE_GRAD", "o.npy", "<i4", 2, s44, grad, sizeof grad);
    rm("o.npy");
}

/* Each broken file: exit 1, a message naming the file and the problem, no
 * output and no temporary file. */
static void test_malformed(void) {
    const uint32_t data[4] = {1, 2, 3, 4};
    struct {
        const char *name;
        const char *fragment;
    } cases[] = {
        {"badmagic.npy", "bad magic"},      {"empty.npy", "empty"},
        {"short.npy", "shorter than"},      {"trunchdr.npy", "truncated or lying header"},
        {"version.npy", "version 4.0"},     {"minor.npy", "version 1.1"},
        {"overflow.npy", "overflow"},       {"shortdata.npy", "truncated file"},
        {"longdata.npy", "header and data disagree"}, {"object.npy", "'|O'"},
        {"objrecord.npy", "field 'o' is '|O'"}, {"record.npy", "malformed 'descr'"},
        {"nokey.npy", "lacks 'shape'"},     {"extrakey.npy", "unknown key 'extra'"},
        {"garbage.npy", "malformed header"}, {"rank65.npy", "more than 64 axes"},
        {"negshape.npy", "malformed header"}, {"nobyteorder.npy", "no byte order"},
    };
    write_raw("badmagic.npy", "\x93NUMPZ\x01\x00\x10\x00{}", 12);
    write_raw("empty.npy", "", 0);
    write_raw("short.npy", "\x93NU", 3);
    /* header length says 1000 bytes; the file ends long before */
    write_raw("trunchdr.npy", "\x93NUMPY\x01\x00\xe8\x03{'descr': '<u4'", 25);
    const char *good = "{'descr': '<u4', 'fortran_order': False, 'shape': (4,), }";
    write_npy_dict("version.npy", 4, good, data, sizeof data);
    write_npy_dict("minor.npy", 1, good, data, sizeof data);
    {
        size_t n;
        unsigned char *b = slurp("minor.npy", &n);
        b[7] = 1;
        write_raw("minor.npy", b, n);
        free(b);
    }
    write_npy_dict("overflow.npy", 1, "{'descr': '<u4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }",
                   data, sizeof data);
    write_npy_dict("shortdata.npy", 1, good, data, 12);
    const uint32_t more[5] = {1, 2, 3, 4, 5};
    write_npy_dict("longdata.npy", 1, good, more, sizeof more);
    write_npy_dict("object.npy", 1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", data, 16);
    write_npy_dict("objrecord.npy", 1, "{'descr': [('a', '<u4'), ('o', '|O')], 'fortran_order': False, 'shape': (1,), }",
                   data, 12);
    write_npy_dict("record.npy", 1, "{'descr': [('a' '<u4')], 'fortran_order': False, 'shape': (4,), }", data, 16);
    write_npy_dict("nokey.npy", 1, "{'descr': '<u4', 'fortran_order': False, }", data, 4);
    write_npy_dict("extrakey.npy", 1, "{'descr': '<u4', 'fortran_order': False, 'shape': (4,), 'extra': 1, }", data,
                   16);
    write_npy_dict("garbage.npy", 1, "not a dict at all", data, 16);
    /* NumPy writes up to 64 axes; one more is no NumPy file. */
    char rank65[512] = "{'descr': '|u1', 'fortran_order': False, 'shape': (";
    for (int i = 0; i < 65; i++) strcat(rank65, "1,");
    strcat(rank65, "), }");
    write_npy_dict("rank65.npy", 1, rank65, data, 1);
    write_npy_dict("negshape.npy", 1, "{'descr': '<u4', 'fortran_order': False, 'shape': (-4,), }", data, 16);
    write_npy_dict("nobyteorder.npy", 1, "{'descr': '|u4', 'fortran_order': False, 'shape': (4,), }", data, 16);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        CHECK(run("slice %s -o o.npy --index ...", cases[k].name) == 1, "%s: not refused", cases[k].name);
        CHECK(err_has(cases[k].name) && err_has(cases[k].fragment), "%s: message lacks the name or \"%s\"",
              cases[k].name, cases[k].fragment);
        CHECK(!exists("o.npy"), "%s: an output appeared", cases[k].name);
        CHECK(run("info %s", cases[k].name) == 1, "%s: info accepted it", cases[k].name);
        rm(cases[k].name);
    }
    CHECK(run("slice missing.npy -o o.npy --index 0") == 1 && err_has("missing.npy: cannot open"), "missing input");
    CHECK(no_temp_files(), "malformed inputs left temporary files");
}

static void test_atomic_output(void) {
    write_npy("a.npy", "<i4", false, 2, S45, a45, sizeof a45);
    /* An existing output is kept without -f, and replaced with it. */
    write_raw("keep.npy", "precious", 8);
    CHECK(run("slice a.npy -o keep.npy --index 0") == 1, "existing output overwritten without -f");
    CHECK(err_has("already exists"), "message for an existing output");
    size_t n;
    unsigned char *b = slurp("keep.npy", &n);
    CHECK(b && n == 8 && memcmp(b, "precious", 8) == 0, "existing output changed");
    free(b);
    /* A failing run with -f leaves the old file as it was. */
    CHECK(run("slice a.npy -o keep.npy -f --index '[9]'") == 1, "bad index accepted");
    b = slurp("keep.npy", &n);
    CHECK(b && n == 8 && memcmp(b, "precious", 8) == 0, "existing output changed by a failed -f run");
    free(b);
    CHECK(run("slice a.npy -o keep.npy -f --index 0") == 0, "-f did not replace");
    const int64_t s5[1] = {5};
    check_npy("-f replace", "keep.npy", "<i4", 1, s5, a45, 20);
    rm("keep.npy");

    /* The input is never the output: same path, another path to the same
     * file (hard link), or a symbolic link to it. */
    CHECK(run("slice a.npy -o a.npy -f --index 0") == 1 && err_has("the output is the input"), "same path");
    CHECK(run("slice a.npy -o ./a.npy -f --index 0") == 1 && err_has("the output is the input"), "./ path");
#ifdef _WIN32
    CHECK(CreateHardLinkW(L"hard.npy", L"a.npy", NULL), "cannot make a hard link (Windows error %lu)", GetLastError());
    /* Symbolic links need a privilege or developer mode on Windows, and
     * Wine 8 answers success without making one: where no link is there
     * after the call, that case is not run, and the test says so. */
    const DWORD made = CreateSymbolicLinkW(L"soft.npy", L"a.npy", SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE)
                           ? GetFileAttributesW(L"soft.npy") : INVALID_FILE_ATTRIBUTES;
    const bool soft = made != INVALID_FILE_ATTRIBUTES && (made & FILE_ATTRIBUTE_REPARSE_POINT);
    if (!soft) printf("note: no symbolic link could be made here: that case not run\n");
#else
    CHECK(link("a.npy", "hard.npy") == 0, "cannot make a hard link: %s", strerror(errno));
    const bool soft = symlink("a.npy", "soft.npy") == 0;
    CHECK(soft, "cannot make a symbolic link: %s", strerror(errno));
#endif
    CHECK(run("slice a.npy -o hard.npy -f --index 0") == 1 && err_has("the output is the input"), "hard link");
    if (soft)
        CHECK(run("slice a.npy -o soft.npy -f --index 0") == 1 && err_has("the output is the input"), "symlink");
    b = slurp("a.npy", &n);
    CHECK(b && n == 128 + sizeof a45 && memcmp(b + 128, a45, sizeof a45) == 0, "the input changed");
    free(b);
    rm("hard.npy");
    rm("soft.npy");

    CHECK(run("slice a.npy -o nodir/o.npy --index 0") == 1 && err_has("nodir/o.npy"), "missing folder");
    /* A write that fails (a full device) is an error, not a silent success.
     * Windows has no /dev/full: the case runs where the device exists. */
#ifndef _WIN32
    if (access("/dev/full", W_OK) == 0) {
        const run_io full = {.out = "/dev/full", .err = "err.txt"};
        const char *const argv[] = {tool, "slice", "a.npy", "-o", "-", "--index", "0", NULL};
        CHECK(run_argv(argv, &full) == 1 && err_has("<stdout>: write error"), "write error on stdout not reported");
    }
#else
    printf("note: no /dev/full on Windows: the stdout write-error case not run\n");
#endif
    /* Success leaves exactly the output: the temporary file became it. */
    CHECK(run("slice a.npy -o o.npy --index 0") == 0 && exists("o.npy") && no_temp_files(),
          "temporary file left on success");
    rm("o.npy");
    CHECK(no_temp_files(), "temporary files left behind");
}

static void test_usage_and_check(void) {
    write_npy("a.npy", "<i4", false, 2, S45, a45, sizeof a45);
    CHECK(run("--help") == 0 && out_has("--webnn-reverse") && out_has("--onnx-starts"), "--help");
    CHECK(run("-V") == 0 && out_has(DMLS_VERSION_STRING), "-V");
    CHECK(run("frobnicate") == 2, "unknown command");
    CHECK(run("slice a.npy --index 0") == 2 && err_has("-o OUTPUT"), "missing -o");
    CHECK(run("slice a.npy -o o.npy") == 2 && err_has("no slice parameters"), "missing params");
    CHECK(run("slice a.npy -o o.npy --index 0 --onnx-starts 0") == 2 && err_has("cannot be combined"), "two forms");
    CHECK(run("slice a.npy -o o.npy --onnx-starts 0") == 2 && err_has("--onnx-ends"), "missing --onnx-ends");
    CHECK(run("slice a.npy -o o.npy --onnx-starts 99999999999999999999 --onnx-ends 1") == 2 &&
              err_has("outside the 64-bit integer range"),
          "list overflow");
    CHECK(run("slice a.npy -o o.npy --onnx-starts 1,x --onnx-ends 1") == 2 && err_has("value 1 ('x')"), "bad list");
    CHECK(run("slice a.npy -o o.npy --index 0 --threads 0") == 2, "--threads 0 accepted");
    CHECK(run("slice a.npy -o o.npy --index 0 --feature-level 7_0") == 2 && err_has("not a DirectML feature level"),
          "bad level");
    CHECK(run("slice a.npy -o o.npy --index 0 --threads 4 -q") == 0, "--threads 4 -q");
    rm("o.npy");
    CHECK(!exists("o.npy") && no_temp_files(), "usage errors left files");

    CHECK(run("check --dtype float32 --input-sizes 1,1,4,4 --window-offsets 0,0,0,1 --window-sizes 1,1,4,3 "
              "--window-strides 1,1,-2,2") == 0 && out_has("valid: output shape (1, 1, 2, 2)"),
          "check valid SLICE1");
    CHECK(run("check --dtype float32 --input-sizes 1,1,4,4 --window-offsets 0,0,2,0 --window-sizes 1,1,3,4 "
              "--window-strides 1,1,1,1") == 1 && out_has("rule: R-WIN-BOUNDS"),
          "check invalid SLICE1");
    CHECK(run("check --dtype float32 --input-sizes 4,4 --offsets 0,0 --sizes 1,1 --strides 1,1 --feature-level 2_1")
                  == 1 && out_has("R-OP-RANK"),
          "check rank at 2_1");
    CHECK(run("check --dtype int8 --input-sizes 65536,65536 --offsets 0,0 --sizes 1,1 --strides 1,1") == 1 &&
              out_has("R-T-ELEMS"),
          "check DirectML element limit");
    CHECK(run("check --dtype int8 --input-sizes 65536,65536 --index '[0:1, 0:2]'") == 0 &&
              out_has("(1, 2)"),
          "native path lifts the limit");
    CHECK(run("check --dtype bool --input-sizes 3,0 --onnx-starts 0 --onnx-ends 1") == 0 && out_has("(1, 0)"),
          "check empty input");
    CHECK(run("check --dtype float16 --input-sizes 4,5 --input-strides 1,4 --webnn-reverse 1") == 0 &&
              out_has("(4, 5)"),
          "check strided input");
    CHECK(run("check --dtype float16 --input-sizes 4,5 --output-strides 1,1 --webnn-reverse 1") == 1 &&
              out_has("R-T-OUTLAYOUT"),
          "check overlapping output");
    CHECK(run("check --dtype float32 --input-sizes 4,5 --index '[5]' -q") == 1, "check -q invalid");
    CHECK(run("check --dtype float32 --input-sizes 4,-5 --offsets 0,0 --sizes 1,1 --strides 1,1") == 1 &&
              out_has("is negative"),
          "check negative size, DirectML form");
    CHECK(run("check --dtype float32 --input-sizes 4,-5 --index 0") == 1 && out_has("is negative"),
          "check negative size, front end");
    CHECK(run("check --dtype float32 --input-sizes 4,4294967296 --offsets 0,0 --sizes 1,1 --strides 1,1") == 1 &&
              out_has("exceeds DirectML's limit"),
          "check size over 32 bits, DirectML form");
    CHECK(run("check --input-sizes 4,5 --index 0") == 2, "check without dtype");
    CHECK(run("check --dtype complex64 --input-sizes 4 --index 0") == 2, "check bad dtype");
}

/* ------------------------------------------------ the command-line surface */

/* A strict JSON check (RFC 8259's grammar, no extensions): enough to prove
 * the bench's file parses anywhere. */
static const char *json_value(const char *p);
static const char *json_ws(const char *p) {
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    return p;
}
static const char *json_string(const char *p) {
    if (*p++ != '"') return NULL;
    for (; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20) return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i])) return NULL;
                p += 4;
            } else if (!strchr("\"\\/bfnrt", *p) || *p == '\0') {
                return NULL;
            }
        }
    }
    return p + 1;
}
static const char *json_number(const char *p) {
    if (*p == '-') p++;
    if (!isdigit((unsigned char)*p)) return NULL;
    if (*p == '0') p++;
    else while (isdigit((unsigned char)*p)) p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) return NULL;
        while (isdigit((unsigned char)*p)) p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!isdigit((unsigned char)*p)) return NULL;
        while (isdigit((unsigned char)*p)) p++;
    }
    return p;
}
static const char *json_value(const char *p) {
    p = json_ws(p);
    if (*p == '{' || *p == '[') {
        const char close = *p == '{' ? '}' : ']';
        p = json_ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                p = json_string(json_ws(p));
                if (!p || *(p = json_ws(p)) != ':') return NULL;
                p++;
            }
            p = json_value(p);
            if (!p) return NULL;
            p = json_ws(p);
            if (*p == close) return p + 1;
            if (*p++ != ',') return NULL;
        }
    }
    if (*p == '"') return json_string(p);
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0) return p + 4;
    if (strncmp(p, "false", 5) == 0) return p + 5;
    return json_number(p);
}
static bool json_valid(const char *name) {
    size_t n;
    unsigned char *b = slurp(name, &n);
    const char *end = b ? json_value((const char *)b) : NULL;
    const bool ok = end && *json_ws(end) == '\0';
    if (!ok) fprintf(stderr, "  %s is not valid JSON: %s\n", name, b ? (char *)b : "(missing)");
    free(b);
    return ok;
}

/* Issue 10, "Errors that name the right rule". */
static void test_rule_messages(void) {
    const char *win = "check --dtype float32 --input-sizes 1,1,4,4 --window-offsets 0,0,0,0";
    CHECK(run("%s --window-sizes 1,1,4,4 --window-strides 1,1,0,1", win) == 1 && out_has("rule: R-WIN-STRIDE") &&
              !out_has_quiet("calc_buffer_tensor_size"),
          "a zero window stride names R-WIN-STRIDE");
    CHECK(run("%s --window-sizes 1,1,0,4 --window-strides 1,1,1,1", win) == 1 && out_has("rule: R-WIN-NONEMPTY"),
          "a zero window size names R-WIN-NONEMPTY");
    CHECK(run("%s --window-sizes 1,1,4,4 --window-strides 1,1,1,1 --output-sizes 1,1,0,4", win) == 1 &&
              out_has("--output-sizes[2] = 0") && out_has("rule: R-WIN-COUNT"),
          "an output size of 0 names the output-size rule");
    /* The same through slice, on a file. */
    write_npy("a.npy", "<i4", false, 2, S45, a45, sizeof a45);
    CHECK(run("slice a.npy -o o.npy --window-offsets 0,0 --window-sizes 4,5 --window-strides 0,1") == 1 &&
              err_has("R-WIN-STRIDE") && !err_has_quiet("calc_buffer") && !exists("o.npy"),
          "slice: zero window stride");
    const int64_t s30[2] = {3, 0};
    write_npy("e.npy", "<f4", false, 2, s30, NULL, 0);
    CHECK(run("slice e.npy -o o.npy --window-offsets 0,0 --window-sizes 1,1 --window-strides 1,1") == 1 &&
              err_has("empty axis") && err_has("cannot be empty") && err_has("--index") && !exists("o.npy"),
          "a DirectML form on an empty .npy says why and what to use");
    CHECK(run("slice e.npy -o o.npy --offsets 0,0 --sizes 1,1 --strides 1,1") == 1 && err_has("empty axis"),
          "DML_SLICE on an empty .npy");
    CHECK(run("slice e.npy -o o.npy --index '[1:]'") == 0, "--index handles the empty .npy");
    rm("o.npy");
    CHECK(run("%s --window-sizes 1,1,4,4 --window-strides 1,1,1,1 --output-strides 1,2", win) == 1 &&
              out_has("--output-strides has 2 values") && out_has("4 axes") && !out_has_quiet("OUTLAYOUT"),
          "--output-strides of the wrong count is a count error");
    CHECK(run("check --dtype float32 --input-sizes 4,5 --index 0 --output-strides 1") == 1 &&
              out_has("--output-strides has 1 value") && out_has("input's rank"),
          "front ends: --output-strides counts the input's rank, and says so");
    CHECK(run("check --dtype float32 --input-sizes 4,5 --index 0 --output-strides 1,0") == 1 &&
              out_has("R-T-OUTLAYOUT"),
          "front ends: the input's rank is the count");
    /* --feature-level takes exactly what it documents. */
    const char *ok_check = "check --dtype float32 --input-sizes 1,1,4,4 --offsets 0,0,0,0 --sizes 1,1,2,2 "
                           "--strides 1,1,1,1 --feature-level";
    CHECK(run("%s 0x6400junk", ok_check) == 2 && err_has("not a DirectML feature level"), "0x6400junk accepted");
    CHECK(run("%s '0x 6400'", ok_check) == 2, "'0x 6400' accepted");
    CHECK(run("%s 6_4x", ok_check) == 2, "6_4x accepted");
    CHECK(run("%s 0x6400", ok_check) == 0 && out_has("6_4"), "0x6400 refused");
    CHECK(run("%s 6.4", ok_check) == 0, "6.4 refused");
    CHECK(run("%s 4_1", ok_check) == 0 && out_has("4_1"), "4_1 refused");
    /* With a front end, the lowered SLICE1 is checked as DirectML would. */
    CHECK(run("check --dtype float32 --input-sizes 4,5,6 --index '[::2]'") == 0, "native: any rank");
    CHECK(run("check --dtype float32 --input-sizes 4,5,6 --index '[::2]' --feature-level 2_1") == 1 &&
              out_has("rule: R-OP-RANK") && out_has("2_1"),
          "--feature-level 2_1 with --index: SLICE1 needs rank 4 there");
    CHECK(run("check --dtype float32 --input-sizes 1,4,5,6 --index '[:, ::2]' --feature-level 2_1") == 0 &&
              out_has("valid at feature level 2_1"),
          "--feature-level 2_1 with --index, rank 4");
    CHECK(run("check --dtype float64 --input-sizes 4,5 --onnx-starts 0 --onnx-ends 2 --feature-level 3_0") == 1 &&
              out_has("R-OP-TYPE"),
          "--feature-level with ONNX: 64-bit types from 4_1");
    CHECK(run("check --dtype float32 --input-sizes 4,5 --index '[0:0]' --feature-level 6_4") == 1 &&
              out_has("R-T-SIZES"),
          "--feature-level: an empty result is no DirectML tensor");
    CHECK(run("slice a.npy -o o.npy --webnn-reverse all --feature-level 2_1") == 1 && err_has("R-OP-RANK") &&
              !exists("o.npy"),
          "slice honours --feature-level with a front end");
    CHECK(run("slice a.npy -o o.npy --webnn-reverse all --feature-level 4_1") == 0, "slice, front end, 4_1");
    rm("o.npy");
    /* Every option with a value, given twice, is refused alike. */
    rm("o.npy");
    rm("p.npy");
    CHECK(run("slice a.npy -o o.npy -o p.npy --index 0") == 2 && err_has("given twice"), "-o twice");
    CHECK(run("slice a.npy -o o.npy --output p.npy --index 0") == 2 && err_has("given twice"), "-o, --output");
    CHECK(run("slice a.npy -o o.npy --index 0 --threads 1 --threads 2") == 2 && err_has("--threads given twice"),
          "--threads twice");
    CHECK(run("slice a.npy -o o.npy --index 0 --device cpu --device cpu") == 2 && err_has("--device given twice"),
          "--device twice");
    CHECK(run("slice a.npy -o o.npy --index 0 --feature-level 6_4 --feature-level=6_3") == 2 &&
              err_has("--feature-level given twice"),
          "--feature-level twice");
    CHECK(run("slice a.npy -o o.npy --index 0 --index 1") == 2 && err_has("--index given twice"), "--index twice");
    CHECK(run("check --dtype int8 --dtype int16 --input-sizes 4 --index 0") == 2 && err_has("given twice"),
          "--dtype twice");
    CHECK(!exists("o.npy") && !exists("p.npy"), "refused runs wrote files");
}

/* Each argument reaches the tool as the test gave it, whatever it holds:
 * on Windows the words travel as one command line that the tool splits
 * again (support/run.h quotes, CommandLineToArgvW splits), on POSIX as an
 * array. `info NAME` names NAME in its error. */
static void test_argument_passing(void) {
    static const char *const words[] = {
        "a b", "", "\"", "none\\\\", "a\\\"b", "x\\", "\\\\server\\share", "tab\there", "two  spaces ", "end b\\", "end b\\\\\\",
        "caf\xc3\xa9-\xe6\x95\xb0\xe6\x8d\xae", "*", "?x", "'single'", "%PATH%", "$HOME", "a|b", "<x>", "^&", "\"a b\"",
    };
    const run_io io = {.out = "out.txt", .err = "err.txt"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        const char *const argv[] = {tool, "info", words[i], NULL};
        char want[256];
        snprintf(want, sizeof want, "info: %s: cannot open", words[i]);
        CHECK(run_argv(argv, &io) == 1 && err_has(want), "the argument [%s] did not reach the tool whole", words[i]);
    }
}

/* Issue 10, "The rest of the command line"; issue 11, one parser. */
/* --index as Python reads a subscript: x[()] is the whole array, x[] a
 * syntax error; an empty array is taken whatever its other dims. */
static void test_index_edges(void) {
    write_npy("a.npy", "<i4", false, 2, S45, a45, sizeof a45);
    CHECK(run("slice a.npy -o o.npy --index '[()]'") == 0 && check_npy("[()]", "o.npy", "<i4", 2, S45, a45, sizeof a45),
          "--index '[()]' takes the whole array");
    rm("o.npy");
    CHECK(run("slice a.npy -o o.npy --index '[]'") == 1 && err_has("an empty subscript is a syntax error") &&
              !exists("o.npy"),
          "--index '[]' is refused");
    const int64_t huge[4] = {0, (int64_t)1 << 32, (int64_t)1 << 32, 4};
    write_npy("e.npy", "<f4", false, 4, huge, NULL, 0);
    CHECK(run("slice e.npy -o o.npy --index '[:, 1:3]'") == 0 && check_npy("empty", "o.npy", "<f4", 4,
          (const int64_t[4]){0, 2, (int64_t)1 << 32, 4}, a45, 0),
          "--index on an empty array whose other dims multiply past 2^64");
    rm("o.npy");
    rm("e.npy");
}

static void test_command_line(void) {
    write_npy("a.npy", "<i4", false, 2, S45, a45, sizeof a45);
    const int32_t row3[5] = {15, 16, 17, 18, 19};
    const int64_t s5[1] = {5};
    CHECK(run("-q slice a.npy -o o.npy --index -1") == 0 && check_npy("options first", "o.npy", "<i4", 1, s5, row3, sizeof row3),
          "options before the command");
    rm("o.npy");
    CHECK(run("--threads 2 -o o.npy slice a.npy --index -1") == 0 && exists("o.npy"),
          "options with values before the command");
    rm("o.npy");
    CHECK(run_copy_file("a.npy", "-n.npy") == 0, "cannot copy a.npy to -n.npy");
    CHECK(run("slice -o o.npy --index -1 -- -n.npy") == 0 && exists("o.npy"), "-- ends the options");
    rm("o.npy");
    rm("-n.npy");
    CHECK(run("slice a.npy -o o.npy --index 0 --typo") == 2 && err_has("unknown option '--typo'") &&
              !err_has_quiet("needs a value"),
          "a trailing unknown option");
    CHECK(run("slice a.npy -o o.npy --index 0 --typo=3") == 2 && err_has("unknown option '--typo'"), "--typo=3");
    CHECK(run("check --dtype int8 --input-sizes 4 --index 0 -x") == 2 && err_has("unknown option '-x'"), "check -x");
    CHECK(run("bench --typo") == 2 && err_has("unknown option '--typo'"), "bench --typo");
    CHECK(run("info a.npy --typo") == 2 && err_has("unknown option '--typo'"), "info --typo");
    CHECK(run("demo --typo") == 2 && err_has("unknown option '--typo'"), "demo --typo");
    CHECK(run("slice a.npy --index 0 -o") == 2 && err_has("-o") && err_has("needs a value"), "-o without its value");
    /* Per-command help: each command's own page. */
    CHECK(run("slice --help") == 0 && out_has("usage: dmlslice slice") && out_has("--output-sizes") &&
              out_has("--device") && !out_has_quiet("--input-sizes"),
          "slice --help");
    CHECK(run("check -h") == 0 && out_has("usage: dmlslice check") && out_has("--input-sizes") &&
              out_has("input's rank"),
          "check --help");
    CHECK(run("bench --help") == 0 && out_has("usage: dmlslice bench") && out_has("--quick") &&
              out_has("Peak memory") && out_has("GiB"),
          "bench --help states its peak memory");
    CHECK(run("info --help") == 0 && out_has("usage: dmlslice info"), "info --help");
    CHECK(run("--help slice") == 0 && out_has("usage: dmlslice slice"), "--help before the command");
    CHECK(run("help check") == 0 && out_has("usage: dmlslice check"), "help check");
    CHECK(run("help nope") == 2 && err_has("unknown command 'nope'") && !out_has_quiet("usage:"),
          "help names an unknown command and fails");
    CHECK(run("-V") == 0 && out_has(dmls_version()), "-V prints the library's version");
}

/* dmlslice bench from a folder without bench/cases.json, quick, and its JSON
 * valid whatever the cases hold (an empty output, a name to escape). */
static void test_bench_anywhere(void) {
    CHECK(run("bench --quick --reps 1 --json q.json") == 0 && out_has("crop4d_f32") && json_valid("q.json"),
          "bench --quick from a scratch folder, built-in cases");
    const char cases[] =
        "[{\"name\": \"empty\tcase\", \"dtype\": \"float32\", \"input_shape\": [4, 4], \"window_offsets\": [0, 0],"
        " \"window_sizes\": [0, 4], \"window_strides\": [1, 1], \"output_sizes\": [0, 4]},"
        " {\"name\": \"tiny\", \"dtype\": \"int8\", \"input_shape\": [3], \"window_offsets\": [1],"
        " \"window_sizes\": [2], \"window_strides\": [-1], \"output_sizes\": [2]}]";
    write_raw("odd_cases.json", cases, strlen(cases));
    CHECK(run("bench --cases odd_cases.json --reps 1 --json odd.json") == 0 && json_valid("odd.json"),
          "bench --json: an empty case and a tab in a name still give valid JSON");
    CHECK(run("bench --cases nosuch.json --reps 1") == 1 && err_has("nosuch.json"), "--cases missing file");
    rm("q.json");
    rm("odd.json");
    rm("odd_cases.json");
}

/* Every example of every help page runs, on the README's example array: a
 * (4, 5, 6) float32 x.npy. check examples may show a refusal (exit 1 with
 * its rule). */
static void test_help_examples(void) {
    float x[120];
    for (int i = 0; i < 120; i++) x[i] = (float)i;
    const int64_t s456[3] = {4, 5, 6};
    write_npy("x.npy", "<f4", false, 3, s456, x, sizeof x);
    CHECK(run("--help") == 0, "--help");
    size_t n;
    char *help = (char *)slurp("out.txt", &n);
    char *ex = help ? strstr(help, "\nexamples:\n") : NULL;
    CHECK(ex != NULL, "--help has no examples");
    if (ex == NULL) return free(help);
    int count = 0;
    char line[2048] = "";
    for (char *p = ex + strlen("\nexamples:\n"); *p == ' ';) {
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = '\0';
        while (*p == ' ') p++;
        const size_t len = strlen(p);
        const bool more = len > 0 && p[len - 1] == '\\';
        const size_t cur = strlen(line);
        snprintf(line + cur, sizeof line - cur, "%.*s", (int)(more ? len - 1 : len), p);
        p = nl + 1;
        if (more) continue;
        /* The line as sh reads it: one command, or two joined by a pipe,
         * each of them "dmlslice", the binary under test. */
        char words[2400];
        const char *argv[128];
        const int nw = run_split(line, words, sizeof words, argv, 128);
        const char **second = NULL;
        int commands = 0;
        bool all_tool = nw > 0;
        for (int i = 0; all_tool && i < nw; i++) {
            if (i > 0 && argv[i - 1] != NULL) continue;
            /* argv[i] starts a command */
            all_tool = ++commands <= 2 && argv[i] != NULL && strcmp(argv[i], "dmlslice") == 0;
            argv[i] = tool;
            if (i > 0) second = argv + i;
        }
        CHECK(all_tool, "help example is not one dmlslice command or two joined by |: %s", line);
        if (!all_tool) {
            line[0] = '\0';
            continue;
        }
        rm("y.npy");
        const run_io io = {.out = "out.txt", .err = "err.txt"};
        int first_rc = 0;
        const int rc = run_pipeline(argv, second, &io, &first_rc);
        const bool is_check = strstr(line, "dmlslice check") == line;
        CHECK(second == NULL || first_rc == 0, "help example's first command failed (exit %d): %s", first_rc, line);
        CHECK(rc == 0 || (is_check && rc == 1 && out_has("rule: R-")), "help example failed (exit %d): %s", rc, line);
        count++;
        line[0] = '\0';
    }
    CHECK(count >= 8, "only %d help examples found", count);
    free(help);
    rm("y.npy");
    rm("x.npy");
}

/* NumPy indexing on .npy files of any rank NumPy writes: only the strided
 * dimensions a slice truly needs count against the library's 8. */
static void test_high_rank(void) {
    int64_t s8[8] = {2, 1, 3, 1, 2, 1, 2, 1}, s10[10], s9[9], s65[65];
    int32_t d[64];
    for (int i = 0; i < 64; i++) d[i] = i;
    write_npy("r8.npy", "<i4", false, 8, s8, d, 24 * 4);
    const int64_t want10[10] = {1, 1, 2, 1, 3, 1, 2, 1, 2, 1};
    CHECK(run("slice r8.npy -o o.npy --index '[None, None, ...]'") == 0 &&
              check_npy("x[None, None, ...] on 8-D", "o.npy", "<i4", 10, want10, d, 24 * 4),
          "x[None, None, ...] on an 8-D array");
    rm("o.npy");
    for (int i = 0; i < 10; i++) s10[i] = i < 6 ? 2 : 1;
    write_npy("r10.npy", "<i4", false, 10, s10, d, 64 * 4);
    int32_t rev[64];
    for (int i = 0; i < 64; i++) rev[i] = i ^ 1;
    CHECK(run("slice r10.npy -o o.npy --index '[..., ::-1, 0, 0, 0, 0]'") == 0 &&
              check_npy("10-D", "o.npy", "<i4", 6, s10, rev, sizeof rev),
          "a 10-D array, last long axis reversed");
    rm("o.npy");
    /* Fortran order: the same elements through the input's strides. */
    int32_t f[64];
    for (int i = 0; i < 64; i++) { /* f holds C-order element i at its Fortran position */
        int rest = i, at = 0, stride = 1, idx[10];
        for (int a = 9; a >= 0; a--) idx[a] = rest % (int)s10[a], rest /= (int)s10[a];
        for (int a = 0; a < 10; a++) at += idx[a] * stride, stride *= (int)s10[a];
        f[at] = i;
    }
    write_npy("f10.npy", "<i4", true, 10, s10, f, sizeof f);
    CHECK(run("slice f10.npy -o o.npy --index '[..., ::-1, 0, 0, 0, 0]'") == 0 &&
              check_npy("10-D Fortran", "o.npy", "<i4", 6, s10, rev, sizeof rev),
          "a 10-D Fortran-order array");
    rm("o.npy");
    for (int i = 0; i < 9; i++) s9[i] = 3;
    write_npy("r9.npy", "|u1", false, 9, s9, NULL, 0);
    static const unsigned char zeros[19683];
    FILE *r9 = fopen("r9.npy", "ab");
    CHECK(r9 != NULL && fwrite(zeros, 1, sizeof zeros, r9) == sizeof zeros, "cannot append to r9.npy");
    if (r9) fclose(r9);
    CHECK(run("slice r9.npy -o o.npy --index '[::2, ::2, ::2, ::2, ::2, ::2, ::2, ::2, ::2]'") == 1 &&
              err_has("9 strided dimensions") && err_has("at most 8") && !exists("o.npy"),
          "a slice that needs 9 strided dimensions is refused, saying so");
    CHECK(run("slice r9.npy -o o.npy --index '[::2, ::2, ::2, ::2, ::2, ::2, ::2, :, :]'") == 0, "9-D, 8 strided");
    rm("o.npy");
    CHECK(run("slice r9.npy -o o.npy --window-offsets 0,0,0,0,0,0,0,0 --window-sizes 1,1,1,1,1,1,1,1 "
              "--window-strides 1,1,1,1,1,1,1,1") == 1 && err_has("at most 8") && err_has("--index"),
          "a DirectML form on a 9-D file");
    CHECK(run("info r9.npy") == 0 && out_has("(3, 3, 3, 3, 3, 3, 3, 3, 3)"), "info on 9-D");
    for (int i = 0; i < 65; i++) s65[i] = 1;
    write_npy("r65.npy", "<i4", false, 65, s65, d, 4);
    CHECK(run("info r65.npy") == 1 && err_has("more than 64 axes"), "65 axes");
    rm("r8.npy"), rm("r10.npy"), rm("f10.npy"), rm("r9.npy"), rm("r65.npy");
}

/* Lengthens the file name to size bytes without writing them: sparse, the
 * new bytes zeros that use no disk. False where the file system cannot. */
static bool extend_sparse(const char *name, uint64_t size) {
    char p[4200];
    path_of(p, sizeof p, name);
#ifdef _WIN32
    /* Only a file marked sparse skips the disk: without the mark, Windows
     * allocates every byte. */
    wchar_t w[4200];
    if (MultiByteToWideChar(CP_UTF8, 0, p, -1, w, 4200) == 0) return false;
    HANDLE h = CreateFileW(w, GENERIC_WRITE, 0, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) return false;
    DWORD got;
    LARGE_INTEGER at;
    at.QuadPart = (LONGLONG)size;
    const bool ok = DeviceIoControl(h, FSCTL_SET_SPARSE, NULL, 0, NULL, 0, &got, NULL) &&
                    SetFilePointerEx(h, at, NULL, FILE_BEGIN) && SetEndOfFile(h);
    CloseHandle(h);
    return ok;
#else
    return truncate(p, (off_t)size) == 0;
#endif
}

/* A file over 2^32-1 elements (sparse: no disk used) is refused on the
 * DirectML path as DirectML would, and sliced on the native path without
 * reading more than the window. */
static void test_large_sparse(void) {
    const char *dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (65536, 65537), }";
    const size_t hlen = write_npy_dict("big.npy", 1, dict, NULL, 0);
    if (!extend_sparse("big.npy", hlen + 65536ull * 65537ull)) {
        printf("note: sparse 4 GiB file not possible here; large-file case not run\n");
        rm("big.npy");
        return;
    }
    int rc = run("slice big.npy -o o.npy --offsets 0,0 --sizes 1,1 --strides 1,1");
    CHECK(rc == 1 && err_has("R-T-ELEMS"), "over 2^32-1 elements accepted on the DirectML path (exit %d)", rc);
    rc = run("slice big.npy -o o.npy --index '[65535, -3:]'");
    CHECK(rc == 0 || err_has("(no error expected)"), "native path on a 4 GiB file failed (exit %d)", rc);
    const unsigned char zeros[3] = {0, 0, 0};
    const int64_t s3[1] = {3};
    check_npy("large sparse", "o.npy", "|u1", 1, s3, zeros, 3);
    rm("o.npy");
    rm("big.npy");
}

#ifdef _WIN32
/* The file holds exactly these bytes. */
static bool holds(const char *name, const char *bytes) {
    size_t n;
    unsigned char *b = slurp(name, &n);
    const bool ok = b && n == strlen(bytes) && memcmp(b, bytes, n) == 0;
    free(b);
    return ok;
}

/* A run in progress has its hidden file in the scratch folder. */
static bool temp_file_present(void) {
    DIR *d = opendir(dir);
    bool found = false;
    for (struct dirent *e; d && !found && (e = readdir(d)) != NULL;) found = strncmp(e->d_name, ".dmlslice-", 10) == 0;
    if (d) closedir(d);
    return found;
}

enum midway { MIDWAY_TERMINATE, MIDWAY_TAKE_NAME };

/* Runs `slice big.npy -o OUT --index :ROWS` (with -f when force) and, once
 * its hidden file is there, either ends it with TerminateProcess or makes
 * OUT itself, holding "mine". Returns the exit status, or -2 when each of
 * three ever larger runs ended before that moment was caught. */
static int slice_interrupted(const char *out, bool force, enum midway what) {
    for (int rows = 1024; rows <= 4096; rows *= 2) {
        char index[32];
        snprintf(index, sizeof index, ":%d", rows);
        const char *const argv[] = {tool, "slice", "big.npy", "-o", out, "--index", index, "-q", force ? "-f" : NULL, NULL};
        const run_io io = {.out = "out.txt", .err = "err.txt"};
        run_proc p = run_start(argv, &io);
        if (p == RUN_NO_PROC) return -1;
        bool caught = false;
        for (int ms = 0; ms < 20000 && !caught && WaitForSingleObject(p, 0) == WAIT_TIMEOUT; ms++) {
            caught = temp_file_present();
            if (!caught) Sleep(1);
        }
        if (caught && what == MIDWAY_TERMINATE) run_kill(p);
        if (caught && what == MIDWAY_TAKE_NAME) write_raw(out, "mine", 4);
        const int rc = run_wait(p);
        /* Exit 0: the run was done before the moment came (when the name
         * was taken, only after the tool had committed). */
        if (caught && rc != 0) return rc;
        rm(out);
        if (force) write_raw(out, "precious", 8);
    }
    return -2;
}

/* Windows keeps the file guarantees with other means than POSIX (docs/
 * platforms.md): the new file is marked delete-on-close from its creation,
 * and renamed into place with or without replacing. Here each run fails
 * after it made its file, which no case of check_files_portable does: the
 * old output is held open by another program without delete sharing (the
 * replacing rename fails), the name is taken while the tool writes (the
 * rename that must not replace fails), the tool is ended by TerminateProcess
 * while it writes. Each time an existing file keeps its bytes and no
 * hidden file is left behind. */
static void test_windows_outputs(void) {
    write_npy("a.npy", "<i4", false, 2, S45, a45, sizeof a45);
    write_raw("keep.npy", "precious", 8);
    HANDLE held = CreateFileW(L"keep.npy", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                              FILE_ATTRIBUTE_NORMAL, NULL);
    CHECK(held != INVALID_HANDLE_VALUE, "cannot open keep.npy (Windows error %lu)", GetLastError());
    CHECK(run("slice a.npy -o keep.npy -f --index 0") == 1 && err_has("keep.npy: cannot write"),
          "-f onto an output held open without delete sharing");
    if (held != INVALID_HANDLE_VALUE) CloseHandle(held);
    CHECK(holds("keep.npy", "precious"), "a failed replace changed the output");
    CHECK(no_temp_files(), "a failed replace left its file behind");

    /* 4096 x 65536 bytes, sparse: slices of 64 MiB and more, long enough
     * to be caught midway. */
    const char *dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (4096, 65536), }";
    const size_t hlen = write_npy_dict("big.npy", 1, dict, NULL, 0);
    if (!extend_sparse("big.npy", hlen + 4096ull * 65536ull)) {
        printf("note: no sparse file here; the cases that interrupt a run are not run\n");
        rm("big.npy"), rm("keep.npy");
        return;
    }
    int rc = slice_interrupted("keep.npy", true, MIDWAY_TERMINATE);
    CHECK(rc == 137, "TerminateProcess while writing: exit %d, expected 137 (-2: never caught midway)", rc);
    CHECK(holds("keep.npy", "precious"), "a run ended midway changed the output");
    CHECK(no_temp_files(), "a run ended midway left its file behind");
    rm("taken.npy");
    rc = slice_interrupted("taken.npy", false, MIDWAY_TAKE_NAME);
    CHECK(rc == 1 && err_has("taken.npy: already exists"),
          "a name taken while the tool wrote: exit %d, expected 1 (-2: never caught midway)", rc);
    CHECK(holds("taken.npy", "mine"), "the tool replaced a file made while it wrote, without -f");
    CHECK(no_temp_files(), "a refused rename left the tool's file behind");
    rm("big.npy"), rm("keep.npy"), rm("taken.npy");
}
#endif

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: test_cli DMLSLICE SCRATCH_PARENT\n");
        return 2;
    }
    /* Commands run inside the scratch folder, the test's working folder:
     * the paths made absolute. */
    static char tool_path[4096];
    if (run_abs_path(argv[1], tool_path, sizeof tool_path) != 0 || run_abs_path(argv[2], parent, sizeof parent) != 0)
        return 2;
    tool = tool_path;
    if (run_make_scratch(dir, sizeof dir, parent, "cli_scratch") != 0 || chdir(dir) != 0) return 2;
    test_seed_rng();
    test_front_ends();
    test_dtypes();
    test_item_sizes();
    test_pieces();
    test_fortran();
    test_versions_and_pipes();
    test_unaligned_data();
    test_malformed();
    test_atomic_output();
    test_usage_and_check();
    test_large_sparse();
#ifdef _WIN32
    test_windows_outputs();
#endif
    test_rule_messages();
    test_argument_passing();
    test_command_line();
    test_index_edges();
    test_bench_anywhere();
    test_help_examples();
    test_high_rank();
    if (test_checks_failed == 0) {
        if (chdir(parent) != 0 || run_clear_folder(dir, true) != 0) printf("scratch folder %s not removed\n", dir);
    } else {
        printf("scratch folder kept: %s\n", dir);
    }
    TEST_MAIN_END();
}
