/* The Vulkan backend's internals: the launches prepared once per operator
 * (prepare.c, plain C, no Vulkan header) and what execute.c and the tests
 * share. The shaders (the .comp files under shaders/) read dmls_vk_params as push
 * constants. */
#ifndef DMLS_VULKAN_INTERNAL_H
#define DMLS_VULKAN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "../copy_plan.h"

struct dmls_operator;

#define DMLS_VK_MAX_DIMS  DMLS_MAX_RANK
#define DMLS_VK_WORKGROUP 256 /* local_size_x of every shader (shaders/params.glsl) */
#define DMLS_VK_FILL      1u  /* dmls_vk_params.flags: write zeros, read nothing */

/* The shaders, one pipeline each (execute.c). */
typedef enum dmls_vk_shader {
    DMLS_VK_NOTHING = -1, /* count 0: nothing to record */
    DMLS_VK_UNITS4 = 0,   /* units.comp over uint: one 4-byte unit per item */
    DMLS_VK_UNITS8 = 1,   /* units.comp over uvec2 */
    DMLS_VK_UNITS16 = 2,  /* units.comp over uvec4 */
    DMLS_VK_BYTES = 3,    /* bytes.comp: one output word per item, any element size and position */
    DMLS_VK_SHADERS = 4
} dmls_vk_shader;

/* One dispatch's worth of work before it is bound: dims innermost first,
 * strides and offsets in bytes (from the bound offsets). */
typedef struct dmls_vk_launch {
    int32_t shader; /* dmls_vk_shader */
    int32_t unit;   /* bytes per item of a units shader; the element size for bytes.comp */
    int32_t ndim;   /* 1..DMLS_VK_MAX_DIMS */
    int32_t fill;   /* 1: zero fill, the source unused */
    int64_t shape[DMLS_VK_MAX_DIMS];
    int64_t src_stride[DMLS_VK_MAX_DIMS];
    int64_t dst_stride[DMLS_VK_MAX_DIMS];
    int64_t src_offset, dst_offset;
} dmls_vk_launch;

/* Launches per plan, best first: units of 16, 8 or 4 bytes where the
 * strides allow, then bytes.comp, which any binding can run. Execute takes
 * the first whose unit divides both bound element positions. */
#define DMLS_VK_CHOICES 2

typedef struct dmls_vk_prepared {
    bool zero_fill;
    dmls_vk_launch fill[DMLS_VK_CHOICES];
    dmls_vk_launch copy[DMLS_VK_CHOICES];
} dmls_vk_prepared;

/* The push constants (shaders/params.glsl, field for field). */
typedef struct dmls_vk_params {
    uint32_t count, ndim, flags, esize, src_base, dst_base;
    uint32_t shape[DMLS_VK_MAX_DIMS];
    uint32_t src_stride[DMLS_VK_MAX_DIMS];
    uint32_t dst_stride[DMLS_VK_MAX_DIMS];
} dmls_vk_params;

/* Prepares op's launches into *prepared (allocated; NULL when there is no
 * memory: DMLS_ERROR_OUT_OF_MEMORY). The backend table's prepare and destroy
 * prepare: dmls_vulkan_backend (backend.c) names it. */
dmls_status dmls_vulkan_prepare(const struct dmls_operator *op, void **prepared);
void dmls_vulkan_destroy(void *prepared);

/* The launch execute runs for element positions src and dst (absolute byte
 * offsets in their buffers): the first choice whose unit divides both. */
const dmls_vk_launch *dmls_vk_choose(const dmls_vk_launch *choices, uint64_t src, uint64_t dst);

/* The byte span [lo, hi) a launch touches on one side, from its first
 * element's position pos (strides may be negative on the source side). */
void dmls_vk_span(const dmls_vk_launch *L, bool dst_side, int64_t pos, int64_t *lo, int64_t *hi);

#endif
