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
        fprintf(o->out, "Resource '%s': ", r->name);
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
    fprintf(o->out, "Resource '%s':\n", r->name);
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

/* writeFile follows the rule of `slice -o` (tools/npy/npy_output.h): a FIFO or
 * character device is written through, a symbolic link keeps its link, an
 * existing file is replaced only with -f, and a file is whole or absent. */
static bool write_file(const model_command *c, const model_resource *r, const unsigned char *data,
                       const execute_options *o, char *err) {
    /* "-" is a file by that name, as in DxDispatch, not standard output. */
    const char *path = strcmp(c->target_path, "-") == 0 ? "./-" : c->target_path;
    if (ascii_ends_with_nocase(path, ".png") || ascii_ends_with_nocase(path, ".jpg") ||
        ascii_ends_with_nocase(path, ".jpeg"))
        return fail(o, err, c->where, "'%s' is an image: dmlslice writes .npy and raw files only", path);
    const char *descr = NULL;
    size_t esize = 1;
    int64_t shape[DMLS_MAX_RANK];
    int32_t ndim = 1;
    uint64_t count = r->size;
    if (ascii_ends_with_nocase(path, ".npy")) {
        descr = npy_descr(r->dtype);
        if (!descr)
            return fail(o, err, c->where,
                        "resource '%s' has no element type (a list initializer): write it as a raw file", r->name);
        esize = values_dtype_size(r->dtype);
        count = r->size / esize;
        if (!npy_shape(c, r, esize, shape, &ndim, &count, o, err)) return false;
    }
    char where[sizeof c->where + 16], why[REACH_WHY_LEN];
    snprintf(where, sizeof where, "%s.targetPath", c->where);
    if (!o->reach) return fail(o, err, where, "writeFile: no file is written here");
    if (!reach_may_write(o->reach, path, why)) return fail(o, err, where, "writeFile: %s", why);
    npy_output out;
    char nerr[NPY_ERR_LEN];
    const bool made = npy_output_check(path, o->path, o->force, nerr) &&
                      (descr ? npy_create(path, o->force, descr, ndim, shape, esize, &out, nerr)
                             : npy_create_raw(path, o->force, count, &out, nerr));
    if (!made) return fail(o, err, c->where, "%s", nerr);
    if (count) memcpy(out.data, data, count * esize);
    if (!npy_commit(&out, nerr)) {
        npy_abort(&out);
        return fail(o, err, c->where, "%s", nerr);
    }
    fprintf(o->out, "Resource '%s' written to '%s'\n", r->name, c->target_path);
    return true;
}

static bool dispatch(const model *m, const model_command *c, dmls_operator *const *ops, buffers *b,
                     device_buffers *dev, const execute_options *o, char *err) {
    const model_dispatchable *d = &m->dispatchables[c->dispatchable];
    const model_binding *in = &c->bindings[0], *out = &c->bindings[1];
    for (int k = 0; k < 2; k++) {
        const model_binding *bind = &c->bindings[k];
        const model_resource *r = &m->resources[bind->resource];
        if (bind->offset > r->size)
            return fail(o, err, c->where, "%s binds resource '%s' at byte %" PRIu64 ", past its end (%" PRIu64 " bytes)",
                        d->tensor_names[k], r->name, bind->offset, r->size);
    }
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

bool model_execute(const model *m, const execute_options *o, char *err) {
    err[0] = '\0';
    dmls_operator **ops = calloc(m->dispatchable_count + 1, sizeof *ops);
    buffers b;
    memset(&b, 0, sizeof b);
    device_buffers *dev = NULL;
    bool ok = ops != NULL || fail(o, err, "$.dispatchables", "out of memory");
    for (size_t i = 0; ok && i < m->dispatchable_count; i++) {
        const model_dispatchable *d = &m->dispatchables[i];
        const dmls_status s = dmls_create_dml(&d->op, o->level, &ops[i]);
        if (s != DMLS_OK) {
            char where[300];
            snprintf(where, sizeof where, "$.dispatchables.%.200s", d->name);
            ok = fail(o, err, where, "%s at feature level %s: %s: %s", d->type_name, dmls_feature_level_name(o->level),
                      dmls_status_name(s), dmls_last_error());
        }
    }
    ok = ok && buffers_alloc(m, o, &b, err);
    if (ok && o->cuda) {
        char device_err[256] = "";
        const dmls_status s = device_upload(b.n, b.data, b.sizes, &dev, device_err);
        if (s != DMLS_OK) ok = fail(o, err, "--device", "%s: %s", dmls_status_name(s), device_err);
    }
    for (size_t i = 0; ok && i < m->command_count; i++) {
        const model_command *c = &m->commands[i];
        switch (c->kind) {
        case CMD_DISPATCH: ok = dispatch(m, c, ops, &b, dev, o, err); break;
        case CMD_PRINT: ok = print_resource(c, &m->resources[c->resource], b.data[c->resource], o, err); break;
        case CMD_WRITE_FILE: ok = write_file(c, &m->resources[c->resource], b.data[c->resource], o, err); break;
        }
    }
    fflush(o->out);
    device_free(dev);
    buffers_free(&b);
    for (size_t i = 0; ops && i < m->dispatchable_count; i++) dmls_destroy(ops[i]);
    free(ops);
    return ok;
}
