/* See batch_files.h. */
#include "batch_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cuda_io.h"
#include "vulkan_io.h"
#include "files.h"
#include "platform.h"

void batch_input_tensor(const npy_input *in, int64_t *shape, int64_t *strides, dmls_tensor *t) {
    const int64_t parts = in->h.parts > 1 ? in->h.parts : 1;
    npy_strides(&in->h, strides);
    for (int32_t i = 0; i < in->h.ndim; i++) {
        shape[i] = in->h.shape[i];
        /* Only an empty array's strides can pass INT64_MAX parts; they address nothing. */
        strides[i] = strides[i] > INT64_MAX / parts ? INT64_MAX : strides[i] * parts;
    }
    int32_t ndim = in->h.ndim;
    if (parts > 1) {
        shape[ndim] = parts;
        strides[ndim++] = 1;
    }
    t->dtype = in->h.dtype;
    t->ndim = ndim;
    t->shape = shape;
    /* npy_strides' C-order strides are the packed ones the library assumes for NULL. */
    t->strides = in->h.fortran_order ? strides : NULL;
    t->byte_offset = 0;
}

/* Where an output goes, to tell two names of one file apart: the file when
 * it exists, else its folder and its name in there ("-": nothing). */
typedef struct output_place {
    dmls_file_info file, folder;
    const char *name;
} output_place;

static void place_of(const char *path, output_place *p) {
    memset(p, 0, sizeof *p);
    if (strcmp(path, "-") == 0) return;
    if (dmls_path_info(path, 1, &p->file) != 0) p->file.kind = DMLS_FILE_MISSING;
    const size_t n = dmls_path_folder_len(path);
    char *folder = malloc(n + 2);
    if (folder == NULL) return;
    snprintf(folder, n + 2, "%.*s", n ? (int)n : 1, n ? path : ".");
    if (dmls_path_info(folder, 1, &p->folder) == 0) p->name = path + n;
    free(folder);
}

static bool same_place(const output_place *a, const output_place *b) {
    return dmls_same_file(&a->file, &b->file) ||
           (a->name && b->name && strcmp(a->name, b->name) == 0 && dmls_same_file(&a->folder, &b->folder));
}

bool batch_outputs_check(const common_options *c, const char *other) {
    char err[NPY_ERR_LEN];
    output_place *place = calloc(c->noutputs > 0 ? (size_t)c->noutputs : 1, sizeof *place);
    bool ok = place != NULL;
    if (!ok) fprintf(stderr, "%s: out of memory\n", args_prog);
    for (int k = 0; ok && k < c->noutputs; k++) {
        const char *out = c->outputs[k];
        ok = npy_output_check(out, c->input, c->force, err) && (!other || npy_output_check(out, other, true, err));
        if (!ok) fprintf(stderr, "%s: %s\n", args_prog, err);
        if (ok) place_of(out, &place[k]);
        for (int j = 0; ok && j < k; j++) {
            ok = strcmp(out, c->outputs[j]) != 0 && !same_place(&place[j], &place[k]);
            if (!ok)
                fprintf(stderr, "%s: outputs %d ('%s') and %d ('%s') are the same file\n", args_prog, j, c->outputs[j],
                        k, out);
        }
    }
    free(place);
    return ok;
}

/* The batch on the CPU: one pass of a pool of threads (threads == 1: the
 * calling thread alone). The input is bound as it is: R-X-ALIGN binds the
 * DirectML path only, and split's and crops' operators are native. */
static dmls_status run_cpu(const dmls_batch *batch, int threads, const npy_input *in,
                           const dmls_batch_output *slots, uint32_t n) {
    dmls_context *ctx = NULL;
    dmls_status s = threads == 1 ? DMLS_OK : dmls_context_create(threads, &ctx);
    const dmls_batch_input input = {in->data, in->readable};
    if (s == DMLS_OK) s = dmls_batch_execute(batch, ctx, &input, 1, slots, n);
    dmls_context_destroy(ctx);
    return s;
}

int batch_files_run(dmls_batch *batch, const common_options *c, int64_t threads, npy_input *in, npy_output *outs,
                    int n) {
    dmls_batch_output *slots = calloc(n > 0 ? (size_t)n : 1, sizeof *slots);
    void **hosts = calloc(n > 0 ? (size_t)n : 1, sizeof *hosts);
    uint64_t *bytes = calloc(n > 0 ? (size_t)n : 1, sizeof *bytes);
    char err[NPY_ERR_LEN] = "", device_err[256] = "";
    dmls_status s = slots && hosts && bytes ? DMLS_OK : DMLS_ERROR_OUT_OF_MEMORY;
    if (s != DMLS_OK) snprintf(device_err, sizeof device_err, "no memory for %d output slots", n);
    for (int k = 0; s == DMLS_OK && k < n; k++) {
        slots[k].data = hosts[k] = outs[k].data;
        slots[k].bytes = bytes[k] = dmls_batch_output_bytes(batch, (uint32_t)k);
    }
    /* --device cuda without a usable device runs on the CPU, saying so (cuda_io.h). */
    const bool cuda = c->device.kind == DEVICE_CUDA && cuda_io_use(true);
    const uint64_t need = dmls_batch_input_bytes(batch, 0), sent = need <= in->readable ? need : in->readable;
    if (s == DMLS_OK && cuda) {
        s = cuda_io_run_batch(batch, in->data, sent, hosts, bytes, (uint32_t)n, device_err);
    } else if (s == DMLS_OK && c->device.kind == DEVICE_VULKAN) {
        s = vulkan_io_run_batch(batch, c->device.index, in->data, sent, hosts, bytes, (uint32_t)n, device_err);
    } else if (s == DMLS_OK) {
        s = run_cpu(batch, (int)threads, in, slots, (uint32_t)n);
    }
    free(slots);
    free(hosts);
    free(bytes);
    bool ok = s == DMLS_OK;
    if (!ok) {
        fprintf(stderr, "%s: %s: %s\n", args_prog, dmls_status_name(s), device_err[0] ? device_err : dmls_last_error());
    } else if (!npy_input_intact(in, err) || !npy_commit_all(outs, n, err)) {
        /* An input truncated meanwhile was read partly as zeros: no output. */
        fprintf(stderr, "%s: %s\n", args_prog, err);
        ok = false;
    }
    for (int k = 0; !ok && k < n; k++) npy_abort(&outs[k]);
    return ok ? 0 : 1;
}
