/* dmlslice grad: DirectML's SLICE_GRAD on a .npy file. The input is the
 * gradient of a SLICE1's output; the result is the gradient of its input:
 * zeros, with each input-gradient element written where SLICE1 read it. A
 * command of its own rather than a slice option because its output shape is
 * given (--output-gradient-sizes) instead of following from the input, and
 * only the SLICE1 window describes it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "cuda_io.h"
#include "npy.h"
#include "params.h"

int cmd_grad(int argc, char **argv) {
    args_prog = "dmlslice grad";
    params p;
    params_init(&p);
    param_list out_sizes = {0};
    const char *in_path = NULL, *out_path = NULL;
    bool force = false, use_cuda = false;
    for (int i = 1; i < argc; i++) {
        char buf[64];
        const char *inline_value, *value;
        const char *opt = args_option(argv[i], buf, sizeof buf, &inline_value);
        if (!args_is_option(opt)) {
            if (in_path) {
                fprintf(stderr, "%s: one input file only ('%s' and '%s')\n", args_prog, in_path, opt);
                return 2;
            }
            in_path = opt;
        } else if (strcmp(opt, "-f") == 0 || strcmp(opt, "--force") == 0) {
            force = true;
        } else if (strcmp(opt, "-q") == 0 || strcmp(opt, "--quiet") == 0) {
            /* Nothing is reported on success; accepted like slice's. */
        } else if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0) {
            if (!args_value(opt, inline_value, argc, argv, &i, &out_path)) return 2;
        } else if (strcmp(opt, "--device") == 0) {
            if (!args_value(opt, inline_value, argc, argv, &i, &value)) return 2;
            if (strcmp(value, "cuda") == 0) use_cuda = true;
            else if (strcmp(value, "cpu") != 0) {
                fprintf(stderr, "%s: --device '%s' is neither cpu nor cuda\n", args_prog, value);
                return 2;
            }
        } else if (strcmp(opt, "--output-gradient-sizes") == 0) {
            if (!args_value(opt, inline_value, argc, argv, &i, &value)) return 2;
            if (out_sizes.given) {
                fprintf(stderr, "%s: %s given twice\n", args_prog, opt);
                return 2;
            }
            out_sizes.given = true;
            if (!args_list(opt, value, out_sizes.v, &out_sizes.n)) return 2;
        } else {
            if (!args_value(opt, inline_value, argc, argv, &i, &value)) return 2;
            const int r = params_option(&p, opt, value);
            if (r < 0) return 2;
            if (r == 0) {
                fprintf(stderr, "%s: unknown option '%s' (try 'dmlslice --help')\n", args_prog, opt);
                return 2;
            }
        }
    }
    if (in_path == NULL || out_path == NULL) {
        fprintf(stderr, "%s: needs an input gradient file and -o OUTPUT ('-' for stdin/stdout)\n", args_prog);
        return 2;
    }
    if (p.form != FORM_DML_SLICE1 || p.out_sizes.given || !out_sizes.given) {
        fprintf(stderr, "%s: takes the window (--window-offsets, --window-sizes, --window-strides) and "
                        "--output-gradient-sizes, and no other slice parameters\n", args_prog);
        return 2;
    }
    if (!params_complete(&p)) return 2;
    if (npy_same_file(in_path, out_path)) {
        fprintf(stderr, "%s: %s: the output is the input file; refusing to overwrite it\n", args_prog, out_path);
        return 1;
    }
    if (!force && npy_exists(out_path)) {
        fprintf(stderr, "%s: %s: already exists; not overwritten (use -f to replace it)\n", args_prog, out_path);
        return 1;
    }
    char err[NPY_ERR_LEN];
    npy_input in;
    npy_output out;
    memset(&out, 0, sizeof out);
    out.fd = -1;
    if (!npy_open(in_path, &in, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        return 1;
    }
    int status = 1;
    param_plan plan = {0};
    int64_t strides[DMLS_MAX_RANK];
    npy_strides(&in.h, strides);
    const param_tensor t = {in.h.dtype, in.h.ndim, in.h.shape, in.h.fortran_order ? strides : NULL, NULL};
    char device_err[256] = "";
    dmls_status s;
    if (!params_plan_grad(&p, &t, &out_sizes, &plan)) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, strcmp(in_path, "-") ? in_path : "<stdin>", plan.error);
        goto done;
    }
    if (!npy_create(out_path, force, in.h.descr, plan.final_ndim, plan.final_shape, in.h.esize, &out, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        goto done;
    }
    if (use_cuda) {
        const uint64_t need = dmls_input_bytes(plan.op);
        s = cuda_io_run(plan.op, in.data, need <= in.readable ? need : in.readable, out.data,
                        dmls_output_bytes(plan.op), device_err);
    } else {
        s = dmls_execute(plan.op, in.data, in.readable, out.data, out.capacity);
    }
    if (s != DMLS_OK) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, dmls_status_name(s), device_err[0] ? device_err : dmls_last_error());
        goto done;
    }
    if (!npy_commit(&out, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        goto done;
    }
    status = 0;
done:
    if (status != 0) npy_abort(&out);
    dmls_destroy(plan.op);
    npy_close(&in);
    return status;
}
