/* What the CPU kernel tests share: a native slice spelled as its parts
 * (spec), and running one operator through every CPU plan variant this
 * machine has (each feature subset, with and without streaming stores, on
 * the calling thread, on 1..4 threads and over ranges cut at random),
 * compared with dmls_execute_reference byte for byte. The includer creates
 * contexts[1..4] before the first check. */
#ifndef DMLS_TESTS_CPU_VARIANTS_H
#define DMLS_TESTS_CPU_VARIANTS_H

#include <stdbool.h>

#include "cpu/context.h"
#include "cpu/copy_tiled.h"
#include "cpu/features.h"
#include "cpu/kernels.h"
#include "cpu/execute.h"
#include "operator.h"
#include "support/dtype.h"
#include "support/test.h"

typedef struct spec {
    int esize, ndim;
    int64_t in_shape[8], in_strides[8], offsets[8], sizes[8], steps[8], out_shape[8], out_strides[8];
    uint64_t in_off, out_off;
} spec;


static dmls_operator *make(const spec *s) {
    dmls_tensor in = {test_dtype_of_size(s->esize), s->ndim, s->in_shape, s->in_strides, s->in_off};
    dmls_tensor out = {test_dtype_of_size(s->esize), s->ndim, s->out_shape, s->out_strides, s->out_off};
    dmls_window win = {s->offsets, s->sizes, s->steps};
    dmls_operator *op = NULL;
    dmls_status st = dmls_create(&in, &out, &win, &op);
    CHECK(st == DMLS_OK, "create: %s", dmls_last_error());
    return op;
}

static dmls_context *contexts[5]; /* index = threads */

/* Runs op through a CPU plan built with `features`, streaming from
 * nt_threshold and taken as cached up to cache_bytes (dmls_cpu_prepare), on
 * the calling thread and on 1..4 threads, and compares the
 * whole output buffer (padding included) with the reference's. The input
 * and the output start in_shift and out_shift bytes past malloc's alignment
 * (0-63; -1: at random, 0-7). */
static void check_variant(const dmls_operator *op, unsigned features, uint64_t nt_threshold, uint64_t cache_bytes,
                          const char *what, int in_shift_at, int out_shift_at) {
    dmls_operator v = *op;
    dmls_cpu_prepared cpu; /* the CPU data, prepared again for the variant */
    dmls_cpu_prepare(&cpu, &v.copy, features, nt_threshold, cache_bytes);
    /* a tiled copy's two cuts between threads: by the input's rows with
     * streaming, by the output's rows without (the pair runs both) */
    dmls_cpu_split_tiled(&cpu, nt_threshold == 0);
    v.prepared[DMLS_BACKEND_CPU] = &cpu;
    uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
    size_t in_shift = (size_t)(in_shift_at >= 0 ? in_shift_at : test_range(0, 7)),
           out_shift = (size_t)(out_shift_at >= 0 ? out_shift_at : test_range(0, 7));
    unsigned char *in_buf = malloc(ib + 64), *ref_buf = malloc(ob + 64), *out_buf = malloc(ob + 64),
                  *garbage = malloc(ob + 1);
    unsigned char *in = in_buf + in_shift, *ref = ref_buf + out_shift, *out = out_buf + out_shift;
    test_fill_random(in_buf, ib + 64);
    test_fill_random(garbage, ob + 1);
    memcpy(ref, garbage, ob);
    CHECK_STATUS(dmls_execute_reference(op, in, ib, ref, ob), DMLS_OK);
    for (int t = 0; t <= 4; t++) { /* 0: dmls_execute; t: dmls_execute_on with t threads */
        memcpy(out, garbage, ob);
        dmls_status st = t == 0 ? dmls_execute(&v, in, ib, out, ob)
                                : dmls_execute_on(&v, contexts[t], in, ib, out, ob);
        CHECK(st == DMLS_OK, "%s: %s", what, dmls_last_error());
        CHECK(memcmp(out, ref, ob) == 0, "%s: kernel %s width %d threads %d differs from reference", what,
              dmls_cpu_kernel_name(cpu.kernel), cpu.width, t);
    }
    /* Ranges cut anywhere, in any order: shares that start and end inside a
     * row or a tile of rows (the context cuts only on row bounds for rows up
     * to 64 KiB, so these starts are reached here). */
    if (cpu.items > 0) {
        uint64_t cuts[6];
        int k = (int)test_range(1, 4);
        cuts[0] = 0;
        for (int i = 1; i <= k; i++) cuts[i] = (uint64_t)test_range(0, (int64_t)cpu.items);
        cuts[k + 1] = cpu.items;
        for (int i = 1; i <= k; i++) /* sort */
            for (int j = i; j > 1 && cuts[j - 1] > cuts[j]; j--) {
                uint64_t x = cuts[j];
                cuts[j] = cuts[j - 1];
                cuts[j - 1] = x;
            }
        memcpy(out, garbage, ob);
        for (int i = k; i >= 0; i--) dmls_cpu_run_range(&cpu, in, out, cuts[i], cuts[i + 1]);
        CHECK(memcmp(out, ref, ob) == 0, "%s: kernel %s width %d, %d ranges cut at random, differs from reference",
              what, dmls_cpu_kernel_name(cpu.kernel), cpu.width, k + 1);
    }
    free(in_buf);
    free(ref_buf);
    free(out_buf);
    free(garbage);
}

/* Every feature subset this CPU has, and the kernel each one picks, the
 * buffers shifted as check_variant says; each as a small call (cached, no
 * streaming) and as one past the cache (streaming, not cached), and a tiled
 * copy of items under 4 bytes large enough to be staged also as one between
 * (streaming, cached), whose staged blocks are shaped apart (copy_tiled.h). */
static void check_all_variants_at(const dmls_operator *op, const char *what, int in_shift, int out_shift) {
    unsigned have = dmls_cpu_features();
    const dmls_cpu_prepared *cp = op->prepared[DMLS_BACKEND_CPU];
    const bool between = cp == NULL || (cp->tiled && cp->width < 4 && cp->out_bytes >= DMLS_TILE_STAGE_MIN &&
                                        dmls_tile_stage_bytes(cp->width, cp->item_src_step) > 0);
    for (unsigned f = 0; f <= have; f++) {
        if ((f & have) != f) continue;
        check_variant(op, f, UINT64_MAX, UINT64_MAX, what, in_shift, out_shift);
        check_variant(op, f, 0, 0, what, in_shift, out_shift);
        if (between) check_variant(op, f, 0, UINT64_MAX, what, in_shift, out_shift);
    }
}

static void check_all_variants(const dmls_operator *op, const char *what) { check_all_variants_at(op, what, -1, -1); }

#endif
