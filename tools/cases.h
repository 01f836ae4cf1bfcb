/* The benchmark's case list: bench/cases.json, one SLICE1 slice per entry.
 * The one reader of that file: dmlslice bench (CPU and CUDA devices) and the
 * GPU tests share it, so a case means the same thing to all of them. */
#ifndef DMLSLICE_TOOLS_CASES_H
#define DMLSLICE_TOOLS_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "dmlslice/dmlslice.h"

typedef struct bench_case {
    char name[64];
    dmls_dtype dtype;
    int32_t ndim;
    int64_t input_shape[DMLS_MAX_RANK];
    int64_t window_offsets[DMLS_MAX_RANK];
    int64_t window_sizes[DMLS_MAX_RANK];
    int64_t window_strides[DMLS_MAX_RANK];
    int64_t output_sizes[DMLS_MAX_RANK];
} bench_case;

/* Reads a JSON array of case objects (keys: name, dtype, input_shape,
 * window_offsets, window_sizes, window_strides, output_sizes; others are
 * skipped). On success sets *cases (free() it) and *count and returns 0; on
 * failure writes a message naming the file and byte offset into err and
 * returns -1. */
int bench_read_cases(const char *path, bench_case **cases, int *count, char *err, size_t err_size);

/* Plans case c as a native SLICE1 over packed tensors (dmls_create). */
dmls_status bench_create(const bench_case *c, dmls_operator **op);

#endif
