/* dmlslice dispatch's usage text and options, compiled in every build:
 * cmd_dispatch.c runs models where the JSON reader is built,
 * cmd_dispatch_absent.c says what is missing where it is not. */
#include "args.h"
#include "commands.h"

static const option_def dispatch_options[] = {
    {"--feature-level", NULL, "L",
     "DirectML feature level the operators are validated at\n(the levels and the default are listed below)"},
    OPTION_DEVICE(""),
    {"--force", "-f", NULL, "let writeFile replace an existing file"},
    {"--allow-path", NULL, "DIRS",
     "folders the model may also read and write beneath\n(separated by ':', on Windows ';'; '/' for anywhere)"},
    {NULL, NULL, NULL, NULL},
};

const command_def cmd_dispatch_def = {
    "dispatch",
    "MODEL.json [--feature-level L] [--device D] [-f] [--allow-path DIRS]",
    "Run a DxDispatch model (DirectML's JSON format) of slice operators and print\n"
    "what its print commands print (docs/dispatch.md). '-' reads standard input.\n"
    "A model is untrusted: it reads files only beneath its own folder and the\n"
    "current folder, and writes only beneath the current folder (--allow-path\n"
    "widens both); a model file holds at most 16 MiB, its resources 4 GiB and\n"
    "their initial values 1 GiB together.",
    {{"options", dispatch_options, NULL}, {"", options_common, NULL}},
    NULL,
    NULL,
    cmd_dispatch,
    args_feature_levels_help,
    "model",
    false,
    false,
};
