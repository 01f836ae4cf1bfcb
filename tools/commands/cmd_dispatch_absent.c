/* dmlslice dispatch in a build without a JSON reader: the command exists
 * and says what it needs, rather than being an unknown command. */
#include <stdio.h>

#include "args.h"
#include "commands.h"

int cmd_dispatch(int argc, char **argv) {
    args_prog = "dmlslice dispatch";
    option_parser op;
    options_start(&op, &cmd_dispatch_def, argc, argv);
    const option_def *o;
    const char *value;
    for (option_result r; (r = options_next(&op, &o, &value)) != OPTION_DONE;) {
        if (r == OPTION_HELP) return 0;
        if (r == OPTION_ERROR) return 2;
    }
    fputs("dmlslice dispatch: this dmlslice was built without the Jansson JSON library, which reading "
          "DxDispatch models needs; install it (Debian: libjansson-dev, or run scripts/deps.sh) and "
          "rebuild\n",
          stderr);
    return 1;
}
