/* Batches on CUDA (docs/spec.md sections 7 and 8):
 *   - without a GPU: the batch's launch planning (cuda/batch_prepare.c) run
 *     by an emulation of the batch kernel on the CPU: every block finds its
 *     item with the kernel's own arithmetic or block map, picks the item's launch for the
 *     bound addresses with the kernel's own rule, clamps bound crop starts
 *     with the kernel's own code (cuda/batch_rules.h), then runs its tiles
 *     index by index (emulator.h: bounds and alignment of every access);
 *     the outputs must equal the items run one by one through the
 *     reference, byte for byte, on random batches (mixed element sizes and
 *     directions, SLICE_GRAD, empty items), splits, and crops with clamped
 *     bound starts. Also the table's block assignment (by work, each item's
 *     blocks contiguous) and the slot limit;
 *   - with a GPU: the same batches on the device, crops with starts in
 *     device memory (clamped ones too), a batch captured in a CUDA graph and
 *     replayed, and a binding error that enqueues nothing.
 * Without a GPU the program exits 77 (CTest: skipped) after the emulated
 * part; a failed check still fails it. Seeded (DMLS_TEST_SEED; fixed default). */
#include <cuda_runtime_api.h>

#include "batch/batch.h"
#include "support/batch_case.h"
#include "cuda/batch_prepare.h"
#include "cuda_check.h"
#include "emulator.h"
#include "support/permuted_case.h"

/* One index of launch L from item bases src/dst (emulator.h's checks). */
static bool emu_index(const dmls_cuda_launch *L, const unsigned char *src, uint64_t sb, unsigned char *dst, uint64_t db,
                      uint64_t i, const char *label) {
    int64_t s, d;
    if (!emu_locate(L, NULL, i, &s, &d)) {
        CHECK(false, "%s: index %llu: a multiply-high quotient is wrong", label, (unsigned long long)i);
        return false;
    }
    const int u = L->unit, v = L->vec;
    switch (L->kernel) {
    case DMLS_CUDA_COPY:
        if (!emu_access(src, sb, s, u, "load", label, i) || !emu_access(dst, db, d, u, "store", label, i)) return false;
        memcpy(dst + d, src + s, (size_t)u);
        return true;
    case DMLS_CUDA_FILL:
        if (!emu_access(dst, db, d, u, "store", label, i)) return false;
        memset(dst + d, 0, (size_t)u);
        return true;
    case DMLS_CUDA_GATHER:
        if (!emu_access(dst, db, d, v, "store", label, i)) return false;
        for (int k = 0; k < v / u; k++) {
            if (!emu_access(src, sb, s + L->pattern[k], u, "load", label, i)) return false;
            memcpy(dst + d + k * u, src + s + L->pattern[k], (size_t)u);
        }
        return true;
    case DMLS_CUDA_REVERSE:
        if (!emu_access(src, sb, s, v, "load", label, i) || !emu_access(dst, db, d, v, "store", label, i)) return false;
        for (int k = 0; k < v / u; k++) memcpy(dst + d + k * u, src + s + (v / u - 1 - k) * u, (size_t)u);
        return true;
    }
    CHECK(false, "%s: kernel %d in a batch", label, L->kernel);
    return false;
}

/* batch_kernels.cu's memset_body for one unit of `threads` threads. */
static void emu_memset(const dmls_cuda_launch *L, unsigned char *dst, uint64_t db, uint64_t local, uint64_t blocks,
                       uint64_t threads, const char *label) {
    unsigned char *p = dst + L->dst_offset;
    const uint64_t bytes = L->count, mis = (16 - (uintptr_t)p % 16) % 16, head = mis < bytes ? mis : bytes;
    const uint64_t count = 1 + (bytes - head + 15) / 16;
    for (uint64_t t = 0; t < threads; t++)
        for (uint64_t i = local * threads + t; i < count; i += blocks * threads) {
            const uint64_t at = i == 0 ? 0 : head + (i - 1) * 16;
            const uint64_t n = i == 0 ? head : (bytes - at < 16 ? bytes - at : 16);
            if (n == 0) continue;
            if (!emu_access(dst, db, L->dst_offset + (int64_t)at, 1, "memset", label, i) ||
                !emu_access(dst, db, L->dst_offset + (int64_t)(at + n - 1), 1, "memset", label, i))
                return;
            if (i > 0 && n == 16) CHECK(((uintptr_t)(p + at)) % 16 == 0, "%s: memset store misaligned", label);
            memset(p + at, 0, (size_t)n);
        }
}

/* Blocks that ran a tiled copy (a permuted item), emulated. */
static uint64_t tiled_items;

/* One unit of Threads threads (a block, or a group's warp) running entry k
 * (run_entry in batch_kernels.cu): the loop's trips as the kernel takes
 * them, from the launch's own tile. */
static void emu_entry(const dmls_cuda_batch_plan *p, int phase, uint64_t k, uint64_t threads, uint64_t local,
                      uint64_t blocks, unsigned char *const *bases, const uint64_t *bytes, const void *starts,
                      bool uniform, const char *label) {
    const dmls_cuda_batch_entry *en = &p->entries[phase][k];
    const dmls_cuda_batch_layout *l = &p->layout[phase];
    const int64_t in_off =
        p->crops.on ? dmls_cuda_batch_crop_offset(&p->crops, starts, l->dense ? k : en->item) : (int64_t)en->in_offset;
    const unsigned char *src = bases[en->in_base] + in_off;
    unsigned char *dst = bases[en->out_base] + en->out_offset;
    const uint64_t sb = bytes[en->in_base] - (uint64_t)in_off, db = bytes[en->out_base] - en->out_offset;
    const dmls_cuda_batch_op *op = &p->ops[l->op >= 0 ? (uint32_t)l->op : en->op];
    const dmls_cuda_launch *choices = phase == 0 ? op->fill : op->copy;
    const int choice = dmls_cuda_batch_choose(choices, (uintptr_t)src, (uintptr_t)dst);
    /* The streaming kernel runs the first launch without choosing: every
     * entry's own choice must be that one. */
    CHECK(!uniform || choice == 0, "%s: phase %d entry %llu chooses launch %d in a uniform phase", label, phase,
          (unsigned long long)k, choice);
    const dmls_cuda_launch *L = &choices[choice];
    if (L->kernel == DMLS_CUDA_MEMSET) {
        emu_memset(L, dst, db, local, blocks, threads, label);
        return;
    }
    if (L->kernel == DMLS_CUDA_TILE) { /* a block per tile, never a warp */
        CHECK(threads == DMLS_CUDA_THREADS, "%s: a tiled item runs on %llu threads", label, (unsigned long long)threads);
        emulate_tile(L, src, sb, dst, db, label, local, blocks);
        tiled_items++;
        return;
    }
    const uint64_t tile = dmls_cuda_batch_tile(L) / DMLS_CUDA_THREADS * threads;
    for (uint64_t base = local * tile; base < L->count; base += blocks * tile)
        for (uint64_t i = base; i < base + tile && i < L->count; i++)
            if (!emu_index(L, src, sb, dst, db, i, label)) return;
}

/* One block of the batch kernel (batch_kernel in batch_kernels.cu). */
static void emu_block(const dmls_cuda_batch_plan *p, int phase, uint64_t b, unsigned char *const *bases,
                      const uint64_t *bytes, const void *starts, bool uniform, const char *label) {
    uint32_t k, n;
    uint64_t local, blocks;
    dmls_cuda_batch_work(&p->layout[phase], p->map[phase], p->entries[phase], (uint32_t)b, &k, &n, &local, &blocks);
    if (n >= 2) {
        CHECK(n <= DMLS_CUDA_BATCH_GROUP, "%s: block %llu groups %u entries", label, (unsigned long long)b, n);
        for (uint32_t w = 0; w < n && w < DMLS_CUDA_BATCH_GROUP; w++)
            emu_entry(p, phase, k + w, DMLS_CUDA_BATCH_WARP, 0, 1, bases, bytes, starts, uniform, label);
        return;
    }
    emu_entry(p, phase, k, DMLS_CUDA_THREADS, local, blocks, bases, bytes, starts, uniform, label);
}

/* The planning's invariants: entries by increasing block; an entry alone in
 * its blocks owns 1 to DMLS_CUDA_BATCH_ITEM_BLOCKS of them, a group of 2 to
 * DMLS_CUDA_BATCH_GROUP tiny entries shares one; the map sends every block
 * to the first entry that owns it. */
static void check_plan(const dmls_cuda_batch_plan *p, const char *label) {
    for (int phase = 0; phase < 2; phase++) {
        const dmls_cuda_batch_entry *e = p->entries[phase];
        const uint32_t *map = p->map[phase];
        const uint64_t n = p->n_entries[phase];
        bool ok =
            (n == 0 || e[0].first_block == 0) && e[n].first_block == p->blocks[phase] && map[p->blocks[phase]] == n;
        for (uint64_t k = 0; k < n; k++) {
            uint64_t g = k + 1; /* past k's group */
            while (g < n && e[g].first_block == e[k].first_block) g++;
            const uint64_t blocks = e[g].first_block - e[k].first_block;
            ok &= blocks >= 1 && blocks <= DMLS_CUDA_BATCH_ITEM_BLOCKS && (k == 0 || e[k].item > e[k - 1].item);
            ok &= g - k <= DMLS_CUDA_BATCH_GROUP && (g - k == 1 || blocks == 1);
            for (uint64_t blk = e[k].first_block; blk < e[g].first_block; blk++) ok &= map[blk] == k;
            k = g - 1;
        }
        CHECK(ok, "%s: phase %d entries or block map out of order", label, phase);
        /* The layout's claims hold, and its arithmetic gives every block
         * the work the map gives it. */
        const dmls_cuda_batch_layout *l = &p->layout[phase], by_map = {0, 0, (uint32_t)n, -1, 0, 0, 0, 0};
        for (size_t o = 0; o < p->n_ops; o++) /* dmls_cuda_batch_choose tests alignments by mask */
            for (int c = 0; c < DMLS_CUDA_CHOICES; c++) {
                const dmls_cuda_launch *L = phase == 0 ? &p->ops[o].fill[c] : &p->ops[o].copy[c];
                ok &= (L->src_align & (L->src_align - 1)) == 0 && (L->dst_align & (L->dst_align - 1)) == 0;
            }
        CHECK(ok, "%s: phase %d: an alignment is not a power of two", label, phase);
        ok = l->n_entries == n && l->group <= DMLS_CUDA_BATCH_GROUP;
        for (uint64_t k = 0; k < n; k++)
            ok &= (l->op < 0 || e[k].op == (uint32_t)l->op) && (!l->dense || e[k].item == k);
        for (uint64_t blk = 0; blk < p->blocks[phase]; blk++) {
            uint32_t k1, n1, k2, n2;
            uint64_t local1, blocks1, local2, blocks2;
            dmls_cuda_batch_work(l, map, e, (uint32_t)blk, &k1, &n1, &local1, &blocks1);
            dmls_cuda_batch_work(&by_map, map, e, (uint32_t)blk, &k2, &n2, &local2, &blocks2);
            ok &= k1 == k2 && n1 == n2 && local1 == local2 && blocks1 == blocks2;
        }
        CHECK(ok, "%s: phase %d layout (group %u, op %d, dense %d) disagrees with the entries", label, phase, l->group,
              l->op, l->dense);
    }
}

/* Phases emulated as uniform (the streaming kernel's), so the tests can
 * tell that random batches reach it. */
static int emulated_uniform;

/* Runs a batch through the emulated kernel on host buffers. */
static void emulate_batch(const dmls_batch *b, const dmls_batch_input *in, const dmls_batch_output *out,
                          const char *label) {
    dmls_cuda_batch_plan p;
    CHECK_STATUS(dmls_cuda_batch_plan_build(b, &p), DMLS_OK);
    check_plan(&p, label);
    unsigned char *bases[DMLS_BATCH_CUDA_MAX_SLOTS];
    uint64_t bytes[DMLS_BATCH_CUDA_MAX_SLOTS];
    for (uint32_t s = 0; s < b->in_slots; s++)
        bases[s] = (unsigned char *)(uintptr_t)in[s].data, bytes[s] = in[s].bytes;
    for (uint32_t s = 0; s < b->out_slots; s++)
        bases[b->in_slots + s] = out[s].data, bytes[b->in_slots + s] = out[s].bytes;
    uint64_t at[DMLS_BATCH_CUDA_MAX_SLOTS];
    for (uint32_t s = 0; s < b->in_slots + b->out_slots; s++) at[s] = (uint64_t)(uintptr_t)bases[s];
    for (int phase = b->has_grad ? 0 : 1; phase < 2; phase++) {
        const bool uniform = dmls_cuda_batch_uniform(&p, phase, at);
        emulated_uniform += uniform;
        for (uint64_t blk = 0; blk < p.blocks[phase]; blk++)
            emu_block(&p, phase, blk, bases, bytes, b->crops.on ? in[1].data : NULL, uniform, label);
    }
    dmls_cuda_batch_plan_free(&p);
}

/* Emulates the batch of case c (then freed) and compares its outputs with
 * the items run one by one; label names the emulated run, what the
 * comparison. */
static void emulate_case(batch_case *c, const char *label, const char *what) {
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create(c->items, c->n, c->in_slots, c->out_slots, &b), DMLS_OK);
    if (b != NULL) {
        batch_buffers bb;
        batch_buffers_make(&bb, c);
        unsigned char **ref = batch_case_oracle(c, &bb);
        emulate_batch(b, bb.inputs, bb.outputs, label);
        batch_case_same(c, bb.out, ref, what);
        batch_oracle_free(c, ref);
        batch_buffers_free(&bb);
    }
    dmls_batch_destroy(b);
    batch_case_free(c);
}

/* R-B-ITEM: random batches, emulated, against the items one by one. */
static void test_emulated_batches(void) {
    for (int round = 0; round < 120; round++) {
        batch_case c;
        const size_t n = (size_t)test_range(0, round < 100 ? 10 : 200);
        batch_case_make(&c, n, (size_t)test_range(1, 8), round % 7 == 0 && n <= 60);
        emulate_case(&c, "emulated batch", "R-B-ITEM emulated batch");
    }
}

/* Batches mixing permuted and plain items, emulated against the items one
 * by one: the tiled copies run as batch items (a block per tile). */
static void test_emulated_permuted(void) {
    const uint64_t before = tiled_items;
    for (int round = 0; round < 12; round++) {
        batch_case c;
        batch_case_make_with(&c, (size_t)test_range(1, 12), (size_t)test_range(1, 4), round % 3 == 0,
                             batch_case_mixed_op);
        emulate_case(&c, "emulated permuted batch", "R-B-ITEM emulated batch of permuted and plain items");
    }
    CHECK(tiled_items > before, "no permuted batch item ran a tiled copy");
}

/* Crops with bound starts, emulated: clamping as the device does it equals
 * the CPU executor's (R-CROP-BOUNDS); and a split at misaligned bases. */
static void test_emulated_crops_and_split(void) {
    const int64_t shape[3] = {3, 40, 36}, size[3] = {3, 4, 4};
    float *img = malloc(3 * 40 * 36 * 4);
    for (int i = 0; i < 3 * 40 * 36; i++) img[i] = (float)i;
    const dmls_tensor t = {DMLS_FLOAT32, 3, shape, NULL, 0};
    enum { N = 300 };
    int32_t starts[N * 3];
    for (int i = 0; i < N * 3; i++) starts[i] = (int32_t)test_range(-10, 50);
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create_crops(&t, size, N, NULL, DMLS_STARTS_INT32, &b), DMLS_OK);
    dmls_cuda_batch_plan p;
    CHECK_STATUS(dmls_cuda_batch_plan_build(b, &p), DMLS_OK);
    CHECK(p.layout[1].group == DMLS_CUDA_BATCH_GROUP && p.layout[1].op == 0 && p.layout[1].dense == 1,
          "tiny crops: groups found by arithmetic (group %u, op %d, dense %d)", p.layout[1].group, p.layout[1].op,
          p.layout[1].dense);
    dmls_cuda_batch_plan_free(&p);
    float *gpu = malloc(N * 48 * 4), *cpu = malloc(N * 48 * 4);
    memset(gpu, 0, N * 48 * 4), memset(cpu, 1, N * 48 * 4);
    dmls_batch_input in[2] = {{img, 3 * 40 * 36 * 4}, {starts, sizeof starts}};
    dmls_batch_output out = {gpu, N * 48 * 4}, out_cpu = {cpu, N * 48 * 4};
    emulate_batch(b, in, &out, "emulated crops");
    CHECK_STATUS(dmls_batch_execute(b, NULL, in, 2, &out_cpu, 1), DMLS_OK);
    CHECK(memcmp(gpu, cpu, N * 48 * 4) == 0, "R-CROP-BOUNDS: emulated clamped crops equal the CPU's");
    dmls_batch_destroy(b);

    const int64_t s2[2] = {6, 1000};
    const dmls_tensor t2 = {DMLS_UINT16, 2, s2, NULL, 0};
    const int64_t parts[5] = {200, 200, 200, 200, 200};
    CHECK_STATUS(dmls_batch_create_split(&t2, 1, parts, 5, 1, &b), DMLS_OK);
    for (int mis = 0; mis < 3; mis++) {
        unsigned char *src = malloc(12000 + 16), *a = malloc(12000 + 16), *c = malloc(12000 + 16);
        test_fill_random(src, 12016);
        memset(a, 0, 12016), memset(c, 0, 12016);
        dmls_batch_input si[2] = {{src + 2 * mis, 12000}, {NULL, 0}}; /* [1]: no starts, as slot arrays go */
        dmls_batch_output ga = {a + 2 * (2 - mis), 12000}, gc = {c + 2 * (2 - mis), 12000};
        emulate_batch(b, si, &ga, "emulated split");
        CHECK_STATUS(dmls_batch_execute(b, NULL, si, 1, &gc, 1), DMLS_OK);
        CHECK(memcmp(a, c, 12016) == 0, "R-SPLIT-SUM: emulated split at misalignment %d equals the CPU's", mis);
        free(src), free(a), free(c);
    }
    dmls_batch_destroy(b);
    free(img), free(gpu), free(cpu);
}

/* Reversed rows of every element size (the REVERSE launch: one 16-byte load
 * per 16 output bytes), and the same rows with a 4-byte step (GATHER),
 * emulated against the CPU executor. */
static void test_emulated_reverse(void) {
    dmls_operator *ops[8];
    dmls_batch_item items[8];
    for (int k = 0; k < 8; k++) {
        const int64_t shape[2] = {5, 64}, off[2] = {0, 0}, size[2] = {5, 64};
        const int64_t step[2] = {1, k < 4 ? -1 : 2}, out_shape[2] = {5, k < 4 ? 64 : 32};
        const dmls_dtype dt = test_dtype_of_size(1 << (k % 4));
        const dmls_tensor in = {dt, 2, shape, NULL, 0}, out = {dt, 2, out_shape, NULL, 0};
        const dmls_window w = {off, size, step};
        CHECK_STATUS(dmls_create(&in, &out, &w, &ops[k]), DMLS_OK);
        items[k].op = ops[k];
        items[k].in_slot = 0, items[k].in_offset = 0;
        items[k].out_slot = 0, items[k].out_offset = (uint64_t)k * 5 * 64 * 8;
    }
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create(items, 8, 1, 1, &b), DMLS_OK);
    _Alignas(16) static unsigned char src[5 * 64 * 8], a[8 * 5 * 64 * 8], c[8 * 5 * 64 * 8];
    test_fill_random(src, sizeof src);
    memset(a, 0, sizeof a), memset(c, 1, sizeof c);
    const dmls_batch_input in = {src, sizeof src};
    const dmls_batch_output oa = {a, sizeof a}, oc = {c, sizeof c};
    emulate_batch(b, &in, &oa, "emulated reverse");
    memcpy(c, a, sizeof c);
    for (int k = 0; k < 8; k++) memset(c + items[k].out_offset, 0xEE, dmls_output_bytes(ops[k]));
    CHECK_STATUS(dmls_batch_execute(b, NULL, &in, 1, &oc, 1), DMLS_OK);
    CHECK(memcmp(a, c, sizeof a) == 0, "R-B-ITEM: emulated reversed and strided rows equal the CPU's");
    dmls_batch_destroy(b);
    for (int k = 0; k < 8; k++) dmls_destroy(ops[k]);
}

/* Runs batch b (one output slot of out_bytes) from host inputs on the CPU,
 * through the emulated kernel and, when gpu, on the device (the inputs
 * copied there); every result must equal the CPU's byte for byte. */
static void three_ways(dmls_batch *b, const dmls_batch_input *in, uint32_t n_in, uint64_t out_bytes, bool gpu,
                       const char *label) {
    unsigned char *cpu = malloc(out_bytes), *emu = malloc(out_bytes), *dev = malloc(out_bytes);
    memset(cpu, 0x11, out_bytes), memset(emu, 0x22, out_bytes), memset(dev, 0x33, out_bytes);
    const dmls_batch_output oc = {cpu, out_bytes}, oe = {emu, out_bytes};
    CHECK_STATUS(dmls_batch_execute(b, NULL, in, n_in, &oc, 1), DMLS_OK);
    emulate_batch(b, in, &oe, label);
    CHECK(memcmp(cpu, emu, out_bytes) == 0, "%s: emulated equals the CPU's", label);
    if (gpu) {
        dmls_batch_input din[2];
        for (uint32_t s = 0; s < n_in; s++) {
            void *d;
            CU(cudaMalloc(&d, in[s].bytes));
            CU(cudaMemcpy(d, in[s].data, in[s].bytes, cudaMemcpyHostToDevice));
            din[s].data = d, din[s].bytes = in[s].bytes;
        }
        void *d_out;
        CU(cudaMalloc(&d_out, out_bytes));
        CU(cudaMemset(d_out, 0x33, out_bytes));
        const dmls_batch_output od = {d_out, out_bytes};
        CHECK_STATUS(dmls_batch_prepare_cuda(b), DMLS_OK);
        CHECK_STATUS(dmls_batch_execute_cuda(b, din, n_in, &od, 1, NULL), DMLS_OK);
        CU(cudaMemcpy(dev, d_out, out_bytes, cudaMemcpyDeviceToHost));
        CHECK(memcmp(cpu, dev, out_bytes) == 0, "%s: the GPU's equals the CPU's", label);
        for (uint32_t s = 0; s < n_in; s++) CU(cudaFree((void *)(uintptr_t)din[s].data));
        CU(cudaFree(d_out));
    }
    free(cpu), free(emu), free(dev);
}

/* Streaming launches (rows of 16-byte vectors, batch_rules.h): KV-cache
 * pages picked by bound starts (some out of range: clamped, R-CROP-BOUNDS),
 * pages of one tile and of more than one block, and a split into uneven
 * parts whose rows stream (R-SPLIT-SUM); then the same split at a base
 * misaligned for 16-byte vectors, which falls back to 4-byte units. */
static void test_streams(bool gpu) {
    const int64_t pages[2][4] = {{12, 16, 8, 128}, {12, 20, 8, 128}}; /* 32 KiB: one tile; 40 KiB: two blocks */
    for (int k = 0; k < 2; k++) {
        const int64_t size[4] = {1, pages[k][1], 8, 128};
        const uint64_t page = (uint64_t)pages[k][1] * 8 * 128 * 2, cache = 12 * page;
        const dmls_tensor t = {DMLS_FLOAT16, 4, pages[k], NULL, 0};
        enum { N = 20 };
        int32_t starts[N * 4] = {0};
        for (int i = 0; i < N; i++) starts[4 * i] = (int32_t)test_range(-3, 15);
        dmls_batch *b = NULL;
        CHECK_STATUS(dmls_batch_create_crops(&t, size, N, NULL, DMLS_STARTS_INT32, &b), DMLS_OK);
        if (b == NULL) continue;
        dmls_cuda_batch_plan p;
        CHECK_STATUS(dmls_cuda_batch_plan_build(b, &p), DMLS_OK);
        CHECK(dmls_cuda_batch_streams(&p.ops[0].copy[0]), "KV page %d: the best launch streams", k);
        CHECK(p.blocks[1] == (uint64_t)N * (k + 1), "KV page %d: %llu blocks", k, (unsigned long long)p.blocks[1]);
        check_plan(&p, "KV pages");
        CHECK(p.layout[1].group == 1 && p.layout[1].per_entry == (uint32_t)k + 1 && p.layout[1].op == 0 &&
                  p.layout[1].dense == 1,
              "KV page %d: regular layout (group %u, per entry %u, op %d, dense %d)", k, p.layout[1].group,
              p.layout[1].per_entry, p.layout[1].op, p.layout[1].dense);
        /* The streaming kernel runs it at aligned bases (the starts' slot,
         * read by no entry, may lie anywhere); a base misaligned for
         * 16-byte vectors sends it to the general kernel. */
        const uint64_t aligned[3] = {0x10000, 0x20004, 0x30000}, odd_in[3] = {0x10008, 0x20000, 0x30000},
                       odd_out[3] = {0x10000, 0x20000, 0x30004};
        CHECK(dmls_cuda_batch_uniform(&p, 1, aligned) && !dmls_cuda_batch_uniform(&p, 1, odd_in) &&
                  !dmls_cuda_batch_uniform(&p, 1, odd_out) && !dmls_cuda_batch_uniform(&p, 0, aligned),
              "KV page %d: the streaming kernel at aligned bases only", k);
        dmls_cuda_batch_plan_free(&p);
        unsigned char *c = malloc(cache);
        test_fill_random(c, cache);
        const dmls_batch_input in[2] = {{c, cache}, {starts, sizeof starts}};
        three_ways(b, in, 2, N * page, gpu, k ? "R-CROP-BOUNDS KV pages of two blocks" : "R-CROP-BOUNDS KV pages");
        free(c);
        dmls_batch_destroy(b);
    }
    /* A phase of many waves (planned only: 2 GiB): each block runs
     * DMLS_CUDA_BATCH_TRIPS tiles of its part, a part's 8,192 rows of 32 KiB
     * taking 1,024 blocks. */
    const int64_t huge[2] = {8192, 65536}, eighths[8] = {8192, 8192, 8192, 8192, 8192, 8192, 8192, 8192};
    const dmls_tensor th = {DMLS_FLOAT32, 2, huge, NULL, 0};
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create_split(&th, 1, eighths, 8, 0, &b), DMLS_OK);
    if (b != NULL) {
        dmls_cuda_batch_plan p;
        CHECK_STATUS(dmls_cuda_batch_plan_build(b, &p), DMLS_OK);
        check_plan(&p, "split of many waves");
        CHECK(p.blocks[1] == 8 * 8192 / DMLS_CUDA_BATCH_TRIPS, "split of many waves: %llu blocks",
              (unsigned long long)p.blocks[1]);
        dmls_cuda_batch_plan_free(&p);
        dmls_batch_destroy(b);
    }
    const int64_t shape[2] = {48, 3000}, parts[4] = {1000, 1000, 512, 488};
    const dmls_tensor t = {DMLS_FLOAT32, 2, shape, NULL, 0};
    CHECK_STATUS(dmls_batch_create_split(&t, 1, parts, 4, 1, &b), DMLS_OK);
    if (b == NULL) return;
    unsigned char *x = malloc(48 * 3000 * 4 + 4);
    test_fill_random(x, 48 * 3000 * 4 + 4);
    for (int mis = 0; mis < 2; mis++) {
        const dmls_batch_input in[2] = {{x + 4 * mis, 48 * 3000 * 4},
                                        {NULL, 0}}; /* [1]: no starts, as slot arrays go */
        three_ways(b, in, 1, 48 * 3000 * 4, gpu,
                   mis ? "R-SPLIT-SUM split, misaligned" : "R-SPLIT-SUM split, streaming");
    }
    free(x);
    dmls_batch_destroy(b);
}

/* Groups: tiny items fill blocks DMLS_CUDA_BATCH_GROUP at a time, a
 * non-tiny item closes the open group and takes blocks of its own, the next
 * tiny item opens a new group. 17 tiny, 1 big, 9 tiny: blocks [8][8][1]
 * [big] [8][1], and the map sends each block to its first entry; run
 * emulated against the CPU (R-B-ITEM). */
static void test_groups(bool gpu) {
    const int64_t tiny_shape[1] = {4}, big_shape[1] = {4096};
    const dmls_tensor tin = {DMLS_FLOAT32, 1, tiny_shape, NULL, 0}, bin = {DMLS_FLOAT32, 1, big_shape, NULL, 0};
    const int64_t zero[1] = {0}, one[1] = {1};
    const dmls_window tw = {zero, tiny_shape, one}, bw = {zero, big_shape, one};
    dmls_operator *tiny = NULL, *big = NULL;
    CHECK_STATUS(dmls_create(&tin, &tin, &tw, &tiny), DMLS_OK);
    CHECK_STATUS(dmls_create(&bin, &bin, &bw, &big), DMLS_OK);
    enum { N = 27 };
    dmls_batch_item items[N];
    uint64_t at = 0;
    for (int i = 0; i < N; i++) {
        items[i].op = i == 17 ? big : tiny;
        items[i].in_slot = items[i].out_slot = 0;
        items[i].in_offset = items[i].out_offset = at;
        at += i == 17 ? 4096 * 4 : 16;
    }
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create(items, N, 1, 1, &b), DMLS_OK);
    if (b != NULL) {
        dmls_cuda_batch_plan p;
        CHECK_STATUS(dmls_cuda_batch_plan_build(b, &p), DMLS_OK);
        check_plan(&p, "groups");
        static const uint32_t want[7] = {0, 8, 16, 17, 18, 26, 27};
        bool same = p.blocks[1] == 6;
        for (int k = 0; same && k < 7; k++) same = p.map[1][k] == want[k];
        CHECK(same, "groups: 6 blocks mapped to entries 0 8 16 17 18 26 (27 in all): %llu blocks",
              (unsigned long long)p.blocks[1]);
        CHECK(p.layout[1].group == 0 && p.layout[1].op == -1 && p.layout[1].dense == 1,
              "groups: a big item among tiny ones reads the map (group %u, op %d)", p.layout[1].group, p.layout[1].op);
        dmls_cuda_batch_plan_free(&p);
        unsigned char *x = malloc(at);
        test_fill_random(x, at);
        const dmls_batch_input in[2] = {{x, at}, {NULL, 0}};
        three_ways(b, in, 1, at, gpu, "R-B-ITEM groups of tiny items around a big one");
        free(x);
    }
    dmls_batch_destroy(b);
    dmls_destroy(tiny), dmls_destroy(big);
}

/* The slot limit: more than DMLS_BATCH_CUDA_MAX_SLOTS is refused by name. */
static void test_slot_limit(void) {
    batch_case c;
    batch_case_make(&c, 65, 2, true); /* 130 slots */
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create(c.items, c.n, c.in_slots, c.out_slots, &b), DMLS_OK);
    dmls_cuda_batch_plan p;
    CHECK_STATUS(dmls_cuda_batch_plan_build(b, &p), DMLS_ERROR_UNSUPPORTED);
    CHECK(strstr(dmls_last_error(), "DMLS_BATCH_CUDA_MAX_SLOTS") != NULL, "limit named: %s", dmls_last_error());
    dmls_batch_destroy(b);
    batch_case_free(&c);
}

/* ------------------------------------------------------------ on the GPU */

/* Copies a case's slots to the device, runs the batch there (directly, or
 * captured in a graph and replayed twice), copies the outputs back. */
static void run_on_gpu(const dmls_batch *b, const batch_case *c, batch_buffers *bb, bool graph) {
    dmls_batch_input *din = calloc(c->in_slots + 1, sizeof *din);
    dmls_batch_output *dout = calloc(c->out_slots + 1, sizeof *dout);
    for (uint32_t s = 0; s < c->in_slots; s++) {
        void *d;
        CU(cudaMalloc(&d, c->in_bytes[s] + 16));
        CU(cudaMemcpy(d, bb->in[s], c->in_bytes[s] + 16, cudaMemcpyHostToDevice));
        din[s].data = d, din[s].bytes = c->in_bytes[s];
    }
    for (uint32_t s = 0; s < c->out_slots; s++) {
        void *d;
        CU(cudaMalloc(&d, c->out_bytes[s] + 16));
        CU(cudaMemcpy(d, bb->out[s], c->out_bytes[s] + 16, cudaMemcpyHostToDevice));
        dout[s].data = d, dout[s].bytes = c->out_bytes[s];
    }
    cudaStream_t st;
    CU(cudaStreamCreate(&st));
    if (graph) {
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CU(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
        CHECK_STATUS(dmls_batch_execute_cuda(b, din, c->in_slots, dout, c->out_slots, st), DMLS_OK);
        CU(cudaStreamEndCapture(st, &g));
        CU(cudaGraphInstantiate(&ge, g, 0));
        CU(cudaGraphLaunch(ge, st));
        CU(cudaGraphLaunch(ge, st));
        CU(cudaGraphExecDestroy(ge));
        CU(cudaGraphDestroy(g));
    } else {
        CHECK_STATUS(dmls_batch_execute_cuda(b, din, c->in_slots, dout, c->out_slots, st), DMLS_OK);
    }
    CU(cudaStreamSynchronize(st));
    CU(cudaStreamDestroy(st));
    for (uint32_t s = 0; s < c->out_slots; s++)
        CU(cudaMemcpy(bb->out[s], dout[s].data, c->out_bytes[s] + 16, cudaMemcpyDeviceToHost));
    for (uint32_t s = 0; s < c->in_slots; s++) CU(cudaFree((void *)(uintptr_t)din[s].data));
    for (uint32_t s = 0; s < c->out_slots; s++) CU(cudaFree(dout[s].data));
    free(din), free(dout);
}

/* Runs the batch of case c (then freed) on the GPU, in a CUDA graph if
 * graph, and compares its outputs with the items run one by one. */
static void gpu_case(batch_case *c, bool graph, const char *what) {
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create(c->items, c->n, c->in_slots, c->out_slots, &b), DMLS_OK);
    if (b && dmls_batch_prepare_cuda(b) == DMLS_OK) {
        batch_buffers bb;
        batch_buffers_make(&bb, c);
        unsigned char **ref = batch_case_oracle(c, &bb);
        run_on_gpu(b, c, &bb, graph);
        batch_case_same(c, bb.out, ref, what);
        batch_oracle_free(c, ref);
        batch_buffers_free(&bb);
    }
    dmls_batch_destroy(b);
    batch_case_free(c);
}

/* R-B-ITEM on the device: random batches, directly and in a CUDA graph. */
static void test_gpu_batches(void) {
    for (int round = 0; round < 60; round++) {
        batch_case c;
        const size_t n = round == 59 ? 100000 : (size_t)test_range(0, 300);
        batch_case_make(&c, n, (size_t)test_range(1, 12), round % 9 == 0 && n <= 60);
        const bool graph = round % 3 == 1;
        gpu_case(&c, graph, graph ? "R-B-ITEM GPU batch in a CUDA graph" : "R-B-ITEM GPU batch");
    }
}

/* R-B-ITEM on the device: batches mixing permuted and plain items
 * (tiled copies as batch items), directly and in a CUDA graph. */
static void test_gpu_permuted(void) {
    for (int round = 0; round < 24; round++) {
        batch_case c;
        batch_case_make_with(&c, (size_t)test_range(1, 40), (size_t)test_range(1, 6), round % 4 == 0,
                             batch_case_mixed_op);
        gpu_case(&c, round % 3 == 1, "R-B-ITEM GPU batch of permuted and plain items");
    }
}

/* R-CROP-BOUNDS on the device: starts in device memory, clamped, against the CPU. */
static void test_gpu_device_starts(void) {
    const int64_t shape[3] = {3, 512, 512}, size[3] = {3, 4, 4};
    const dmls_tensor t = {DMLS_FLOAT32, 3, shape, NULL, 0};
    enum { N = 1024 };
    const size_t img_bytes = 3 * 512 * 512 * 4;
    float *img = malloc(img_bytes);
    for (size_t i = 0; i < img_bytes / 4; i++) img[i] = (float)i;
    int64_t *starts = malloc(N * 3 * 8);
    for (int i = 0; i < N * 3; i++) starts[i] = test_range(-3, 512);
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create_crops(&t, size, N, NULL, DMLS_STARTS_INT64, &b), DMLS_OK);
    CHECK_STATUS(dmls_batch_prepare_cuda(b), DMLS_OK);
    void *d_img, *d_starts, *d_out;
    CU(cudaMalloc(&d_img, img_bytes));
    CU(cudaMalloc(&d_starts, N * 3 * 8));
    CU(cudaMalloc(&d_out, N * 48 * 4));
    CU(cudaMemcpy(d_img, img, img_bytes, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(d_starts, starts, N * 3 * 8, cudaMemcpyHostToDevice));
    dmls_batch_input din[2] = {{d_img, img_bytes}, {d_starts, N * 3 * 8}};
    dmls_batch_output dout = {d_out, N * 48 * 4};
    CHECK_STATUS(dmls_batch_execute_cuda(b, din, 2, &dout, 1, NULL), DMLS_OK);
    float *got = malloc(N * 48 * 4), *want = malloc(N * 48 * 4);
    CU(cudaMemcpy(got, d_out, N * 48 * 4, cudaMemcpyDeviceToHost));
    dmls_batch_input hin[2] = {{img, img_bytes}, {starts, N * 3 * 8}};
    dmls_batch_output hout = {want, N * 48 * 4};
    CHECK_STATUS(dmls_batch_execute(b, NULL, hin, 2, &hout, 1), DMLS_OK);
    CHECK(memcmp(got, want, N * 48 * 4) == 0, "R-CROP-BOUNDS: device-held starts clamp as the CPU's");
    /* A binding error enqueues nothing: the output keeps its bytes. */
    CU(cudaMemset(d_out, 0x3C, N * 48 * 4));
    dout.bytes = N * 48 * 4 - 1;
    CHECK_STATUS(dmls_batch_execute_cuda(b, din, 2, &dout, 1, NULL), DMLS_ERROR_BUFFER_TOO_SMALL);
    CU(cudaMemcpy(got, d_out, N * 48 * 4, cudaMemcpyDeviceToHost));
    CHECK(((unsigned char *)got)[0] == 0x3C && ((unsigned char *)got)[N * 48 * 4 - 1] == 0x3C, "nothing enqueued");
    CU(cudaFree(d_img));
    CU(cudaFree(d_starts));
    CU(cudaFree(d_out));
    free(img), free(starts), free(got), free(want);
    dmls_batch_destroy(b);
}

int main(void) {
    batch_seed(12);
    (void)emulate_op; /* emulator.h's single-operator replay: test_cuda's */
    test_emulated_batches();
    test_emulated_crops_and_split();
    test_emulated_reverse();
    test_emulated_permuted();
    test_slot_limit();
    test_streams(false);
    test_groups(false);
    CHECK(emulated_uniform > 0, "no emulated phase ran as the streaming kernel's");
    if (!dmls_cuda_available()) {
        dmls_batch *b = NULL;
        CHECK_STATUS(dmls_batch_create(NULL, 0, 0, 0, &b), DMLS_OK);
        CHECK_STATUS(dmls_batch_prepare_cuda(b), DMLS_ERROR_NO_DEVICE);
        CHECK_STATUS(dmls_batch_execute_cuda(b, NULL, 0, NULL, 0, NULL), DMLS_ERROR_INVALID_ARGUMENT);
        dmls_batch_destroy(b);
        TEST_MAIN_END_SKIP();
    }
    test_gpu_batches();
    test_gpu_permuted();
    test_gpu_device_starts();
    test_streams(true);
    test_groups(true);
    TEST_MAIN_END();
}
