/* dmlslice split: one .npy input into several outputs along one axis
 * (ONNX Split, PyTorch's split), read once and copied in one batch
 * (dmls_batch_create_split): one pass of the thread pool, or one launch on
 * the GPU. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "batch_files.h"
#include "commands.h"
#include "dmlslice/batch.h"
#include "options.h"

static const option_def split_options[] = {
    {"--output", "-o", "OUT", "an output .npy file, once per part, in order ('-' for\nstandard output)"},
    {"--axis", NULL, "K", "the axis to split, in [-rank, rank-1] (default 0)"},
    {"--sizes", NULL, "L", "the parts' lengths along the axis, each >= 0, summing to\nits length"},
    {"--num-outputs", NULL, "N",
     "N parts, by --mode's rule (default ONNX Split-18's:\n"
     "ceil(d/N) each, the last what remains; 9 into 4: 3,3,3,0;\n5 into 4 is an error)"},
    {"--mode", NULL, "M",
     "how --num-outputs N cuts an axis of d: onnx (default),\narray_split or tensor_split (NumPy's array_split,\n"
     "PyTorch's tensor_split: the first d%N parts one longer;\n5 into 4: 2,1,1,1) or chunk (PyTorch's chunk: parts of\n"
     "ceil(d/N), as many as needed, at most N; 5 into 4: 2,2,1)"},
    OPTIONS_COPY_TAIL(": copy to the device,\nsplit there in one launch (one command buffer), copy back",
                      OPTIONS_COPY_THREADS, "replace existing output files",
                      "accepted like slice's; nothing is reported on success"),
};

const command_def cmd_split_def = {
    "split",
    "IN.npy [--axis K] (--sizes L | --num-outputs N [--mode M]) -o OUT1.npy -o OUT2.npy ... [--device D] [--threads N] [-f] [-q]",
    "Split IN along one axis into one output per -o, in order ('-' for standard\n"
    "input or output). Every output is written or none is; existing outputs are\n"
    "kept unless -f is given.",
    {{"options", split_options, NULL}, {"", options_common, NULL}},
    "Rules (docs/spec.md section 7): R-SPLIT-AXIS, R-SPLIT-SUM, R-SPLIT-COUNT.\n"
    "With -f an existing output is replaced; should a later output then fail,\n"
    "the outputs already in place are removed again, the replaced files with them.",
    "dmlslice split x.npy --axis 1 --sizes 2,3 -o left.npy -o right.npy\n"
    "dmlslice split x.npy --axis -1 --num-outputs 4 -o q0.npy -o q1.npy -o q2.npy -o q3.npy\n"
    "dmlslice split x.npy --num-outputs 4 --mode array_split -o p0.npy -o p1.npy -o p2.npy -o p3.npy",
    cmd_split,
    NULL,
    "input file",
    true,
    true,
};

typedef struct split_args {
    int64_t axis, num_outputs;
    int64_t sizes[OPTIONS_MAX_OUTPUTS];
    int32_t nsizes;
    bool sizes_given, mode_given;
    dmls_split_rule mode;
} split_args;

/* --mode's names: the library's rules a count can be read by (PyTorch's
 * split(x, k), parts of k, takes a length, not a count of outputs). */
static const struct {
    const char *name;
    dmls_split_rule rule;
} split_modes[] = {{"onnx", DMLS_SPLIT_ONNX},
                   {"array_split", DMLS_SPLIT_ARRAY_SPLIT},
                   {"tensor_split", DMLS_SPLIT_ARRAY_SPLIT},
                   {"chunk", DMLS_SPLIT_TORCH_CHUNK}};

static bool split_mode(const char *value, split_args *a) {
    for (size_t i = 0; i < sizeof split_modes / sizeof split_modes[0]; i++)
        if (strcmp(value, split_modes[i].name) == 0) {
            a->mode = split_modes[i].rule;
            return a->mode_given = true;
        }
    fprintf(stderr, "%s: --mode '%s' is not onnx, array_split, tensor_split or chunk\n", args_prog, value);
    return false;
}

static bool split_option(void *ctx, const option_def *o, const char *value) {
    split_args *a = ctx;
    if (option_is(o, "--axis")) return args_int64(o->name, value, &a->axis);
    if (option_is(o, "--sizes")) return a->sizes_given = args_values(o->name, value, a->sizes, OPTIONS_MAX_OUTPUTS, &a->nsizes);
    if (option_is(o, "--mode")) return split_mode(value, a);
    if (!args_int64(o->name, value, &a->num_outputs)) return false; /* --num-outputs */
    if (a->num_outputs >= 1) return true;
    /* Below 1 is refused here, so 0 means "not given". */
    fprintf(stderr, "%s: --num-outputs %" PRId64 " is below 1 (R-SPLIT-COUNT)\n", args_prog, a->num_outputs);
    return false;
}

/* The parts' sizes along the axis of length d, into a->sizes: -1, or the
 * exit status after saying what is wrong (1 for a broken rule, 2 when the
 * parts and the outputs do not pair up). */
static int part_sizes(split_args *a, int64_t d, int noutputs) {
    if (!a->sizes_given) {
        size_t count = 0;
        if (dmls_split_sizes(d, a->num_outputs, a->mode, a->sizes, OPTIONS_MAX_OUTPUTS, &count) != DMLS_OK) {
            /* The library names the other modes; here they are --mode's. */
            fprintf(stderr, "%s: %s%s\n", args_prog, dmls_last_error(),
                    a->mode == DMLS_SPLIT_ONNX ? " (--mode array_split or --mode chunk)" : "");
            return 1;
        }
        a->nsizes = (int32_t)count;
    }
    if (a->nsizes == noutputs) return -1;
    fprintf(stderr, "%s: %s gives %d part%s but -o names %d output%s\n", args_prog,
            a->sizes_given ? "--sizes" : "--num-outputs", (int)a->nsizes, a->nsizes == 1 ? "" : "s", noutputs,
            noutputs == 1 ? "" : "s");
    return 2;
}

/* Plans the split of the open input and creates the outputs; the exit
 * status of the whole command. */
static int split_input(split_args *a, const common_options *c, npy_input *in) {
    const int32_t rank = in->h.ndim;
    if (rank < 1 || a->axis < -rank || a->axis >= rank) {
        fprintf(stderr, "%s: --axis %" PRId64 " is outside [%d, %d] for the rank-%d input %s (R-SPLIT-AXIS)\n",
                args_prog, a->axis, -rank, rank - 1, (int)rank, in->name);
        return 1;
    }
    const int32_t axis = (int32_t)(a->axis < 0 ? a->axis + rank : a->axis);
    const int paired = part_sizes(a, in->h.shape[axis], c->noutputs);
    if (paired >= 0) return paired;
    int64_t shape[NPY_MAX_RANK + 1], strides[NPY_MAX_RANK + 1];
    dmls_tensor t;
    batch_input_tensor(in, shape, strides, &t);
    dmls_batch *batch = NULL;
    if (dmls_batch_create_split(&t, axis, a->sizes, (size_t)a->nsizes, 0, &batch) != DMLS_OK) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, in->name, dmls_last_error());
        return 1;
    }
    npy_output *outs = calloc((size_t)c->noutputs, sizeof *outs);
    int status = outs ? -1 : 1;
    char err[NPY_ERR_LEN];
    for (int k = 0; status < 0 && k < c->noutputs; k++) {
        int64_t part[NPY_MAX_RANK];
        memcpy(part, in->h.shape, sizeof(int64_t) * (size_t)rank);
        part[axis] = a->sizes[k];
        if (!npy_create(c->outputs[k], c->force, in->h.descr, rank, part, in->h.esize, &outs[k], err)) {
            fprintf(stderr, "%s: %s\n", args_prog, err);
            for (int j = 0; j < k; j++) npy_abort(&outs[j]);
            status = 1;
        }
    }
    if (status < 0) status = batch_files_run(batch, c, in, outs, c->noutputs);
    free(outs);
    dmls_batch_destroy(batch);
    return status;
}

int cmd_split(int argc, char **argv) {
    args_prog = "dmlslice split";
    split_args *a = calloc(1, sizeof *a);
    common_options *c = malloc(sizeof *c);
    int status = a && c ? -1 : 1;
    if (status > 0) fprintf(stderr, "%s: out of memory\n", args_prog);
    if (status < 0) status = options_parse(&cmd_split_def, argc, argv, c, split_option, a);
    if (status < 0 && (c->input == NULL || c->noutputs == 0)) {
        fprintf(stderr, "%s: needs an input file and an -o OUTPUT per part ('-' for stdin/stdout)\n", args_prog);
        status = 2;
    }
    if (status < 0 && a->sizes_given == (a->num_outputs > 0)) {
        fprintf(stderr, "%s: takes either --sizes or --num-outputs\n", args_prog);
        status = 2;
    }
    if (status < 0 && a->mode_given && a->sizes_given) {
        fprintf(stderr, "%s: --mode reads --num-outputs; --sizes gives the parts themselves\n", args_prog);
        status = 2;
    }
    /* Refuse outputs that cannot or must not be written before reading a byte of the input. */
    if (status < 0 && !batch_outputs_check(c, NULL)) status = 1;
    npy_input in;
    char err[NPY_ERR_LEN];
    if (status < 0 && !npy_open(c->input, &in, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        status = 1;
    }
    if (status < 0) {
        status = split_input(a, c, &in);
        npy_close(&in);
    }
    free(a);
    free(c);
    return status;
}
