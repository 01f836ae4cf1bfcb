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

// The source byte at destination byte `pos`, or -1 when no element lies there.
int source_byte(uint pos) {
    if (pos < p.dst_base) return -1;
    uint rel = pos - p.dst_base, s = p.src_base;
    for (int k = int(p.ndim) - 1; k >= 0; k--) {
        const uint c = rel / p.dst_stride[k];
        if (c >= p.shape[k]) return -1;
        rel -= c * p.dst_stride[k];
        s += c * p.src_stride[k];
    }
    if (rel >= p.esize) return -1;
    if ((p.flags & DMLS_VK_FILL) != 0u) return 0;
    s += rel;
    return int((src[s >> 2] >> ((s & 3u) * 8u)) & 0xffu);
}

void main() {
    const uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    const uint first = p.dst_base >> 2;
    for (uint i = gl_GlobalInvocationID.x; i < p.count; i += step) {
        const uint w = first + i;
        const uint old = dst[w];
        uint word = old;
        for (uint b = 0u; b < 4u; b++) {
            const int v = source_byte(w * 4u + b);
            if (v >= 0) word = (word & ~(0xffu << (b * 8u))) | (uint(v) << (b * 8u));
        }
        if (word != old) dst[w] = word;
    }
}
