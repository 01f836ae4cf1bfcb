/* ONNX's own Slice node tests (shared/conformance/onnx_node_tests.json) run
 * through dmls_lower_onnx + dmls_create + dmls_execute and compared bit for
 * bit with the expected values, and with the reference executor. The JSON
 * path is the first argument; when the file is absent the test exits 77,
 * which CTest reports as skipped. */
#include <errno.h>
#include <math.h>

#include "fe_util.h"

/* ---- a small JSON reader: enough for this file (objects, arrays, numbers,
 * strings without escapes beyond \" and \\, true/false/null). */
typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jkind;
typedef struct jval {
    jkind kind;
    double num;
    char *str;
    struct jval *items; /* J_ARR values, J_OBJ values */
    char **keys;        /* J_OBJ */
    size_t n;
} jval;

typedef struct { const char *p; int bad; } jin;

static void jws(jin *in) {
    while (*in->p == ' ' || *in->p == '\n' || *in->p == '\r' || *in->p == '\t') in->p++;
}

static char *jstring(jin *in) {
    if (*in->p != '"') { in->bad = 1; return NULL; }
    const char *s = ++in->p;
    size_t n = 0;
    while (*in->p && *in->p != '"') { if (*in->p == '\\' && in->p[1]) in->p++; in->p++; n++; }
    if (*in->p != '"') { in->bad = 1; return NULL; }
    char *out = malloc(n + 1), *o = out;
    for (; s < in->p; s++) { if (*s == '\\') s++; *o++ = *s; }
    *o = '\0';
    in->p++;
    return out;
}

static void jparse(jin *in, jval *v) {
    memset(v, 0, sizeof *v);
    jws(in);
    if (in->bad) return;
    if (*in->p == '{' || *in->p == '[') {
        const int obj = *in->p == '{';
        const char close = obj ? '}' : ']';
        v->kind = obj ? J_OBJ : J_ARR;
        in->p++;
        size_t cap = 0;
        jws(in);
        if (*in->p == close) { in->p++; return; }
        for (;;) {
            if (v->n == cap) {
                cap = cap ? cap * 2 : 8;
                v->items = realloc(v->items, cap * sizeof *v->items);
                if (obj) v->keys = realloc(v->keys, cap * sizeof *v->keys);
            }
            jws(in);
            if (obj) {
                v->keys[v->n] = jstring(in);
                jws(in);
                if (in->bad || *in->p != ':') { in->bad = 1; return; }
                in->p++;
            }
            jparse(in, &v->items[v->n++]);
            if (in->bad) return;
            jws(in);
            if (*in->p == ',') { in->p++; continue; }
            if (*in->p == close) { in->p++; return; }
            in->bad = 1;
            return;
        }
    } else if (*in->p == '"') {
        v->kind = J_STR;
        v->str = jstring(in);
    } else if (strncmp(in->p, "null", 4) == 0) {
        in->p += 4;
    } else if (strncmp(in->p, "true", 4) == 0 || strncmp(in->p, "false", 5) == 0) {
        v->kind = J_BOOL;
        v->num = *in->p == 't';
        in->p += *in->p == 't' ? 4 : 5;
    } else {
        char *end;
        errno = 0;
        v->kind = J_NUM;
        v->num = strtod(in->p, &end);
        if (end == in->p || errno) in->bad = 1;
        in->p = end;
    }
}

static const jval *jget(const jval *o, const char *key) {
    for (size_t i = 0; o->kind == J_OBJ && i < o->n; i++)
        if (strcmp(o->keys[i], key) == 0) return &o->items[i];
    return NULL;
}

/* An array of integers into out (at most cap); returns the count, or -1. */
static int jints(const jval *a, int64_t *out, int cap) {
    if (a == NULL || a->kind != J_ARR || (int)a->n > cap) return -1;
    for (size_t i = 0; i < a->n; i++) {
        if (a->items[i].kind != J_NUM) return -1;
        double d = a->items[i].num;
        /* INT64 extremes arrive as doubles of +-2^63; saturate as the
         * ONNX test intends them. */
        out[i] = d >= 9.2233720368547758e18 ? INT64_MAX : d <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)d;
    }
    return (int)a->n;
}

static void jfree(jval *v) {
    for (size_t i = 0; i < v->n; i++) {
        jfree(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

static void run_case(const jval *t) {
    const jval *name = jget(t, "name"), *dtype = jget(t, "dtype"), *params = jget(t, "params");
    const char *nm = name && name->kind == J_STR ? name->str : "?";
    CHECK(dtype && dtype->kind == J_STR && strcmp(dtype->str, "float32") == 0, "%s: dtype is not float32", nm);
    CHECK(params != NULL, "%s: no params", nm);
    if (!params || !dtype || strcmp(dtype->str, "float32") != 0) return;
    int64_t shape[8], want_shape[8], starts[8], ends[8], axes[8], steps[8];
    const int ndim = jints(jget(t, "input_shape"), shape, 8);
    const int want_ndim = jints(jget(t, "expected_shape"), want_shape, 8);
    const int n = jints(jget(params, "starts"), starts, 8);
    const int n_ends = jints(jget(params, "ends"), ends, 8);
    const jval *jax = jget(params, "axes"), *jst = jget(params, "steps");
    const int n_axes = jax && jax->kind == J_ARR ? jints(jax, axes, 8) : 0;
    const int n_steps = jst && jst->kind == J_ARR ? jints(jst, steps, 8) : 0;
    CHECK(ndim >= 0 && want_ndim >= 0 && n >= 0 && n_ends == n && n_axes >= 0 && n_steps >= 0,
          "%s: malformed case", nm);
    const jval *input = jget(t, "input"), *expected = jget(t, "expected");
    CHECK(input && input->kind == J_ARR && expected && expected->kind == J_ARR, "%s: no values", nm);
    if (ndim < 0 || want_ndim < 0 || n < 0 || n_ends != n || !input || !expected) return;
    CHECK((int64_t)input->n == fe_product(ndim, shape), "%s: %zu input values for the shape", nm, input->n);

    dmls_lowered lw;
    dmls_status s = dmls_lower_onnx(ndim, shape, starts, ends, n, jax && jax->kind == J_ARR ? axes : NULL, n_axes,
                                    jst && jst->kind == J_ARR ? steps : NULL, n_steps, &lw);
    CHECK(s == DMLS_OK, "%s: dmls_lower_onnx: %s", nm, dmls_last_error());
    if (s != DMLS_OK) return;
    bool same = lw.final_ndim == want_ndim;
    for (int i = 0; same && i < want_ndim; i++) same = lw.final_shape[i] == want_shape[i];
    CHECK(same, "%s: output shape differs from expected_shape", nm);
    if (!same) return;

    const size_t n_in = input->n, n_out = expected->n;
    float *in = malloc(sizeof(float) * (n_in + 1)), *out = malloc(sizeof(float) * (n_out + 1)),
          *ref = malloc(sizeof(float) * (n_out + 1));
    for (size_t i = 0; i < n_in; i++) in[i] = (float)input->items[i].num;
    dmls_tensor ti = {DMLS_FLOAT32, ndim, shape, NULL, 0}, to = {DMLS_FLOAT32, ndim, lw.out_sizes, NULL, 0};
    dmls_window w = dmls_lowered_window(&lw);
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&ti, &to, &w, &op), DMLS_OK);
    if (op) {
        CHECK_STATUS(dmls_execute(op, in, n_in * 4, out, n_out * 4), DMLS_OK);
        CHECK_STATUS(dmls_execute_reference(op, in, n_in * 4, ref, n_out * 4), DMLS_OK);
        CHECK(dmls_output_bytes(op) == n_out * 4, "%s: operator writes %llu bytes, expected holds %zu", nm,
              (unsigned long long)dmls_output_bytes(op), n_out * 4);
        size_t bad = 0;
        for (size_t i = 0; i < n_out; i++) {
            const float e = (float)expected->items[i].num;
            if (memcmp(&out[i], &e, 4) != 0 || memcmp(&ref[i], &e, 4) != 0) bad++;
        }
        CHECK(bad == 0, "%s: %zu of %zu values differ from expected", nm, bad, n_out);
        dmls_destroy(op);
        printf("%s: %zu values compared\n", nm, n_out);
    }
    free(in);
    free(out);
    free(ref);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_onnx_conformance onnx_node_tests.json\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        printf("SKIPPED: %s: %s (the shared conformance data is not here)\n", argv[1], strerror(errno));
        return 77;
    }
    size_t cap = 1 << 20, len = 0, got;
    char *text = malloc(cap + 1);
    while ((got = fread(text + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) text = realloc(text, (cap *= 2) + 1);
    }
    fclose(f);
    text[len] = '\0';
    jin in = {text, 0};
    jval root;
    jparse(&in, &root);
    CHECK(!in.bad && root.kind == J_ARR, "%s does not parse as a JSON array (near byte %ld)", argv[1],
          (long)(in.p - text));
    int cases = 0;
    for (size_t i = 0; !in.bad && root.kind == J_ARR && i < root.n; i++) {
        const jval *kind = jget(&root.items[i], "kind");
        if (kind && kind->kind == J_STR && strcmp(kind->str, "onnx") != 0) continue;
        run_case(&root.items[i]);
        cases++;
    }
    /* The file holds 8 Slice cases; fewer means the data changed or the
     * reader missed some, and either must not pass quietly. */
    CHECK(cases == 8, "ran %d cases, the conformance file holds 8", cases);
    jfree(&root);
    free(text);
    TEST_MAIN_END();
}
