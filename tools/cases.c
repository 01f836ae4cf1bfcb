/* A reader for the one JSON shape bench/cases.json has: an array of flat
 * objects whose values are strings, integers or arrays of integers. A general
 * JSON library would be a dependency for forty lines of grammar. */
#include "cases.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    const char *s, *p, *path;
    char *err;
    size_t err_size;
} reader;

static int fail(reader *r, const char *fmt, ...) {
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->err_size, "%s: byte %ld: %s", r->path, (long)(r->p - r->s), msg);
    return -1;
}

static void skip_ws(reader *r) {
    while (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t') r->p++;
}

static int expect(reader *r, char c) {
    skip_ws(r);
    if (*r->p != c) return fail(r, "expected '%c'", c);
    r->p++;
    return 0;
}

/* Strings here are names: no escapes. */
static int read_string(reader *r, char *out, size_t size) {
    if (expect(r, '"')) return -1;
    const char *end = strchr(r->p, '"');
    if (!end || memchr(r->p, '\\', (size_t)(end - r->p))) return fail(r, "unterminated or escaped string");
    if ((size_t)(end - r->p) >= size) return fail(r, "string longer than %zu bytes", size - 1);
    memcpy(out, r->p, (size_t)(end - r->p));
    out[end - r->p] = '\0';
    r->p = end + 1;
    return 0;
}

static int read_int(reader *r, int64_t *v) {
    skip_ws(r);
    char *end;
    errno = 0;
    long long x = strtoll(r->p, &end, 10);
    if (end == r->p) return fail(r, "expected an integer");
    if (errno == ERANGE) return fail(r, "integer out of range");
    r->p = end;
    *v = x;
    return 0;
}

static int read_ints(reader *r, int64_t *v, int32_t *n) {
    if (expect(r, '[')) return -1;
    *n = 0;
    skip_ws(r);
    if (*r->p == ']') return r->p++, 0;
    for (;;) {
        if (*n == DMLS_MAX_RANK) return fail(r, "more than %d values", DMLS_MAX_RANK);
        if (read_int(r, &v[(*n)++])) return -1;
        skip_ws(r);
        if (*r->p == ']') return r->p++, 0;
        if (expect(r, ',')) return -1;
    }
}

static int skip_value(reader *r) {
    skip_ws(r);
    char tmp[256];
    int64_t v[DMLS_MAX_RANK];
    int32_t n;
    if (*r->p == '"') return read_string(r, tmp, sizeof tmp);
    if (*r->p == '[') return read_ints(r, v, &n);
    return read_int(r, v);
}

static int dtype_from_name(const char *name, dmls_dtype *dt) {
    for (int d = 1; d <= 11; d++) {
        const char *n = dmls_dtype_name((dmls_dtype)d);
        if (n && strcmp(n, name) == 0) return *dt = (dmls_dtype)d, 0;
    }
    return -1;
}

static int read_case(reader *r, bench_case *c) {
    memset(c, 0, sizeof *c);
    int32_t ranks[5] = {-1, -1, -1, -1, -1};
    bool have_name = false, have_dtype = false;
    if (expect(r, '{')) return -1;
    for (;;) {
        char key[64], dt[32];
        if (read_string(r, key, sizeof key) || expect(r, ':')) return -1;
        int k = strcmp(key, "input_shape") == 0      ? 0
                : strcmp(key, "window_offsets") == 0 ? 1
                : strcmp(key, "window_sizes") == 0   ? 2
                : strcmp(key, "window_strides") == 0 ? 3
                : strcmp(key, "output_sizes") == 0   ? 4
                                                     : -1;
        int64_t *dst[5] = {c->input_shape, c->window_offsets, c->window_sizes, c->window_strides, c->output_sizes};
        if (k >= 0) {
            if (read_ints(r, dst[k], &ranks[k])) return -1;
        } else if (strcmp(key, "name") == 0) {
            if (read_string(r, c->name, sizeof c->name)) return -1;
            have_name = true;
        } else if (strcmp(key, "dtype") == 0) {
            if (read_string(r, dt, sizeof dt)) return -1;
            if (dtype_from_name(dt, &c->dtype)) return fail(r, "unknown dtype '%s'", dt);
            have_dtype = true;
        } else if (skip_value(r)) {
            return -1;
        }
        skip_ws(r);
        if (*r->p == '}') break;
        if (expect(r, ',')) return -1;
    }
    r->p++;
    if (!have_name || !have_dtype) return fail(r, "a case lacks its name or dtype");
    for (int k = 0; k < 5; k++)
        if (ranks[k] != ranks[0] || ranks[k] < 0)
            return fail(r, "case '%s': the five shape lists must all be present and of one length", c->name);
    c->ndim = ranks[0];
    return 0;
}

int bench_read_cases(const char *path, bench_case **cases, int *count, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 16384;
            char *t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(f);
                snprintf(err, err_size, "%s: out of memory", path);
                return -1;
            }
            text = t;
        }
        size_t got = fread(text + len, 1, 4096, f);
        len += got;
        if (got < 4096) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(text);
        snprintf(err, err_size, "%s: read error", path);
        return -1;
    }
    text[len] = '\0';

    reader r = {text, text, path, err, err_size};
    bench_case *list = NULL;
    int n = 0, rc = -1;
    if (expect(&r, '[')) goto done;
    skip_ws(&r);
    while (*r.p != ']') {
        bench_case *grown = realloc(list, (size_t)(n + 1) * sizeof *list);
        if (!grown) {
            fail(&r, "out of memory");
            goto done;
        }
        list = grown;
        if (read_case(&r, &list[n])) goto done;
        n++;
        skip_ws(&r);
        if (*r.p == ',') r.p++;
        else if (*r.p != ']') {
            fail(&r, "expected ',' or ']'");
            goto done;
        }
        skip_ws(&r);
    }
    rc = 0;
    *cases = list;
    *count = n;
    list = NULL;
done:
    free(list);
    free(text);
    return rc;
}

dmls_status bench_create(const bench_case *c, dmls_operator **op) {
    dmls_tensor in = {c->dtype, c->ndim, c->input_shape, NULL, 0};
    dmls_tensor out = {c->dtype, c->ndim, c->output_sizes, NULL, 0};
    dmls_window w = {c->window_offsets, c->window_sizes, c->window_strides};
    return dmls_create(&in, &out, &w, op);
}
