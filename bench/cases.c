/* A reader for bench/cases.json and nothing more general: keys are strings,
 * values are strings or arrays of non-negative or negative integers. */
#include "cases.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    const char *p;
    char *err;
    size_t err_size;
} cursor;

static void skip_space(cursor *c) {
    while (isspace((unsigned char)*c->p)) c->p++;
}

static int expect(cursor *c, char ch) {
    skip_space(c);
    if (*c->p != ch) {
        snprintf(c->err, c->err_size, "expected '%c' near \"%.20s\"", ch, c->p);
        return -1;
    }
    c->p++;
    return 0;
}

static int read_string(cursor *c, char *out, size_t size) {
    if (expect(c, '"')) return -1;
    size_t n = 0;
    while (*c->p && *c->p != '"') {
        if (n + 1 < size) out[n++] = *c->p;
        c->p++;
    }
    out[n] = '\0';
    return expect(c, '"');
}

static int read_ints(cursor *c, int64_t *out, int32_t *count) {
    if (expect(c, '[')) return -1;
    int n = 0;
    skip_space(c);
    while (*c->p != ']') {
        if (n == DMLS_MAX_RANK) {
            snprintf(c->err, c->err_size, "more than %d values in an array", DMLS_MAX_RANK);
            return -1;
        }
        char *end;
        long long v = strtoll(c->p, &end, 10);
        if (end == c->p) {
            snprintf(c->err, c->err_size, "expected an integer near \"%.20s\"", c->p);
            return -1;
        }
        out[n++] = v;
        c->p = end;
        skip_space(c);
        if (*c->p == ',') c->p++;
        skip_space(c);
    }
    c->p++;
    *count = n;
    return 0;
}

static dmls_dtype dtype_from(const char *s) {
    static const dmls_dtype all[] = {DMLS_FLOAT32, DMLS_FLOAT16, DMLS_UINT32, DMLS_UINT16, DMLS_UINT8, DMLS_INT32,
                                     DMLS_INT16,   DMLS_INT8,    DMLS_FLOAT64, DMLS_UINT64, DMLS_INT64};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(dmls_dtype_name(all[i]), s) == 0) return all[i];
    return (dmls_dtype)0;
}

static int read_case(cursor *c, dmls_bench_case *k) {
    memset(k, 0, sizeof *k);
    if (expect(c, '{')) return -1;
    for (;;) {
        char key[64], text[64];
        int32_t n = 0;
        if (read_string(c, key, sizeof key) || expect(c, ':')) return -1;
        skip_space(c);
        if (strcmp(key, "name") == 0) {
            if (read_string(c, k->name, sizeof k->name)) return -1;
        } else if (strcmp(key, "dtype") == 0) {
            if (read_string(c, text, sizeof text)) return -1;
            k->dtype = dtype_from(text);
            if (k->dtype == 0) {
                snprintf(c->err, c->err_size, "unknown dtype \"%s\"", text);
                return -1;
            }
        } else {
            int64_t *dst = strcmp(key, "input_shape") == 0      ? k->input_shape
                           : strcmp(key, "window_offsets") == 0 ? k->window_offsets
                           : strcmp(key, "window_sizes") == 0   ? k->window_sizes
                           : strcmp(key, "window_strides") == 0 ? k->window_strides
                           : strcmp(key, "output_sizes") == 0   ? k->output_sizes
                                                                : NULL;
            if (dst == NULL) {
                snprintf(c->err, c->err_size, "unknown key \"%s\"", key);
                return -1;
            }
            if (read_ints(c, dst, &n)) return -1;
            if (k->ndim != 0 && n != k->ndim) {
                snprintf(c->err, c->err_size, "case %s: \"%s\" has %d values, expected %d", k->name, key, (int)n,
                         (int)k->ndim);
                return -1;
            }
            k->ndim = n;
        }
        skip_space(c);
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        return expect(c, '}');
    }
}

int dmls_bench_read_cases(const char *path, dmls_bench_case *cases, int max, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, err_size, "cannot open %s", path);
        return -1;
    }
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    cursor c = {text, err, err_size};
    int n = 0;
    if (expect(&c, '[')) return -1;
    skip_space(&c);
    while (*c.p != ']') {
        if (n == max) {
            snprintf(err, err_size, "more than %d cases", max);
            return -1;
        }
        if (read_case(&c, &cases[n])) return -1;
        n++;
        skip_space(&c);
        if (*c.p == ',') c.p++;
        skip_space(&c);
    }
    return n;
}

dmls_status dmls_bench_create(const dmls_bench_case *c, dmls_operator **op) {
    dmls_tensor in = {c->dtype, c->ndim, c->input_shape, NULL, 0};
    dmls_tensor out = {c->dtype, c->ndim, c->output_sizes, NULL, 0};
    dmls_window w = {c->window_offsets, c->window_sizes, c->window_strides};
    return dmls_create(&in, &out, &w, op);
}
