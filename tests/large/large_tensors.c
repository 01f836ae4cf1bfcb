/* Tensors over 2^32 elements and over 4 GiB through the native API, checked
 * against the operator's definition on sampled coordinates (the full
 * reference would take minutes). Needs about 2.2x the input size in memory,
 * so CTest runs it only when DMLS_TEST_LARGE=1; the GPU machine's host runs
 * it in scripts/large-check.sh. The DirectML path must reject the same
 * shapes by R-T-ELEMS. A batch with an item of more than 2^32 elements runs
 * last (R-B-ITEM). */
#include <stdlib.h>

#include "dmlslice/batch.h"
#include "dmlslice/dml.h"
#include "support/test.h"

/* The input's element i holds a hash of i, so a wrong index shows. */
static inline uint8_t value_u8(uint64_t i) { return (uint8_t)((i * 0x9E3779B97F4A7C15ull) >> 56); }
static inline uint32_t value_u32(uint64_t i) { return (uint32_t)((i * 0x9E3779B97F4A7C15ull) >> 32); }

static void fill(void *p, uint64_t n, int esize) {
    if (esize == 1)
        for (uint64_t i = 0; i < n; i++) ((uint8_t *)p)[i] = value_u8(i);
    else
        for (uint64_t i = 0; i < n; i++) ((uint32_t *)p)[i] = value_u32(i);
}

/* Slices a 2-D input [rows, cols] with window (r0, rows-r0-1, step rs) x
 * (c0, cols-c0, step cs) and samples the output. */
static void run(const char *name, dmls_dtype dtype, int64_t rows, int64_t cols, int64_t r0, int64_t rs, int64_t c0,
                int64_t cs) {
    const int esize = (int)dmls_dtype_size(dtype);
    int64_t in_shape[2] = {rows, cols};
    int64_t off[2] = {r0, c0}, size[2] = {rows - r0 - 1, cols - c0}, step[2] = {rs, cs};
    int64_t out_shape[2] = {1 + (size[0] - 1) / (rs < 0 ? -rs : rs), 1 + (size[1] - 1) / (cs < 0 ? -cs : cs)};
    dmls_tensor in = {dtype, 2, in_shape, NULL, 0}, out = {dtype, 2, out_shape, NULL, 0};
    dmls_window w = {off, size, step};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    if (!op) return;
    const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
    printf("%s: input %lld x %lld %s (%.2f GiB, %.3g elements), output %lld x %lld (%.2f GiB)\n", name,
           (long long)rows, (long long)cols, dmls_dtype_name(dtype), ib / 1073741824.0, (double)rows * cols,
           (long long)out_shape[0], (long long)out_shape[1], ob / 1073741824.0);
    unsigned char *src = malloc(ib), *dst = malloc(ob);
    CHECK(src && dst, "%s: cannot allocate %llu + %llu bytes", name, (unsigned long long)ib, (unsigned long long)ob);
    if (!src || !dst) {
        free(src), free(dst), dmls_destroy(op);
        return;
    }
    fill(src, (uint64_t)rows * (uint64_t)cols, esize);
    memset(dst, 0xEE, ob);
    CHECK_STATUS(dmls_execute(op, src, ib, dst, ob), DMLS_OK);
    /* Samples: the four corners, then random coordinates. */
    int bad = 0;
    for (int k = 0; k < 200000 && bad < 5; k++) {
        int64_t r = k < 4 ? (k & 1) * (out_shape[0] - 1) : test_range(0, out_shape[0] - 1);
        int64_t c = k < 4 ? (k >> 1) * (out_shape[1] - 1) : test_range(0, out_shape[1] - 1);
        const int64_t ri = (rs > 0 ? r0 : r0 + size[0] - 1) + rs * r;
        const int64_t ci = (cs > 0 ? c0 : c0 + size[1] - 1) + cs * c;
        const uint64_t src_index = (uint64_t)ri * (uint64_t)cols + (uint64_t)ci;
        const uint64_t dst_index = (uint64_t)r * (uint64_t)out_shape[1] + (uint64_t)c;
        bool ok = esize == 1 ? dst[dst_index] == value_u8(src_index)
                             : ((uint32_t *)dst)[dst_index] == value_u32(src_index);
        if (!ok) bad++;
        CHECK(ok, "%s: output (%lld, %lld) does not hold input (%lld, %lld)", name, (long long)r, (long long)c,
              (long long)ri, (long long)ci);
    }
    free(src), free(dst);
    dmls_destroy(op);
}

/* The DirectML path rejects what the native path takes (R-T-ELEMS). */
static void dml_rejects(void) {
    const UINT sizes[2] = {65536, 65537}, osz[2] = {1, 1}, zero[2] = {0, 0}, one[2] = {1, 1};
    const INT st[2] = {1, 1};
    DML_BUFFER_TENSOR_DESC ib = {DML_TENSOR_DATA_TYPE_UINT8, 0, 2, sizes, NULL, (uint64_t)65536 * 65537 + 4, 0};
    DML_BUFFER_TENSOR_DESC ob = {DML_TENSOR_DATA_TYPE_UINT8, 0, 2, osz, NULL, 4, 0};
    DML_TENSOR_DESC it = {DML_TENSOR_TYPE_BUFFER, &ib}, ot = {DML_TENSOR_TYPE_BUFFER, &ob};
    DML_SLICE1_OPERATOR_DESC s = {&it, &ot, 2, zero, one, st};
    DML_OPERATOR_DESC d = {DML_OPERATOR_SLICE1, &s};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml(&d, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-ELEMS", "InputTensor");
}

/* A batch whose first item has more than 2^32 elements (R-B-ITEM): rows of
 * a 64-byte input broadcast (row stride 0) into a 2^32 + 64-byte output,
 * beside two tiny items, on every thread (the huge item is cut inside, the
 * tiny ones ride with a share); every output byte checked against the
 * definition. About 4 GiB of memory. */
static void batch_over_2_32(void) {
    const int64_t rows = ((int64_t)1 << 26) + 1, in_shape[2] = {rows, 64}, in_strides[2] = {0, 1};
    const int64_t off[2] = {0, 0}, step[2] = {1, 1};
    const int64_t tiny[1] = {8}, toff[1] = {3}, tsize[1] = {5}, tstep[1] = {-1}; /* out[c] = in[7 - c] */
    const dmls_tensor in = {DMLS_UINT8, 2, in_shape, in_strides, 0}, out = {DMLS_UINT8, 2, in_shape, NULL, 0};
    const dmls_tensor tin = {DMLS_UINT8, 1, tiny, NULL, 0}, tout = {DMLS_UINT8, 1, tsize, NULL, 0};
    const dmls_window w = {off, in_shape, step}, tw = {toff, tsize, tstep};
    dmls_operator *big = NULL, *small = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &big), DMLS_OK);
    CHECK_STATUS(dmls_create(&tin, &tout, &tw, &small), DMLS_OK);
    const uint64_t ob = dmls_output_bytes(big);
    dmls_batch_item items[3] = {{small, 0, 0, 0, 0}, {big, 0, 0, 0, 16}, {small, 0, 0, 0, 16 + ob}};
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create(items, 3, 1, 1, &b), DMLS_OK);
    uint8_t src[64];
    for (int i = 0; i < 64; i++) src[i] = value_u8((uint64_t)i);
    uint8_t *dst = malloc(ob + 32);
    dmls_context *ctx = NULL;
    CHECK_STATUS(dmls_context_create(0, &ctx), DMLS_OK);
    if (b && dst && ctx) {
        const dmls_batch_input bi = {src, 64};
        const dmls_batch_output bo = {dst, ob + 21};
        printf("batch: items of 5, %.3g and 5 elements on %d threads\n", (double)ob, dmls_context_threads(ctx));
        CHECK_STATUS(dmls_batch_execute(b, ctx, &bi, 1, &bo, 1), DMLS_OK);
        bool ok = true;
        for (uint64_t i = 0; i < ob && ok; i++) ok = dst[16 + i] == src[i % 64];
        for (int k = 0; k < 5 && ok; k++) ok = dst[k] == src[7 - k] && dst[16 + ob + (uint64_t)k] == src[7 - k];
        CHECK(ok, "R-B-ITEM: a batch with an item of 2^32+ elements equals its definition");
    }
    free(dst);
    dmls_context_destroy(ctx);
    dmls_batch_destroy(b);
    dmls_destroy(big);
    dmls_destroy(small);
}

int main(void) {
    test_seed_rng();
    dml_rejects();
    const char *env = getenv("DMLS_TEST_LARGE");
    if (!env || strcmp(env, "1") != 0) {
        printf("large tensors skipped: set DMLS_TEST_LARGE=1 (needs about 10 GiB of memory)\n");
        TEST_MAIN_END_SKIP();
    }
    /* 2^32 + 2^27 one-byte elements (4.1 GiB): more than 2^32 elements. */
    run("u8, 2^32+ elements", DMLS_UINT8, 69632, 63488, 3, -1, 5, 1);
    /* 1.2 G four-byte elements (4.5 GiB): over 4 GiB, with strides on both axes. */
    run("u32, over 4 GiB", DMLS_UINT32, 40000, 30200, 1, 2, 7, -3);
    batch_over_2_32();
    TEST_MAIN_END();
}
