/* The normalizer on its own: the worked examples of src/plan/plan.c's comment,
 * plus the cases that must not merge. */
#include "operator.h"
#include "support/test.h"

static dmls_copy_plan plan(int32_t esize, int32_t n, const int64_t *shape, const int64_t *src, const int64_t *dst,
                           int64_t src_off, int64_t dst_off) {
    dmls_copy_plan p;
    memset(&p, 0, sizeof p);
    p.esize = esize, p.ndim = n, p.src_offset = src_off, p.dst_offset = dst_off;
    for (int i = 0; i < n; i++) p.shape[i] = shape[i], p.src_stride[i] = src[i], p.dst_stride[i] = dst[i];
    dmls_normalize(&p);
    return p;
}

#define CHECK_DIMS(p, n_, ...)                                                            \
    do {                                                                                  \
        const int64_t want_[] = {__VA_ARGS__}; /* shape..., src..., dst... */             \
        CHECK((p).ndim == (n_), "ndim %d, expected %d", (p).ndim, (n_));                  \
        for (int i_ = 0; i_ < (n_) && (p).ndim == (n_); i_++) {                           \
            CHECK((p).shape[i_] == want_[i_], "shape[%d] = %lld", i_, (long long)(p).shape[i_]); \
            CHECK((p).src_stride[i_] == want_[(n_) + i_], "src[%d] = %lld", i_, (long long)(p).src_stride[i_]); \
            CHECK((p).dst_stride[i_] == want_[2 * (n_) + i_], "dst[%d] = %lld", i_, (long long)(p).dst_stride[i_]); \
        }                                                                                 \
    } while (0)

int main(void) {
    /* Crop of 1x1x4x4 to 1x1x3x2: size-1 dims go, rows cannot merge. */
    dmls_copy_plan p = plan(4, 4, (int64_t[]){1, 1, 3, 2}, (int64_t[]){16, 16, 4, 1}, (int64_t[]){6, 6, 2, 1}, 24, 0);
    CHECK_DIMS(p, 2, 3, 2, 4, 1, 2, 1);
    CHECK(p.count == 6 && p.src_offset == 24, "count %llu offset %lld", (unsigned long long)p.count,
          (long long)p.src_offset);

    /* Channel slice 2x8x4x4 -> 2x3x4x4: merges to {2, 48}. */
    p = plan(4, 4, (int64_t[]){2, 3, 4, 4}, (int64_t[]){128, 16, 4, 1}, (int64_t[]){48, 16, 4, 1}, 0, 0);
    CHECK_DIMS(p, 2, 2, 48, 128, 1, 48, 1);

    /* A fully contiguous copy becomes one run. */
    p = plan(2, 3, (int64_t[]){5, 6, 7}, (int64_t[]){42, 7, 1}, (int64_t[]){42, 7, 1}, 0, 0);
    CHECK_DIMS(p, 1, 210, 1, 1);

    /* Reversal of the last axis keeps the source's sign. */
    p = plan(4, 2, (int64_t[]){2, 3}, (int64_t[]){3, -1}, (int64_t[]){3, 1}, 8, 0);
    CHECK_DIMS(p, 2, 2, 3, 3, -1, 3, 1);

    /* A backwards destination flips both sides and moves both offsets. */
    p = plan(4, 1, (int64_t[]){3}, (int64_t[]){1}, (int64_t[]){-1}, 0, 8);
    CHECK_DIMS(p, 1, 3, -1, 1);
    CHECK(p.dst_offset == 0 && p.src_offset == 8, "offsets %lld %lld", (long long)p.src_offset,
          (long long)p.dst_offset);

    /* A transposed (Fortran) destination is reordered by decreasing dst stride. */
    p = plan(8, 2, (int64_t[]){4, 5}, (int64_t[]){5, 1}, (int64_t[]){1, 4}, 0, 0);
    CHECK_DIMS(p, 2, 5, 4, 1, 5, 4, 1);

    /* Broadcast (zero) source strides merge with each other. */
    p = plan(1, 2, (int64_t[]){3, 4}, (int64_t[]){0, 0}, (int64_t[]){4, 1}, 0, 0);
    CHECK_DIMS(p, 1, 12, 0, 1);

    /* Padding on one side only blocks the merge. */
    p = plan(1, 2, (int64_t[]){3, 4}, (int64_t[]){5, 1}, (int64_t[]){4, 1}, 0, 0);
    CHECK_DIMS(p, 2, 3, 4, 5, 1, 4, 1);

    /* Empty and scalar plans. */
    p = plan(4, 2, (int64_t[]){3, 0}, (int64_t[]){1, 1}, (int64_t[]){1, 1}, 0, 0);
    CHECK(p.count == 0 && p.ndim == 0, "empty plan: count %llu", (unsigned long long)p.count);
    p = plan(4, 3, (int64_t[]){1, 1, 1}, (int64_t[]){9, 9, 9}, (int64_t[]){1, 1, 1}, 4, 0);
    CHECK(p.count == 1 && p.ndim == 0 && p.src_offset == 4, "single element plan");
    TEST_MAIN_END();
}
