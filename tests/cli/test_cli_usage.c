/* The dmlslice tool's command line, end to end: --help and --version,
 * usage errors (exit 2), options before and after the command, `--`,
 * per-command help, arguments of any text reaching the tool whole, and
 * every example of --help run as written.
 * Usage: test_cli_usage DMLSLICE SCRATCH_PARENT_DIR */
#define _DEFAULT_SOURCE
#include <stdbool.h>

#include "dmlslice/dmlslice.h"
#include "support/tool.h"
#include "support/test.h"

/* --help and -V answer; a usage error exits 2 and writes nothing. */
static void test_usage(void) {
    write_a45();
    CHECK(run("--help") == 0 && out_has("--webnn-reverse") && out_has("--onnx-starts"), "--help");
    CHECK(run("-V") == 0 && out_has(DMLS_VERSION_STRING), "-V");
    CHECK(run("frobnicate") == 2 && err_has("unknown command 'frobnicate'") && !err_has_quiet("did you mean"),
          "unknown command");
    /* A near miss (a swap, a letter missing, one too many or wrong) is named. */
    CHECK(run("slcie a.npy") == 2 && err_has("unknown command 'slcie'; did you mean 'slice'?"), "slcie");
    CHECK(run("dispach m.json") == 2 && err_has("did you mean 'dispatch'?"), "dispach");
    CHECK(run("cropss") == 2 && err_has("did you mean 'crops'?"), "cropss");
    CHECK(run("help slcie") == 2 && err_has("did you mean 'slice'?"), "help slcie");
    /* info -q does what check -q does: the answer is the exit status alone. */
    CHECK(run("info a.npy -q") == 0 && !out_has_quiet("shape") && !err_has_quiet("a.npy"), "info -q on a good file");
    CHECK(run("info missing.npy -q") == 1 && err_has("missing.npy"), "info -q on a missing file");
    CHECK(run("info --devices -q") == 2 && err_has("--quiet") && err_has("--devices"), "info --devices -q");
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

static void test_command_line(void) {
    write_a45();
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

int main(int argc, char **argv) {
    static void (*const tests[])(void) = {test_usage, test_argument_passing, test_command_line, test_help_examples};
    return tool_main(argc, argv, "cli_usage", tests, sizeof tests / sizeof tests[0]);
}
