/* dmlslice grad: DirectML's SLICE_GRAD on a .npy file. The input is the
 * gradient of a SLICE1's output; the result is the gradient of its input:
 * zeros, with each input-gradient element written where SLICE1 read it. A
 * command of its own rather than a slice option because its output shape is
 * given (--output-gradient-sizes) instead of following from the input, and
 * only the SLICE1 window describes it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "cuda_io.h"
#include "device_opt.h"
#include "vulkan_io.h"
#include "npy_input.h"
#include "npy_output.h"
#include "options.h"
#include "params.h"
#include "platform.h"

static const option_def grad_options[] = {
    {"--output", "-o", "OUT", "the output gradient .npy file ('-' for standard output)"},
    {"--output-gradient-sizes", NULL, "L", "the output gradient's sizes (the forward SLICE1's input shape)"},
    {"--device", NULL, "D", "cpu (default), cuda or vulkan[:N]: copy to GPU 0 (Vulkan device N), run there, copy back"},
    {"--force", "-f", NULL, "replace an existing output file"},
    {"--quiet", "-q", NULL, "accepted like slice's; nothing is reported on success"},
    {NULL, NULL, NULL, NULL},
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
    "[--feature-level L] [--device D] [-f] [-q]",
    "DML_SLICE_GRAD: scatter the input gradient IN into a zero output gradient of\n"
    "the given sizes, where SLICE1 with that window reads.",
    {{"options", grad_options, NULL}, {"", options_common, NULL}, {"window", grad_params, NULL}},
    NULL,
    "dmlslice grad x.npy -o y.npy --window-offsets 1,0,0 --window-sizes 4,5,6 --window-strides 1,1,1 \\\n"
    "    --output-gradient-sizes 6,5,6",
    cmd_grad,
    NULL,
    "input file",
    false,
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

/* SLICE_GRAD of the open input into out_path; the exit status. */
static int grad_input(const grad_args *a, const common_options *c, npy_input *in) {
    device_choice dev = c->device;
    char err[NPY_ERR_LEN];
    npy_output out;
    memset(&out, 0, sizeof out);
    int status = 1;
    param_setup setup = {0};
    int64_t strides[NPY_MAX_RANK];
    npy_strides(&in->h, strides);
    const param_tensor t = {in->h.dtype, in->h.ndim, in->h.shape, in->h.fortran_order ? strides : NULL, NULL, 0,
                            in->h.parts};
    char device_err[256] = "";
    dmls_status s;
    if (!params_setup_grad(&a->p, &t, &a->out_sizes, &setup)) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, strcmp(c->input, "-") ? c->input : "<stdin>", setup.error);
        goto done;
    }
    if (!npy_create(c->outputs[0], c->force, in->h.descr, setup.final_ndim, setup.final_shape, in->h.esize, &out, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        goto done;
    }
    if (dev.kind == DEVICE_CUDA && !cuda_io_use(true)) dev.kind = DEVICE_CPU; /* the CPU, saying so (cuda_io.h) */
    if (dev.kind != DEVICE_CPU) {
        const uint64_t need = dmls_input_bytes(setup.op), sent = need <= in->readable ? need : in->readable;
        s = dev.kind == DEVICE_CUDA
                ? cuda_io_run(setup.op, in->data, sent, out.data, dmls_output_bytes(setup.op), device_err)
                : vulkan_io_run(setup.op, dev.index, in->data, sent, out.data, dmls_output_bytes(setup.op), device_err);
    } else {
        void *copy = NULL; /* DirectML binds at multiples of 16: an unaligned input is bound as a copy */
        const void *bound = params_bind_input(&setup, in->data, in->readable, &copy);
        s = bound ? dmls_execute(setup.op, bound, in->readable, out.data, out.capacity) : DMLS_ERROR_OUT_OF_MEMORY;
        if (!bound) snprintf(device_err, sizeof device_err, "no memory for an aligned copy of the input");
        dmls_aligned_free(copy);
    }
    if (s != DMLS_OK) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, dmls_status_name(s), device_err[0] ? device_err : dmls_last_error());
        goto done;
    }
    if (!npy_input_intact(in, err) || !npy_commit(&out, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        goto done;
    }
    status = 0;
done:
    if (status != 0) npy_abort(&out);
    dmls_destroy(setup.op);
    return status;
}

int cmd_grad(int argc, char **argv) {
    args_prog = "dmlslice grad";
    grad_args a;
    memset(&a, 0, sizeof a);
    params_init(&a.p);
    common_options c;
    const int parsed = options_parse(&cmd_grad_def, argc, argv, &c, grad_option, &a);
    if (parsed >= 0) return parsed;
    if (c.input == NULL || c.noutputs == 0) {
        fprintf(stderr, "%s: needs an input gradient file and -o OUTPUT ('-' for stdin/stdout)\n", args_prog);
        return 2;
    }
    if (a.p.form != FORM_DML_SLICE1 || a.p.out_sizes.given || !a.out_sizes.given) {
        fprintf(stderr, "%s: takes the window (--window-offsets, --window-sizes, --window-strides) and "
                        "--output-gradient-sizes, and no other slice parameters\n", args_prog);
        return 2;
    }
    if (!params_complete(&a.p)) return 2;
    char err[NPY_ERR_LEN];
    if (!npy_output_check(c.outputs[0], c.input, c.force, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        return 1;
    }
    npy_input in;
    if (!npy_open(c.input, &in, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        return 1;
    }
    const int status = grad_input(&a, &c, &in);
    npy_close(&in);
    return status;
}
