/* The reference compare: a fast path and the scalar reference run on the
 * same input into outputs that hold the same bytes before, and every byte of
 * the output buffers (padding between strided elements included) must match
 * after, with the input unchanged. Tests report through CHECK, fuzzers
 * abort. */
#ifndef DMLS_SUPPORT_COMPARE_H
#define DMLS_SUPPORT_COMPARE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dmlslice/dmlslice.h"

/* An executor under test: dmls_execute, dmls_execute_on with ctx, ... */
typedef dmls_status (*exec_fn)(const dmls_operator *, const void *, uint64_t, void *, uint64_t, void *ctx);

typedef struct compare_result {
    dmls_status exec, reference; /* each run's status */
    uint64_t first_difference;   /* the first output byte that differs; ob when none */
    bool input_changed;
} compare_result;

/* out and ref (ob bytes each) must hold the same bytes on entry. */
static inline compare_result compare_with_reference(const dmls_operator *op, exec_fn exec, void *ctx,
                                                    const void *in, uint64_t ib, unsigned char *out,
                                                    unsigned char *ref, uint64_t ob) {
    compare_result r;
    unsigned char *in_copy = malloc(ib + 1);
    if (in_copy == NULL) abort();
    memcpy(in_copy, in, ib);
    r.exec = exec(op, in, ib, out, ob, ctx);
    r.reference = dmls_execute_reference(op, in, ib, ref, ob);
    r.first_difference = 0;
    while (r.first_difference < ob && out[r.first_difference] == ref[r.first_difference]) r.first_difference++;
    r.input_changed = memcmp(in, in_copy, ib) != 0;
    free(in_copy);
    return r;
}

static inline bool compare_ok(const compare_result *r, uint64_t ob) {
    return r->exec == DMLS_OK && r->reference == DMLS_OK && r->first_difference == ob && !r->input_changed;
}

/* The executors the tests and fuzzers compare. */
static inline dmls_status exec_plain(const dmls_operator *op, const void *in, uint64_t ib, void *out, uint64_t ob,
                                     void *ctx) {
    (void)ctx;
    return dmls_execute(op, in, ib, out, ob);
}
static inline dmls_status exec_on(const dmls_operator *op, const void *in, uint64_t ib, void *out, uint64_t ob,
                                  void *ctx) {
    return dmls_execute_on(op, (dmls_context *)ctx, in, ib, out, ob);
}

#endif
