/* Every CPU kernel and ISA variant against dmls_execute_reference, byte for
 * byte: random slices of ranks 1-8 and element sizes 1/2/4/8 over padded,
 * negative-stride and broadcast layouts at misaligned addresses, each run with
 * every feature set this CPU has, with and without streaming stores, on 1 to
 * 4 threads; then slices built to hit each specialized kernel, asserting the
 * dispatch chose it; then the specialized kernels with the input against
 * guard pages on either side, so a read outside the input faults. */
#include "support/guarded.h"
#include "support/layout.h"
#include "variants.h"

static void random_spec(spec *s) {
    static const int sizes[4] = {1, 2, 4, 8};
    s->esize = sizes[test_range(0, 3)];
    s->ndim = (int)test_range(1, 8);
    int64_t max_dim = s->ndim <= 2 ? 300 : s->ndim <= 4 ? 12 : 4;
    for (int i = 0; i < s->ndim; i++) {
        int64_t S = test_range(1, max_dim);
        s->in_shape[i] = S;
        s->offsets[i] = test_range(0, S - 1);
        s->sizes[i] = test_range(1, S - s->offsets[i]);
        int64_t t = test_range(1, 3);
        if (test_range(0, 3) == 0) t = -t;
        s->steps[i] = t;
        int64_t most = 1 + (s->sizes[i] - 1) / (t < 0 ? -t : t);
        s->out_shape[i] = test_range(0, 3) ? most : test_range(1, most);
    }
    int kind = (int)test_range(0, 2);
    random_layout(kind == 0 ? RANDOM_PACKED : RANDOM_ANY, s->ndim, s->in_shape, true, (size_t)s->esize, s->in_strides,
                  &s->in_off);
    random_layout(kind != 2 ? RANDOM_PACKED : RANDOM_ANY, s->ndim, s->out_shape, false, (size_t)s->esize,
                  s->out_strides, &s->out_off);
}

static void random_tests(int count) {
    for (int k = 0; k < count; k++) {
        spec s;
        memset(&s, 0, sizeof s);
        random_spec(&s);
        dmls_operator *op = make(&s);
        if (!op) continue;
        char what[64];
        snprintf(what, sizeof what, "random #%d (rank %d, esize %d)", k, s.ndim, s.esize);
        check_all_variants(op, what);
        dmls_destroy(op);
    }
}

/* A packed input of in_shape sliced by (offsets, sizes, steps) into a packed
 * output (random_layout with packed = true). */
static void packed_spec(spec *s, int esize, int ndim, const int64_t *in_shape, const int64_t *offsets,
                        const int64_t *sizes, const int64_t *steps) {
    memset(s, 0, sizeof *s);
    s->esize = esize;
    s->ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        s->in_shape[i] = in_shape[i];
        s->offsets[i] = offsets[i];
        s->sizes[i] = sizes[i];
        s->steps[i] = steps[i];
        int64_t t = steps[i] < 0 ? -steps[i] : steps[i];
        s->out_shape[i] = 1 + (sizes[i] - 1) / t;
    }
    random_layout(RANDOM_PACKED, ndim, s->in_shape, true, (size_t)esize, s->in_strides, &s->in_off);
    random_layout(RANDOM_PACKED, ndim, s->out_shape, false, (size_t)esize, s->out_strides, &s->out_off);
}

/* The kernel the dispatch picks with every feature the CPU has, for a case
 * whose AVX2 kernel is want_avx2: that one on x86; on AArch64 its NEON
 * counterpart (reversal for reversal, the table-lookup gather for stride +-2
 * and the other shuffles), else the portable kernel. */
static dmls_cpu_kernel want_simd(dmls_cpu_kernel want_avx2, dmls_cpu_kernel want_portable) {
#if DMLS_CPU_NEON_KERNELS
    switch (want_avx2) {
    case DMLS_CPU_REVERSE_AVX2: return DMLS_CPU_REVERSE_NEON;
    case DMLS_CPU_STRIDE2_AVX2:
    case DMLS_CPU_SHUFFLE_AVX2:
    case DMLS_CPU_SHUFFLE3_AVX2: return DMLS_CPU_SHUFFLE_NEON;
    default: return want_portable;
    }
#else
    (void)want_portable;
    return want_avx2;
#endif
}

/* A packed input of in_shape, sliced by (offsets, sizes, steps) into a packed
 * output; the dispatch must pick `want` (with AVX2 or NEON when the CPU has
 * it) and `width`, and every variant must match the reference. */
static void directed(const char *what, int esize, int ndim, const int64_t *in_shape, const int64_t *offsets,
                     const int64_t *sizes, const int64_t *steps, dmls_cpu_kernel want_avx2,
                     dmls_cpu_kernel want_portable, int width) {
    spec s;
    packed_spec(&s, esize, ndim, in_shape, offsets, sizes, steps);
    dmls_operator *op = make(&s);
    if (!op) return;
    dmls_cpu_prepared cp;
    const unsigned have = dmls_cpu_features();
    dmls_cpu_prepare(&cp, &op->copy, have, 0, 0);
    dmls_cpu_kernel want = have ? want_simd(want_avx2, want_portable) : want_portable;
    CHECK(cp.kernel == want, "%s: dispatch chose %s, expected %s", what, dmls_cpu_kernel_name(cp.kernel),
          dmls_cpu_kernel_name(want));
    CHECK(cp.width == width, "%s: item width %d, expected %d", what, cp.width, width);
    dmls_cpu_prepare(&cp, &op->copy, 0, 0, 0);
    CHECK(cp.kernel == want_portable, "%s: portable dispatch chose %s, expected %s", what,
          dmls_cpu_kernel_name(cp.kernel), dmls_cpu_kernel_name(want_portable));
    check_all_variants(op, what);
    dmls_destroy(op);
}

static void directed_tests(void) {
    const dmls_cpu_kernel SH = DMLS_CPU_SHUFFLE_AVX2, ST = DMLS_CPU_STRIDED;
    const int64_t o0[4] = {0, 0, 0, 0}, o1[4] = {0, 1, 1, 1}, p1[4] = {1, 1, 1, 1};
    /* Contiguous rows: a crop; long enough to reach the streaming loop. */
    { int64_t in[2] = {3, 1000}, sz[2] = {3, 997};
      directed("crop rows", 4, 2, in, o1, sz, p1, DMLS_CPU_CONTIG_NT_AVX2, DMLS_CPU_CONTIG, 4); }
    /* Forward shuffles take three loads per block (shuffle3); stride -2 of
     * 1- and 2-byte items keeps the four-load shuffle. */
    const dmls_cpu_kernel REV = DMLS_CPU_REVERSE_AVX2, S2 = DMLS_CPU_STRIDE2_AVX2, SH3 = DMLS_CPU_SHUFFLE3_AVX2;
    /* Stride 2, every element size: 4 and 8 bytes by blend + permute. */
    for (int es = 1; es <= 8; es *= 2) {
        int64_t in[2] = {3, 771}, sz[2] = {3, 769}, st[2] = {1, 2};
        directed("stride 2", es, 2, in, o1, sz, st, es >= 4 ? S2 : SH3, ST, es);
    }
    /* Reversal of the last axis, every element size. */
    for (int es = 1; es <= 8; es *= 2) {
        int64_t in[2] = {2, 515}, sz[2] = {2, 513}, st[2] = {1, -1};
        directed("reverse", es, 2, in, o1, sz, st, REV, ST, es);
    }
    /* Stride -2 on the last axis. */
    { int64_t in[2] = {2, 600}, sz[2] = {2, 599}, st[2] = {1, -2};
      directed("stride -2 f32", 4, 2, in, o1, sz, st, S2, ST, 4); }
    /* Rows around the vector step and the two-block unroll (one block = 32
     * output bytes), for reversal and stride +-2 of every element size. */
    for (int es = 1; es <= 8; es *= 2) {
        const int64_t per = 32 / es, lens[7] = {per, per + 1, 2 * per - 1, 2 * per, 2 * per + 3, 3 * per + 5, 257};
        for (int li = 0; li < 7; li++) {
            int64_t len = lens[li];
            char what[64];
            { int64_t in[2] = {3, len + 2}, sz[2] = {3, len}, st[2] = {1, -1};
              snprintf(what, sizeof what, "reverse %d x %d bytes", (int)len, es);
              directed(what, es, 2, in, o1, sz, st, REV, ST, es); }
            { int64_t in[2] = {3, 2 * len + 1}, sz[2] = {3, 2 * len - 1}, st[2] = {1, 2};
              snprintf(what, sizeof what, "stride 2, %d x %d bytes", (int)len, es);
              directed(what, es, 2, in, o0, sz, st, es >= 4 ? S2 : SH3, ST, es); }
            { int64_t in[2] = {3, 2 * len + 1}, sz[2] = {3, 2 * len - 1}, st[2] = {1, -2};
              snprintf(what, sizeof what, "stride -2, %d x %d bytes", (int)len, es);
              directed(what, es, 2, in, o1, sz, st, es >= 4 ? S2 : SH, ST, es); }
        }
    }
    /* RGB crop keeping 2 of 3 channels: folded into 2-byte items every 3 bytes. */
    { int64_t in[3] = {9, 301, 3}, sz[3] = {7, 293, 2};
      directed("rgb 2 of 3", 1, 3, in, o1, sz, p1, SH3, ST, 2); }
    /* rgb rows around the one- and two-block steps (16 and 32 pixels). */
    for (int64_t len = 15; len <= 66; len += (len == 17 ? 13 : len == 34 ? 29 : 1)) {
        int64_t in[3] = {4, len + 1, 3}, sz[3] = {3, len, 2};
        directed("rgb rows", 1, 3, in, o1, sz, p1, len >= 16 ? SH3 : ST, ST, 2);
    }
    /* u8 stride 3 spans 46 bytes per 16 outputs: beyond the shuffle's reach. */
    { int64_t in[2] = {2, 900}, sz[2] = {2, 899}, st[2] = {1, 3};
      directed("u8 stride 3", 1, 2, in, o0, sz, st, ST, ST, 1); }
    /* Short contiguous runs folded into items of odd widths: 3, 6, 12, 24
     * bytes, packed in the output: wide moves (4/8/16 portable, 32 AVX2). */
    const dmls_cpu_kernel WI = DMLS_CPU_STRIDED_WIDE, W32 = DMLS_CPU_STRIDED_WIDE_AVX2;
    { int64_t in[3] = {5, 7, 4}, sz[3] = {5, 6, 3};
      directed("runs of 3 bytes", 1, 3, in, o0, sz, p1, WI, WI, 3); }
    { int64_t in[3] = {5, 7, 4}, sz[3] = {5, 6, 3};
      directed("runs of 6 bytes", 2, 3, in, o0, sz, p1, WI, WI, 6); }
    { int64_t in[3] = {5, 7, 4}, sz[3] = {5, 6, 3};
      directed("runs of 12 bytes", 4, 3, in, o0, sz, p1, WI, WI, 12); }
    { int64_t in[3] = {5, 7, 4}, sz[3] = {5, 6, 3};
      directed("runs of 24 bytes", 8, 3, in, o0, sz, p1, W32, ST, 24); }
    /* Runs of 1..8 float32 (4..32 bytes) at every offset: each width class
     * and the last item's exact move. */
    for (int64_t r = 1; r <= 8; r++) {
        int64_t in[3] = {3, 9, 9}, off[3] = {0, 1, 9 - r}, sz[3] = {3, 7, r};
        int w = (int)r * 4;
        dmls_cpu_kernel want = (w & (w - 1)) == 0 ? ST : w < 16 ? WI : W32, portable = w < 16 ? want : ST;
        char what[32];
        snprintf(what, sizeof what, "runs of %d bytes", w);
        directed(what, 4, 3, in, off, sz, p1, want, portable, w);
    }
    /* Runs of 24 bytes read in reverse: the wide move would read past the
     * first item, so items move exactly. */
    { int64_t in[3] = {5, 7, 4}, sz[3] = {5, 6, 3}, st[3] = {1, -1, 1};
      directed("reversed runs of 24 bytes", 8, 3, in, o0, sz, st, ST, ST, 24); }
    /* A single column: one item per row, far apart. */
    { int64_t in[2] = {333, 97}, off[2] = {0, 40}, sz[2] = {333, 1};
      directed("column", 8, 2, in, off, sz, p1, ST, ST, 8); }
    /* deep8d in small: runs of 5 float32 (20 bytes) under 7 outer dims. */
    { int64_t in[8] = {3, 3, 3, 3, 3, 3, 3, 7}, off[8] = {1, 0, 1, 0, 1, 0, 1, 1}, sz[8] = {2, 3, 2, 3, 2, 3, 2, 5};
      int64_t st[8] = {1, 1, 1, 1, 1, 1, 1, 1};
      directed("rank 8 runs", 4, 8, in, off, sz, st, W32, ST, 20); }
}

/* A packed input of in_shape sliced into a packed output, run by every
 * variant with the input's first byte just after an inaccessible page and
 * then with its last byte just before one. */
static void against_guard_pages(const char *what, int esize, int ndim, const int64_t *in_shape,
                                const int64_t *offsets, const int64_t *sizes, const int64_t *steps) {
    spec s;
    packed_spec(&s, esize, ndim, in_shape, offsets, sizes, steps);
    dmls_operator *op = make(&s);
    if (!op) return;
    const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
    unsigned char *ref = malloc(ob), *out = malloc(ob + 64);
    unsigned have = dmls_cpu_features();
    for (int a = 0; a < 2; a++) {
        guarded buf;
        const bool placed = guarded_place(&buf, ib, 0, a) == 0;
        CHECK(placed, "%s: guard pages", what);
        if (!placed) break;
        unsigned char *in = buf.data;
        test_fill_random(in, ib);
        memset(ref, 0x5A, ob);
        CHECK_STATUS(dmls_execute_reference(op, in, ib, ref, ob), DMLS_OK);
        for (unsigned f = 0; f <= have; f++) {
            if ((f & have) != f) continue;
            for (int nt = 0; nt < 2; nt++) {
                dmls_operator v = *op;
                dmls_cpu_prepared cpu; /* the CPU data, prepared again for the variant */
                dmls_cpu_prepare(&cpu, &v.copy, f, nt ? 0 : UINT64_MAX, nt ? 0 : UINT64_MAX);
                v.prepared[DMLS_BACKEND_CPU] = &cpu;
                /* every item-aligned place on a line: the streamed part
                 * of a row starts on the next one */
                for (size_t shift = 0; shift < 64; shift += (size_t)esize) {
                    memset(out + shift, 0x5A, ob);
                    CHECK_STATUS(dmls_execute(&v, in, ib, out + shift, ob), DMLS_OK);
                    CHECK(memcmp(out + shift, ref, ob) == 0, "%s: kernel %s, input %s a guard page, differs", what,
                          dmls_cpu_kernel_name(cpu.kernel), a ? "ending at" : "starting after");
                }
            }
        }
        guarded_free(&buf);
    }
    free(ref);
    free(out);
    dmls_destroy(op);
}

static void guard_tests(void) {
    const int64_t p1[3] = {1, 1, 1};
    for (int es = 1; es <= 8; es *= 2) {
        const int64_t per = 32 / es, lens[6] = {per, per + 1, 2 * per - 1, 2 * per + 3, 3 * per + 5, 257};
        for (int li = 0; li < 6; li++) {
            const int64_t len = lens[li], o[2] = {0, 0};
            { int64_t in[2] = {3, len}, sz[2] = {3, len}, st[2] = {1, -1};
              against_guard_pages("guarded reverse", es, 2, in, o, sz, st); }
            { int64_t in[2] = {3, 2 * len - 1}, sz[2] = {3, 2 * len - 1}, st[2] = {1, 2};
              against_guard_pages("guarded stride 2", es, 2, in, o, sz, st); }
            { int64_t in[2] = {3, 2 * len - 1}, sz[2] = {3, 2 * len - 1}, st[2] = {-1, -2};
              against_guard_pages("guarded stride -2", es, 2, in, o, sz, st); }
        }
    }
    /* 2 of 3 bytes (first two, last two), and runs of 1..8 floats in rows of
     * 9 (first and last run of a row at the input's ends). */
    for (int64_t len = 15; len <= 41; len += 13) {
        const int64_t o0[3] = {0, 0, 0}, o1[3] = {0, 0, 1};
        int64_t in[3] = {3, len, 3}, sz[3] = {3, len, 2};
        against_guard_pages("guarded rgb", 1, 3, in, o0, sz, p1);
        against_guard_pages("guarded gb", 1, 3, in, o1, sz, p1);
    }
    for (int64_t r = 1; r <= 8; r++) {
        const int64_t o0[3] = {0, 0, 0}, oe[3] = {0, 0, 9 - r};
        int64_t in[3] = {2, 7, 9}, sz[3] = {2, 7, r};
        against_guard_pages("guarded runs", 4, 3, in, o0, sz, p1);
        against_guard_pages("guarded runs", 4, 3, in, oe, sz, p1);
    }
}

/* The plan's memory-traffic estimate, which decides whether a copy is cut
 * between threads (context.c), whether it streams its stores and whether it
 * is taken as cached (the tiled walk's blocks, copy_tiled.h): output bytes
 * plus, per item, its input step, at least its width and at most one 64-byte
 * line. */
static void traffic_tests(void) {
    struct {
        const char *what;
        int esize;
        int64_t in_shape[2], offsets[2], sizes[2], steps[2];
        uint64_t want;
    } cases[] = {
        /* a column of int64 out of 64-element rows: each item its own line */
        {"column", 8, {16384, 64}, {0, 5}, {16384, 1}, {1, 1}, 16384 * 8 + 16384 * 64},
        /* whole rows: output read once, written once */
        {"rows", 4, {8, 64}, {1, 0}, {6, 64}, {1, 1}, 2 * 6 * 64 * 4},
        /* every other float: 8 input bytes an item */
        {"stride 2", 4, {4, 64}, {0, 0}, {4, 64}, {1, 2}, 4 * 32 * 4 + 4 * 32 * 8},
    };
    const bool avx2 = (dmls_cpu_features() & DMLS_CPU_AVX2) != 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        spec s;
        packed_spec(&s, cases[k].esize, 2, cases[k].in_shape, cases[k].offsets, cases[k].sizes, cases[k].steps);
        dmls_operator *op = make(&s);
        if (!op) continue;
        dmls_cpu_prepared cp;
        dmls_cpu_prepare(&cp, &op->copy, avx2 ? DMLS_CPU_AVX2 : 0, UINT64_MAX, UINT64_MAX);
        CHECK(cp.traffic_bytes == cases[k].want, "%s: traffic %llu bytes, want %llu", cases[k].what,
              (unsigned long long)cp.traffic_bytes, (unsigned long long)cases[k].want);
        CHECK(!cp.nontemporal, "%s: streams below its threshold", cases[k].what);
        /* Cached up to the cache's size, the traffic included. */
        dmls_cpu_prepare(&cp, &op->copy, avx2 ? DMLS_CPU_AVX2 : 0, UINT64_MAX, cases[k].want);
        CHECK(cp.cached, "%s: not cached in a cache of its traffic's size", cases[k].what);
        dmls_cpu_prepare(&cp, &op->copy, avx2 ? DMLS_CPU_AVX2 : 0, UINT64_MAX, cases[k].want - 1);
        CHECK(!cp.cached, "%s: cached in a cache one byte under its traffic", cases[k].what);
        if (avx2 && strcmp(cases[k].what, "stride 2") == 0) {
            /* Streaming starts exactly at the threshold. */
            dmls_cpu_prepare(&cp, &op->copy, DMLS_CPU_AVX2, cases[k].want, UINT64_MAX);
            CHECK(cp.nontemporal, "stride 2: no streaming stores at a threshold equal to its traffic");
            dmls_cpu_prepare(&cp, &op->copy, DMLS_CPU_AVX2, cases[k].want + 1, UINT64_MAX);
            CHECK(!cp.nontemporal, "stride 2: streaming stores one byte under the threshold");
        }
        dmls_destroy(op);
    }
}

/* ------------------------------------------------------------------
 * Edges found by mutation testing (docs/mutation.md): choices the random
 * and directed cases above leave free (the kernel for single elements,
 * short 1-D runs, overlapping input items and rows of 31 bytes; the item
 * count of an unfolded rank-8 copy), the AVX2 wide move at widths 17..31
 * with padding after each row, and the streaming contiguous row at every
 * length and destination alignment near its loop steps.
 * ------------------------------------------------------------------ */

/* A native slice of `in` (strides may be NULL: packed) into `out`. */
static dmls_operator *make_views(int esize, int ndim, const int64_t *in_shape, const int64_t *in_strides,
                                 const int64_t *offsets, const int64_t *sizes, const int64_t *steps,
                                 const int64_t *out_shape, const int64_t *out_strides) {
    dmls_tensor in = {test_dtype_of_size(esize), ndim, in_shape, in_strides, 0};
    dmls_tensor out = {test_dtype_of_size(esize), ndim, out_shape, out_strides, 0};
    dmls_window win = {offsets, sizes, steps};
    dmls_operator *op = NULL;
    dmls_status st = dmls_create(&in, &out, &win, &op);
    CHECK(st == DMLS_OK, "create: %s", dmls_last_error());
    return op;
}

/* The kernel chosen with `features` and no streaming must be `want`. */
static void check_kernel(const dmls_operator *op, unsigned features, dmls_cpu_kernel want, const char *what) {
    dmls_cpu_prepared cp;
    dmls_cpu_prepare(&cp, &op->copy, features, UINT64_MAX, UINT64_MAX);
    CHECK(cp.kernel == want, "%s (features 0x%x): dispatch chose %s, expected %s", what, features,
          dmls_cpu_kernel_name(cp.kernel), dmls_cpu_kernel_name(want));
}

/* A single element (a plan of rank 0) and a 1-D run of at most 32 bytes:
 * both are one contiguous row of items of the element size, copied by
 * memcpy; nothing to fold, since there is no outer dim to keep. */
static void single_row_tests(void) {
    const unsigned have = dmls_cpu_features();
    for (int es = 1; es <= 8; es *= 2) {
        const int64_t in[1] = {40}, one[1] = {1};
        char what[64];
        for (int64_t len = 1; len <= 5; len += 4) {
            const int64_t off[1] = {3}, sz[1] = {len};
            dmls_operator *op = make_views(es, 1, in, NULL, off, sz, one, sz, NULL);
            if (!op) continue;
            snprintf(what, sizeof what, "1-D run of %d x %d bytes", (int)len, es);
            for (unsigned f = 0; f <= have; f++) {
                if ((f & have) != f) continue;
                check_kernel(op, f, DMLS_CPU_CONTIG, what);
                dmls_cpu_prepared cp;
                dmls_cpu_prepare(&cp, &op->copy, f, UINT64_MAX, UINT64_MAX);
                CHECK(cp.ndim == 1 && cp.width == es && cp.shape[0] == len && cp.items == (uint64_t)len,
                      "%s: prepared as rank %d, width %d, %lld items in the row, %llu items; want rank 1, width %d, "
                      "%lld and %lld",
                      what, (int)cp.ndim, (int)cp.width, (long long)cp.shape[0], (unsigned long long)cp.items, es,
                      (long long)len, (long long)len);
                CHECK(cp.item_src_step == es && cp.item_dst_step == es,
                      "%s: item steps %lld (input) and %lld (output), want %d", what, (long long)cp.item_src_step,
                      (long long)cp.item_dst_step, es);
            }
            check_all_variants(op, what);
            dmls_destroy(op);
        }
    }
}

/* Overlapping input items (strides {1, 1}: each row of 3 starts one element
 * after the last): folded into items of 3 or 6 bytes read every 1 or 2
 * bytes, so ss + width equals the wide move's 4 or 8 bytes, its least room. */
static void overlapping_input_tests(void) {
    for (int es = 1; es <= 2; es++) {
        const int64_t in[2] = {40, 3}, st[2] = {1, 1}, o[2] = {0, 0}, one[2] = {1, 1};
        dmls_operator *op = make_views(es, 2, in, st, o, in, one, in, NULL);
        if (!op) continue;
        const char *what = es == 1 ? "rows of 3 bytes a byte apart" : "rows of 6 bytes 2 bytes apart";
        check_kernel(op, dmls_cpu_features(), DMLS_CPU_STRIDED_WIDE, what);
        check_kernel(op, 0, DMLS_CPU_STRIDED_WIDE, what);
        check_all_variants(op, what);
        dmls_destroy(op);
    }
}

/* Rows of 1-byte items: 31 output bytes are below the SIMD kernels' one
 * vector, 32 reach it. */
static void short_row_tests(void) {
    const int64_t o1[2] = {0, 1};
    for (int64_t len = 31; len <= 32; len++) {
        const int64_t in[2] = {3, len + 2}, sz[2] = {3, len}, st[2] = {1, -1};
        char what[48];
        snprintf(what, sizeof what, "reverse %d x 1 byte", (int)len);
        directed(what, 1, 2, in, o1, sz, st, len < 32 ? DMLS_CPU_STRIDED : DMLS_CPU_REVERSE_AVX2, DMLS_CPU_STRIDED,
                 1);
    }
    /* 4 of every 6 bytes: items of 4 bytes (the one power of two only a
     * fold makes with a step that is not a multiple of it) by shuffles. */
    const int64_t in[3] = {2, 20, 6}, o0[3] = {0, 0, 0}, sz[3] = {2, 20, 4}, p1[3] = {1, 1, 1};
    directed("4 of 6 bytes", 1, 3, in, o0, sz, p1, DMLS_CPU_SHUFFLE3_AVX2, DMLS_CPU_STRIDED, 4);
}

/* Rank 8 with nothing to merge or fold (every dim stepped by 2): the copy
 * keeps 8 dims and 256 items. */
static void rank8_tests(void) {
    int64_t in[8], o[8], sz[8], st[8], out[8];
    for (int i = 0; i < 8; i++) in[i] = 3, o[i] = 0, sz[i] = 3, st[i] = 2, out[i] = 2;
    dmls_operator *op = make_views(1, 8, in, NULL, o, sz, st, out, NULL);
    if (!op) return;
    dmls_cpu_prepared cp;
    dmls_cpu_prepare(&cp, &op->copy, dmls_cpu_features(), UINT64_MAX, UINT64_MAX);
    CHECK(cp.ndim == 8 && cp.items == 256 && cp.out_bytes == 256,
          "unfolded rank 8: rank %d, %llu items, %llu output bytes; want 8, 256, 256", (int)cp.ndim,
          (unsigned long long)cp.items, (unsigned long long)cp.out_bytes);
    check_all_variants(op, "unfolded rank 8");
    dmls_destroy(op);
}

/* Runs of 1..32 bytes out of 33-byte input rows into output rows with 3
 * bytes of padding after each: a move that writes past a row's last item
 * lands in the padding (compared with the rest), one that stops short
 * leaves the item's last bytes. */
static void wide_width_tests(void) {
    const unsigned have = dmls_cpu_features();
    for (int64_t r = 1; r <= 32; r++) {
        const int64_t in[3] = {3, 7, 33}, o[3] = {0, 0, 33 - r}, sz[3] = {3, 7, r}, one[3] = {1, 1, 1};
        const int64_t ostr[3] = {7 * r + 3, r, 1};
        dmls_operator *op = make_views(1, 3, in, NULL, o, sz, one, sz, ostr);
        if (!op) continue;
        char what[48];
        snprintf(what, sizeof what, "runs of %d bytes, padded rows", (int)r);
        const int w = (int)r;
        const bool pow2 = (w & (w - 1)) == 0;
        dmls_cpu_kernel portable = pow2 || w > 16 ? DMLS_CPU_STRIDED : DMLS_CPU_STRIDED_WIDE;
        check_kernel(op, 0, portable, what);
#if defined(__x86_64__) || defined(__i386__)
        if (have & DMLS_CPU_AVX2) check_kernel(op, have, !pow2 && w > 16 ? DMLS_CPU_STRIDED_WIDE_AVX2 : portable, what);
#endif
        check_all_variants(op, what);
        dmls_destroy(op);
    }
    (void)have;
}

/* The streaming contiguous row (AVX2) at 256..448 bytes from each place on
 * a 64-byte line: ordinary stores up to the line, 128-byte steps, one
 * 64-byte step, ordinary stores after; no byte after the row is written. */
static void contig_nt_row_tests(void) {
#if defined(__x86_64__) || defined(__i386__)
    if (!(dmls_cpu_features() & DMLS_CPU_AVX2)) return;
    enum { MAX_BYTES = 448, ROOM = 64 + MAX_BYTES + 64 };
    unsigned char *src = malloc(MAX_BYTES), *raw = malloc(ROOM + 64);
    unsigned char *line = raw + (64 - ((uintptr_t)raw & 63)) % 64; /* 64-byte aligned */
    test_fill_random(src, MAX_BYTES);
    dmls_cpu_prepared p;
    memset(&p, 0, sizeof p);
    p.width = 1;
    int bad = 0;
    for (size_t shift = 0; shift < 64 && !bad; shift++)
        for (size_t bytes = 256; bytes <= MAX_BYTES && !bad; bytes++) {
            memset(line, 0xA5, ROOM);
            dmls_cpu_rows_contig_nt_avx2(line + shift, src, (int64_t)bytes, 1, &p);
            dmls_cpu_store_fence();
            size_t after = shift + bytes;
            bool ok = memcmp(line + shift, src, bytes) == 0;
            for (size_t b = 0; b < shift; b++) ok = ok && line[b] == 0xA5;
            for (size_t b = after; b < ROOM; b++) ok = ok && line[b] == 0xA5;
            CHECK(ok, "contig_nt_avx2: a row of %zu bytes at %zu bytes past a line differs or writes outside",
                  bytes, shift);
            bad = !ok;
        }
    free(src);
    free(raw);
#endif
}

static void context_tests(void) {
    dmls_context *ctx = (dmls_context *)&ctx;
    CHECK_STATUS(dmls_context_create(-1, &ctx), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(ctx == NULL, "a failed create leaves the handle NULL");
    CHECK_STATUS(dmls_context_create(1025, &ctx), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "1025") != NULL, "message names the count: %s", dmls_last_error());
    CHECK_STATUS(dmls_context_create(1, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_context_create(3, &ctx), DMLS_OK);
    CHECK(ctx && dmls_context_threads(ctx) == 3, "three threads");
    dmls_context_destroy(ctx);
    dmls_context_destroy(NULL);
}

int main(void) {
    test_seed_rng();
    context_tests();
    traffic_tests();
    for (int t = 1; t <= 4; t++) {
        CHECK_STATUS(dmls_context_create(t, &contexts[t]), DMLS_OK);
        /* Cut even tiny copies between threads, so the split is tested. */
        if (contexts[t]) dmls_context_set_parallel_min_bytes(contexts[t], 0);
    }
    printf("cpu features 0x%x\n", dmls_cpu_features());
    directed_tests();
    single_row_tests();
    overlapping_input_tests();
    short_row_tests();
    rank8_tests();
    wide_width_tests();
    contig_nt_row_tests();
    guard_tests();
    random_tests(1500);
    for (int t = 1; t <= 4; t++) dmls_context_destroy(contexts[t]);
    TEST_MAIN_END();
}
