#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c11 */
/* Fuzz target: the DirectML descriptor path. Draws an operator type,
 * feature level, ranks, data types, sizes, strides, flags, totals and
 * alignments from the input; validates; and when the descriptor is accepted,
 * executes into guard-page buffers of exactly the declared sizes and checks
 * the result against the reference executor. A rejected descriptor must
 * leave a message that names a rule or the bad enum. */
#include <stdio.h>
#include <stdlib.h>

#include "dmlslice/dml.h"
#include "fuzz_input.h"
#include "support/compare.h"

static const DML_FEATURE_LEVEL levels[] = {
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_6_4,
};

/* Small enough to run fast, large enough for multi-run copies. */
enum { MAX_BYTES = 1 << 20 };

static void draw_tensor(fuzz_reader *r, DML_BUFFER_TENSOR_DESC *b, UINT *sizes, UINT *strides, UINT n,
                        DML_TENSOR_DATA_TYPE type) {
    b->DataType = fuzz_u8(r) < 250 ? type : (DML_TENSOR_DATA_TYPE)fuzz_u8(r);
    b->Flags = (DML_TENSOR_FLAGS)(fuzz_u8(r) < 240 ? 0 : fuzz_u8(r));
    b->DimensionCount = fuzz_u8(r) < 250 ? n : fuzz_u8(r) % 10;
    for (UINT i = 0; i < 8; i++) sizes[i] = 1 + fuzz_small_u32(r, 7);
    b->Sizes = sizes;
    b->Strides = NULL;
    if (fuzz_u8(r) & 1) {
        for (UINT i = 0; i < 8; i++) strides[i] = fuzz_small_u32(r, 64);
        b->Strides = strides;
    }
    uint64_t need = 0;
    dmls_calc_buffer_tensor_size(b->DataType, b->DimensionCount <= 8 ? b->DimensionCount : 8, sizes, b->Strides,
                                 &need);
    uint8_t sel = fuzz_u8(r);
    b->TotalTensorSizeInBytes = sel < 200 ? need : sel < 230 ? need + 4 * (sel % 8) : fuzz_u64(r);
    b->GuaranteedBaseOffsetAlignment = fuzz_u8(r) < 200 ? 0 : 1u << (fuzz_u8(r) % 9);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader r = {data, size, 0};
    const uint8_t kind = fuzz_u8(&r) % 3;
    const DML_OPERATOR_TYPE type = kind == 0 ? DML_OPERATOR_SLICE : kind == 1 ? DML_OPERATOR_SLICE1
                                                                              : DML_OPERATOR_SLICE_GRAD;
    const DML_FEATURE_LEVEL level = levels[fuzz_u8(&r) % (sizeof levels / sizeof levels[0])];
    const UINT n = 1 + fuzz_u8(&r) % 8;
    const DML_TENSOR_DATA_TYPE dt = (DML_TENSOR_DATA_TYPE)(1 + fuzz_u8(&r) % 13);

    UINT in_sizes[8], out_sizes[8], in_strides[8], out_strides[8];
    DML_BUFFER_TENSOR_DESC ib, ob;
    draw_tensor(&r, &ib, in_sizes, in_strides, n, dt);
    draw_tensor(&r, &ob, out_sizes, out_strides, n, dt);
    DML_TENSOR_DESC it = {DML_TENSOR_TYPE_BUFFER, &ib}, ot = {DML_TENSOR_TYPE_BUFFER, &ob};
    UINT offsets[8], sizes[8];
    INT strides[8];
    for (UINT i = 0; i < 8; i++) {
        offsets[i] = fuzz_small_u32(&r, 4);
        sizes[i] = fuzz_small_u32(&r, 8);
        strides[i] = (INT)fuzz_small_i64(&r, 4);
    }
    DML_SLICE_OPERATOR_DESC s = {&it, &ot, n, offsets, sizes, (const UINT *)strides};
    DML_SLICE1_OPERATOR_DESC s1 = {&it, &ot, n, offsets, sizes, strides};
    DML_SLICE_GRAD_OPERATOR_DESC g = {&it, &ot, n, offsets, sizes, strides};
    DML_OPERATOR_DESC desc = {type, kind == 0 ? (const void *)&s : kind == 1 ? (const void *)&s1 : (const void *)&g};

    dmls_operator *op = NULL;
    dmls_status st = dmls_create_dml(&desc, level, &op);
    if (!fuzz_created(st, op, MAX_BYTES)) return 0;
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    guarded in, out, ref;
    /* Bound as DirectML binds: at a multiple of max(16, the promise) (R-X-ALIGN). */
    const size_t in_align = ib.GuaranteedBaseOffsetAlignment > DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
                                ? ib.GuaranteedBaseOffsetAlignment
                                : DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT;
    const size_t out_align = ob.GuaranteedBaseOffsetAlignment > DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
                                 ? ob.GuaranteedBaseOffsetAlignment
                                 : DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT;
    if (guarded_alloc(&in, in_bytes, in_align) || guarded_alloc(&out, out_bytes, out_align) ||
        guarded_alloc(&ref, out_bytes, out_align))
        abort();
    for (uint64_t i = 0; i < in_bytes; i++) in.data[i] = (uint8_t)(i * 131 + 7);
    memset(out.data, 0x5A, out_bytes);
    memset(ref.data, 0x5A, out_bytes);
    /* Both paths agree on every accepted descriptor. */
    compare_result c = compare_with_reference(op, exec_plain, NULL, in.data, in_bytes, out.data, ref.data, out_bytes);
    if (!compare_ok(&c, out_bytes)) abort();
    /* One byte short must be refused with nothing written. */
    if (out_bytes > 0) {
        memset(out.data, 0x5A, out_bytes);
        if (dmls_execute(op, in.data, in_bytes, out.data, out_bytes - 1) == DMLS_OK) abort();
        for (uint64_t i = 0; i < out_bytes; i++)
            if (out.data[i] != 0x5A) abort();
    }
    guarded_free(&in), guarded_free(&out), guarded_free(&ref);
    dmls_destroy(op);
    return 0;
}
