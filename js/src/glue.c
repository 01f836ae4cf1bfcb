/* The C side of the JavaScript package (js/dmlslice.mjs): operators made from
 * the front ends' results, and the few facts of their structs JavaScript
 * cannot read by itself. Public API only (include/dmlslice/); the front ends,
 * dmls_execute and the batch functions are called from JavaScript directly.
 * Every pointer here is an offset into the module's memory. */
#include <stddef.h>

#include <emscripten.h>

#include <dmlslice/batch.h>
#include <dmlslice/dml.h>
#include <dmlslice/frontends.h>

/* The status of the last create below, which returns the handle or NULL
 * (JavaScript calls the module from one thread; the pool's workers run
 * only copies). */
static dmls_status last_status;
EMSCRIPTEN_KEEPALIVE int dmlsw_status(void) { return (int)last_status; }

/* The pool every execute below runs on: NULL (the calling thread alone)
 * until dmlsw_set_threads asks for more, which only the threaded build
 * (-pthread) can start. */
static dmls_context *pool;

/* n threads in all from now on (1: the calling thread alone); returns the
 * count, or 0 with dmls_last_error() saying why (the old pool stays). */
EMSCRIPTEN_KEEPALIVE int dmlsw_set_threads(int n) {
    dmls_context *c = NULL;
    if (n != 1) {
        last_status = dmls_context_create(n, &c);
        if (last_status != DMLS_OK) return 0;
    }
    last_status = DMLS_OK;
    dmls_context_destroy(pool);
    pool = c;
    return dmls_context_threads(pool);
}

/* The pool's thread count: fewer than asked once a worker could not start. */
EMSCRIPTEN_KEEPALIVE int dmlsw_threads(void) { return dmls_context_threads(pool); }

/* A front end's slice over a (possibly strided) input: the operator, or
 * NULL with dmls_last_error() saying why. in_strides NULL: packed. */
EMSCRIPTEN_KEEPALIVE dmls_operator *dmlsw_create_lowered(int dtype, const dmls_lowered *lw, const int64_t *in_shape,
                                                         const int64_t *in_strides) {
    dmls_tensor in = {(dmls_dtype)dtype, lw->ndim, in_shape, in_strides, 0};
    dmls_tensor out = {(dmls_dtype)dtype, lw->ndim, lw->out_sizes, NULL, 0};
    dmls_window w = dmls_lowered_window(lw);
    dmls_operator *op = NULL;
    last_status = dmls_create(&in, &out, &w, &op);
    return op;
}

/* A transpose: the permuted view copied into a packed output of its shape. */
EMSCRIPTEN_KEEPALIVE dmls_operator *dmlsw_create_transposed(int dtype, const dmls_transposed *t) {
    dmls_tensor in = dmls_transposed_tensor(t, (dmls_dtype)dtype, 0);
    dmls_tensor out = {(dmls_dtype)dtype, t->ndim, t->shape, NULL, 0};
    int64_t ones[DMLS_MAX_RANK], offsets[DMLS_MAX_RANK] = {0};
    for (int i = 0; i < DMLS_MAX_RANK; i++) ones[i] = 1;
    dmls_window w = {offsets, t->shape, ones};
    dmls_operator *op = NULL;
    last_status = dmls_create(&in, &out, &w, &op);
    return op;
}

/* The input tensor of a split or crops batch. */
EMSCRIPTEN_KEEPALIVE dmls_batch *dmlsw_split(int dtype, int32_t ndim, const int64_t *shape, const int64_t *strides,
                                             int32_t axis, const int64_t *sizes, int32_t n) {
    dmls_tensor in = {(dmls_dtype)dtype, ndim, shape, strides, 0};
    dmls_batch *b = NULL;
    last_status = dmls_batch_create_split(&in, axis, sizes, (size_t)n, 1, &b);
    return b;
}

EMSCRIPTEN_KEEPALIVE dmls_batch *dmlsw_crops(int dtype, int32_t ndim, const int64_t *shape, const int64_t *strides,
                                             const int64_t *size, const int64_t *starts, int32_t n) {
    dmls_tensor in = {(dmls_dtype)dtype, ndim, shape, strides, 0};
    dmls_batch *b = NULL;
    last_status = dmls_batch_create_crops(&in, size, (size_t)n, starts, DMLS_STARTS_INT64, &b);
    return b;
}

/* A buffer tensor of the list form from its record: DimensionCount, the
 * addresses of its sizes and strides (0: packed), TotalTensorSizeInBytes
 * (0: the least DirectML accepts) and GuaranteedBaseOffsetAlignment. */
static dmls_dml_tensor_lists tensor_lists(const int64_t *r) {
    dmls_dml_tensor_lists t = {(int32_t)r[0], (const int64_t *)(uintptr_t)r[1], (const int64_t *)(uintptr_t)r[2],
                               (uint64_t)r[3], (uint64_t)r[4]};
    return t;
}

/* A DirectML SLICE, SLICE1 or SLICE_GRAD descriptor in the list form,
 * validated by the library at the feature level as DirectML validates it
 * (each value's fit in its 32-bit field included). */
EMSCRIPTEN_KEEPALIVE dmls_operator *dmlsw_create_dml(int type, int data_type, const int64_t *in, const int64_t *out,
                                                     int32_t n, const int64_t *offsets, const int64_t *sizes,
                                                     const int64_t *strides, int level) {
    dmls_dml_lists lists = {(DML_OPERATOR_TYPE)type, (DML_TENSOR_DATA_TYPE)data_type, tensor_lists(in),
                            tensor_lists(out), n, offsets, sizes, strides};
    dmls_operator *op = NULL;
    last_status = dmls_create_dml_lists(&lists, (DML_FEATURE_LEVEL)level, &op);
    return op;
}

/* The feature level a text names, or 0 with dmls_last_error() saying why. */
EMSCRIPTEN_KEEPALIVE int dmlsw_feature_level(const char *text) {
    DML_FEATURE_LEVEL level = (DML_FEATURE_LEVEL)0;
    last_status = dmls_feature_level_parse(text, &level);
    return last_status == DMLS_OK ? (int)level : 0;
}

/* One input slot, one output slot: what split and crops bind. */
EMSCRIPTEN_KEEPALIVE int dmlsw_batch_run(const dmls_batch *b, const void *in, double in_bytes, void *out,
                                         double out_bytes) {
    dmls_batch_input i = {in, (uint64_t)in_bytes};
    dmls_batch_output o = {out, (uint64_t)out_bytes};
    return dmls_batch_execute(b, pool, &i, 1, &o, 1);
}

/* dmls_execute on the pool, or the reference executor (the oracle of the tests). Byte
 * counts come as doubles: exact up to 2^53, and wasm32's memory is 4 GiB. */
EMSCRIPTEN_KEEPALIVE int dmlsw_execute(const dmls_operator *op, const void *in, double in_bytes, void *out,
                                       double out_bytes, int reference) {
    if (reference) return dmls_execute_reference(op, in, (uint64_t)in_bytes, out, (uint64_t)out_bytes);
    return dmls_execute_on(op, pool, in, (uint64_t)in_bytes, out, (uint64_t)out_bytes);
}

EMSCRIPTEN_KEEPALIVE double dmlsw_input_bytes(const dmls_operator *op) { return (double)dmls_input_bytes(op); }
EMSCRIPTEN_KEEPALIVE double dmlsw_output_bytes(const dmls_operator *op) { return (double)dmls_output_bytes(op); }

/* Where the fields JavaScript reads lie in the structs (their layout is
 * the compiler's, asked here rather than written twice). */
EMSCRIPTEN_KEEPALIVE int dmlsw_layout(int what) {
    switch (what) {
    case 0: return (int)sizeof(dmls_lowered);
    case 1: return (int)offsetof(dmls_lowered, final_ndim);
    case 2: return (int)offsetof(dmls_lowered, final_shape);
    case 3: return (int)sizeof(dmls_transposed);
    case 4: return (int)offsetof(dmls_transposed, shape);
    default: return -1;
    }
}
