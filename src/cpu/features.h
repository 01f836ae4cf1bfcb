/* CPU feature detection (features.c): what the kernels may use, and where
 * streaming stores start to pay. */
#ifndef DMLS_CPU_FEATURES_H
#define DMLS_CPU_FEATURES_H

#include <stdint.h>

/* ISA features a kernel variant may use. */
enum {
    DMLS_CPU_AVX2 = 1u << 0,
    DMLS_CPU_NEON = 1u << 1, /* AArch64 Advanced SIMD (ASIMD) */
    DMLS_CPU_SIMD128 = 1u << 2, /* WebAssembly SIMD128, where the module is compiled with it */
};

/* The features of this CPU, minus those named in DMLSLICE_DISABLE_CPU_FEATURES
 * (comma-separated: "avx2", "neon", "simd128", or "all"). Detected once per process,
 * from the system (CPUID on x86, the auxiliary vector on Linux AArch64). */
unsigned dmls_cpu_features(void);

/* Memory traffic in bytes (see dmls_cpu_prepared.traffic_bytes) from which
 * kernels use non-temporal stores: a quarter of the last-level cache (a
 * cache shared by other data and other cores keeps little of a copy that
 * moves more), where writing around the cache saves each line's read for
 * ownership (features.c says what was measured). */
uint64_t dmls_cpu_nontemporal_threshold(void);

/* The last-level cache's size in bytes (32 MiB where the system does not
 * say): a call whose traffic fits is taken to find its input there when
 * called back to back (dmls_cpu_prepared.cached). */
uint64_t dmls_cpu_cache_size(void);

#endif
