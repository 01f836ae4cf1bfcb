/* The one-operator run of `dmlslice slice` and `dmlslice grad`; see
 * slice_run.h. */
#include "slice_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "device_io.h"
#include "device_opt.h"
#include "npy_input.h"
#include "npy_output.h"
#include "platform.h"
#include "progress.h"

/* Output bytes per piece of a copy run in pieces: large enough that each
 * piece is a full-speed copy on every thread, small enough that progress
 * moves. DMLSLICE_PIECE_BYTES sets it, for tests (docs/cli.md). */
#define PIECE_BYTES (64u << 20)

static uint64_t piece_bytes(void) {
    const char *v = getenv("DMLSLICE_PIECE_BYTES");
    const uint64_t n = v ? strtoull(v, NULL, 10) : 0;
    return n > 0 ? n : PIECE_BYTES;
}

/* Runs op (or, when the output is more than one piece, the setup in pieces
 * of its output's outermost rows, reporting each to pr) on a pool of
 * threads (0 = the DMLSLICE_THREADS variable, else every online CPU); small
 * copies stay on the calling thread inside dmls_execute_on. A setup that
 * cannot be cut (SLICE_GRAD, whose zero fill and scatter cover the whole
 * output) runs whole on the pool. */
static dmls_status run_copy(const param_setup *setup, const void *op_input, int threads, const void *in,
                            uint64_t in_bytes, unsigned char *out, uint64_t out_bytes, progress *pr) {
    dmls_context *ctx = NULL;
    dmls_status s = threads == 1 ? DMLS_OK : dmls_context_create(threads, &ctx);
    uint64_t row_bytes;
    const int64_t rows = params_piece_rows(setup, &row_bytes);
    if (s != DMLS_OK || rows == 0 || dmls_output_bytes(setup->op) <= piece_bytes()) {
        if (s == DMLS_OK)
            s = ctx ? dmls_execute_on(setup->op, ctx, op_input, in_bytes, out, out_bytes)
                    : dmls_execute(setup->op, op_input, in_bytes, out, out_bytes);
        dmls_context_destroy(ctx);
        return s;
    }
    const uint64_t per = piece_bytes() / row_bytes;
    const int64_t step = per < 1 ? 1 : per > (uint64_t)rows ? rows : (int64_t)per;
    for (int64_t first = 0; s == DMLS_OK && first < rows; first += step) {
        const int64_t count = rows - first < step ? rows - first : step;
        dmls_operator *piece = NULL;
        unsigned char *at = out + (uint64_t)first * row_bytes;
        const uint64_t n = (uint64_t)count * row_bytes;
        s = params_piece(setup, first, count, &piece);
        if (s == DMLS_OK)
            s = ctx ? dmls_execute_on(piece, ctx, in, in_bytes, at, n) : dmls_execute(piece, in, in_bytes, at, n);
        dmls_destroy(piece);
        progress_advance(pr, (uint64_t)(first + count) * row_bytes);
    }
    dmls_context_destroy(ctx);
    return s;
}

/* The copy from in into out, on CUDA, Vulkan or the CPU; err (256 bytes) explains
 * a failure dmls_last_error() does not. */
static dmls_status run_on(const param_setup *setup, const npy_input *in, npy_output *out, device_choice dev,
                          int threads, progress *pr, char *err) {
    if (dev.kind != DEVICE_CPU) {
        /* Only the tensor's bytes travel; a short input fails R-X-BOUNDS on the device as on the CPU. */
        const uint64_t need = dmls_input_bytes(setup->op), sent = need <= in->readable ? need : in->readable;
        return device_io_run(&dev, setup->op, in->data, sent, out->data, dmls_output_bytes(setup->op), err);
    }
    void *copy = NULL; /* DirectML binds at multiples of 16: an unaligned input is bound as a copy */
    const void *bound = params_bind_input(setup, in->data, in->readable, &copy);
    if (!bound) {
        snprintf(err, 256, "no memory for an aligned copy of the input");
        return DMLS_ERROR_OUT_OF_MEMORY;
    }
    const dmls_status s = run_copy(setup, bound, threads, in->data, in->readable, out->data, out->capacity, pr);
    dmls_aligned_free(copy);
    return s;
}

/* The operator of the open input into c's output; the exit status. */
static int run_input(const common_options *c, int threads, slice_setup_fn make, const void *args, const char *what,
                     npy_input *in) {
    const char *out_path = c->outputs[0];
    device_choice dev = c->device;
    char err[NPY_ERR_LEN];
    npy_output out;
    memset(&out, 0, sizeof out);
    int status = 1;
    param_setup setup = {0};
    int64_t strides[NPY_MAX_RANK];
    npy_strides(&in->h, strides);
    const param_tensor t = {in->h.dtype, in->h.ndim, in->h.shape, in->h.fortran_order ? strides : NULL,
                            NULL,        0,          in->h.parts};
    if (!make(args, &t, &setup)) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, strcmp(c->input, "-") ? c->input : "<stdin>", setup.error);
        goto done;
    }
    if (!npy_create(out_path, c->force, in->h.descr, setup.final_ndim, setup.final_shape, in->h.esize, &out, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        goto done;
    }
    if (dmls_output_bytes(setup.op) > out.capacity) {
        fprintf(stderr, "%s: internal error: the operator writes %" PRIu64 " bytes, the output holds %" PRIu64 "\n",
                args_prog, dmls_output_bytes(setup.op), out.capacity);
        goto done;
    }
    /* --device cuda without a usable device runs on the CPU, saying so
     * before the progress line starts (device_io.h). */
    device_io_fallback(&dev);
    /* Progress covers the copy and the sync to disk, the two steps whose
     * time grows with the output. */
    progress *pr = progress_start(c->quiet, what, out.data_bytes);
    char device_err[256] = "";
    const dmls_status s = run_on(&setup, in, &out, dev, threads, pr, device_err);
    progress_advance(pr, out.data_bytes); /* what remains is the sync to disk */
    /* An input truncated meanwhile was read partly as zeros: no output. */
    const bool committed = s == DMLS_OK && npy_input_intact(in, err) && npy_commit(&out, err);
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
    dmls_destroy(setup.op);
    return status;
}

int slice_run_options(const command_def *cmd, int argc, char **argv, common_options *c, option_handler other,
                      void *ctx, const char *input) {
    const int parsed = options_parse(cmd, argc, argv, c, other, ctx);
    if (parsed >= 0) return parsed;
    if (c->input == NULL || c->noutputs == 0) {
        fprintf(stderr, "%s: needs %s and -o OUTPUT ('-' for stdin/stdout)\n", args_prog, input);
        return 2;
    }
    return -1;
}

int slice_run_file(const common_options *c, slice_setup_fn setup, const void *args, const char *what) {
    char err[NPY_ERR_LEN];
    /* Refuse an output that cannot or must not be written before reading a
     * byte of the input. */
    if (!npy_output_check(c->outputs[0], c->input, c->force, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        return 1;
    }
    npy_input in;
    if (!npy_open(c->input, &in, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        return 1;
    }
    const int status = run_input(c, (int)c->threads, setup, args, what, &in);
    npy_close(&in);
    return status;
}
