/* dmlslice bench --device cuda's floors; see bench.h. The launch-bound rows
 * (the crops, the tiny slice) are timed by the host clock around a launch
 * and its stream synchronize, as a caller that needs the result sees them,
 * each interleaved with its yardsticks (a loop of single launches, CUDA
 * graphs, an empty kernel) rep by rep: CUDA's own API, which the device
 * interface does not show. The bandwidth-bound rows are bench_device.c's.
 * Compiled in every build; without the CUDA backend there are no rows. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef DMLS_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "dmlslice/batch_cuda.h"
#include "dmlslice/dmlslice_cuda.h"

/* A failed CUDA runtime call or dmlslice call prints "dmlslice bench: "
 * ROW ": " and what failed, then jumps to the calling function's `fail:`
 * label, which frees what it made. */
#define CU(call)                                                                                           \
    do {                                                                                                   \
        const cudaError_t e_ = (call);                                                                     \
        if (e_ != cudaSuccess) {                                                                           \
            fprintf(stderr, "dmlslice bench: %s: %s: %s\n", r->name, #call, cudaGetErrorString(e_));       \
            goto fail;                                                                                     \
        }                                                                                                  \
    } while (0)

#define DM(call)                                                                                           \
    do {                                                                                                   \
        if ((call) != DMLS_OK) {                                                                           \
            fprintf(stderr, "dmlslice bench: %s: %s\n", r->name, dmls_last_error());                       \
            goto fail;                                                                                     \
        }                                                                                                  \
    } while (0)

/* empty_kernel.cu: an empty kernel's launch on stream; a cudaError_t. */
int bench_empty_launch(void *stream);

static void row_start(bench_batch_row *r, const char *name, const char *timing, uint64_t items, uint64_t bytes) {
    memset(r, 0, sizeof *r);
    r->name = name, r->timing = timing, r->items = items, r->out_bytes = bytes;
}

static void yard(bench_batch_row *r, const char *name, double us) {
    r->yard[r->nyard].name = name;
    r->yard[r->nyard++].us = us;
}

/* ------------------------------------------------------------ launch + sync */

/* What the launch-bound rows run, each one call of it. */
enum { L_BATCH, L_LOOP, L_LOOP_GRAPH, L_EMPTY, L_BATCH_GRAPH, L_EMPTY_GRAPH, L_TINY, L_MEMSET, L_MEASURES };

typedef struct launch_set {
    bench_crops c;
    cudaStream_t s;
    void *d_image, *d_out;
    cudaGraphExec_t graph[L_MEASURES]; /* the loop's, the batch's and the empty kernel's */
    dmls_operator *tiny;               /* DirectML's SLICE1 example 2: 1x1x4x4 float32 */
    void *d_tiny_in, *d_tiny_out;
} launch_set;

/* Enqueues measure m once; a CUDA or library failure as a cudaError_t. */
static cudaError_t issue(int m, const launch_set *g) {
    const uint64_t crop_bytes = BENCH_CROP_FLOATS * sizeof(float), in_bytes = dmls_input_bytes(g->c.one);
    if (m == L_BATCH) {
        const dmls_batch_input in = {g->d_image, BENCH_IMAGE_FLOATS * sizeof(float)};
        const dmls_batch_output out = {g->d_out, BENCH_CROPS * crop_bytes};
        return dmls_batch_execute_cuda(g->c.batch, &in, 1, &out, 1, g->s) == DMLS_OK ? cudaSuccess : cudaErrorUnknown;
    }
    if (m == L_LOOP) {
        for (int i = 0; i < BENCH_CROPS; i++)
            if (dmls_execute_cuda(g->c.one, (const char *)g->d_image + g->c.offsets[i], in_bytes,
                                  (char *)g->d_out + i * crop_bytes, crop_bytes, g->s) != DMLS_OK)
                return cudaErrorUnknown;
        return cudaSuccess;
    }
    if (m == L_EMPTY) return (cudaError_t)bench_empty_launch(g->s);
    if (m == L_TINY)
        return dmls_execute_cuda(g->tiny, g->d_tiny_in, 64, g->d_tiny_out, 16, g->s) == DMLS_OK ? cudaSuccess
                                                                                               : cudaErrorUnknown;
    if (m == L_MEMSET) return cudaMemsetAsync(g->d_tiny_out, 0, 4, g->s);
    return cudaGraphLaunch(g->graph[m], g->s);
}

/* Captures measure m (L_LOOP, L_BATCH or L_EMPTY) into graph[into]. */
static cudaError_t capture(launch_set *g, int m, int into) {
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamBeginCapture(g->s, cudaStreamCaptureModeGlobal);
    if (e != cudaSuccess) return e;
    const cudaError_t issued = issue(m, g);
    e = cudaStreamEndCapture(g->s, &graph);
    if (issued != cudaSuccess) e = issued;
    if (e == cudaSuccess) e = cudaGraphInstantiate(&g->graph[into], graph, 0);
    if (graph) cudaGraphDestroy(graph);
    return e;
}

/* The tiny slice of examples/worked_examples.h's SLICE1 example 2. */
static bool tiny_make(launch_set *g) {
    const int64_t in_shape[4] = {1, 1, 4, 4}, out_shape[4] = {1, 1, 2, 2};
    const int64_t offsets[4] = {0, 0, 0, 1}, sizes[4] = {1, 1, 4, 3}, strides[4] = {1, 1, -2, 2};
    const dmls_tensor in = {DMLS_FLOAT32, 4, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 4, out_shape, NULL, 0};
    const dmls_window w = {offsets, sizes, strides};
    return dmls_create(&in, &out, &w, &g->tiny) == DMLS_OK;
}

/* Median microseconds of one call of m followed by a stream synchronize,
 * for every measure, interleaved: times[m * reps + rep]. */
static bool time_launches(launch_set *g, int reps, double *times, bench_batch_row *r) {
    for (int rep = -1; rep < reps; rep++) /* rep -1: warm-up */
        for (int k = 0; k < L_MEASURES; k++) {
            const int m = (rep + 1 + k) % L_MEASURES;
            const double t0 = bench_now();
            for (int i = 0; i < 20; i++) {
                CU(issue(m, g));
                CU(cudaStreamSynchronize(g->s));
            }
            if (rep >= 0) times[m * reps + rep] = (bench_now() - t0) / 20 * 1e6;
        }
    return true;
fail:
    return false;
}

/* The batch's crops and the tiny slice's output against the CPU's, item
 * by item. */
static bool launches_correct(launch_set *g, bench_batch_row *r) {
    const uint64_t bytes = BENCH_CROPS * BENCH_CROP_FLOATS * sizeof(float);
    float *got = malloc(bytes), *want = malloc(bytes), tiny[4] = {0}, tiny_want[4] = {0};
    bool same = got && want;
    static const float tiny_in[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    CU(issue(L_BATCH, g));
    CU(cudaStreamSynchronize(g->s));
    CU(cudaMemcpy(got, g->d_out, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; same && i < BENCH_CROPS; i++)
        same = dmls_execute(g->c.one, (const char *)g->c.image + g->c.offsets[i], dmls_input_bytes(g->c.one),
                            want + i * BENCH_CROP_FLOATS, BENCH_CROP_FLOATS * sizeof(float)) == DMLS_OK;
    same = same && memcmp(got, want, bytes) == 0;
    CU(cudaMemcpy(g->d_tiny_in, tiny_in, sizeof tiny_in, cudaMemcpyHostToDevice));
    CU(issue(L_TINY, g));
    CU(cudaStreamSynchronize(g->s));
    CU(cudaMemcpy(tiny, g->d_tiny_out, sizeof tiny, cudaMemcpyDeviceToHost));
    same = same && dmls_execute(g->tiny, tiny_in, sizeof tiny_in, tiny_want, sizeof tiny_want) == DMLS_OK &&
           memcmp(tiny, tiny_want, sizeof tiny) == 0;
fail:
    free(got);
    free(want);
    return same;
}

/* Rows 0-2: the crops with launch + sync, the crops as a graph, the tiny slice. */
static int launch_rows(int reps, bench_batch_row *rows) {
    bench_batch_row *r = &rows[0];
    row_start(&rows[0], "crops_1024_3x4x4_f32", "launch+sync", BENCH_CROPS,
              BENCH_CROPS * BENCH_CROP_FLOATS * sizeof(float));
    row_start(&rows[1], "crops_1024_3x4x4_f32_graph", "graph launch+sync", BENCH_CROPS, rows[0].out_bytes);
    row_start(&rows[2], "tiny_1x1x4x4_f32", "execute+sync", 1, 48);
    launch_set g;
    memset(&g, 0, sizeof g);
    double *times = malloc(sizeof *times * (size_t)reps * L_MEASURES);
    if (times == NULL || !bench_crops_make(&g.c) || !tiny_make(&g)) goto fail;
    CU(cudaStreamCreateWithFlags(&g.s, cudaStreamNonBlocking));
    CU(cudaMalloc(&g.d_image, BENCH_IMAGE_FLOATS * sizeof(float)));
    CU(cudaMalloc(&g.d_out, rows[0].out_bytes));
    CU(cudaMalloc(&g.d_tiny_in, 64));
    CU(cudaMalloc(&g.d_tiny_out, 16));
    CU(cudaMemcpy(g.d_image, g.c.image, BENCH_IMAGE_FLOATS * sizeof(float), cudaMemcpyHostToDevice));
    DM(dmls_batch_prepare_cuda(g.c.batch));
    CU(capture(&g, L_LOOP, L_LOOP_GRAPH));
    CU(capture(&g, L_BATCH, L_BATCH_GRAPH));
    CU(capture(&g, L_EMPTY, L_EMPTY_GRAPH));
    if (!time_launches(&g, reps, times, r)) goto fail;
    const bool correct = launches_correct(&g, r);
    double us[L_MEASURES];
    for (int m = 0; m < L_MEASURES; m++) us[m] = bench_median(times + m * reps, reps);
    rows[0].us = us[L_BATCH];
    yard(&rows[0], "loop", us[L_LOOP]);
    yard(&rows[0], "loop_graph", us[L_LOOP_GRAPH]);
    yard(&rows[0], "empty_launch", us[L_EMPTY]);
    rows[1].us = us[L_BATCH_GRAPH];
    yard(&rows[1], "empty_graph", us[L_EMPTY_GRAPH]);
    rows[2].us = us[L_TINY];
    yard(&rows[2], "memset4", us[L_MEMSET]);
    yard(&rows[2], "empty_launch", us[L_EMPTY]);
    for (int k = 0; k < 3; k++) rows[k].correct = correct, rows[k].timed = true;
fail:
    for (int m = 0; m < L_MEASURES; m++)
        if (g.graph[m]) cudaGraphExecDestroy(g.graph[m]);
    if (g.s) cudaStreamDestroy(g.s);
    cudaFree(g.d_image), cudaFree(g.d_out), cudaFree(g.d_tiny_in), cudaFree(g.d_tiny_out);
    dmls_destroy(g.tiny);
    bench_crops_free(&g.c);
    free(times);
    return 3;
}

bool bench_cuda_built(void) { return true; }

int bench_cuda_batches(int reps, bench_batch_row *rows) { return launch_rows(reps, rows); }

#else

bool bench_cuda_built(void) { return false; }

int bench_cuda_batches(int reps, bench_batch_row *rows) {
    (void)reps, (void)rows;
    return 0;
}

#endif
