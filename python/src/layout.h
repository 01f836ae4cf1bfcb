/* layout.h: byte strides and element splitting: native operators for two array views (layout.c). */
#ifndef DMLSLICE_PY_LAYOUT_H
#define DMLSLICE_PY_LAYOUT_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "array_view.h"
#include "lowering.h"

/* A lowered slice made ready to run: the native operator for packed arrays of the
 * lowered slice's shapes, made once, and what a call needs to see that its arrays
 * are those packed arrays. */
typedef struct compiled {
    lowered p;
    int64_t itemsize;
    void *packed_op;                  /* dmls_operator for packed in and out, or NULL */
    char *expr;                       /* the lowered slice's expr, owned */
    int64_t in_strides[EXT_MAX_RANK]; /* the packed input's byte strides */
    uint64_t in_bytes, out_bytes;     /* the packed arrays' sizes */
} compiled;
int layout_compile(compiled *c, const lowered *p, int64_t itemsize);
/* The largest of 8, 4, 2, 1 that divides the item size and every stride of
 * either array (n axes, then m) that moves an address: the element size the
 * copy runs at. */
int64_t layout_copy_unit(int64_t itemsize, int n, const int64_t *shape, const int64_t *strides, int m,
                         const int64_t *shape2, const int64_t *strides2);
/* The unsigned dmls_dtype of a copy unit of 1, 2, 4 or 8 bytes. */
int layout_unit_dtype(int64_t unit);
void layout_compiled_free(compiled *c);
/* True where in is the packed input c's operator was made for; where out
 * (of the lowered slice's result shape) is C-contiguous, as that operator writes. */
int layout_is_packed_input(const compiled *c, const array_view *in);
int layout_is_packed_output(const compiled *c, const array_view *out);

/* The native operator for these two arrays (shapes p->in_shape and
 * p->final_shape), and the byte ranges it reads and writes. */
typedef struct bound_copy {
    void *op;  /* dmls_operator: c's packed one, or one made for these arrays */
    int owned; /* made here: layout_unbind destroys it */
    char *in_base, *out_base;
    uint64_t in_bytes, out_bytes; /* 0 out_bytes: nothing to copy */
} bound_copy;
/* c (may be NULL): a compiled slice whose packed operator serves packed arrays. */
int layout_bind(const lowered *p, const compiled *c, const array_view *in, const array_view *out, bound_copy *b);
void layout_unbind(bound_copy *b);

#endif /* DMLSLICE_PY_LAYOUT_H */
