/* dmlslice slice: slice a .npy file into a new .npy file. */
#include <stdio.h>

#include "args.h"
#include "commands.h"
#include "options.h"
#include "params.h"
#include "slice_run.h"

static const option_def slice_options[] = {
    {"--output", "-o", "OUT", "the output .npy file ('-' for standard output)"},
    OPTIONS_COPY_TAIL(": copy to the device,\nslice there, copy back",
                      "threads for the copy, 1 to 1024 (default: $DMLSLICE_THREADS,\nelse every CPU); a copy that moves "
                      "under 512 KiB (output\nbytes plus input cache lines read) runs on one thread",
                      "replace an existing output file", "no progress"),
};

const command_def cmd_slice_def = {
    "slice",
    "IN.npy -o OUT.npy PARAMS [--feature-level L] [--device D] [--threads N] [-f] [-q]",
    "Slice IN into OUT ('-' for standard input or output). OUT is written\n"
    "atomically, and an existing OUT is kept unless -f is given.",
    {{"options", slice_options, NULL}, {"", options_common, NULL}, {"PARAMS", params_options, params_note}},
    NULL,
    "dmlslice slice x.npy -o y.npy --index '[1:3, ::-2, ..., None, 0]'\n"
    "dmlslice slice x.npy -o y.npy --onnx-starts 0,-1 --onnx-ends 3,-9223372036854775808 \\\n"
    "    --onnx-axes 0,2 --onnx-steps 1,-1\n"
    "dmlslice slice x.npy -o y.npy --webnn-starts 0,1,0 --webnn-sizes 2,3,6 --webnn-strides 1,2,3\n"
    "dmlslice slice x.npy -o y.npy --webnn-reverse 1\n"
    "dmlslice slice x.npy -o y.npy --offsets 0,1,2 --sizes 2,2,2 --strides 2,1,2\n"
    "dmlslice slice x.npy -o y.npy --perm -1,0,1 --index '[::2, 1:]'\n"
    "dmlslice slice x.npy -o - --window-offsets 0,0,1 --window-sizes 4,5,3 \\\n"
    "    --window-strides -2,1,2 --feature-level 4_1 | dmlslice info -",
    cmd_slice,
    args_feature_levels_help,
    "input file",
    false,
    true,
};

static bool slice_option(void *ctx, const option_def *o, const char *value) {
    return params_option(ctx, o, value) >= 0;
}

static bool slice_setup(const void *args, const param_tensor *t, param_setup *setup) {
    return params_setup(args, t, setup);
}

int cmd_slice(int argc, char **argv) {
    args_prog = "dmlslice slice";
    params p;
    params_init(&p);
    common_options c;
    const int parsed = slice_run_options(&cmd_slice_def, argc, argv, &c, slice_option, &p, "an input file");
    if (parsed >= 0) return parsed;
    if (!params_complete(&p)) return 2;
    return slice_run_file(&c, slice_setup, &p, "slicing into");
}
