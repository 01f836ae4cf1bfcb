/* Tensor layouts for the tests: named ones (packed, padded, Fortran order,
 * reversed, broadcast) for sweeps that must cover each, and a random one
 * for differential runs. Strides are in elements; the byte offset keeps
 * every element at or after the base when strides are negative. */
#ifndef DMLS_SUPPORT_LAYOUT_H
#define DMLS_SUPPORT_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"

typedef enum { LAY_PACKED, LAY_PADDED, LAY_FORTRAN, LAY_REVERSED, LAY_BROADCAST, LAY_COUNT } layout_kind;

static const char *const layout_names[] = {"packed", "padded", "fortran", "reversed", "broadcast"};

/* The named layout k over shape. Outputs never broadcast (R-T-OUTLAYOUT):
 * asked for one, an output gets the padded layout. */
static inline void make_layout(layout_kind k, int32_t n, const int64_t *shape, bool is_output, int esize,
                               int64_t *strides, uint64_t *byte_offset) {
    if (is_output && k == LAY_BROADCAST) k = LAY_PADDED;
    int64_t acc = 1;
    *byte_offset = 0;
    if (k == LAY_FORTRAN) {
        for (int i = 0; i < n; i++) strides[i] = acc, acc *= shape[i];
        return;
    }
    for (int i = n - 1; i >= 0; i--) {
        strides[i] = acc;
        acc *= shape[i] + (k == LAY_PADDED ? 1 + i % 3 : 0);
    }
    if (k == LAY_REVERSED) {
        int64_t reach = 0;
        for (int i = 0; i < n; i += 2) {
            strides[i] = -strides[i];
            reach += (shape[i] - 1) * -strides[i];
        }
        *byte_offset = (uint64_t)(reach * esize);
    }
    if (k == LAY_BROADCAST)
        for (int i = 0; i < n; i += 3) strides[i] = 0;
}

/* What a random layout may hold. */
typedef enum {
    RANDOM_PACKED,  /* row-major, no gaps */
    RANDOM_PADDED,  /* gaps between rows, sometimes a strided inner dim */
    RANDOM_ANY,     /* padded, some dims reversed and, for inputs, some broadcast (stride 0) */
} random_layout_kind;

/* A random layout of that kind over shape. */
static inline void random_layout(random_layout_kind kind, int32_t n, const int64_t *shape, bool is_input,
                                 size_t esize, int64_t *strides, uint64_t *byte_offset) {
    int64_t pitch = 1;
    for (int i = n - 1; i >= 0; i--) {
        int64_t pad = kind != RANDOM_PACKED && test_range(0, 2) == 0 ? test_range(1, 5) : 0;
        if (i == n - 1 && kind != RANDOM_PACKED && test_range(0, 3) == 0) pitch = test_range(2, 3);
        strides[i] = pitch;
        pitch = pitch * shape[i] + pad;
    }
    uint64_t off = 0;
    for (int i = 0; i < n && kind == RANDOM_ANY; i++) {
        if (test_range(0, 2) == 0 && shape[i] > 1) {
            off += (uint64_t)(strides[i] * (shape[i] - 1)) * esize;
            strides[i] = -strides[i];
        }
        if (is_input && test_range(0, 5) == 0) strides[i] = 0;
    }
    *byte_offset = off;
}

/* random_layout over a random storage order: the dims are laid out as
 * random_layout lays out shape permuted (order[0] outermost), so the
 * tensor is a transposed view of that packed or padded buffer (a Fortran
 * file, an NHWC tensor read as NCHW). */
static inline void random_permuted_layout(random_layout_kind kind, int32_t n, const int64_t *shape, bool is_input,
                                          size_t esize, int64_t *strides, uint64_t *byte_offset) {
    int order[8];
    int64_t stored[8], stored_strides[8];
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)test_range(0, i), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < n; i++) stored[i] = shape[order[i]];
    random_layout(kind, n, stored, is_input, esize, stored_strides, byte_offset);
    for (int i = 0; i < n; i++) strides[order[i]] = stored_strides[i];
}

#endif
