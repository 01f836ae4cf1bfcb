/* See run.h. */
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "device.h"
#include "npy_output.h"
#include "files.h"
#include "platform.h"
#include "values.h"

/* Buffers start on 64 KiB boundaries, as D3D12 places resources, so the
 * alignment the library sees (R-X-ALIGN) is that of the binding's offset. */
#define BUFFER_ALIGN 65536u

typedef struct buffers {
    size_t n;
    unsigned char **data;
    void **maps;
    size_t *map_lens;
    uint64_t *sizes;
} buffers;

static bool fail(const execute_options *o, char *err, const char *where, const char *fmt, ...) {
    const int head = snprintf(err, MODEL_ERR_LEN, "%.300s: %.300s: ", o->name, where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + head, MODEL_ERR_LEN - (size_t)head, fmt, ap);
    va_end(ap);
    return false;
}

/* A name or path from the model, escaped for the terminal (npy_format.h). */
static void put_shown(FILE *f, const char *text) {
    const size_t n = strlen(text);
    char *e = n < SIZE_MAX / 4 ? malloc(4 * n + 1) : NULL;
    if (e) npy_escape_text(e, 4 * n + 1, text, n);
    fputs(e ? e : "?", f);
    free(e);
}

static void buffers_free(buffers *b) {
    for (size_t i = 0; b->maps && i < b->n; i++)
        if (b->maps[i]) dmls_pages_release(b->maps[i], b->map_lens[i]);
    free(b->data);
    free(b->maps);
    free(b->map_lens);
    free(b->sizes);
}

/* Pages straight from the system start zeroed and are backed only where
 * written, so a large sizeInBytes costs memory only for the bytes in use. */
static bool buffers_alloc(const model *m, const execute_options *o, buffers *b, char *err) {
    memset(b, 0, sizeof *b);
    b->n = m->resource_count;
    b->data = calloc(b->n + 1, sizeof *b->data);
    b->maps = calloc(b->n + 1, sizeof *b->maps);
    b->map_lens = calloc(b->n + 1, sizeof *b->map_lens);
    b->sizes = calloc(b->n + 1, sizeof *b->sizes);
    if (!b->data || !b->maps || !b->map_lens || !b->sizes) return fail(o, err, "$.resources", "out of memory");
    for (size_t i = 0; i < b->n; i++) {
        const model_resource *r = &m->resources[i];
        const uint64_t len = r->size + BUFFER_ALIGN;
        void *map = len > r->size && len <= SIZE_MAX ? dmls_pages_reserve((size_t)len) : NULL;
        if (map != NULL && dmls_pages_open(map, (size_t)len) != 0) {
            dmls_pages_release(map, (size_t)len);
            map = NULL;
        }
        if (map == NULL)
            return fail(o, err, "$.resources", "resource '%s': cannot allocate its %" PRIu64 " bytes", r->name,
                        r->size);
        b->maps[i] = map;
        b->map_lens[i] = (size_t)len;
        b->data[i] = (unsigned char *)map + (BUFFER_ALIGN - (uintptr_t)map % BUFFER_ALIGN) % BUFFER_ALIGN;
        b->sizes[i] = r->size;
        model_fill(r, b->data[i]);
    }
    return true;
}

static const char *npy_descr(DML_TENSOR_DATA_TYPE t) {
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: return "<f4";
    case DML_TENSOR_DATA_TYPE_FLOAT16: return "<f2";
    case DML_TENSOR_DATA_TYPE_FLOAT64: return "<f8";
    case DML_TENSOR_DATA_TYPE_UINT8: return "|u1";
    case DML_TENSOR_DATA_TYPE_UINT16: return "<u2";
    case DML_TENSOR_DATA_TYPE_UINT32: return "<u4";
    case DML_TENSOR_DATA_TYPE_UINT64: return "<u8";
    case DML_TENSOR_DATA_TYPE_INT8: return "|i1";
    case DML_TENSOR_DATA_TYPE_INT16: return "<i2";
    case DML_TENSOR_DATA_TYPE_INT32: return "<i4";
    case DML_TENSOR_DATA_TYPE_INT64: return "<i8";
    default: return NULL;
    }
}

/* DxDispatch prints the elements its initializer wrote, counted from the
 * buffer's start: the padding up to a 4-byte size is left out. */
static bool print_resource(const model_command *c, const model_resource *r, const unsigned char *data,
                           const execute_options *o, char *err) {
    const size_t esize = values_dtype_size(r->dtype);
    if (esize == 0)
        return fail(o, err, c->where, "resource '%s' has no element type (a list initializer): it cannot be printed",
                    r->name);
    const uint64_t count = r->initial_bytes / esize;
    if (!c->verbose) {
        fputs("Resource '", o->out);
        put_shown(o->out, r->name);
        fputs("': ", o->out);
        for (uint64_t i = 0; i < count; i++) {
            values_print(o->out, r->dtype, data + i * esize);
            if (i + 1 < count) fputs(", ", o->out);
        }
        fputc('\n', o->out);
        return true;
    }
    /* One element a line: its index, its value and its bits in hex, the
     * columns padded as DxDispatch pads them: the index to the digits of
     * the count (1 for a count of 0, which has no lines). */
    int index_width = 1;
    for (uint64_t n = count; n >= 10; n /= 10) index_width++;
    const int hex_width = (int)(esize * 2);
    fputs("Resource '", o->out);
    put_shown(o->out, r->name);
    fputs("':\n", o->out);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t bits = 0;
        for (size_t k = 0; k < esize; k++) bits |= (uint64_t)data[i * esize + k] << (8 * k);
        fprintf(o->out, "[%*" PRIu64 "] ", index_width, i);
        values_print(o->out, r->dtype, data + i * esize);
        fprintf(o->out, " (0x%*" PRIX64 ")\n", hex_width, bits);
    }
    return true;
}

/* A .npy file's shape: the command's dimensions, else the whole buffer
 * as one axis (*count already its elements). */
static bool npy_shape(const model_command *c, const model_resource *r, size_t esize, int64_t *shape, int32_t *ndim,
                      uint64_t *count, const execute_options *o, char *err) {
    if (!c->dimensions) {
        shape[0] = (int64_t)*count;
        return true;
    }
    if (c->dimension_count > DMLS_MAX_RANK)
        return fail(o, err, c->where, "dimensions has %zu values; a .npy file here holds at most %d",
                    c->dimension_count, DMLS_MAX_RANK);
    *ndim = (int32_t)c->dimension_count;
    uint64_t n = 1;
    for (size_t i = 0; i < c->dimension_count; i++) {
        shape[i] = c->dimensions[i];
        n *= c->dimensions[i]; /* at most 8 factors below 2^32: checked against the size next */
        if (n > r->size) n = r->size + 1;
    }
    if (n * esize > r->size)
        return fail(o, err, c->where, "dimensions hold more elements than resource '%s' (%" PRIu64 " bytes)", r->name,
                    r->size);
    *count = n;
    return true;
}

/* A writeFile as checked before any command runs: the file it makes. */
typedef struct write_plan {
    const char *path;  /* as the model gives it; "-" is a file of that name, "./-" */
    const char *descr; /* .npy: its type; NULL: raw bytes */
    size_t esize;
    int64_t shape[DMLS_MAX_RANK];
    int32_t ndim;
    uint64_t count; /* elements (raw: bytes) */
} write_plan;

/* writeFile follows the rule of `slice -o` (tools/npy/npy_output.h): a FIFO or
 * character device is written through, a symbolic link keeps its link, and
 * an existing file is replaced only with -f. Everything that rule and the
 * confinement can refuse is refused here, before any command runs. */
static bool check_write(const model_command *c, const model_resource *r, const execute_options *o, write_plan *w,
                        char *err) {
    memset(w, 0, sizeof *w);
    w->path = strcmp(c->target_path, "-") == 0 ? "./-" : c->target_path;
    w->esize = 1;
    w->ndim = 1;
    w->count = r->size;
    if (ascii_ends_with_nocase(w->path, ".png") || ascii_ends_with_nocase(w->path, ".jpg") ||
        ascii_ends_with_nocase(w->path, ".jpeg"))
        return fail(o, err, c->where, "'%s' is an image: dmlslice writes .npy and raw files only", w->path);
    if (ascii_ends_with_nocase(w->path, ".npy")) {
        w->descr = npy_descr(r->dtype);
        if (!w->descr)
            return fail(o, err, c->where,
                        "resource '%s' has no element type (a list initializer): write it as a raw file", r->name);
        w->esize = values_dtype_size(r->dtype);
        w->count = r->size / w->esize;
        if (!npy_shape(c, r, w->esize, w->shape, &w->ndim, &w->count, o, err)) return false;
    }
    char where[sizeof c->where + 16], why[REACH_WHY_LEN], nerr[NPY_ERR_LEN];
    snprintf(where, sizeof where, "%s.targetPath", c->where);
    if (!o->reach) return fail(o, err, where, "writeFile: no file is written here");
    if (!reach_may_write(o->reach, w->path, why)) return fail(o, err, where, "writeFile: %s", why);
    if (!npy_output_check(w->path, o->path, o->force, nerr)) return fail(o, err, c->where, "%s", nerr);
    return true;
}

/* The file of a checked writeFile, made with the resource's bytes as they
 * are now and kept uncommitted: the model's files appear together at its
 * end (npy_commit_all), or none does. The name is checked again just
 * before, then the folder the file was made in (held open, and the one it
 * is committed into): a folder swapped between the two cannot lead it
 * outside. */
static bool stage_write(const model_command *c, const write_plan *w, const unsigned char *data, npy_output *out,
                        const execute_options *o, char *err) {
    char nerr[NPY_ERR_LEN], why[REACH_WHY_LEN];
    if (!reach_may_write(o->reach, w->path, why)) return fail(o, err, c->where, "writeFile: %s", why);
    const bool made = w->descr ? npy_create(w->path, o->force, w->descr, w->ndim, w->shape, w->esize, out, nerr)
                               : npy_create_raw(w->path, o->force, w->count, out, nerr);
    if (!made) {
        npy_abort(out);
        return fail(o, err, c->where, "%s", nerr);
    }
    if (out->created && !reach_holds(o->reach, &out->file, w->path, why)) {
        npy_abort(out);
        return fail(o, err, c->where, "writeFile: %s", why);
    }
    if (w->count) memcpy(out->data, data, w->count * w->esize);
    return true;
}

/* A dispatch's bindings start inside their buffers; the library checks the
 * rest (R-X-BOUNDS, R-X-ALIGN, R-X-OVERLAP) when it runs. */
static bool check_dispatch(const model *m, const model_command *c, const execute_options *o, char *err) {
    const model_dispatchable *d = &m->dispatchables[c->dispatchable];
    for (int k = 0; k < 2; k++) {
        const model_binding *bind = &c->bindings[k];
        const model_resource *r = &m->resources[bind->resource];
        if (bind->offset > r->size)
            return fail(o, err, c->where, "%s binds resource '%s' at byte %" PRIu64 ", past its end (%" PRIu64 " bytes)",
                        d->tensor_names[k], r->name, bind->offset, r->size);
    }
    return true;
}

static bool dispatch(const model *m, const model_command *c, dmls_operator *const *ops, buffers *b,
                     device_buffers *dev, const execute_options *o, char *err) {
    const model_dispatchable *d = &m->dispatchables[c->dispatchable];
    const model_binding *in = &c->bindings[0], *out = &c->bindings[1];
    const dmls_operator *op = ops[c->dispatchable];
    char device_err[256] = "";
    dmls_status s;
    if (dev) {
        s = device_dispatch(dev, op, (size_t)in->resource, in->offset, (size_t)out->resource, out->offset,
                            b->data[out->resource], device_err);
    } else {
        s = dmls_execute(op, b->data[in->resource] + in->offset, b->sizes[in->resource] - in->offset,
                         b->data[out->resource] + out->offset, b->sizes[out->resource] - out->offset);
    }
    if (s != DMLS_OK)
        return fail(o, err, c->where, "dispatch '%s' (%s bound to '%s', %s to '%s'): %s: %s", d->name,
                    d->tensor_names[0], m->resources[in->resource].name, d->tensor_names[1],
                    m->resources[out->resource].name, dmls_status_name(s), device_err[0] ? device_err : dmls_last_error());
    return true;
}

/* Every dispatchable created at the feature level and every command
 * checked, in command order, before any of them runs. */
static bool prepare(const model *m, const execute_options *o, dmls_operator **ops, write_plan *plans, char *err) {
    for (size_t i = 0; i < m->dispatchable_count; i++) {
        const model_dispatchable *d = &m->dispatchables[i];
        const dmls_status s = dmls_create_dml(&d->op, o->level, &ops[i]);
        if (s != DMLS_OK) {
            char where[300];
            snprintf(where, sizeof where, "$.dispatchables.%.200s", d->name);
            return fail(o, err, where, "%s at feature level %s: %s: %s", d->type_name,
                        dmls_feature_level_name(o->level), dmls_status_name(s), dmls_last_error());
        }
    }
    for (size_t i = 0; i < m->command_count; i++) {
        const model_command *c = &m->commands[i];
        const bool ok = c->kind == CMD_DISPATCH     ? check_dispatch(m, c, o, err)
                        : c->kind == CMD_WRITE_FILE ? check_write(c, &m->resources[c->resource], o, &plans[i], err)
                                                    : true;
        if (!ok) return false;
    }
    return true;
}

/* The commands in order; each writeFile's file staged in outs[*n_out]. */
static bool run_commands(const model *m, const execute_options *o, dmls_operator *const *ops, buffers *b,
                         device_buffers *dev, const write_plan *plans, npy_output *outs, int *n_out, char *err) {
    for (size_t i = 0; i < m->command_count; i++) {
        const model_command *c = &m->commands[i];
        bool ok = true;
        switch (c->kind) {
        case CMD_DISPATCH: ok = dispatch(m, c, ops, b, dev, o, err); break;
        case CMD_PRINT: ok = print_resource(c, &m->resources[c->resource], b->data[c->resource], o, err); break;
        case CMD_WRITE_FILE: ok = stage_write(c, &plans[i], b->data[c->resource], &outs[(*n_out)++], o, err); break;
        }
        if (!ok) return false;
    }
    return true;
}

/* The staged files made whole under their names together, or none; then
 * one line each, in command order. Each file's folder, held since it was
 * made, is checked against the confinement again just before: a folder
 * moved out while the model ran takes no file with it. No name is resolved
 * again: each file is committed into the folder it holds. */
static bool commit_writes(const model *m, const execute_options *o, npy_output *outs, int n_out, char *err) {
    char nerr[NPY_ERR_LEN], why[REACH_WHY_LEN];
    for (int k = 0; k < n_out; k++) {
        if (outs[k].created && !reach_holds(o->reach, &outs[k].file, outs[k].shown, why)) {
            for (int j = 0; j < n_out; j++) npy_abort(&outs[j]);
            return fail(o, err, "writeFile", "%s; no file was written", why);
        }
    }
    if (!npy_commit_all(outs, n_out, nerr)) return fail(o, err, "writeFile", "%s; no file was written", nerr);
    for (size_t i = 0; i < m->command_count; i++) {
        const model_command *c = &m->commands[i];
        if (c->kind != CMD_WRITE_FILE) continue;
        fputs("Resource '", o->out);
        put_shown(o->out, m->resources[c->resource].name);
        fputs("' written to '", o->out);
        put_shown(o->out, c->target_path);
        fputs("'\n", o->out);
    }
    return true;
}

bool model_execute(const model *m, const execute_options *o, char *err) {
    err[0] = '\0';
    dmls_operator **ops = calloc(m->dispatchable_count + 1, sizeof *ops);
    write_plan *plans = calloc(m->command_count + 1, sizeof *plans);
    npy_output *outs = calloc(m->command_count + 1, sizeof *outs);
    int n_out = 0;
    buffers b;
    memset(&b, 0, sizeof b);
    device_buffers *dev = NULL;
    bool ok = (ops && plans && outs) || fail(o, err, "$", "out of memory");
    ok = ok && prepare(m, o, ops, plans, err) && buffers_alloc(m, o, &b, err);
    if (ok && o->device) {
        char device_err[256] = "";
        const dmls_status s = device_upload(o->device, b.n, b.data, b.sizes, &dev, device_err);
        if (s != DMLS_OK) ok = fail(o, err, "--device", "%s: %s", dmls_status_name(s), device_err);
    }
    ok = ok && run_commands(m, o, ops, &b, dev, plans, outs, &n_out, err);
    if (ok) ok = commit_writes(m, o, outs, n_out, err);
    else
        for (int k = 0; k < n_out; k++) npy_abort(&outs[k]);
    fflush(o->out);
    device_free(dev);
    buffers_free(&b);
    for (size_t i = 0; ops && i < m->dispatchable_count; i++) dmls_destroy(ops[i]);
    free(ops);
    free(plans);
    free(outs);
    return ok;
}
