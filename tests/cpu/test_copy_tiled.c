/* The tiled kernels (src/cpu/copy_tiled.h) against dmls_execute_reference,
 * byte for byte, through every CPU plan variant (variants.h): transposes of
 * every item width (1, 2, 4, 8, and 3 and 16 bytes folded from short runs)
 * at sizes around the sub-tile, the block, the panel and the chunk of rows, with the input or
 * the output view permuted and either axis reversed, asserting the dispatch
 * chose the tiled kernel; random permuted views of ranks 2-8 under random
 * windows, steps, reversals and padding; and transposes with the input
 * against guard pages, so a read outside it faults. */
#include "cpu/copy_tiled.h"
#include "support/guarded.h"
#include "support/layout.h"
#include "variants.h"

/* The tiled kernel the dispatch picks with `features` for items of width w
 * read contiguously along the rows. */
static dmls_cpu_kernel want_tiled(unsigned features, int w) {
    const bool pow2 = w == 1 || w == 2 || w == 4 || w == 8;
#if defined(__x86_64__) || defined(__i386__)
    if (pow2 && (features & DMLS_CPU_AVX2)) return DMLS_CPU_TILED_AVX2;
#elif DMLS_CPU_NEON_KERNELS
    if (pow2 && (features & DMLS_CPU_NEON)) return DMLS_CPU_TILED_NEON;
#elif DMLS_CPU_SIMD128_KERNELS
    if (pow2 && (features & DMLS_CPU_SIMD128)) return DMLS_CPU_TILED_SIMD128;
#endif
    (void)pow2, (void)features;
    return DMLS_CPU_TILED;
}

/* An R x C matrix of items of `run` elements of esize bytes (the run
 * contiguous on both sides, folded into one item) copied to its transpose:
 * the input permuted (read down its columns into a packed output) or the
 * output permuted (a packed input written down the output's columns), with
 * the rows or columns read in reverse. */
static void transpose_case_at(int esize, int64_t run, int64_t R, int64_t C, bool permute_input, int reverse,
                              int in_shift, int out_shift) {
    spec s;
    memset(&s, 0, sizeof s);
    s.esize = esize;
    s.ndim = run > 1 ? 3 : 2;
    const int64_t shape[3] = {C, R, run};
    for (int i = 0; i < s.ndim; i++) {
        s.in_shape[i] = s.out_shape[i] = s.sizes[i] = shape[i];
        s.steps[i] = 1;
    }
    /* The stored matrix is R x C (x run): dims 0 and 1 swap their strides. */
    const int64_t packed[3] = {run, C * run, 1}, plain[3] = {R * run, run, 1};
    for (int i = 0; i < s.ndim; i++) {
        s.in_strides[i] = permute_input ? packed[i] : plain[i];
        s.out_strides[i] = permute_input ? plain[i] : packed[i];
    }
    if (reverse) s.steps[reverse == 1 ? 1 : 0] = -1; /* 1: the output's fast dim, 2: its rows */
    dmls_operator *op = make(&s);
    if (!op) return;
    char what[128];
    snprintf(what, sizeof what, "transpose %lld x %lld of %d x %lld bytes, %s permuted, reverse %d, shifts %d %d",
             (long long)R, (long long)C, esize, (long long)run, permute_input ? "input" : "output", reverse, in_shift,
             out_shift);
    const int w = (int)(esize * run);
    const unsigned have = dmls_cpu_features();
    for (unsigned f = 0; f <= have; f++) {
        if ((f & have) != f) continue;
        dmls_cpu_prepared cp;
        dmls_cpu_prepare(&cp, &op->copy, f, UINT64_MAX, UINT64_MAX);
        const bool tiles = R > 1 && C > 1 && (int64_t)w * (permute_input ? C : R) > 32;
        if (tiles) {
            CHECK(cp.kernel == want_tiled(f, w), "%s, features 0x%x: dispatch chose %s, expected %s", what, f,
                  dmls_cpu_kernel_name(cp.kernel), dmls_cpu_kernel_name(want_tiled(f, w)));
            CHECK(cp.width == w, "%s: item width %d, expected %d", what, cp.width, w);
        }
    }
    check_all_variants_at(op, what, in_shift, out_shift);
    dmls_destroy(op);
}

static void transpose_case(int esize, int64_t run, int64_t R, int64_t C, bool permute_input, int reverse) {
    transpose_case_at(esize, run, R, C, permute_input, reverse, -1, -1);
}

/* Blocks on lines (copy_tiled.h, dmls_tile_peel): transposes whose column
 * and row steps are whole lines, large enough to be walked from the first
 * row and column on a line, with the input and the output starting at
 * offsets within a line (NumPy's arrays start 16 bytes past one; an offset
 * that is not a whole number of items leaves the walk as it was), rows read
 * forwards and backwards, either view permuted. */
static void line_tests(void) {
    static const int shifts[][2] = {{16, 16}, {48, 0}, {0, 40}, {1, 3}, {56, 24}, {8, 8}};
    for (int esize = 1; esize <= 8; esize *= 2) {
        const int64_t b = dmls_tile_items(esize), R = (DMLS_TILE_PEEL_BLOCKS + 1) * b, C = (DMLS_TILE_PEEL_BLOCKS + 2) * b;
        for (int k = 0; k < (int)(sizeof shifts / sizeof shifts[0]); k++)
            transpose_case_at(esize, 1, R, C, k % 2 == 0, k % 3, shifts[k][0], shifts[k][1]);
    }
}

/* The walk by the shape (copy_tiled.h): the six layout cases of
 * bench/cases.json, as the kernels see them (item width, the input's step
 * from one output column to the next). */
static void walk_tests(void) {
    CHECK(dmls_tile_strips(4, 8192 * 4), "t2d_f32 (columns 32 KiB apart) should walk strips");
    CHECK(dmls_tile_strips(4, 1024 * 4), "t3d_021_f32 (columns 4 KiB apart) should walk strips");
    CHECK(!dmls_tile_strips(4, 256 * 4), "nhwc_to_nchw_f32 (256 channels, 1 KiB) should walk panels");
    CHECK(dmls_tile_strips(2, 56 * 56 * 2), "nchw_to_nhwc_f16 (planes of 6,272 bytes) should walk strips");
    CHECK(dmls_tile_strips(1, 8192), "t2d_u8 (columns 8 KiB apart) should walk strips");
    CHECK(dmls_tile_strips(8, -257 * 8) && !dmls_tile_strips(8, -256 * 8), "a reversed step walks by its size");
    /* which strips are staged, in runs of how many bytes (copy_tiled.h) */
    CHECK(dmls_tile_stage_bytes(4, 8192 * 4) == 1024, "t2d_f32 should be staged in runs of 1 KiB");
    CHECK(dmls_tile_stage_bytes(4, 1024 * 4) == 0, "t3d_021_f32 (columns 4 KiB apart) should not be staged");
    CHECK(dmls_tile_stage_bytes(4, 256 * 4) == 0, "nhwc_to_nchw_f32 (panels) should not be staged");
    CHECK(dmls_tile_stage_bytes(2, 56 * 56 * 2) == 512, "nchw_to_nhwc_f16 should be staged in runs of 512 bytes");
    CHECK(dmls_tile_stage_bytes(1, 8192) == 256, "t2d_u8 should be staged in runs of 256 bytes");
    CHECK(dmls_tile_stage_bytes(8, -DMLS_TILE_STAGE_SPAN) == 1024 && dmls_tile_stage_bytes(8, -DMLS_TILE_STAGE_SPAN + 8) == 0,
          "a reversed step is staged by its size");
}

static void directed_tests(void) {
    static const int esizes[4] = {1, 2, 4, 8};
    /* An R x C transpose walks strips when the input's rows (C, or R with
     * the output permuted) hold more than `span` items, panels otherwise. */
    const int64_t span = DMLS_TILE_PANEL_SPAN / DMLS_TILE_PANEL_BYTES, chunk = DMLS_TILE_CHUNK_ROWS;
    for (int e = 0; e < 4; e++) {
        const int64_t w = esizes[e], sub = w == 1 ? 16 : w == 8 ? 4 : 8, b = dmls_tile_items(w),
                      panel = DMLS_TILE_PANEL_BYTES / w;
        /* around a sub-tile, a block, a panel, the span that picks the walk
         * and a strip's chunk of rows, the last chunk whole, then ragged */
        const int64_t sizes[] = {sub - 1, sub + 1,    b - 1,     b,         b + 3,
                                 2 * b + sub + 1, span, span + 1, panel + 5, chunk + b, chunk + 5};
        const int n = (int)(sizeof sizes / sizeof sizes[0]);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                if (sizes[i] * sizes[j] > 300000) continue;
                transpose_case(esizes[e], 1, sizes[i], sizes[j], (i + j) % 2 == 0, (i + 2 * j) % 3);
            }
        transpose_case(esizes[e], 1, 2 * b + 1, 3 * b - 1, true, 0);
        transpose_case(esizes[e], 1, 2 * b + 1, 3 * b - 1, false, 2);
    }
    /* Staged strips of 4- and 8-byte items (columns DMLS_TILE_STAGE_SPAN
     * apart and more): the stage's ragged last column panel and row chunk,
     * rows reversed, either view permuted. */
    for (int e = 2; e < 4; e++) {
        const int64_t w = esizes[e], far = DMLS_TILE_STAGE_SPAN / w + 3, b = dmls_tile_items(w);
        transpose_case(esizes[e], 1, 2 * b + 3, far, true, 0);
        transpose_case(esizes[e], 1, 2 * b + 3, far, true, 2);
        transpose_case(esizes[e], 1, far, 2 * b + 1, false, 1);
        transpose_case(esizes[e], 1, chunk + 3, far, true, 2);
    }
    /* Staged strips of 1- and 2-byte items (blocks of DMLS_TILE_NARROW_COLS
     * columns, moving at least DMLS_TILE_STAGE_MIN bytes): a ragged last
     * stage panel holding whole blocks and a ragged one, a ragged last chunk,
     * rows or columns reversed, either view permuted. */
    for (int e = 0; e < 2; e++) {
        const int64_t w = esizes[e], b = dmls_tile_items(w), rows = chunk + b + 7,
                      cols = dmls_tile_stage_bytes(w, INT32_MAX) / w + DMLS_TILE_NARROW_COLS + 5;
        CHECK(rows * cols * w >= DMLS_TILE_STAGE_MIN, "the staged %lld-byte cases should be staged", (long long)w);
        for (int reverse = 0; reverse < 3; reverse++) {
            transpose_case(esizes[e], 1, rows, cols, true, reverse);
            transpose_case(esizes[e], 1, cols, rows, false, reverse);
        }
    }
    /* Staged calls with fewer columns than a stage row holds (planes to
     * channels last: 3 channels of uint8, 100 of float16), whose stage rows
     * lie as the output's do and go out as one run where those are whole,
     * rows or columns reversed, either view permuted. */
    for (int reverse = 0; reverse < 3; reverse++) {
        transpose_case(1, 1, 3, 22001, true, reverse);
        transpose_case(1, 1, 22001, 3, false, reverse);
        transpose_case(2, 1, 100, 701, true, reverse);
        transpose_case(2, 1, 701, 100, false, reverse);
    }
    /* A few columns whose rows fit in 16 bytes (kernels_tiled_avx2.c:
     * gathered by byte shuffles): 2, 3 and 4 (each compiled apart:
     * interleave.h) and the most columns, a ragged last round of rows,
     * either way reversed. */
    for (int e = 0; e < 3; e++) {
        const int64_t w = esizes[e], most = 16 / w < 8 ? 16 / w : 8, cols[4] = {2, 3, 4, most};
        for (int k = 0; k < (most > 4 ? 4 : 3); k++)
            for (int reverse = 0; reverse < 3; reverse++)
                transpose_case(esizes[e], 1, cols[k], 1000 + 2 * cols[k] + 1, true, reverse);
    }
    /* The other way, pixels of a few channels to planes (kernels_avx2.c,
     * deinterleave): 2, 3 and 4 (each compiled apart: interleave.h) and the
     * most channels a round of 16 bytes holds. */
    for (int e = 0; e < 3; e++) {
        const int64_t most = 16 / esizes[e] < 8 ? 16 / esizes[e] : 8, ks[4] = {2, 3, 4, most};
        for (int i = 0; i < (most > 4 ? 4 : 3); i++) transpose_case(esizes[e], 1, 1000 + ks[i], ks[i], true, 0);
    }
    /* Items folded from runs: complex128 (16 bytes) and RGB pixels (3). */
    transpose_case(8, 2, 37, 41, true, 0);
    transpose_case(8, 2, 41, 37, false, 2);
    transpose_case(1, 3, 70, 67, true, 1);
    transpose_case(1, 3, 67, 70, false, 0);
}

/* Pixels of k channels to planes (kernels_avx2.c, deinterleave), channels
 * c0 .. c0 + cn - 1 of each: the input ending at an inaccessible page (its
 * last pixel's later channels past it), run whole and cut at every row, so
 * that calls start at each channel. */
static void planes_guard_case(int esize, int64_t pixels, int64_t k, int64_t c0, int64_t cn) {
    spec s;
    memset(&s, 0, sizeof s);
    s.esize = esize;
    s.ndim = 2;
    s.in_shape[0] = k, s.in_shape[1] = pixels;
    s.in_strides[0] = 1, s.in_strides[1] = k;
    s.offsets[0] = c0;
    s.sizes[0] = s.out_shape[0] = cn, s.sizes[1] = s.out_shape[1] = pixels;
    s.steps[0] = s.steps[1] = 1;
    s.out_strides[0] = pixels, s.out_strides[1] = 1;
    dmls_operator *op = make(&s);
    if (!op) return;
    const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
    unsigned char *ref = malloc(ob), *out = malloc(ob);
    guarded buf;
    const bool placed = guarded_place(&buf, ib, 0, 1) == 0;
    CHECK(placed, "guard pages");
    if (placed && ref && out) {
        test_fill_random(buf.data, ib);
        CHECK_STATUS(dmls_execute_reference(op, buf.data, ib, ref, ob), DMLS_OK);
        const unsigned have = dmls_cpu_features();
        for (unsigned f = 0; f <= have; f++) {
            if ((f & have) != f) continue;
            dmls_cpu_prepared cpu;
            dmls_cpu_prepare(&cpu, &op->copy, f, UINT64_MAX, UINT64_MAX);
#if defined(__x86_64__) || defined(__i386__)
            if ((f & DMLS_CPU_AVX2) && cn >= 2 && !(k == 2 && esize >= 4)) /* stride2_avx2's before it */
                CHECK(cpu.kernel == DMLS_CPU_DEINTERLEAVE_AVX2, "pixels of %lld channels to %lld planes, %d bytes: %s",
                      (long long)k, (long long)cn, esize, dmls_cpu_kernel_name(cpu.kernel));
#elif DMLS_CPU_NEON_KERNELS
            if ((f & DMLS_CPU_NEON) && cn >= 2)
                CHECK(cpu.kernel == DMLS_CPU_DEINTERLEAVE_NEON, "pixels of %lld channels to %lld planes, %d bytes: %s",
                      (long long)k, (long long)cn, esize, dmls_cpu_kernel_name(cpu.kernel));
#endif
            for (uint64_t cut = 0; cut < cpu.items; cut += (uint64_t)pixels) { /* a call from each row on */
                memset(out, 0x5A, ob);
                if (cut > 0) dmls_cpu_run_range(&cpu, buf.data, out, 0, cut);
                dmls_cpu_run_range(&cpu, buf.data, out, cut, cpu.items);
                CHECK(memcmp(out, ref, ob) == 0,
                      "pixels of %lld channels to planes %lld-%lld, %d bytes, kernel %s, cut at row %llu: differs",
                      (long long)k, (long long)c0, (long long)(c0 + cn - 1), esize, dmls_cpu_kernel_name(cpu.kernel),
                      (unsigned long long)(cut / (uint64_t)pixels));
            }
        }
        guarded_free(&buf);
    }
    free(ref);
    free(out);
    dmls_destroy(op);
}

/* Random views of ranks 2-8 whose storage orders are random permutations,
 * under random windows; returns how many took a tiled kernel. */
static int random_tests(int count) {
    static const int esizes[4] = {1, 2, 4, 8};
    int tiled = 0;
    for (int k = 0; k < count; k++) {
        spec s;
        memset(&s, 0, sizeof s);
        s.esize = esizes[test_range(0, 3)];
        s.ndim = (int)test_range(2, 8);
        const int64_t max_dim = s.ndim == 2 ? 150 : s.ndim == 3 ? 40 : s.ndim <= 5 ? 9 : 4;
        for (int i = 0; i < s.ndim; i++) {
            int64_t S = test_range(1, max_dim);
            s.in_shape[i] = S;
            s.steps[i] = 1;
            s.sizes[i] = s.out_shape[i] = S;
            if (test_range(0, 2) == 0) { /* a window on some dims */
                s.offsets[i] = test_range(0, S - 1);
                s.sizes[i] = test_range(1, S - s.offsets[i]);
                int64_t t = test_range(1, 2);
                s.steps[i] = test_range(0, 2) ? t : -t;
                s.out_shape[i] = 1 + (s.sizes[i] - 1) / t;
            }
        }
        const random_layout_kind kinds[3] = {RANDOM_PACKED, RANDOM_PADDED, RANDOM_ANY};
        const int which = (int)test_range(0, 2); /* 0: input permuted, 1: output, 2: both */
        const random_layout_kind kin = kinds[test_range(0, 2)], kout = kinds[test_range(0, 1)];
        if (which != 1) random_permuted_layout(kin, s.ndim, s.in_shape, true, (size_t)s.esize, s.in_strides, &s.in_off);
        else random_layout(kin, s.ndim, s.in_shape, true, (size_t)s.esize, s.in_strides, &s.in_off);
        if (which != 0)
            random_permuted_layout(kout, s.ndim, s.out_shape, false, (size_t)s.esize, s.out_strides, &s.out_off);
        else random_layout(kout, s.ndim, s.out_shape, false, (size_t)s.esize, s.out_strides, &s.out_off);
        dmls_operator *op = make(&s);
        if (!op) continue;
        tiled += dmls_cpu_prepared_of(op)->tiled;
        char what[64];
        snprintf(what, sizeof what, "random permuted #%d (rank %d, esize %d)", k, s.ndim, s.esize);
        check_all_variants(op, what);
        dmls_destroy(op);
    }
    return tiled;
}

/* A transpose whose input starts just after, then ends just before, an
 * inaccessible page, through every variant. */
static void guard_case(int esize, int64_t R, int64_t C, int reverse) {
    spec s;
    memset(&s, 0, sizeof s);
    s.esize = esize;
    s.ndim = 2;
    const int64_t shape[2] = {C, R};
    for (int i = 0; i < 2; i++) s.in_shape[i] = s.out_shape[i] = s.sizes[i] = shape[i], s.steps[i] = 1;
    s.in_strides[0] = 1, s.in_strides[1] = C;
    s.out_strides[0] = R, s.out_strides[1] = 1;
    if (reverse) s.steps[reverse - 1] = -1;
    dmls_operator *op = make(&s);
    if (!op) return;
    const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
    unsigned char *ref = malloc(ob), *out = malloc(ob);
    const unsigned have = dmls_cpu_features();
    for (int a = 0; a < 2; a++) {
        guarded buf;
        const bool placed = guarded_place(&buf, ib, 0, a) == 0;
        CHECK(placed, "guard pages");
        if (!placed) break;
        test_fill_random(buf.data, ib);
        CHECK_STATUS(dmls_execute_reference(op, buf.data, ib, ref, ob), DMLS_OK);
        for (unsigned f = 0; f <= have; f++)
            for (int cached = 0; cached < 2 && (f & have) == f; cached++) {
                dmls_operator v = *op;
                dmls_cpu_prepared cpu;
                dmls_cpu_prepare(&cpu, &v.copy, f, UINT64_MAX, cached ? UINT64_MAX : 0);
                v.prepared[DMLS_BACKEND_CPU] = &cpu;
                memset(out, 0x5A, ob);
                CHECK_STATUS(dmls_execute(&v, buf.data, ib, out, ob), DMLS_OK);
                CHECK(memcmp(out, ref, ob) == 0,
                      "guarded transpose %lldx%lld of %d bytes, kernel %s, %s, input %s a guard page", (long long)R,
                      (long long)C, esize, dmls_cpu_kernel_name(cpu.kernel), cached ? "cached" : "not cached",
                      a ? "ending at" : "starting after");
            }
        guarded_free(&buf);
    }
    free(ref);
    free(out);
    dmls_destroy(op);
}

/* The bytes of item i of a tiled copy cut by the input's rows, where items
 * run column by column in each plane (rows x cols): its output address,
 * from the prepared steps (the oracle of which items a share holds). */
static int64_t column_order_dst(const dmls_cpu_prepared *cp, uint64_t i) {
    const int n = cp->ndim;
    const uint64_t R = (uint64_t)cp->shape[n - 2], C = (uint64_t)cp->shape[n - 1];
    int64_t at = cp->dst_offset + (int64_t)(i % R) * cp->dst_step[n - 2];
    i /= R;
    at += (int64_t)(i % C) * cp->dst_step[n - 1];
    i /= C;
    for (int d = n - 3; d >= 0; d--) {
        at += (int64_t)(i % (uint64_t)cp->shape[d]) * cp->dst_step[d];
        i /= (uint64_t)cp->shape[d];
    }
    return at;
}

/* One share [first, last) of a tiled copy cut by the input's rows writes
 * exactly its items in column order (a band of the output's columns, all
 * rows, a column cut short at either end) and nothing else. */
static void check_share(const dmls_operator *op, const dmls_cpu_prepared *cp, uint64_t first, uint64_t last,
                        const char *what) {
    const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
    unsigned char *in = malloc(ib), *ref = malloc(ob), *out = malloc(ob), *want = malloc(ob);
    test_fill_random(in, ib);
    memset(ref, 0xA5, ob);
    CHECK_STATUS(dmls_execute_reference(op, in, ib, ref, ob), DMLS_OK);
    memset(out, 0x5A, ob);
    memset(want, 0x5A, ob);
    for (uint64_t i = first; i < last; i++) {
        const int64_t at = column_order_dst(cp, i);
        memcpy(want + at, ref + at, (size_t)cp->width);
    }
    dmls_cpu_run_range(cp, in, out, first, last);
    CHECK(memcmp(out, want, ob) == 0, "%s: share [%llu, %llu) of %llu items (grain %llu) misplaced", what,
          (unsigned long long)first, (unsigned long long)last, (unsigned long long)cp->items,
          (unsigned long long)cp->split_grain);
    free(in), free(ref), free(out), free(want);
}

/* The cut by the input's rows: random permuted views of ranks 2-8, odd sizes,
 * reversals, cut by the input's rows; shares on the grain (as the context
 * cuts them) and anywhere (as a batch or a test may). */
static void share_tests(int count) {
    int tried = 0;
    for (int k = 0; k < count * 20 && tried < count; k++) {
        spec s;
        memset(&s, 0, sizeof s);
        s.esize = 1 << test_range(0, 3);
        s.ndim = (int)test_range(2, 8);
        const int64_t max_dim = s.ndim == 2 ? 90 : s.ndim == 3 ? 30 : s.ndim <= 5 ? 7 : 4;
        for (int i = 0; i < s.ndim; i++) {
            s.in_shape[i] = s.sizes[i] = s.out_shape[i] = test_range(1, max_dim);
            s.steps[i] = test_range(0, 3) ? 1 : -1;
        }
        random_permuted_layout(RANDOM_PACKED, s.ndim, s.in_shape, true, (size_t)s.esize, s.in_strides, &s.in_off);
        random_layout(RANDOM_PACKED, s.ndim, s.out_shape, false, (size_t)s.esize, s.out_strides, &s.out_off);
        dmls_operator *op = make(&s);
        if (!op) continue;
        dmls_cpu_prepared cp;
        dmls_cpu_prepare(&cp, &op->copy, dmls_cpu_features(), UINT64_MAX, UINT64_MAX);
        if (cp.tiled && cp.ndim >= 2 && cp.shape[cp.ndim - 1] > 1) {
            dmls_cpu_split_tiled(&cp, true);
            char what[64];
            snprintf(what, sizeof what, "share of random tiled #%d (rank %d, esize %d)", k, cp.ndim, s.esize);
            const uint64_t units = (cp.items + cp.split_grain - 1) / cp.split_grain;
            const uint64_t a = (uint64_t)test_range(0, (int64_t)units - 1), z = (uint64_t)test_range((int64_t)a + 1, (int64_t)units);
            check_share(op, &cp, a * cp.split_grain, z * cp.split_grain < cp.items ? z * cp.split_grain : cp.items, what);
            const uint64_t f = (uint64_t)test_range(0, (int64_t)cp.items - 1);
            check_share(op, &cp, f, (uint64_t)test_range((int64_t)f + 1, (int64_t)cp.items), what);
            tried++;
        }
        dmls_destroy(op);
    }
    CHECK(tried == count, "only %d of %d random views were tiled copies to cut", tried, count);
}

int main(void) {
    test_seed_rng();
    for (int t = 1; t <= 4; t++) {
        CHECK_STATUS(dmls_context_create(t, &contexts[t]), DMLS_OK);
        if (contexts[t]) dmls_context_set_parallel_min_bytes(contexts[t], 0);
    }
    walk_tests();
    directed_tests();
    line_tests();
    for (int es = 1; es <= 8; es *= 2)
        for (int reverse = 0; reverse <= 2; reverse++) {
            guard_case(es, 35, 67, reverse);
            guard_case(es, 3, 1001, reverse); /* a few columns (the shuffle gather) */
        }
    for (int es = 1; es <= 4; es *= 2)
        for (int64_t k = 2, most = 16 / es < 8 ? 16 / es : 8; k <= most; k = k < 4 && k < most ? k + 1 : k < most ? most : most + 1) {
            /* whole rounds of 16 / es pixels, and a ragged last one */
            for (int64_t pixels = 1024; pixels <= 1027; pixels += 3) {
                planes_guard_case(es, pixels, k, 0, k);
                planes_guard_case(es, pixels, k, 1, k - 1);
                planes_guard_case(es, pixels, k, 0, k - 1 > 1 ? k - 1 : 1);
            }
        }
    share_tests(200);
    const int count = 400, tiled = random_tests(count);
    printf("random permuted views: %d of %d tiled\n", tiled, count);
    CHECK(tiled >= count / 8, "only %d of %d random permuted views took a tiled kernel", tiled, count);
    for (int t = 1; t <= 4; t++) dmls_context_destroy(contexts[t]);
    TEST_MAIN_END();
}
