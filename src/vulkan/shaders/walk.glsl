// What the walking shaders (units.comp, reverse.comp, gather.comp) share:
// their push constants (src/vulkan/launch.h, dmls_vk_walk, must match them
// field for field), their tuning and the walk from an item's index to its
// positions. All arithmetic is 32-bit: execute splits work so that every
// position lies inside one binding (at most 4 GiB - 1 bytes,
// maxStorageBufferRange) and a dispatch has fewer than 2^31 items, where
// the multipliers are exact; negative steps are two's complement and wrap
// back into range.
#extension GL_EXT_control_flow_attributes : require
#define DMLS_VK_MAX_DIMS 8
#define DMLS_VK_WALK_FILL 16u // info: write zeros; the source binding is not read

// Each side (binding 0, the source; binding 1, the destination) is an
// array of SLOTS storage buffers: 1, or in a batch's multi-slot form
// (-DSLOTS=8, launch.h: DMLS_VK_BATCH_SLOTS) one per slot its dispatch
// binds, so that a split into several output slots is one dispatch.
// Without shaderStorageBufferArrayDynamicIndexing (a feature dmlslice
// does not require) such an array may be indexed only by constant
// expressions, so DMLS_VK_EACH(s, X) runs X(0) .. X(SLOTS - 1), each with
// its literal index, in a switch on the slot s (uniform over a workgroup:
// its tile's entry's), around whole loops where it can, so that a loop
// still issues all its loads before its stores.
// tests/vulkan/check_spirv_indexing.py checks the compiled SPIR-V.
#ifndef SLOTS
#define SLOTS 1
#endif
#if SLOTS == 1
#define DMLS_VK_EACH(s, X) { X(0) }
#elif SLOTS == 8
#define DMLS_VK_EACH(s, X)                                                                     \
    switch (s) {                                                                               \
    case 0u: X(0) break;                                                                       \
    case 1u: X(1) break;                                                                       \
    case 2u: X(2) break;                                                                       \
    case 3u: X(3) break;                                                                       \
    case 4u: X(4) break;                                                                       \
    case 5u: X(5) break;                                                                       \
    case 6u: X(6) break;                                                                       \
    default: X(7) break;                                                                       \
    }
#else
#error SLOTS is 1 or 8 (src/vulkan/launch.h: DMLS_VK_BATCH_SLOTS)
#endif

// The walk's fields: count (items), info (ndim 1..8 | DMLS_VK_WALK_FILL),
// src_base and dst_base (the first item's positions, in the shader's
// units), the levels' shifts, multipliers and steps, and gather.comp's
// pattern of an item's elements (run, step, row_step, in bytes).
#define DMLS_VK_WALK_FIELDS                                                                    \
    uint count;                                                                                \
    uint info;                                                                                 \
    uint src_base;                                                                             \
    uint dst_base;                                                                             \
    uint shifts[2];                                                                            \
    uint magic[DMLS_VK_MAX_DIMS - 1];                                                          \
    uint src_step[DMLS_VK_MAX_DIMS];                                                           \
    uint dst_step[DMLS_VK_MAX_DIMS];                                                           \
    uint run, step, row_step;

#ifndef BATCH
layout(push_constant, std430) uniform Walk { DMLS_VK_WALK_FIELDS } p;
const uint in_slot = 0u, out_slot = 0u; // one binding each side
#else
// A batch (src/vulkan/batch_table.c, launch.h: dmls_vk_entry): one
// dispatch runs many launches of this shader, each an entry of a table
// (its walk, and the first of its tiles among the dispatch's), between two
// slots bound whole; the push constants say which entries and where the
// slots start in their bindings.
struct Walk { DMLS_VK_WALK_FIELDS };
struct Entry {
    Walk w;
    uint first_tile;
    uint in_slot, out_slot; // its slots' places among the dispatch's bindings
};
layout(std430, set = 0, binding = 2) restrict readonly buffer Table { Entry table[]; };
// Crops whose starts are bound at execute: rows of rank 4- or 8-byte
// integers (little-endian, two's complement), read here and clamped.
layout(std430, set = 0, binding = 3) restrict readonly buffer Starts { uint starts[]; };
layout(push_constant, std430) uniform Batch {
    uint first;     // the dispatch's first entry
    uint entries;   // how many
    uint tiles;     // the tiles of them all
    // Each slot's first byte in its binding, in the shader's units, below
    // 256 (a binding starts at the slot's offset rounded down to
    // minStorageBufferOffsetAlignment, at most 256): slot k's in byte k % 4
    // of word k / 4.
    uint src_shifts[2];
    uint dst_shifts[2];
    // Crops with bound starts (rank 0: none): an entry's src_base is its
    // crop's number, its source position base + sum(clamp(start[k]) *
    // stride[k]) bytes, clamped to [0, limit[k]] (R-CROP-BOUNDS).
    uint rank;
    uint wide;         // 1: 8-byte starts
    uint src_unit;     // bytes per source unit
    uint starts_shift; // the starts' first word in their binding
    uint base;
    // Every entry of per tiles (0: they differ): a tile's entry is
    // first + t / per, by multiply-high (launch.h: dmls_vk_batch_push).
    uint per;
    uint per_magic;
    uint per_shift;
    uint limit[DMLS_VK_MAX_DIMS];
    uint stride[DMLS_VK_MAX_DIMS];
} b;
Walk p;                 // the entry of the tile being run
uint in_slot, out_slot; // and its slots' places in the arrays of bindings
#endif

// Chosen at pipeline creation (src/vulkan/pipelines.c): invocations per
// workgroup, and items per invocation, whose loads are all issued before
// their stores so that each invocation keeps that many in flight.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ITEMS = 4u;

// Level k's coordinate-free index q[k] = q[k-1] / shape[k-1] by
// multiply-high (launch.h: dmls_vk_walk), so the positions are the bases
// plus sum(q[k] * step[k]): no division, no shape.
void walk(uint i, out uint s, out uint d) {
    s = p.src_base + i * p.src_step[0];
    d = p.dst_base + i * p.dst_step[0];
    const uint n = p.info & 15u;
    uint q = i;
    [[unroll]] for (uint k = 1u; k < DMLS_VK_MAX_DIMS; k++) {
        if (k >= n) break;
        uint hi, lo;
        umulExtended(q, p.magic[k - 1u], hi, lo);
        q = (hi + q) >> ((p.shifts[(k - 1u) >> 2] >> (((k - 1u) & 3u) * 8u)) & 31u);
        s += q * p.src_step[k];
        d += q * p.dst_step[k];
    }
}

#ifndef BATCH
// Each shader's main, running its tiles with run(base): a grid-stride loop
// over the launch's tiles (the dispatch is capped at
// maxComputeWorkGroupCount).
#define DMLS_VK_MAIN(run)                                                                      \
    void main() {                                                                              \
        const uint tile = gl_WorkGroupSize.x * ITEMS;                                          \
        for (uint base = gl_WorkGroupID.x * tile; base < p.count; base += gl_NumWorkGroups.x * tile) run(base); \
    }
#else
// Crop i's source position, in the shader's units. Every start is loaded
// before any is used, so their loads overlap rather than follow one
// another (a loop to b.rank would use each before issuing the next); a
// dim the crop covers whole (limit 0: a KV cache's rows within a page)
// clamps to 0 whatever its start, so it loads nothing.
uint crop_position(uint i) {
    uint lo[DMLS_VK_MAX_DIMS], hi[DMLS_VK_MAX_DIMS];
    [[unroll]] for (uint k = 0u; k < DMLS_VK_MAX_DIMS; k++) {
        lo[k] = 0u, hi[k] = 0u;
        if (k < b.rank && b.limit[k] != 0u) {
            const uint e = b.starts_shift + (i * b.rank + k) * (b.wide + 1u);
            lo[k] = starts[e];
            if (b.wide != 0u) hi[k] = starts[e + 1u];
        }
    }
    uint at = b.base;
    [[unroll]] for (uint k = 0u; k < DMLS_VK_MAX_DIMS; k++) {
        const uint h = b.wide != 0u ? hi[k] : ((lo[k] & 0x80000000u) != 0u ? ~0u : 0u);
        const uint v = (h & 0x80000000u) != 0u ? 0u : (h != 0u || lo[k] > b.limit[k]) ? b.limit[k] : lo[k];
        if (k < b.rank) at += v * b.stride[k];
    }
    return at / b.src_unit;
}

// Tile t of the dispatch: the last entry whose first tile is at most t
// (entries of no items are left out of the table), made the walk p with
// the slots' shifts; returns t's place among that entry's tiles. Where
// every entry has as many tiles (crops, a KV cache's pages) the entry is
// a quotient, so the first load a workgroup waits on is its entry, not
// the log2(entries) dependent loads of the search (the KV gather: 9).
uint batch_tile(uint t) {
    uint lo = b.first, at = 0u;
    if (b.per != 0u) {
        uint hi, low;
        umulExtended(t, b.per_magic, hi, low);
        const uint k = (hi + t) >> b.per_shift;
        lo += k, at = t - k * b.per;
    } else {
        uint hi = b.first + b.entries - 1u;
        while (lo < hi) {
            const uint mid = (lo + hi + 1u) >> 1;
            if (table[mid].first_tile <= t)
                lo = mid;
            else
                hi = mid - 1u;
        }
        at = t - table[lo].first_tile;
    }
    p = table[lo].w;
    in_slot = table[lo].in_slot, out_slot = table[lo].out_slot;
    if (b.rank != 0u) p.src_base = crop_position(p.src_base);
    p.src_base += (b.src_shifts[in_slot >> 2] >> ((in_slot & 3u) * 8u)) & 255u;
    p.dst_base += (b.dst_shifts[out_slot >> 2] >> ((out_slot & 3u) * 8u)) & 255u;
    return at;
}
#define DMLS_VK_MAIN(run)                                                                      \
    void main() {                                                                              \
        for (uint t = gl_WorkGroupID.x; t < b.tiles; t += gl_NumWorkGroups.x)                  \
            run(batch_tile(t) * gl_WorkGroupSize.x * ITEMS);                                   \
    }
#endif
