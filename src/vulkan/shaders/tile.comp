#version 450
// A transposed copy (a plan with a tile dim, src/copy_plan.h) through
// shared memory, one workgroup per tile: A is the dim the output walks
// fastest (contiguous, the launch's dim 0), B the one the input walks
// fastest (the launch's dim 1). A tile is TA elements of A (WA = 32 output
// words) by TB elements of B. The load phase reads along B, so
// neighbouring invocations read neighbouring input bytes; the store phase
// writes along A, one whole output word per invocation, so neighbouring
// invocations write neighbouring words and no two write one word (prepare.c
// gives 1- and 2-byte elements a tile only where every output row is whole
// words). Elements of 1 and 2 bytes are read as the word holding them and
// packed 4 or 2 to a word before they reach shared memory; 8-byte elements
// move as two words. Positions are bytes; the walk (walk.glsl) gives each
// tile's first element, run and step the launch's extents of A and B (the
// last tiles along each are partial).
#include "walk.glsl"

layout(constant_id = 2) const uint ESIZE = 4u;

layout(std430, set = 0, binding = 0) restrict readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) restrict writeonly buffer Dst { uint dst[]; };

// src/vulkan/launch.h (dmls_vk_tile_a, dmls_vk_tile_b) must agree.
const uint WA = 32u;
const uint TA = WA * 4u / ESIZE;
const uint TB = ESIZE == 1u ? 64u : 128u / ESIZE;
// A row of the tile (one B) is WA words plus one: the load phase writes
// down a column (neighbouring B), which the odd pitch spreads over the
// banks; the store phase reads along a row.
const uint PITCH = WA + 1u;
shared uint tile[64u * (32u + 1u)]; // TB * PITCH at its largest (1-byte elements)

// Output word w of B-row b of the tile at source byte s: the element (or
// the 4 / ESIZE elements, packed) of A that the word holds.
uint load_word(uint s, uint w, uint b, uint sa, uint sb) {
    if (ESIZE >= 4u) {
        const uint a = w / (ESIZE / 4u), h = w % (ESIZE / 4u);
        return src[(s + a * sa + b * sb + h * 4u) >> 2];
    }
    const uint k = 4u / ESIZE, mask = (1u << (8u * ESIZE)) - 1u;
    uint v = 0u;
    [[unroll]] for (uint j = 0u; j < k; j++) {
        const uint at = s + (w * k + j) * sa + b * sb;
        v |= ((src[at >> 2] >> ((at & 3u) * 8u)) & mask) << (j * 8u * ESIZE);
    }
    return v;
}

void main() {
    const uint wg = gl_WorkGroupSize.x, me = gl_LocalInvocationID.x;
    const uint na = p.run, nb = p.step;
    const uint tiles_a = (na + TA - 1u) / TA, tiles_b = (nb + TB - 1u) / TB;
    // The in-tile byte strides from the walk's steps (level 0 steps by TA
    // elements of A, level 1 by TB of B less a row of A tiles); prepare.c
    // keeps TA * |sa|, TB * |sb| and TB * db below 2^25, so they divide
    // exactly as signed 32-bit values.
    const uint sa = uint(int(p.src_step[0]) / int(TA));
    const uint sb = uint(int(p.src_step[1] + tiles_a * p.src_step[0]) / int(TB));
    const uint db = uint(int(p.dst_step[1] + tiles_a * p.dst_step[0]) / int(TB));
    for (uint t = gl_WorkGroupID.x; t < p.count; t += gl_NumWorkGroups.x) {
        uint s, d;
        walk(t, s, d);
        const uint ia = t % tiles_a, ib = (t / tiles_a) % tiles_b;
        const uint ea = min(TA, na - ia * TA), eb = min(TB, nb - ib * TB);
        const uint wa = ea * ESIZE / 4u; // whole words: prepare.c
        for (uint i = me; i < TB * WA; i += wg) {
            const uint b = i % TB, w = i / TB;
            if (b < eb && w < wa) tile[b * PITCH + w] = load_word(s, w, b, sa, sb);
        }
        barrier();
        for (uint i = me; i < TB * WA; i += wg) {
            const uint w = i % WA, b = i / WA;
            if (b < eb && w < wa) dst[((d + b * db) >> 2) + w] = tile[b * PITCH + w];
        }
        barrier(); // the next tile reuses the shared array
    }
}
