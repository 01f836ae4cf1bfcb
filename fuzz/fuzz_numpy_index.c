#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c11 */
/* Fuzz target: the NumPy index-expression parser. The first bytes draw a
 * shape; the rest is the expression text. A parse either fails with a
 * message or lowers to a window that runs like the reference. */
#include "fuzz_lowered.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader r = {data, size, 0};
    int64_t shape[8];
    const int32_t n = draw_shape(&r, shape);
    const size_t len = r.at < size ? size - r.at : 0;
    char *expr = malloc(len + 1);
    if (!expr) return 0;
    memcpy(expr, data + r.at, len);
    expr[len] = '\0';
    dmls_lowered lw;
    if (dmls_lower_numpy(n, shape, expr, &lw) == DMLS_OK) run_lowered(n, shape, &lw);
    else if (dmls_last_error()[0] == '\0') abort();
    free(expr);
    return 0;
}
