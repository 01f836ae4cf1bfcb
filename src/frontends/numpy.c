/* NumPy basic indexing ("[1:3, ::-2, ..., None, 0]") lowered onto SLICE1
 * (docs/spec.md §6). Parsing and meaning are separate passes: the parser
 * only turns text into items, so a syntax error is always DMLS_ERROR_FORMAT
 * and never depends on the array's shape. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../checked.h"
#include "../error.h"
#include "lower.h"

#define NUMPY "NumPy index"
/* More items than this cannot make a valid index: at most
 * DMLS_NUMPY_MAX_RANK that index, as many None, and one ellipsis.
 * dmls_lower_numpy (rank <= 8, a result of <= 8 axes) stops at 32, as it
 * always has. */
#define MAX_ITEMS (2 * DMLS_NUMPY_MAX_RANK + 1)
#define MAX_ITEMS_RANK8 32

typedef enum item_kind { ITEM_INT, ITEM_SLICE, ITEM_ELLIPSIS, ITEM_NEWAXIS } item_kind;

typedef struct item {
    item_kind kind;
    int64_t index;   /* ITEM_INT */
    bool index_overflow;
    bool has_start, has_stop, has_step;
    int64_t start, stop, step;
    const char *text; /* where the item starts, for messages */
    int text_len;
} item;

typedef struct parser {
    const char *expr; /* whole expression, for messages */
    const char *p;
} parser;

static void skip_ws(parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || is_digit(c);
}

/* An optionally signed decimal integer. Beyond int64 the value saturates
 * and *overflow is set: Python's slices clamp such bounds, and the caller
 * decides whether that is an error. Returns false when no integer is here. */
static bool parse_int(parser *ps, int64_t *value, bool *overflow) {
    const char *q = ps->p;
    bool neg = false;
    if (*q == '+' || *q == '-') {
        neg = *q == '-';
        q++;
        while (*q == ' ' || *q == '\t') q++;
    }
    if (!is_digit(*q)) return false;
    uint64_t mag = 0;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    *overflow = false;
    for (; is_digit(*q); q++) {
        const uint64_t d = (uint64_t)(*q - '0');
        if (mag > (limit - d) / 10) *overflow = true;
        else mag = mag * 10 + d;
    }
    if (*overflow) mag = limit;
    *value = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    ps->p = q;
    return true;
}

static dmls_status syntax_error(const parser *ps, const char *what) {
    return dmls_fail(DMLS_ERROR_FORMAT, "R-NP-SYNTAX", NUMPY " \"%.80s\": %s at column %d", ps->expr, what,
                     (int)(ps->p - ps->expr) + 1);
}

/* One slice bound or step: an integer or nothing. */
static dmls_status parse_part(parser *ps, bool *has, int64_t *v, bool *overflow) {
    skip_ws(ps);
    *v = 0;
    *overflow = false;
    *has = parse_int(ps, v, overflow);
    if (!*has && (*ps->p == '+' || *ps->p == '-')) return syntax_error(ps, "a sign without digits");
    skip_ws(ps);
    return DMLS_OK;
}

static dmls_status parse_item(parser *ps, item *it) {
    memset(it, 0, sizeof *it);
    skip_ws(ps);
    it->text = ps->p;
    if (strncmp(ps->p, "...", 3) == 0) {
        ps->p += 3;
        it->kind = ITEM_ELLIPSIS;
    } else if ((*ps->p >= 'a' && *ps->p <= 'z') || (*ps->p >= 'A' && *ps->p <= 'Z') || *ps->p == '_') {
        const char *w = ps->p;
        while (is_ident(*ps->p)) ps->p++;
        const size_t len = (size_t)(ps->p - w);
        static const char *const newaxis[] = {"None", "newaxis", "np.newaxis", "numpy.newaxis"};
        bool known = false;
        for (size_t k = 0; k < sizeof newaxis / sizeof newaxis[0] && !known; k++)
            if (strlen(newaxis[k]) == len && strncmp(w, newaxis[k], len) == 0) known = true;
        if (known) it->kind = ITEM_NEWAXIS;
        else if (len == 8 && strncmp(w, "Ellipsis", 8) == 0) it->kind = ITEM_ELLIPSIS;
        else {
            ps->p = w;
            return syntax_error(ps, "unknown name (expected an integer, a slice, '...', None or newaxis)");
        }
    } else {
        bool has, ignored;
        int64_t v;
        RETURN_IF_ERROR(parse_part(ps, &has, &v, &it->index_overflow));
        if (*ps->p != ':') {
            if (!has) return syntax_error(ps, "expected an integer, a slice, '...', None or newaxis");
            it->kind = ITEM_INT;
            it->index = v;
        } else {
            /* Slice bounds saturate as Python's do; only an integer index
             * beyond int64 is an error. */
            it->kind = ITEM_SLICE;
            it->has_start = has;
            it->start = v;
            it->index_overflow = false;
            ps->p++;
            RETURN_IF_ERROR(parse_part(ps, &it->has_stop, &it->stop, &ignored));
            if (*ps->p == ':') {
                ps->p++;
                RETURN_IF_ERROR(parse_part(ps, &it->has_step, &it->step, &ignored));
            }
        }
    }
    it->text_len = (int)(ps->p - it->text);
    while (it->text_len > 0 && (it->text[it->text_len - 1] == ' ' || it->text[it->text_len - 1] == '\t'))
        it->text_len--;
    skip_ws(ps);
    return DMLS_OK;
}

/* Items up to end_char ('\0' for the end of the text), a trailing comma
 * allowed as Python allows it. */
static dmls_status parse_items(parser *ps, char end_char, item *items, int max_items, int *n_items) {
    if (*ps->p == end_char) return DMLS_OK;
    for (;;) {
        if (*n_items == max_items) {
            char what[32];
            snprintf(what, sizeof what, "more than %d items", max_items);
            return syntax_error(ps, what);
        }
        RETURN_IF_ERROR(parse_item(ps, &items[(*n_items)++]));
        if (*ps->p != ',') return DMLS_OK;
        ps->p++;
        skip_ws(ps);
        if (*ps->p == end_char) return DMLS_OK;
    }
}

/* Expects c (and skips the space after it). */
static dmls_status expect(parser *ps, char c, const char *what) {
    if (*ps->p != c) return syntax_error(ps, what);
    ps->p++;
    skip_ws(ps);
    return DMLS_OK;
}

/* Splits the expression into items: "[items]", "(items)" or bare items.
 * Inside brackets a parenthesised tuple that is the whole subscript stands
 * for its items, as in Python (x[()] is the empty tuple, x[(1, 2)] is
 * x[1, 2]); an empty subscript, x[], is Python's syntax error. */
static dmls_status parse(parser *ps, item *items, int max_items, int *n_items) {
    *n_items = 0;
    skip_ws(ps);
    const char close = *ps->p == '[' ? ']' : *ps->p == '(' ? ')' : '\0';
    if (close) ps->p++;
    skip_ws(ps);
    if (close == ']' && *ps->p == ']')
        return syntax_error(ps, "an empty subscript is a syntax error in Python (x[()] or '...' takes the whole array)");
    const bool tuple = close == ']' && *ps->p == '(';
    if (tuple) {
        ps->p++;
        skip_ws(ps);
        RETURN_IF_ERROR(parse_items(ps, ')', items, max_items, n_items));
        RETURN_IF_ERROR(expect(ps, ')', "expected ',' or ')'"));
        RETURN_IF_ERROR(expect(ps, ']', "expected ']' after the parenthesised tuple"));
    } else {
        RETURN_IF_ERROR(parse_items(ps, close, items, max_items, n_items));
        if (close) RETURN_IF_ERROR(expect(ps, close, close == ']' ? "expected ',' or ']'" : "expected ',' or ')'"));
    }
    if (*ps->p != '\0') return syntax_error(ps, "unexpected text after the index");
    return DMLS_OK;
}

/* Python's slice.indices(dim): the first element and how many there are. */
static void slice_indices(const item *it, int64_t dim, int64_t *first, int64_t *count, int64_t *step) {
    const int64_t st = it->has_step ? it->step : 1;
    int64_t start = it->has_start ? it->start : st < 0 ? INT64_MAX : 0;
    int64_t stop = it->has_stop ? it->stop : st < 0 ? INT64_MIN : INT64_MAX;
    /* value < 0 and dim >= 0: the sums cannot overflow. */
    if (start < 0) {
        start += dim;
        if (start < 0) start = st < 0 ? -1 : 0;
    } else if (start >= dim) {
        start = st < 0 ? dim - 1 : dim;
    }
    if (stop < 0) {
        stop += dim;
        if (stop < 0) stop = st < 0 ? -1 : 0;
    } else if (stop >= dim) {
        stop = st < 0 ? dim - 1 : dim;
    }
    if (st > 0) *count = stop > start ? (int64_t)((uint64_t)(stop - start - 1) / (uint64_t)st) + 1 : 0;
    else *count = start > stop ? (int64_t)((uint64_t)(start - stop - 1) / dmls_abs_i64(st)) + 1 : 0;
    *first = start;
    *step = st;
}

/* What one input axis takes: count elements from first, every step. */
typedef struct numpy_axis {
    int64_t first, count, step;
} numpy_axis;

/* The meaning of expr for an input of rank ndim (shape already checked):
 * per input axis what it takes (axes not named whole), and the result's
 * shape, of at most max_final axes. */
static dmls_status numpy_meaning(int32_t ndim, const int64_t *shape, const char *expr, numpy_axis *axes,
                                 int32_t max_final, int32_t *final_ndim, int64_t *final_shape) {
    RETURN_IF(expr == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-FE-INPUT", NUMPY ": the expression is NULL");
    parser ps = {expr, expr};
    item items[MAX_ITEMS];
    int n_items;
    RETURN_IF_ERROR(parse(&ps, items, max_final == DMLS_MAX_RANK ? MAX_ITEMS_RANK8 : MAX_ITEMS, &n_items));

    int indexing = 0, ellipses = 0;
    for (int k = 0; k < n_items; k++) {
        indexing += items[k].kind == ITEM_INT || items[k].kind == ITEM_SLICE;
        ellipses += items[k].kind == ITEM_ELLIPSIS;
        RETURN_IF(items[k].kind == ITEM_SLICE && items[k].has_step && items[k].step == 0,
                  DMLS_ERROR_INVALID_ARGUMENT, "R-NP-STEP", NUMPY " \"%.80s\": item %d (%.*s) has step 0; slice step cannot be zero",
                  expr, k, items[k].text_len, items[k].text);
    }
    RETURN_IF(ellipses > 1, DMLS_ERROR_INVALID_ARGUMENT, "R-NP-SYNTAX",
              NUMPY " \"%.80s\": %d ellipses; an index can only have a single ellipsis ('...')", expr, ellipses);
    RETURN_IF(indexing > ndim, DMLS_ERROR_OUT_OF_BOUNDS, "R-NP-BOUNDS",
              NUMPY " \"%.80s\": too many indices: the array is %d-dimensional, but %d were indexed", expr, (int)ndim,
              indexing);
    for (int32_t i = 0; i < ndim; i++) axes[i] = (numpy_axis){0, shape[i], 1};

    int32_t axis = 0, fin = 0;
#define PUSH_FINAL(v)                                                                                      \
    do {                                                                                                   \
        RETURN_IF(fin == max_final, DMLS_ERROR_UNSUPPORTED, "R-NP-RANK",                                          \
                  NUMPY " \"%.80s\": the result would have more than %d axes", expr, (int)max_final);      \
        final_shape[fin++] = (v);                                                                          \
    } while (0)
    for (int k = 0; k < n_items; k++) {
        const item *it = &items[k];
        switch (it->kind) {
        case ITEM_NEWAXIS: PUSH_FINAL(1); break;
        case ITEM_ELLIPSIS:
            for (int r = 0; r < ndim - indexing; r++, axis++) PUSH_FINAL(shape[axis]);
            break;
        case ITEM_INT: {
            const int64_t dim = shape[axis];
            int64_t idx = it->index;
            if (idx < 0) idx += dim;
            RETURN_IF(it->index_overflow || idx < 0 || idx >= dim, DMLS_ERROR_OUT_OF_BOUNDS, "R-NP-BOUNDS",
                      NUMPY " \"%.80s\": index %.*s is out of bounds for axis %d with size %" PRId64, expr,
                      it->text_len, it->text, (int)axis, dim);
            axes[axis++] = (numpy_axis){idx, 1, 1};
            break;
        }
        case ITEM_SLICE: {
            numpy_axis *a = &axes[axis++];
            slice_indices(it, a->count, &a->first, &a->count, &a->step);
            PUSH_FINAL(a->count);
            break;
        }
        }
    }
    for (; axis < ndim; axis++) PUSH_FINAL(shape[axis]);
#undef PUSH_FINAL
    *final_ndim = fin;
    return DMLS_OK;
}

static dmls_status lower_numpy(int32_t ndim, const int64_t *shape, const char *expr, dmls_lowered *out) {
    RETURN_IF_ERROR(dmls_fe_init(NUMPY, ndim, shape, out));
    numpy_axis axes[DMLS_MAX_RANK];
    int64_t final_shape[DMLS_MAX_RANK];
    int32_t fin;
    RETURN_IF_ERROR(numpy_meaning(ndim, shape, expr, axes, DMLS_MAX_RANK, &fin, final_shape));
    for (int32_t i = 0; i < ndim; i++) dmls_fe_set_axis(out, i, axes[i].first, axes[i].count, axes[i].step);
    out->final_ndim = fin;
    memcpy(out->final_shape, final_shape, sizeof(int64_t) * (size_t)fin);
    return DMLS_OK;
}

dmls_status dmls_lower_numpy(int32_t ndim, const int64_t *shape, const char *expr, dmls_lowered *out) {
    dmls_clear_error();
    dmls_status s = lower_numpy(ndim, shape, expr, out);
    return s == DMLS_OK ? s : dmls_fe_fail(out, s);
}

/* ------------------------------------------------ any rank NumPy writes */

/* One axis of the elements the index takes, as a strided run over the
 * input's elements: count elements, stride elements apart. */
typedef struct run {
    int64_t count, stride;
} run;

/* The input's element strides: given, or packed C order. */
static dmls_status input_strides(int32_t ndim, const int64_t *shape, const int64_t *strides, int64_t *t) {
    int64_t packed = 1;
    bool empty = false;
    for (int32_t i = 0; i < ndim; i++) empty |= shape[i] == 0;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        if (strides) {
            RETURN_IF(strides[i] < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-FE-INPUT",
                      NUMPY ": input stride[%d] = %" PRId64 " is negative", (int)i, strides[i]);
            t[i] = strides[i];
        } else {
            t[i] = packed;
            /* An empty array addresses nothing, whatever its other dims
             * (NumPy takes (0, 2**32, 2**32, 4)): its strides saturate. */
            if (dmls_mul_i64(packed, shape[i] ? shape[i] : 1, &packed)) {
                RETURN_IF(!empty, DMLS_ERROR_OVERFLOW, "R-FE-OVERFLOW", NUMPY ": the input's element count overflows 64 bits");
                packed = INT64_MAX;
            }
        }
    }
    return DMLS_OK;
}

/* The view as a SLICE1 that walks each run forwards or backwards whole;
 * its origin is the lowest element taken. */
static dmls_status set_view(dmls_lowered_view *v, const run *runs, int32_t n, int64_t base, const char *expr) {
    dmls_lowered *lw = &v->slice;
    int64_t origin = base;
    lw->ndim = n;
    for (int32_t k = 0; k < n; k++) {
        const int64_t mag = runs[k].stride < 0 ? -runs[k].stride : runs[k].stride;
        int64_t back;
        v->in_shape[k] = runs[k].count;
        v->in_strides[k] = mag;
        if (runs[k].stride < 0)
            RETURN_IF(dmls_mul_i64(runs[k].count - 1, mag, &back) || dmls_add_i64(origin, -back, &origin),
                      DMLS_ERROR_OVERFLOW, "R-FE-OVERFLOW", NUMPY " \"%.80s\": element offsets overflow 64 bits", expr);
        lw->offsets[k] = 0;
        lw->sizes[k] = runs[k].count;
        lw->strides[k] = runs[k].stride < 0 ? -1 : 1;
        lw->out_sizes[k] = lw->final_shape[k] = runs[k].count;
    }
    lw->final_ndim = n;
    v->in_offset = origin;
    return DMLS_OK;
}

/* An input of more than DMLS_MAX_RANK axes: the elements taken, as few
 * strided runs as describe them. Axes of one element vanish into the base;
 * an axis whose step spans exactly the next kept axis merges with it. An
 * empty result is one empty run. */
static dmls_status compress(int32_t ndim, const int64_t *t, const numpy_axis *axes, const char *expr,
                            dmls_lowered_view *v) {
    run runs[DMLS_NUMPY_MAX_RANK];
    int32_t n = 0;
    int64_t base = 0;
    for (int32_t i = 0; i < ndim; i++)
        if (axes[i].count == 0) {
            const run empty = {0, 1};
            return set_view(v, &empty, 1, 0, expr);
        }
    for (int32_t i = 0; i < ndim; i++) {
        int64_t at, stride;
        /* Every element taken lies inside the input, so these fit when the
         * input's extent does; a hostile shape and strides may not. */
        RETURN_IF(dmls_mul_i64(axes[i].first, t[i], &at) || dmls_add_i64(base, at, &base), DMLS_ERROR_OVERFLOW, "R-FE-OVERFLOW",
                  NUMPY " \"%.80s\": element offsets overflow 64 bits", expr);
        if (axes[i].count == 1) continue;
        RETURN_IF(dmls_mul_i64(axes[i].step, t[i], &stride) || stride == INT64_MIN, DMLS_ERROR_OVERFLOW, "R-FE-OVERFLOW",
                  NUMPY " \"%.80s\": element strides overflow 64 bits", expr);
        int64_t span, merged;
        if (n > 0 && !dmls_mul_i64(axes[i].count, stride, &span) && span == runs[n - 1].stride &&
            !dmls_mul_i64(runs[n - 1].count, axes[i].count, &merged)) {
            runs[n - 1].count = merged;
            runs[n - 1].stride = stride;
        } else {
            runs[n++] = (run){axes[i].count, stride};
        }
    }
    RETURN_IF(n > DMLS_MAX_RANK, DMLS_ERROR_UNSUPPORTED, "R-NP-RANK",
              NUMPY " \"%.80s\": the slice needs %d strided dimensions (after dropping axes of one element and "
                    "merging contiguous runs); the library handles at most %d",
              expr, (int)n, DMLS_MAX_RANK);
    return set_view(v, runs, n, base, expr);
}

static dmls_status lower_numpy_view(int32_t ndim, const int64_t *shape, const int64_t *strides, const char *expr,
                                    dmls_lowered_view *v) {
    RETURN_IF(v == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-FE-INPUT", NUMPY ": the result pointer is NULL");
    memset(v, 0, sizeof *v);
    RETURN_IF(ndim < 0 || ndim > DMLS_NUMPY_MAX_RANK, DMLS_ERROR_UNSUPPORTED, "R-FE-INPUT",
              NUMPY ": input rank %d is outside 0 to %d", (int)ndim, DMLS_NUMPY_MAX_RANK);
    RETURN_IF(ndim > 0 && shape == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-FE-INPUT",
              NUMPY ": input shape is NULL with rank %d", (int)ndim);
    for (int32_t i = 0; i < ndim; i++)
        RETURN_IF(shape[i] < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-FE-INPUT", NUMPY ": input shape[%d] = %" PRId64 " is negative",
                  (int)i, shape[i]);
    int64_t t[DMLS_NUMPY_MAX_RANK];
    RETURN_IF_ERROR(input_strides(ndim, shape, strides, t));
    numpy_axis axes[DMLS_NUMPY_MAX_RANK];
    RETURN_IF_ERROR(numpy_meaning(ndim, shape, expr, axes, DMLS_NUMPY_MAX_RANK, &v->final_ndim, v->final_shape));
    if (ndim > DMLS_MAX_RANK) return compress(ndim, t, axes, expr, v);
    /* Within the core's rank the window stays over the input itself. */
    dmls_lowered *lw = &v->slice;
    lw->ndim = ndim;
    for (int32_t i = 0; i < ndim; i++) {
        v->in_shape[i] = shape[i];
        v->in_strides[i] = t[i];
        dmls_fe_set_axis(lw, i, axes[i].first, axes[i].count, axes[i].step);
        lw->final_shape[i] = lw->out_sizes[i];
    }
    lw->final_ndim = ndim;
    return DMLS_OK;
}

dmls_status dmls_lower_numpy_view(int32_t ndim, const int64_t *shape, const int64_t *strides, const char *expr,
                                  dmls_lowered_view *out) {
    dmls_clear_error();
    const dmls_status s = lower_numpy_view(ndim, shape, strides, expr, out);
    if (s != DMLS_OK && out != NULL) memset(out, 0, sizeof *out);
    return s;
}
