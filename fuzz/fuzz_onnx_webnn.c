#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c11 */
/* Fuzz target: the ONNX Slice and WebNN slice/reverse lowerings, with
 * int64 extremes in every parameter. Each call either fails with a message
 * or lowers to a window that runs like the reference. */
#include "fuzz_lowered.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader r = {data, size, 0};
    int64_t shape[8];
    const int32_t n = draw_shape(&r, shape);
    const uint8_t which = fuzz_u8(&r) % 3;
    int64_t a[8], b[8], c[8], d[8];
    uint64_t ua[8], ub[8], uc[8];
    const int32_t k = fuzz_u8(&r) % 10; /* may exceed the rank: that is an error to report */
    for (int i = 0; i < 8; i++) {
        a[i] = fuzz_small_i64(&r, 12), b[i] = fuzz_small_i64(&r, 12);
        c[i] = fuzz_small_i64(&r, 8), d[i] = fuzz_small_i64(&r, 3);
        ua[i] = (uint64_t)a[i], ub[i] = (uint64_t)b[i], uc[i] = (uint64_t)d[i];
    }
    const uint8_t opt = fuzz_u8(&r);
    dmls_lowered lw;
    dmls_status s;
    const int32_t kk = k > 8 ? 8 : k;
    if (which == 0)
        s = dmls_lower_onnx(n, shape, a, b, kk, (opt & 1) ? c : NULL, (opt & 4) ? kk - 1 : kk, (opt & 2) ? d : NULL,
                            (opt & 8) ? kk + 1 > 8 ? 8 : kk + 1 : kk, &lw);
    else if (which == 1)
        s = dmls_lower_webnn_slice(n, shape, ua, kk, ub, (opt & 4) ? kk - 1 : kk, (opt & 2) ? uc : NULL,
                                   (opt & 8) ? kk + 1 > 8 ? 8 : kk + 1 : kk, &lw);
    else
        s = dmls_lower_webnn_reverse(n, shape, (opt & 1) ? NULL : ua, kk, &lw);
    if (s == DMLS_OK) run_lowered(n, shape, &lw);
    else if (dmls_last_error()[0] == '\0') abort();
    return 0;
}
