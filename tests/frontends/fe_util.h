/* Shared by the front-end tests: run a lowering through dmls_create and both
 * executors, and check the result element by element against per-axis
 * index lists the test states. Inputs hold their own linear index, so a
 * wrong element names where it came from. */
#ifndef DMLS_TEST_FE_UTIL_H
#define DMLS_TEST_FE_UTIL_H

#include <stdbool.h>
#include <stdlib.h>

#include "dmlslice/frontends.h"
#include "support/test.h"

/* Expected picks: for each input axis, the input indices in output order. */
typedef struct fe_expect {
    int64_t count[DMLS_MAX_RANK];
    int64_t idx[DMLS_MAX_RANK][64];
} fe_expect;

static inline int64_t fe_product(int32_t n, const int64_t *s) {
    int64_t p = 1;
    for (int32_t i = 0; i < n; i++) p *= s[i];
    return p;
}

/* Executes lowered over an int32 input of the given shape (packed) with
 * dmls_execute and dmls_execute_reference; both must agree and match want
 * (if not NULL). Returns false (after CHECK failures) on any mismatch. */
static inline bool fe_run(const char *what, int32_t ndim, const int64_t *shape, const dmls_lowered *lw,
                   const fe_expect *want) {
    bool ok = true;
    CHECK(lw->ndim == ndim, "%s: lowered ndim %d, want %d", what, (int)lw->ndim, (int)ndim);
    const int64_t n_in = fe_product(ndim, shape), n_out = fe_product(ndim, lw->out_sizes);
    CHECK(n_out == fe_product(lw->final_ndim, lw->final_shape), "%s: final shape holds a different count", what);
    int32_t *in = malloc(sizeof(int32_t) * (size_t)(n_in ? n_in : 1));
    int32_t *out = malloc(sizeof(int32_t) * (size_t)(n_out ? n_out : 1) + 8);
    int32_t *ref = malloc(sizeof(int32_t) * (size_t)(n_out ? n_out : 1) + 8);
    for (int64_t i = 0; i < n_in; i++) in[i] = (int32_t)i;
    for (int64_t i = 0; i < n_out + 2; i++) out[i] = ref[i] = -7;
    dmls_tensor ti = {DMLS_INT32, ndim, shape, NULL, 0};
    dmls_tensor to = {DMLS_INT32, ndim, lw->out_sizes, NULL, 0};
    dmls_window w = dmls_lowered_window(lw);
    dmls_operator *op = NULL;
    dmls_status s = dmls_create(&ti, &to, &w, &op);
    CHECK(s == DMLS_OK, "%s: dmls_create: %s", what, dmls_last_error());
    if (s != DMLS_OK) {
        ok = false;
        goto done;
    }
    CHECK_STATUS(dmls_execute(op, in, (uint64_t)n_in * 4, out, (uint64_t)n_out * 4), DMLS_OK);
    CHECK_STATUS(dmls_execute_reference(op, in, (uint64_t)n_in * 4, ref, (uint64_t)n_out * 4), DMLS_OK);
    dmls_destroy(op);
    CHECK(memcmp(out, ref, sizeof(int32_t) * (size_t)(n_out + 2)) == 0, "%s: execute and reference differ", what);
    CHECK(out[n_out] == -7 && out[n_out + 1] == -7, "%s: wrote past the output", what);
    if (want != NULL) {
        for (int32_t a = 0; a < ndim; a++)
            if (want->count[a] != lw->out_sizes[a]) {
                CHECK(false, "%s: axis %d has %lld elements, want %lld", what, (int)a, (long long)lw->out_sizes[a],
                      (long long)want->count[a]);
                ok = false;
            }
        if (!ok) goto done;
        int64_t c[DMLS_MAX_RANK] = {0};
        for (int64_t e = 0; e < n_out; e++) {
            int64_t lin = 0;
            for (int32_t a = 0; a < ndim; a++) lin = lin * shape[a] + want->idx[a][c[a]];
            if (out[e] != (int32_t)lin) {
                CHECK(false, "%s: output element %lld is input %d, want %lld", what, (long long)e, out[e],
                      (long long)lin);
                ok = false;
                break;
            }
            for (int32_t a = ndim - 1; a >= 0; a--) {
                if (++c[a] < lw->out_sizes[a]) break;
                c[a] = 0;
            }
        }
    }
done:
    free(in);
    free(out);
    free(ref);
    return ok;
}

/* want->idx[axis] = first, first+step, ... (count of them). */
static inline void fe_axis(fe_expect *want, int32_t axis, int64_t first, int64_t count, int64_t step) {
    want->count[axis] = count;
    for (int64_t k = 0; k < count && k < 64; k++) want->idx[axis][k] = first + k * step;
}

/* Identity picks for every axis of shape. */
static inline void fe_identity(fe_expect *want, int32_t ndim, const int64_t *shape) {
    for (int32_t a = 0; a < ndim; a++) fe_axis(want, a, 0, shape[a], 1);
}

/* Whether lw's final shape is want[0..n). */
static inline bool fe_final_is(const dmls_lowered *lw, const int64_t *want, int32_t n) {
    bool same = lw->final_ndim == n;
    for (int32_t k = 0; same && k < n; k++) same = lw->final_shape[k] == want[k];
    return same;
}

#define CHECK_FINAL(lw, ...)                                                                             \
    do {                                                                                                 \
        const int64_t want_[] = {__VA_ARGS__};                                                           \
        CHECK(fe_final_is(&(lw), want_, (int32_t)(sizeof want_ / sizeof want_[0])),                      \
              "final shape differs (rank %d, first %lld)", (int)(lw).final_ndim,                         \
              (long long)((lw).final_ndim ? (lw).final_shape[0] : -1));                                  \
    } while (0)

/* What a lowering must give: the axes picked otherwise than whole, each as
 * fe_axis takes them, and the final shape. */
typedef struct fe_result {
    int npicks;
    struct {
        int32_t axis;
        int64_t first, count, step;
    } picks[DMLS_MAX_RANK];
    int32_t final_ndim;
    int64_t final[DMLS_MAX_RANK];
} fe_result;

/* Runs lw (made on an input of the given shape) against r. */
static inline void fe_check_result(const char *what, int32_t ndim, const int64_t *shape, const dmls_lowered *lw,
                                   const fe_result *r) {
    fe_expect want;
    fe_identity(&want, ndim, shape);
    for (int k = 0; k < r->npicks; k++)
        fe_axis(&want, r->picks[k].axis, r->picks[k].first, r->picks[k].count, r->picks[k].step);
    fe_run(what, ndim, shape, lw, &want);
    CHECK(fe_final_is(lw, r->final, r->final_ndim), "%s: final shape differs (rank %d)", what, (int)lw->final_ndim);
}

typedef struct fe_numpy_case {
    const char *expr;
    fe_result want;
} fe_numpy_case;

/* Lowers each row's NumPy index on the given input shape and checks it. */
static inline void fe_numpy_cases(int32_t ndim, const int64_t *shape, const fe_numpy_case *rows, size_t n) {
    for (size_t i = 0; i < n; i++) {
        dmls_lowered lw;
        CHECK(dmls_lower_numpy(ndim, shape, rows[i].expr, &lw) == DMLS_OK, "numpy %s: %s", rows[i].expr,
              dmls_last_error());
        fe_check_result(rows[i].expr, ndim, shape, &lw, &rows[i].want);
    }
}

/* A NumPy index that must fail: the status and a fragment of the message. */
typedef struct fe_numpy_error {
    const char *expr;
    dmls_status want;
    const char *fragment;
} fe_numpy_error;

/* Lowers each row on the given input shape into a result filled beforehand,
 * which a failure must leave zeroed. */
static inline void fe_numpy_fails(int32_t ndim, const int64_t *shape, const fe_numpy_error *rows, size_t n) {
    static const dmls_lowered zero;
    for (size_t i = 0; i < n; i++) {
        const fe_numpy_error *c = &rows[i];
        dmls_lowered lw;
        memset(&lw, 0x77, sizeof lw);
        const dmls_status got = dmls_lower_numpy(ndim, shape, c->expr, &lw);
        CHECK(got == c->want, "%s: %s, want %s (%s)", c->expr, dmls_status_name(got), dmls_status_name(c->want),
              dmls_last_error());
        CHECK(strstr(dmls_last_error(), c->fragment) != NULL, "%s: message \"%s\" lacks \"%s\"", c->expr,
              dmls_last_error(), c->fragment);
        CHECK(memcmp(&lw, &zero, sizeof zero) == 0, "%s: result not zeroed on failure", c->expr);
    }
}

#endif
