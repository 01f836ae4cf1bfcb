/* The Vulkan backend against the scalar reference, byte for byte, on the
 * first Vulkan device (DMLS_TEST_VULKAN_DEVICE picks another), with the
 * Khronos validation layer on when it is installed: any validation message
 * fails the test.
 *   - DirectML's four worked examples (exact values too);
 *   - a seeded randomized differential test (DMLS_TEST_SEED, DMLS_TEST_ITERS):
 *     ranks 1-8, element sizes 1/2/4/8, negative and zero (broadcast)
 *     input strides, padded and reversed layouts on both sides, any byte
 *     offsets in the VkBuffers, SLICE and SLICE_GRAD, empty tensors; the
 *     output poisoned first and every byte of its buffer compared, padding
 *     and the word around it included. Each case runs through
 *     dmls_vulkan_execute (the library's submit) and dmls_vulkan_record
 *     (the test's command buffer), and again with the context's binding
 *     range and workgroup count lowered, so that the split across bindings
 *     and the grid-stride loops run on small tensors;
 *   - binding errors (nothing written);
 *   - a library-created context (dmls_vulkan_context_create with
 *     DMLS_VULKAN_VALIDATION);
 *   - dmls_vulkan_execute from 4 threads at once on one context, each on
 *     its own part of one output buffer;
 *   - with DMLS_TEST_CANONICAL=1, every canonical benchmark case at full
 *     size (1 GiB inputs: for a real GPU);
 *   - with DMLS_TEST_LARGE=1, tensors past 4 GiB, so past any device's
 *     maxStorageBufferRange: a strided slice of a 4.5 GiB input and the
 *     SLICE_GRAD of a small input into a 4.5 GiB output, in full against
 *     the reference (about 25 GiB of host memory).
 * Without a Vulkan device the program exits 77 (CTest: skipped). */
#if defined(__linux__)
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NODELETE: vk_harness.h */
#endif
#include "cases.h"
#include "dmlslice/dml.h"
#include "dmlslice/dmlslice_vulkan.h"
#include "operator.h"
#include "../../src/platform/platform.h" /* the library's threads */
#include "support/dtype.h"
#include "support/layout.h"
#include "support/native_op.h"
#include "support/test.h"
#include "vulkan/context.h" /* first: in a build with volk, the Vulkan functions the harness calls */
#include "support/permuted_case.h"
#include "vk_harness.h"
#include "support/conformance.h"

static vk_harness H;
static dmls_vulkan_context *ctx;
#define ARENA (64u << 20)
#define GUARD 64
static vk_buf in_arena, out_arena;
static int splits_run;
static int tiled_splits; /* lowered runs that took tile.comp, with more tiles than a binding holds */
static int family_runs[DMLS_VK_SHADERS]; /* copies run by each shader, limits as they are */

/* Runs op with the test's own command buffer: record, then submit and wait. */
static dmls_status run_recorded(const dmls_operator *op, VkBuffer in, uint64_t in_off, uint64_t in_bytes, VkBuffer out,
                                uint64_t out_off, uint64_t out_bytes) {
    vk_harness_begin(&H);
    dmls_status s = dmls_vulkan_record(op, ctx, H.cmd, in, in_off, in_bytes, out, out_off, out_bytes);
    vk_harness_submit(&H);
    return s;
}

/* One run of op on the arenas (or buffers of its own when too big) at byte
 * offsets in_shift and out_shift, compared with the reference: through
 * execute or record, with the context's limits as they are or lowered. */
static void run_one(dmls_operator *op, const char *label, size_t in_shift, size_t out_shift, int how,
                    const unsigned char *h_in, const unsigned char *h_poison, const unsigned char *h_ref) {
    static const char *names[4] = {"execute", "record", "execute, split", "record, split"};
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    const size_t in_alloc = (size_t)in_bytes + 1, out_alloc = (size_t)out_bytes + GUARD;
    vk_buf in = in_arena, out = out_arena;
    const bool own = in_alloc + in_shift + 4 > ARENA || out_alloc + out_shift + 4 > ARENA;
    if (own) {
        in = vk_buf_make(H.physical, H.device, (in_alloc + in_shift + 4) / 4 * 4);
        out = vk_buf_make(H.physical, H.device, (out_alloc + out_shift + 4) / 4 * 4);
    }
    memcpy(in.map + in_shift, h_in, in_alloc);
    memcpy(out.map + out_shift, h_poison, out_alloc);
    const uint64_t saved_range = ctx->max_range, saved_items = ctx->max_items, saved_narrow = ctx->narrow_below;
    if (how & 1) ctx->narrow_below = 0; /* recorded runs: the tuned pipelines even on small cases */
    const uint32_t saved_groups = ctx->max_groups;
    const dmls_vk_launch *first = &((const dmls_vk_prepared *)dmls_operator_prepared(op, DMLS_BACKEND_VULKAN))->copy[0];
    if (how >= 2) { /* small enough that most cases split; an element and its alignment still fit */
        ctx->max_range = 64 << test_range(0, 4);
        ctx->max_groups = (uint32_t)test_range(1, 3);
        ctx->max_items = (uint64_t)test_range(1, 40);
        /* A tiled copy: a tile's reach and up to a few more, so that it splits by tiles. */
        if (dmls_vk_is_tile(first->shader))
            ctx->max_range =
                (uint64_t)(first->src_hi - first->src_lo) * (uint64_t)test_range(1, 4) + ctx->bind_align + 4;
        if (dmls_vk_is_tile(dmls_vk_choose(first, in_shift, out_shift, dmls_vk_reach(ctx))->shader) &&
            dmls_vk_items(first) > 4)
            tiled_splits++;
    } else {
        const dmls_vk_prepared *v = dmls_operator_prepared(op, DMLS_BACKEND_VULKAN);
        const int shader = dmls_vk_choose(v->copy, in_shift, out_shift, UINT64_MAX)->shader;
        if (shader >= 0) family_runs[shader]++;
    }
    dmls_status s = (how & 1)
                        ? run_recorded(op, in.buffer, in_shift, in_bytes, out.buffer, out_shift, out_bytes)
                        : dmls_vulkan_execute(op, ctx, in.buffer, in_shift, in_bytes, out.buffer, out_shift, out_bytes);
    ctx->max_range = saved_range, ctx->max_groups = saved_groups, ctx->max_items = saved_items;
    ctx->narrow_below = saved_narrow;
    CHECK(s == DMLS_OK, "%s (%s): returned %s: %s", label, names[how], dmls_status_name(s), dmls_last_error());
    conformance_compare(out.map + out_shift, h_ref, out_alloc, out_bytes, label, names[how]);
    CHECK(memcmp(in.map + in_shift, h_in, in_alloc) == 0, "%s (%s): the input changed", label, names[how]);
    if (how >= 2) splits_run++;
    if (own) {
        vk_buf_free(H.device, &in);
        vk_buf_free(H.device, &out);
    }
}

/* op from random input over a poisoned output, against the reference; each
 * way of running it in turn (the lowered limits only where the tensors are
 * small: splitting a 1 GiB case into 64-byte bindings would take hours). */
static void differential(dmls_operator *op, const char *label, size_t in_shift, size_t out_shift) {
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    const size_t in_alloc = (size_t)in_bytes + 1, out_alloc = (size_t)out_bytes + GUARD;
    conformance_host h = conformance_host_make(op, in_alloc, out_alloc, label);
    /* A tiled copy splits by whole tiles, so bigger ones split in time. */
    const dmls_vk_launch *first = &((const dmls_vk_prepared *)dmls_operator_prepared(op, DMLS_BACKEND_VULKAN))->copy[0];
    const uint64_t small = dmls_vk_is_tile(first->shader) ? 1u << 20 : 1u << 14;
    const int ways = in_bytes + out_bytes <= small ? 4 : 2;
    for (int how = 0; how < ways; how++) run_one(op, label, in_shift, out_shift, how, h.in, h.poison, h.ref);
    conformance_host_free(&h);
}

/* DirectML's worked examples: exact values through execute, then the
 * differential runs. */
static void test_examples(dmls_vulkan_context *on, const char *who) {
    VkPhysicalDevice phys;
    VkDevice dev;
    dmls_vulkan_context_handles(on, NULL, &phys, &dev, NULL, NULL);
    vk_buf in = vk_buf_make(phys, dev, 64), out = vk_buf_make(phys, dev, 64);
    conformance_example_input((float *)in.map);
    for (size_t e = 0; e < CONFORMANCE_EXAMPLES; e++) {
        float want[4], got[4];
        dmls_operator *op = conformance_example(e, want);
        if (op == NULL) continue;
        memset(out.map, 0xff, 64);
        CHECK_STATUS(dmls_vulkan_execute(op, on, in.buffer, 0, 64, out.buffer, 0, dmls_output_bytes(op)), DMLS_OK);
        memcpy(got, out.map, sizeof got);
        conformance_example_check(who, e, got, want);
        if (on == ctx) {
            char label[32];
            snprintf(label, sizeof label, "example %zu", e);
            differential(op, label, 0, 0);
        }
        dmls_destroy(op);
    }
    vk_buf_free(dev, &in);
    vk_buf_free(dev, &out);
}

/* Random slices (conformance.h), empty now and then, at random byte
 * offsets in the buffers. */
static const conformance_random random_how = {100000, 3000, false, true};

/* Binding errors of the Vulkan entry points' own (the rules every device
 * shares are tests/device/test_devices.c's): the record path, null handles
 * and context, DirectML's offset alignment; each names the rule and the
 * values, and writes nothing. */
static void test_binding_errors(void) {
    static const int64_t shape[2] = {4, 8}, out_shape[2] = {2, 4}, offs[2] = {1, 2};
    dmls_operator *op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 2, .in_shape = shape, .out_shape = out_shape,
                                .offsets = offs);
    if (op == NULL) return;
    vk_buf b = vk_buf_make(H.physical, H.device, 4096);
    memset(b.map, 0x5a, 4096);
    VkBuffer v = b.buffer;
    CHECK_STATUS(dmls_vulkan_record(op, ctx, H.cmd, v, 0, 128, v, 2048, 31), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "output buffer holds 31 bytes", "needs 32");
    CHECK_STATUS(dmls_vulkan_execute(op, ctx, v, 0, 128, v, 100, 32), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-X-OVERLAP", "[100, +32)", "[0, +128)");
    CHECK_STATUS(dmls_vulkan_execute(op, ctx, VK_NULL_HANDLE, 0, 128, v, 2048, 32), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "input VkBuffer is VK_NULL_HANDLE");
    CHECK_STATUS(dmls_vulkan_execute(op, NULL, v, 0, 128, v, 2048, 32), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_vulkan_record(op, ctx, VK_NULL_HANDLE, v, 0, 128, v, 2048, 32), DMLS_ERROR_INVALID_ARGUMENT);
    bool untouched = true;
    for (size_t i = 2048; i < 2048 + 64; i++) untouched &= b.map[i] == 0x5a;
    CHECK(untouched, "a failed execute wrote to the output");
    dmls_destroy(op);
    /* DirectML's binding alignment on the offsets (R-X-ALIGN). */
    static const UINT s4[4] = {1, 1, 4, 4}, o[4] = {0}, one[4] = {1, 1, 1, 1};
    DML_BUFFER_TENSOR_DESC tb = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, s4, NULL, 64, 0};
    DML_TENSOR_DESC td = {DML_TENSOR_TYPE_BUFFER, &tb};
    DML_SLICE_OPERATOR_DESC sd = {&td, &td, 4, o, s4, one};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE, &sd};
    CHECK_STATUS(dmls_create_dml(&desc, DML_FEATURE_LEVEL_4_1, &op), DMLS_OK);
    if (op != NULL) {
        CHECK_STATUS(dmls_vulkan_execute(op, ctx, v, 8, 64, v, 1024, 64), DMLS_ERROR_MISALIGNED);
        CHECK_MESSAGE("R-X-ALIGN", "input offset 8 is not a multiple of 16");
        CHECK_STATUS(dmls_vulkan_execute(op, ctx, v, 16, 64, v, 1024, 64), DMLS_OK);
        dmls_destroy(op);
    }
    vk_buf_free(H.device, &b);
}

/* Threads sharing one context: each runs its own operator (a reversal of a
 * different length) many times into its own part of one output buffer;
 * the context's mutex serialises the submits. */
#define THREADS     4
#define THREAD_RUNS 25
typedef struct thread_job {
    dmls_operator *op;
    VkBuffer in, out;
    uint64_t out_offset;
    int failures;
} thread_job;

static DMLS_THREAD_MAIN(thread_main, arg) {
    thread_job *j = arg;
    for (int r = 0; r < THREAD_RUNS; r++)
        if (dmls_vulkan_execute(j->op, ctx, j->in, 0, dmls_input_bytes(j->op), j->out, j->out_offset,
                                dmls_output_bytes(j->op)) != DMLS_OK)
            j->failures++;
    DMLS_THREAD_RETURN;
}

static void test_threads(void) {
    vk_buf in = vk_buf_make(H.physical, H.device, 4096), out = vk_buf_make(H.physical, H.device, 4 * 4096);
    for (int i = 0; i < 4096; i++) in.map[i] = (unsigned char)(i * 7 + 3);
    memset(out.map, 0, 4 * 4096);
    thread_job jobs[THREADS];
    dmls_thread t[THREADS];
    for (int k = 0; k < THREADS; k++) {
        int64_t n[1] = {1000 + 7 * k}, start[1] = {0}, step[1] = {-1};
        dmls_tensor a = {DMLS_UINT8, 1, n, NULL, 0};
        dmls_window w = {start, n, step};
        jobs[k] = (thread_job){NULL, in.buffer, out.buffer, (uint64_t)k * 4096, 0};
        CHECK_STATUS(dmls_create(&a, &a, &w, &jobs[k].op), DMLS_OK);
    }
    for (int k = 0; k < THREADS; k++) CHECK(dmls_thread_start(&t[k], thread_main, &jobs[k]) == 0, "thread %d", k);
    for (int k = 0; k < THREADS; k++) dmls_thread_join(&t[k]);
    for (int k = 0; k < THREADS; k++) {
        const int n = 1000 + 7 * k;
        bool right = jobs[k].failures == 0;
        for (int i = 0; i < n; i++) right &= out.map[k * 4096 + i] == in.map[n - 1 - i];
        for (int i = n; i < 4096; i++) right &= out.map[k * 4096 + i] == 0;
        CHECK(right, "thread %d: %d failed executes, or a wrong output", k, jobs[k].failures);
        dmls_destroy(jobs[k].op);
    }
    vk_buf_free(H.device, &in);
    vk_buf_free(H.device, &out);
}

/* A context the library makes itself, validation on: the worked examples. */
static void test_own_context(void) {
    dmls_vulkan_context *own = NULL;
    const int device = getenv("DMLS_TEST_VULKAN_DEVICE") ? atoi(getenv("DMLS_TEST_VULKAN_DEVICE")) : 0;
    CHECK_STATUS(dmls_vulkan_context_create(device, H.validation ? DMLS_VULKAN_VALIDATION : 0, &own), DMLS_OK);
    if (own == NULL) return;
    test_examples(own, "library context");
    CHECK(dmls_vulkan_context_messages(own) == 0, "library context: %llu validation messages",
          (unsigned long long)dmls_vulkan_context_messages(own));
    dmls_vulkan_context_destroy(own);
    dmls_vulkan_context *none = (dmls_vulkan_context *)1;
    CHECK_STATUS(dmls_vulkan_context_create(999, 0, &none), DMLS_ERROR_NO_DEVICE);
    CHECK(none == NULL, "a failed create left *ctx set");
    CHECK_STATUS(dmls_vulkan_context_create(0, 0x80, &none), DMLS_ERROR_INVALID_ARGUMENT);
    int count = 0;
    CHECK_STATUS(dmls_vulkan_device_count(&count), DMLS_OK);
    char name[256];
    CHECK_STATUS(dmls_vulkan_device_name(device, name, sizeof name, NULL, NULL), DMLS_OK);
    CHECK(strcmp(name, H.name) == 0, "device name %s, expected %s", name, H.name);
}

static void canonical_run(dmls_operator *op, const char *name) {
    differential(op, name, 0, 0);
    printf("canonical %s: checked\n", name);
}

/* Tensors past 4 GiB: the split across bindings at a real device's limit.
 * 4.5 GiB, or less where one allocation cannot be that large
 * (maxMemoryAllocationSize): a caller's buffer cannot be larger either. */
static void test_large(void) {
    VkPhysicalDeviceMaintenance3Properties m3 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &m3};
    vkGetPhysicalDeviceProperties2(H.physical, &p2);
    int64_t big = ((int64_t)9 << 29) + 13;
    if ((uint64_t)big + 4096 > m3.maxMemoryAllocationSize) big = (int64_t)m3.maxMemoryAllocationSize - 4096;
    printf("large: %lld-byte tensors (maxStorageBufferRange %llu, maxMemoryAllocationSize %llu)\n", (long long)big,
           (unsigned long long)ctx->max_range, (unsigned long long)m3.maxMemoryAllocationSize);
    int64_t shape[1] = {big}, zero[1] = {0}, step[1] = {((int64_t)1 << 20) + 3};
    int64_t small[1] = {1 + (big - 1) / step[0]};
    dmls_tensor tb = {DMLS_UINT8, 1, shape, NULL, 0}, ts = {DMLS_UINT8, 1, small, NULL, 0};
    dmls_window w = {zero, shape, step};
    for (int grad = 0; grad < 2; grad++) {
        dmls_operator *op = NULL;
        CHECK_STATUS(grad ? dmls_create_grad(&ts, &tb, &w, &op) : dmls_create(&tb, &ts, &w, &op), DMLS_OK);
        if (op == NULL) continue;
        const char *label = grad ? "large: SLICE_GRAD into the large output" : "large: slice of the large input";
        differential(op, label, 0, 0);
        printf("%s: checked\n", label);
        fflush(stdout);
        dmls_destroy(op);
    }
}

/* The launch each canonical case records at the bench's binding (offsets
 * 0, one whole buffer a side) under an H100's limits (maxStorageBufferRange
 * 2^32 - 1, items below 2^31): the family vk_probe reported there and one
 * dispatch, no split. The H100 run of 2026-11-24 20:50 timed four of these
 * at ~2x their probe times in the bench; the bench and the probe record
 * through dmls_vulkan_record with the same arguments, and this pins that
 * the library's own choice for them stays the fast one. */
static void test_canonical_plans(void) {
    static const struct {
        const char *name;
        int shader;
    } want[] = {{"crop4d_f32", DMLS_VK_UNITS16},     {"chan_f16", DMLS_VK_UNITS16},
                {"stride2_f32", DMLS_VK_GATHER16 + 2}, {"flip_last_f32", DMLS_VK_REVERSE4},
                {"neg2_f32", DMLS_VK_GATHER16 + 2},    {"rgb_u8", DMLS_VK_GATHER16},
                {"deep8d_f32", DMLS_VK_UNITS4},        {"stride3_f64", DMLS_VK_UNITS16},
                {"col_i64", DMLS_VK_GATHER16 + 3}};
    const uint64_t max_range = 0xffffffffu, max_items = ((uint64_t)1 << 31) - 1, bind_align = 16;
    bench_case *cases = NULL;
    int n = 0, pinned = 0;
    char err[256] = "";
    CHECK(bench_read_cases(DMLS_CASES_JSON, &cases, &n, err, sizeof err) == 0 && n > 0, "reading %s: %s",
          DMLS_CASES_JSON, err);
    for (int i = 0; i < n; i++) {
        int expect = -2;
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
            if (strcmp(want[k].name, cases[i].name) == 0) expect = want[k].shader;
        if (expect == -2) continue;
        dmls_operator *op = NULL;
        CHECK_STATUS(bench_create(&cases[i], &op), DMLS_OK);
        if (op == NULL) continue;
        const dmls_vk_prepared *v = dmls_operator_prepared(op, DMLS_BACKEND_VULKAN);
        const dmls_vk_launch *L = dmls_vk_choose(v->copy, 0, 0, max_range - bind_align - 4);
        CHECK(L->shader == expect, "%s: the bench's binding runs shader %d, expected %d", cases[i].name, L->shader,
              expect);
        const uint64_t items = dmls_vk_items(L), out_items = (uint64_t)dmls_output_bytes(op) / (uint64_t)L->unit;
        CHECK(items <= max_items, "%s: %llu items, more than one dispatch holds", cases[i].name,
              (unsigned long long)items);
        /* Every output byte written once: items x unit is the output. */
        CHECK(items == out_items, "%s: %llu items of %d bytes for %llu output bytes", cases[i].name,
              (unsigned long long)items, L->unit, (unsigned long long)dmls_output_bytes(op));
        for (int side = 0; side < 2; side++) {
            int64_t lo, hi;
            dmls_vk_span(L, side == 1, side ? L->dst_offset : L->src_offset, &lo, &hi);
            const uint64_t start = (uint64_t)lo / bind_align * bind_align, range = ((uint64_t)hi + 3) / 4 * 4 - start;
            const uint64_t bound = side ? dmls_output_bytes(op) : dmls_input_bytes(op);
            CHECK(lo >= 0 && range <= max_range && (uint64_t)hi <= bound,
                  "%s: %s span [%lld, %lld) does not fit one binding of the %llu-byte buffer", cases[i].name,
                  side ? "output" : "input", (long long)lo, (long long)hi, (unsigned long long)bound);
        }
        pinned++;
        dmls_destroy(op);
    }
    CHECK(pinned == (int)(sizeof want / sizeof want[0]), "%d of %d canonical cases pinned", pinned,
          (int)(sizeof want / sizeof want[0]));
    free(cases);
}

/* The walks' multipliers: exact for every n below 2^31 (checked at the
 * ends of that range and around multiples of d), d from 1 to 2^31. */
static void test_magic(void) {
    static const uint64_t ds[] = {1, 2, 3, 5, 6, 7, 48, 96, 224, 255, 641, 6144, 65535, 65537, 1000003,
                                  (1u << 30) - 1, 1u << 30, (1u << 30) + 1, 0x7fffffffu, 0x80000000u};
    int wrong = 0;
    for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++) {
        uint32_t m, s;
        dmls_vk_magic(ds[k], &m, &s);
        for (int j = 0; j < 4000; j++) {
            uint64_t n = j < 1000 ? (uint64_t)j : j < 2000 ? 0x7fffffffu - (uint64_t)(j - 1000)
                                                           : (uint64_t)test_range(0, 0x7fffffff);
            if (j >= 3000) n = (n / ds[k]) * ds[k] - (uint64_t)(j & 1); /* at a multiple, and just below */
            if (n > 0x7fffffffu) continue;
            const uint64_t q = ((((uint64_t)(uint32_t)n * m) >> 32) + n) >> s;
            wrong += q != n / ds[k];
        }
    }
    CHECK(wrong == 0, "dmls_vk_magic: %d wrong quotients", wrong);
}

/* Layouts made for each family (random layouts mostly fall back to
 * bytes.comp, as any byte offset may misalign them): packed tensors of
 * every element size against the reference. Kinds: 0 crop (wide units),
 * 1 reversal, 2 steps of 2 or -3 (gather of 16 bytes), 3 the first 2 of 3
 * channels (a gather across rows), 4 outer steps with a contiguous inner
 * run, 5 a step of 2 into rows of an odd number of words (a gather of one
 * word; units for 4- and 8-byte elements). The first 24 cases (each kind
 * and size once) have whole vectors at 16-byte offsets, so that each
 * family runs; later ones may not. */
static void family_case(int kind, int es, int iter) {
    const bool exact = iter < 24;
    const dmls_dtype dt = test_dtype_of_size(es);
    const int64_t v = 16 / es, run = v * test_range(1, 24), odd = 2 * test_range(1, 8) + 1;
    const int64_t extra = exact ? 0 : test_range(0, v);
    int64_t big[3] = {test_range(1, 5), test_range(1, 9), run + extra}, offs[3] = {0, 0, 0};
    int64_t steps[3] = {1, 1, 1}, small[3];
    if (kind == 0) big[2] += v * test_range(0, 2), offs[2] = big[2] - run - extra, big[1] += test_range(0, 2);
    if (kind == 1) steps[2] = -1;
    if (kind == 2) steps[2] = test_range(0, 1) ? 2 : -3, steps[1] = test_range(0, 1) ? 1 : -1;
    if (kind == 2) big[2] = run * (steps[2] < 0 ? 3 : 2) + extra;
    if (kind == 3) big[2] = 3, big[1] = 8 * test_range(1, 20);
    if (kind == 4) steps[0] = test_range(0, 1) ? 2 : -1, steps[1] = test_range(0, 1) ? 3 : 1;
    /* An input row one element longer than the step covers, so that rows
     * do not merge into one run whose length is whole vectors again. */
    if (kind == 5) steps[2] = 2, offs[2] = 1, big[2] = 2 * (es < 4 ? 4 / es : 1) * odd + 1 + extra;
    int64_t sizes[3] = {big[0], big[1], kind == 3 ? 2 : big[2] - offs[2]};
    for (int i = 0; i < 3; i++) {
        const int64_t s = steps[i] < 0 ? -steps[i] : steps[i];
        small[i] = 1 + (sizes[i] - 1) / s;
    }
    dmls_tensor tb = {dt, 3, big, NULL, 0}, ts = {dt, 3, small, NULL, 0};
    dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL;
    const bool grad = (kind == 0 || kind == 4) && test_range(0, 2) == 0;
    CHECK_STATUS(grad ? dmls_create_grad(&ts, &tb, &w, &op) : dmls_create(&tb, &ts, &w, &op), DMLS_OK);
    if (op == NULL) return;
    char label[96];
    snprintf(label, sizeof label, "family case %d (kind %d, %d-byte%s)", iter, kind, es, grad ? ", grad" : "");
    const size_t in_shift = 16 * (size_t)test_range(0, 2) + (!exact && test_range(0, 5) == 0 ? (size_t)es : 0);
    differential(op, label, in_shift, 16 * (size_t)test_range(0, 2));
    dmls_destroy(op);
}

static void test_families(int iters) {
    for (int i = 0; i < iters; i++) family_case(i % 6, 1 << (i / 6 % 4), i);
    printf("family cases: %d\n", iters);
}

/* Plain 2-D transposes (A: rows, B: cols) of each element size, so that
 * every tile.comp pipeline runs whatever the random cases draw: both sides
 * in 16-byte vectors (rows and cols whole vectors), either one, neither
 * (rows of 132 or 133 elements are whole words, not whole vectors; 97
 * columns neither), and shifted positions that take the word tile at
 * execute; partial tiles along A and B, bigger than one on either side. */
static void test_transposes(void) {
    enum { WORDS = -1 }; /* rows of whole words, not whole vectors */
    static const int64_t cases[][4] = {{208, 144, 0, 0}, {WORDS, 144, 0, 0}, {208, 97, 0, 0}, {WORDS, 97, 0, 0},
                                       {208, 144, 8, 4}, {200, 136, 0, 0},   {64, 513, 16, 8}};
    for (int e = 0; e < 4; e++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            const int64_t rows = cases[k][0] == WORDS ? (e >= 2 ? 133 : 132) : cases[k][0], cols = cases[k][1];
            int64_t view[2] = {cols, rows}, in_strides[2] = {1, cols}, out_strides[2] = {rows, 1};
            int64_t offs[2] = {0, 0}, steps[2] = {1, 1};
            const dmls_tensor in = {test_dtype_of_size(1 << e), 2, view, in_strides, 0};
            const dmls_tensor out = {test_dtype_of_size(1 << e), 2, view, out_strides, 0};
            const dmls_window w = {offs, view, steps};
            dmls_operator *op = NULL;
            char label[64];
            snprintf(label, sizeof label, "transpose (%lld, %lld), %d-byte", (long long)rows, (long long)cols, 1 << e);
            CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
            if (op == NULL) continue;
            differential(op, label, (size_t)cases[k][2], (size_t)cases[k][3]);
            dmls_destroy(op);
        }
}

/* Tiled copies run so far (each case's unlowered runs). */
static int tiled_runs(void) {
    int n = 0;
    for (int e = 0; e < 16; e++) n += family_runs[DMLS_VK_TILE1 + e];
    return n;
}

/* Random permuted slices (permuted_case.h, issue 34) against the
 * reference, at random byte shifts now and then; tile.comp must have run in
 * a good share of them (each case runs twice with the limits as they are),
 * and split across bindings in some. */
static void test_permuted(int iters) {
    const int before = tiled_runs();
    const int cases = permuted_cases_run(iters, differential);
    const int tiled = (tiled_runs() - before) / 2;
    printf("permuted: %d cases, %d tiled, %d tiled runs split\n", cases, tiled, tiled_splits);
    CHECK(tiled >= iters / 8, "tile.comp ran in %d of %d permuted cases", tiled, iters);
    CHECK(tiled_splits > 0, "no tiled copy split across bindings");
}

/* Every family ran in the random and family cases, so that each is
 * checked against the reference. */
static void check_families(void) {
    static const char *names[DMLS_VK_SHADERS] = {"units4",     "units8",     "units16",    "reverse1",  "reverse2",
                                                 "reverse4",   "reverse8",   "gather16/1", "gather16/2",
                                                 "gather16/4", "gather16/8", "gather4/1",  "gather4/2", "bytes",
                                                 "tile1",      "tile2",      "tile4",      "tile8",     "tile1/L16",
                                                 "tile2/L16",  "tile4/L16",  "tile8/L16",  "tile1/S16", "tile2/S16",
                                                 "tile4/S16",  "tile8/S16",  "tile1/LS16", "tile2/LS16", "tile4/LS16",
                                                 "tile8/LS16"};
    for (int i = 0; i < DMLS_VK_SHADERS; i++) {
        printf("%s %d%s", names[i], family_runs[i], i + 1 < DMLS_VK_SHADERS ? ", " : " runs\n");
        CHECK(family_runs[i] > 0, "no random case ran the %s shader", names[i]);
    }
}

/* Other tunings (dmls_vk_tune: odd workgroup sizes and items, so that the
 * tiles' tails and the grid loops move) and shader variants (ctx->variant):
 * random cases against the reference under each, then the default again. */
static void test_tunings(int iters) {
    enum { SHARE = DMLS_VK_VARIANT_GATHER_SHARE };
    static const uint32_t tunings[][3] = {{32, 3, 0},      {96, 1, 0}, {1024, DMLS_VK_MAX_ITEMS, 0},
                                          {1, 2, 0},       {32, 3, SHARE},
                                          {DMLS_VK_DEFAULT_WORKGROUP, DMLS_VK_DEFAULT_ITEMS, SHARE}};
    for (size_t k = 0; k < sizeof tunings / sizeof tunings[0]; k++) {
        const uint32_t wg = tunings[k][0] <= ctx->max_workgroup ? tunings[k][0] : ctx->max_workgroup;
        ctx->variant = tunings[k][2];
        CHECK_STATUS(dmls_vk_tune(ctx, wg, tunings[k][1]), DMLS_OK);
        conformance_random_runs(&random_how, 100000 * (int)(k + 1), iters, differential);
    }
    ctx->variant = 0;
    CHECK_STATUS(dmls_vk_tune(ctx, 0, 4), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "tuning of 0 invocations x 4 items is outside 1..") != NULL, "message: %s",
          dmls_last_error());
    CHECK_STATUS(dmls_vk_tune(ctx, 64, DMLS_VK_MAX_ITEMS + 1), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_vk_tune(ctx, DMLS_VK_DEFAULT_WORKGROUP, DMLS_VK_DEFAULT_ITEMS), DMLS_OK);
    printf("tunings: %zu, %d random cases each\n", sizeof tunings / sizeof tunings[0], iters);
}

/* tile.comp's other shapes (ctx->tiles tiles a workgroup of
 * ctx->tile_workgroup invocations, issue 34): the transposes and some
 * permuted slices against the reference under each that the device's
 * shared memory holds, odd ones too (a workgroup's tiles straddle rows of
 * tiles and the grid's end; invocations not a multiple of 32, fewer than
 * a tile's vectors); then the wrong ones refused, naming the values. A
 * workgroup of 1 invocation is left out: the tile shader fails the split
 * transposes there on lavapipe, but passes on NVIDIA's driver (H200, same
 * seed; bench/RESULTS.md, 2026-11-29), and one invocation shares its tile
 * with none, so no barrier is at fault: lavapipe's, as far as known. */
static void test_tile_shapes(void) {
    static const uint32_t shapes[][2] = {{3, 96}, {1, 64}, {4, 256}, {2, 32}, {1, 1024}};
    const uint32_t tiles = ctx->tiles, workgroup = ctx->tile_workgroup;
    /* Each shape compiles every tile pipeline again (about a minute on
     * lavapipe under a sanitizer): DMLS_TEST_TILE_SHAPES=N runs the first N
     * that fit, none with 0, as the sanitized builds do: the shapes differ
     * in shader constants only, and the host code that sets them is checked
     * below (tests/vulkan/CMakeLists.txt). */
    const char *limit_env = getenv("DMLS_TEST_TILE_SHAPES");
    const int limit = limit_env != NULL && atoi(limit_env) >= 0 ? atoi(limit_env) : 1 << 20;
    int ran = 0;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0] && ran < limit; k++) {
        if (shapes[k][0] * DMLS_VK_TILE_BYTES > ctx->max_shared || shapes[k][1] > ctx->max_workgroup) continue;
        ctx->tiles = shapes[k][0], ctx->tile_workgroup = shapes[k][1];
        CHECK_STATUS(dmls_vk_tune(ctx, DMLS_VK_DEFAULT_WORKGROUP, DMLS_VK_DEFAULT_ITEMS), DMLS_OK);
        printf("tile shape: %u tiles x %u invocations\n", shapes[k][0], shapes[k][1]);
        const int before = tiled_runs();
        test_transposes();
        for (int i = 0; i < 12; i++) {
            dmls_operator *op = NULL;
            char label[128];
            CHECK_STATUS(permuted_case_create(7000 + i, &op, label, sizeof label), DMLS_OK);
            if (op != NULL) differential(op, label, 0, 0);
            dmls_destroy(op);
        }
        CHECK(tiled_runs() > before, "tile.comp did not run with %u tiles x %u", shapes[k][0], shapes[k][1]);
        ran++;
    }
    CHECK(ran >= (limit < 3 ? limit : 3), "only %d tile shapes fit %u bytes of shared memory", ran, ctx->max_shared);
    ctx->tiles = DMLS_VK_MAX_TILES + 1;
    CHECK_STATUS(dmls_vk_tune(ctx, DMLS_VK_DEFAULT_WORKGROUP, DMLS_VK_DEFAULT_ITEMS), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "5 tiles of 8448 bytes x") != NULL, "message: %s", dmls_last_error());
    ctx->tiles = 1, ctx->tile_workgroup = 0;
    CHECK_STATUS(dmls_vk_tune(ctx, DMLS_VK_DEFAULT_WORKGROUP, DMLS_VK_DEFAULT_ITEMS), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "1 tiles of 8448 bytes x 0 invocations") != NULL, "message: %s",
          dmls_last_error());
    ctx->tiles = tiles, ctx->tile_workgroup = workgroup;
    CHECK_STATUS(dmls_vk_tune(ctx, DMLS_VK_DEFAULT_WORKGROUP, DMLS_VK_DEFAULT_ITEMS), DMLS_OK);
    printf("tile shapes: %d of %zu (default %u tiles x %u, %u bytes of shared memory)\n", ran,
           sizeof shapes / sizeof shapes[0], tiles, workgroup, ctx->max_shared);
}

int main(void) {
    /* A fixed default seed (DMLS_TEST_SEED replays another): CI's runs on
     * lavapipe are then the same run every time. */
    const char *seed = getenv("DMLS_TEST_SEED");
    test_seed = seed != NULL ? strtoull(seed, NULL, 10) : 20261124;
    test_rng_state = test_seed != 0 ? test_seed : 1;
    printf("seed %" PRIu64 "\n", test_seed);
    test_magic();
    test_canonical_plans();
    const int device = getenv("DMLS_TEST_VULKAN_DEVICE") ? atoi(getenv("DMLS_TEST_VULKAN_DEVICE")) : 0;
    if (vk_harness_open(&H, device) != 0) {
        printf("no Vulkan device %d: skipped\n", device);
        int count = -1;
        CHECK(dmls_vulkan_device_count(&count) != DMLS_OK || count <= device,
              "the library sees a device the test does not");
        TEST_MAIN_END_SKIP();
    }
    printf("device: %s; validation layer %s\n", H.name, H.validation ? "on" : "not installed");
    CHECK_STATUS(dmls_vulkan_context_create_from(H.instance, H.physical, H.device, H.family, 0, &ctx), DMLS_OK);
    if (ctx == NULL) TEST_MAIN_END();
    in_arena = vk_buf_make(H.physical, H.device, ARENA);
    out_arena = vk_buf_make(H.physical, H.device, ARENA);
    test_examples(ctx, "caller's context");
    test_binding_errors();
    test_threads();
    const int iters = getenv("DMLS_TEST_ITERS") ? atoi(getenv("DMLS_TEST_ITERS")) : 300;
    conformance_random_runs(&random_how, 0, iters, differential);
    printf("random: %d cases, %d runs with the binding range and workgroup count lowered\n", iters, splits_run);
    test_families(iters / 2 > 48 ? iters / 2 : 48);
    test_transposes();
    test_permuted(iters / 2 > 40 ? iters / 2 : 40);
    check_families();
    test_tunings(iters / 6);
    test_tile_shapes();
    if (getenv("DMLS_TEST_CANONICAL")) conformance_canonical(canonical_run);
    if (getenv("DMLS_TEST_LARGE")) test_large();
    test_own_context();
    vk_buf_free(H.device, &in_arena);
    vk_buf_free(H.device, &out_arena);
    dmls_vulkan_context_destroy(ctx);
    vk_harness_close(&H);
    CHECK(vk_messages == 0, "%lu validation messages", vk_messages);
    TEST_MAIN_END();
}
