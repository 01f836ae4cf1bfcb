/* CPU feature detection, once per process, with the test switch
 * DMLSLICE_DISABLE_CPU_FEATURES that lets one machine run every variant. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler.h"
#include "../platform/platform.h"
#include "features.h"

static unsigned detected;
static uint64_t llc_bytes;
static dmls_once once = DMLS_ONCE_INIT;

static bool listed(const char *list, const char *name) {
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if ((n == len && strncmp(p, name, len) == 0) || (n == 3 && strncmp(p, "all", 3) == 0)) return true;
        p += n;
        if (*p == ',') p++;
    }
    return false;
}

static void detect(void) {
    unsigned f = 0;
#if (defined(__x86_64__) || defined(__i386__)) && DMLS_GNU_C
    /* GNU C only: elsewhere (MSVC) AVX2 is never detected, and the portable
     * kernels run. */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) f |= DMLS_CPU_AVX2;
#elif defined(__aarch64__) || defined(_M_ARM64)
    /* The system's answer (platform.h), never a trial instruction. */
    if (dmls_cpu_has_neon()) f |= DMLS_CPU_NEON;
#elif defined(__wasm_simd128__)
    /* A WebAssembly module with SIMD128 instructions does not load where
     * the engine lacks them: compiled in is present. */
    f |= DMLS_CPU_SIMD128;
#endif
    const char *off = getenv("DMLSLICE_DISABLE_CPU_FEATURES");
    if (off && listed(off, "avx2")) f &= ~(unsigned)DMLS_CPU_AVX2;
    if (off && listed(off, "neon")) f &= ~(unsigned)DMLS_CPU_NEON;
    if (off && listed(off, "simd128")) f &= ~(unsigned)DMLS_CPU_SIMD128;
    detected = f;

    const uint64_t llc = dmls_cpu_cache_bytes();
    /* Unknown cache: 32 MiB is about the largest per-socket L3 of common
     * parts, so streaming starts no earlier than it should. */
    llc_bytes = llc > 0 ? llc : (uint64_t)32 << 20;
}

unsigned dmls_cpu_features(void) {
    dmls_once_run(&once, detect);
    return detected;
}

/* A quarter of the cache, not all of it: on the 16-core Xeon host (an L3 of
 * 300 MiB) transposes and a gather of rows moving 98-256 MiB ran 1.2-1.8x
 * faster streaming, timed back to back with their data left in the cache;
 * on the 2-core VM (32 MiB) copies of 16-32 MiB ran the same either way
 * (bench/RESULTS.md, 2026-11-29, eleventh session). */
#define DMLS_CPU_STREAM_CACHE_PARTS 4

uint64_t dmls_cpu_nontemporal_threshold(void) {
    return dmls_cpu_cache_size() / DMLS_CPU_STREAM_CACHE_PARTS;
}

uint64_t dmls_cpu_cache_size(void) {
    dmls_once_run(&once, detect);
    return llc_bytes;
}
