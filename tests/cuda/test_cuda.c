/* The CUDA backend against the scalar reference, byte for byte:
 *   - DirectML's four worked examples (exact values too);
 *   - every canonical benchmark case at full size;
 *   - a seeded randomized differential test: ranks 1-8, element sizes
 *     1/2/4/8, negative and zero (broadcast) input strides, padded and
 *     reversed layouts on both sides, misaligned bases and byte offsets,
 *     SLICE and SLICE_GRAD; outputs are poisoned first and every byte of the
 *     output buffer, padding included, is compared;
 *   - the compact launch (launch.h, dmls_cuda_compact) at its boundaries: 4
 *     dims take it and 5 do not, for every kernel, element size, base
 *     alignment and negative strides; byte strides of +-2^31 (32-bit or
 *     not) and counts of 2^31 - 1 and 2^31 (the plan everywhere, the GPU
 *     with DMLS_TEST_LARGE=1). Every case that runs compact runs again with
 *     its compact forms switched off, so both parameter blocks are checked;
 *   - binding errors (nothing launched, nothing written);
 *   - with DMLS_TEST_LARGE=1: a slice of more than 2^31 elements checked
 *     in full against the CPU executor, and inputs of more than 2^32
 *     elements and more than 4 GiB, filled on the GPU, with windows beyond
 *     2^32 elements and bytes, checked on sampled coordinates against the
 *     definition (about 9 GiB of device memory at most).
 * Every differential case is also replayed on the CPU by an emulation of
 * the kernels' index arithmetic and accesses (bounds and alignment of every
 * load and store checked), from both parameter blocks: that part runs
 * without a GPU too. Without a GPU the program then exits 77 (CTest:
 * skipped), after checking that execute says DMLS_ERROR_NO_DEVICE; a failed
 * check still fails it. */
#include <cuda_runtime_api.h>

#include "cases.h"
#include "device_util.h"
#include "dmlslice/dml.h"
#include "dmlslice/dmlslice_cuda.h"
#include "cuda/launch.h"
#include "support/dtype.h"
#include "support/layout.h"
#include "support/test.h"
#include "cuda_check.h"
#include "emulator.h"
#include "support/permuted_case.h"
#include "support/conformance.h"

static bool have_gpu;

/* Device arenas the random cases place their buffers in, at chosen offsets. */
#define ARENA (64u << 20)
#define GUARD 64
static unsigned char *d_in_arena, *d_out_arena;
static cudaStream_t stream;

/* Launches run (as planned, first pass), by kernel and parameter block. */
static int ran[8][2];

/* ---------------------------------------------------------------- compact flags */

typedef struct compact_flags {
    int32_t copy[DMLS_CUDA_CHOICES], fill[DMLS_CUDA_CHOICES];
} compact_flags;

/* Switches op's compact forms off (execute then passes the general block)
 * and returns the flags to restore. Tests only: operators are otherwise
 * immutable. */
static compact_flags compact_off(dmls_operator *op) {
    dmls_cuda_state *cs = op->prepared[DMLS_BACKEND_CUDA];
    compact_flags f;
    for (int i = 0; i < DMLS_CUDA_CHOICES; i++) {
        f.copy[i] = cs->copy[i].compact, f.fill[i] = cs->fill[i].compact;
        cs->copy[i].compact = cs->fill[i].compact = 0;
    }
    return f;
}

static void compact_restore(dmls_operator *op, compact_flags f) {
    dmls_cuda_state *cs = op->prepared[DMLS_BACKEND_CUDA];
    for (int i = 0; i < DMLS_CUDA_CHOICES; i++) cs->copy[i].compact = f.copy[i], cs->fill[i].compact = f.fill[i];
}

static const dmls_cuda_launch *chosen_copy(const dmls_operator *op, const void *in, const void *out) {
    return &dmls_cuda_state_of(op)->copy[dmls_cuda_choose(dmls_cuda_state_of(op)->copy, in, out)];
}
static const dmls_cuda_launch *chosen_fill(const dmls_operator *op, const void *out) {
    return &dmls_cuda_state_of(op)->fill[dmls_cuda_choose(dmls_cuda_state_of(op)->fill, out, out)];
}

/* True when an execute on these bases runs a compact launch. */
static bool runs_compact(const dmls_operator *op, const void *in, const void *out) {
    return chosen_copy(op, in, out)->compact || (op->zero_fill && chosen_fill(op, out)->compact);
}

static bool fits32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

/* The rule a launch's compact form follows (prepare.c), restated. */
static bool compact_expected(const dmls_cuda_launch *L) {
    if (L->kernel == DMLS_CUDA_NOTHING || L->kernel == DMLS_CUDA_MEMSET || L->kernel == DMLS_CUDA_TILE) return false;
    if (L->wide || L->ndim > DMLS_CUDA_COMPACT_DIMS) return false;
    for (int i = 0; i < L->ndim; i++)
        if (!fits32(L->src_stride[i]) || !fits32(L->dst_stride[i])) return false;
    return true;
}

/* ---------------------------------------------------------------- differential */

/* Runs op from the same random input and the same poisoned output as the
 * reference, and compares the whole output buffer plus a guard band after
 * it: emulated on the CPU always, on the GPU when there is one. Each runs
 * as planned and, when that used a compact launch, again with the compact
 * forms off. in_shift/out_shift misalign the bases. */
static void differential(dmls_operator *op, const char *label, size_t in_shift, size_t out_shift) {
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    const size_t in_alloc = (size_t)in_bytes + 1, out_alloc = (size_t)out_bytes + GUARD;
    /* Host buffers 64-byte aligned, so a shift gives the same alignment as
     * on the device (cudaMalloc: 256) and execute would choose the same. */
    const size_t e_in_size = (in_alloc + in_shift + 63) / 64 * 64, e_out_size = (out_alloc + out_shift + 63) / 64 * 64;
    conformance_host host = conformance_host_make(op, in_alloc, out_alloc, label);
    const unsigned char *h_in = host.in, *h_poison = host.poison, *h_ref = host.ref;
    unsigned char *h_got = malloc(out_alloc), *e_in = aligned_alloc(64, e_in_size),
                  *e_out = aligned_alloc(64, e_out_size);
    if (!h_got || !e_in || !e_out) {
        fprintf(stderr, "out of host memory for %s\n", label);
        exit(1);
    }

    /* The CPU emulation (skipped above 16 MiB of output: the full-size
     * canonical cases would take seconds each). */
    memcpy(e_in + in_shift, h_in, in_alloc);
    const bool compact_cpu = runs_compact(op, e_in + in_shift, e_out + out_shift);
    const bool emulated = out_bytes <= ((uint64_t)16 << 20);
    {
        const dmls_cuda_launch *L = chosen_copy(op, e_in + in_shift, e_out + out_shift);
        ran[L->kernel & 7][L->compact != 0]++;
        if (op->zero_fill) {
            const dmls_cuda_launch *F = chosen_fill(op, e_out + out_shift);
            ran[F->kernel & 7][F->compact != 0]++;
        }
    }
    for (int pass = 0; emulated && pass < (compact_cpu ? 2 : 1); pass++) {
        compact_flags saved = {{0}, {0}};
        if (pass) saved = compact_off(op);
        memcpy(e_out + out_shift, h_poison, out_alloc);
        emulate_op(op, e_in + in_shift, e_out + out_shift, label);
        conformance_compare(e_out + out_shift, h_ref, out_alloc, out_bytes, label,
                            pass ? "emulated, general block" : "emulated");
        CHECK(memcmp(e_in + in_shift, h_in, in_alloc) == 0, "%s: the emulation wrote the input", label);
        if (pass) compact_restore(op, saved);
    }

    if (have_gpu) {
        unsigned char *d_in = NULL, *d_out = NULL;
        bool own = in_bytes + in_shift + 1 > ARENA || out_alloc + out_shift > ARENA;
        if (own) {
            CU(cudaMalloc((void **)&d_in, in_alloc + in_shift));
            CU(cudaMalloc((void **)&d_out, out_alloc + out_shift));
        } else {
            d_in = d_in_arena, d_out = d_out_arena;
        }
        CU(cudaMemcpy(d_in + in_shift, h_in, in_alloc, cudaMemcpyHostToDevice));
        const bool compact_gpu = runs_compact(op, d_in + in_shift, d_out + out_shift);
        CHECK(compact_gpu == compact_cpu, "%s: the emulation chose another launch than the GPU would", label);
        for (int pass = 0; pass < (compact_gpu ? 2 : 1); pass++) {
            compact_flags saved = {{0}, {0}};
            if (pass) saved = compact_off(op);
            CU(cudaMemcpy(d_out + out_shift, h_poison, out_alloc, cudaMemcpyHostToDevice));
            /* A copy from pageable memory on the legacy stream may still be
             * landing when cudaMemcpy returns, and `stream` is non-blocking:
             * without this the poison overwrote the result. */
            CU(cudaDeviceSynchronize());
            const dmls_status s =
                dmls_execute_cuda(op, d_in + in_shift, in_bytes, d_out + out_shift, out_bytes, stream);
            CHECK(s == DMLS_OK, "%s: execute_cuda returned %s: %s", label, dmls_status_name(s), dmls_last_error());
            CU(cudaStreamSynchronize(stream));
            CU(cudaMemcpy(h_got, d_out + out_shift, out_alloc, cudaMemcpyDeviceToHost));
            conformance_compare(h_got, h_ref, out_alloc, out_bytes, label, pass ? "GPU, general block" : "GPU");
            if (pass) compact_restore(op, saved);
        }
        /* The input is read-only. */
        if (in_alloc <= out_alloc) {
            CU(cudaMemcpy(h_got, d_in + in_shift, in_alloc, cudaMemcpyDeviceToHost));
            CHECK(memcmp(h_got, h_in, in_alloc) == 0, "%s: the input buffer changed", label);
        }
        if (own) {
            CU(cudaFree(d_in));
            CU(cudaFree(d_out));
        }
    }
    conformance_host_free(&host);
    free(h_got), free(e_in), free(e_out);
}

/* ---------------------------------------------------------------- examples */

static void test_examples(void) {
    float in[16];
    conformance_example_input(in);
    float *d_in = NULL, *d_out = NULL;
    if (have_gpu) {
        CU(cudaMalloc((void **)&d_in, sizeof in));
        CU(cudaMalloc((void **)&d_out, 64));
        CU(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));
        CU(cudaDeviceSynchronize()); /* before work on the non-blocking stream */
    }
    for (size_t e = 0; e < CONFORMANCE_EXAMPLES; e++) {
        float want[4], got[4] = {0};
        dmls_operator *op = conformance_example(e, want);
        if (op == NULL) continue;
        if (have_gpu) {
            CU(cudaMemset(d_out, 0xff, 64));
            CHECK_STATUS(dmls_execute_cuda(op, d_in, sizeof in, d_out, dmls_output_bytes(op), NULL), DMLS_OK);
            CU(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
            conformance_example_check("GPU", e, got, want);
        }
        char label[32];
        snprintf(label, sizeof label, "example %zu", e);
        differential(op, label, 0, 0);
        dmls_destroy(op);
    }
    if (have_gpu) {
        CU(cudaFree(d_in));
        CU(cudaFree(d_out));
    }
}

/* Output padding is never written (docs/spec.md section 2, recorded
 * decisions): a DirectML output laid out in rows of 8 elements, with 32
 * bytes past its last row inside TotalTensorSizeInBytes, keeps its sentinel
 * everywhere no element lies, under the launches the CUDA backend plans
 * (emulated here; on a GPU, differential compares the whole buffer with the
 * reference, which test_rules checks the same way). SLICE_GRAD's zero fill
 * is the case that could reach for a memset over the whole buffer. */
static void test_output_padding(void) {
    static const float input[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    for (int grad = 0; grad < 2; grad++) {
        const UINT big[2] = {4, 4}, small[2] = {2, 2}, off[2] = {0, 1}, wsize[2] = {4, 3};
        const INT wstride[2] = {2, 2};
        const UINT *in_sizes = grad ? small : big, *out_sizes = grad ? big : small;
        const UINT out_strides[2] = {8, 1};
        DML_BUFFER_TENSOR_DESC ib = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, in_sizes, NULL, 0, 0};
        DML_BUFFER_TENSOR_DESC ob = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, out_sizes, out_strides, 0, 0};
        uint64_t bytes = 0;
        dmls_calc_buffer_tensor_size(ib.DataType, 2, in_sizes, NULL, &bytes);
        ib.TotalTensorSizeInBytes = bytes;
        dmls_calc_buffer_tensor_size(ob.DataType, 2, out_sizes, out_strides, &bytes);
        ob.TotalTensorSizeInBytes = bytes + 32;
        DML_TENSOR_DESC it = {DML_TENSOR_TYPE_BUFFER, &ib}, ot = {DML_TENSOR_TYPE_BUFFER, &ob};
        DML_SLICE1_OPERATOR_DESC s1 = {&it, &ot, 2, off, wsize, wstride};
        DML_SLICE_GRAD_OPERATOR_DESC sg = {&it, &ot, 2, off, wsize, wstride};
        DML_OPERATOR_DESC desc = {grad ? DML_OPERATOR_SLICE_GRAD : DML_OPERATOR_SLICE1,
                                  grad ? (const void *)&sg : (const void *)&s1};
        dmls_operator *op = NULL;
        CHECK_STATUS(dmls_create_dml(&desc, DML_FEATURE_LEVEL_4_1, &op), DMLS_OK);
        if (op == NULL) continue;
        const char *label = grad ? "padded SLICE_GRAD output" : "padded SLICE1 output";
        _Alignas(64) unsigned char in[64], out[256];
        memcpy(in, input, sizeof input);
        memset(out, 0x5A, sizeof out);
        emulate_op(op, in, out, label);
        const UINT rows = out_sizes[0], cols = out_sizes[1];
        for (size_t b = 0; b < sizeof out; b++) {
            const size_t e = b / 4;
            if (b < ob.TotalTensorSizeInBytes && e / 8 < rows && e % 8 < cols) continue;
            if (out[b] != 0x5A) {
                CHECK(false, "%s: padding byte %zu was written (0x%02x)", label, b, out[b]);
                break;
            }
        }
        float first;
        memcpy(&first, out, sizeof first);
        CHECK(first == (grad ? 0.0f : 2.0f), "%s: first element %g", label, first);
        differential(op, label, 0, 0);
        dmls_destroy(op);
    }
}

/* ---------------------------------------------------------------- binding */

static void test_binding_errors(void) {
    static const int64_t shape[2] = {4, 8}, out_shape[2] = {2, 4};
    static const int64_t offs[2] = {1, 2}, sizes[2] = {2, 4}, steps[2] = {1, 1};
    dmls_tensor in = {DMLS_FLOAT32, 2, shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    if (op == NULL) return;
    unsigned char *d, h[32 * 4];
    CU(cudaMalloc((void **)&d, 4096));
    CU(cudaMemset(d, 0x5a, 4096));
    CHECK_STATUS(dmls_execute_cuda(op, d, 127, d + 2048, 32, NULL), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "input buffer holds 127 bytes");
    CHECK_STATUS(dmls_execute_cuda(op, d, 128, d + 2048, 31, NULL), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_STATUS(dmls_execute_cuda(op, d, 128, d + 100, 32, NULL), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-X-OVERLAP", "overlap");
    CHECK_STATUS(dmls_execute_cuda(op, NULL, 128, d + 2048, 32, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_execute_cuda(NULL, d, 128, d + 2048, 32, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CU(cudaDeviceSynchronize());
    CU(cudaMemcpy(h, d + 2048, sizeof h, cudaMemcpyDeviceToHost));
    bool untouched = true;
    for (size_t i = 0; i < sizeof h; i++) untouched &= h[i] == 0x5a;
    CHECK(untouched, "a failed execute wrote to the output");
    /* A successful launch leaves no error behind in the runtime. */
    CHECK_STATUS(dmls_execute_cuda(op, d, 128, d + 2048, 32, NULL), DMLS_OK);
    CHECK(cudaGetLastError() == cudaSuccess, "an execute left an error in the CUDA runtime");
    CU(cudaDeviceSynchronize());
    CU(cudaFree(d));
    dmls_destroy(op);
}

/* ---------------------------------------------------------------- canonical */

static void canonical_run(dmls_operator *op, const char *name) {
    differential(op, name, 0, 0);
    const dmls_cuda_launch *L = &dmls_cuda_state_of(op)->copy[0];
    printf("canonical %s: launch kind %d unit %d vec %d, %d dims, %s block\n", name, L->kernel, L->unit, L->vec,
           L->ndim, L->compact ? "compact" : "general");
}

/* ---------------------------------------------------------------- random */


/* A random slice (conformance.h; a third of them shaped for the vector
 * launches): its launches planned compact exactly where they may be, then
 * run at its byte shifts. */
static void random_run(dmls_operator *op, const char *label, size_t in_shift, size_t out_shift) {
    const dmls_cuda_state *cp = dmls_cuda_state_of(op);
    for (int i = 0; i < DMLS_CUDA_CHOICES; i++) {
        CHECK(cp->copy[i].compact == compact_expected(&cp->copy[i]), "%s: copy choice %d: compact %d", label, i,
              cp->copy[i].compact);
        CHECK(cp->fill[i].compact == compact_expected(&cp->fill[i]), "%s: fill choice %d: compact %d", label, i,
              cp->fill[i].compact);
    }
    differential(op, label, in_shift, out_shift);
}
static const conformance_random random_how = {200000, 4000, true, false};

/* ---------------------------------------------------------------- permuted (issue 34) */

/* Random permuted slices (permuted_case.h), emulated and on the GPU; the
 * tiled launch must have run on some and been checked there. */
static void test_permuted(int iters) {
    const int tiled_before = ran[DMLS_CUDA_TILE][0];
    permuted_cases_run(iters, differential);
    CHECK(ran[DMLS_CUDA_TILE][0] - tiled_before >= iters / 8, "the tiled launch ran in %d of %d permuted cases",
          ran[DMLS_CUDA_TILE][0] - tiled_before, iters);
}

/* ---------------------------------------------------------------- compact boundaries */

/* Kernels the compact boundary must be seen for, at 4 dims (compact) and
 * at 5 (general). */
static bool seen_at4[8], seen_at5[8];

enum { INNER_WIDEN, INNER_GATHER, INNER_REVERSE, INNER_STRIDED, INNER_KINDS };

/* A rank-`rank` slice (or grad) whose plan keeps every dim: outer dims of 3
 * taken with step -2 or 2 (negative strides, nothing merges), the inner
 * dim shaped for one launch kind; the big tensor padded by 16 elements per
 * dim (so its zero fill is a FILL launch, not a memset). */
static void boundary_case(int rank, dmls_dtype dt, int inner, bool grad, size_t shift) {
    const size_t es = dmls_dtype_size(dt);
    int64_t big[DMLS_MAX_RANK], small[DMLS_MAX_RANK], offs[DMLS_MAX_RANK], sizes[DMLS_MAX_RANK], steps[DMLS_MAX_RANK],
        big_strides[DMLS_MAX_RANK];
    for (int i = 0; i < rank - 1; i++) big[i] = 3, offs[i] = 0, sizes[i] = 3, steps[i] = i == 0 ? -2 : 2, small[i] = 2;
    const int in = rank - 1;
    static const int64_t inner_big[INNER_KINDS] = {16, 32, 16, 9}, inner_step[INNER_KINDS] = {1, 2, -1, 3};
    big[in] = inner_big[inner], offs[in] = 0, sizes[in] = big[in], steps[in] = inner_step[inner];
    small[in] = (big[in] + (steps[in] < 0 ? -steps[in] : steps[in]) - 1) / (steps[in] < 0 ? -steps[in] : steps[in]);
    big_strides[in] = 1;
    for (int i = in - 1; i >= 0; i--) big_strides[i] = big_strides[i + 1] * big[i + 1] + 16;
    dmls_tensor tb = {dt, rank, big, big_strides, 0}, ts = {dt, rank, small, NULL, 0};
    dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL;
    CHECK_STATUS(grad ? dmls_create_grad(&ts, &tb, &w, &op) : dmls_create(&tb, &ts, &w, &op), DMLS_OK);
    if (op == NULL) return;
    static const char *inner_name[INNER_KINDS] = {"contiguous", "step 2", "step -1", "step 3"};
    char label[96];
    snprintf(label, sizeof label, "boundary: rank %d, %zu-byte, inner %s, %s, shift %zu", rank, es, inner_name[inner],
             grad ? "grad" : "slice", shift);
    /* The launches that run on bases shifted by `shift` (alignment mod 64
     * is what counts; the arena and aligned_alloc give 64). */
    const void *in_base = (const void *)(uintptr_t)(4096 + shift), *out_base = (const void *)(uintptr_t)(8192 + shift);
    const dmls_cuda_launch *run[2] = {chosen_copy(op, in_base, out_base), op->zero_fill ? chosen_fill(op, out_base) : NULL};
    for (int k = 0; k < 2; k++) {
        const dmls_cuda_launch *L = run[k];
        if (L == NULL || L->kernel == DMLS_CUDA_MEMSET || L->kernel == DMLS_CUDA_NOTHING) continue;
        CHECK(L->compact == compact_expected(L), "%s: %s launch (kind %d, %d dims): compact %d", label, k ? "fill" : "copy",
              L->kernel, L->ndim, L->compact);
        if (L->ndim == DMLS_CUDA_COMPACT_DIMS && L->compact) seen_at4[L->kernel & 7] = true;
        if (L->ndim == DMLS_CUDA_COMPACT_DIMS + 1 && !L->compact) seen_at5[L->kernel & 7] = true;
    }
    differential(op, label, shift, shift);
    dmls_destroy(op);
}

static void test_compact_boundaries(void) {
    for (int rank = DMLS_CUDA_COMPACT_DIMS; rank <= DMLS_CUDA_COMPACT_DIMS + 1; rank++)
        for (int t = 0; t < 4; t++)
            for (int inner = 0; inner < INNER_KINDS; inner++)
                for (int grad = 0; grad < 2; grad++) {
                    const size_t es = dmls_dtype_size(test_dtype_of_size(1 << t));
                    /* aligned (the vector launches), misaligned for the
                     * vector but not the element (natural), misaligned for
                     * the element (byte-wise) */
                    const size_t shifts[3] = {0, es > 1 ? es : 4, 1};
                    for (int k = 0; k < 3; k++) boundary_case(rank, test_dtype_of_size(1 << t), inner, grad != 0, shifts[k]);
                }
    static const int kinds[4] = {DMLS_CUDA_COPY, DMLS_CUDA_GATHER, DMLS_CUDA_REVERSE, DMLS_CUDA_FILL};
    static const char *names[4] = {"copy", "gather", "reverse", "fill"};
    for (int k = 0; k < 4; k++) {
        CHECK(seen_at4[kinds[k]], "boundary: no %s launch of %d dims ran compact", names[k], DMLS_CUDA_COMPACT_DIMS);
        CHECK(seen_at5[kinds[k]], "boundary: no %s launch of %d dims ran general", names[k], DMLS_CUDA_COMPACT_DIMS + 1);
    }
    printf("compact boundary: 4-dim launches compact and 5-dim general seen for copy, gather, reverse and fill\n");
}

/* ---------------------------------------------------------------- sampled checks on the GPU */

/* A 1- or 2-D tensor of the sampled cases; strides in elements, NULL-free. */
typedef struct sview {
    int n;
    int64_t shape[2], strides[2];
    uint64_t offset;
} sview;

typedef struct sampled_case {
    const char *name;
    dmls_dtype dt;
    bool grad;          /* SLICE_GRAD: big is the output, filled with zeros outside the window */
    sview big, small;   /* big: the tensor the window lies over */
    int64_t offs[2], sizes[2], steps[2];
    int want_compact;   /* 1 / 0: the copy launch must (not) run compact; -1: either */
    int want_wide;      /* the same for the 64-bit index path */
    bool gaps;          /* also check that the byte after each sampled output element kept the poison */
} sampled_case;

#define POISON 0xEE
#define SAMPLES 100000

/* Byte offset of element c of v. */
static int64_t view_offset(const sview *v, const int64_t *c, size_t es) {
    int64_t e = 0;
    for (int i = 0; i < v->n; i++) e += c[i] * v->strides[i];
    return (int64_t)v->offset + e * (int64_t)es;
}

/* sc's operator; NULL after a failed CHECK. */
static dmls_operator *sampled_create(const sampled_case *sc) {
    const dmls_tensor tb = {sc->dt, sc->big.n, sc->big.shape, sc->big.strides, sc->big.offset};
    const dmls_tensor ts = {sc->dt, sc->small.n, sc->small.shape, sc->small.strides, sc->small.offset};
    const dmls_window w = {sc->offs, sc->sizes, sc->steps};
    dmls_operator *op = NULL;
    CHECK_STATUS(sc->grad ? dmls_create_grad(&ts, &tb, &w, &op) : dmls_create(&tb, &ts, &w, &op), DMLS_OK);
    return op;
}

static void sampled_run(const sampled_case *sc) {
    const size_t es = dmls_dtype_size(sc->dt);
    dmls_operator *op = sampled_create(sc);
    if (op == NULL) return;
    const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
    unsigned char *d_in = NULL, *d_out = NULL, *d_samples = NULL;
    int64_t *d_offsets = NULL;
    CU(cudaMalloc((void **)&d_in, ib));
    CU(cudaMalloc((void **)&d_out, ob + 1));
    const dmls_cuda_launch *L = chosen_copy(op, d_in, d_out);
    printf("%s: input %.2f GiB, output %.2f GiB, %llu output elements; launch kind %d unit %d, %d dims, %s index, %s "
           "block\n",
           sc->name, ib / 1073741824.0, ob / 1073741824.0, (unsigned long long)op->copy.count, L->kernel, L->unit,
           L->ndim, L->wide ? "64-bit" : "32-bit", L->compact ? "compact" : "general");
    if (sc->want_compact >= 0)
        CHECK(L->compact == sc->want_compact, "%s: copy launch compact %d, expected %d", sc->name, L->compact, sc->want_compact);
    if (sc->want_wide >= 0)
        CHECK(L->wide == sc->want_wide, "%s: copy launch wide %d, expected %d", sc->name, L->wide, sc->want_wide);
    fflush(stdout);
    CU((cudaError_t)test_dev_fill_hash(d_in, ib, stream));
    CU(cudaMemsetAsync(d_out, POISON, ob + 1, stream));
    CHECK_STATUS(dmls_execute_cuda(op, d_in, ib, d_out, ob, stream), DMLS_OK);

    /* Samples: every corner, the elements at flat output indices around
     * 2^31 and 2^32, then random coordinates of the small tensor (every
     * element, when there are at most SAMPLES). For each, the output byte
     * offset and what it must hold. */
    const sview *sm = &sc->small, *bg = &sc->big;
    const int n = sm->n;
    int64_t *out_off = malloc(sizeof(int64_t) * 2 * SAMPLES), *src_off = malloc(sizeof(int64_t) * 2 * SAMPLES);
    unsigned char *got = malloc((size_t)2 * SAMPLES * es);
    CHECK(out_off && src_off && got, "out of host memory");
    if (!out_off || !src_off || !got) exit(1);
    uint64_t total = 1;
    for (int i = 0; i < n; i++) total *= (uint64_t)sm->shape[i];
    static const uint64_t flat[] = {((uint64_t)1 << 31) - 1, (uint64_t)1 << 31, ((uint64_t)1 << 32) - 1,
                                    (uint64_t)1 << 32, ((uint64_t)1 << 32) + 1};
    int m = 0;
    for (int k = 0; k < SAMPLES; k++) {
        int64_t c[2];
        if (total <= SAMPLES) { /* small: every element once */
            if ((uint64_t)k >= total) break;
            uint64_t f = (uint64_t)k;
            for (int i = n - 1; i >= 0; i--) c[i] = (int64_t)(f % (uint64_t)sm->shape[i]), f /= (uint64_t)sm->shape[i];
        } else if (k < (1 << n)) { /* corners */
            for (int i = 0; i < n; i++) c[i] = (k >> i) & 1 ? sm->shape[i] - 1 : 0;
        } else if (k - (1 << n) < (int)(sizeof flat / sizeof flat[0])) {
            uint64_t f = flat[k - (1 << n)];
            if (f >= total) continue;
            for (int i = n - 1; i >= 0; i--) c[i] = (int64_t)(f % (uint64_t)sm->shape[i]), f /= (uint64_t)sm->shape[i];
        } else {
            for (int i = 0; i < n; i++) c[i] = test_range(0, sm->shape[i] - 1);
        }
        int64_t b[2]; /* the big tensor's coordinate: start + step * c */
        for (int i = 0; i < n; i++)
            b[i] = (sc->steps[i] > 0 ? sc->offs[i] : sc->offs[i] + sc->sizes[i] - 1) + sc->steps[i] * c[i];
        /* SLICE: output (small) at c holds input (big) at b; SLICE_GRAD:
         * output (big) at b holds input (small) at c. */
        out_off[m] = sc->grad ? view_offset(bg, b, es) : view_offset(sm, c, es);
        src_off[m] = sc->grad ? view_offset(sm, c, es) : view_offset(bg, b, es);
        m++;
        if (sc->gaps) {
            out_off[m] = out_off[m - 1] + (int64_t)es; /* the byte after: padding, must keep the poison */
            src_off[m] = -1;
            m++;
        }
    }
    CU(cudaMalloc((void **)&d_offsets, sizeof(int64_t) * (size_t)m));
    CU(cudaMalloc((void **)&d_samples, (size_t)m * es));
    CU(cudaMemcpyAsync(d_offsets, out_off, sizeof(int64_t) * (size_t)m, cudaMemcpyHostToDevice, stream));
    CU((cudaError_t)test_dev_gather(d_out, d_offsets, m, (int)es, d_samples, stream));
    CU(cudaMemcpyAsync(got, d_samples, (size_t)m * es, cudaMemcpyDeviceToHost, stream));
    CU(cudaStreamSynchronize(stream));
    int bad = 0;
    for (int k = 0; k < m && bad < 5; k++)
        for (size_t j = 0; j < es; j++) {
            const unsigned want = src_off[k] < 0 ? POISON : test_hash_byte((uint64_t)src_off[k] + j);
            const unsigned have = got[(size_t)k * es + j];
            if (want != have) {
                bad++;
                CHECK(false, "%s: output byte %lld holds %02x, expected %02x (%s)", sc->name,
                      (long long)(out_off[k] + (int64_t)j), have, want,
                      src_off[k] < 0 ? "padding, must keep the poison" : "the input's byte");
                break;
            }
            test_checks_passed++;
        }
    printf("%s: %d sampled elements checked\n", sc->name, m);
    free(out_off), free(src_off), free(got);
    CU(cudaFree(d_offsets));
    CU(cudaFree(d_samples));
    CU(cudaFree(d_in));
    CU(cudaFree(d_out));
    dmls_destroy(op);
}

/* ---------------------------------------------------------------- plan-level boundaries */

/* The compact decision at the count and stride boundaries, from the plan
 * alone (no buffers: runs everywhere), and the launches the large cases
 * expect. The same cases run on the GPU with DMLS_TEST_LARGE=1. */
#define TWO31 ((int64_t)1 << 31)

static const sampled_case boundary_cases[] = {
    /* count: 2^31 - 1 one-byte elements, output stride 2 (no gather, no
     * widening: the launch count is the element count), then 2^31 */
    {"count 2^31-1", DMLS_UINT8, false, {1, {TWO31 - 1}, {1}, 0}, {1, {TWO31 - 1}, {2}, 0},
     {0}, {TWO31 - 1}, {1}, 1, 0, true},
    {"count 2^31", DMLS_UINT8, false, {1, {TWO31}, {1}, 0}, {1, {TWO31}, {2}, 0},
     {0}, {TWO31}, {1}, 0, 1, true},
    /* byte strides of +-2^31 (2 x 5 bytes, rows 2^31 apart): one-byte
     * elements, so the launch's byte stride is the tensor's */
    {"stride 2^31-1", DMLS_UINT8, false, {2, {2, 5}, {TWO31 - 1, 1}, 0}, {2, {2, 5}, {5, 1}, 0},
     {0, 0}, {2, 5}, {1, 1}, 1, 0, false},
    {"stride 2^31", DMLS_UINT8, false, {2, {2, 5}, {TWO31, 1}, 0}, {2, {2, 5}, {5, 1}, 0},
     {0, 0}, {2, 5}, {1, 1}, 0, 0, false},
    {"stride -2^31", DMLS_UINT8, false, {2, {2, 5}, {-TWO31, 1}, (uint64_t)TWO31}, {2, {2, 5}, {5, 1}, 0},
     {0, 0}, {2, 5}, {1, 1}, 1, 0, false},
    {"stride -2^31-1", DMLS_UINT8, false, {2, {2, 5}, {-TWO31 - 1, 1}, (uint64_t)TWO31 + 1}, {2, {2, 5}, {5, 1}, 0},
     {0, 0}, {2, 5}, {1, 1}, 0, 0, false},
    /* the destination side: SLICE_GRAD scatters into (and zero-fills) a big
     * output with rows 2^31 - 1 or 2^31 bytes apart */
    {"grad stride 2^31-1", DMLS_UINT8, true, {2, {2, 5}, {TWO31 - 1, 1}, 0}, {2, {2, 5}, {5, 1}, 0},
     {0, 0}, {2, 5}, {1, 1}, 1, 0, false},
    {"grad stride 2^31", DMLS_UINT8, true, {2, {2, 5}, {TWO31, 1}, 0}, {2, {2, 5}, {5, 1}, 0},
     {0, 0}, {2, 5}, {1, 1}, 0, 0, false},
};

/* Inputs over 4 GiB and over 2^32 elements through the native API, on the
 * GPU, sampled against the definition (the CPU version is
 * tests/large/large_tensors.c). One case at a time; at most 8.3 GiB of
 * device memory. */
static const sampled_case large_cases[] = {
    /* uint8, 69632 x 63488 = 4.42e9 elements (4.12 GiB). */
    /* All of it but a frame, rows reversed: 4.42e9 output elements, the
     * 64-bit index path past 2^32. */
    {"u8 4.42e9 elements, rows reversed", DMLS_UINT8, false, {2, {69632, 63488}, {63488, 1}, 0},
     {2, {69628, 63483}, {63483, 1}, 0}, {3, 5}, {69628, 63483}, {-1, 1}, 0, 1, false},
    /* Windows that start past 2^32 bytes and elements: a gather (rows step
     * -3 from row 68999, columns step 2) and a reversal (columns step -1,
     * rows step 7), both compact: the offsets go into the base pointers. */
    {"u8 window past 2^32, steps -3/2", DMLS_UINT8, false, {2, {69632, 63488}, {63488, 1}, 0},
     {2, {667, 2000}, {2000, 1}, 0}, {67000, 1001}, {2000, 4000}, {-3, 2}, 1, 0, false},
    {"u8 window past 2^32, steps 7/-1", DMLS_UINT8, false, {2, {69632, 63488}, {63488, 1}, 0},
     {2, {143, 3200}, {3200, 1}, 0}, {68000, 60000}, {1000, 3200}, {7, -1}, 1, 0, false},
    /* uint32, 40000 x 30200 = 1.21e9 elements (4.5 GiB). */
    {"u32 4.5 GiB, steps 2/-3", DMLS_UINT32, false, {2, {40000, 30200}, {30200, 1}, 0},
     {2, {19999, 10065}, {10065, 1}, 0}, {1, 7}, {39998, 30193}, {2, -3}, 1, 0, false},
    /* The second half's rows, 16-byte units, up to the buffer's last rows
     * (4.8e9 bytes in). */
    {"u32 4.5 GiB, rows 20000.., 16-byte units", DMLS_UINT32, false, {2, {40000, 30200}, {30200, 1}, 0},
     {2, {19999, 30196}, {30196, 1}, 0}, {20000, 4}, {19999, 30196}, {1, 1}, 1, 0, false},
};

static void test_plan_boundaries(void) {
    const void *in_base = (const void *)(uintptr_t)4096, *out_base = (const void *)(uintptr_t)8192;
    const size_t nb = sizeof boundary_cases / sizeof boundary_cases[0], nl = sizeof large_cases / sizeof large_cases[0];
    for (size_t k = 0; k < nb + nl; k++) {
        const sampled_case *sc = k < nb ? &boundary_cases[k] : &large_cases[k - nb];
        dmls_operator *op = sampled_create(sc);
        if (op == NULL) continue;
        const dmls_cuda_launch *L = chosen_copy(op, in_base, out_base);
        printf("plan %s: launch kind %d unit %d vec %d, %d dims, count %llu, %s index, %s block\n", sc->name, L->kernel,
               L->unit, L->vec, L->ndim, (unsigned long long)L->count, L->wide ? "64-bit" : "32-bit",
               L->compact ? "compact" : "general");
        CHECK(L->compact == sc->want_compact && L->wide == sc->want_wide,
              "plan %s: copy launch compact %d wide %d (kind %d, %d dims, count %llu), expected compact %d wide %d",
              sc->name, L->compact, L->wide, L->kernel, L->ndim, (unsigned long long)L->count, sc->want_compact,
              sc->want_wide);
        if (sc->grad) {
            const dmls_cuda_launch *F = chosen_fill(op, out_base);
            CHECK(F->kernel == DMLS_CUDA_FILL && F->compact == sc->want_compact,
                  "plan %s: fill launch kind %d compact %d, expected a FILL, compact %d", sc->name, F->kernel, F->compact,
                  sc->want_compact);
        }
        dmls_destroy(op);
    }
}

/* ---------------------------------------------------------------- large */

static void test_large(void) {
    /* 3 x (2^30 - 1) one-byte elements from a 3 x 2^30 input: over 2^31
     * elements, and the odd row length keeps it on the byte-unit path. */
    static const int64_t in_shape[2] = {3, (int64_t)1 << 30}, out_shape[2] = {3, ((int64_t)1 << 30) - 1};
    static const int64_t offs[2] = {0, 1}, sizes[2] = {3, ((int64_t)1 << 30) - 1}, steps[2] = {1, 1};
    dmls_tensor in = {DMLS_UINT8, 2, in_shape, NULL, 0}, out = {DMLS_UINT8, 2, out_shape, NULL, 0};
    dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    if (op == NULL) return;
    CHECK(dmls_cuda_state_of(op)->copy[0].wide == 1, "large: expected the 64-bit index path");
    printf("large: %llu one-byte elements, 64-bit index path\n", (unsigned long long)dmls_cuda_state_of(op)->copy[0].count);
    const size_t ib = (size_t)dmls_input_bytes(op), ob = (size_t)dmls_output_bytes(op);
    unsigned char *h_in = malloc(ib), *h_ref = malloc(ob), *h_got = malloc(ob), *d_in, *d_out;
    CHECK(h_in && h_ref && h_got, "large: out of host memory");
    if (h_in && h_ref && h_got) {
        test_fill_random(h_in, ib);
        CU(cudaMalloc((void **)&d_in, ib));
        CU(cudaMalloc((void **)&d_out, ob));
        CU(cudaMemcpy(d_in, h_in, ib, cudaMemcpyHostToDevice));
        CU(cudaMemset(d_out, 0x33, ob));
        CU(cudaDeviceSynchronize()); /* before work on the non-blocking stream */
        CHECK_STATUS(dmls_execute_cuda(op, d_in, ib, d_out, ob, stream), DMLS_OK);
        CU(cudaStreamSynchronize(stream));
        CU(cudaMemcpy(h_got, d_out, ob, cudaMemcpyDeviceToHost));
        CHECK_STATUS(dmls_execute(op, h_in, ib, h_ref, ob), DMLS_OK);
        CHECK(memcmp(h_got, h_ref, ob) == 0, "large: GPU output differs from the CPU executor");
        CU(cudaFree(d_in));
        CU(cudaFree(d_out));
    }
    free(h_in), free(h_ref), free(h_got);
    dmls_destroy(op);
}

static void test_large_sampled(void) {
    for (size_t k = 0; k < sizeof large_cases / sizeof large_cases[0]; k++) sampled_run(&large_cases[k]);
}

/* The compact boundaries above, run on the GPU and sampled (2-6 GiB of
 * device memory each, one at a time). */
static void test_large_boundaries(void) {
    for (size_t k = 0; k < sizeof boundary_cases / sizeof boundary_cases[0]; k++) sampled_run(&boundary_cases[k]);
}

int main(void) {
    test_seed_rng();
    have_gpu = dmls_cuda_available();
    if (!have_gpu) {
        const char *why = dmls_last_error();
        printf("no CUDA device (%s): checking the clean refusal and the emulated launches, then skipping\n", why);
        static const int64_t shape[1] = {4}, offs[1] = {0}, sizes[1] = {4}, steps[1] = {1};
        dmls_tensor t = {DMLS_FLOAT32, 1, shape, NULL, 0};
        dmls_window w = {offs, sizes, steps};
        dmls_operator *op = NULL;
        CHECK_STATUS(dmls_create(&t, &t, &w, &op), DMLS_OK);
        static float fake_in[4], fake_out[4];
        if (op) CHECK_STATUS(dmls_execute_cuda(op, fake_in, 16, fake_out, 16, NULL), DMLS_ERROR_NO_DEVICE);
        CHECK(strstr(dmls_last_error(), "no CUDA device") != NULL, "message: %s", dmls_last_error());
        dmls_destroy(op);
    } else {
        char name[256];
        dmls_cuda_device_name(0, name, sizeof name, NULL, NULL);
        printf("device: %s\n", name);
        CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        CU(cudaMalloc((void **)&d_in_arena, ARENA));
        CU(cudaMalloc((void **)&d_out_arena, ARENA));
    }

    test_plan_boundaries();
    test_examples();
    test_output_padding();
    if (have_gpu) test_binding_errors();
    const char *iters_env = getenv("DMLS_TEST_ITERS");
    const int iters = iters_env ? atoi(iters_env) : have_gpu ? 1500 : 300; /* emulation only: keep CI short */
    conformance_random_runs(&random_how, 0, iters, random_run);
    test_permuted(iters / 5);
    test_compact_boundaries();
    printf("launches run (as planned), general/compact block: copy %d/%d, gather %d/%d, reverse %d/%d, memset %d, "
           "fill %d/%d, tile %d\n",
           ran[DMLS_CUDA_COPY][0], ran[DMLS_CUDA_COPY][1], ran[DMLS_CUDA_GATHER][0], ran[DMLS_CUDA_GATHER][1],
           ran[DMLS_CUDA_REVERSE][0], ran[DMLS_CUDA_REVERSE][1], ran[DMLS_CUDA_MEMSET][0], ran[DMLS_CUDA_FILL][0],
           ran[DMLS_CUDA_FILL][1], ran[DMLS_CUDA_TILE][0]);
    if (!have_gpu) {
        if (test_checks_failed) TEST_MAIN_END();
        printf("SKIPPED (no GPU): %d checks passed, none of them on a GPU\n", test_checks_passed);
        return 77;
    }
    if (!getenv("DMLS_TEST_NO_CANONICAL")) conformance_canonical(canonical_run);
    if (getenv("DMLS_TEST_LARGE")) {
        test_large();
        test_large_boundaries();
        test_large_sampled();
    }

    CU(cudaFree(d_in_arena));
    CU(cudaFree(d_out_arena));
    CU(cudaStreamDestroy(stream));
    TEST_MAIN_END();
}
