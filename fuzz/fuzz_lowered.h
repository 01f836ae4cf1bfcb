/* Runs a front end's lowering through the engine: the lowered window must
 * make a valid operator whose output matches the reference, inside
 * guard-page buffers. Shared by the front-end fuzz targets. */
#ifndef DMLS_FUZZ_LOWERED_H
#define DMLS_FUZZ_LOWERED_H

#include <stdlib.h>

#include "dmlslice/frontends.h"
#include "fuzz_input.h"

enum { LOWERED_MAX_BYTES = 1 << 20 };

static inline void run_lowered(int32_t ndim, const int64_t *shape, const dmls_lowered *lw) {
    if (lw->ndim != ndim) abort();
    uint64_t final_count = 1, count = 1;
    for (int i = 0; i < lw->final_ndim; i++) final_count *= (uint64_t)lw->final_shape[i];
    for (int i = 0; i < ndim; i++) count *= (uint64_t)lw->out_sizes[i];
    if (final_count != count) abort(); /* the final shape is a reshape of the SLICE1 output */
    dmls_tensor in = {DMLS_INT16, ndim, shape, NULL, 0}, out = {DMLS_INT16, ndim, lw->out_sizes, NULL, 0};
    dmls_window w = dmls_lowered_window(lw);
    dmls_operator *op = NULL;
    if (dmls_create(&in, &out, &w, &op) != DMLS_OK) abort(); /* a lowering is always valid */
    const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
    if (ib <= LOWERED_MAX_BYTES && ob <= LOWERED_MAX_BYTES) {
        guarded gi, go, gr;
        if (guarded_alloc(&gi, ib, 0) || guarded_alloc(&go, ob, 0) || guarded_alloc(&gr, ob, 0)) abort();
        for (uint64_t i = 0; i < ib; i++) gi.data[i] = (uint8_t)(i * 7 + 3);
        memset(go.data, 1, ob), memset(gr.data, 1, ob);
        if (dmls_execute(op, gi.data, ib, go.data, ob) != DMLS_OK) abort();
        if (dmls_execute_reference(op, gi.data, ib, gr.data, ob) != DMLS_OK) abort();
        if (memcmp(go.data, gr.data, ob) != 0) abort();
        guarded_free(&gi), guarded_free(&go), guarded_free(&gr);
    }
    dmls_destroy(op);
}

/* A shape of rank 0..8 with small sizes (0 included) from the input. */
static inline int32_t draw_shape(fuzz_reader *r, int64_t *shape) {
    int32_t n = fuzz_u8(r) % 9;
    for (int i = 0; i < n; i++) shape[i] = fuzz_u8(r) % 12;
    return n;
}

#endif
