/* The canonical benchmark cases (bench/cases.json): a reader for exactly that
 * file's shape, an array of flat objects holding strings and integer arrays. */
#ifndef DMLS_BENCH_CASES_H
#define DMLS_BENCH_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "dmlslice/dmlslice.h"

#define DMLS_BENCH_MAX_CASES 64

typedef struct dmls_bench_case {
    char name[64];
    dmls_dtype dtype;
    int32_t ndim;
    int64_t input_shape[DMLS_MAX_RANK];
    int64_t window_offsets[DMLS_MAX_RANK];
    int64_t window_sizes[DMLS_MAX_RANK];
    int64_t window_strides[DMLS_MAX_RANK];
    int64_t output_sizes[DMLS_MAX_RANK];
} dmls_bench_case;

/* Reads up to max cases from path. Returns the number read, or -1 with a
 * message in err (err_size bytes) when the file is missing or malformed. */
int dmls_bench_read_cases(const char *path, dmls_bench_case *cases, int max, char *err, size_t err_size);

/* Plans the case as a native SLICE1 over packed tensors. */
dmls_status dmls_bench_create(const dmls_bench_case *c, dmls_operator **op);

#endif
