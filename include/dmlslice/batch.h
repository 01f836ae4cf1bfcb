/*
 * batch.h: many slices in one call (docs/spec.md section 7).
 *
 * A batch is a list of items planned once; each item is a planned operator
 * (any SLICE, SLICE1, SLICE_GRAD or native slice: shapes, element sizes and
 * directions may all differ) whose input and output live in *buffer slots*:
 * an item names an input slot and an output slot, and a byte offset into
 * each, fixed at plan time. At execute time the caller binds only the slots
 * (a base pointer and a byte count each): a split is 1 input slot and N
 * output slots, crops are 1 input slot and 1 output slot, a list of windows
 * over distinct buffers is one slot per item. The result is that of running
 * the items one by one, in any order (R-B-ITEM), byte for byte.
 *
 * Lifecycle: create (every item validated, the per-item table packed, the
 * overlaps inside each slot checked) -> execute any number of times, from
 * any number of threads at once -> destroy.
 *
 * Errors follow dmlslice.h: a dmls_status, and dmls_last_error() naming the
 * item, the field, the values and the rule, e.g.
 *   batch item 17: output bytes [+96, +144) of output slot 0 overlap item 16's, which end at +112 (R-B-OVERLAP)
 * On any failure nothing is written to any output and no handle is set.
 */
#ifndef DMLSLICE_BATCH_H
#define DMLSLICE_BATCH_H

#include "dmlslice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A planned batch. Immutable once created (dmls_batch_prepare_cuda adds its
 * device copy, under a lock): execute it from many threads at once. */
typedef struct dmls_batch dmls_batch;

/* One item: an operator, and where its tensors' bases lie. The operator's
 * bound input base is inputs[in_slot].data + in_offset, its output base
 * outputs[out_slot].data + out_offset; every binding rule of dmls_execute
 * holds for those bases and for the bytes left in the slot past them. */
typedef struct dmls_batch_item {
    const dmls_operator *op; /* not NULL; must outlive the batch */
    uint32_t in_slot, out_slot;
    uint64_t in_offset, out_offset; /* bytes */
} dmls_batch_item;

/* A bound slot: a base pointer and the bytes it holds from there. */
typedef struct dmls_batch_input {
    const void *data;
    uint64_t bytes;
} dmls_batch_input;
typedef struct dmls_batch_output {
    void *data;
    uint64_t bytes;
} dmls_batch_output;

/*
 * dmls_batch_create: validate and plan a batch of count items over in_slots
 * input slots and out_slots output slots.
 *   items      count items (may be NULL when count is 0: an empty batch,
 *              valid, does nothing). Each item's slots are below the slot
 *              counts; for an operator made from DirectML descriptors its
 *              offsets are multiples of the operator's binding alignment
 *              (R-X-ALIGN: DirectML's binding offsets are multiples of 16).
 *   batch      receives the batch; set to NULL on failure.
 * Checks (R-B-ITEM, R-B-OVERLAP): every op non-NULL, slots in range, offset
 * + bytes fits 64 bits, and no item's output range overlaps another item's
 * output range in the same output slot (the ranges of R-X-OVERLAP, placed at
 * the offsets). Overlaps across slots depend on the bound addresses and are
 * checked at execute. The operators are referenced, not copied: keep them
 * until dmls_batch_destroy. Thread-safe.
 */
DMLS_API dmls_status dmls_batch_create(const dmls_batch_item *items, size_t count, uint32_t in_slots,
                                       uint32_t out_slots, dmls_batch **batch);

/* Releases a batch and the operators it made itself (split, crops), and its
 * device copy if any. NULL is ignored. Not while another thread executes it. */
DMLS_API void dmls_batch_destroy(dmls_batch *batch);

/* Queries; none fails. Items and slot counts (0 for a NULL batch); the bytes
 * a slot must hold at least (0 for a NULL batch or a slot out of range). */
DMLS_API size_t dmls_batch_items(const dmls_batch *batch);
DMLS_API uint32_t dmls_batch_input_slots(const dmls_batch *batch);
DMLS_API uint32_t dmls_batch_output_slots(const dmls_batch *batch);
DMLS_API uint64_t dmls_batch_input_bytes(const dmls_batch *batch, uint32_t slot);
DMLS_API uint64_t dmls_batch_output_bytes(const dmls_batch *batch, uint32_t slot);

/*
 * dmls_batch_execute: run every item, on the calling thread and ctx's
 * workers (ctx NULL: the calling thread alone).
 *   inputs, n_inputs    the bound input slots; n_inputs == dmls_batch_input_slots.
 *   outputs, n_outputs  the bound output slots; n_outputs == dmls_batch_output_slots.
 * Checks every item's binding before writing anything, as dmls_execute does
 * for one operator (R-OP-NULL, R-X-BOUNDS, R-X-ALIGN), and that no item's
 * output range overlaps any item's input range or another item's output
 * range at the bound addresses (R-B-OVERLAP; O(n log n), inputs may overlap
 * each other). The error names the item(s) and the slot. Then one pass of
 * the pool over the items' total memory traffic: shares are contiguous runs
 * of work that cross item boundaries, so tiny items are grouped and no
 * worker is woken per item; a batch of less than 512 KiB of traffic runs on
 * the calling thread. A SLICE_GRAD item is never cut between threads (its
 * zero fill precedes its scatter). The outputs equal the items run one by
 * one with dmls_execute, byte for byte, whatever the thread count.
 * Thread safety: as dmls_execute_on.
 */
DMLS_API dmls_status dmls_batch_execute(const dmls_batch *batch, dmls_context *ctx, const dmls_batch_input *inputs,
                                        uint32_t n_inputs, const dmls_batch_output *outputs, uint32_t n_outputs);

/* ---------------------------------------------------------------- split */

/* How a count N becomes split sizes along an axis of length d
 * (docs/spec.md section 7). */
typedef enum dmls_split_rule {
    DMLS_SPLIT_ONNX = 0,       /* ONNX Split-18 num_outputs: N-1 of ceil(d/N), the last d - ceil(d/N)*(N-1) >= 0 */
    DMLS_SPLIT_TORCH_SIZE = 1, /* PyTorch split(x, k): chunks of k, the last smaller; ceil(d/k) outputs (1 if d == 0) */
    DMLS_SPLIT_ARRAY_SPLIT = 2, /* NumPy array_split / PyTorch tensor_split(x, N): the first d mod N get floor(d/N)+1 */
    DMLS_SPLIT_TORCH_CHUNK = 3  /* PyTorch chunk(x, N): chunks of ceil(d/N), as many as needed, at most N */
} dmls_split_rule;

/*
 * dmls_split_sizes: the output sizes along an axis of length d.
 *   d        the axis length, >= 0.
 *   n        the rule's count: outputs (ONNX, ARRAY_SPLIT, TORCH_CHUNK) or
 *            the chunk length (TORCH_SIZE); >= 1 (R-SPLIT-COUNT).
 *   sizes    receives the sizes, at most capacity of them; may be NULL to
 *            ask only for the count.
 *   count    receives the number of outputs (also when capacity is short:
 *            then DMLS_ERROR_INVALID_ARGUMENT and sizes untouched).
 * ONNX with d - ceil(d/n)*(n-1) < 0 (5 into 4) is DMLS_ERROR_SHAPE_MISMATCH
 * (R-SPLIT-COUNT), naming the other rules. Thread-safe.
 */
DMLS_API dmls_status dmls_split_sizes(int64_t d, int64_t n, dmls_split_rule rule, int64_t *sizes, size_t capacity,
                                      size_t *count);

/*
 * dmls_batch_create_split: one input, n outputs along one axis.
 *   input        the input view (any layout the native API takes), rank >= 1.
 *   axis         in [-rank, rank-1] (R-SPLIT-AXIS).
 *   sizes        n sizes, each >= 0, summing to the axis length (R-SPLIT-SUM).
 *   one_output   0: n output slots, output j packed (row-major) at offset 0 of
 *                slot j; 1: one output slot holding the n packed outputs one
 *                after another (output j at the sum of the earlier outputs' bytes).
 *   batch        receives the batch; set to NULL on failure.
 * The batch has 1 input slot. Equal sizes share one operator. Thread-safe.
 */
DMLS_API dmls_status dmls_batch_create_split(const dmls_tensor *input, int32_t axis, const int64_t *sizes, size_t n,
                                             int one_output, dmls_batch **batch);

/* ---------------------------------------------------------------- crops */

/* Element type of a starts array: 32- or 64-bit signed integers. */
typedef enum dmls_starts_type { DMLS_STARTS_INT32 = 4, DMLS_STARTS_INT64 = 8 } dmls_starts_type;

/*
 * dmls_batch_create_crops: n windows of one size from one input, stacked
 * into one packed output of shape (n, *size).
 *   input        the input view, rank r >= 0.
 *   size         r window sizes, each in [0, that axis's length] (R-CROP-SIZE).
 *   starts       n rows of r starts (row i for crop i), of starts_type, given
 *                by the host: checked here, 0 <= start and start + size <= dim
 *                (R-CROP-BOUNDS; the error names i, k and the values). NULL:
 *                the starts are bound at execute time as input slot 1, n*r
 *                integers of starts_type (for instance a device array on
 *                the GPU), and each is clamped to [0, dim - size] as
 *                jax.lax.dynamic_slice does: they cannot be checked first.
 *   batch        receives the batch; set to NULL on failure.
 * The batch has 1 input slot (2 with bound starts) and 1 output slot of
 * n * product(size) elements. Thread-safe.
 */
DMLS_API dmls_status dmls_batch_create_crops(const dmls_tensor *input, const int64_t *size, size_t n,
                                             const void *starts, dmls_starts_type starts_type, dmls_batch **batch);

#ifdef __cplusplus
}
#endif

#endif /* DMLSLICE_BATCH_H */
