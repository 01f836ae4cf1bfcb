/* dmlslice dispatch's usage text and options, compiled in every build:
 * cmd_dispatch.c runs models where the JSON reader is built,
 * cmd_dispatch_absent.c says what is missing where it is not. */
#include "commands.h"

static const option_def dispatch_options[] = {
    {"--feature-level", NULL, "L", "DirectML feature level the operators are validated at\n(default 6_4)"},
    {"--device", NULL, "D", "cpu (default) or cuda"},
    {"--force", "-f", NULL, "let writeFile replace an existing file"},
    {NULL, NULL, NULL, NULL},
};

const command_def cmd_dispatch_def = {
    "dispatch",
    "MODEL.json [--feature-level L] [--device D] [-f]",
    "Run a DxDispatch model (DirectML's JSON format) of slice operators and print\n"
    "what its print commands print (docs/dispatch.md). '-' reads standard input.",
    {{"options", dispatch_options, NULL}, {"", options_common, NULL}},
    NULL,
    NULL,
    cmd_dispatch,
    NULL,
};
