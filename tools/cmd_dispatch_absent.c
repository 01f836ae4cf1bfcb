/* dmlslice dispatch in a build without a JSON reader: the command exists
 * and says what it needs, rather than being an unknown command. */
#include <stdio.h>

#include "commands.h"

int cmd_dispatch(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fputs("dmlslice dispatch: this dmlslice was built without the Jansson JSON library, which reading "
          "DxDispatch models needs; install it (Debian: libjansson-dev, or run scripts/deps.sh) and "
          "rebuild\n",
          stderr);
    return 1;
}
