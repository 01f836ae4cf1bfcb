/* The dmlslice tool's results, end to end: every front end and DirectML
 * form, every data type and item size NumPy saves, Fortran order, rank 0
 * and ranks past 8, empty results, .npy versions, standard input and
 * output, data off DirectML's alignment, copies run in pieces, and a
 * sparse file past 2^32 elements. Each output is compared byte for byte
 * with what the test computes itself.
 * Usage: test_cli_slicing DMLSLICE SCRATCH_PARENT_DIR */
#define _DEFAULT_SOURCE
#include <stdbool.h>

#include "dmlslice/dmlslice.h"
#include "support/tool.h"
#include "support/test.h"

/* Each front end and DirectML form on a.npy, empty results and rank 0. */
static void test_front_ends(void) {
    static const struct {
        const char *what, *params; /* params after "slice a.npy -o o.npy" */
        int64_t shape[2];
        int32_t want[20];
    } cases[] = {
        {"numpy", "--index '[1:3, ::-2]'", {2, 3}, {9, 7, 5, 14, 12, 10}},
        /* Integer drops the axis; None inserts one. */
        {"numpy int None", "--index '[-1, None, 1::2]'", {1, 2}, {16, 18}},
        {"onnx", "--onnx-starts -1,4 --onnx-ends -9223372036854775808,0 --onnx-axes 0,-1 --onnx-steps -2,-3", {2, 2},
         {19, 16, 9, 6}},
        {"webnn slice", "--webnn-starts 1,1 --webnn-sizes 3,4 --webnn-strides 2,3", {2, 2}, {6, 9, 16, 19}},
        {"webnn reverse", "--webnn-reverse 0", {4, 5},
         {15, 16, 17, 18, 19, 10, 11, 12, 13, 14, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4}},
        {"webnn reverse all", "--webnn-reverse all", {4, 5},
         {19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
        /* DML_SLICE: offsets (1, 0), sizes (2, 2), strides (1, 2). */
        {"DML SLICE", "--offsets 1,0 --sizes 2,2 --strides 1,2", {2, 2}, {5, 7, 10, 12}},
        /* DML_SLICE1 with a negative stride: window rows 0..3 walked by -2,
         * output sizes defaulted to what the window holds, or given. */
        {"DML SLICE1", "--window-offsets 0,1 --window-sizes 4,3 --window-strides -2,2", {2, 2}, {16, 18, 6, 8}},
        {"DML SLICE1 short output", "--window-offsets 0,1 --window-sizes 4,3 --window-strides -2,2 --output-sizes 1,2",
         {1, 2}, {16, 18}},
        /* Empty results are answers. */
        {"empty", "--index '[2:2]'", {0, 5}, {0}},
        {"empty onnx", "--onnx-starts 1000 --onnx-ends 1000 --onnx-axes 1", {4, 0}, {0}},
    };
    write_a45();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        CHECK(run("slice a.npy -o o.npy %s", cases[k].params) == 0, "%s failed", cases[k].what);
        const size_t n = (size_t)(cases[k].shape[0] * cases[k].shape[1]) * sizeof(int32_t);
        check_npy(cases[k].what, "o.npy", "<i4", 2, cases[k].shape, cases[k].want, n);
        rm("o.npy");
    }

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

/* Each kind of parameters on the 4x5 input, in C order (t.npy) or Fortran
 * order (tf.npy): the output's shape and the input's items it holds. */
static const struct {
    const char *label, *command;
    int64_t shape[2];
    int n, items[8];
} item_forms[] = {
    /* NumPy [::-2, 1:4:2] (rows 3, 1; columns 1, 3), from C and Fortran order */
    {"numpy", "slice t.npy -o o.npy --index '[::-2, 1:4:2]'", {2, 2}, 4, {16, 18, 6, 8}},
    {"numpy fortran", "slice tf.npy -o o.npy --index '[::-2, 1:4:2]'", {2, 2}, 4, {16, 18, 6, 8}},
    /* DML_SLICE1: rows 3, 1 and columns 1, 4 */
    {"SLICE1", "slice t.npy -o o.npy --window-offsets 1,1 --window-sizes 3,4 --window-strides -2,3", {2, 2}, 4,
     {16, 19, 6, 9}},
    /* DML_SLICE: rows 0, 2 and columns 2, 3 */
    {"SLICE", "slice t.npy -o o.npy --offsets 0,2 --sizes 2,2 --strides 2,1", {2, 2}, 4, {2, 3, 12, 13}},
    /* ONNX: columns 4, 3 of every row */
    {"ONNX", "slice tf.npy -o o.npy --onnx-starts -1 --onnx-ends 2 --onnx-axes 1 --onnx-steps -1", {4, 2}, 8,
     {4, 3, 9, 8, 14, 13, 19, 18}},
};

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
        for (size_t f = 0; f < sizeof item_forms / sizeof item_forms[0]; f++) {
            snprintf(what, sizeof what, "%s %s", cases[k].descr, item_forms[f].label);
            const size_t n = pick_items(want, es, item_forms[f].items, item_forms[f].n);
            CHECK(run("%s", item_forms[f].command) == 0, "%s", what);
            check_npy(what, "o.npy", cases[k].descr, 2, item_forms[f].shape, want, n);
            rm("o.npy");
        }
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

/* grad on a pool of threads: an output gradient over the one-thread
 * threshold (512 KiB) has its zero fill and its scatter cut between the
 * threads, and writes what one thread writes. */
static void test_grad_threads(void) {
    enum { R = 400, C = 400, OR = 810, OC = 420 };
    int32_t *in = malloc(sizeof *in * R * C), *want = calloc((size_t)OR * OC, sizeof *want);
    CHECK(in && want, "out of memory");
    if (!in || !want) goto done;
    for (int i = 0; i < R * C; i++) in[i] = i + 1;
    /* SLICE1 reads rows 3, 5, ..., 801 and columns 5..404: the gradient goes there */
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) want[(3 + 2 * i) * OC + 5 + j] = in[i * C + j];
    const int64_t shape[2] = {R, C}, out_shape[2] = {OR, OC};
    write_npy("g.npy", "<i4", false, 2, shape, in, sizeof *in * R * C);
    for (int threads = 1; threads <= 3; threads++) {
        const int rc = run("grad g.npy -o o.npy -f -q --threads %d --window-offsets 3,5 --window-sizes 799,400 "
                           "--window-strides 2,1 --output-gradient-sizes %d,%d",
                           threads, OR, OC);
        char what[64];
        snprintf(what, sizeof what, "grad on %d threads (exit %d)", threads, rc);
        CHECK(rc == 0, "%s", what);
        check_npy(what, "o.npy", "<i4", 2, out_shape, want, sizeof *want * OR * OC);
    }
    /* Reversed columns: the pool writes what one thread does. */
    const char *rev =
        "--window-offsets 3,5 --window-sizes 799,400 --window-strides 2,-1 --output-gradient-sizes 810,420";
    CHECK(run("grad g.npy -o one.npy --threads 1 %s", rev) == 0 &&
              run("grad g.npy -o four.npy --threads 4 %s", rev) == 0 && same_file("one.npy", "four.npy"),
          "reversed grad: 4 threads differ from 1");
    CHECK(run("grad g.npy -o bad.npy --threads 0 %s", rev) == 2 && err_has("--threads 0 is outside 1 to 1024") &&
              !exists("bad.npy"),
          "grad --threads 0 accepted");
    rm("one.npy");
    rm("four.npy");
    rm("o.npy");
    rm("g.npy");
done:
    free(in);
    free(want);
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

/* --perm (docs/spec.md, R-PERM): the slice parameters apply to
 * np.transpose(x, P); a Fortran-order file is read where its bytes are. The
 * expected values come from coordinates: view axis k is input axis
 * perm[k]. */
typedef struct perm_case {
    int ndim;
    int64_t shape[4], perm[4];
    int64_t first[4], count[4], step[4]; /* per view axis */
} perm_case;

/* The file's elements in C order are 1000 + their C-order index; stored
 * Fortran-order where fortran says so. */
static void write_perm_input(const perm_case *c, bool fortran) {
    int64_t n = 1;
    for (int i = 0; i < c->ndim; i++) n *= c->shape[i];
    int32_t data[256];
    for (int64_t e = 0; e < n; e++) {
        int64_t rest = e, f = 0, fstride = 1, coord[4];
        for (int i = c->ndim - 1; i >= 0; i--) coord[i] = rest % c->shape[i], rest /= c->shape[i];
        for (int i = 0; i < c->ndim; i++) f += coord[i] * fstride, fstride *= c->shape[i];
        data[fortran ? f : e] = (int32_t)(1000 + e);
    }
    write_npy("p.npy", "<i4", fortran, c->ndim, c->shape, data, sizeof(int32_t) * (size_t)n);
}

/* What the tool must write for the case: out[o] = x[c] with
 * c[perm[k]] = first[k] + o[k] * step[k]. Returns the element count. */
static int64_t perm_expected(const perm_case *c, int32_t *want, int64_t *out_shape) {
    int64_t n = 1, o[4] = {0};
    for (int k = 0; k < c->ndim; k++) n *= out_shape[k] = c->count[k];
    for (int64_t e = 0; e < n; e++) {
        int64_t coord[4], lin = 0;
        for (int k = 0; k < c->ndim; k++) coord[c->perm[k] < 0 ? c->perm[k] + c->ndim : c->perm[k]] =
            c->first[k] + o[k] * c->step[k];
        for (int i = 0; i < c->ndim; i++) lin = lin * c->shape[i] + coord[i];
        want[e] = (int32_t)(1000 + lin);
        for (int k = c->ndim - 1; k >= 0; k--) {
            if (++o[k] < c->count[k]) break;
            o[k] = 0;
        }
    }
    return n;
}

/* The case's slice as NumPy text: a positive step's stop is past its last
 * element; a negative step that reaches 0 omits the stop. */
static void perm_index(const perm_case *c, char *buf, size_t cap) {
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (int a = 0; a < c->ndim; a++) {
        const int64_t stop = c->first[a] + c->count[a] * c->step[a];
        if (stop < 0)
            k += (size_t)snprintf(buf + k, cap - k, "%s%lld::%lld", a ? ", " : "", (long long)c->first[a],
                                  (long long)c->step[a]);
        else
            k += (size_t)snprintf(buf + k, cap - k, "%s%lld:%lld:%lld", a ? ", " : "", (long long)c->first[a],
                                  (long long)stop, (long long)c->step[a]);
    }
    snprintf(buf + k, cap - k, "]");
}

static void perm_text(const perm_case *c, char *buf, size_t cap) {
    size_t k = 0;
    buf[0] = '\0';
    for (int a = 0; a < c->ndim; a++) k += (size_t)snprintf(buf + k, cap - k, "%s%lld", a ? "," : "", (long long)c->perm[a]);
}

/* Random shapes, permutations (NumPy's negative form too), C and Fortran
 * files, and slices with any step, against the coordinates above. */
static void test_perm_random(void) {
    for (int iter = 0; iter < 24; iter++) {
        perm_case c;
        c.ndim = (int)test_range(1, 4);
        for (int i = 0; i < c.ndim; i++) c.shape[i] = test_range(1, 4), c.perm[i] = i;
        for (int i = c.ndim - 1; i > 0; i--) {
            const int64_t j = test_range(0, i), keep = c.perm[i];
            c.perm[i] = c.perm[j], c.perm[j] = keep;
        }
        for (int k = 0; k < c.ndim; k++) {
            if (test_range(0, 3) == 0) c.perm[k] -= c.ndim;
            const int64_t dim = c.shape[c.perm[k] < 0 ? c.perm[k] + c.ndim : c.perm[k]];
            c.first[k] = test_range(0, dim - 1);
            c.step[k] = test_range(1, 3) * (test_range(0, 1) ? 1 : -1);
            const int64_t most = c.step[k] > 0 ? (dim - 1 - c.first[k]) / c.step[k] + 1 : c.first[k] / -c.step[k] + 1;
            c.count[k] = test_range(c.step[k] > 0 ? 1 : 0, most);
        }
        const bool fortran = test_range(0, 1) == 1;
        write_perm_input(&c, fortran);
        char idx[200], perm[64], what[64];
        perm_index(&c, idx, sizeof idx);
        perm_text(&c, perm, sizeof perm);
        int32_t want[256];
        int64_t out_shape[4];
        const int64_t n = perm_expected(&c, want, out_shape);
        snprintf(what, sizeof what, "random --perm case %d (%s)", iter, fortran ? "Fortran" : "C order");
        CHECK(run("slice p.npy -o o.npy --perm %s --index '%s'", perm, idx) == 0, "%s: --perm %s --index '%s' failed",
              what, perm, idx);
        if (!check_npy(what, "o.npy", "<i4", c.ndim, out_shape, want, sizeof(int32_t) * (size_t)n))
            fprintf(stderr, "  --perm %s --index '%s'\n", perm, idx);
        rm("o.npy");
    }
    rm("p.npy");
}

/* --perm alone, 'reverse', with the other forms, with check, and its errors. */
static void test_perm(void) {
    perm_case c = {3, {2, 3, 4}, {2, 0, 1}, {0, 0, 0}, {4, 2, 3}, {1, 1, 1}};
    int32_t want[24];
    int64_t s[4];
    for (int fortran = 0; fortran <= 1; fortran++) {
        write_perm_input(&c, fortran);
        perm_expected(&c, want, s);
        CHECK(run("slice p.npy -o o.npy --perm 2,0,1") == 0, "--perm alone failed");
        check_npy(fortran ? "--perm alone, Fortran" : "--perm alone", "o.npy", "<i4", 3, s, want, sizeof want);
        rm("o.npy");
    }
    /* 'reverse' is np.transpose(x): a Fortran file's bytes, in C order. */
    perm_case r = {3, {2, 3, 4}, {2, 1, 0}, {0, 0, 0}, {4, 3, 2}, {1, 1, 1}};
    perm_expected(&r, want, s);
    CHECK(run("slice p.npy -o o.npy --perm reverse") == 0, "--perm reverse failed");
    check_npy("--perm reverse", "o.npy", "<i4", 3, s, want, sizeof want);
    rm("o.npy");
    /* ONNX Transpose then Slice: ends on the transposed axes (4, 3, 2). */
    perm_case o = {3, {2, 3, 4}, {-1, 0, 1}, {3, 0, 1}, {2, 2, 2}, {-2, 1, 1}};
    int64_t n = perm_expected(&o, want, s);
    CHECK(run("slice p.npy -o o.npy --perm -1,0,1 --onnx-starts 3,1 --onnx-ends -9223372036854775808,3 "
              "--onnx-axes 0,2 --onnx-steps -2,1") == 0,
          "--perm with ONNX failed");
    check_npy("--perm with ONNX", "o.npy", "<i4", 3, s, want, sizeof(int32_t) * (size_t)n);
    rm("o.npy");
    /* DirectML SLICE1 over the permuted tensor desc (its Strides permuted). */
    perm_case d = {3, {2, 3, 4}, {1, 2, 0}, {1, 3, 1}, {2, 2, 1}, {1, -2, 1}};
    n = perm_expected(&d, want, s);
    CHECK(run("slice p.npy -o o.npy --perm 1,2,0 --window-offsets 1,1,1 --window-sizes 2,3,1 "
              "--window-strides 1,-2,1") == 0,
          "--perm with SLICE1 failed");
    check_npy("--perm with SLICE1", "o.npy", "<i4", 3, s, want, sizeof(int32_t) * (size_t)n);
    rm("o.npy");
    CHECK(run("check --dtype int32 --input-sizes 2,3,4 --perm 2,0,1 --index '[::2]'") == 0 &&
              out_has("valid: output shape (2, 2, 3)"),
          "check --perm");
    CHECK(run("check --dtype int32 --input-sizes 2,3,4 --perm 0,1,-3") == 1 && out_has("rule: R-PERM") &&
              out_has("--perm: NumPy transpose: axes[2] = -3 names axis 0 a second time"),
          "check --perm: a repeated axis");
    CHECK(run("slice p.npy -o o.npy --perm 0,1") == 1 && err_has("axes has 2 values but the input has rank 3") &&
              err_has("(R-PERM)") && !exists("o.npy"),
          "slice --perm: too few axes");
    CHECK(run("slice p.npy -o o.npy --perm 0,1,3") == 1 && err_has("axes[2] = 3 is outside [-3, 2]"),
          "slice --perm: out of range");
    CHECK(run("slice p.npy -o o.npy --perm x") == 2 && err_has("--perm"), "slice --perm x");
    CHECK(run("slice p.npy -o o.npy --perm") == 2 && err_has("--perm needs a value"), "slice --perm without a value");
    rm("p.npy");
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

/* --index as Python reads a subscript: x[()] is the whole array, x[] a
 * syntax error; an empty array is taken whatever its other dims. */
static void test_index_edges(void) {
    write_a45();
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

int main(int argc, char **argv) {
    static void (*const tests[])(void) = {
        test_seed_rng,       test_front_ends,  test_dtypes,    test_item_sizes,  test_pieces,
        test_grad_threads,   test_fortran,     test_perm,      test_perm_random, test_versions_and_pipes,
        test_unaligned_data, test_index_edges, test_high_rank, test_large_sparse};
    return tool_main(argc, argv, "cli_slicing", tests, sizeof tests / sizeof tests[0]);
}
