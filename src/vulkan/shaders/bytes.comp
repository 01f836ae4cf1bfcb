#version 450
// Any element size at any byte position, on devices without 8- or 16-bit
// storage: each invocation item owns one 32-bit word of the destination and
// finds, for each of its 4 bytes, which element byte (if any) lies there.
// Destination layouts nest (R-T-OUTLAYOUT; prepare.c checks it), so a
// byte's coordinates follow from dividing by the strides outermost first.
// Bytes of the word outside the tensor keep their value; the word is stored
// only when one of its bytes changes.
#include "params.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) buffer Dst { uint dst[]; };

// Where destination byte `pos` comes from: false when no element lies
// there; else the element's inner coordinate c0, the byte's index r in its
// element and its source byte position src (unused for a fill).
bool locate(uint pos, out uint c0, out uint r, out uint src) {
    c0 = 0u, r = 0u, src = 0u;
    if (pos < p.dst_base) return false;
    uint rel = pos - p.dst_base, s = p.src_base;
    for (int k = int(p.ndim) - 1; k >= 0; k--) {
        const uint c = rel / p.dst_stride[k];
        if (c >= p.shape[k]) return false;
        rel -= c * p.dst_stride[k];
        s += c * p.src_stride[k];
        c0 = c;
    }
    if (rel >= p.esize) return false;
    r = rel;
    src = s + rel;
    return true;
}

void main() {
    const uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    const uint first = p.dst_base >> 2;
    const bool fill = (p.flags & DMLS_VK_FILL) != 0u;
    // A contiguous inner run lets the next byte follow from this one, so
    // the divisions run once per word rather than once per byte.
    const bool run = p.dst_stride[0] == p.esize;
    for (uint i = gl_GlobalInvocationID.x; i < p.count; i += step) {
        const uint w = first + i;
        const uint old = dst[w];
        uint word = old, c0 = 0u, r = 0u, s = 0u;
        bool have = false;
        for (uint b = 0u; b < 4u; b++) {
            if (have && r + 1u < p.esize) {
                r++, s++;
            } else if (have && run && c0 + 1u < p.shape[0]) {
                c0++, r = 0u, s += p.src_stride[0] - (p.esize - 1u);
            } else {
                have = locate(w * 4u + b, c0, r, s);
            }
            if (!have) continue;
            const uint v = fill ? 0u : (src[s >> 2] >> ((s & 3u) * 8u)) & 0xffu;
            word = (word & ~(0xffu << (b * 8u))) | (v << (b * 8u));
        }
        if (word != old) dst[w] = word;
    }
}
