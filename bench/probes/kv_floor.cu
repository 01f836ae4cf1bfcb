// Probe: what a KV-cache page gather can reach on this GPU, beside the
// batch kernel's (issue 24: 512 pages of 16x8x128 float16, 32 KiB each,
// picked from a 4,096-page cache by page numbers held on the device).
//
// Plain kernels written for this one shape, each timed as batch_probe
// times the batch (CUDA events around 10 calls back to back, median of
// 15), beside cudaMemcpyAsync of the same 16 MiB:
//   block-per-page    one block of 256 threads per page, 8 16-byte loads in
//                     flight per thread (the batch kernel's streaming shape)
//                     after one load of the page number;
//   +N chain          the same after N more dependent loads (the batch
//                     kernel's table chain: map, entry, launch);
//   4 blocks/page     four blocks of 256 per page, 2 loads per thread;
//   grid-stride       index_select's shape: each 16-byte vector finds its
//                     page number, 8 per thread, 1,056 blocks.
// The answer says whether the batch kernel's gap to the copy is its table
// chain, its one-tile-per-block shape, or neither.
// Build: a CUDA-enabled CMake build makes it (target kv_floor,
// bench/probes/CMakeLists.txt). Run: build/bench/probes/kv_floor
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CU(x)                                                                                                          \
    do {                                                                                                               \
        cudaError_t e_ = (x);                                                                                          \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                                \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

enum { PAGES = 512, CACHE = 4096, PAGE_VECS = 2048 /* 32 KiB in uint4 */ };

// Chain > 0: that many dependent loads through `chain` (a table of zeros,
// as the batch kernel's tables are small and L2-resident) before the page.
template <int Chain>
__global__ void __launch_bounds__(256)
    block_per_page(const uint4 *cache, const int *pages, uint4 *out, const int *chain) {
    int z = 0;
#pragma unroll
    for (int c = 0; c < Chain; c++) z = __ldg(chain + z + (int)blockIdx.x % 8);
    const int page = __ldg(pages + blockIdx.x + z);
    const uint4 *src = cache + (size_t)page * PAGE_VECS;
    uint4 *dst = out + (size_t)blockIdx.x * PAGE_VECS;
    uint4 v[8];
#pragma unroll
    for (int j = 0; j < 8; j++) v[j] = __ldg(src + j * 256 + threadIdx.x);
#pragma unroll
    for (int j = 0; j < 8; j++) dst[j * 256 + threadIdx.x] = v[j];
}

__global__ void __launch_bounds__(256) four_per_page(const uint4 *cache, const int *pages, uint4 *out) {
    const int p = blockIdx.x / 4, part = blockIdx.x % 4;
    const int page = __ldg(pages + p);
    const uint4 *src = cache + (size_t)page * PAGE_VECS + part * 512;
    uint4 *dst = out + (size_t)p * PAGE_VECS + part * 512;
    uint4 a = __ldg(src + threadIdx.x), b = __ldg(src + 256 + threadIdx.x);
    dst[threadIdx.x] = a;
    dst[256 + threadIdx.x] = b;
}

__global__ void __launch_bounds__(256) grid_stride(const uint4 *cache, const int *pages, uint4 *out) {
    const uint32_t n = PAGES * PAGE_VECS, step = gridDim.x * 256u;
    for (uint32_t base = blockIdx.x * 256u + threadIdx.x; base < n; base += 8 * step) {
        uint4 v[8];
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const uint32_t i = base + j * step;
            if (i < n) v[j] = __ldg(cache + (size_t)__ldg(pages + i / PAGE_VECS) * PAGE_VECS + i % PAGE_VECS);
        }
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const uint32_t i = base + j * step;
            if (i < n) out[i] = v[j];
        }
    }
}

static int cmpd(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Microseconds per call: median of 15 event pairs around 10 calls each.
template <typename F> static double time_us(F f) {
    cudaEvent_t e0, e1;
    CU(cudaEventCreate(&e0));
    CU(cudaEventCreate(&e1));
    double t[15];
    for (int r = -1; r < 15; r++) {
        CU(cudaDeviceSynchronize());
        CU(cudaEventRecord(e0));
        for (int k = 0; k < 10; k++) f();
        CU(cudaEventRecord(e1));
        CU(cudaEventSynchronize(e1));
        float ms;
        CU(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0) t[r] = ms * 100.0; // ms / 10 calls, in us
    }
    CU(cudaGetLastError());
    qsort(t, 15, sizeof *t, cmpd);
    CU(cudaEventDestroy(e0));
    CU(cudaEventDestroy(e1));
    return t[7];
}

// Dynamic shared memory that leaves room for 4 blocks per SM, as the
// batch kernel's 64 registers do.
static int kQuarterSm = 0;

int main(void) {
    int smem = 0;
    CU(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
    kQuarterSm = smem / 4 - 2048;
    CU(cudaFuncSetAttribute(block_per_page<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, kQuarterSm));
    const size_t page_bytes = PAGE_VECS * 16, out_bytes = (size_t)PAGES * page_bytes;
    uint4 *cache, *out, *copy_dst;
    int *pages, *chain;
    CU(cudaMalloc(&cache, (size_t)CACHE * page_bytes));
    CU(cudaMalloc(&out, out_bytes));
    CU(cudaMalloc(&copy_dst, out_bytes));
    CU(cudaMalloc(&pages, PAGES * sizeof(int)));
    CU(cudaMalloc(&chain, 64 * sizeof(int)));
    CU(cudaMemset(cache, 1, (size_t)CACHE * page_bytes));
    CU(cudaMemset(chain, 0, 64 * sizeof(int)));
    int host[PAGES];
    srand(7);
    for (int i = 0; i < PAGES; i++) host[i] = rand() % CACHE;
    CU(cudaMemcpy(pages, host, sizeof host, cudaMemcpyHostToDevice));
    const double copy = time_us([&] { CU(cudaMemcpyAsync(copy_dst, cache, out_bytes, cudaMemcpyDeviceToDevice)); });
    printf("kv_floor: 512 pages of 32 KiB, 10 calls back to back, medians\n");
    printf("  cudaMemcpyAsync of 16 MiB   %7.2f us\n", copy);
    struct {
        const char *name;
        double us;
    } rows[] = {
        {"block-per-page", time_us([&] { block_per_page<0><<<PAGES, 256>>>(cache, pages, out, chain); })},
        {"block-per-page +2 chain", time_us([&] { block_per_page<2><<<PAGES, 256>>>(cache, pages, out, chain); })},
        {"block-per-page +4 chain", time_us([&] { block_per_page<4><<<PAGES, 256>>>(cache, pages, out, chain); })},
        {"block-per-page, 4 per SM",
         time_us([&] { block_per_page<0><<<PAGES, 256, kQuarterSm>>>(cache, pages, out, chain); })},
        {"4 blocks/page", time_us([&] { four_per_page<<<PAGES * 4, 256>>>(cache, pages, out); })},
        {"grid-stride (index_select)", time_us([&] { grid_stride<<<132 * 8, 256>>>(cache, pages, out); })},
    };
    for (const auto &r : rows) printf("  %-27s %7.2f us  %.2f of the copy\n", r.name, r.us, copy / r.us);
    CU(cudaFree(cache));
    CU(cudaFree(out));
    CU(cudaFree(copy_dst));
    CU(cudaFree(pages));
    CU(cudaFree(chain));
    return 0;
}
