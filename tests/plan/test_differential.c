/* The default executor against the reference executor, byte for byte:
 * a table over ranks 1-8 x element sizes x per-dim patterns x layouts, then
 * seeded random cases (the seed is printed; DMLS_TEST_SEED replays), then
 * random cases again on thread pools that cut every copy and every
 * SLICE_GRAD zero fill between their threads. */
#include "cpu/context.h"
#include "support/slice_case.h"

static void table(void) {
    static const int esizes[] = {1, 2, 4, 8};
    int cases = 0;
    for (int32_t n = 1; n <= 8; n++) {
        int64_t dims[8];
        for (int i = 0; i < n; i++) dims[i] = n <= 3 ? 7 + i : n <= 5 ? 5 : 3 + (i % 2);
        for (int e = 0; e < 4; e++)
            for (int p = 0; p < PAT_COUNT + 1; p++) {
                /* One pattern on every dim, and (p == PAT_COUNT) all patterns rotating. */
                dim_pattern pats[8];
                for (int i = 0; i < n; i++) pats[i] = p < PAT_COUNT ? (dim_pattern)p : (dim_pattern)(i % PAT_COUNT);
                for (int bl = 0; bl < LAY_COUNT; bl++)
                    for (int sl = 0; sl < LAY_COUNT - 1; sl++)
                        for (int grad = 0; grad < 2; grad++) {
                            slice_case c;
                            build_case(&c, n, esizes[e], pats, (layout_kind)bl, (layout_kind)sl, grad, dims);
                            char label[160];
                            snprintf(label, sizeof label, "%s rank %d esize %d pattern %s big %s small %s",
                                     grad ? "grad" : "slice", n, esizes[e],
                                     p < PAT_COUNT ? pattern_names[p] : "rotating", layout_names[bl],
                                     layout_names[sl]);
                            run_case(&c, exec_plain, NULL, label);
                            cases++;
                        }
            }
    }
    printf("table: %d cases\n", cases);
}

static void random_cases(int count, exec_fn exec, dmls_context *ctx) {
    for (int k = 0; k < count; k++) {
        const int32_t n = (int32_t)test_range(1, 8);
        const int esize = 1 << test_range(0, 3);
        int64_t dims[8];
        const int64_t max_dim = n <= 2 ? 40 : n <= 4 ? 10 : 4;
        dim_pattern pats[8];
        for (int i = 0; i < n; i++) {
            dims[i] = test_range(1, max_dim);
            pats[i] = (dim_pattern)test_range(0, PAT_COUNT - 1);
        }
        slice_case c;
        build_case(&c, n, esize, pats, (layout_kind)test_range(0, LAY_COUNT - 1),
                   (layout_kind)test_range(0, LAY_COUNT - 2), test_range(0, 1), dims);
        /* Random windows instead of the patterned ones, on some dims. */
        for (int i = 0; i < n; i++) {
            if (test_range(0, 1)) continue;
            int64_t d = c.big_shape[i];
            c.off[i] = test_range(0, d - 1);
            c.size[i] = test_range(1, d - c.off[i]);
            int64_t a = test_range(1, 4);
            c.stride[i] = test_range(0, 1) ? a : -a;
            int64_t most = 1 + (c.size[i] - 1) / a;
            c.small_shape[i] = test_range(1, most); /* outputs may be short */
        }
        make_layout(c.small_layout, n, c.small_shape, !c.grad, esize, c.small_strides, &c.small_offset);
        c.misalign_in = (size_t)test_range(0, 7);
        c.misalign_out = (size_t)test_range(0, 7);
        char label[64];
        snprintf(label, sizeof label, "random case %d, %d threads", k, ctx ? dmls_context_threads(ctx) : 1);
        run_case(&c, exec, ctx, label);
    }
}

int main(void) {
    test_seed_rng();
    table();
    random_cases(3000, exec_plain, NULL);
    for (int threads = 2; threads <= 5; threads++) {
        dmls_context *ctx = NULL;
        CHECK_STATUS(dmls_context_create(threads, &ctx), DMLS_OK);
        if (!ctx) continue;
        dmls_context_set_parallel_min_bytes(ctx, 0);
        random_cases(400, exec_on, ctx);
        dmls_context_destroy(ctx);
    }
    TEST_MAIN_END();
}
