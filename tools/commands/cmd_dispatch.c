/* dmlslice dispatch: run a DxDispatch model (DirectML's JSON format) whose
 * dispatchables are slice operators. The reader and the runner live in
 * tools/dispatch/; this file is the command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "device_io.h"
#include "device_opt.h"
#include "run.h"
#include "model.h"
#include "npy_format.h"
#include "options.h"
#include "files.h"
#include "platform.h"
#include "reach.h"

/* A model is text: more than this is refused rather than read on
 * (a device such as /dev/zero never ends). */
#define MODEL_MAX_TEXT ((size_t)16 << 20)

/* An error, its names and paths from the model escaped for the terminal
 * (npy_format.h); the rest of the text is the tool's own. */
static void report(const char *err) {
    const size_t n = strlen(err);
    char *shown = malloc(4 * n + 1);
    if (shown) npy_escape_text(shown, 4 * n + 1, err, n);
    fprintf(stderr, "%s: %s\n", args_prog, shown ? shown : err);
    free(shown);
}

/* The whole model file (a UTF-8 name; bytes as they are, CRLF line ends
 * included: JSON takes \r as space), at most MODEL_MAX_TEXT bytes; NULL
 * with a message on failure. Its type is looked at before it is opened: a
 * regular file, standard input, a pipe or a FIFO (read until it ends).
 * *has_folder: a regular file has one, beside which its files are looked
 * up; a stream (standard input, /dev/stdin, a FIFO, a device) has none. */
static char *slurp(const char *path, size_t *len, bool *has_folder) {
    const bool from_stdin = strcmp(path, "-") == 0;
    dmls_file_info info;
    int e = from_stdin ? 0 : dmls_path_info(path, 1, &info);
    const char *refused = e != 0                          ? dmls_error_text(e)
                          : from_stdin                     ? NULL
                          : info.kind == DMLS_FILE_MISSING ? dmls_error_text(ENOENT)
                          : info.kind == DMLS_FILE_FOLDER  ? "is a folder, not a model"
                          : info.kind == DMLS_FILE_OTHER   ? "is a block device or other special file, not a model"
                                                           : NULL;
    *has_folder = !from_stdin && e == 0 && info.kind == DMLS_FILE_REGULAR;
    FILE *f = refused ? NULL : from_stdin ? stdin : dmls_fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, path, refused ? refused : strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf && n <= MODEL_MAX_TEXT) {
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
    const bool bad = ferror(f), big = n > MODEL_MAX_TEXT;
    if (f != stdin) fclose(f);
    if (!buf || bad || big) {
        if (big)
            fprintf(stderr, "%s: %s: more than %zu MiB; a model is text and may hold at most that\n", args_prog, path,
                    MODEL_MAX_TEXT >> 20);
        else fprintf(stderr, "%s: %s: %s\n", args_prog, path, buf ? "read error" : "out of memory");
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* Reads and runs the model text read from path; the exit status. */
static int run_model(const char *path, bool has_folder, char *text, size_t len, const char *allowed,
                     DML_FEATURE_LEVEL level, const char *device, bool force) {
    /* File initializers are found beside the model first, as in DxDispatch:
     * its path up to its name. A stream has none; a symbolic link's folder
     * is that of the file it leads to (/dev/stdin redirected from a file is
     * no model in /dev). */
    const bool from_stdin = strcmp(path, "-") == 0;
    dmls_file_info info;
    memset(&info, 0, sizeof info);
    char *real = has_folder && dmls_path_info(path, 0, &info) == 0 && info.is_link ? dmls_real_path(path) : NULL;
    has_folder = has_folder && (real || !info.is_link);
    const char *file = real ? real : path;
    const size_t folder = has_folder ? dmls_path_folder_len(file) : 0;
    char *dir = malloc(folder + 1);
    if (!dir) {
        free(real);
        fprintf(stderr, "%s: out of memory\n", args_prog);
        return 1;
    }
    memcpy(dir, file, folder);
    dir[folder] = '\0';
    free(real);
    const char *name = from_stdin ? "<stdin>" : path;
    model_reach reach;
    char err[MODEL_ERR_LEN], why[REACH_WHY_LEN];
    int status = 1;
    model m;
    if (!reach_init(&reach, has_folder ? dir : NULL, allowed, why)) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, allowed ? "--allow-path" : "the current folder", why);
    } else if (!model_read(text, len, name, dir, &reach, &m, err)) {
        report(err);
    } else {
        const execute_options o = {level, device, stdout, name, path, force, &reach};
        if (model_execute(&m, &o, err)) status = 0;
        else report(err);
        model_free(&m);
    }
    reach_free(&reach);
    free(dir);
    return status;
}

typedef struct dispatch_args {
    DML_FEATURE_LEVEL level;
    const char *allowed;
} dispatch_args;

static bool dispatch_option(void *ctx, const option_def *o, const char *value) {
    dispatch_args *a = ctx;
    if (option_is(o, "--feature-level")) return args_feature_level(o->name, value, &a->level);
    a->allowed = value; /* --allow-path */
    return true;
}

int cmd_dispatch(int argc, char **argv) {
    args_prog = "dmlslice dispatch";
    dispatch_args a = {args_latest_feature_level(), NULL};
    common_options c;
    const int parsed = options_parse(&cmd_dispatch_def, argc, argv, &c, dispatch_option, &a);
    if (parsed >= 0) return parsed;
    const char *path = c.input, *allowed = a.allowed;
    const DML_FEATURE_LEVEL level = a.level;
    device_choice dev = c.device;
    const bool force = c.force;
    if (!path) {
        fprintf(stderr, "%s: needs a model file (MODEL.json, or '-' for stdin)\n", args_prog);
        return 2;
    }
    size_t len = 0;
    bool has_folder = false;
    char *text = slurp(path, &len, &has_folder);
    if (!text) return 1;
    /* --device cuda without a usable device runs on the CPU, saying so
     * (device_io.h); another device without one fails when it is used. */
    device_io_fallback(&dev);
    const int status =
        run_model(path, has_folder, text, len, allowed, level, dev.kind == DEVICE_CPU ? NULL : dev.name, force);
    free(text);
    return status;
}
