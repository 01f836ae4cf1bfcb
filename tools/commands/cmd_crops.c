/* dmlslice crops: N windows of one size from one .npy input, stacked into
 * one output of shape (N, *size), read once and copied in one batch
 * (dmls_batch_create_crops): one pass of the thread pool, or one launch on
 * the GPU. The starts come from a .npy file, so they are the host's and
 * are checked before anything is copied (R-CROP-BOUNDS). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "batch_files.h"
#include "commands.h"
#include "dmlslice/batch.h"
#include "options.h"

static const option_def crops_options[] = {
    {"--output", "-o", "OUT", "the output .npy file, shape (N, *size) ('-' for standard\noutput)"},
    {"--starts", NULL, "STARTS", "an (N, rank) int32 or int64 .npy file: row i holds crop i's\nfirst index on each axis"},
    {"--size", NULL, "L", "the window's size on each axis of the input"},
    {"--device", NULL, "D", "cpu (default), cuda, vulkan or vulkan:N: copy to the device,\ncrop there in one launch (one command buffer), copy back"},
    {"--threads", NULL, "N", "threads for the copy, 1 to 1024 (default: $DMLSLICE_THREADS,\nelse every CPU)"},
    {"--force", "-f", NULL, "replace an existing output file"},
    {"--quiet", "-q", NULL, "accepted like slice's; nothing is reported on success"},
    {NULL, NULL, NULL, NULL},
};

const command_def cmd_crops_def = {
    "crops",
    "IN.npy --starts STARTS.npy --size L -o OUT.npy [--device D] [--threads N] [-f] [-q]",
    "Copy one window of the given size from IN at each row of STARTS, stacked\n"
    "into OUT ('-' for standard input or output). OUT is written atomically, and\n"
    "an existing OUT is kept unless -f is given.",
    {{"options", crops_options, NULL}, {"", options_common, NULL}},
    "Rules (docs/spec.md section 7): R-CROP-SIZE, each size in [0, that axis's\n"
    "length]; R-CROP-BOUNDS, every window inside the input: a crop that would\n"
    "leave it is an error naming the crop, the axis and the values.\n"
    "For example, with boxes.npy an (N, 3) int32 array of starts,\n"
    "  dmlslice crops image.npy --starts boxes.npy --size 3,4,4 -o crops.npy\n"
    "writes N crops of 3x4x4 from a 3xHxW image.npy, shape (N, 3, 4, 4).",
    NULL, /* no example --help's test can run: it needs a starts file */
    cmd_crops,
    NULL,
    "input file",
    false,
};

typedef struct crops_args {
    const char *starts_path;
    int64_t size[ARGS_MAX_LIST + 1]; /* + the items' parts axis */
    int32_t nsize;
    bool size_given;
    int64_t threads;
} crops_args;

static bool crops_option(void *ctx, const option_def *o, const char *value) {
    crops_args *a = ctx;
    if (option_is(o, "--threads")) return options_threads(o, value, &a->threads);
    if (option_is(o, "--size")) return a->size_given = args_list(o->name, value, a->size, &a->nsize);
    a->starts_path = value; /* --starts */
    return true;
}

static bool host_big_endian(void) {
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 0;
}

/* Element [i][k] of the starts file, as the host's int64. */
static int64_t start_at(const npy_input *s, int64_t i, int64_t k) {
    const int64_t n = s->h.shape[0], r = s->h.shape[1];
    const uint64_t at = (uint64_t)(s->h.fortran_order ? k * n + i : i * r + k) * s->h.esize;
    unsigned char b[8];
    memcpy(b, s->data + at, s->h.esize);
    if (s->h.big_endian != host_big_endian())
        for (size_t lo = 0, hi = s->h.esize - 1; lo < hi; lo++, hi--) {
            const unsigned char t = b[lo];
            b[lo] = b[hi], b[hi] = t;
        }
    if (s->h.esize == 4) {
        int32_t v;
        memcpy(&v, b, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, b, 8);
    return v;
}

/* The starts file as n rows of cols int64 (rows of rank values, then 0 for
 * a parts axis when cols > rank); NULL after saying what is wrong. */
static int64_t *read_starts(const npy_input *s, int32_t rank, int32_t cols, int64_t *n) {
    const npy_header *h = &s->h;
    if ((h->dtype != DMLS_INT32 && h->dtype != DMLS_INT64) || h->parts > 1 || h->is_bool || h->ndim != 2 ||
        h->shape[1] != rank) {
        fprintf(stderr, "%s: %s: the starts must be an (N, %d) array of int32 or int64 (one row per crop, one "
                        "column per axis of the input), not %s of %d axes\n",
                args_prog, s->name, (int)rank, h->descr, (int)h->ndim);
        return NULL;
    }
    *n = h->shape[0];
    const uint64_t cells = (uint64_t)*n * (uint64_t)cols; /* below the file's bytes: fits */
    int64_t *starts = malloc(cells ? cells * sizeof *starts : 1);
    if (starts == NULL) {
        fprintf(stderr, "%s: no memory for %" PRId64 " starts\n", args_prog, *n);
        return NULL;
    }
    for (int64_t i = 0; i < *n; i++)
        for (int32_t k = 0; k < cols; k++) starts[i * cols + k] = k < rank ? start_at(s, i, k) : 0;
    return starts;
}

/* Plans the crops of the open input at the open starts and creates the
 * output; the exit status of the whole command. */
static int crops_input(crops_args *a, const common_options *c, npy_input *in, const npy_input *st) {
    const int32_t rank = in->h.ndim;
    if (a->nsize != rank) {
        fprintf(stderr, "%s: --size has %d value%s but the input %s has %d ax%s (R-CROP-SIZE)\n", args_prog,
                (int)a->nsize, a->nsize == 1 ? "" : "s", in->name, (int)rank, rank == 1 ? "is" : "es");
        return 1;
    }
    int64_t shape[NPY_MAX_RANK + 1], strides[NPY_MAX_RANK + 1];
    dmls_tensor t;
    batch_input_tensor(in, shape, strides, &t);
    if (t.ndim > rank) a->size[rank] = shape[rank]; /* each item whole */
    int64_t n = 0;
    int64_t *starts = read_starts(st, rank, t.ndim, &n);
    if (starts == NULL) return 1;
    dmls_batch *batch = NULL;
    if (dmls_batch_create_crops(&t, a->size, (size_t)n, starts, DMLS_STARTS_INT64, &batch) != DMLS_OK) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, in->name, dmls_last_error());
        free(starts);
        return 1;
    }
    free(starts);
    int64_t out_shape[ARGS_MAX_LIST + 1];
    out_shape[0] = n;
    memcpy(out_shape + 1, a->size, sizeof(int64_t) * (size_t)rank);
    npy_output out;
    char err[NPY_ERR_LEN];
    int status;
    if (!npy_create(c->outputs[0], c->force, in->h.descr, rank + 1, out_shape, in->h.esize, &out, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        status = 1;
    } else {
        status = batch_files_run(batch, c, a->threads, in, &out, 1);
    }
    dmls_batch_destroy(batch);
    return status;
}

/* Usage errors, then the outputs, before reading a byte: -1 to go on, else
 * the exit status. */
static int crops_usage(const crops_args *a, const common_options *c) {
    if (c->input == NULL || c->noutputs == 0 || a->starts_path == NULL || !a->size_given) {
        fprintf(stderr, "%s: needs an input file, --starts STARTS.npy, --size L and -o OUTPUT\n", args_prog);
        return 2;
    }
    if (strcmp(c->input, "-") == 0 && strcmp(a->starts_path, "-") == 0) {
        fprintf(stderr, "%s: the input and the starts cannot both be standard input\n", args_prog);
        return 2;
    }
    return batch_outputs_check(c, a->starts_path) ? -1 : 1;
}

int cmd_crops(int argc, char **argv) {
    args_prog = "dmlslice crops";
    crops_args a;
    memset(&a, 0, sizeof a);
    common_options c;
    int status = options_parse(&cmd_crops_def, argc, argv, &c, crops_option, &a);
    if (status < 0) status = crops_usage(&a, &c);
    if (status >= 0) return status;
    npy_input in, st;
    char err[NPY_ERR_LEN];
    if (!npy_open(a.starts_path, &st, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        return 1;
    }
    if (!npy_open(c.input, &in, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        npy_close(&st);
        return 1;
    }
    status = crops_input(&a, &c, &in, &st);
    npy_close(&in);
    npy_close(&st);
    return status;
}
