/* See batch_files.h. */
#include "batch_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "device_io.h"
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
 * it exists (for "-", whatever standard output is), else its folder and its
 * name in there. */
typedef struct output_place {
    dmls_file_info file, folder;
    const char *name;
} output_place;

static void place_of(const char *path, output_place *p) {
    memset(p, 0, sizeof *p);
    /* What standard output is (a file, a pipe, a terminal), so that a name
     * of the same thing, /dev/stdout, is seen to be it. */
    if (strcmp(path, "-") == 0) {
        if (dmls_stdio_info(1, &p->file) != 0) p->file.kind = DMLS_FILE_MISSING;
        return;
    }
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
    /* The same output twice first: that, not "exists", is what is wrong
     * with -o - -o /dev/stdout when standard output is a file. */
    for (int k = 0; ok && k < c->noutputs; k++) {
        const char *out = c->outputs[k];
        place_of(out, &place[k]);
        for (int j = 0; ok && j < k; j++) {
            ok = strcmp(out, c->outputs[j]) != 0 && !same_place(&place[j], &place[k]);
            if (!ok)
                fprintf(stderr, "%s: outputs %d ('%s') and %d ('%s') are the same file\n", args_prog, j, c->outputs[j],
                        k, out);
        }
    }
    for (int k = 0; ok && k < c->noutputs; k++) {
        const char *out = c->outputs[k];
        ok = npy_output_check(out, c->input, c->force, err) && (!other || npy_output_check(out, other, true, err));
        if (!ok) fprintf(stderr, "%s: %s\n", args_prog, err);
    }
    free(place);
    return ok;
}

void batch_runner_start(batch_runner *r, const common_options *c) {
    memset(r, 0, sizeof *r);
    r->c = c;
    r->threads = (int)c->threads;
    r->device = c->device;
    device_io_fallback(&r->device);
}

/* On the CPU: one pass of the pool (threads == 1: the calling thread
 * alone), made at the first batch. The input is bound as it is: R-X-ALIGN
 * binds the DirectML path only, and split's and crops' operators are
 * native. */
static dmls_status run_cpu(batch_runner *r, const dmls_batch *batch, const npy_input *in,
                           const dmls_batch_output *slots, uint32_t n) {
    dmls_status s = DMLS_OK;
    if (!r->ctx_made && r->threads != 1) s = dmls_context_create(r->threads, &r->ctx);
    r->ctx_made = s == DMLS_OK;
    const dmls_batch_input input = {in->data, in->readable};
    if (s == DMLS_OK) s = dmls_batch_execute(batch, r->ctx, &input, 1, slots, n);
    return s;
}

bool batch_runner_exec(batch_runner *r, dmls_batch *batch, const npy_input *in, void *const *outs,
                       const uint64_t *bytes, int n) {
    dmls_batch_output *slots = calloc(n > 0 ? (size_t)n : 1, sizeof *slots);
    char device_err[256] = "";
    dmls_status s = slots ? DMLS_OK : DMLS_ERROR_OUT_OF_MEMORY;
    if (s != DMLS_OK) snprintf(device_err, sizeof device_err, "no memory for %d output slots", n);
    for (int k = 0; s == DMLS_OK && k < n; k++) {
        slots[k].data = outs[k];
        slots[k].bytes = bytes[k];
    }
    const uint64_t need = dmls_batch_input_bytes(batch, 0), sent = need <= in->readable ? need : in->readable;
    if (s == DMLS_OK && r->device.kind != DEVICE_CPU) {
        s = device_io_run_batch(&r->device, batch, in->data, sent, outs, bytes, (uint32_t)n, device_err);
    } else if (s == DMLS_OK) {
        s = run_cpu(r, batch, in, slots, (uint32_t)n);
    }
    free(slots);
    if (s != DMLS_OK)
        fprintf(stderr, "%s: %s: %s\n", args_prog, dmls_status_name(s), device_err[0] ? device_err : dmls_last_error());
    return s == DMLS_OK;
}

void batch_runner_end(batch_runner *r) {
    dmls_context_destroy(r->ctx);
    r->ctx = NULL;
    r->ctx_made = false;
}

int batch_files_finish(bool ran, const npy_input *const *inputs, int ninputs, npy_output *outs, int n) {
    char err[NPY_ERR_LEN] = "";
    bool ok = ran;
    for (int k = 0; ok && k < ninputs; k++) ok = npy_input_intact(inputs[k], err);
    if (ok) ok = npy_commit_all(outs, n, err);
    if (!ok && err[0]) fprintf(stderr, "%s: %s\n", args_prog, err);
    for (int k = 0; !ok && k < n; k++) npy_abort(&outs[k]);
    return ok ? 0 : 1;
}

int batch_files_run(dmls_batch *batch, const common_options *c, npy_input *in, npy_output *outs, int n) {
    void **hosts = calloc(n > 0 ? (size_t)n : 1, sizeof *hosts);
    uint64_t *bytes = calloc(n > 0 ? (size_t)n : 1, sizeof *bytes);
    bool ran = hosts && bytes;
    if (!ran) fprintf(stderr, "%s: no memory for %d output slots\n", args_prog, n);
    for (int k = 0; ran && k < n; k++) {
        hosts[k] = outs[k].data;
        bytes[k] = dmls_batch_output_bytes(batch, (uint32_t)k);
    }
    batch_runner r;
    batch_runner_start(&r, c);
    if (ran) ran = batch_runner_exec(&r, batch, in, hosts, bytes, n);
    batch_runner_end(&r);
    free(hosts);
    free(bytes);
    const npy_input *inputs[1] = {in};
    return batch_files_finish(ran, inputs, 1, outs, n);
}
