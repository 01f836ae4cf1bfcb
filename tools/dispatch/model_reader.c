/* See model_reader.h. */
#include "model_reader.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "values.h"

bool reader_fail(reader *r, const char *path, const char *fmt, ...) {
    const int head = snprintf(r->err, MODEL_ERR_LEN, "%.300s: %.400s: ", r->name, path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + head, MODEL_ERR_LEN - (size_t)head, fmt, ap);
    va_end(ap);
    return false;
}

char *text_copy(const char *s) {
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

void path_key(char *dst, const char *parent, const char *key) {
    if (is_identifier(key)) snprintf(dst, PATH_CAP, "%.280s.%.200s", parent, key);
    else snprintf(dst, PATH_CAP, "%.280s[\"%.200s\"]", parent, key);
}

void path_index(char *dst, const char *parent, size_t i) { snprintf(dst, PATH_CAP, "%.480s[%zu]", parent, i); }

const char *json_kind(const json_t *v) {
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
bool reader_only_keys(reader *r, const json_t *obj, const char *path, const char *const *keys) {
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
        path_key(p, path, key);
        return reader_fail(r, p, "unknown field (expected one of: %s)", list);
    }
    return true;
}

bool reader_get_object(reader *r, const json_t *v, const char *path) {
    return json_is_object(v) || reader_fail(r, path, "expected an object, got %s", json_kind(v));
}

bool reader_get_string(reader *r, const json_t *obj, const char *key, const char *path, bool required,
                       const char **out) {
    const json_t *v = json_object_get(obj, key);
    char p[PATH_CAP];
    path_key(p, path, key);
    if (!v) {
        *out = NULL;
        return !required || reader_fail(r, p, "required field missing");
    }
    if (!json_is_string(v)) return reader_fail(r, p, "expected a string, got %s", json_kind(v));
    *out = json_string_value(v);
    return true;
}

bool reader_as_u64(reader *r, const json_t *v, const char *p, uint64_t max, uint64_t *out) {
    if (!json_is_integer(v))
        return reader_fail(r, p, "expected an unsigned integer, got %s", json_kind(v));
    const json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x > max)
        return reader_fail(r, p, "%lld is outside 0 to %" PRIu64, (long long)x, max);
    *out = (uint64_t)x;
    return true;
}

bool reader_get_u64(reader *r, const json_t *obj, const char *key, const char *path, uint64_t max, bool *present,
                    uint64_t *out) {
    const json_t *v = json_object_get(obj, key);
    *present = v != NULL;
    if (!v) return true;
    char p[PATH_CAP];
    path_key(p, path, key);
    return reader_as_u64(r, v, p, max, out);
}

/* An array of UINT (is_signed false) or INT values; *out is NULL for an
 * empty array. */
bool reader_get_int_array(reader *r, const json_t *v, const char *p, bool is_signed, UINT **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!json_is_array(v)) return reader_fail(r, p, "expected an array of integers, got %s", json_kind(v));
    const size_t count = json_array_size(v);
    if (count == 0) return true;
    UINT *a = calloc(count, sizeof(UINT));
    if (!a) return reader_fail(r, p, "out of memory");
    for (size_t i = 0; i < count; i++) {
        const json_t *e = json_array_get(v, i);
        char q[PATH_CAP];
        path_index(q, p, i);
        if (!json_is_integer(e)) {
            free(a);
            return reader_fail(r, q, "expected %s integer, got %s", is_signed ? "a 32-bit signed" : "an unsigned 32-bit",
                        json_kind(e));
        }
        const json_int_t x = json_integer_value(e);
        if (is_signed ? x < INT32_MIN || x > INT32_MAX : x < 0 || x > (json_int_t)UINT32_MAX) {
            free(a);
            return reader_fail(r, q, "%lld does not fit DirectML's %s", (long long)x,
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

bool reader_get_dtype(reader *r, const json_t *v, const char *p, DML_TENSOR_DATA_TYPE *type) {
    if (!json_is_string(v)) return reader_fail(r, p, "expected a data type name such as \"FLOAT32\", got %s", json_kind(v));
    if (!values_parse_dtype(json_string_value(v), type))
        return reader_fail(r, p, "unknown data type \"%.80s\" (FLOAT32, FLOAT16, FLOAT64, UINT8 ... INT64, UNKNOWN, "
                          "with or without the DML_TENSOR_DATA_TYPE_ prefix)",
                    json_string_value(v));
    return true;
}
