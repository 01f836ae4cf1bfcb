/* dmlslice: the command-line tool. Uses the public API only. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "dmlslice/dmlslice.h"

static const char usage[] =
    "usage: dmlslice COMMAND [ARGS]\n"
    "\n"
    "DirectML's slice operators (SLICE, SLICE1, SLICE_GRAD) on any machine.\n"
    "\n"
    "commands:\n"
    "  demo        run the four worked examples of DirectML's documentation\n"
    "  bench       time the canonical cases beside a plain copy (--help for options)\n"
    "\n"
    "options:\n"
    "  -h, --help     show this help\n"
    "  -V, --version  show the version\n";

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("dmlslice %s\n", dmls_version());
        return 0;
    }
    if (strcmp(cmd, "demo") == 0) return cmd_demo(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) return cmd_bench(argc - 1, argv + 1);
    fprintf(stderr, "dmlslice: unknown command '%s' (try 'dmlslice --help')\n", cmd);
    return 2;
}
