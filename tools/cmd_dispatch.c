/* dmlslice dispatch: run a DxDispatch model (DirectML's JSON format) whose
 * dispatchables are slice operators. The reader and the runner live in
 * tools/dispatch/; this file is the command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "execute.h"
#include "model.h"
#include "options.h"
#include "platform.h"

/* The whole model file (a UTF-8 name; bytes as they are, CRLF line ends
 * included: JSON takes \r as space); NULL with a message on failure. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = strcmp(path, "-") == 0 ? stdin : dmls_fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    const bool bad = ferror(f);
    if (f != stdin) fclose(f);
    if (!buf || bad) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, path, buf ? "read error" : "out of memory");
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int cmd_dispatch(int argc, char **argv) {
    args_prog = "dmlslice dispatch";
    const char *path = NULL;
    DML_FEATURE_LEVEL level = DML_FEATURE_LEVEL_6_4;
    bool cuda = false, force = false;
    option_parser op;
    options_start(&op, &cmd_dispatch_def, argc, argv);
    for (;;) {
        const option_def *o;
        const char *value;
        const option_result r = options_next(&op, &o, &value);
        if (r == OPTION_DONE) break;
        if (r == OPTION_HELP) return 0;
        if (r == OPTION_ERROR) return 2;
        if (r == OPTION_ARGUMENT) {
            if (path) {
                fprintf(stderr, "%s: one model only ('%s' and '%s')\n", args_prog, path, value);
                return 2;
            }
            path = value;
        } else if (option_is(o, "--feature-level")) {
            if (!args_feature_level(o->name, value, &level)) return 2;
        } else if (option_is(o, "--force")) {
            force = true;
        } else if (option_is(o, "--device")) {
            if (strcmp(value, "cuda") == 0) cuda = true;
            else if (strcmp(value, "cpu") == 0) cuda = false;
            else {
                fprintf(stderr, "%s: --device '%s' is neither cpu nor cuda\n", args_prog, value);
                return 2;
            }
        }
    }
    if (!path) {
        fprintf(stderr, "%s: needs a model file (MODEL.json, or '-' for stdin)\n", args_prog);
        return 2;
    }
    size_t len = 0;
    char *text = slurp(path, &len);
    if (!text) return 1;
    /* File initializers are found beside the model first, as in DxDispatch:
     * its path up to its name ("" for standard input). */
    const bool from_stdin = strcmp(path, "-") == 0;
    const size_t folder = from_stdin ? 0 : dmls_path_folder_len(path);
    char *dir = malloc(folder + 1);
    if (!dir) {
        fprintf(stderr, "%s: out of memory\n", args_prog);
        free(text);
        return 1;
    }
    memcpy(dir, path, folder);
    dir[folder] = '\0';
    const char *name = from_stdin ? "<stdin>" : path;
    model m;
    char err[MODEL_ERR_LEN];
    int status = 1;
    if (!model_read(text, len, name, dir, &m, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
    } else {
        const execute_options o = {level, cuda, stdout, name, path, force};
        if (model_execute(&m, &o, err)) status = 0;
        else fprintf(stderr, "%s: %s\n", args_prog, err);
        model_free(&m);
    }
    free(dir);
    free(text);
    return status;
}
