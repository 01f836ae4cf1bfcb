#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c11 */
/* Fuzz target: every fast path against the reference executor through the
 * native API. Draws rank, element size, shapes, windows, strides (negative,
 * padded, broadcast inputs), byte offsets, misaligned bases and SLICE or
 * SLICE_GRAD; buffers sit against guard pages; outputs must match byte for
 * byte, including the untouched bytes between strided elements. Each case
 * runs on the calling thread and again on a 3-thread pool that cuts every
 * copy and zero fill between its threads, so kernels also run on shares
 * that start and end inside rows. */
#include <stdlib.h>

#include "dmlslice/dmlslice.h"
#include "fuzz_input.h"
#include "fuzz_pool.h"
#include "support/compare.h"
#include "support/dtype.h"

enum { MAX_BYTES = 1 << 20 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader r = {data, size, 0};
    const int grad = fuzz_u8(&r) & 1;
    const int32_t n = fuzz_u8(&r) % 9;
    const dmls_dtype dtype = test_dtype_of_size(1 << (fuzz_u8(&r) % 4));
    int64_t big_shape[8], small_shape[8], big_strides[8], small_strides[8], off[8], sz[8], st[8];
    for (int i = 0; i < n; i++) {
        big_shape[i] = fuzz_small_i64(&r, 9);
        off[i] = fuzz_small_i64(&r, 4);
        sz[i] = fuzz_small_i64(&r, 9);
        st[i] = fuzz_small_i64(&r, 4);
        small_shape[i] = fuzz_small_i64(&r, 9);
        big_strides[i] = fuzz_small_i64(&r, 100);
        small_strides[i] = fuzz_small_i64(&r, 100);
    }
    const uint8_t layout = fuzz_u8(&r);
    dmls_tensor big = {dtype, n, big_shape, (layout & 1) ? big_strides : NULL, fuzz_small_u32(&r, 4096)};
    dmls_tensor small = {dtype, n, small_shape, (layout & 2) ? small_strides : NULL, fuzz_small_u32(&r, 4096)};
    dmls_window w = {off, sz, st};
    const size_t mis_in = fuzz_u8(&r) % 8, mis_out = fuzz_u8(&r) % 8;

    dmls_operator *op = NULL;
    dmls_status s = grad ? dmls_create_grad(&small, &big, &w, &op) : dmls_create(&big, &small, &w, &op);
    if (!fuzz_created(s, op, MAX_BYTES)) return 0;
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    guarded in, out, ref;
    if (guarded_alloc(&in, in_bytes + mis_in, 0) || guarded_alloc(&out, out_bytes + mis_out, 0) ||
        guarded_alloc(&ref, out_bytes + mis_out, 0))
        abort();
    /* Start mis bytes in, so the buffer still ends at the guard page. */
    uint8_t *ip = in.data + mis_in, *op_out = out.data + mis_out, *rp = ref.data + mis_out;
    for (uint64_t i = 0; i < in_bytes; i++) ip[i] = (uint8_t)(i * 167 + 13);
    for (uint64_t i = 0; i < out_bytes; i++) op_out[i] = rp[i] = (uint8_t)(i * 29 + 1);
    compare_result c = compare_with_reference(op, exec_plain, NULL, ip, in_bytes, op_out, rp, out_bytes);
    if (!compare_ok(&c, out_bytes)) abort();
    for (uint64_t i = 0; i < out_bytes; i++) op_out[i] = rp[i] = (uint8_t)(i * 29 + 1);
    c = compare_with_reference(op, exec_on, fuzz_pool3(), ip, in_bytes, op_out, rp, out_bytes);
    if (!compare_ok(&c, out_bytes)) abort();
    guarded_free(&in), guarded_free(&out), guarded_free(&ref);
    dmls_destroy(op);
    return 0;
}
