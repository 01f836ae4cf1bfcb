/* dmlslice: the command-line tool. Uses the public API only (it links
 * against the shared library, which exports nothing else). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "dmlslice/dml.h"
#include "files.h"

static const command_def *const commands[] = {&cmd_slice_def, &cmd_split_def, &cmd_crops_def,
                                              &cmd_check_def, &cmd_grad_def,  &cmd_dispatch_def,
                                              &cmd_info_def,  &cmd_demo_def,  &cmd_bench_def};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

static const option_def demo_options[] = {{NULL, NULL, NULL, NULL}};

static int run_demo(int argc, char **argv);

const command_def cmd_demo_def = {
    "demo", "", "Run the four worked examples of DirectML's SLICE and SLICE1 documentation\nand print them.",
    {{"options", demo_options, NULL}, {"", options_common, NULL}}, NULL, "dmlslice demo", run_demo, NULL, NULL, false,
    false,
};

/* demo.c holds the examples; the arguments are checked here like every
 * other command's. */
static int run_demo(int argc, char **argv) {
    args_prog = "dmlslice demo";
    common_options c;
    const int parsed = options_parse(&cmd_demo_def, argc, argv, &c, NULL, NULL);
    return parsed >= 0 ? parsed : cmd_demo(1, argv);
}

static void print_overview(FILE *f) {
    fputs("usage: dmlslice [OPTIONS] COMMAND [ARGS]\n"
          "\n"
          "DirectML's slice operators (SLICE, SLICE1, SLICE_GRAD) on any machine, on .npy files of any size,\n"
          "with DirectML's own parameters or NumPy, ONNX and WebNN ones.\n"
          "\ncommands:\n",
          f);
    for (int c = 0; c < NCOMMANDS; c++)
        fprintf(f, "  dmlslice %s%s%s\n", commands[c]->name, commands[c]->synopsis[0] ? " " : "", commands[c]->synopsis);
    fputs("\n'dmlslice COMMAND --help' shows a command's options and examples.\n"
          "Options may come before or after COMMAND; '--' ends the options.\n"
          "\n"
          "  -h, --help     show this help\n"
          "  -V, --version  show the version\n"
          "\n"
          "examples:\n",
          f);
    for (int c = 0; c < NCOMMANDS; c++) {
        for (const char *e = commands[c]->examples; e && *e;) {
            const char *nl = strchr(e, '\n');
            const int len = nl ? (int)(nl - e) : (int)strlen(e);
            fprintf(f, "  %.*s\n", len, e);
            e += len + (nl != NULL);
        }
    }
    fputs("\nExit status: 0 success, 1 failure (invalid parameters, bad file, I/O), 2 usage error.\n"
          "See dmlslice(1) and docs/cli.md for details.\n",
          f);
}

static const command_def *find_command(const char *name) {
    for (int c = 0; c < NCOMMANDS; c++)
        if (strcmp(commands[c]->name, name) == 0) return commands[c];
    return NULL;
}

/* Edits between a and b (insert, delete, replace, or swap two neighbours),
 * capped at 3: a typed name this close to a command is taken for a typo.
 * Names longer than 31 bytes are no typo of a command. */
static int edit_distance(const char *a, const char *b) {
    const size_t n = strlen(a), m = strlen(b);
    if (n > 31 || m > 31) return 3;
    int d[32][32];
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m] < 3 ? d[n][m] : 3;
}

/* The command a mistyped name most likely meant: at most 2 edits away and
 * fewer edits than the name has letters; NULL when none is. */
static const char *nearest_command(const char *name) {
    const char *best = NULL;
    int best_d = 3;
    for (int c = 0; c < NCOMMANDS; c++) {
        const int d = edit_distance(name, commands[c]->name);
        if (d < best_d && (size_t)d < strlen(name)) best = commands[c]->name, best_d = d;
    }
    return best;
}

/* True when some command's option `arg` takes a value (so that in
 * "dmlslice --threads 4 slice ...", 4 is not taken for the command). */
static bool takes_value(const char *arg) {
    if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=')) return false;
    for (int c = 0; c < NCOMMANDS; c++) {
        const option_def *o = options_find(commands[c], arg);
        if (o) return o->value != NULL;
    }
    return false;
}

int main(int argc, char **argv) {
    /* UTF-8 arguments (paths) and byte-exact standard streams everywhere
     * (Windows' own are the ANSI code page and text mode). */
    argv = dmls_utf8_args(argc, argv);
    dmls_stdio_binary();
    /* The command is the first argument that is neither an option nor an
     * option's value; options before it move after it, so each command's
     * one parser sees them all. */
    int at = 1;
    while (at < argc && strcmp(argv[at], "--") != 0 && options_looks_like_option(argv[at])) {
        const char *a = argv[at];
        if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            printf("dmlslice %s\n", dmls_version());
            return 0;
        }
        at += takes_value(a) ? 2 : 1;
    }
    if (at < argc && strcmp(argv[at], "--") == 0) at++;
    if (at >= argc) {
        for (int i = 1; i < argc; i++)
            if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
                print_overview(stdout);
                return 0;
            }
        print_overview(stderr);
        return 2;
    }
    const char *name = argv[at];
    const bool help = strcmp(name, "help") == 0;
    if (help && at + 1 >= argc) {
        print_overview(stdout);
        return 0;
    }
    const char *wanted = help ? argv[at + 1] : name;
    const command_def *cmd = find_command(wanted);
    if (cmd == NULL) {
        const char *guess = nearest_command(wanted); /* not "near": a macro of windows.h */
        if (guess) fprintf(stderr, "dmlslice: unknown command '%s'; did you mean '%s'?\n", wanted, guess);
        else fprintf(stderr, "dmlslice: unknown command '%s' (try 'dmlslice --help')\n", wanted);
        return 2;
    }
    if (help) {
        options_print_help(stdout, cmd);
        return 0;
    }
    /* The command's arguments: its name, the options given before it, the
     * rest. A "--" before the command ended nothing the command sees. */
    char **args = malloc(((size_t)argc + 1) * sizeof *args); /* no VLA: MSVC's C has none */
    if (args == NULL) {
        fprintf(stderr, "dmlslice: out of memory\n");
        return 1;
    }
    int n = 0;
    args[n++] = (char *)name;
    for (int i = 1; i < at; i++)
        if (strcmp(argv[i], "--") != 0) args[n++] = argv[i];
    for (int i = at + 1; i < argc; i++) args[n++] = argv[i];
    args[n] = NULL;
    const int status = cmd->run(n, args);
    free(args);
    return status;
}
