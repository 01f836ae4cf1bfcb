/* The benchmark's case list: bench/cases.json, one SLICE1 slice per entry.
 * The one reader of that file: dmlslice bench (CPU and CUDA devices), the
 * developer benchmark and the GPU tests share it, so a case means the same thing to all of them. */
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
    /* The operator's input is the packed input_shape viewed through perm
     * (view axis i is stored axis perm[i]): a transposed copy. Without a
     * "perm" key, perm is the identity; has_perm says which. */
    int32_t perm[DMLS_MAX_RANK];
    int has_perm;
} bench_case;

/* Parses a JSON array of case objects (the format below) from text;
 * origin names it in messages. Same result and errors as bench_read_cases. */
int bench_parse_cases(const char *text, const char *origin, bench_case **cases, int *count, char *err,
                      size_t err_size);

/* The canonical cases: bench/cases.json as it was when the program was
 * built (tools/bench/cases_builtin.c; the build embeds that file, their one
 * home, so the bench runs from any folder). */
int bench_builtin_cases(bench_case **cases, int *count, char *err, size_t err_size);

/* Input bytes + 2 x output bytes: what the bench allocates for case c
 * (its input, its output and the copy's source); 0 if c does not plan. */
uint64_t bench_case_bytes(const bench_case *c, uint64_t *in_bytes, uint64_t *out_bytes);

/* Halves the widest axis of c (window and output following) until its
 * input holds at most max_input_bytes: --quick's small version of a case. */
void bench_case_shrink(bench_case *c, uint64_t max_input_bytes);

/* Reads a JSON array of case objects (keys: name, dtype, input_shape,
 * window_offsets, window_sizes, window_strides, output_sizes, and an
 * optional perm, a permutation of the axes; others are skipped). A case with
 * a perm may leave out the four window lists: the window is then the whole
 * permuted array and the output its packed copy. On success sets *cases (free() it) and *count and returns 0; on
 * failure writes a message naming the file and byte offset into err and
 * returns -1. */
int bench_read_cases(const char *path, bench_case **cases, int *count, char *err, size_t err_size);

/* Plans case c as a native SLICE1 (dmls_create): the input the packed
 * input_shape viewed through c->perm, the output packed. */
dmls_status bench_create(const bench_case *c, dmls_operator **op);

#endif
