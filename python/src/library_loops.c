/*
 * library_loops.c: _library_loop(kind, rows, cols, n, calls, device="cpu"),
 * the library's calls for the benchmark's overhead rows, made `calls` times
 * back to back on this thread with the GIL held, as the binding makes
 * them, after one untimed call; it returns the seconds the `calls` took
 * (Python's time.perf_counter, the bench's clock), and Python may time the
 * whole loop too (one Python call over many library calls). On a float32
 * rows x cols C-contiguous array of the library's own:
 *   "slice"  x[1:3, ::2] (n unused), the operator made once
 *   "split"  a split of the last axis into n equal parts (cols a multiple
 *            of n), the batch made once
 * On "cpu": dmls_execute / dmls_batch_execute on host memory. On "cuda" or
 * "cuda:N": the device interface (<dmlslice/device.h>) on buffers of the
 * device's own, each call as the binding makes it for a CuPy or PyTorch
 * array (devices.c run_gpu): the stream set, then dmls_device_execute, or
 * dmls_device_batch_prepare and dmls_device_batch_execute; no synchronize
 * per call (the binding makes none for those libraries), one after the
 * last call, inside the time. The bench compares these with Operator and
 * ds.split on an array of the same shape on the same device.
 */
#include "library_loops.h"

#include <stdlib.h>
#include <string.h>

#include <dmlslice/batch.h>
#include <dmlslice/device.h>

#include "errors.h"

#define MAX_PARTS 64

/* The work, whatever the device. */
typedef struct loop_work {
    int64_t rows, cols, n;
    long calls;
    dmls_operator *op; /* "slice" */
    dmls_batch *batch; /* "split" */
} loop_work;

static dmls_status make_slice(loop_work *w) {
    const int64_t in_shape[2] = {w->rows, w->cols}, out_shape[2] = {2, (w->cols + 1) / 2};
    const int64_t offs[2] = {1, 0}, sizes[2] = {2, w->cols}, steps[2] = {1, 2};
    const dmls_tensor in = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    const dmls_window win = {offs, sizes, steps};
    return dmls_create(&in, &out, &win, &w->op);
}

static dmls_status make_split(loop_work *w) {
    const int64_t shape[2] = {w->rows, w->cols};
    int64_t sizes[MAX_PARTS];
    for (int64_t j = 0; j < w->n; j++) sizes[j] = w->cols / w->n;
    const dmls_tensor in = {DMLS_FLOAT32, 2, shape, NULL, 0};
    return dmls_batch_create_split(&in, 1, sizes, (size_t)w->n, 0, &w->batch);
}

static uint64_t in_bytes(const loop_work *w) { return (uint64_t)(w->rows * w->cols) * 4; }
static uint64_t part_bytes(const loop_work *w) { return (uint64_t)(w->rows * (w->cols / w->n)) * 4; }
static uint64_t slice_bytes(const loop_work *w) { return (uint64_t)(2 * ((w->cols + 1) / 2)) * 4; }

/* One call's arguments on the CPU: host memory. */
typedef struct host_slots {
    dmls_batch_input in;
    dmls_batch_output out[MAX_PARTS];
} host_slots;

/* One call's arguments on a device: its buffers, bound as the binding binds
 * an array each (one binding per slot). */
typedef struct device_slots {
    dmls_device *dev;
    dmls_device_binding in, out[MAX_PARTS];
} device_slots;

static dmls_status host_call(const loop_work *w, const void *slots) {
    const host_slots *s = slots;
    if (w->op) return dmls_execute(w->op, s->in.data, s->in.bytes, s->out[0].data, s->out[0].bytes);
    return dmls_batch_execute(w->batch, NULL, &s->in, 1, s->out, (uint32_t)w->n);
}

static dmls_status device_call(const loop_work *w, const void *slots) {
    const device_slots *s = slots;
    /* The legacy default stream: CuPy's and PyTorch's current stream unless
     * the caller chose another; the binding sets the array's each call. */
    void *stream = NULL;
    dmls_status st = dmls_device_use_stream(s->dev, &stream);
    if (st == DMLS_OK && w->op) return dmls_device_execute(s->dev, w->op, s->in, s->out[0]);
    if (st == DMLS_OK) st = dmls_device_batch_prepare(s->dev, w->batch);
    if (st == DMLS_OK) st = dmls_device_batch_execute(s->dev, w->batch, &s->in, 1, s->out, (uint32_t)w->n);
    return st;
}

typedef dmls_status (*call_fn)(const loop_work *w, const void *slots);

/* time.perf_counter(), or -1 with an exception. */
static double perf_counter(void) {
    PyObject *time = PyImport_ImportModule("time");
    PyObject *t = time ? PyObject_CallMethod(time, "perf_counter", NULL) : NULL;
    const double s = t ? PyFloat_AsDouble(t) : -1;
    Py_XDECREF(t);
    Py_XDECREF(time);
    return s;
}

/* One untimed call (a GPU loads its kernels at the first), then w->calls
 * timed, ending with dev's synchronize where there is a device: *seconds. */
static dmls_status timed(const loop_work *w, call_fn call, const void *slots, dmls_device *dev, double *seconds) {
    dmls_status st = call(w, slots);
    if (st == DMLS_OK && dev) st = dmls_device_synchronize(dev);
    const double t0 = perf_counter();
    for (long k = 0; st == DMLS_OK && k < w->calls; k++) st = call(w, slots);
    if (st == DMLS_OK && dev) st = dmls_device_synchronize(dev);
    *seconds = perf_counter() - t0;
    return st;
}

/* The CPU's loop on host arrays of the library's own. */
static dmls_status host_loop(const loop_work *w, double *seconds) {
    float *x = calloc((size_t)(w->rows * w->cols), sizeof *x), *y = calloc((size_t)(w->rows * w->cols), sizeof *y);
    host_slots s = {{x, in_bytes(w)}, {{y, slice_bytes(w)}}};
    for (int64_t j = 0; w->batch && j < w->n; j++)
        s.out[j] = (dmls_batch_output){(char *)y + j * part_bytes(w), part_bytes(w)};
    dmls_status st = x && y ? timed(w, host_call, &s, NULL, seconds) : DMLS_ERROR_OUT_OF_MEMORY;
    if (!x || !y) PyErr_NoMemory(); /* ours, not the library's: its message would be stale */
    free(x), free(y);
    return st;
}

/* The device's loop on buffers of the device's own; the output's parts
 * are ranges of one buffer, as parts of one allocation would be. */
static dmls_status device_loop(const char *name, const loop_work *w, double *seconds) {
    device_slots s = {0};
    dmls_device_buffer *x = NULL, *y = NULL;
    dmls_status st = dmls_device_open(name, &s.dev);
    if (st == DMLS_OK) st = dmls_device_alloc(s.dev, in_bytes(w), &x);
    if (st == DMLS_OK) st = dmls_device_alloc(s.dev, in_bytes(w), &y);
    if (st == DMLS_OK) {
        s.in = (dmls_device_binding){x, 0, in_bytes(w)};
        s.out[0] = (dmls_device_binding){y, 0, slice_bytes(w)};
        for (int64_t j = 0; w->batch && j < w->n; j++)
            s.out[j] = (dmls_device_binding){y, (uint64_t)j * part_bytes(w), part_bytes(w)};
        st = timed(w, device_call, &s, s.dev, seconds);
    }
    dmls_device_free(s.dev, x);
    dmls_device_free(s.dev, y);
    dmls_device_close(s.dev);
    return st;
}

/* "cpu", "cuda" or "cuda:N" (the name's number is dmls_device_open's to
 * check): the devices the package's arrays live on. */
static int known_device(const char *name) {
    return strcmp(name, "cpu") == 0 || (strncmp(name, "cuda", 4) == 0 && (name[4] == '\0' || name[4] == ':'));
}

PyObject *library_loop_fn(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static const char *kwlist[] = {"kind", "rows", "cols", "n", "calls", "device", NULL};
    const char *kind, *device = "cpu";
    long long rows, cols, n;
    long calls;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sLLLl|s:_library_loop", (char **)kwlist, &kind, &rows, &cols, &n,
                                     &calls, &device))
        return NULL;
    const int split = strcmp(kind, "split") == 0;
    if ((!split && strcmp(kind, "slice") != 0) || rows < 3 || cols < 1 || rows * cols > (1 << 24) ||
        (split && (n < 1 || n > MAX_PARTS || cols % n != 0)) || calls < 0 || !known_device(device))
        return PyErr_Format(PyExc_ValueError,
                            "_library_loop: kind '%s' (slice or split), %lld x %lld (at least 3 x 1, at most 2^24 "
                            "elements), %lld parts (1..%d dividing the columns), %ld calls (0 or more), device '%s' "
                            "(cpu, cuda or cuda:N)",
                            kind, rows, cols, n, MAX_PARTS, calls, device);
    loop_work w = {rows, cols, n, calls, NULL, NULL};
    double seconds = 0;
    dmls_status st = split ? make_split(&w) : make_slice(&w);
    if (st == DMLS_OK) st = strcmp(device, "cpu") == 0 ? host_loop(&w, &seconds) : device_loop(device, &w, &seconds);
    dmls_destroy(w.op);
    dmls_batch_destroy(w.batch);
    if (PyErr_Occurred()) return NULL; /* the host arrays' or perf_counter's */
    if (st != DMLS_OK) return ext_raise_status(st);
    return PyFloat_FromDouble(seconds);
}
