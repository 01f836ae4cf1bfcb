/* The one table of backends the core walks at create and destroy
 * (create.c). One line per backend; NULL where a backend is not built in. */
#include "backend.h"

const dmls_backend *const dmls_backends[DMLS_BACKEND_COUNT] = {
    [DMLS_BACKEND_CPU] = &dmls_cpu_backend,
#ifdef DMLS_HAVE_CUDA
    [DMLS_BACKEND_CUDA] = &dmls_cuda_backend,
#endif
#ifdef DMLS_HAVE_VULKAN
    [DMLS_BACKEND_VULKAN] = &dmls_vulkan_backend,
#endif
};

const char *const dmls_backend_names[DMLS_BACKEND_COUNT] = {
    [DMLS_BACKEND_CPU] = "cpu",
    [DMLS_BACKEND_CUDA] = "cuda",
    [DMLS_BACKEND_VULKAN] = "vulkan",
};
