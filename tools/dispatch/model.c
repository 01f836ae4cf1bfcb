/* See model.h. The format and DxDispatch's defaults are summarized in
 * docs/dispatch.md; where DxDispatch would silently read past an array or
 * ignore a misspelt field, this reader says so instead. */
#include "model.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "json_text.h"
#include "npy_format.h"
#include "platform.h"
#include "values.h"

#define PATH_CAP 512

typedef struct reader {
    char *err;
    const char *name;
    const char *base_dir;
    const model_reach *reach;
    model *m;
    uint64_t initial_total; /* initial values' bytes so far */
    uint64_t size_total;    /* resources' bytes so far */
} reader;

static bool fail(reader *r, const char *path, const char *fmt, ...) {
    const int head = snprintf(r->err, MODEL_ERR_LEN, "%.300s: %.400s: ", r->name, path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + head, MODEL_ERR_LEN - (size_t)head, fmt, ap);
    va_end(ap);
    return false;
}

/* A malloc'd copy (strdup is POSIX, not C11). */
static char *copy_text(const char *s) {
    const size_t n = strlen(s) + 1;
    char *c = malloc(n);
    return c ? memcpy(c, s, n) : NULL;
}

static bool is_identifier(const char *s) {
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == '$')) return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '$')) return false;
    return true;
}

/* "$.a.b", or "$.a["odd name"]" for a key that is not an identifier. */
static void child_key(char *dst, const char *parent, const char *key) {
    if (is_identifier(key)) snprintf(dst, PATH_CAP, "%.280s.%.200s", parent, key);
    else snprintf(dst, PATH_CAP, "%.280s[\"%.200s\"]", parent, key);
}

static void child_index(char *dst, const char *parent, size_t i) { snprintf(dst, PATH_CAP, "%.480s[%zu]", parent, i); }

static const char *kind_of(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number with a fraction or exponent";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

/* Fields not in keys are refused: a misspelt optional field would otherwise
 * be silently left at its default. */
static bool only_keys(reader *r, const json_t *obj, const char *path, const char *const *keys) {
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        bool known = false;
        for (const char *const *k = keys; *k && !known; k++) known = strcmp(*k, key) == 0;
        if (known) continue;
        char list[400] = "", p[PATH_CAP];
        for (const char *const *k = keys; *k; k++) {
            if ((*k)[0] == '$') continue;
            strncat(list, list[0] ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, *k, sizeof list - strlen(list) - 1);
        }
        child_key(p, path, key);
        return fail(r, p, "unknown field (expected one of: %s)", list);
    }
    return true;
}

static bool get_object(reader *r, const json_t *v, const char *path) {
    return json_is_object(v) || fail(r, path, "expected an object, got %s", kind_of(v));
}

static bool get_string(reader *r, const json_t *obj, const char *key, const char *path, bool required,
                       const char **out) {
    const json_t *v = json_object_get(obj, key);
    char p[PATH_CAP];
    child_key(p, path, key);
    if (!v) {
        *out = NULL;
        return !required || fail(r, p, "required field missing");
    }
    if (!json_is_string(v)) return fail(r, p, "expected a string, got %s", kind_of(v));
    *out = json_string_value(v);
    return true;
}

static bool as_u64(reader *r, const json_t *v, const char *p, uint64_t max, uint64_t *out) {
    if (!json_is_integer(v))
        return fail(r, p, "expected an unsigned integer, got %s", kind_of(v));
    const json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x > max)
        return fail(r, p, "%lld is outside 0 to %" PRIu64, (long long)x, max);
    *out = (uint64_t)x;
    return true;
}

static bool get_u64(reader *r, const json_t *obj, const char *key, const char *path, uint64_t max, bool *present,
                    uint64_t *out) {
    const json_t *v = json_object_get(obj, key);
    *present = v != NULL;
    if (!v) return true;
    char p[PATH_CAP];
    child_key(p, path, key);
    return as_u64(r, v, p, max, out);
}

/* An array of UINT (is_signed false) or INT values; *out is NULL for an
 * empty array. */
static bool get_int_array(reader *r, const json_t *v, const char *p, bool is_signed, UINT **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!json_is_array(v)) return fail(r, p, "expected an array of integers, got %s", kind_of(v));
    const size_t count = json_array_size(v);
    if (count == 0) return true;
    UINT *a = calloc(count, sizeof(UINT));
    if (!a) return fail(r, p, "out of memory");
    for (size_t i = 0; i < count; i++) {
        const json_t *e = json_array_get(v, i);
        char q[PATH_CAP];
        child_index(q, p, i);
        if (!json_is_integer(e)) {
            free(a);
            return fail(r, q, "expected %s integer, got %s", is_signed ? "a 32-bit signed" : "an unsigned 32-bit",
                        kind_of(e));
        }
        const json_int_t x = json_integer_value(e);
        if (is_signed ? x < INT32_MIN || x > INT32_MAX : x < 0 || x > (json_int_t)UINT32_MAX) {
            free(a);
            return fail(r, q, "%lld does not fit DirectML's %s", (long long)x,
                        is_signed ? "INT (-2147483648 to 2147483647)" : "UINT (0 to 4294967295)");
        }
        if (is_signed) {
            const INT s = (INT)x;
            memcpy(&a[i], &s, sizeof s);
        } else {
            a[i] = (UINT)x;
        }
    }
    *out = a;
    *n = count;
    return true;
}

static bool get_dtype(reader *r, const json_t *v, const char *p, DML_TENSOR_DATA_TYPE *type) {
    if (!json_is_string(v)) return fail(r, p, "expected a data type name such as \"FLOAT32\", got %s", kind_of(v));
    if (!values_parse_dtype(json_string_value(v), type))
        return fail(r, p, "unknown data type \"%.80s\" (FLOAT32, FLOAT16, FLOAT64, UINT8 ... INT64, UNKNOWN, "
                          "with or without the DML_TENSOR_DATA_TYPE_ prefix)",
                    json_string_value(v));
    return true;
}

/* ------------------------------------------------------------ resources */

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
    return copy_text(source);
}

/* The bytes of a file initializer: a regular file beneath the folders a
 * model may read, no larger than what is left of the model's budget. */
static bool read_file(reader *r, const char *p, const char *source, unsigned char **data, uint64_t *len) {
    if (!r->base_dir || !r->reach) return fail(r, p, "file initializers are not read here");
    char *used = file_to_read(r, source);
    if (!used) return fail(r, p, "out of memory");
    char why[REACH_WHY_LEN];
    uint64_t size = 0;
    unsigned char *buf = NULL;
    bool ok = false;
    FILE *f = reach_open_read(r->reach, used, &size, why);
    if (!f) {
        fail(r, p, "%s", why);
    } else if (size > MODEL_MAX_INITIAL_BYTES - r->initial_total) {
        fail(r, p, "'%s' holds %" PRIu64 " bytes, more than the %" PRIu64 " left of the %" PRIu64
                   " bytes a model's initial values may hold together",
             used, size, MODEL_MAX_INITIAL_BYTES - r->initial_total, (uint64_t)MODEL_MAX_INITIAL_BYTES);
    } else if (size > SIZE_MAX - 1 || !(buf = malloc(size ? (size_t)size : 1))) {
        fail(r, p, "'%s': cannot hold its %" PRIu64 " bytes in memory", used, size);
    } else {
        const size_t got = fread(buf, 1, (size_t)size, f);
        if (got == size) {
            *data = buf;
            *len = size;
            buf = NULL;
            ok = true;
        } else {
            fail(r, p, "'%s': read %zu of %" PRIu64 " bytes", used, got, size);
        }
    }
    if (f) fclose(f);
    free(buf);
    free(used);
    return ok;
}

static bool read_file_initializer(reader *r, model_resource *res, const json_t *init, const char *p) {
    const char *source;
    if (!get_string(r, init, "sourcePath", p, true, &source)) return false;
    char sp[PATH_CAP];
    child_key(sp, p, "sourcePath");
    if (ascii_ends_with_nocase(source, ".png") || ascii_ends_with_nocase(source, ".jpg") ||
        ascii_ends_with_nocase(source, ".jpeg"))
        return fail(r, sp, "'%s' is an image: dmlslice reads .npy and raw files only", source);
    unsigned char *bytes = NULL;
    uint64_t len = 0;
    if (!read_file(r, sp, source, &bytes, &len)) return false;
    DML_TENSOR_DATA_TYPE file_type = DML_TENSOR_DATA_TYPE_UNKNOWN;
    if (ascii_ends_with_nocase(source, ".npy")) {
        npy_header h;
        char err[NPY_ERR_LEN];
        if (!npy_parse_header(source, bytes, len, &h, err) || !npy_check_data(source, &h, len - h.data_offset, err)) {
            free(bytes);
            return fail(r, sp, "%s", err);
        }
        if (h.big_endian && h.esize > 1) {
            free(bytes);
            return fail(r, sp, "'%s' holds big-endian data (%s); DirectML's buffers are little-endian", source,
                        h.descr);
        }
        if (h.fortran_order && h.ndim > 1) {
            free(bytes);
            return fail(r, sp, "'%s' is in Fortran order; a buffer is filled in C order (save it with "
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
        return fail(r, sp, "'%s' holds %s but initialValuesDataType is %s", source, values_dtype_name(file_type),
                    values_dtype_name(res->dtype));
    }
    if (res->dtype == DML_TENSOR_DATA_TYPE_UNKNOWN) {
        free(bytes);
        return fail(r, sp, "a raw file needs initialValuesDataType (it has no data type of its own)");
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
        child_index(q, p, i);
        if (!get_object(r, e, q) || !only_keys(r, e, q, keys)) return false;
        child_key(tq, q, "type");
        child_key(vq, q, "value");
        const json_t *t = json_object_get(e, "type"), *v = json_object_get(e, "value");
        DML_TENSOR_DATA_TYPE type;
        if (!t) return fail(r, tq, "required field missing (a list element names its own data type)");
        if (!get_dtype(r, t, tq, &type)) return false;
        if (!v) return fail(r, vq, "required field missing");
        unsigned char scratch[8];
        char why[200];
        if (!values_parse(v, type, scratch, why)) return fail(r, vq, "%s", why);
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
            return fail(r, p, "\"deferred\" resources are bound by ONNX dispatchables; dmlslice runs slice "
                              "operators only");
        return fail(r, p, "expected an array, an object or \"deferred\", got the string \"%.60s\"",
                    json_string_value(init));
    }
    if (json_is_array(init)) {
        if (res->dtype == DML_TENSOR_DATA_TYPE_UNKNOWN) return read_list(r, res, init, p);
        if (esize == 0) return fail(r, p, "%s has no JSON values", values_dtype_name(res->dtype));
        for (size_t i = 0; i < json_array_size(init); i++) {
            char q[PATH_CAP];
            child_index(q, p, i);
            if (!values_parse(json_array_get(init, i), res->dtype, scratch, why)) return fail(r, q, "%s", why);
        }
        res->kind = INIT_ARRAY;
        res->values = init;
        res->initial_bytes = (uint64_t)json_array_size(init) * esize;
        return true;
    }
    if (!json_is_object(init))
        return fail(r, p, "expected an array of values or an initializer object, got %s", kind_of(init));
    static const char *const keys[] = {"value", "valueCount", "valueStart", "valueDelta", "sourcePath", NULL};
    if (!only_keys(r, init, p, keys)) return false;
    const bool has_value = json_object_get(init, "value"), has_start = json_object_get(init, "valueStart"),
               has_source = json_object_get(init, "sourcePath");
    if (has_value + has_start + has_source > 1)
        return fail(r, p, "value, valueStart and sourcePath are mutually exclusive");
    if (has_source) return read_file_initializer(r, res, init, p);
    if (!has_value && !has_start)
        return fail(r, p, "unknown initializer: give value (constant), valueStart and valueDelta (sequence), or "
                          "sourcePath (file)");
    if (res->dtype == DML_TENSOR_DATA_TYPE_UNKNOWN)
        return fail(r, p, "a %s initializer needs initialValuesDataType", has_value ? "constant" : "sequence");
    if (esize == 0) return fail(r, p, "%s has no JSON values", values_dtype_name(res->dtype));
    bool present;
    uint64_t count = 0;
    char q[PATH_CAP];
    if (!get_u64(r, init, "valueCount", p, UINT32_MAX, &present, &count)) return false;
    child_key(q, p, "valueCount");
    if (!present) return fail(r, q, "required field missing");
    const char *const fields[2] = {has_value ? "value" : "valueStart", has_value ? NULL : "valueDelta"};
    for (int k = 0; k < 2 && fields[k]; k++) {
        const json_t *v = json_object_get(init, fields[k]);
        child_key(q, p, fields[k]);
        if (!v) return fail(r, q, "required field missing");
        if (!values_parse(v, res->dtype, scratch, why)) return fail(r, q, "%s", why);
    }
    res->kind = has_value ? INIT_CONSTANT : INIT_SEQUENCE;
    res->values = init;
    res->count = (uint32_t)count;
    res->initial_bytes = count * esize;
    return true;
}

static bool read_resource(reader *r, model_resource *res, const char *name, const json_t *obj, const char *p) {
    static const char *const keys[] = {"type", "initialValues", "initialValuesDataType", "initialValuesOffsetInBytes",
                                       "sizeInBytes", "resampleSize", "resampleMode", NULL};
    res->name = copy_text(name);
    if (!res->name) return fail(r, p, "out of memory");
    if (!get_object(r, obj, p) || !only_keys(r, obj, p, keys)) return false;
    const char *type = NULL;
    if (!get_string(r, obj, "type", p, false, &type)) return false;
    char q[PATH_CAP];
    if (type && strcmp(type, "buffer") != 0) {
        child_key(q, p, "type");
        return fail(r, q, "resource type \"%.60s\": dmlslice supports buffer resources only (no textures)", type);
    }
    if (json_object_get(obj, "resampleSize") || json_object_get(obj, "resampleMode")) {
        child_key(q, p, json_object_get(obj, "resampleSize") ? "resampleSize" : "resampleMode");
        return fail(r, q, "image resampling: dmlslice reads no images");
    }
    res->dtype = DML_TENSOR_DATA_TYPE_UNKNOWN;
    const json_t *dt = json_object_get(obj, "initialValuesDataType");
    child_key(q, p, "initialValuesDataType");
    if (dt && !get_dtype(r, dt, q, &res->dtype)) return false;
    const json_t *init = json_object_get(obj, "initialValues");
    child_key(q, p, "initialValues");
    if (!init) return fail(r, q, "required field missing");
    if (!read_initializer(r, res, init, q)) return false;
    if (res->initial_bytes == 0) return fail(r, q, "must be non-empty");
    bool has_size, has_offset;
    if (!get_u64(r, obj, "sizeInBytes", p, UINT64_MAX, &has_size, &res->size)) return false;
    /* DxDispatch rounds an implied size up to DirectML's 4-byte multiple; an
     * explicit one is taken as written. */
    if (!has_size) res->size = (res->initial_bytes + 3) & ~(uint64_t)3;
    if (!get_u64(r, obj, "initialValuesOffsetInBytes", p, UINT64_MAX, &has_offset, &res->offset)) return false;
    if (res->offset > res->size || res->initial_bytes > res->size - res->offset)
        return fail(r, p, "the buffer size (%" PRIu64 " bytes) is too small for the initialValues (%" PRIu64
                          " bytes) at offset %" PRIu64 " bytes",
                    res->size, res->initial_bytes, res->offset);
    /* Checked before anything is allocated: a model names sizes, the
     * machine's memory pays for them. */
    if (res->initial_bytes > MODEL_MAX_INITIAL_BYTES - r->initial_total)
        return fail(r, p, "its initial values take %" PRIu64 " bytes, more than the %" PRIu64 " left of the %" PRIu64
                          " bytes a model's initial values may hold together",
                    res->initial_bytes, MODEL_MAX_INITIAL_BYTES - r->initial_total, (uint64_t)MODEL_MAX_INITIAL_BYTES);
    if (res->size > MODEL_MAX_RESOURCE_BYTES - r->size_total)
        return fail(r, p, "its %" PRIu64 " bytes are more than the %" PRIu64 " left of the %" PRIu64
                          " bytes a model's resources may hold together",
                    res->size, MODEL_MAX_RESOURCE_BYTES - r->size_total, (uint64_t)MODEL_MAX_RESOURCE_BYTES);
    r->initial_total += res->initial_bytes;
    r->size_total += res->size;
    return true;
}

static int find_resource(const model *m, const char *name) {
    for (size_t i = 0; i < m->resource_count; i++)
        if (strcmp(m->resources[i].name, name) == 0) return (int)i;
    return -1;
}

/* ------------------------------------------------------------ dispatchables */

static bool parse_prefixed(const char *text, const char *prefix, const char *const *names, int *index) {
    const size_t n = strlen(prefix);
    if (strncmp(text, prefix, n) == 0) text += n;
    for (int i = 0; names[i]; i++) {
        if (strcmp(text, names[i]) == 0) {
            *index = i;
            return true;
        }
    }
    return false;
}

static bool read_flags(reader *r, const json_t *v, const char *p, DML_TENSOR_FLAGS *flags) {
    static const char *const names[] = {"NONE", "OWNED_BY_DML", NULL};
    *flags = DML_TENSOR_FLAG_NONE;
    const size_t n = json_is_array(v) ? json_array_size(v) : 1;
    if (!json_is_array(v) && !json_is_string(v))
        return fail(r, p, "expected a flag name or an array of them, got %s", kind_of(v));
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
        char q[PATH_CAP];
        if (json_is_array(v)) child_index(q, p, i);
        else snprintf(q, sizeof q, "%s", p);
        int k;
        if (!json_is_string(e) || !parse_prefixed(json_string_value(e), "DML_TENSOR_FLAG_", names, &k))
            return fail(r, q, "expected DML_TENSOR_FLAG_NONE or DML_TENSOR_FLAG_OWNED_BY_DML (or NONE, OWNED_BY_DML)");
        if (k == 1) *flags = (DML_TENSOR_FLAGS)(*flags | DML_TENSOR_FLAG_OWNED_BY_DML);
    }
    return true;
}

/* A DML_TENSOR_DESC, with DxDispatch's defaults: Type BUFFER, Flags NONE,
 * DimensionCount from Sizes, Strides NULL, TotalTensorSizeInBytes from
 * DirectML's size helper, GuaranteedBaseOffsetAlignment 0. */
static bool read_tensor(reader *r, model_dispatchable *d, int k, const json_t *v, const char *p) {
    static const char *const outer_keys[] = {"Type", "Desc", NULL};
    static const char *const keys[] = {"Type", "DataType", "Flags", "DimensionCount", "Sizes", "Strides",
                                       "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment", NULL};
    static const char *const type_names[] = {"INVALID", "BUFFER", NULL};
    if (!get_object(r, v, p)) return false;
    DML_TENSOR_DESC *t = &d->tensors[k];
    DML_BUFFER_TENSOR_DESC *b = &d->buffers[k];
    t->Type = DML_TENSOR_TYPE_BUFFER;
    t->Desc = b;
    char q[PATH_CAP], bp[PATH_CAP];
    const json_t *type = json_object_get(v, "Type");
    if (type) {
        child_key(q, p, "Type");
        int idx;
        if (!json_is_string(type) || !parse_prefixed(json_string_value(type), "DML_TENSOR_TYPE_", type_names, &idx))
            return fail(r, q, "expected DML_TENSOR_TYPE_BUFFER (or BUFFER)");
        t->Type = (DML_TENSOR_TYPE)idx;
    }
    const json_t *body = v;
    snprintf(bp, sizeof bp, "%s", p);
    if (json_object_get(v, "Desc")) {
        if (!only_keys(r, v, p, outer_keys)) return false;
        body = json_object_get(v, "Desc");
        child_key(bp, p, "Desc");
        if (!get_object(r, body, bp)) return false;
    }
    if (!only_keys(r, body, bp, keys + (body == v ? 0 : 1))) return false;
    const json_t *dt = json_object_get(body, "DataType"), *sizes = json_object_get(body, "Sizes"),
                 *strides = json_object_get(body, "Strides"), *flags = json_object_get(body, "Flags");
    child_key(q, bp, "DataType");
    if (!dt) return fail(r, q, "required field missing");
    if (!get_dtype(r, dt, q, &b->DataType)) return false;
    if (flags) {
        child_key(q, bp, "Flags");
        if (!read_flags(r, flags, q, &b->Flags)) return false;
    }
    child_key(q, bp, "Sizes");
    if (!sizes) return fail(r, q, "required field missing");
    size_t n_sizes, n_strides = 0;
    if (!get_int_array(r, sizes, q, false, &d->arrays[2 * k], &n_sizes)) return false;
    b->Sizes = d->arrays[2 * k];
    if (strides) {
        child_key(q, bp, "Strides");
        if (!get_int_array(r, strides, q, false, &d->arrays[2 * k + 1], &n_strides)) return false;
        b->Strides = d->arrays[2 * k + 1];
    }
    bool present;
    uint64_t x = n_sizes;
    if (!get_u64(r, body, "DimensionCount", bp, UINT32_MAX, &present, &x)) return false;
    b->DimensionCount = (UINT)x;
    child_key(q, bp, "DimensionCount");
    if (present && x != n_sizes)
        return fail(r, q, "%" PRIu64 ", but Sizes has %zu values (DirectML would read past the array)", x, n_sizes);
    if (strides && n_strides != 0 && n_strides != n_sizes) {
        child_key(q, bp, "Strides");
        return fail(r, q, "has %zu values but Sizes has %zu", n_strides, n_sizes);
    }
    x = 0;
    if (!get_u64(r, body, "TotalTensorSizeInBytes", bp, UINT64_MAX, &present, &x)) return false;
    b->TotalTensorSizeInBytes = x;
    if (!present || x == 0) {
        /* Sizes of 0, unknown types and overflow leave 0, which the
         * library's own rules then report (R-T-SIZES, R-T-DTYPE, R-T-TOTAL). */
        uint64_t bytes = 0;
        if (b->Sizes && dmls_calc_buffer_tensor_size(b->DataType, b->DimensionCount, b->Sizes, b->Strides, &bytes) ==
                            DMLS_OK)
            b->TotalTensorSizeInBytes = bytes;
    }
    x = 0;
    if (!get_u64(r, body, "GuaranteedBaseOffsetAlignment", bp, UINT32_MAX, &present, &x)) return false;
    b->GuaranteedBaseOffsetAlignment = (UINT)x;
    return true;
}

typedef struct op_shape {
    const char *name;              /* the abbreviated enum value */
    DML_OPERATOR_TYPE type;
    const char *tensors[2];
    const char *arrays[3];
    bool signed_strides;
} op_shape;

static const op_shape op_shapes[] = {
    {"SLICE", DML_OPERATOR_SLICE, {"InputTensor", "OutputTensor"}, {"Offsets", "Sizes", "Strides"}, false},
    {"SLICE1", DML_OPERATOR_SLICE1, {"InputTensor", "OutputTensor"},
     {"InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"}, true},
    {"SLICE_GRAD", DML_OPERATOR_SLICE_GRAD, {"InputGradientTensor", "OutputGradientTensor"},
     {"InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"}, true},
};

static const char slice_only[] = "dmlslice runs slice operators only (DML_OPERATOR_SLICE, DML_OPERATOR_SLICE1, "
                                 "DML_OPERATOR_SLICE_GRAD)";

static bool read_op_type(reader *r, const char *type, const char *p, const op_shape **shape) {
    static const char prefix[] = "DML_OPERATOR_";
    const char *suffix = strncmp(type, prefix, sizeof prefix - 1) == 0 ? type + sizeof prefix - 1 : type;
    for (size_t i = 0; i < sizeof op_shapes / sizeof op_shapes[0]; i++) {
        if (strcmp(suffix, op_shapes[i].name) == 0) {
            *shape = &op_shapes[i];
            return true;
        }
    }
    if (ascii_equal_nocase(type, "hlsl")) return fail(r, p, "an HLSL compute shader: %s", slice_only);
    if (ascii_equal_nocase(type, "onnx")) return fail(r, p, "an ONNX model: %s", slice_only);
    if (ascii_equal_nocase(type, "dmlSerializedGraph")) return fail(r, p, "a serialized DirectML graph: %s", slice_only);
    bool enum_like = suffix[0] != '\0';
    for (const char *c = suffix; *c; c++) enum_like = enum_like && (isupper((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_');
    if (enum_like) return fail(r, p, "DML_OPERATOR_%.80s is not a slice operator: %s", suffix, slice_only);
    return fail(r, p, "unknown dispatchable type \"%.80s\": %s", type, slice_only);
}

static bool read_dispatchable(reader *r, model_dispatchable *d, const char *name, const json_t *obj, const char *p) {
    static const char *const keys[] = {"type", "Type", "desc", "Desc", "executionFlags", "dmlCompileType",
                                       "bindings", NULL};
    static const char *const exec_flags[] = {"NONE", "ALLOW_HALF_PRECISION_COMPUTATION", "DISABLE_META_COMMANDS",
                                             "DESCRIPTORS_VOLATILE", NULL};
    d->name = copy_text(name);
    if (!d->name) return fail(r, p, "out of memory");
    if (!get_object(r, obj, p)) return false;
    const char *type;
    const char *type_key = json_object_get(obj, "type") ? "type" : "Type";
    char q[PATH_CAP];
    if (!get_string(r, obj, type_key, p, true, &type)) return false;
    child_key(q, p, type_key);
    const op_shape *shape = NULL;
    if (!read_op_type(r, type, q, &shape)) return false;
    if (!only_keys(r, obj, p, keys)) return false;
    const json_t *flags = json_object_get(obj, "executionFlags");
    if (flags) {
        child_key(q, p, "executionFlags");
        const size_t n = json_is_array(flags) ? json_array_size(flags) : 1;
        for (size_t i = 0; i < n; i++) {
            const json_t *e = json_is_array(flags) ? json_array_get(flags, i) : flags;
            int k;
            if (!json_is_string(e) || !parse_prefixed(json_string_value(e), "DML_EXECUTION_FLAG_", exec_flags, &k))
                return fail(r, q, "expected DML_EXECUTION_FLAG_ names (NONE, ALLOW_HALF_PRECISION_COMPUTATION, "
                                  "DISABLE_META_COMMANDS, DESCRIPTORS_VOLATILE)");
        }
    }
    const char *compile = NULL;
    if (!get_string(r, obj, "dmlCompileType", p, false, &compile)) return false;
    if (compile && strcmp(compile, "DmlCompileOp") != 0 && strcmp(compile, "DmlCompileGraph") != 0) {
        child_key(q, p, "dmlCompileType");
        return fail(r, q, "expected DmlCompileOp or DmlCompileGraph");
    }
    if (json_object_get(obj, "bindings")) {
        child_key(q, p, "bindings");
        return fail(r, q, "initialization bindings (for OWNED_BY_DML inputs) are not supported: dmlslice has no "
                          "initialization step; bind the tensor in the dispatch command");
    }
    const char *desc_key = json_object_get(obj, "desc") ? "desc" : "Desc";
    const json_t *desc = json_object_get(obj, desc_key);
    child_key(q, p, desc_key);
    if (!desc) return fail(r, q, "required field missing (the %s_OPERATOR_DESC)", shape->name);
    if (!get_object(r, desc, q)) return false;
    const char *desc_keys[] = {shape->tensors[0], shape->tensors[1], "DimensionCount", shape->arrays[0],
                               shape->arrays[1], shape->arrays[2], NULL};
    if (!only_keys(r, desc, q, desc_keys)) return false;
    d->type_name = shape->type == DML_OPERATOR_SLICE    ? "DML_OPERATOR_SLICE"
                   : shape->type == DML_OPERATOR_SLICE1 ? "DML_OPERATOR_SLICE1"
                                                        : "DML_OPERATOR_SLICE_GRAD";
    for (int k = 0; k < 2; k++) {
        char tq[PATH_CAP];
        child_key(tq, q, shape->tensors[k]);
        const json_t *t = json_object_get(desc, shape->tensors[k]);
        if (!t) return fail(r, tq, "required field missing");
        if (!read_tensor(r, d, k, t, tq)) return false;
        d->tensor_names[k] = shape->tensors[k];
    }
    bool present;
    uint64_t dims = 0;
    if (!get_u64(r, desc, "DimensionCount", q, UINT32_MAX, &present, &dims)) return false;
    char aq[PATH_CAP];
    child_key(aq, q, "DimensionCount");
    if (!present)
        return fail(r, aq, "required field missing (DxDispatch requires an operator's DimensionCount; only a "
                           "tensor's defaults to the length of its Sizes)");
    for (int k = 0; k < 3; k++) {
        child_key(aq, q, shape->arrays[k]);
        const json_t *a = json_object_get(desc, shape->arrays[k]);
        if (!a) return fail(r, aq, "required field missing");
        size_t n;
        if (!get_int_array(r, a, aq, k == 2 && shape->signed_strides, &d->arrays[4 + k], &n)) return false;
        if (n != dims)
            return fail(r, aq, "has %zu values but DimensionCount is %" PRIu64 " (DirectML reads DimensionCount)", n,
                        dims);
    }
    const UINT n = (UINT)dims;
    const INT *signed_strides = (const INT *)d->arrays[6];
    switch (shape->type) {
    case DML_OPERATOR_SLICE:
        d->desc.slice = (DML_SLICE_OPERATOR_DESC){&d->tensors[0], &d->tensors[1], n, d->arrays[4], d->arrays[5],
                                                  d->arrays[6]};
        break;
    case DML_OPERATOR_SLICE1:
        d->desc.slice1 = (DML_SLICE1_OPERATOR_DESC){&d->tensors[0], &d->tensors[1], n, d->arrays[4], d->arrays[5],
                                                    signed_strides};
        break;
    default:
        d->desc.grad = (DML_SLICE_GRAD_OPERATOR_DESC){&d->tensors[0], &d->tensors[1], n, d->arrays[4], d->arrays[5],
                                                      signed_strides};
        break;
    }
    d->op.Type = shape->type;
    d->op.Desc = &d->desc;
    return true;
}

static int find_dispatchable(const model *m, const char *name) {
    for (size_t i = 0; i < m->dispatchable_count; i++)
        if (strcmp(m->dispatchables[i].name, name) == 0) return (int)i;
    return -1;
}

/* ------------------------------------------------------------ commands */

static bool read_binding_source(reader *r, const json_t *v, const char *p, model_binding *b) {
    static const char *const keys[] = {"name", "elementOffset", "elementSizeInBytes", "elementCount", "elementStride",
                                       "format", "counter", "counterOffsetBytes", "shape", NULL};
    const char *name;
    char q[PATH_CAP];
    uint64_t element_offset = 0, element_size = 0;
    bool has_size = false, present;
    if (json_is_string(v)) {
        name = json_string_value(v);
        snprintf(q, sizeof q, "%s", p);
    } else if (json_is_object(v)) {
        /* format, elementCount, elementStride, counter and shape shape the
         * views of HLSL and ONNX dispatchables; DirectML operators take only
         * the buffer and its offset, so they are accepted and unused, as in
         * DxDispatch. */
        if (!only_keys(r, v, p, keys) || !get_string(r, v, "name", p, true, &name) ||
            !get_u64(r, v, "elementOffset", p, UINT64_MAX, &present, &element_offset) ||
            !get_u64(r, v, "elementSizeInBytes", p, UINT64_MAX, &has_size, &element_size))
            return false;
        child_key(q, p, "name");
    } else {
        return fail(r, p, "expected a resource name or a binding object, got %s", kind_of(v));
    }
    b->resource = find_resource(r->m, name);
    if (b->resource < 0) return fail(r, q, "binds resource '%.100s', which the model does not define", name);
    /* The offset counts elements of the binding's size, else of the
     * resource's initialValuesDataType (0 for a list: no offset). */
    if (!has_size) element_size = values_dtype_size(r->m->resources[b->resource].dtype);
    if (element_size && element_offset > UINT64_MAX / element_size)
        return fail(r, p, "elementOffset %" PRIu64 " * %" PRIu64 " bytes overflows 64 bits", element_offset,
                    element_size);
    b->offset = element_offset * element_size;
    return true;
}

static bool read_dispatch(reader *r, model_command *c, const json_t *obj, const char *p) {
    static const char *const keys[] = {"type", "dispatchable", "bindings", "threadGroupCount", NULL};
    const char *name;
    if (!only_keys(r, obj, p, keys) || !get_string(r, obj, "dispatchable", p, true, &name)) return false;
    char q[PATH_CAP];
    child_key(q, p, "dispatchable");
    c->dispatchable = find_dispatchable(r->m, name);
    if (c->dispatchable < 0) return fail(r, q, "dispatches '%.100s', which the model does not define", name);
    const model_dispatchable *d = &r->m->dispatchables[c->dispatchable];
    const json_t *bindings = json_object_get(obj, "bindings");
    child_key(q, p, "bindings");
    if (!bindings) return fail(r, q, "required field missing");
    if (!get_object(r, bindings, q)) return false;
    bool bound[2] = {false, false};
    const char *point;
    const json_t *v;
    json_object_foreach((json_t *)bindings, point, v) {
        char bq[PATH_CAP];
        child_key(bq, q, point);
        int k = strcmp(point, d->tensor_names[0]) == 0 ? 0 : strcmp(point, d->tensor_names[1]) == 0 ? 1 : -1;
        if (k < 0)
            return fail(r, bq, "%s has no tensor '%.80s' (its tensors: %s, %s)", d->type_name, point,
                        d->tensor_names[0], d->tensor_names[1]);
        if (json_is_array(v)) {
            if (json_array_size(v) != 1)
                return fail(r, bq, "%s takes 1 resource, but %zu were bound", point, json_array_size(v));
            char first[PATH_CAP];
            child_index(first, bq, 0);
            memcpy(bq, first, sizeof bq);
            v = json_array_get(v, 0);
        }
        if (!read_binding_source(r, v, bq, &c->bindings[k])) return false;
        bound[k] = true;
    }
    for (int k = 0; k < 2; k++)
        if (!bound[k]) return fail(r, q, "nothing bound to %s", d->tensor_names[k]);
    const json_t *groups = json_object_get(obj, "threadGroupCount");
    if (groups) {
        child_key(q, p, "threadGroupCount");
        if (!json_is_array(groups) || json_array_size(groups) != 3)
            return fail(r, q, "expected an array of 3 integers (unused by DirectML operators)");
    }
    return true;
}

static bool read_command(reader *r, model_command *c, const json_t *obj, const char *p) {
    const char *type, *res;
    if (!get_object(r, obj, p) || !get_string(r, obj, "type", p, true, &type)) return false;
    char q[PATH_CAP];
    if (ascii_equal_nocase(type, "dispatch")) {
        c->kind = CMD_DISPATCH;
        return read_dispatch(r, c, obj, p);
    }
    static const char *const print_keys[] = {"type", "resource", "verbose", NULL};
    static const char *const write_keys[] = {"type", "resource", "targetPath", "dimensions", NULL};
    if (ascii_equal_nocase(type, "print")) c->kind = CMD_PRINT;
    else if (ascii_equal_nocase(type, "writeFile")) c->kind = CMD_WRITE_FILE;
    else {
        child_key(q, p, "type");
        return fail(r, q, "unknown command type \"%.60s\" (dispatch, print or writeFile)", type);
    }
    if (!only_keys(r, obj, p, c->kind == CMD_PRINT ? print_keys : write_keys) ||
        !get_string(r, obj, "resource", p, true, &res))
        return false;
    child_key(q, p, "resource");
    c->resource = find_resource(r->m, res);
    if (c->resource < 0)
        return fail(r, q, "%s resource '%.100s', which the model does not define",
                    c->kind == CMD_PRINT ? "prints" : "writes", res);
    if (c->kind == CMD_PRINT) {
        const json_t *verbose = json_object_get(obj, "verbose");
        child_key(q, p, "verbose");
        if (verbose && !json_is_boolean(verbose)) return fail(r, q, "expected true or false");
        c->verbose = json_is_true(verbose);
        return true;
    }
    const char *target;
    if (!get_string(r, obj, "targetPath", p, true, &target)) return false;
    c->target_path = copy_text(target);
    if (!c->target_path) return fail(r, p, "out of memory");
    const json_t *dims = json_object_get(obj, "dimensions");
    if (dims) {
        child_key(q, p, "dimensions");
        size_t n;
        UINT *a;
        if (!get_int_array(r, dims, q, false, &a, &n)) return false;
        c->dimensions = a;
        c->dimension_count = n;
    }
    return true;
}

/* ------------------------------------------------------------ model */

static bool read_root(reader *r, const json_t *root) {
    static const char *const keys[] = {"$schema", "resources", "dispatchables", "commands", NULL};
    model *m = r->m;
    if (!get_object(r, root, "$") || !only_keys(r, root, "$", keys)) return false;
    const json_t *resources = json_object_get(root, "resources"), *dispatchables = json_object_get(root, "dispatchables"),
                 *commands = json_object_get(root, "commands");
    if (!resources) return fail(r, "$.resources", "required field missing");
    if (!get_object(r, resources, "$.resources")) return false;
    if (!dispatchables) return fail(r, "$.dispatchables", "required field missing");
    if (!get_object(r, dispatchables, "$.dispatchables")) return false;
    if (!commands) return fail(r, "$.commands", "required field missing");
    if (!json_is_array(commands)) return fail(r, "$.commands", "expected an array, got %s", kind_of(commands));

    m->resources = calloc(json_object_size(resources) + 1, sizeof *m->resources);
    m->dispatchables = calloc(json_object_size(dispatchables) + 1, sizeof *m->dispatchables);
    m->commands = calloc(json_array_size(commands) + 1, sizeof *m->commands);
    if (!m->resources || !m->dispatchables || !m->commands) return fail(r, "$", "out of memory");
    const char *key;
    const json_t *v;
    char p[PATH_CAP];
    json_object_foreach((json_t *)resources, key, v) {
        child_key(p, "$.resources", key);
        if (!read_resource(r, &m->resources[m->resource_count++], key, v, p)) return false;
    }
    json_object_foreach((json_t *)dispatchables, key, v) {
        child_key(p, "$.dispatchables", key);
        if (!read_dispatchable(r, &m->dispatchables[m->dispatchable_count++], key, v, p)) return false;
    }
    for (size_t i = 0; i < json_array_size(commands); i++) {
        model_command *c = &m->commands[m->command_count++];
        child_index(p, "$.commands", i);
        snprintf(c->where, sizeof c->where, "$.commands[%zu]", i);
        if (!read_command(r, c, json_array_get(commands, i), p)) return false;
    }
    return true;
}

bool model_read(char *text, size_t len, const char *name, const char *base_dir, const model_reach *reach, model *m,
                char *err) {
    memset(m, 0, sizeof *m);
    err[0] = '\0';
    int line, column;
    if (!json_text_relax(text, len, &line, &column)) {
        snprintf(err, MODEL_ERR_LEN, "%s:%d:%d: JSON syntax error: a /* comment is never closed", name, line, column);
        return false;
    }
    json_error_t je;
    /* Duplicate names would make "which resource?" ambiguous; DxDispatch's
     * parser keeps both and looks up one of them. */
    m->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!m->root) {
        snprintf(err, MODEL_ERR_LEN, "%s:%d:%d: JSON syntax error: %s", name, je.line, je.column, je.text);
        return false;
    }
    reader r = {err, name, base_dir, reach, m, 0, 0};
    if (!read_root(&r, m->root)) {
        model_free(m);
        return false;
    }
    return true;
}

void model_free(model *m) {
    for (size_t i = 0; i < m->resource_count; i++) {
        free(m->resources[i].name);
        free(m->resources[i].file_data);
    }
    for (size_t i = 0; i < m->dispatchable_count; i++) {
        free(m->dispatchables[i].name);
        for (int k = 0; k < 7; k++) free(m->dispatchables[i].arrays[k]);
    }
    for (size_t i = 0; i < m->command_count; i++) {
        free(m->commands[i].target_path);
        free(m->commands[i].dimensions);
    }
    free(m->resources);
    free(m->dispatchables);
    free(m->commands);
    if (m->root) json_decref(m->root);
    memset(m, 0, sizeof *m);
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
