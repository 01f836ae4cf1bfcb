/*
 * devices.c: the devices copies run on, through <dmlslice/device.h> only.
 *
 * The CPU is one shared device whose threads are the process's pool,
 * guarded by the GIL alone: a copy counts itself in as a user (GIL held)
 * before it lets the GIL go, and out after it has it back, so
 * set_num_threads can swap in a new device at any time and the old one is
 * closed by whoever leaves it last. A GPU is opened at its first array and
 * kept; its calls take its lock, because the stream it enqueues on is set
 * per call. The lock is never waited on with the GIL held (the deadlock of
 * a lock taken in the other order).
 */
#include "devices.h"

#include <Python.h>
#include <pythread.h>
#include <stdio.h>
#include <string.h>

#include "dlpack.h"
#include "errors.h"

/* Outputs below this many bytes keep the GIL: releasing and taking it back
 * costs more than the copy. */
#define GIL_FREE_BYTES 65536
/* The most bindings a call wraps without allocating. */
#define FIXED_SLOTS 8
#define MAX_GPUS    64

typedef struct cpu_ref {
    dmls_device *dev;
    Py_ssize_t users;
    int retired; /* replaced: closed when its last user leaves */
} cpu_ref;

static cpu_ref *cpu;   /* made at the first copy */
static int cpu_wanted; /* 0: the library's default size */

typedef struct gpu_ref {
    dmls_device *dev;
    PyThread_type_lock lock;
} gpu_ref;

static gpu_ref gpus[MAX_GPUS];

int devices_is_gpu(int dl_type) { return dl_type == DL_CUDA || dl_type == DL_CUDA_MANAGED; }

static int raise_status(dmls_status st) {
    ext_raise_status(st);
    return -1;
}

static void cpu_close(cpu_ref *r) {
    /* Joining the workers needs no Python: let other threads run. */
    Py_BEGIN_ALLOW_THREADS dmls_device_close(r->dev);
    Py_END_ALLOW_THREADS PyMem_Free(r);
}

static cpu_ref *cpu_make(int n) {
    cpu_ref *r = PyMem_Calloc(1, sizeof *r);
    if (!r) return (cpu_ref *)PyErr_NoMemory();
    dmls_status st = dmls_device_open("cpu", &r->dev);
    if (st == DMLS_OK && n != 0) st = dmls_device_set_threads(r->dev, n);
    if (st != DMLS_OK) {
        dmls_device_close(r->dev);
        PyMem_Free(r);
        raise_status(st);
        return NULL;
    }
    return r;
}

static cpu_ref *cpu_enter(void) {
    if (!cpu && !(cpu = cpu_make(cpu_wanted))) return NULL;
    cpu->users++;
    return cpu;
}

static void cpu_leave(cpu_ref *r) {
    if (--r->users == 0 && r->retired) cpu_close(r);
}

/* The GPU of DLPack device id, opened at its first use by the name the
 * library gives it; NULL with an exception. */
static gpu_ref *gpu_of(int dl_id) {
    if (dl_id < 0 || dl_id >= MAX_GPUS) {
        ext_raise(ERR_DEVICE, "DMLS_ERROR_NO_DEVICE", "R-PY-DEVICE",
                  "the array is on CUDA device %d; at most %d are used", dl_id, MAX_GPUS);
        return NULL;
    }
    gpu_ref *g = &gpus[dl_id];
    if (g->dev) return g;
    char name[32];
    snprintf(name, sizeof name, "cuda:%d", dl_id);
    dmls_status st = dmls_device_open(name, &g->dev);
    if (st != DMLS_OK) {
        raise_status(st);
        return NULL;
    }
    if (!(g->lock = PyThread_allocate_lock())) {
        dmls_device_close(g->dev);
        g->dev = NULL;
        return (gpu_ref *)PyErr_NoMemory();
    }
    return g;
}

int devices_check(int dl_type, int dl_id) {
    if (devices_is_gpu(dl_type)) return gpu_of(dl_id) ? 0 : -1;
    if (dl_type == DL_CPU || dl_type == DL_CUDA_HOST) return 0;
    ext_raise(ERR_DEVICE, "DMLS_ERROR_NO_DEVICE", "R-PY-DEVICE",
              "the array is on DLPack device type %d; dmlslice slices CPU and CUDA arrays", dl_type);
    return -1;
}

/* The caller's memory as a binding of dev (none for an empty range). */
static dmls_status wrap(dmls_device *dev, const void *data, uint64_t bytes, dmls_device_binding *b) {
    *b = (dmls_device_binding){NULL, 0, bytes};
    return bytes ? dmls_device_wrap(dev, (void *)data, bytes, &b->buffer) : DMLS_OK;
}

static void unwrap(dmls_device *dev, dmls_device_binding *b, uint32_t n) {
    for (uint32_t k = 0; k < n; k++) dmls_device_free(dev, b[k].buffer);
}

/* One call's work on a device: a single copy (op) or a batch, its slots
 * and room for their bindings. */
typedef struct work {
    const dmls_operator *op;
    dmls_batch *batch;
    const dmls_batch_input *in;
    const dmls_batch_output *out;
    uint32_t n_in, n_out;
    dmls_device_binding *bi, *bo;
} work;

/* Wraps the work's slots and runs it on dev (the GIL held or not, as the
 * caller chose); the wraps are released, the memory stays the caller's. */
static dmls_status run_wrapped(dmls_device *dev, const work *w) {
    uint32_t wi = 0, wo = 0;
    dmls_status st = DMLS_OK;
    for (; st == DMLS_OK && wi < w->n_in; wi++) st = wrap(dev, w->in[wi].data, w->in[wi].bytes, &w->bi[wi]);
    for (; st == DMLS_OK && wo < w->n_out; wo++) st = wrap(dev, w->out[wo].data, w->out[wo].bytes, &w->bo[wo]);
    if (st == DMLS_OK && w->op) st = dmls_device_execute(dev, w->op, w->bi[0], w->bo[0]);
    if (st == DMLS_OK && !w->op) st = dmls_device_batch_prepare(dev, w->batch);
    if (st == DMLS_OK && !w->op) st = dmls_device_batch_execute(dev, w->batch, w->bi, w->n_in, w->bo, w->n_out);
    /* A wrap that failed left its buffer NULL: freeing it is a no-op. */
    unwrap(dev, w->bi, wi);
    unwrap(dev, w->bo, wo);
    return st;
}

static int run_cpu(work *w, uint64_t out_bytes) {
    cpu_ref *r = cpu_enter();
    if (!r) return -1;
    dmls_status st;
    if (out_bytes >= GIL_FREE_BYTES) {
        Py_BEGIN_ALLOW_THREADS st = run_wrapped(r->dev, w);
        Py_END_ALLOW_THREADS
    } else {
        st = run_wrapped(r->dev, w);
    }
    cpu_leave(r);
    return st == DMLS_OK ? 0 : raise_status(st);
}

/* The GIL is let go only to wait: an enqueue returns in microseconds, and
 * handing the GIL over and back costs a call's share of them. */
static int run_gpu(work *w, const run_where *where) {
    gpu_ref *g = gpu_of(where->dl_id);
    if (!g) return -1;
    if (!PyThread_acquire_lock(g->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(g->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    void *stream = (void *)where->stream;
    dmls_status st = dmls_device_use_stream(g->dev, &stream);
    if (st == DMLS_OK) st = run_wrapped(g->dev, w);
    if (st == DMLS_OK && where->sync) {
        Py_BEGIN_ALLOW_THREADS st = dmls_device_synchronize(g->dev);
        Py_END_ALLOW_THREADS
    }
    PyThread_release_lock(g->lock);
    return st == DMLS_OK ? 0 : raise_status(st);
}

static int run(work *w, const run_where *where, uint64_t out_bytes) {
    return devices_is_gpu(where->dl_type) ? run_gpu(w, where) : run_cpu(w, out_bytes);
}

int devices_execute(const run_where *where, const dmls_operator *op, void *in, uint64_t in_bytes, void *out,
                    uint64_t out_bytes) {
    const dmls_batch_input i = {in, in_bytes};
    const dmls_batch_output o = {out, out_bytes};
    dmls_device_binding bi, bo;
    work w = {op, NULL, &i, &o, 1, 1, &bi, &bo};
    return run(&w, where, out_bytes);
}

int devices_batch(const run_where *where, dmls_batch *b, const dmls_batch_input *in, uint32_t n_in,
                  const dmls_batch_output *out, uint32_t n_out, uint64_t out_bytes) {
    dmls_device_binding in_fixed[FIXED_SLOTS], out_fixed[FIXED_SLOTS];
    work w = {NULL, b, in, out, n_in, n_out, in_fixed, out_fixed};
    if (n_in > FIXED_SLOTS) w.bi = PyMem_Malloc(n_in * sizeof *w.bi);
    if (n_out > FIXED_SLOTS) w.bo = PyMem_Malloc(n_out * sizeof *w.bo);
    const int rc = w.bi && w.bo ? run(&w, where, out_bytes) : (PyErr_NoMemory(), -1);
    if (w.bi != in_fixed) PyMem_Free(w.bi);
    if (w.bo != out_fixed) PyMem_Free(w.bo);
    return rc;
}

int devices_set_threads(int n) {
    cpu_ref *fresh = cpu_make(n);
    if (!fresh) return -1;
    cpu_ref *old = cpu;
    cpu = fresh;
    cpu_wanted = n;
    if (old) {
        old->retired = 1;
        if (old->users == 0) cpu_close(old);
    }
    return 0;
}

int devices_threads(void) {
    cpu_ref *r = cpu_enter();
    if (!r) return -1;
    const int n = dmls_device_threads(r->dev);
    cpu_leave(r);
    return n;
}

int devices_available(int dl_type) {
    dmls_device_info info;
    const char *kind = devices_is_gpu(dl_type) ? "cuda" : "cpu";
    for (size_t k = 0; dmls_device_info_at(k, &info) == DMLS_OK; k++)
        if (strcmp(info.kind, kind) == 0) return 1;
    return 0;
}

void devices_after_fork_child(void) {
    /* The parent's workers and GPU contexts are not in the child: they are
     * dropped, not closed (there is nothing there to stop), and the child
     * opens its own. */
    cpu = NULL;
    memset(gpus, 0, sizeof gpus);
}
