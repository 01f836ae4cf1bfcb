/* Batches on the Vulkan backend (dmlslice/batch_vulkan.h) against the items
 * run one by one with the reference executor, byte for byte, on the first
 * Vulkan device (DMLS_TEST_VULKAN_DEVICE picks another), with the Khronos
 * validation layer on when installed: any validation message fails.
 *   - R-B-ITEM: random batches (tests/batch_case.h: mixed ranks, element
 *     sizes, directions, SLICE_GRAD, empty items; shared slots or one per
 *     item), the slots placed at random offsets in a few buffers, inputs
 *     and outputs sometimes in one buffer; run through
 *     dmls_batch_execute_vulkan and through dmls_batch_record_vulkan into
 *     the test's own command buffer, every byte of the output buffers
 *     compared (the poison around the outputs included); every fourth
 *     with the context's limits lowered, so that items split into several
 *     dispatches inside the batch;
 *   - batches of a few items, half of their operators random permuted
 *     slices (permuted_case.h), whose tiled copies run inside the batch;
 *   - outputs that meet inside a 32-bit word: a split of 1-byte elements
 *     into odd sizes, packed into one slot and bound as adjacent slots of
 *     one buffer, and crops of 3-byte windows stacked. lavapipe runs one
 *     dispatch at a time, so a missing barrier between two items that
 *     share a word cannot show in their bytes there: in a build with volk
 *     the test counts the barriers the library records (through volk's
 *     function pointer) and checks them against the rule, one between
 *     each two such items and none between items owning whole words;
 *   - prepared batches (dmls_batch_prepare_vulkan): two of every three
 *     random batches are prepared first (some with the limits lowered, so
 *     that only some items fit a group), and run at offsets that are
 *     multiples of 16 (their groups) or of 4 (one by one), some with the
 *     binding alignment raised to 32-256 bytes, some with small groups on
 *     the tuned (several items per invocation) pipelines; in a build with
 *     volk the test counts the dispatches: 1,000 crops are one dispatch
 *     prepared and 1,000 not, a split into 8 slots one; prepare's errors
 *     (NULL, another context); crops whose starts are bound at execute,
 *     clamped on the device (R-CROP-BOUNDS), against the CPU's;
 *   - transposed items in prepared batches (issue 34): transposes of 4-
 *     and 2-byte elements mixed with plain windows, one dispatch per
 *     kernel kind; crops of a transposed input whose starts are bound at
 *     execute, tiled and clamped on the device in one dispatch;
 *   - splits into several output slots in prepared batches (issue 34):
 *     into 3, into 1 to k + 1 parts (k, the slots a dispatch binds: a
 *     dispatch per k), a QKV projection split into Q, K and V head-major
 *     (permuted views, one dispatch), transposed (tiled, one) or mixed (two),
 *     and random splits of every element size and rank 1-4 from permuted
 *     inputs, outputs at multiples of 16, 4 or 1; again on contexts
 *     lowered to 1 slot (the single-slot form) and 3;
 *   - R-B-OVERLAP, R-OP-NULL, R-X-BOUNDS and the slot counts on VkBuffer
 *     bindings, nothing written on an error; the same offsets in two
 *     buffers are no overlap; crops with starts bound at execute are
 *     refused unprepared (DMLS_ERROR_UNSUPPORTED).
 * Without a Vulkan device the program exits 77 (CTest: skipped). */
#if defined(__linux__)
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NODELETE: vk_harness.h */
#endif
#include "support/batch_case.h"
#include "dmlslice/batch_vulkan.h"
#include "operator.h"
#include "support/test.h"
#include "vulkan/context.h" /* first: in a build with volk, the Vulkan functions the harness calls */
#include "support/permuted_case.h"
#include "vk_harness.h"

static vk_harness H;
static dmls_vulkan_context *ctx;
#define ARENA (16u << 20)
static vk_buf arena[3];

/* The barriers and dispatches the library recorded in the last
 * run_recorded (-1: not counted, in a build that links the loader). */
static int last_barriers = -1, last_dispatches = -1;
#ifdef DMLS_VULKAN_VOLK
static PFN_vkCmdPipelineBarrier real_barrier;
static PFN_vkCmdDispatch real_dispatch;
static int barriers, dispatches;
static void VKAPI_CALL counting_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkPipelineStageFlags dst,
                                        VkDependencyFlags flags, uint32_t nm, const VkMemoryBarrier *m, uint32_t nb,
                                        const VkBufferMemoryBarrier *b, uint32_t ni, const VkImageMemoryBarrier *i) {
    barriers++;
    real_barrier(cmd, src, dst, flags, nm, m, nb, b, ni, i);
}
static void VKAPI_CALL counting_dispatch(VkCommandBuffer cmd, uint32_t x, uint32_t y, uint32_t z) {
    dispatches++;
    real_dispatch(cmd, x, y, z);
}
#endif

/* Records the batch into the test's command buffer, submits and waits. */
static dmls_status run_recorded(const dmls_batch *b, const dmls_vulkan_binding *in, uint32_t n_in,
                                const dmls_vulkan_binding *out, uint32_t n_out) {
    vk_harness_begin(&H);
#ifdef DMLS_VULKAN_VOLK
    real_barrier = vkCmdPipelineBarrier, barriers = 0;
    vkCmdPipelineBarrier = counting_barrier;
    real_dispatch = vkCmdDispatch, dispatches = 0;
    vkCmdDispatch = counting_dispatch;
#endif
    dmls_status s = dmls_batch_record_vulkan(b, ctx, H.cmd, in, n_in, out, n_out);
#ifdef DMLS_VULKAN_VOLK
    vkCmdPipelineBarrier = real_barrier;
    vkCmdDispatch = real_dispatch;
    last_barriers = barriers, last_dispatches = dispatches;
#endif
    vk_harness_submit(&H);
    return s;
}

static dmls_status run(const dmls_batch *b, const dmls_vulkan_binding *in, uint32_t n_in,
                       const dmls_vulkan_binding *out, uint32_t n_out, bool recorded) {
    return recorded ? run_recorded(b, in, n_in, out, n_out) : dmls_batch_execute_vulkan(b, ctx, in, n_in, out, n_out);
}

/* Places n regions of the given sizes (each + 16 bytes of poison) one
 * after another from a random 4-byte-aligned start in buffer a, at offsets
 * that are multiples of `align`; returns false when they do not fit. */
static bool place(int a, const uint64_t *bytes, uint32_t n, uint64_t from, uint64_t align, dmls_vulkan_binding *out) {
    uint64_t at = from;
    for (uint32_t s = 0; s < n; s++) {
        at = (at + align - 1) / align * align;
        if (at + bytes[s] + 16 > ARENA) return false;
        out[s] = (dmls_vulkan_binding){arena[a].buffer, at, bytes[s]};
        at += bytes[s] + 16;
    }
    return true;
}

static int tiled_items; /* items of permuted batches whose operator's first launch is tile.comp */

/* R-B-ITEM: one random batch on the device against the oracle; permuted:
 * a few items, half of their operators permuted slices (issue 34), whose
 * tiled copies run in the batch's groups when prepared (docs/vulkan.md). */
static void random_batch(int round, bool permuted) {
    batch_case c;
    const size_t n = permuted ? (size_t)test_range(1, 12) : round == 0 ? 3000 : (size_t)test_range(0, 200);
    dmls_batch *b;
    batch_buffers bb;
    unsigned char **ref;
    if (!batch_case_setup_with(&c, n, permuted ? (size_t)test_range(1, 4) : (size_t)test_range(1, 10),
                               round % 7 == 3 && n <= 40, permuted ? batch_case_mixed_op : batch_case_op, &b, &bb,
                               &ref))
        return;
    for (size_t i = 0; permuted && i < c.n; i++) {
        const dmls_vk_prepared *v = dmls_operator_prepared(c.items[i].op, DMLS_BACKEND_VULKAN);
        tiled_items += dmls_vk_is_tile(v->copy[0].shader);
    }
    /* Inputs in arena 0; outputs in arena 1, or after the inputs in arena 0. */
    const bool shared = round % 3 == 1;
    const uint64_t align = round % 2 ? 4 : 16;
    dmls_vulkan_binding *in = calloc(c.in_slots + 1, sizeof *in), *out = calloc(c.out_slots + 1, sizeof *out);
    bool fits = place(0, c.in_bytes, c.in_slots, 4 * (uint64_t)test_range(0, 64), align, in);
    const uint64_t after = c.in_slots ? in[c.in_slots - 1].offset + in[c.in_slots - 1].bytes + 16 : 0;
    fits = fits && place(shared ? 0 : 1, c.out_bytes, c.out_slots, shared ? after : 4 * (uint64_t)test_range(0, 64),
                         align, out);
    if (fits) {
        for (uint32_t s = 0; s < c.in_slots; s++) memcpy(arena[0].map + in[s].offset, bb.in[s], c.in_bytes[s] + 16);
        for (uint32_t s = 0; s < c.out_slots; s++)
            memset(arena[shared ? 0 : 1].map + out[s].offset, 0xA5, c.out_bytes[s] + 16);
        const bool recorded = round % 2 == 1;
        /* Every fourth batch with the binding range, workgroup count and
         * items per dispatch lowered: items split into several dispatches
         * (with barriers between their own pieces) inside the batch, and
         * only the items that fit grouped (a group's workgroups loop over
         * its tiles). */
        const uint64_t saved_range = ctx->max_range, saved_items = ctx->max_items, saved_align = ctx->bind_align;
        const uint64_t saved_narrow = ctx->narrow_below;
        /* Some with small dispatches on the tuned pipelines (several items
         * per invocation), grouped ones included. */
        if (round % 5 == 3) ctx->narrow_below = (uint64_t)test_range(0, 64);
        const uint32_t saved_groups = ctx->max_groups;
        /* Some with a coarser binding alignment (as devices of 64 or 256
         * have): slots start inside their bindings, a group's shifts. */
        if (round % 5 == 1 && round % 4 != 2) ctx->bind_align = 16u << test_range(1, 4);
        if (round % 4 == 2) {
            ctx->max_range = 64 << test_range(0, 3);
            ctx->max_groups = (uint32_t)test_range(1, 3);
            ctx->max_items = (uint64_t)test_range(1, 40);
        }
        if (round % 3 != 2) CHECK_STATUS(dmls_batch_prepare_vulkan(b, ctx), DMLS_OK);
        CHECK_STATUS(run(b, in, c.in_slots, out, c.out_slots, recorded), DMLS_OK);
        ctx->max_range = saved_range, ctx->max_groups = saved_groups, ctx->max_items = saved_items;
        ctx->bind_align = saved_align, ctx->narrow_below = saved_narrow;
        for (uint32_t s = 0; s < c.out_slots; s++)
            memcpy(bb.out[s], arena[shared ? 0 : 1].map + out[s].offset, c.out_bytes[s] + 16);
        char label[96];
        snprintf(label, sizeof label, "R-B-ITEM Vulkan batch%s%s, slots at multiples of %u",
                 round % 3 != 2 ? ", prepared" : "", recorded ? ", recorded" : "", (unsigned)align);
        batch_case_same(&c, bb.out, ref, label);
    }
    free(in), free(out);
    batch_case_teardown(&c, b, &bb, ref);
}

/* Runs b on the device with the input at offset 0 of arena 0 and the
 * outputs where `out` says (in arena 1), against dmls_batch_execute on the
 * host with the same layout of the output buffer. */
static void against_cpu(const char *label, const dmls_batch *b, const unsigned char *input, uint64_t in_bytes,
                        const dmls_vulkan_binding *out, uint32_t n_out, uint64_t span, bool recorded) {
    memcpy(arena[0].map, input, in_bytes);
    memset(arena[1].map, 0x5A, span + 16);
    unsigned char *want = malloc(span + 16);
    memset(want, 0x5A, span + 16);
    const dmls_batch_input hin = {input, in_bytes};
    dmls_batch_output *hout = calloc(n_out, sizeof *hout);
    for (uint32_t s = 0; s < n_out; s++) hout[s] = (dmls_batch_output){want + out[s].offset, out[s].bytes};
    CHECK_STATUS(dmls_batch_execute(b, NULL, &hin, 1, hout, n_out), DMLS_OK);
    const dmls_vulkan_binding vin = {arena[0].buffer, 0, in_bytes};
    CHECK_STATUS(run(b, &vin, 1, out, n_out, recorded), DMLS_OK);
    CHECK(memcmp(arena[1].map, want, span + 16) == 0, "%s: the device's bytes differ from the CPU's", label);
    free(want), free(hout);
}

/* Outputs that start and end inside 32-bit words, next to each other. */
static void shared_words(void) {
    enum { ROWS = 5, COLS = 37 };
    unsigned char x[ROWS * COLS];
    test_fill_random(x, sizeof x);
    int64_t shape[2] = {ROWS, COLS};
    const dmls_tensor t = {DMLS_UINT8, 2, shape, NULL, 0};
    const int64_t sizes[7] = {3, 5, 1, 7, 2, 9, 10};
    for (int one = 0; one < 2; one++) {
        dmls_batch *b = NULL;
        CHECK_STATUS(dmls_batch_create_split(&t, 1, sizes, 7, one, &b), DMLS_OK);
        if (b == NULL) continue;
        dmls_vulkan_binding out[7];
        uint64_t at = 1; /* an odd start: no output begins on a word */
        const uint32_t n_out = dmls_batch_output_slots(b);
        for (uint32_t s = 0; s < n_out; s++) {
            const uint64_t bytes = dmls_batch_output_bytes(b, s);
            out[s] = (dmls_vulkan_binding){arena[1].buffer, at, bytes};
            at += bytes;
        }
        for (int recorded = 0; recorded < 2; recorded++)
            against_cpu(one ? "split of u8 into odd sizes, one slot" : "split of u8 into odd sizes, adjacent slots", b,
                        x, sizeof x, out, n_out, at, recorded);
        /* Outputs [1,16) [16,41) [41,46) [46,81) [81,91) [91,136) [136,186): none owns its words. */
        CHECK(last_barriers < 0 || last_barriers == 6, "split of u8: %d barriers, want 6", last_barriers);
        dmls_batch_destroy(b);
    }
    /* 200 crops of 1x3 bytes stacked: 600 bytes, most crops across a word boundary. */
    int64_t starts[400];
    for (int i = 0; i < 200; i++) starts[2 * i] = test_range(0, ROWS - 1), starts[2 * i + 1] = test_range(0, COLS - 3);
    const int64_t size[2] = {1, 3};
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create_crops(&t, size, 200, starts, DMLS_STARTS_INT64, &b), DMLS_OK);
    if (b != NULL) {
        const dmls_vulkan_binding out = {arena[1].buffer, 2, dmls_batch_output_bytes(b, 0)};
        against_cpu("crops of 1x3 u8, stacked", b, x, sizeof x, &out, 1, 2 + out.bytes, false);
        against_cpu("crops of 1x3 u8, stacked, recorded", b, x, sizeof x, &out, 1, 2 + out.bytes, true);
        CHECK(last_barriers < 0 || last_barriers == 199, "crops of u8: %d barriers, want 199", last_barriers);
    }
    dmls_batch_destroy(b);
    /* Four float32 outputs at word-aligned offsets and ends: no barrier. */
    const int64_t quarters[4] = {9, 9, 9, 10};
    float f[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++) f[i] = (float)i;
    const dmls_tensor t32 = {DMLS_FLOAT32, 2, shape, NULL, 0};
    CHECK_STATUS(dmls_batch_create_split(&t32, 1, quarters, 4, 1, &b), DMLS_OK);
    if (b != NULL) {
        const dmls_vulkan_binding out = {arena[1].buffer, 4, dmls_batch_output_bytes(b, 0)};
        against_cpu("split of f32, one slot, recorded", b, (const unsigned char *)f, sizeof f, &out, 1,
                    4 + out.bytes, true);
        CHECK(last_barriers < 0 || last_barriers == 0, "split of f32: %d barriers, want 0", last_barriers);
        if (last_barriers < 0) printf("barriers not counted: a build that links the Vulkan loader\n");
    }
    dmls_batch_destroy(b);
}

/* Binding errors: each names its rule and writes nothing. */
static void binding_errors(void) {
    int64_t shape[1] = {64};
    const dmls_tensor t = {DMLS_FLOAT32, 1, shape, NULL, 0};
    const int64_t sizes[2] = {32, 32};
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create_split(&t, 0, sizes, 2, 0, &b), DMLS_OK);
    if (b == NULL) return;
    memset(arena[1].map, 0x77, 1024);
    const dmls_vulkan_binding in = {arena[0].buffer, 0, 256};
    dmls_vulkan_binding out[2] = {{arena[1].buffer, 0, 128}, {arena[1].buffer, 128, 128}};
    CHECK_STATUS(dmls_batch_execute_vulkan(b, ctx, &in, 1, out, 1), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-B-ITEM", "1 outputs bound", "2 output slots");
    out[1].offset = 64; /* the second output over the first one's last 64 bytes */
    CHECK_STATUS(dmls_batch_execute_vulkan(b, ctx, &in, 1, out, 2), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-B-OVERLAP", "offset 0x40", "item 0", "item 1");
    out[1].buffer = arena[2].buffer; /* the same offsets in another buffer share nothing */
    CHECK_STATUS(dmls_batch_execute_vulkan(b, ctx, &in, 1, out, 2), DMLS_OK);
    memset(arena[1].map, 0x77, 1024);
    const dmls_vulkan_binding in_over = {arena[1].buffer, 100, 256}; /* the input over output 0 */
    out[1] = (dmls_vulkan_binding){arena[1].buffer, 512, 128};
    CHECK_STATUS(dmls_batch_execute_vulkan(b, ctx, &in_over, 1, out, 2), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-B-OVERLAP", "input slot 0");
    out[0].buffer = VK_NULL_HANDLE;
    CHECK_STATUS(dmls_batch_execute_vulkan(b, ctx, &in, 1, out, 2), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "VK_NULL_HANDLE", "output slot 0");
    out[0] = (dmls_vulkan_binding){arena[1].buffer, 0, 127};
    CHECK_STATUS(run_recorded(b, &in, 1, out, 2), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "127 bytes", "needs 128");
    out[0].bytes = 128, out[0].offset = UINT64_MAX - 64;
    CHECK_STATUS(dmls_batch_execute_vulkan(b, ctx, &in, 1, out, 2), DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-X-BOUNDS", "64-bit offsets");
    bool untouched = true;
    for (int i = 0; i < 1024; i++) untouched &= arena[1].map[i] == 0x77;
    CHECK(untouched, "a refused batch wrote into its outputs");
    CHECK_STATUS(dmls_batch_execute_vulkan(NULL, ctx, &in, 1, out, 2), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_batch_execute_vulkan(b, NULL, &in, 1, out, 2), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_batch_record_vulkan(b, ctx, VK_NULL_HANDLE, &in, 1, out, 2), DMLS_ERROR_INVALID_ARGUMENT);
    dmls_batch_destroy(b);
    /* Crops with starts bound at execute: refused, saying what to do instead. */
    const int64_t size[1] = {4};
    CHECK_STATUS(dmls_batch_create_crops(&t, size, 3, NULL, DMLS_STARTS_INT32, &b), DMLS_OK);
    if (b == NULL) return;
    const dmls_vulkan_binding cin[2] = {{arena[0].buffer, 0, 256}, {arena[0].buffer, 256, 12}};
    const dmls_vulkan_binding cout = {arena[1].buffer, 0, 48};
    CHECK_STATUS(dmls_batch_execute_vulkan(b, ctx, cin, 2, &cout, 1), DMLS_ERROR_UNSUPPORTED);
    CHECK(strstr(dmls_last_error(), "host starts") != NULL, "bound starts: %s", dmls_last_error());
    dmls_batch_destroy(b);
}

/* dmls_batch_prepare_vulkan: many items in one dispatch, the same bytes. */
static void prepared(void) {
    enum { ROWS = 64, COLS = 96, N = 1000 };
    float *x = malloc(sizeof *x * ROWS * COLS);
    for (int i = 0; i < ROWS * COLS; i++) x[i] = (float)i;
    int64_t shape[2] = {ROWS, COLS}, starts[2 * N];
    const dmls_tensor t = {DMLS_FLOAT32, 2, shape, NULL, 0};
    for (int i = 0; i < N; i++) starts[2 * i] = test_range(0, ROWS - 4), starts[2 * i + 1] = test_range(0, COLS - 4);
    const int64_t size[2] = {4, 4};
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create_crops(&t, size, N, starts, DMLS_STARTS_INT64, &b), DMLS_OK);
    if (b != NULL) {
        const dmls_vulkan_binding out = {arena[1].buffer, 32, dmls_batch_output_bytes(b, 0)};
        against_cpu("1,000 crops of 4x4 f32, recorded", b, (const unsigned char *)x, sizeof *x * ROWS * COLS, &out, 1,
                    32 + out.bytes, true);
        CHECK(last_dispatches < 0 || last_dispatches == N, "crops unprepared: %d dispatches, want %d", last_dispatches,
              N);
        CHECK_STATUS(dmls_batch_prepare_vulkan(b, ctx), DMLS_OK);
        CHECK_STATUS(dmls_batch_prepare_vulkan(b, ctx), DMLS_OK); /* once: again returns at once */
        against_cpu("1,000 crops of 4x4 f32, prepared, recorded", b, (const unsigned char *)x, sizeof *x * ROWS * COLS,
                    &out, 1, 32 + out.bytes, true);
        /* A crop's rows are 16-byte moves where its start column is a multiple of 4, else narrower: a group each. */
        CHECK(last_dispatches < 0 || (last_dispatches >= 1 && last_dispatches <= DMLS_VK_CHOICES),
              "crops prepared: %d dispatches, want 1 to %d", last_dispatches, DMLS_VK_CHOICES);
        against_cpu("1,000 crops of 4x4 f32, prepared", b, (const unsigned char *)x, sizeof *x * ROWS * COLS, &out, 1,
                    32 + out.bytes, false);
        /* An output slot at an offset that is not a multiple of 16: one by one. */
        const dmls_vulkan_binding out4 = {arena[1].buffer, 36, out.bytes};
        against_cpu("1,000 crops of 4x4 f32, prepared, output at 36, recorded", b, (const unsigned char *)x,
                    sizeof *x * ROWS * COLS, &out4, 1, 36 + out.bytes, true);
        CHECK(last_dispatches < 0 || last_dispatches == N, "crops prepared, output at 36: %d dispatches, want %d",
              last_dispatches, N);
        /* Another context: refused, the batch still serves its own. */
        dmls_vulkan_context *other = NULL;
        CHECK_STATUS(dmls_vulkan_context_create_from(H.instance, H.physical, H.device, H.family, 0, &other), DMLS_OK);
        CHECK_STATUS(dmls_batch_prepare_vulkan(b, other), DMLS_ERROR_INVALID_ARGUMENT);
        CHECK(strstr(dmls_last_error(), "another Vulkan context") != NULL, "another context: %s", dmls_last_error());
        /* A context destroyed before its batch takes the batch's table
         * (the validation layer reports any buffer left at the end); the
         * batch then runs unprepared and can be prepared again. */
        dmls_batch *b2 = NULL;
        CHECK_STATUS(dmls_batch_create_crops(&t, size, N, starts, DMLS_STARTS_INT64, &b2), DMLS_OK);
        if (b2 != NULL) CHECK_STATUS(dmls_batch_prepare_vulkan(b2, other), DMLS_OK);
        dmls_vulkan_context_destroy(other);
        if (b2 != NULL) {
            against_cpu("crops after their context was destroyed, recorded", b2, (const unsigned char *)x,
                        sizeof *x * ROWS * COLS, &out, 1, 32 + out.bytes, true);
            CHECK(last_dispatches < 0 || last_dispatches == N, "crops after their context: %d dispatches, want %d",
                  last_dispatches, N);
            CHECK_STATUS(dmls_batch_prepare_vulkan(b2, ctx), DMLS_OK);
        }
        dmls_batch_destroy(b2);
    }
    dmls_batch_destroy(b);
    /* Every crop at a multiple of 4 columns: one launch, one dispatch. */
    for (int i = 0; i < N; i++) starts[2 * i + 1] = starts[2 * i + 1] / 4 * 4;
    CHECK_STATUS(dmls_batch_create_crops(&t, size, N, starts, DMLS_STARTS_INT64, &b), DMLS_OK);
    if (b != NULL) {
        CHECK_STATUS(dmls_batch_prepare_vulkan(b, ctx), DMLS_OK);
        const dmls_vulkan_binding out = {arena[1].buffer, 0, dmls_batch_output_bytes(b, 0)};
        against_cpu("1,000 aligned crops of 4x4 f32, prepared, recorded", b, (const unsigned char *)x,
                    sizeof *x * ROWS * COLS, &out, 1, out.bytes, true);
        CHECK(last_dispatches < 0 || last_dispatches == 1, "aligned crops prepared: %d dispatches, want 1",
              last_dispatches);
    }
    dmls_batch_destroy(b);
    /* A split into 8 slots: one dispatch binding the 8 (issue 34; split_groups below), 8 in the single-slot form. */
    const int64_t eighths[8] = {12, 12, 12, 12, 12, 12, 12, 12};
    CHECK_STATUS(dmls_batch_create_split(&t, 1, eighths, 8, 0, &b), DMLS_OK);
    if (b != NULL) {
        CHECK_STATUS(dmls_batch_prepare_vulkan(b, ctx), DMLS_OK);
        dmls_vulkan_binding out[8];
        for (uint32_t s = 0; s < 8; s++) out[s] = (dmls_vulkan_binding){arena[1].buffer, 4096 * s, 12 * ROWS * 4};
        against_cpu("split of f32 into 8, prepared, recorded", b, (const unsigned char *)x, sizeof *x * ROWS * COLS,
                    out, 8, 4096 * 8, true);
        const int want = (int)((8 + ctx->batch_slots - 1) / ctx->batch_slots);
        CHECK(last_dispatches < 0 || last_dispatches == want, "split prepared: %d dispatches, want %d",
              last_dispatches, want);
    }
    dmls_batch_destroy(b);
    CHECK_STATUS(dmls_batch_prepare_vulkan(NULL, ctx), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_batch_create_crops(&t, size, 3, NULL, DMLS_STARTS_INT32, &b), DMLS_OK);
    if (b != NULL) CHECK_STATUS(dmls_batch_prepare_vulkan(b, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    dmls_batch_destroy(b);
    free(x);
}

/* A native operator over the first bytes of the input: the window (off,
 * size) of `in`, packed. */
static dmls_operator *window_op(const dmls_tensor *in, const int64_t *off, const int64_t *size) {
    const int64_t step[2] = {1, 1};
    const dmls_window w = {off, size, step};
    const dmls_tensor out = {in->dtype, 2, size, NULL, 0};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(in, &out, &w, &op), DMLS_OK);
    return op;
}

/* Issue 34 on Vulkan: a prepared batch mixing transposed items (2-D
 * transposes of 4- and 2-byte elements, whole and windowed) with plain
 * ones runs in one dispatch per kernel kind, the tiled items' included
 * (tile.comp's batch form), against the CPU byte for byte. */
static void tiled_groups(void) {
    enum { R = 96, C = 80 };
    unsigned char *x = malloc(4 * R * C);
    for (int i = 0; i < 4 * R * C; i++) x[i] = (unsigned char)test_range(0, 255);
    /* The input as an R x C float32 matrix read transposed (C x R), and as
     * an R x 2C uint16 one, transposed too. */
    const int64_t t32[2] = {C, R}, t32s[2] = {1, C}, t16[2] = {2 * C, R}, t16s[2] = {1, 2 * C}, m32[2] = {R, C};
    const dmls_tensor in32 = {DMLS_FLOAT32, 2, t32, t32s, 0}, in16 = {DMLS_UINT16, 2, t16, t16s, 0};
    const dmls_tensor plain = {DMLS_FLOAT32, 2, m32, NULL, 0};
    const int64_t zero[2] = {0, 0}, sub_off[2] = {4, 8}, sub[2] = {64, 80}, rows_off[2] = {10, 8}, rows[2] = {40, 64};
    dmls_operator *ops[4] = {window_op(&in32, zero, t32), window_op(&in32, sub_off, sub), window_op(&in16, zero, t16),
                             window_op(&plain, rows_off, rows)};
    if (ops[0] && ops[1] && ops[2] && ops[3]) {
        const dmls_vk_prepared *v = dmls_operator_prepared(ops[0], DMLS_BACKEND_VULKAN);
        CHECK(dmls_vk_is_tile(v->copy[0].shader), "a float32 transpose's first launch is not tile.comp");
        /* Three transposes of float32, two of uint16, two plain windows, interleaved. */
        const int which[7] = {0, 3, 2, 1, 3, 0, 2};
        const uint64_t bytes[4] = {4 * R * C, 4 * 64 * 80, 4 * R * C, 4 * 40 * 64};
        dmls_batch_item items[7];
        uint64_t at = 0;
        for (int i = 0; i < 7; i++) {
            items[i] = (dmls_batch_item){ops[which[i]], 0, 0, 0, at};
            at += bytes[which[i]];
        }
        dmls_batch *b = NULL;
        CHECK_STATUS(dmls_batch_create(items, 7, 1, 1, &b), DMLS_OK);
        if (b != NULL) {
            const dmls_vulkan_binding out = {arena[1].buffer, 0, at};
            against_cpu("transposed and plain items, recorded", b, x, 4 * R * C, &out, 1, at, true);
            CHECK(last_dispatches < 0 || last_dispatches == 7, "unprepared: %d dispatches, want 7", last_dispatches);
            CHECK_STATUS(dmls_batch_prepare_vulkan(b, ctx), DMLS_OK);
            against_cpu("transposed and plain items, prepared, recorded", b, x, 4 * R * C, &out, 1, at, true);
            CHECK(last_dispatches < 0 || last_dispatches == 3,
                  "transposed and plain items prepared: %d dispatches, want 3 (float32 tiles, uint16 tiles, rows)",
                  last_dispatches);
            against_cpu("transposed and plain items, prepared", b, x, 4 * R * C, &out, 1, at, false);
        }
        dmls_batch_destroy(b);
    }
    for (int i = 0; i < 4; i++) dmls_destroy(ops[i]);
    free(x);
}

/* The slots a prepared batch's dispatch binds on each side, on this
 * device (src/vulkan/launch.h: DMLS_VK_BATCH_SLOTS). */
static uint32_t split_slots(void) { return ctx->batch_slots; }

/* Places the n output slots of b in arena 1 from offset 0, each at a
 * multiple of align after a random gap of up to 64 bytes; returns the end. */
static uint64_t place_outputs(const dmls_batch *b, uint64_t align, dmls_vulkan_binding *out) {
    uint64_t at = 0;
    for (uint32_t s = 0; s < dmls_batch_output_slots(b); s++) {
        at = (at + (uint64_t)test_range(0, 64) + align - 1) / align * align;
        out[s] = (dmls_vulkan_binding){arena[1].buffer, at, dmls_batch_output_bytes(b, s)};
        at += out[s].bytes;
    }
    return at;
}

/* Prepares b and runs it recorded, its outputs at multiples of align,
 * against the CPU; want >= 0: the dispatches it must take. */
static void run_split(const char *label, dmls_batch *b, const void *x, uint64_t in_bytes, uint64_t align, int want) {
    dmls_vulkan_binding out[64];
    const uint32_t n = dmls_batch_output_slots(b);
    CHECK(n <= 64, "%s: %u output slots", label, n);
    if (n > 64) return;
    CHECK_STATUS(dmls_batch_prepare_vulkan(b, ctx), DMLS_OK);
    const uint64_t end = place_outputs(b, align, out);
    against_cpu(label, b, x, in_bytes, out, n, end, true);
    CHECK(want < 0 || last_dispatches < 0 || last_dispatches == want, "%s: %d dispatches, want %d", label,
          last_dispatches, want);
}

/* A split of x (shape, strides: a view; NULL strides packed) along axis
 * into n parts, one output slot each, prepared and run as run_split. */
static void split_case(const char *label, dmls_dtype dtype, int rank, const int64_t *shape, const int64_t *strides,
                       int32_t axis, const int64_t *sizes, size_t n, const void *x, uint64_t in_bytes, uint64_t align,
                       int want) {
    const dmls_tensor t = {dtype, rank, shape, strides, 0};
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create_split(&t, axis, sizes, n, 0, &b), DMLS_OK);
    if (b != NULL) run_split(label, b, x, in_bytes, align, want);
    dmls_batch_destroy(b);
}

/* Whether op's first launch on Vulkan is tile.comp (a transposed copy). */
static bool tiled(const dmls_operator *op) {
    return dmls_vk_is_tile(((const dmls_vk_prepared *)dmls_operator_prepared(op, DMLS_BACKEND_VULKAN))->copy[0].shader);
}

/* Issue 34 on Vulkan: a prepared split into several output slots runs one
 * dispatch per kind of launch, binding up to k = split_slots() output
 * slots at once (a split into more takes a dispatch per k), against the CPU
 * byte for byte (R-B-ITEM, R-SPLIT-SUM): a split of float32 columns into
 * 3, 1 to slots + 1 parts, and a QKV projection (tokens x 3 x heads x
 * dim) split into Q, K and V written head-major (heads x tokens x dim, a
 * permuted view), or transposed (heads x dim x tokens, tiled), or mixed. */
static void split_groups(void) {
    enum { T = 48, NH = 4, D = 32 };
    float *x = malloc(sizeof *x * T * 3 * NH * D);
    for (int i = 0; i < T * 3 * NH * D; i++) x[i] = (float)i;
    const uint64_t x_bytes = sizeof *x * T * 3 * NH * D;
    const int k = (int)split_slots(), by_k3 = (3 + k - 1) / k; /* the dispatches of 3 parts of one kind */
    const int64_t cols[2] = {5, 12}, thirds[3] = {4, 4, 4};
    split_case("split of f32 into 3, prepared", DMLS_FLOAT32, 2, cols, NULL, 1, thirds, 3, x, x_bytes, 16, by_k3);
    /* Parts of 4 columns (16-byte rows, one launch shape), 1 to k + 1 of them. */
    int64_t fours[65];
    for (int n = 1; n <= k + 1 && n <= 64; n++) {
        for (int j = 0; j < n; j++) fours[j] = 4;
        const int64_t shape[2] = {6, 4 * (int64_t)n};
        char label[96];
        snprintf(label, sizeof label, "split of f32 into %d of 4 columns (%d slots a dispatch), prepared", n, k);
        split_case(label, DMLS_FLOAT32, 2, shape, NULL, 1, fours, (size_t)n, x, x_bytes, 16, (n + k - 1) / k);
    }
    /* x as (3, heads, tokens, dim), split into Q, K, V: head-major, a units copy each. */
    const int64_t qkv[4] = {3, NH, T, D}, qkv_strides[4] = {NH * D, D, 3 * NH * D, 1}, ones[3] = {1, 1, 1};
    split_case("QKV split head-major, prepared", DMLS_FLOAT32, 4, qkv, qkv_strides, 0, ones, 3, x, x_bytes, 16, by_k3);
    /* x as (3, heads, dim, tokens): each part transposed, a tiled copy. */
    const int64_t qkvt[4] = {3, NH, D, T}, qkvt_strides[4] = {NH * D, D, 1, 3 * NH * D};
    split_case("QKV split head-major transposed, prepared", DMLS_FLOAT32, 4, qkvt, qkvt_strides, 0, ones, 3, x,
               x_bytes, 16, by_k3);
    /* Q and V head-major, K transposed (attention's K^T): two kinds, two dispatches (k >= 2). */
    const int64_t hm[3] = {NH, T, D}, hm_strides[3] = {D, 3 * NH * D, 1};
    const int64_t ht[3] = {NH, D, T}, ht_strides[3] = {D, 1, 3 * NH * D};
    const dmls_tensor in_hm = {DMLS_FLOAT32, 3, hm, hm_strides, 0}, in_ht = {DMLS_FLOAT32, 3, ht, ht_strides, 0};
    const dmls_tensor out_hm = {DMLS_FLOAT32, 3, hm, NULL, 0}, out_ht = {DMLS_FLOAT32, 3, ht, NULL, 0};
    const int64_t zero[3] = {0, 0, 0}, step[3] = {1, 1, 1};
    const dmls_window whole_hm = {zero, hm, step}, whole_ht = {zero, ht, step};
    dmls_operator *q = NULL, *kt = NULL;
    CHECK_STATUS(dmls_create(&in_hm, &out_hm, &whole_hm, &q), DMLS_OK);
    CHECK_STATUS(dmls_create(&in_ht, &out_ht, &whole_ht, &kt), DMLS_OK);
    if (q != NULL && kt != NULL) {
        CHECK(!tiled(q) && tiled(kt), "QKV: Q's launch is%s tile.comp, K^T's is%s", tiled(q) ? "" : " not",
              tiled(kt) ? "" : " not");
        const uint64_t part = sizeof *x * NH * D;
        const dmls_batch_item items[3] = {{q, 0, 0, 0, 0}, {kt, 0, 1, part, 0}, {q, 0, 2, 2 * part, 0}};
        dmls_batch *b = NULL;
        CHECK_STATUS(dmls_batch_create(items, 3, 1, 3, &b), DMLS_OK);
        if (b != NULL) run_split("Q, K^T, V head-major, prepared", b, x, x_bytes, 16, (2 + k - 1) / k + 1);
        dmls_batch_destroy(b);
    }
    dmls_destroy(q), dmls_destroy(kt);
    free(x);
}

/* Random splits into 1 to split_slots() + 1 output slots (R-SPLIT-SUM,
 * R-B-ITEM): ranks 1-4, every element size, the input a random
 * permutation of a packed array (some parts tiled), random part sizes
 * (empty ones too), the outputs at random multiples of 16 (grouped), of 4
 * (one by one) or of 1, against the CPU byte for byte. */
static void random_splits(int rounds) {
    const uint32_t k = split_slots();
    unsigned char *x = malloc(1 << 20);
    test_fill_random(x, 1 << 20);
    for (int round = 0; round < rounds; round++) {
        const int esize = 1 << (round % 4), rank = (int)test_range(1, 4);
        const int32_t axis = (int32_t)test_range(0, rank - 1);
        const size_t n = (size_t)test_range(1, k + 1);
        /* The view: its dim i is dim perm[i] of a packed array of shape pshape. */
        int perm[4] = {0, 1, 2, 3};
        for (int i = rank - 1; i > 0; i--) {
            const int j = (int)test_range(0, i), tmp = perm[i];
            perm[i] = perm[j], perm[j] = tmp;
        }
        int64_t pshape[4], pstride[4], shape[4], strides[4], sizes[65], d = 0, elems = 1;
        for (size_t j = 0; j < n; j++) sizes[j] = test_range(0, 5) == 0 ? 0 : test_range(1, 20), d += sizes[j];
        for (int i = 0; i < rank; i++) pshape[i] = test_range(1, rank <= 2 ? 70 : 12);
        pshape[perm[axis]] = d; /* the split axis holds the parts */
        for (int i = rank - 1; i >= 0; i--) pstride[i] = elems, elems *= pshape[i];
        if (elems * esize > (1 << 20)) continue;
        for (int i = 0; i < rank; i++) shape[i] = pshape[perm[i]], strides[i] = pstride[perm[i]];
        const uint64_t align = round % 5 == 4 ? 1 : round % 5 == 3 ? 4 : 16;
        char label[160];
        snprintf(label, sizeof label,
                 "random split %d: %d-byte elements, rank %d, axis %d of %lld into %zu, outputs at multiples of %u",
                 round, esize, rank, (int)axis, (long long)d, n, (unsigned)align);
        split_case(label, test_dtype_of_size(esize), rank, shape, strides, axis, sizes, n, x, (uint64_t)elems * esize,
                   align, -1);
    }
    free(x);
}

/* The same splits on contexts that bind fewer slots a dispatch: 1, the
 * single-slot form a device with fewer than 18 storage buffers a stage
 * runs (a dispatch per pair of slots), and 3 of the multi-slot form's 8
 * (a split into 7 is 3 dispatches). */
static void fewer_slots(void) {
    dmls_vulkan_context *const own = ctx;
    for (uint32_t slots = 1; slots <= 3; slots += 2) {
        dmls_vulkan_context *other = NULL;
        CHECK_STATUS(dmls_vulkan_context_create_from(H.instance, H.physical, H.device, H.family, 0, &other), DMLS_OK);
        if (other == NULL) continue;
        CHECK(other->batch_slots == DMLS_VK_BATCH_SLOTS || other->batch_slots == 1, "a context binds %u slots",
              other->batch_slots);
        other->batch_slots = slots; /* before its first batch: its batch layout is made then */
        ctx = other;
        split_groups();
        random_splits(12);
        ctx = own;
        dmls_vulkan_context_destroy(other);
    }
}

/* Crops whose starts are bound at execute, of a transposed (Fortran-order)
 * input of 2- and 4-byte elements: a tiled copy each, read and clamped on
 * the device (R-CROP-BOUNDS) in one dispatch, against the CPU's. */
static void bound_transposed_crops(void) {
    enum { H = 72, W = 88, N = 40 };
    const int64_t shape[2] = {H, W}, strides[2] = {1, H}, size[2] = {40, 36};
    unsigned char *x = malloc(4 * H * W);
    for (int i = 0; i < 4 * H * W; i++) x[i] = (unsigned char)test_range(0, 255);
    int32_t starts[2 * N];
    for (int i = 0; i < 2 * N; i++) starts[i] = (int32_t)test_range(-6, (i % 2 ? W : H) + 6);
    for (int es = 2; es <= 4; es += 2) {
        const dmls_tensor t = {es == 2 ? DMLS_UINT16 : DMLS_FLOAT32, 2, shape, strides, 0};
        dmls_batch *b = NULL;
        CHECK_STATUS(dmls_batch_create_crops(&t, size, N, NULL, DMLS_STARTS_INT32, &b), DMLS_OK);
        if (b == NULL) continue;
        const uint64_t in_bytes = (uint64_t)es * H * W, out_bytes = dmls_batch_output_bytes(b, 0);
        unsigned char *want = malloc(out_bytes);
        const dmls_batch_input hin[2] = {{x, in_bytes}, {starts, sizeof starts}};
        const dmls_batch_output hout = {want, out_bytes};
        CHECK_STATUS(dmls_batch_execute(b, NULL, hin, 2, &hout, 1), DMLS_OK);
        memcpy(arena[0].map, x, in_bytes);
        memcpy(arena[0].map + 65536, starts, sizeof starts);
        const dmls_vulkan_binding vin[2] = {{arena[0].buffer, 0, in_bytes}, {arena[0].buffer, 65536, sizeof starts}};
        const dmls_vulkan_binding vout = {arena[1].buffer, 16, out_bytes};
        CHECK_STATUS(dmls_batch_prepare_vulkan(b, ctx), DMLS_OK);
        memset(arena[1].map, 0x5A, out_bytes + 32);
        CHECK_STATUS(run(b, vin, 2, &vout, 1, true), DMLS_OK);
        CHECK(memcmp(arena[1].map + 16, want, out_bytes) == 0 && arena[1].map[15] == 0x5A &&
                  arena[1].map[16 + out_bytes] == 0x5A,
              "R-CROP-BOUNDS Vulkan: crops of a transposed %d-byte input differ from the CPU's", es);
        CHECK(last_dispatches < 0 || last_dispatches == 1, "transposed crops, bound starts: %d dispatches, want 1",
              last_dispatches);
        free(want);
        dmls_batch_destroy(b);
    }
    free(x);
}

/* R-CROP-BOUNDS on Vulkan: crops whose starts are bound at execute, read
 * and clamped on the device by a prepared batch, against the CPU's with
 * the same starts (negative and past-the-end ones included), 4- and
 * 8-byte starts, a reversed axis in the input's layout; refused unprepared,
 * with the starts' slot off a multiple of 16, and where a crop's output
 * shares a word. */
static void bound_starts(void) {
    enum { C = 3, H = 40, W = 52, N = 300 };
    const int64_t shape[3] = {C, H, W}, size[3] = {C, 5, 7};
    float *x = malloc(sizeof *x * C * H * W);
    for (int i = 0; i < C * H * W; i++) x[i] = (float)i;
    for (int wide = 0; wide < 2; wide++)
        for (int reversed = 0; reversed < 2; reversed++) {
            /* reversed: rows stored bottom up (a negative stride, the view at the last row) */
            const int64_t strides[3] = {H * W, reversed ? -W : W, 1};
            const dmls_tensor t = {DMLS_FLOAT32, 3, shape, strides, reversed ? (uint64_t)(H - 1) * W * 4 : 0};
            dmls_batch *b = NULL;
            CHECK_STATUS(dmls_batch_create_crops(&t, size, N, NULL, wide ? DMLS_STARTS_INT64 : DMLS_STARTS_INT32, &b),
                         DMLS_OK);
            if (b == NULL) continue;
            int64_t s64[3 * N];
            int32_t s32[3 * N];
            for (int i = 0; i < 3 * N; i++) {
                const int64_t v = i % 3 == 0 ? test_range(-2, 2) : test_range(-9, (i % 3 == 1 ? H : W) + 9);
                s64[i] = (wide && i % 7 == 0) ? v * (INT64_C(1) << 40) : v; /* beyond 32 bits, both signs */
                s32[i] = (int32_t)v;
            }
            const void *starts = wide ? (const void *)s64 : (const void *)s32;
            const uint64_t starts_bytes = (uint64_t)3 * N * (wide ? 8 : 4), in_bytes = sizeof *x * C * H * W;
            const uint64_t out_bytes = dmls_batch_output_bytes(b, 0);
            /* The CPU's result, the oracle (its clamp: R-CROP-BOUNDS). */
            unsigned char *want = malloc(out_bytes);
            const dmls_batch_input hin[2] = {{x, in_bytes}, {starts, starts_bytes}};
            const dmls_batch_output hout = {want, out_bytes};
            CHECK_STATUS(dmls_batch_execute(b, NULL, hin, 2, &hout, 1), DMLS_OK);
            memcpy(arena[0].map, x, in_bytes);
            memcpy(arena[0].map + 65536, starts, starts_bytes);
            const dmls_vulkan_binding vin[2] = {{arena[0].buffer, 0, in_bytes}, {arena[0].buffer, 65536, starts_bytes}};
            const dmls_vulkan_binding vout = {arena[1].buffer, 16, out_bytes};
            CHECK_STATUS(dmls_batch_execute_vulkan(b, ctx, vin, 2, &vout, 1), DMLS_ERROR_UNSUPPORTED);
            CHECK(strstr(dmls_last_error(), "dmls_batch_prepare_vulkan") != NULL, "unprepared: %s", dmls_last_error());
            CHECK_STATUS(dmls_batch_prepare_vulkan(b, ctx), DMLS_OK);
            for (int recorded = 0; recorded < 2; recorded++) {
                memset(arena[1].map, 0x5A, out_bytes + 32);
                CHECK_STATUS(run(b, vin, 2, &vout, 1, recorded), DMLS_OK);
                CHECK(memcmp(arena[1].map + 16, want, out_bytes) == 0 && arena[1].map[15] == 0x5A &&
                          arena[1].map[16 + out_bytes] == 0x5A,
                      "R-CROP-BOUNDS Vulkan: %d-byte starts%s%s differ from the CPU's", wide ? 8 : 4,
                      reversed ? ", rows reversed" : "", recorded ? ", recorded" : "");
                CHECK(!recorded || last_dispatches < 0 || last_dispatches <= DMLS_VK_CHOICES,
                      "bound starts: %d dispatches", last_dispatches);
            }
            const dmls_vulkan_binding vin8[2] = {vin[0], {arena[0].buffer, 65544, starts_bytes}};
            memcpy(arena[0].map + 65544, starts, starts_bytes);
            CHECK_STATUS(dmls_batch_execute_vulkan(b, ctx, vin8, 2, &vout, 1), DMLS_ERROR_UNSUPPORTED);
            CHECK(strstr(dmls_last_error(), "multiple of 16") != NULL, "starts at 65544: %s", dmls_last_error());
            free(want);
            dmls_batch_destroy(b);
        }
    free(x);
    /* 1x3 bytes a crop: the outputs share words, which one dispatch cannot write. */
    const int64_t s8[2] = {5, 37}, size8[2] = {1, 3};
    const dmls_tensor t8 = {DMLS_UINT8, 2, s8, NULL, 0};
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create_crops(&t8, size8, 10, NULL, DMLS_STARTS_INT32, &b), DMLS_OK);
    if (b != NULL) {
        CHECK_STATUS(dmls_batch_prepare_vulkan(b, ctx), DMLS_ERROR_UNSUPPORTED);
        CHECK(strstr(dmls_last_error(), "32-bit word") != NULL, "u8 crops, bound starts: %s", dmls_last_error());
    }
    dmls_batch_destroy(b);
}

int main(void) {
    batch_seed(20261125);
    const int device = getenv("DMLS_TEST_VULKAN_DEVICE") ? atoi(getenv("DMLS_TEST_VULKAN_DEVICE")) : 0;
    if (vk_harness_open(&H, device) != 0) {
        printf("no Vulkan device %d: skipped\n", device);
        TEST_MAIN_END_SKIP();
    }
    printf("device: %s; validation layer %s\n", H.name, H.validation ? "on" : "not installed");
    CHECK_STATUS(dmls_vulkan_context_create_from(H.instance, H.physical, H.device, H.family, 0, &ctx), DMLS_OK);
    if (ctx == NULL) TEST_MAIN_END();
    for (int a = 0; a < 3; a++) arena[a] = vk_buf_make(H.physical, H.device, ARENA);
    binding_errors();
    shared_words();
    prepared();
    bound_starts();
    tiled_groups();
    printf("a batch dispatch binds %u slots a side\n", ctx->batch_slots);
    split_groups();
    /* DMLS_TEST_SPLITS (48) random splits; DMLS_TEST_FEWER_SLOTS=0 skips the
     * contexts of 1 and 3 slots (tests/vulkan/CMakeLists.txt: under a
     * sanitizer). */
    const int splits = getenv("DMLS_TEST_SPLITS") ? atoi(getenv("DMLS_TEST_SPLITS")) : 48;
    random_splits(splits);
    if (!getenv("DMLS_TEST_FEWER_SLOTS") || atoi(getenv("DMLS_TEST_FEWER_SLOTS")) != 0) fewer_slots();
    bound_transposed_crops();
    const int rounds = getenv("DMLS_TEST_ITERS") ? atoi(getenv("DMLS_TEST_ITERS")) : 40;
    for (int r = 0; r < rounds; r++) random_batch(r, false);
    for (int r = 0; r < (rounds / 3 > 8 ? rounds / 3 : 8); r++) random_batch(r, true);
    printf("permuted batches: %d items with a tiled copy\n", tiled_items);
    CHECK(tiled_items > 0, "no permuted batch item had a tiled copy");
    for (int a = 0; a < 3; a++) vk_buf_free(H.device, &arena[a]);
    dmls_vulkan_context_destroy(ctx);
    vk_harness_close(&H);
    CHECK(vk_messages == 0, "%lu validation messages", vk_messages);
    TEST_MAIN_END();
}
