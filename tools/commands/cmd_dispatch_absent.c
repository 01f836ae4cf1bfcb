/* dmlslice dispatch in a build without a JSON reader: the command exists
 * and says what it needs, rather than being an unknown command. */
#include <stdio.h>

#include "args.h"
#include "commands.h"

/* The arguments are checked as where the command runs; their values are
 * not used. */
static bool any_option(void *ctx, const option_def *o, const char *value) {
    (void)ctx, (void)o, (void)value;
    return true;
}

int cmd_dispatch(int argc, char **argv) {
    args_prog = "dmlslice dispatch";
    common_options c;
    const int parsed = options_parse(&cmd_dispatch_def, argc, argv, &c, any_option, NULL);
    if (parsed >= 0) return parsed;
    fputs("dmlslice dispatch: this dmlslice was built without the Jansson JSON library, which reading "
          "DxDispatch models needs; install it (Debian: libjansson-dev, or run scripts/deps.sh) and "
          "rebuild\n",
          stderr);
    return 1;
}
