/* `dmlslice bench --json`, end to end: the file is JSON that a strict
 * reader (Jansson, as `dmlslice dispatch` reads its models) takes whole, and
 * it says what was run: the device, threads, repetitions, --quick, the
 * library's version, and one row per timed case with the case's name as
 * given (escapes undone), its output bytes, its times and whether its output
 * was right; JSON has no NaN, so a ratio without meaning is null. Run from a
 * folder without bench/cases.json: the built-in cases.
 * Usage: test_cli_bench DMLSLICE SCRATCH_PARENT_DIR */
#define _DEFAULT_SOURCE
#include <stdbool.h>

#include <jansson.h>

#include "dmlslice/dmlslice.h"
#include "support/tool.h"
#include "support/test.h"

/* The file read as one JSON value, nothing after it, no key twice; NULL
 * (said, with Jansson's reason) when it is not. */
static json_t *load_json(const char *name) {
    char p[4200];
    json_error_t e;
    path_of(p, sizeof p, name);
    json_t *v = json_load_file(p, JSON_REJECT_DUPLICATES, &e);
    CHECK(v != NULL, "%s is not valid JSON: line %d column %d: %s", name, e.line, e.column, e.text);
    return v;
}

/* The row whose "case" is name, or NULL. */
static json_t *row_named(json_t *rows, const char *name) {
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        const char *c = json_string_value(json_object_get(row, "case"));
        if (c && strcmp(c, name) == 0) return row;
    }
    return NULL;
}

/* The file's head: what bench was asked for and what it ran on. */
static void check_head(const char *what, json_t *doc, int reps, bool quick) {
    CHECK(json_is_object(doc), "%s: the document is not an object", what);
    const char *device = json_string_value(json_object_get(doc, "device"));
    CHECK(device && strcmp(device, "cpu") == 0, "%s: device %s, want cpu", what, device ? device : "(none)");
    json_t *threads = json_object_get(doc, "threads");
    CHECK(json_is_integer(threads) && json_integer_value(threads) >= 1, "%s: threads is not a count", what);
    CHECK(json_integer_value(json_object_get(doc, "reps")) == reps, "%s: reps is not %d", what, reps);
    CHECK(json_is_boolean(json_object_get(doc, "quick")) && json_is_true(json_object_get(doc, "quick")) == quick,
          "%s: quick is not %s", what, quick ? "true" : "false");
    const char *version = json_string_value(json_object_get(doc, "version"));
    CHECK(version && strcmp(version, dmls_version()) == 0, "%s: version %s, want the library's %s", what,
          version ? version : "(none)", dmls_version());
}

/* A row's figures: a byte count, times that are numbers (or null where
 * nothing was measured), a right output. */
static void check_row(const char *what, json_t *row, json_int_t out_bytes) {
    CHECK(json_is_object(row), "%s: no row", what);
    if (!json_is_object(row)) return;
    json_t *bytes = json_object_get(row, "out_bytes");
    CHECK(json_is_integer(bytes) && (out_bytes < 0 || json_integer_value(bytes) == out_bytes),
          "%s: out_bytes %lld, want %lld", what, (long long)json_integer_value(bytes), (long long)out_bytes);
    static const char *const figures[] = {"ms", "GBps", "copy_ms", "copy_GBps", "ratio"};
    for (size_t k = 0; k < sizeof figures / sizeof figures[0]; k++) {
        json_t *f = json_object_get(row, figures[k]);
        CHECK(json_is_number(f) || json_is_null(f), "%s: %s is neither a number nor null", what, figures[k]);
    }
    CHECK(json_is_integer(json_object_get(row, "batch")), "%s: batch is not an integer", what);
    CHECK(json_is_true(json_object_get(row, "correct")), "%s: the output was not right", what);
}

/* bench run on the cases text (as STEM_cases.json) with --reps reps, and
 * its --json file (STEM.json) read back; NULL where that fails (said). */
static json_t *bench_cases(const char *stem, const char *cases, int reps) {
    char cases_file[64], json_file[64];
    snprintf(cases_file, sizeof cases_file, "%s_cases.json", stem);
    snprintf(json_file, sizeof json_file, "%s.json", stem);
    write_raw(cases_file, cases, strlen(cases));
    CHECK(run("bench --cases %s --reps %d --json %s", cases_file, reps, json_file) == 0, "bench --cases %s",
          cases_file);
    json_t *doc = load_json(json_file);
    rm(json_file);
    rm(cases_file);
    return doc;
}

static void test_builtin_cases(void) {
    CHECK(run("bench --quick --reps 1 --json q.json") == 0 && out_has("crop4d_f32"),
          "bench --quick from a scratch folder, built-in cases");
    json_t *doc = load_json("q.json");
    if (doc == NULL) return;
    check_head("bench --quick", doc, 1, true);
    json_t *rows = json_object_get(doc, "cases");
    CHECK(json_is_array(rows) && json_array_size(rows) >= 1, "bench --quick: no rows");
    json_t *crop = row_named(rows, "crop4d_f32");
    CHECK(crop != NULL, "bench --quick: no crop4d_f32 row");
    check_row("crop4d_f32", crop, -1);
    CHECK(json_integer_value(json_object_get(crop, "out_bytes")) > 0, "crop4d_f32 writes no bytes");
    /* The layout cases, shrunk through their perm as the others are. */
    static const char *const permuted[] = {"t2d_f32", "nchw_to_nhwc_f16", "nhwc_to_nchw_f32", "heads_bshd_to_bhsd_f16",
                                           "t2d_u8", "t3d_021_f32"};
    for (size_t k = 0; k < sizeof permuted / sizeof permuted[0]; k++) {
        json_t *row = row_named(rows, permuted[k]);
        CHECK(row != NULL, "bench --quick: no %s row", permuted[k]);
        check_row(permuted[k], row, -1);
    }
    json_decref(doc);
    rm("q.json");
}

/* An empty output (no ratio to give) and a name with a tab (escaped). */
static void test_odd_cases(void) {
    const char cases[] =
        "[{\"name\": \"empty\tcase\", \"dtype\": \"float32\", \"input_shape\": [4, 4], \"window_offsets\": [0, 0],"
        " \"window_sizes\": [0, 4], \"window_strides\": [1, 1], \"output_sizes\": [0, 4]},"
        " {\"name\": \"tiny\", \"dtype\": \"int8\", \"input_shape\": [3], \"window_offsets\": [1],"
        " \"window_sizes\": [2], \"window_strides\": [-1], \"output_sizes\": [2]}]";
    json_t *doc = bench_cases("odd", cases, 2);
    if (doc != NULL) {
        check_head("odd cases", doc, 2, false);
        json_t *rows = json_object_get(doc, "cases");
        CHECK(json_array_size(rows) == 2, "odd cases: %zu rows, want 2", json_array_size(rows));
        json_t *empty = row_named(rows, "empty\tcase");
        CHECK(empty != NULL, "the name with a tab did not read back as written");
        check_row("empty case", empty, 0);
        CHECK(json_is_null(json_object_get(empty, "ratio")), "an empty case's ratio is not null");
        check_row("tiny", row_named(rows, "tiny"), 2);
        json_decref(doc);
    }
    CHECK(run("bench --cases nosuch.json --reps 1 --json n.json") == 1 && err_has("nosuch.json") && !exists("n.json"),
          "--cases missing file");
}

/* A case's "perm" views the packed stored array through a permutation: the
 * window (whole, or as given) is over the permuted view. A [2, 7] array
 * through (1, 0) is 7 x 2, so the window 7 x 2 fits it only when the perm
 * is applied; a rank-3 perm with its window left out takes it all. */
static void test_perm_cases(void) {
    const char cases[] =
        "[{\"name\": \"t27\", \"dtype\": \"int16\", \"input_shape\": [2, 7], \"perm\": [1, 0],"
        " \"window_offsets\": [1, 0], \"window_sizes\": [6, 2], \"window_strides\": [-2, 1], \"output_sizes\": [3, 2]},"
        " {\"name\": \"whole\", \"dtype\": \"uint8\", \"input_shape\": [3, 5, 9], \"perm\": [2, 0, 1]}]";
    json_t *doc = bench_cases("perm", cases, 1);
    if (doc != NULL) {
        json_t *rows = json_object_get(doc, "cases");
        CHECK(json_array_size(rows) == 2, "perm cases: %zu rows, want 2", json_array_size(rows));
        check_row("t27", row_named(rows, "t27"), 3 * 2 * 2);
        check_row("whole", row_named(rows, "whole"), 3 * 5 * 9);
        json_decref(doc);
    }
    /* Not a permutation: a repeated axis, an axis out of range, the wrong count. */
    static const char *const bad[][2] = {{"[0, 0]", "perm [0, 0] is not a permutation of its 2 axes"},
                                         {"[2, 0]", "perm [2, 0] is not a permutation of its 2 axes"},
                                         {"[1, 0, 2]", "perm [1, 0, 2] is not a permutation of its 2 axes"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[256];
        snprintf(text, sizeof text, "[{\"name\": \"bad\", \"dtype\": \"float32\", \"input_shape\": [4, 4], \"perm\": %s}]",
                 bad[k][0]);
        write_raw("perm_bad.json", text, strlen(text));
        CHECK(run("bench --cases perm_bad.json --reps 1 --json b.json") == 1 && err_has(bad[k][1]) && err_has("'bad'") &&
                  !exists("b.json"),
              "perm %s: want an error naming it", bad[k][0]);
    }
    rm("perm_bad.json");
}

int main(int argc, char **argv) {
    static void (*const tests[])(void) = {test_builtin_cases, test_odd_cases, test_perm_cases};
    return tool_main(argc, argv, "cli_bench", tests, sizeof tests / sizeof tests[0]);
}
