/*
 * dmlslice.h: DirectML's slice operators (SLICE, SLICE1, SLICE_GRAD) in C11.
 *
 * Two ways in, one engine:
 *   - the DirectML path (<dmlslice/dml.h>) takes DirectML's own descriptors
 *     at a chosen feature level and accepts and rejects exactly what DirectML
 *     would, with an error that names the rule;
 *   - the native path (this header) takes DLPack-shaped tensor views with
 *     64-bit sizes and signed 64-bit element strides, and lifts DirectML's
 *     size limits. It declares no DirectML or Windows type.
 *
 * Lifecycle: create (validate every rule, then plan once) -> execute any
 * number of times, from any number of threads at once -> destroy. The
 * one-shot calls (dmls_slice, dmls_slice_dml) run the same helpers.
 *
 * Errors: every function that can fail returns a dmls_status. After a failure,
 * dmls_last_error() on the same thread returns a message that names the
 * operator, the field, the dimension, the values and the rule (its ID in
 * docs/spec.md section 2), e.g.
 *   SLICE1: InputWindowOffsets[2] + InputWindowSizes[2] = 5 exceeds input size 4 (R-WIN-BOUNDS)
 * The message lives in thread-local storage, so threads never see each
 * other's errors. On any failure nothing is written to an output buffer and
 * no output handle is set (it is left NULL where the function documents so).
 *
 * Every exported symbol starts with dmls_ (types and functions) or DMLS_
 * (macros and enum values).
 */
#ifndef DMLSLICE_H
#define DMLSLICE_H

#include <stddef.h>
#include <stdint.h>

#include "dmlslice/dmlslice_version.h" /* DMLS_VERSION_*: generated from project() in CMakeLists.txt */

#ifdef __cplusplus
extern "C" {
#endif

/* What a public function is to the linker. On Windows the build defines
 * DMLS_BUILDING_DLL while compiling the library (the functions are exported
 * from the DLL) and DMLS_STATIC for users of the static library; any other
 * user imports them from the DLL. Elsewhere they have default visibility in
 * a library built with hidden visibility. */
#if defined(_WIN32)
#if defined(DMLS_BUILDING_DLL)
#define DMLS_API __declspec(dllexport)
#elif defined(DMLS_STATIC)
#define DMLS_API
#else
#define DMLS_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define DMLS_API __attribute__((visibility("default")))
#else
#define DMLS_API
#endif

/* The largest rank either path accepts. */
#define DMLS_MAX_RANK 8

/* ---------------------------------------------------------------- status */

/* Fixed values, grouped by tens: 1x descriptor errors (found at create),
 * 2x binding errors (found at execute), 3x resource and environment errors. */
typedef enum dmls_status {
    DMLS_OK = 0,

    DMLS_ERROR_INVALID_ARGUMENT = 10, /* NULL pointer, unknown enum value, bad layout */
    DMLS_ERROR_UNSUPPORTED = 11,      /* not allowed at this feature level (rank, type, operator) */
    DMLS_ERROR_OUT_OF_BOUNDS = 12,    /* the window or slice reaches outside the input */
    DMLS_ERROR_SHAPE_MISMATCH = 13,   /* output sizes disagree with the parameters */
    DMLS_ERROR_OVERFLOW = 14,         /* a size, index or byte count does not fit 64 bits (or DirectML's limits) */

    DMLS_ERROR_BUFFER_TOO_SMALL = 20, /* a bound buffer is smaller than its tensor needs */
    DMLS_ERROR_MISALIGNED = 21,       /* a bound address breaks the promised alignment */
    DMLS_ERROR_OVERLAP = 22,          /* input and output byte ranges overlap */

    DMLS_ERROR_OUT_OF_MEMORY = 30,
    DMLS_ERROR_NO_DEVICE = 31,        /* the backend's device is absent (e.g. no CUDA GPU) */
    DMLS_ERROR_DEVICE = 32,           /* the backend's device reported a failure */
    DMLS_ERROR_IO = 33,               /* retired: nothing returns it (the library opens no file); the
                                       * name stays so code that names it compiles, and 33 is never reused */
    DMLS_ERROR_FORMAT = 34            /* a file or expression is malformed */
} dmls_status;

/* The enum's name of a status ("DMLS_ERROR_OUT_OF_BOUNDS"), or
 * "DMLS_ERROR_UNKNOWN_STATUS" for a value not listed. Never NULL; static. */
DMLS_API const char *dmls_status_name(dmls_status status);

/* The message of the last failure on the calling thread, or "" if the last
 * call on this thread succeeded. Valid until the next dmls_ call on this
 * thread. Never NULL. */
DMLS_API const char *dmls_last_error(void);

/* The rule ID (docs/spec.md section 2) of the last failure on this thread ("R-WIN-BOUNDS"), or ""
 * when the failure has no rule (e.g. out of memory) or there was none. */
DMLS_API const char *dmls_last_error_rule(void);

/* The library's version, DMLS_VERSION_STRING of the build. */
DMLS_API const char *dmls_version(void);

/* ---------------------------------------------------------------- types */

/* Data types; the values equal DML_TENSOR_DATA_TYPE's. Slicing copies bits,
 * so only the element size matters to execution. */
/* Twin of directml.h's DML_TENSOR_DATA_TYPE: kept apart, as dmlslice.h must not include directml.h. */
typedef enum dmls_dtype {
    DMLS_FLOAT32 = 1,
    DMLS_FLOAT16 = 2,
    DMLS_UINT32 = 3,
    DMLS_UINT16 = 4,
    DMLS_UINT8 = 5,
    DMLS_INT32 = 6,
    DMLS_INT16 = 7,
    DMLS_INT8 = 8,
    DMLS_FLOAT64 = 9,
    DMLS_UINT64 = 10,
    DMLS_INT64 = 11
} dmls_dtype;

/* Size in bytes of one element of dtype, or 0 for a value not listed. */
DMLS_API size_t dmls_dtype_size(dmls_dtype dtype);

/* Lower-case name ("float32"), or NULL for a value not listed. */
DMLS_API const char *dmls_dtype_name(dmls_dtype dtype);

/* A tensor view, shaped like DLPack's DLTensor but without the data pointer,
 * which is bound at execute time. Element (c_0, ..., c_{n-1}) lives at byte
 *   base + byte_offset + size(dtype) * sum_i c_i * strides[i]
 * where base is the pointer passed to execute. strides may be NULL (packed,
 * row-major) and may be negative or (for inputs only) zero. byte_offset lets
 * a view with negative strides keep every element at or after base. */
typedef struct dmls_tensor {
    dmls_dtype dtype;
    int32_t ndim;            /* 0 (a scalar) to DMLS_MAX_RANK */
    const int64_t *shape;    /* ndim sizes, each >= 0; may be NULL when ndim == 0 */
    const int64_t *strides;  /* ndim element strides, or NULL for packed row-major */
    uint64_t byte_offset;    /* bytes from the bound base to element (0, ..., 0) */
} dmls_tensor;

/* SLICE1-style window, per dimension, in elements of the sliced tensor:
 * start = offsets[i] if strides[i] > 0, else offsets[i] + sizes[i] - 1, and
 * out[c] = in[start + strides * c]. */
typedef struct dmls_window {
    const int64_t *offsets; /* each >= 0 */
    const int64_t *sizes;   /* each >= 1, or 0 where the output's size is 0 */
    const int64_t *strides; /* each != 0 */
} dmls_window;

/* A validated, planned operator. Immutable once created: execute it from
 * as many threads at once as you like. */
typedef struct dmls_operator dmls_operator;

/* ---------------------------------------------------------------- create */

/*
 * dmls_create: validate and plan a native slice (SLICE1 semantics).
 *   input, output  tensor views; same dtype and ndim (0..8).
 *   window         ndim offsets, sizes and strides over the input (may be
 *                  NULL, or hold NULL arrays, when ndim == 0).
 *   op             receives the operator; set to NULL on failure.
 * Rules: the window lies inside the input (R-WIN-BOUNDS), strides are
 * non-zero (R-WIN-STRIDE), 0 <= output size <= 1 + (size-1)/|stride|
 * (R-WIN-COUNT; a window size of 0 is allowed only where the output's size
 * is 0, which makes an empty operator that copies nothing), the output's
 * layout never maps two coordinates to one element (R-T-OUTLAYOUT), and every
 * byte address fits 64 bits. Thread-safe.
 */
DMLS_API dmls_status dmls_create(const dmls_tensor *input, const dmls_tensor *output,
                                 const dmls_window *window, dmls_operator **op);

/*
 * dmls_create_grad: validate and plan a native SLICE_GRAD: output_grad is
 * zeroed, then input_grad[c] is written to output_grad[start + strides * c].
 * The window lies over output_grad (which has the forward input's shape);
 * input_grad has the forward output's shape. Same rules as dmls_create with
 * the roles swapped. Thread-safe.
 */
DMLS_API dmls_status dmls_create_grad(const dmls_tensor *input_grad, const dmls_tensor *output_grad,
                                      const dmls_window *window, dmls_operator **op);

/* Release an operator. NULL is ignored. Not while another thread executes it. */
DMLS_API void dmls_destroy(dmls_operator *op);

/* ---------------------------------------------------------------- query */

/* The queries never fail: given a NULL operator each answers a neutral value
 * (stated per function) instead of crashing, as dmls_destroy and
 * dmls_execute accept NULL too. */

/* Bytes each bound buffer must hold at least (R-X-BOUNDS): for the DirectML
 * path, the tensor's TotalTensorSizeInBytes; for the native path,
 * byte_offset + the byte after the highest element (0 for an empty tensor).
 * 0 for a NULL op. */
DMLS_API uint64_t dmls_input_bytes(const dmls_operator *op);
DMLS_API uint64_t dmls_output_bytes(const dmls_operator *op);

/* Rank and sizes of the tensor that execute writes (for SLICE_GRAD, the
 * output gradient). shape receives dmls_output_rank(op) values.
 * dmls_output_rank returns -1 for a NULL op (0 is a scalar's rank);
 * dmls_output_shape writes nothing when op or shape is NULL. */
DMLS_API int32_t dmls_output_rank(const dmls_operator *op);
DMLS_API void dmls_output_shape(const dmls_operator *op, int64_t *shape);

/* Element size in bytes of the operator's tensors; 0 for a NULL op. */
DMLS_API size_t dmls_element_size(const dmls_operator *op);

/* ---------------------------------------------------------------- execute */

/*
 * dmls_execute: run a planned operator on the calling thread.
 *   input, input_bytes    the bound input buffer and its size in bytes.
 *   output, output_bytes  the bound output buffer and its size in bytes.
 * Checks, before writing anything: both pointers non-NULL unless the tensor
 * needs 0 bytes; each size >= what the tensor needs (R-X-BOUNDS); for an
 * operator made from DirectML descriptors, each address is a multiple of
 * max(16, GuaranteedBaseOffsetAlignment) (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT;
 * R-X-ALIGN), while native operators need only element-aligned addresses; the
 * output's byte range does not overlap the input's (R-X-OVERLAP; on the
 * DirectML path each range is [base, base + TotalTensorSizeInBytes)). Only
 * the output tensor's elements are written: padding between strided
 * elements, and past the last one, is left as it was.
 * The input is never written. Thread-safe: one operator may run on many
 * threads at once, on distinct outputs.
 */
DMLS_API dmls_status dmls_execute(const dmls_operator *op, const void *input, uint64_t input_bytes,
                                  void *output, uint64_t output_bytes);

/*
 * dmls_execute_reference: the same as dmls_execute through the scalar
 * reference executor (one element at a time, straight from the operator's
 * definition, no planning). It is the oracle the tests compare every fast
 * path with; it is slow and is not meant for production use.
 */
DMLS_API dmls_status dmls_execute_reference(const dmls_operator *op, const void *input,
                                            uint64_t input_bytes, void *output,
                                            uint64_t output_bytes);

/* ---------------------------------------------------------------- threads */

/* A CPU execution context: a persistent pool of worker threads that
 * dmls_execute_on spreads large copies over. The workers start when the
 * first copy large enough to share comes, and then stay: keep a context for
 * the life of the program or the model. */
typedef struct dmls_context dmls_context;

/*
 * dmls_context_create: start a context with num_threads threads in all,
 * counting the thread that calls dmls_execute_on (so num_threads - 1 workers).
 *   num_threads  1..1024, or 0 for the value of the environment variable
 *                DMLSLICE_THREADS if set, else the number of online CPUs.
 *   ctx          receives the context; set to NULL on failure.
 * No thread is started here: the workers start when dmls_execute_on first
 * shares a copy. If the process cannot start them all then (a low limit on
 * threads or processes), the context goes on with the caller plus the
 * workers that did start, and dmls_context_threads says how many that is;
 * the output is the same whatever the count.
 * Returns DMLS_OK, DMLS_ERROR_INVALID_ARGUMENT (a count out of range, a
 * malformed DMLSLICE_THREADS, ctx NULL) or DMLS_ERROR_OUT_OF_MEMORY.
 * Thread-safe.
 */
DMLS_API dmls_status dmls_context_create(int num_threads, dmls_context **ctx);

/* Stop the workers and free the context. NULL is ignored. Not while any
 * thread is inside dmls_execute_on with this context. */
DMLS_API void dmls_context_destroy(dmls_context *ctx);

/* The context's thread count, caller included (>= 1): the count asked for,
 * or fewer once workers could not be started (see dmls_context_create).
 * 1 for a NULL ctx, which dmls_execute_on runs on the calling thread alone. */
DMLS_API int dmls_context_threads(const dmls_context *ctx);

/*
 * dmls_execute_on: dmls_execute, with the copy spread over ctx's threads.
 *   op, input, input_bytes, output, output_bytes  as for dmls_execute, with
 *                the same checks, done before anything is written.
 *   ctx          the context whose threads help, or NULL to run on the calling
 *                thread alone (then it is exactly dmls_execute).
 * Work is cut by memory traffic: the bytes written plus the input read, an
 * input item counted as at least its own size and at most a 64-byte cache
 * line (a strided gather reads whole lines). A copy of less than 512 KiB of
 * traffic (a SLICE_GRAD zero fill: of bytes written) runs on the calling
 * thread without waking any worker. Rows of up to 64 KiB are never cut
 * between threads; longer rows are cut at 4 KiB. The calling thread always does a
 * share and returns when the whole output is written. The output equals
 * dmls_execute's byte for byte, whatever the thread count. On failure
 * nothing is written.
 * Thread safety: a context may be used from several threads at once; calls
 * that need its workers take turns (each waits for the one before it).
 * Different contexts never wait for each other; an operator may run on many
 * contexts at once, on distinct outputs.
 */
DMLS_API dmls_status dmls_execute_on(const dmls_operator *op, dmls_context *ctx, const void *input,
                                     uint64_t input_bytes, void *output, uint64_t output_bytes);

/* ---------------------------------------------------------------- one-shot */

/* Create, execute and destroy in one call, through the same helpers. On
 * failure nothing is written. (The DirectML form, dmls_slice_dml, is in
 * <dmlslice/dml.h>.) */
DMLS_API dmls_status dmls_slice(const dmls_tensor *input, const void *input_data,
                                uint64_t input_bytes, const dmls_tensor *output, void *output_data,
                                uint64_t output_bytes, const dmls_window *window);

#ifdef __cplusplus
}
#endif

#endif /* DMLSLICE_H */
