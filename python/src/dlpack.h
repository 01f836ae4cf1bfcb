/*
 * dlpack.h: the DLPack exchange structures, declared as the DLPack
 * specification (version 1.0, and 1.3 for the C exchange API) lays them out.
 *
 * Debian's libdlpack-dev ships version 0.6, which lacks the versioned
 * managed tensor that current producers hand out; the layouts below are
 * the ABI both versions agree on, so the extension needs no header from
 * outside. Only what the extension reads is declared.
 */
#ifndef DMLSLICE_PY_DLPACK_H
#define DMLSLICE_PY_DLPACK_H

#include <stdint.h>

/* DLDeviceType values the extension tells apart. */
enum {
    DL_CPU = 1,
    DL_CUDA = 2,
    DL_CUDA_HOST = 3,    /* pinned host memory: the CPU reads it */
    DL_CUDA_MANAGED = 13 /* managed memory: treated as the GPU's */
};

/* DLDataTypeCode values. */
enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2 };

typedef struct {
    int32_t device_type;
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL means packed row-major */
    uint64_t byte_offset;
} DLTensor;

/* The capsule named "dltensor" (the legacy protocol). */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)

/* The capsule named "dltensor_versioned" (DLPack 1.0 and later). */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* DLPack's C exchange API (DLPack 1.3): a table of C functions a producer
 * offers as its type's __dlpack_c_exchange_api__, a capsule named
 * "dlpack_exchange_api" (older producers: a Python int holding the
 * address). Each function returns 0, or -1 with a Python exception set. */
typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;
    struct DLPackExchangeAPIHeader *prev_api; /* an older major version, or NULL */
} DLPackExchangeAPIHeader;

typedef struct DLPackExchangeAPI {
    DLPackExchangeAPIHeader header;
    /* A new tensor like prototype (shape, dtype, device); errors reported
     * through set_error(error_ctx, kind, message). */
    int (*managed_tensor_allocator)(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                                    void (*set_error)(void *error_ctx, const char *kind, const char *message));
    int (*managed_tensor_from_py_object_no_sync)(void *py_object, DLManagedTensorVersioned **out);
    /* Steals tensor; *out_py_object is a new reference. */
    int (*managed_tensor_to_py_object_no_sync)(DLManagedTensorVersioned *tensor, void **out_py_object);
    /* A view valid while py_object lives and control stays in C; may be NULL. */
    int (*dltensor_from_py_object_no_sync)(void *py_object, DLTensor *out);
    int (*current_work_stream)(int32_t device_type, int32_t device_id, void **out_current_stream);
} DLPackExchangeAPI;

#endif /* DMLSLICE_PY_DLPACK_H */
