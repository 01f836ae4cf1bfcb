/* dmlslice grad: DirectML's SLICE_GRAD on a .npy file. The input is the
 * gradient of a SLICE1's output; the result is the gradient of its input:
 * zeros, with each input-gradient element written where SLICE1 read it. A
 * command of its own rather than a slice option because its output shape is
 * given (--output-gradient-sizes) instead of following from the input, and
 * only the SLICE1 window describes it. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "options.h"
#include "params.h"
#include "slice_run.h"

static const option_def grad_options[] = {
    {"--output", "-o", "OUT", "the output gradient .npy file ('-' for standard output)"},
    {"--output-gradient-sizes", NULL, "L", "the output gradient's sizes (the forward SLICE1's input shape)"},
    OPTIONS_COPY_TAIL(": copy to the device,\nrun there, copy back",
                      "threads for the zero fill and the scatter, 1 to 1024 (default:\n"
                      "$DMLSLICE_THREADS, else every CPU); under 512 KiB of work\nruns on one thread",
                      "replace an existing output file", "no progress"),
};

/* SLICE_GRAD is described by the SLICE1 window and a feature level only. */
static const option_def grad_params[] = {
    {"--window-offsets", NULL, "L", "the forward SLICE1's window offsets, per axis"},
    {"--window-sizes", NULL, "L", "its window sizes (at least 1)"},
    {"--window-strides", NULL, "L", "its window strides, non-zero"},
    {"--feature-level", NULL, "L", "DirectML feature level, as for slice (SLICE_GRAD from 3_0)"},
    {NULL, NULL, NULL, NULL},
};

const command_def cmd_grad_def = {
    "grad",
    "IN.npy -o OUT.npy --window-offsets L --window-sizes L --window-strides L --output-gradient-sizes L "
    "[--feature-level L] [--device D] [--threads N] [-f] [-q]",
    "DML_SLICE_GRAD: scatter the input gradient IN into a zero output gradient of\n"
    "the given sizes, where SLICE1 with that window reads.",
    {{"options", grad_options, NULL}, {"", options_common, NULL}, {"window", grad_params, NULL}},
    NULL,
    "dmlslice grad x.npy -o y.npy --window-offsets 1,0,0 --window-sizes 4,5,6 --window-strides 1,1,1 \\\n"
    "    --output-gradient-sizes 6,5,6",
    cmd_grad,
    args_feature_levels_help,
    "input file",
    false,
    true,
};

typedef struct grad_args {
    params p;
    param_list out_sizes;
} grad_args;

static bool grad_option(void *ctx, const option_def *o, const char *value) {
    grad_args *a = ctx;
    if (!option_is(o, "--output-gradient-sizes")) return params_option(&a->p, o, value) >= 0;
    a->out_sizes.given = true;
    return args_list(o->name, value, a->out_sizes.v, &a->out_sizes.n);
}

static bool grad_setup(const void *args, const param_tensor *t, param_setup *setup) {
    const grad_args *a = args;
    return params_setup_grad(&a->p, t, &a->out_sizes, setup);
}

int cmd_grad(int argc, char **argv) {
    args_prog = "dmlslice grad";
    grad_args a;
    memset(&a, 0, sizeof a);
    params_init(&a.p);
    common_options c;
    const int parsed = slice_run_options(&cmd_grad_def, argc, argv, &c, grad_option, &a, "an input gradient file");
    if (parsed >= 0) return parsed;
    if (a.p.form != FORM_DML_SLICE1 || a.p.out_sizes.given || !a.out_sizes.given) {
        fprintf(stderr, "%s: takes the window (--window-offsets, --window-sizes, --window-strides) and "
                        "--output-gradient-sizes, and no other slice parameters\n", args_prog);
        return 2;
    }
    if (!params_complete(&a.p)) return 2;
    return slice_run_file(&c, grad_setup, &a, "writing the gradient into");
}
