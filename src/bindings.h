/* The binding checks every executor runs first (bindings.c): the CPU's,
 * CUDA's and the reference's on pointers, Vulkan's on buffer offsets. */
#ifndef DMLS_BINDINGS_H
#define DMLS_BINDINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlslice/dmlslice.h"

/* A binding as the checks see it: the memory it lies in (space: 0 for the
 * one address space of pointers, a buffer handle for Vulkan; two bindings
 * can share a byte only in one space), its first byte there (an address or
 * an offset), its usable bytes, and whether it is bound at all. */
typedef struct dmls_place {
    uint64_t space, at, bytes;
    bool bound;
} dmls_place;

/* How the messages name places: as addresses or as offsets into a buffer,
 * the buffer's kind ("buffer", "VkBuffer") and an unbound one ("NULL",
 * "VK_NULL_HANDLE"). */
typedef struct dmls_place_words {
    bool offsets;
    const char *buffer, *null_word;
} dmls_place_words;

/* Pointers: addresses in one space, "buffer", "NULL". */
extern const dmls_place_words dmls_pointer_words;

/* R-OP-NULL, R-X-BOUNDS, R-X-ALIGN, R-X-OVERLAP of op's two tensors at
 * their places (op not NULL; the error not cleared). */
dmls_status dmls_check_places(const dmls_operator *op, const dmls_place *in, const dmls_place *out,
                              const dmls_place_words *w);

/* The preamble every executor runs before writing anything: clears the
 * thread's error, then checks op (not NULL) and the binding (R-OP-NULL,
 * R-X-BOUNDS, R-X-ALIGN, R-X-OVERLAP; docs/spec.md section 2). who names the
 * call in the message when op is NULL ("execute", "execute_cuda"). */
dmls_status dmls_check_bindings(const char *who, const dmls_operator *op, const void *input, uint64_t input_bytes,
                                const void *output, uint64_t output_bytes);

#endif
