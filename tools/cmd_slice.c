/* dmlslice slice: slice a .npy file into a new .npy file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "npy_input.h"
#include "npy_output.h"
#include "cuda_io.h"
#include "params.h"
#include "progress.h"

/* The one place an operator runs: on a pool of threads (0 = the
 * DMLSLICE_THREADS variable, else every online CPU). Small copies stay on the
 * calling thread inside dmls_execute_on. */
static dmls_status run_operator(const dmls_operator *op, int threads, const void *in, uint64_t in_bytes, void *out,
                                uint64_t out_bytes) {
    if (threads == 1) return dmls_execute(op, in, in_bytes, out, out_bytes);
    dmls_context *ctx = NULL;
    dmls_status s = dmls_context_create(threads, &ctx);
    if (s != DMLS_OK) return s;
    s = dmls_execute_on(op, ctx, in, in_bytes, out, out_bytes);
    dmls_context_destroy(ctx);
    return s;
}

int cmd_slice(int argc, char **argv) {
    args_prog = "dmlslice slice";
    params p;
    params_init(&p);
    const char *in_path = NULL, *out_path = NULL;
    bool force = false, quiet = false;
    int64_t threads = 0;
    bool use_cuda = false;
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
            continue;
        }
        if (strcmp(opt, "-f") == 0 || strcmp(opt, "--force") == 0) {
            force = true;
        } else if (strcmp(opt, "-q") == 0 || strcmp(opt, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0) {
            if (!args_value(opt, inline_value, argc, argv, &i, &out_path)) return 2;
        } else if (strcmp(opt, "--device") == 0) {
            if (!args_value(opt, inline_value, argc, argv, &i, &value)) return 2;
            if (strcmp(value, "cuda") == 0) {
                use_cuda = true;
            } else if (strcmp(value, "cpu") != 0) {
                fprintf(stderr, "%s: --device '%s' is neither cpu nor cuda\n", args_prog, value);
                return 2;
            }
        } else if (strcmp(opt, "--threads") == 0) {
            if (!args_value(opt, inline_value, argc, argv, &i, &value) || !args_int64(opt, value, &threads)) return 2;
            if (threads < 1 || threads > 1024) {
                fprintf(stderr, "%s: --threads %" PRId64 " is outside 1 to 1024\n", args_prog, threads);
                return 2;
            }
        } else {
            if (!args_value(opt, inline_value, argc, argv, &i, &value)) return 2;
            int r = params_option(&p, opt, value);
            if (r < 0) return 2;
            if (r == 0) {
                fprintf(stderr, "%s: unknown option '%s' (try 'dmlslice --help')\n", args_prog, opt);
                return 2;
            }
        }
    }
    if (in_path == NULL || out_path == NULL) {
        fprintf(stderr, "%s: needs an input file and -o OUTPUT ('-' for stdin/stdout)\n", args_prog);
        return 2;
    }
    if (!params_complete(&p)) return 2;
    char err[NPY_ERR_LEN];
    /* Refuse an output that cannot or must not be written before reading a
     * byte of the input. */
    if (!npy_output_check(out_path, in_path, force, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        return 1;
    }
    npy_input in;
    npy_output out;
    memset(&out, 0, sizeof out);
    int status = 1;
    param_plan plan = {0};
    if (!npy_open(in_path, &in, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        return 1;
    }
    int64_t strides[DMLS_MAX_RANK];
    npy_strides(&in.h, strides);
    const param_tensor t = {in.h.dtype, in.h.ndim, in.h.shape, in.h.fortran_order ? strides : NULL, NULL};
    if (!params_plan(&p, &t, &plan)) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, strcmp(in_path, "-") ? in_path : "<stdin>", plan.error);
        goto done;
    }
    if (!npy_create(out_path, force, in.h.descr, plan.final_ndim, plan.final_shape, in.h.esize, &out, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        goto done;
    }
    if (dmls_output_bytes(plan.op) > out.capacity) {
        fprintf(stderr, "%s: internal error: the operator writes %" PRIu64 " bytes, the output holds %" PRIu64 "\n",
                args_prog, dmls_output_bytes(plan.op), out.capacity);
        goto done;
    }
    /* Progress covers the copy and the sync to disk, the two steps whose
     * time grows with the output. */
    progress *pr = progress_start(quiet, "slicing into", out.data_bytes);
    char device_err[256] = "";
    dmls_status s;
    if (use_cuda) {
        /* Only the tensor's bytes travel; a short input fails R-X-BOUNDS on the device as on the CPU. */
        const uint64_t need = dmls_input_bytes(plan.op);
        s = cuda_io_run(plan.op, in.data, need <= in.readable ? need : in.readable, out.data,
                        dmls_output_bytes(plan.op), device_err);
    } else {
        s = run_operator(plan.op, (int)threads, in.data, in.readable, out.data, out.capacity);
    }
    /* An input truncated meanwhile was read partly as zeros: no output. */
    const bool committed = s == DMLS_OK && npy_input_intact(&in, err) && npy_commit(&out, err);
    progress_stop(pr);
    if (s != DMLS_OK) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, dmls_status_name(s), device_err[0] ? device_err : dmls_last_error());
        goto done;
    }
    if (!committed) {
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
