/* The dmlslice tool's refusals, end to end: each names what was wrong, the
 * values and the rule involved, exits 1 (2 for a usage error) and leaves no
 * file behind; malformed .npy files, front-end and DirectML parameters out
 * of range, and `check`'s verdicts.
 * Usage: test_cli_errors DMLSLICE SCRATCH_PARENT_DIR */
#define _DEFAULT_SOURCE
#include <stdbool.h>

#include "dmlslice/dmlslice.h"
#include "support/tool.h"
#include "support/test.h"

/* Front-end errors (exit 1) and options given twice (usage errors, exit 2)
 * name the problem and leave nothing behind. */
static void test_front_end_errors(void) {
#define SLICE_A "slice a.npy -o o.npy "
    static const tool_expect refused[] = {
        {SLICE_A "--index '[4]'", 1, .err = {"index 4 is out of bounds for axis 0 with size 4"}},
        {SLICE_A "--index '[1:2'", 1, .err = {"DMLS_ERROR_FORMAT"}},
        {SLICE_A "--onnx-starts 0,0 --onnx-ends 1,1 --onnx-axes 1,1", 1, .err = {"second time"}},
        {SLICE_A "--onnx-starts 0 --onnx-ends 1 --onnx-steps 0", .status = 1},
        {SLICE_A "--webnn-starts 0,-1 --webnn-sizes 1,1", 1, .err = {"unsigned"}},
        {SLICE_A "--webnn-starts 0,4 --webnn-sizes 1,2", 1, .err = {"exceeds the input's size 5"}},
        {SLICE_A "--window-offsets 0,3 --window-sizes 4,3 --window-strides 1,1", 1, .err = {"R-WIN-BOUNDS"}},
        {SLICE_A "--offsets 0,-1 --sizes 1,1 --strides 1,1", 1,
         .err = {"SLICE: Offsets[1] = -1 does not fit DirectML's 32-bit UINT field"}},
        /* Every option with a value, given twice, is refused alike. */
        {SLICE_A "-o p.npy --index 0", 2, .err = {"given twice"}},
        {SLICE_A "--output p.npy --index 0", 2, .err = {"given twice"}},
        {SLICE_A "--index 0 --threads 1 --threads 2", 2, .err = {"--threads given twice"}},
        {SLICE_A "--index 0 --device cpu --device cpu", 2, .err = {"--device given twice"}},
        {SLICE_A "--index 0 --feature-level 6_4 --feature-level=6_3", 2, .err = {"--feature-level given twice"}},
        {SLICE_A "--index 0 --index 1", 2, .err = {"--index given twice"}},
        {"check --dtype int8 --dtype int16 --input-sizes 4 --index 0", 2, .err = {"given twice"}},
    };
#undef SLICE_A
    write_a45();
    rm("o.npy");
    rm("p.npy");
    CHECK_RUNS(refused);
    CHECK(!exists("o.npy") && !exists("p.npy") && no_temp_files(), "a failed run left files");
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

/* `check` says whether parameters are valid, and which rule they break. */
static void test_check_verdicts(void) {
#define F32_1144 "check --dtype float32 --input-sizes 1,1,4,4 "
#define OK_CHECK F32_1144 "--offsets 0,0,0,0 --sizes 1,1,2,2 --strides 1,1,1,1"
    static const tool_expect verdicts[] = {
        {F32_1144 "--window-offsets 0,0,0,1 --window-sizes 1,1,4,3 --window-strides 1,1,-2,2", 0,
         .out = {"valid: output shape (1, 1, 2, 2)"}},
        {F32_1144 "--window-offsets 0,0,2,0 --window-sizes 1,1,3,4 --window-strides 1,1,1,1", 1,
         .out = {"rule: R-WIN-BOUNDS"}},
        {"check --dtype float32 --input-sizes 4,4 --offsets 0,0 --sizes 1,1 --strides 1,1 --feature-level 2_1", 1,
         .out = {"R-OP-RANK"}},
        {"check --dtype int8 --input-sizes 65536,65536 --offsets 0,0 --sizes 1,1 --strides 1,1", 1,
         .out = {"R-T-ELEMS"}},
        /* DirectML's element limit binds DirectML's forms; the native path is free of it. */
        {"check --dtype int8 --input-sizes 65536,65536 --index '[0:1, 0:2]'", 0, .out = {"(1, 2)"}},
        {"check --dtype bool --input-sizes 3,0 --onnx-starts 0 --onnx-ends 1", 0, .out = {"(1, 0)"}},
        {"check --dtype float16 --input-sizes 4,5 --input-strides 1,4 --webnn-reverse 1", 0, .out = {"(4, 5)"}},
        {"check --dtype float16 --input-sizes 4,5 --output-strides 1,1 --webnn-reverse 1", 1, .out = {"R-T-OUTLAYOUT"}},
        {"check --dtype float32 --input-sizes 4,5 --index '[5]' -q", .status = 1},
        {"check --dtype float32 --input-sizes 4,-5 --offsets 0,0 --sizes 1,1 --strides 1,1", 1, .out = {"is negative"}},
        {"check --dtype float32 --input-sizes 4,-5 --index 0", 1, .out = {"is negative"}},
        {"check --dtype float32 --input-sizes 4,4294967296 --offsets 0,0 --sizes 1,1 --strides 1,1", 1,
         .out = {"exceeds DirectML's limit"}},
        {"check --input-sizes 4,5 --index 0", .status = 2},
        {"check --dtype complex64 --input-sizes 4 --index 0", .status = 2},
        /* --feature-level takes exactly what it documents, and with a front
         * end the lowered SLICE1 is checked as DirectML would check it. */
        {OK_CHECK " --feature-level 0x6400junk", 2, .err = {"not a DirectML feature level"}},
        {OK_CHECK " --feature-level '0x 6400'", .status = 2},
        {OK_CHECK " --feature-level 6_4x", .status = 2},
        {OK_CHECK " --feature-level 0x6400", 0, .out = {"6_4"}},
        {OK_CHECK " --feature-level 6.4", .status = 0},
        {OK_CHECK " --feature-level 4_1", 0, .out = {"4_1"}},
        /* Natively any rank; at 2_1 the lowered SLICE1 needs rank 4, 64-bit types
         * come with 4_1, and an empty result is no DirectML tensor. */
        {"check --dtype float32 --input-sizes 4,5,6 --index '[::2]'", .status = 0},
        {"check --dtype float32 --input-sizes 4,5,6 --index '[::2]' --feature-level 2_1", 1,
         .out = {"rule: R-OP-RANK", "2_1"}},
        {"check --dtype float32 --input-sizes 1,4,5,6 --index '[:, ::2]' --feature-level 2_1", 0,
         .out = {"valid at feature level 2_1"}},
        {"check --dtype float64 --input-sizes 4,5 --onnx-starts 0 --onnx-ends 2 --feature-level 3_0", 1,
         .out = {"R-OP-TYPE"}},
        {"check --dtype float32 --input-sizes 4,5 --index '[0:0]' --feature-level 6_4", 1, .out = {"R-T-SIZES"}},
    };
#undef OK_CHECK
#undef F32_1144
    CHECK_RUNS(verdicts);
}

/* Issue 10, "Errors that name the right rule". */
static void test_rule_messages(void) {
#define WIN "check --dtype float32 --input-sizes 1,1,4,4 --window-offsets 0,0,0,0"
    static const tool_expect named[] = {
        {WIN " --window-sizes 1,1,0,4 --window-strides 1,1,1,1", 1, .out = {"rule: R-WIN-NONEMPTY"},
         .what = "a zero window size names R-WIN-NONEMPTY"},
        {WIN " --window-sizes 1,1,4,4 --window-strides 1,1,1,1 --output-sizes 1,1,0,4", 1,
         .out = {"--output-sizes[2] = 0", "rule: R-WIN-COUNT"},
         .what = "an output size of 0 names the output-size rule"},
        {"check --dtype float32 --input-sizes 4,5 --index 0 --output-strides 1", 1,
         .out = {"--output-strides has 1 value", "input's rank"},
         .what = "front ends: --output-strides counts the input's rank, and says so"},
        {"check --dtype float32 --input-sizes 4,5 --index 0 --output-strides 1,0", 1, .out = {"R-T-OUTLAYOUT"},
         .what = "front ends: the input's rank is the count"},
    };
    CHECK(run(WIN " --window-sizes 1,1,4,4 --window-strides 1,1,0,1") == 1 && out_has("rule: R-WIN-STRIDE") &&
              !out_has_quiet("calc_buffer_tensor_size"),
          "a zero window stride names R-WIN-STRIDE");
    CHECK_RUNS(named);
    CHECK(run(WIN " --window-sizes 1,1,4,4 --window-strides 1,1,1,1 --output-strides 1,2") == 1 &&
              out_has("--output-strides has 2 values") && out_has("4 axes") && !out_has_quiet("OUTLAYOUT"),
          "--output-strides of the wrong count is a count error");
#undef WIN
    /* The same through slice, on a file. */
    write_a45();
    CHECK(run("slice a.npy -o o.npy --window-offsets 0,0 --window-sizes 4,5 --window-strides 0,1") == 1 &&
              err_has("R-WIN-STRIDE") && !err_has_quiet("calc_buffer") && !exists("o.npy"),
          "slice: zero window stride");
    const int64_t s30[2] = {3, 0};
    write_npy("e.npy", "<f4", false, 2, s30, NULL, 0);
    CHECK(run("slice e.npy -o o.npy --window-offsets 0,0 --window-sizes 1,1 --window-strides 1,1") == 1 &&
              err_has("empty axis") && err_has("cannot be empty") && err_has("--index") && !exists("o.npy"),
          "a DirectML form on an empty .npy says why and what to use");
    static const tool_expect on_empty[] = {
        {"slice e.npy -o o.npy --offsets 0,0 --sizes 1,1 --strides 1,1", 1, .err = {"empty axis"},
         .what = "DML_SLICE on an empty .npy"},
        {"slice e.npy -o o.npy --index '[1:]'", 0, .what = "--index handles the empty .npy"},
    };
    CHECK_RUNS(on_empty);
    rm("o.npy");
    /* slice honours --feature-level with a front end, as check does. */
    CHECK(run("slice a.npy -o o.npy --webnn-reverse all --feature-level 2_1") == 1 && err_has("R-OP-RANK") &&
              !exists("o.npy"),
          "slice honours --feature-level with a front end");
    CHECK(run("slice a.npy -o o.npy --webnn-reverse all --feature-level 4_1") == 0, "slice, front end, 4_1");
    rm("o.npy");
}

int main(int argc, char **argv) {
    static void (*const tests[])(void) = {test_front_end_errors, test_malformed, test_check_verdicts,
                                          test_rule_messages};
    return tool_main(argc, argv, "cli_errors", tests, sizeof tests / sizeof tests[0]);
}
