/* dmlslice crops: N windows of one size from one .npy input, stacked into
 * one output of shape (N, *size), read once and copied in batches of up to
 * CROPS_BLOCK crops (dmls_batch_create_crops): one pass of the thread pool,
 * or one launch on the GPU, each. The starts come from a .npy file, so they
 * are the host's and are checked before a block is copied (R-CROP-BOUNDS). */
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
    OPTIONS_COPY_TAIL(": copy to the device,\ncrop there in one launch (one command buffer), copy back",
                      OPTIONS_COPY_THREADS, "replace an existing output file",
                      "accepted like slice's; nothing is reported on success"),
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
    true,
};

typedef struct crops_args {
    const char *starts_path;
    int64_t size[ARGS_MAX_LIST + 1]; /* + the items' parts axis */
    int32_t nsize;
    bool size_given;
} crops_args;

static bool crops_option(void *ctx, const option_def *o, const char *value) {
    crops_args *a = ctx;
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

/* Crops per batch: the library keeps some 100 bytes per crop it plans, so
 * many crops run in blocks of this many, each into its part of the output:
 * memory is bounded by a block, not by the starts file's header (whose
 * shape can promise 2^61 rows of nothing). */
#define CROPS_BLOCK ((int64_t)1 << 18)

/* Checks the starts file's type and shape, its row count into *n; false
 * after saying what is wrong. */
static bool starts_fit(const npy_input *s, int32_t rank, int64_t *n) {
    const npy_header *h = &s->h;
    if ((h->dtype != DMLS_INT32 && h->dtype != DMLS_INT64) || h->parts > 1 || h->is_bool || h->ndim != 2 ||
        h->shape[1] != rank) {
        fprintf(stderr, "%s: %s: the starts must be an (N, %d) array of int32 or int64 (one row per crop, one "
                        "column per axis of the input), not %s of %d axes\n",
                args_prog, s->name, (int)rank, h->descr, (int)h->ndim);
        return false;
    }
    *n = h->shape[0];
    return true;
}

/* Rows [first, first + count) of the starts file into starts, cols int64
 * each: rank values, then 0 for a parts axis when cols > rank. count is at
 * most CROPS_BLOCK, so starts holds CROPS_BLOCK * cols values. */
static void read_starts(const npy_input *s, int32_t rank, int32_t cols, int64_t first, int64_t count,
                        int64_t *starts) {
    for (int64_t i = 0; i < count; i++)
        for (int32_t k = 0; k < cols; k++) starts[i * cols + k] = k < rank ? start_at(s, first + i, k) : 0;
}

/* The library's error for a block that starts at crop first, which numbers
 * the block's crops from 0: said with the crop's index in the file. */
static void say_block_error(const char *name, int64_t first) {
    const char *e = dmls_last_error();
    unsigned long long i = 0;
    int used = 0;
    if (first > 0 && sscanf(e, "crops: crop %llu:%n", &i, &used) == 1 && used > 0)
        fprintf(stderr, "%s: %s: crops: crop %llu:%s\n", args_prog, name, (unsigned long long)first + i, e + used);
    else
        fprintf(stderr, "%s: %s: %s\n", args_prog, name, e);
}

/* The output of n crops of the first block's shape, created once that
 * block is planned (the sizes checked, R-CROP-SIZE): refused up front when
 * its size does not fit 63 bits. */
static bool crops_output(const crops_args *a, const common_options *c, const npy_input *in, int64_t n,
                         uint64_t crop_bytes, npy_output *out) {
    const int32_t rank = in->h.ndim;
    if (n > 0 && crop_bytes > (uint64_t)INT64_MAX / (uint64_t)n) {
        fprintf(stderr, "%s: %s: %" PRId64 " crops of %" PRIu64 " bytes make an output over 2^63-1 bytes "
                        "(R-CROP-SIZE)\n",
                args_prog, in->name, n, crop_bytes);
        return false;
    }
    int64_t out_shape[ARGS_MAX_LIST + 1];
    out_shape[0] = n;
    memcpy(out_shape + 1, a->size, sizeof(int64_t) * (size_t)rank);
    char err[NPY_ERR_LEN];
    if (npy_create(c->outputs[0], c->force, in->h.descr, rank + 1, out_shape, in->h.esize, out, err)) return true;
    fprintf(stderr, "%s: %s\n", args_prog, err);
    return false;
}

/* Plans and runs the crops, block by block, into out (created with the
 * first block); false after saying why. */
static bool crops_blocks(const crops_args *a, const common_options *c, const npy_input *in, const npy_input *st,
                         const dmls_tensor *t, int64_t n, npy_output *out, bool *created) {
    const int32_t rank = in->h.ndim, cols = t->ndim;
    int64_t *starts = malloc((size_t)CROPS_BLOCK * (size_t)(cols > 0 ? cols : 1) * sizeof *starts);
    if (starts == NULL) {
        fprintf(stderr, "%s: no memory for %" PRId64 " starts\n", args_prog, CROPS_BLOCK);
        return false;
    }
    batch_runner r;
    batch_runner_start(&r, c);
    bool ok = true;
    uint64_t crop_bytes = in->h.esize;
    for (int64_t first = 0; ok && (first == 0 || first < n); first += CROPS_BLOCK) {
        const int64_t count = n - first < CROPS_BLOCK ? n - first : CROPS_BLOCK;
        read_starts(st, rank, cols, first, count, starts);
        dmls_batch *batch = NULL;
        ok = dmls_batch_create_crops(t, a->size, (size_t)count, starts, DMLS_STARTS_INT64, &batch) == DMLS_OK;
        if (!ok) say_block_error(in->name, first);
        const uint64_t bytes = ok ? dmls_batch_output_bytes(batch, 0) : 0;
        if (ok && first == 0) {
            /* A crop's bytes: the sizes are checked (R-CROP-SIZE), so below the input's. */
            for (int32_t k = 0; k < rank; k++) crop_bytes *= (uint64_t)a->size[k];
            ok = *created = crops_output(a, c, in, n, crop_bytes, out);
        }
        void *at = ok ? out->data + (uint64_t)first * crop_bytes : NULL;
        if (ok && count > 0) ok = batch_runner_exec(&r, batch, in, &at, &bytes, 1);
        dmls_batch_destroy(batch);
    }
    batch_runner_end(&r);
    free(starts);
    return ok;
}

/* Plans the crops of the open input at the open starts, runs them and
 * commits the output; the exit status of the whole command. */
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
    if (!starts_fit(st, rank, &n)) return 1;
    npy_output out;
    memset(&out, 0, sizeof out);
    bool created = false;
    const bool ran = crops_blocks(a, c, in, st, &t, n, &out, &created);
    if (!created) return 1;
    /* The starts are an input too: one that changed meanwhile gave wrong crops. */
    const npy_input *inputs[2] = {in, st};
    return batch_files_finish(ran, inputs, 2, &out, 1);
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
