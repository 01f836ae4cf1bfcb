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

/* Checks that perm (perm_rank values) orders the n axes, each once. */
static int check_perm(reader *r, const char *name, const int64_t *perm, int32_t perm_rank, int32_t n) {
    bool seen[DMLS_MAX_RANK] = {false};
    bool ok = perm_rank == n;
    for (int32_t i = 0; ok && i < n; i++) {
        ok = perm[i] >= 0 && perm[i] < n && !seen[perm[i]];
        if (ok) seen[perm[i]] = true;
    }
    if (ok) return 0;
    char text[8 * 24] = "", *t = text;
    for (int32_t i = 0; i < perm_rank; i++)
        t += snprintf(t, sizeof text - (size_t)(t - text), "%s%lld", i ? ", " : "", (long long)perm[i]);
    return fail(r, "case '%s': perm [%s] is not a permutation of its %d axes", name, text, n);
}

/* The lists' ranks agree; a case with a perm and no window lists gets the
 * whole permuted array as its window and output. */
static int finish_case(reader *r, bench_case *c, const int32_t ranks[5], const int64_t *perm, int32_t perm_rank) {
    const int32_t n = ranks[0];
    bool no_window = true;
    for (int k = 1; k < 5; k++) no_window = no_window && ranks[k] < 0;
    if (n < 0) return fail(r, "case '%s': no input_shape", c->name);
    if (perm_rank >= 0 && check_perm(r, c->name, perm, perm_rank, n)) return -1;
    if (!(perm_rank >= 0 && no_window))
        for (int k = 0; k < 5; k++)
            if (ranks[k] != n)
                return fail(r, "case '%s': the five shape lists must all be present and of one length", c->name);
    c->ndim = n;
    c->has_perm = perm_rank >= 0;
    for (int32_t i = 0; i < n; i++) {
        c->perm[i] = c->has_perm ? (int32_t)perm[i] : i;
        if (!no_window) continue;
        c->window_sizes[i] = c->output_sizes[i] = c->input_shape[c->perm[i]];
        c->window_offsets[i] = 0;
        c->window_strides[i] = 1;
    }
    return 0;
}

static int read_case(reader *r, bench_case *c) {
    memset(c, 0, sizeof *c);
    int32_t ranks[5] = {-1, -1, -1, -1, -1}, perm_rank = -1;
    int64_t perm[DMLS_MAX_RANK];
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
        } else if (strcmp(key, "perm") == 0) {
            if (read_ints(r, perm, &perm_rank)) return -1;
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
    return finish_case(r, c, ranks, perm, perm_rank);
}

int bench_parse_cases(const char *text, const char *origin, bench_case **cases, int *count, char *err,
                      size_t err_size) {
    reader r = {text, text, origin, err, err_size};
    bench_case *list = NULL;
    int n = 0;
    if (expect(&r, '[')) goto fail;
    skip_ws(&r);
    while (*r.p != ']') {
        bench_case *grown = realloc(list, (size_t)(n + 1) * sizeof *list);
        if (!grown) {
            fail(&r, "out of memory");
            goto fail;
        }
        list = grown;
        if (read_case(&r, &list[n])) goto fail;
        n++;
        skip_ws(&r);
        if (*r.p == ',') r.p++;
        else if (*r.p != ']') {
            fail(&r, "expected ',' or ']'");
            goto fail;
        }
        skip_ws(&r);
    }
    r.p++;
    skip_ws(&r);
    if (*r.p != '\0') {
        fail(&r, "text after the list of cases");
        goto fail;
    }
    if (n == 0) {
        fail(&r, "no cases");
        goto fail;
    }
    *cases = list;
    *count = n;
    return 0;
fail:
    free(list);
    return -1;
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
            char *t = cap <= (1u << 26) ? realloc(text, cap) : NULL; /* a case list is kilobytes */
            if (!t) {
                free(text);
                fclose(f);
                snprintf(err, err_size, "%s: too large or out of memory", path);
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
    if (strlen(text) != len) {
        free(text);
        snprintf(err, err_size, "%s: a NUL byte in the text", path);
        return -1;
    }
    const int rc = bench_parse_cases(text, path, cases, count, err, err_size);
    free(text);
    return rc;
}

uint64_t bench_case_bytes(const bench_case *c, uint64_t *in_bytes, uint64_t *out_bytes) {
    dmls_operator *op = NULL;
    *in_bytes = *out_bytes = 0;
    if (bench_create(c, &op) != DMLS_OK) return 0;
    *in_bytes = dmls_input_bytes(op);
    *out_bytes = dmls_output_bytes(op);
    dmls_destroy(op);
    return *in_bytes + 2 * *out_bytes;
}

void bench_case_shrink(bench_case *c, uint64_t max_input_bytes) {
    for (;;) {
        uint64_t elems = (uint64_t)dmls_dtype_size(c->dtype);
        int widest = 0;
        for (int i = 0; i < c->ndim; i++) {
            elems *= (uint64_t)c->input_shape[i];
            if (c->input_shape[i] > c->input_shape[widest]) widest = i;
        }
        if (elems <= max_input_bytes || c->ndim == 0 || c->input_shape[widest] < 2) return;
        /* Halve the widest axis; the window (on the view's axis that shows
         * it) keeps its place and stride and the output keeps every element
         * the window holds, as in the canonical cases. */
        int i = 0;
        while (c->perm[i] != widest) i++;
        c->input_shape[widest] = (c->input_shape[widest] + 1) / 2;
        const int64_t dim = c->input_shape[widest], stride = c->window_strides[i];
        int64_t off = c->window_offsets[i] / 2, size = (c->window_sizes[i] + 1) / 2;
        if (off >= dim) off = dim - 1;
        if (size > dim - off) size = dim - off;
        if (size < 1) size = 1;
        c->window_offsets[i] = off;
        c->window_sizes[i] = size;
        c->output_sizes[i] = 1 + (size - 1) / (stride < 0 ? -stride : stride);
    }
}

dmls_status bench_create(const bench_case *c, dmls_operator **op) {
    int64_t packed[DMLS_MAX_RANK], shape[DMLS_MAX_RANK], strides[DMLS_MAX_RANK], step = 1;
    for (int i = c->ndim - 1; i >= 0; i--) {
        packed[i] = step;
        /* Saturated, not wrapped: dmls_create rejects a view that large. */
        const int64_t d = c->input_shape[i] > 0 ? c->input_shape[i] : 1;
        step = step > INT64_MAX / d ? INT64_MAX : step * d;
    }
    for (int i = 0; i < c->ndim; i++) {
        shape[i] = c->input_shape[c->perm[i]];
        strides[i] = packed[c->perm[i]];
    }
    dmls_tensor in = {c->dtype, c->ndim, shape, strides, 0};
    dmls_tensor out = {c->dtype, c->ndim, c->output_sizes, NULL, 0};
    dmls_window w = {c->window_offsets, c->window_sizes, c->window_strides};
    return dmls_create(&in, &out, &w, op);
}
