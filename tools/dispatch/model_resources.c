/* Resources: buffers and their initializers (see model.h and
 * docs/dispatch.md), and the fill DxDispatch gives them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "model_reader.h"
#include "npy_format.h"
#include "files.h"
#include "platform.h"
#include "values.h"

/* The file a file initializer's source names, malloc'd (NULL when out of
 * memory): the one beside the model when there is one by that name (a
 * relative source after the model's folder), else source as given. */
static char *file_to_read(const reader *r, const char *source) {
    const size_t folder = strlen(r->base_dir), n = strlen(source) + 1;
    if (folder && dmls_path_is_relative(source)) {
        char *beside = malloc(folder + n);
        if (!beside) return NULL;
        memcpy(beside, r->base_dir, folder);
        memcpy(beside + folder, source, n);
        dmls_file_info st;
        if (dmls_path_info(beside, 1, &st) == 0 && st.kind != DMLS_FILE_MISSING) return beside;
        free(beside);
    }
    return text_copy(source);
}

/* The bytes of a file initializer: a regular file beneath the folders a
 * model may read, no larger than what is left of the model's budget. */
static bool read_file(reader *r, const char *p, const char *source, unsigned char **data, uint64_t *len) {
    if (!r->base_dir || !r->reach) return reader_fail(r, p, "file initializers are not read here");
    char *used = file_to_read(r, source);
    if (!used) return reader_fail(r, p, "out of memory");
    char why[REACH_WHY_LEN];
    uint64_t size = 0;
    unsigned char *buf = NULL;
    bool ok = false;
    FILE *f = reach_open_read(r->reach, used, &size, why);
    if (!f) {
        reader_fail(r, p, "%s", why);
    } else if (size > MODEL_MAX_INITIAL_BYTES - r->initial_total) {
        reader_fail(r, p, "'%s' holds %" PRIu64 " bytes, more than the %" PRIu64 " left of the %" PRIu64
                   " bytes a model's initial values may hold together",
             used, size, MODEL_MAX_INITIAL_BYTES - r->initial_total, (uint64_t)MODEL_MAX_INITIAL_BYTES);
    } else if (size > SIZE_MAX - 1 || !(buf = malloc(size ? (size_t)size : 1))) {
        reader_fail(r, p, "'%s': cannot hold its %" PRIu64 " bytes in memory", used, size);
    } else {
        const size_t got = fread(buf, 1, (size_t)size, f);
        if (got == size) {
            *data = buf;
            *len = size;
            buf = NULL;
            ok = true;
        } else {
            reader_fail(r, p, "'%s': read %zu of %" PRIu64 " bytes", used, got, size);
        }
    }
    if (f) fclose(f);
    free(buf);
    free(used);
    return ok;
}

static bool read_file_initializer(reader *r, model_resource *res, const json_t *init, const char *p) {
    const char *source;
    if (!reader_get_string(r, init, "sourcePath", p, true, &source)) return false;
    char sp[PATH_CAP];
    path_key(sp, p, "sourcePath");
    if (ascii_ends_with_nocase(source, ".png") || ascii_ends_with_nocase(source, ".jpg") ||
        ascii_ends_with_nocase(source, ".jpeg"))
        return reader_fail(r, sp, "'%s' is an image: dmlslice reads .npy and raw files only", source);
    unsigned char *bytes = NULL;
    uint64_t len = 0;
    if (!read_file(r, sp, source, &bytes, &len)) return false;
    DML_TENSOR_DATA_TYPE file_type = DML_TENSOR_DATA_TYPE_UNKNOWN;
    if (ascii_ends_with_nocase(source, ".npy")) {
        npy_header h;
        char err[NPY_ERR_LEN];
        if (!npy_parse_header(source, bytes, len, &h, err) || !npy_check_data(source, &h, len - h.data_offset, err)) {
            free(bytes);
            return reader_fail(r, sp, "%s", err);
        }
        if (h.big_endian && h.esize > 1) {
            free(bytes);
            return reader_fail(r, sp, "'%s' holds big-endian data (%s); DirectML's buffers are little-endian", source,
                        h.descr);
        }
        if (h.fortran_order && h.ndim > 1) {
            free(bytes);
            return reader_fail(r, sp, "'%s' is in Fortran order; a buffer is filled in C order (save it with "
                               "numpy.ascontiguousarray)",
                        source);
        }
        file_type = (DML_TENSOR_DATA_TYPE)h.dtype; /* the values are DirectML's; bool is read as UINT8 */
        memmove(bytes, bytes + h.data_offset, h.data_bytes);
        len = h.data_bytes;
    }
    if (res->dtype == DML_TENSOR_DATA_TYPE_UNKNOWN) res->dtype = file_type;
    if (file_type != DML_TENSOR_DATA_TYPE_UNKNOWN && file_type != res->dtype) {
        free(bytes);
        return reader_fail(r, sp, "'%s' holds %s but initialValuesDataType is %s", source, values_dtype_name(file_type),
                    values_dtype_name(res->dtype));
    }
    if (res->dtype == DML_TENSOR_DATA_TYPE_UNKNOWN) {
        free(bytes);
        return reader_fail(r, sp, "a raw file needs initialValuesDataType (it has no data type of its own)");
    }
    res->kind = INIT_FILE;
    res->file_data = bytes;
    res->initial_bytes = len;
    return true;
}

static bool read_list(reader *r, model_resource *res, const json_t *arr, const char *p) {
    static const char *const keys[] = {"type", "value", "name", NULL};
    uint64_t total = 0;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *e = json_array_get(arr, i);
        char q[PATH_CAP], tq[PATH_CAP], vq[PATH_CAP];
        path_index(q, p, i);
        if (!reader_get_object(r, e, q) || !reader_only_keys(r, e, q, keys)) return false;
        path_key(tq, q, "type");
        path_key(vq, q, "value");
        const json_t *t = json_object_get(e, "type"), *v = json_object_get(e, "value");
        DML_TENSOR_DATA_TYPE type;
        if (!t) return reader_fail(r, tq, "required field missing (a list element names its own data type)");
        if (!reader_get_dtype(r, t, tq, &type)) return false;
        if (!v) return reader_fail(r, vq, "required field missing");
        unsigned char scratch[8];
        char why[200];
        if (!values_parse(v, type, scratch, why)) return reader_fail(r, vq, "%s", why);
        total += values_dtype_size(type);
    }
    res->kind = INIT_LIST;
    res->values = arr;
    res->initial_bytes = total;
    return true;
}

static bool read_initializer(reader *r, model_resource *res, const json_t *init, const char *p) {
    char why[200];
    unsigned char scratch[8];
    const size_t esize = values_dtype_size(res->dtype);
    if (json_is_string(init)) {
        if (strcmp(json_string_value(init), "deferred") == 0)
            return reader_fail(r, p, "\"deferred\" resources are bound by ONNX dispatchables; dmlslice runs slice "
                              "operators only");
        return reader_fail(r, p, "expected an array, an object or \"deferred\", got the string \"%.60s\"",
                    json_string_value(init));
    }
    if (json_is_array(init)) {
        if (res->dtype == DML_TENSOR_DATA_TYPE_UNKNOWN) return read_list(r, res, init, p);
        if (esize == 0) return reader_fail(r, p, "%s has no JSON values", values_dtype_name(res->dtype));
        for (size_t i = 0; i < json_array_size(init); i++) {
            char q[PATH_CAP];
            path_index(q, p, i);
            if (!values_parse(json_array_get(init, i), res->dtype, scratch, why)) return reader_fail(r, q, "%s", why);
        }
        res->kind = INIT_ARRAY;
        res->values = init;
        res->initial_bytes = (uint64_t)json_array_size(init) * esize;
        return true;
    }
    if (!json_is_object(init))
        return reader_fail(r, p, "expected an array of values or an initializer object, got %s", json_kind(init));
    static const char *const keys[] = {"value", "valueCount", "valueStart", "valueDelta", "sourcePath", NULL};
    if (!reader_only_keys(r, init, p, keys)) return false;
    const bool has_value = json_object_get(init, "value"), has_start = json_object_get(init, "valueStart"),
               has_source = json_object_get(init, "sourcePath");
    if (has_value + has_start + has_source > 1)
        return reader_fail(r, p, "value, valueStart and sourcePath are mutually exclusive");
    if (has_source) return read_file_initializer(r, res, init, p);
    if (!has_value && !has_start)
        return reader_fail(r, p, "unknown initializer: give value (constant), valueStart and valueDelta (sequence), or "
                          "sourcePath (file)");
    if (res->dtype == DML_TENSOR_DATA_TYPE_UNKNOWN)
        return reader_fail(r, p, "a %s initializer needs initialValuesDataType", has_value ? "constant" : "sequence");
    if (esize == 0) return reader_fail(r, p, "%s has no JSON values", values_dtype_name(res->dtype));
    bool present;
    uint64_t count = 0;
    char q[PATH_CAP];
    if (!reader_get_u64(r, init, "valueCount", p, UINT32_MAX, &present, &count)) return false;
    path_key(q, p, "valueCount");
    if (!present) return reader_fail(r, q, "required field missing");
    const char *const fields[2] = {has_value ? "value" : "valueStart", has_value ? NULL : "valueDelta"};
    for (int k = 0; k < 2 && fields[k]; k++) {
        const json_t *v = json_object_get(init, fields[k]);
        path_key(q, p, fields[k]);
        if (!v) return reader_fail(r, q, "required field missing");
        if (!values_parse(v, res->dtype, scratch, why)) return reader_fail(r, q, "%s", why);
    }
    res->kind = has_value ? INIT_CONSTANT : INIT_SEQUENCE;
    res->values = init;
    res->count = (uint32_t)count;
    res->initial_bytes = count * esize;
    return true;
}

bool model_read_resource(reader *r, model_resource *res, const char *name, const json_t *obj, const char *p) {
    static const char *const keys[] = {"type", "initialValues", "initialValuesDataType", "initialValuesOffsetInBytes",
                                       "sizeInBytes", "resampleSize", "resampleMode", NULL};
    res->name = text_copy(name);
    if (!res->name) return reader_fail(r, p, "out of memory");
    if (!reader_get_object(r, obj, p) || !reader_only_keys(r, obj, p, keys)) return false;
    const char *type = NULL;
    if (!reader_get_string(r, obj, "type", p, false, &type)) return false;
    char q[PATH_CAP];
    if (type && strcmp(type, "buffer") != 0) {
        path_key(q, p, "type");
        return reader_fail(r, q, "resource type \"%.60s\": dmlslice supports buffer resources only (no textures)", type);
    }
    if (json_object_get(obj, "resampleSize") || json_object_get(obj, "resampleMode")) {
        path_key(q, p, json_object_get(obj, "resampleSize") ? "resampleSize" : "resampleMode");
        return reader_fail(r, q, "image resampling: dmlslice reads no images");
    }
    res->dtype = DML_TENSOR_DATA_TYPE_UNKNOWN;
    const json_t *dt = json_object_get(obj, "initialValuesDataType");
    path_key(q, p, "initialValuesDataType");
    if (dt && !reader_get_dtype(r, dt, q, &res->dtype)) return false;
    const json_t *init = json_object_get(obj, "initialValues");
    path_key(q, p, "initialValues");
    if (!init) return reader_fail(r, q, "required field missing");
    if (!read_initializer(r, res, init, q)) return false;
    if (res->initial_bytes == 0) return reader_fail(r, q, "must be non-empty");
    bool has_size, has_offset;
    if (!reader_get_u64(r, obj, "sizeInBytes", p, UINT64_MAX, &has_size, &res->size)) return false;
    /* DxDispatch rounds an implied size up to DirectML's 4-byte multiple; an
     * explicit one is taken as written. */
    if (!has_size) res->size = (res->initial_bytes + 3) & ~(uint64_t)3;
    if (!reader_get_u64(r, obj, "initialValuesOffsetInBytes", p, UINT64_MAX, &has_offset, &res->offset)) return false;
    if (res->offset > res->size || res->initial_bytes > res->size - res->offset)
        return reader_fail(r, p, "the buffer size (%" PRIu64 " bytes) is too small for the initialValues (%" PRIu64
                          " bytes) at offset %" PRIu64 " bytes",
                    res->size, res->initial_bytes, res->offset);
    /* Checked before anything is allocated: a model names sizes, the
     * machine's memory pays for them. */
    if (res->initial_bytes > MODEL_MAX_INITIAL_BYTES - r->initial_total)
        return reader_fail(r, p, "its initial values take %" PRIu64 " bytes, more than the %" PRIu64 " left of the %" PRIu64
                          " bytes a model's initial values may hold together",
                    res->initial_bytes, MODEL_MAX_INITIAL_BYTES - r->initial_total, (uint64_t)MODEL_MAX_INITIAL_BYTES);
    if (res->size > MODEL_MAX_RESOURCE_BYTES - r->size_total)
        return reader_fail(r, p, "its %" PRIu64 " bytes are more than the %" PRIu64 " left of the %" PRIu64
                          " bytes a model's resources may hold together",
                    res->size, MODEL_MAX_RESOURCE_BYTES - r->size_total, (uint64_t)MODEL_MAX_RESOURCE_BYTES);
    r->initial_total += res->initial_bytes;
    r->size_total += res->size;
    return true;
}

int model_find_resource(const model *m, const char *name) {
    for (size_t i = 0; i < m->resource_count; i++)
        if (strcmp(m->resources[i].name, name) == 0) return (int)i;
    return -1;
}

void model_fill(const model_resource *r, unsigned char *buf) {
    unsigned char *p = buf + r->offset;
    const size_t esize = values_dtype_size(r->dtype);
    char why[200];
    unsigned char value[8], delta[8];
    switch (r->kind) {
    case INIT_ARRAY:
        for (size_t i = 0; i < json_array_size(r->values); i++, p += esize)
            values_parse(json_array_get(r->values, i), r->dtype, p, why);
        break;
    case INIT_LIST:
        for (size_t i = 0; i < json_array_size(r->values); i++) {
            const json_t *e = json_array_get(r->values, i);
            DML_TENSOR_DATA_TYPE type = DML_TENSOR_DATA_TYPE_UNKNOWN;
            values_parse_dtype(json_string_value(json_object_get(e, "type")), &type);
            values_parse(json_object_get(e, "value"), type, p, why);
            p += values_dtype_size(type);
        }
        break;
    case INIT_CONSTANT:
        values_parse(json_object_get(r->values, "value"), r->dtype, value, why);
        for (uint32_t i = 0; i < r->count; i++, p += esize) memcpy(p, value, esize);
        break;
    case INIT_SEQUENCE:
        values_parse(json_object_get(r->values, "valueStart"), r->dtype, value, why);
        values_parse(json_object_get(r->values, "valueDelta"), r->dtype, delta, why);
        for (uint32_t i = 0; i < r->count; i++, p += esize) {
            memcpy(p, value, esize);
            values_step(r->dtype, value, delta);
        }
        break;
    case INIT_FILE: memcpy(p, r->file_data, r->initial_bytes); break;
    }
}
