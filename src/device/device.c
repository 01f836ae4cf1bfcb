/* The device interface's one front (dmlslice/device.h): names parsed,
 * ranges checked, then the backend's entry called through the backend
 * table (backend.h). No backend is named here: a new one is found by its
 * line in backends.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend.h"
#include "../error.h"
#include "../platform/platform.h"
#include "device_ops.h"

static const dmls_backend *backend_of(const char *kind, size_t len) {
    for (int b = 0; b < DMLS_BACKEND_COUNT; b++) {
        const dmls_backend *e = dmls_backends[b];
        if (e != NULL && strlen(e->name) == len && strncmp(e->name, kind, len) == 0) return e;
    }
    return NULL;
}

/* Whether a backend of that name exists at all (built in or not), so that
 * "cuda" in a build without CUDA is NO_DEVICE and "gpu" is a bad name. */
static int known_kind(const char *kind, size_t len) {
    for (int b = 0; b < DMLS_BACKEND_COUNT; b++)
        if (strlen(dmls_backend_names[b]) == len && strncmp(dmls_backend_names[b], kind, len) == 0) return 1;
    return 0;
}

static int backend_count(const dmls_backend *b) {
    return b != NULL && b->device != NULL ? b->device->count() : 0;
}

size_t dmls_device_count(void) {
    size_t n = 0;
    for (int b = 0; b < DMLS_BACKEND_COUNT; b++) n += (size_t)backend_count(dmls_backends[b]);
    return n;
}

static void fill_names(const dmls_backend *b, int index, dmls_device_info *info) {
    if (strcmp(b->name, "cpu") == 0)
        snprintf(info->name, sizeof info->name, "cpu");
    else
        snprintf(info->name, sizeof info->name, "%s:%d", b->name, index);
    snprintf(info->kind, sizeof info->kind, "%s", b->name);
}

static dmls_status describe(const dmls_backend *b, int index, dmls_device_info *info) {
    memset(info, 0, sizeof *info);
    fill_names(b, index, info);
    return b->device->info(index, info);
}

dmls_status dmls_device_info_at(size_t index, dmls_device_info *info) {
    dmls_clear_error();
    RETURN_IF(info == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_info_at: info is NULL");
    size_t first = 0;
    for (int b = 0; b < DMLS_BACKEND_COUNT; b++) {
        const size_t n = (size_t)backend_count(dmls_backends[b]);
        if (index < first + n) return describe(dmls_backends[b], (int)(index - first), info);
        first += n;
    }
    return dmls_fail(DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_info_at: device %zu of %zu", index, first);
}

/* "kind" or "kind:N" into the backend's name length and N (0 without). */
static dmls_status parse_name(const char *name, size_t *kind_len, int *index) {
    const char *colon = strchr(name, ':');
    *kind_len = colon ? (size_t)(colon - name) : strlen(name);
    *index = 0;
    RETURN_IF(!known_kind(name, *kind_len), DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "device '%s': unknown (cpu, cuda, cuda:N, vulkan or vulkan:N)", name);
    if (colon == NULL) return DMLS_OK;
    char *end = NULL;
    errno = 0;
    const long n = strtol(colon + 1, &end, 10);
    RETURN_IF(colon[1] < '0' || colon[1] > '9' || *end != '\0' || errno != 0 || n > 1000000 ||
                  strncmp(name, "cpu", *kind_len) == 0,
              DMLS_ERROR_INVALID_ARGUMENT, NULL, "device '%s': the device number after ':' is not a number from 0%s",
              name, strncmp(name, "cpu", *kind_len) == 0 ? " (the CPU takes none)" : "");
    *index = (int)n;
    return DMLS_OK;
}

dmls_status dmls_device_open(const char *name, dmls_device **dev) {
    dmls_clear_error();
    RETURN_IF(dev == NULL || name == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_open: %s is NULL",
              dev == NULL ? "dev" : "name");
    *dev = NULL;
    size_t kind_len;
    int index;
    RETURN_IF_ERROR(parse_name(name, &kind_len, &index));
    const dmls_backend *b = backend_of(name, kind_len);
    RETURN_IF(b == NULL || b->device == NULL, DMLS_ERROR_NO_DEVICE, NULL,
              "device '%s': this build has no %.*s backend", name, (int)kind_len, name);
    dmls_clear_error();
    const int n = b->device->count();
    if (index >= n) {
        char why[256]; /* count's reason, kept apart from the message it becomes part of */
        snprintf(why, sizeof why, "%s", n == 0 ? dmls_last_error() : "");
        return dmls_fail(DMLS_ERROR_NO_DEVICE, NULL, "device '%s': the %s backend sees %d device%s%s%s", name, b->name,
                         n, n == 1 ? "" : "s", why[0] ? ": " : "", why);
    }
    dmls_device *d = calloc(1, sizeof *d);
    RETURN_IF(d == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "device '%s': no memory", name);
    d->ops = b->device;
    d->index = index;
    const dmls_status s = d->ops->open(d);
    if (s == DMLS_OK)
        *dev = d;
    else
        free(d);
    return s;
}

void dmls_device_close(dmls_device *dev) {
    if (dev == NULL) return;
    dmls_destroy(dev->copy_op); /* before the backend's context it may have been prepared on */
    dev->ops->close(dev);
    free(dev);
}

static const char *kind_of(const dmls_device *dev) {
    for (int b = 0; b < DMLS_BACKEND_COUNT; b++)
        if (dmls_backends[b] != NULL && dmls_backends[b]->device == dev->ops) return dmls_backends[b]->name;
    return "?";
}

dmls_status dmls_device_describe(const dmls_device *dev, dmls_device_info *info) {
    dmls_clear_error();
    RETURN_IF(dev == NULL || info == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_describe: %s is NULL",
              dev == NULL ? "dev" : "info");
    for (int b = 0; b < DMLS_BACKEND_COUNT; b++)
        if (dmls_backends[b] != NULL && dmls_backends[b]->device == dev->ops)
            return describe(dmls_backends[b], dev->index, info);
    return dmls_fail(DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_describe: not an open device");
}

dmls_status dmls_device_alloc(dmls_device *dev, uint64_t bytes, dmls_device_buffer **buf) {
    dmls_clear_error();
    RETURN_IF(dev == NULL || buf == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_alloc: %s is NULL",
              dev == NULL ? "dev" : "buf");
    *buf = NULL;
    RETURN_IF(bytes > UINT64_MAX - 16, DMLS_ERROR_OUT_OF_MEMORY, NULL, "dmls_device_alloc: %llu bytes",
              (unsigned long long)bytes);
    return dev->ops->alloc(dev, bytes, buf);
}

void dmls_device_free(dmls_device *dev, dmls_device_buffer *buf) {
    if (dev == NULL || buf == NULL) return;
    if (buf->wrapped)
        free(buf); /* the memory is the caller's */
    else
        dev->ops->free(dev, buf);
}

uint64_t dmls_device_buffer_bytes(const dmls_device_buffer *buf) { return buf != NULL ? buf->bytes : 0; }

void *dmls_device_buffer_address(const dmls_device_buffer *buf) {
    return buf != NULL && buf->bytes > 0 ? buf->address : NULL;
}

dmls_status dmls_device_wrap(dmls_device *dev, void *address, uint64_t bytes, dmls_device_buffer **buf) {
    dmls_clear_error();
    RETURN_IF(dev == NULL || buf == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_wrap: %s is NULL",
              dev == NULL ? "dev" : "buf");
    *buf = NULL;
    RETURN_IF(dev->ops->check_wrap == NULL, DMLS_ERROR_UNSUPPORTED, NULL,
              "dmls_device_wrap: a %s device's memory has no addresses to wrap", kind_of(dev));
    RETURN_IF(address == NULL && bytes > 0, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_wrap: the address is NULL for %llu bytes", (unsigned long long)bytes);
    RETURN_IF((uintptr_t)address > UINTPTR_MAX - bytes, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_wrap: %llu bytes at %p pass the end of the address space", (unsigned long long)bytes,
              address);
    if (bytes > 0) RETURN_IF_ERROR(dev->ops->check_wrap(dev, address, bytes));
    dmls_device_buffer *b = calloc(1, sizeof *b);
    RETURN_IF(b == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "dmls_device_wrap: no memory for a buffer's record");
    b->bytes = bytes;
    b->address = bytes > 0 ? address : NULL;
    b->wrapped = 1;
    *buf = b;
    return DMLS_OK;
}

dmls_status dmls_device_use_stream(dmls_device *dev, const void *stream) {
    dmls_clear_error();
    RETURN_IF(dev == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_use_stream: dev is NULL");
    RETURN_IF(stream != NULL && !dev->ops->has_streams, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_use_stream: a %s device has no streams", kind_of(dev));
    dev->caller_stream = stream != NULL;
    dev->stream = stream != NULL ? *(void *const *)stream : NULL;
    return DMLS_OK;
}

dmls_status dmls_device_set_threads(dmls_device *dev, int num_threads) {
    dmls_clear_error();
    RETURN_IF(dev == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_set_threads: dev is NULL");
    return dev->ops->set_threads != NULL ? dev->ops->set_threads(dev, num_threads) : DMLS_OK;
}

int dmls_device_threads(const dmls_device *dev) {
    return dev != NULL && dev->ops->threads != NULL ? dev->ops->threads(dev) : 1;
}

/* The range [offset, offset + bytes) of buf, named `what` in the error. */
static dmls_status check_range(const char *what, const dmls_device_buffer *buf, uint64_t offset, uint64_t bytes) {
    RETURN_IF(buf == NULL && bytes > 0, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: the buffer is NULL for %llu bytes",
              what, (unsigned long long)bytes);
    const uint64_t size = buf != NULL ? buf->bytes : 0;
    RETURN_IF(offset > size || bytes > size - offset, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "%s: bytes [%llu, %llu + %llu) leave the buffer of %llu bytes", what, (unsigned long long)offset,
              (unsigned long long)offset, (unsigned long long)bytes, (unsigned long long)size);
    return DMLS_OK;
}

dmls_status dmls_device_upload(dmls_device *dev, dmls_device_buffer *dst, uint64_t offset, const void *src,
                               uint64_t bytes) {
    dmls_clear_error();
    RETURN_IF(dev == NULL || (src == NULL && bytes > 0), DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_upload: %s is NULL", dev == NULL ? "dev" : "src");
    RETURN_IF_ERROR(check_range("dmls_device_upload", dst, offset, bytes));
    return bytes > 0 ? dev->ops->upload(dev, dst, offset, src, bytes) : DMLS_OK;
}

dmls_status dmls_device_download(dmls_device *dev, const dmls_device_buffer *src, uint64_t offset, void *dst,
                                 uint64_t bytes) {
    dmls_clear_error();
    RETURN_IF(dev == NULL || (dst == NULL && bytes > 0), DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_download: %s is NULL", dev == NULL ? "dev" : "dst");
    RETURN_IF_ERROR(check_range("dmls_device_download", src, offset, bytes));
    return bytes > 0 ? dev->ops->download(dev, src, offset, dst, bytes) : dev->ops->synchronize(dev);
}

dmls_status dmls_device_execute(dmls_device *dev, const dmls_operator *op, dmls_device_binding in,
                                dmls_device_binding out) {
    dmls_clear_error();
    RETURN_IF(dev == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_execute: dev is NULL");
    RETURN_IF(op == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "dmls_device_execute: op is NULL");
    RETURN_IF_ERROR(check_range("dmls_device_execute: input", in.buffer, in.offset, in.bytes));
    RETURN_IF_ERROR(check_range("dmls_device_execute: output", out.buffer, out.offset, out.bytes));
    return dev->ops->execute(dev, op, &in, &out);
}

dmls_status dmls_device_batch_prepare(dmls_device *dev, dmls_batch *batch) {
    dmls_clear_error();
    RETURN_IF(dev == NULL || batch == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_batch_prepare: %s is NULL",
              dev == NULL ? "dev" : "batch");
    return dev->ops->batch_prepare != NULL ? dev->ops->batch_prepare(dev, batch) : DMLS_OK;
}

static dmls_status check_slots(const char *what, const dmls_device_binding *b, uint32_t n) {
    RETURN_IF(b == NULL && n > 0, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_batch_execute: %s is NULL", what);
    for (uint32_t k = 0; k < n; k++) {
        const dmls_device_buffer *buf = b[k].buffer;
        const uint64_t size = buf != NULL ? buf->bytes : 0;
        if ((buf != NULL || b[k].bytes == 0) && b[k].offset <= size && b[k].bytes <= size - b[k].offset) continue;
        /* The slot's name is written only for its error: a formatted name
         * per slot cost more than the rest of the check (bench.py's
         * per-array row). */
        char name[64];
        snprintf(name, sizeof name, "dmls_device_batch_execute: %s[%u]", what, k);
        return check_range(name, buf, b[k].offset, b[k].bytes);
    }
    return DMLS_OK;
}

dmls_status dmls_device_batch_execute(dmls_device *dev, const dmls_batch *batch, const dmls_device_binding *inputs,
                                      uint32_t n_inputs, const dmls_device_binding *outputs, uint32_t n_outputs) {
    dmls_clear_error();
    RETURN_IF(dev == NULL || batch == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_batch_execute: %s is NULL",
              dev == NULL ? "dev" : "batch");
    RETURN_IF_ERROR(check_slots("inputs", inputs, n_inputs));
    RETURN_IF_ERROR(check_slots("outputs", outputs, n_outputs));
    return dev->ops->batch_execute(dev, batch, inputs, n_inputs, outputs, n_outputs);
}

dmls_status dmls_device_synchronize(dmls_device *dev) {
    dmls_clear_error();
    RETURN_IF(dev == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_synchronize: dev is NULL");
    return dev->ops->synchronize(dev);
}

dmls_status dmls_device_batch_by_address(dmls_device *dev, const dmls_batch *batch, const dmls_device_binding *inputs,
                                         uint32_t n_inputs, const dmls_device_binding *outputs, uint32_t n_outputs,
                                         dmls_device_batch_fn run) {
    /* The usual few slots need no allocation. */
    dmls_batch_input in_fixed[8];
    dmls_batch_output out_fixed[8];
    dmls_batch_input *in = n_inputs <= 8 ? in_fixed : malloc(n_inputs * sizeof *in);
    dmls_batch_output *out = n_outputs <= 8 ? out_fixed : malloc(n_outputs * sizeof *out);
    dmls_status s;
    if (in == NULL || out == NULL) {
        s = dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "no memory for %u + %u batch slots", n_inputs, n_outputs);
    } else {
        for (uint32_t k = 0; k < n_inputs; k++)
            in[k].data = dmls_device_binding_address(&inputs[k]), in[k].bytes = inputs[k].bytes;
        for (uint32_t k = 0; k < n_outputs; k++)
            out[k].data = dmls_device_binding_address(&outputs[k]), out[k].bytes = outputs[k].bytes;
        s = run(dev, batch, in, n_inputs, out, n_outputs);
    }
    if (in != in_fixed) free(in);
    if (out != out_fixed) free(out);
    return s;
}

dmls_status dmls_device_copy_op(dmls_device *dev, uint64_t bytes, const dmls_operator **op) {
    if (dev->copy_op == NULL || dev->copy_bytes != bytes) {
        RETURN_IF(bytes > INT64_MAX, DMLS_ERROR_INVALID_ARGUMENT, NULL, "a copy of %llu bytes",
                  (unsigned long long)bytes);
        const int64_t n = (int64_t)bytes, zero = 0, one = 1;
        const dmls_tensor t = {DMLS_UINT8, 1, &n, NULL, 0};
        const dmls_window w = {&zero, &n, &one};
        dmls_operator *made = NULL;
        RETURN_IF_ERROR(dmls_create(&t, &t, &w, &made));
        dmls_destroy(dev->copy_op);
        dev->copy_op = made, dev->copy_bytes = bytes;
    }
    *op = dev->copy_op;
    return DMLS_OK;
}

/* A copy's arguments: both ranges in their buffers, one size, and apart
 * where they share a buffer. */
static dmls_status check_copy(const dmls_device_binding *dst, const dmls_device_binding *src) {
    RETURN_IF_ERROR(check_range("dmls_device_copy: destination", dst->buffer, dst->offset, dst->bytes));
    RETURN_IF_ERROR(check_range("dmls_device_copy: source", src->buffer, src->offset, src->bytes));
    RETURN_IF(dst->bytes != src->bytes, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_copy: the destination's %llu bytes are not the source's %llu", (unsigned long long)dst->bytes,
              (unsigned long long)src->bytes);
    RETURN_IF(dst->buffer == src->buffer && dst->bytes > 0 && dst->offset < src->offset + src->bytes &&
                  src->offset < dst->offset + dst->bytes,
              DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_copy: bytes [%llu, +%llu) and [%llu, +%llu) of one buffer overlap",
              (unsigned long long)dst->offset, (unsigned long long)dst->bytes, (unsigned long long)src->offset,
              (unsigned long long)src->bytes);
    return DMLS_OK;
}

static dmls_status copy_checked(dmls_device *dev, const dmls_device_binding *dst, const dmls_device_binding *src) {
    if (dst->bytes == 0) return DMLS_OK;
    if (dev->ops->copy != NULL) return dev->ops->copy(dev, dst, src);
    const dmls_operator *op = NULL;
    RETURN_IF_ERROR(dmls_device_copy_op(dev, dst->bytes, &op));
    return dev->ops->execute(dev, op, src, dst);
}

dmls_status dmls_device_copy(dmls_device *dev, dmls_device_binding dst, dmls_device_binding src) {
    dmls_clear_error();
    RETURN_IF(dev == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_copy: dev is NULL");
    RETURN_IF_ERROR(check_copy(&dst, &src));
    return copy_checked(dev, &dst, &src);
}

static dmls_status check_work(const dmls_device_work *w) {
    RETURN_IF(w->n_in < 1 && w->batch == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_time: an execute or a copy needs in[0] (n_in is 0)");
    RETURN_IF(w->n_out < 1 && w->batch == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_time: an execute or a copy needs out[0] (n_out is 0)");
    if (w->op != NULL) {
        RETURN_IF_ERROR(check_range("dmls_device_time: input", w->in[0].buffer, w->in[0].offset, w->in[0].bytes));
        return check_range("dmls_device_time: output", w->out[0].buffer, w->out[0].offset, w->out[0].bytes);
    }
    if (w->batch == NULL) return check_copy(&w->out[0], &w->in[0]);
    RETURN_IF_ERROR(check_slots("inputs", w->in, w->n_in));
    return check_slots("outputs", w->out, w->n_out);
}

dmls_status dmls_device_run_work(dmls_device *dev, const dmls_device_work *w) {
    if (w->op != NULL) return dev->ops->execute(dev, w->op, &w->in[0], &w->out[0]);
    if (w->batch != NULL) return dev->ops->batch_execute(dev, w->batch, w->in, w->n_in, w->out, w->n_out);
    return copy_checked(dev, &w->out[0], &w->in[0]);
}

/* The host's clock around each sample, for devices whose calls are done
 * (or synchronized) on return. */
static dmls_status time_on_host(dmls_device *dev, const dmls_device_work *w, uint32_t warm, uint32_t samples,
                                uint32_t per_sample, double *seconds) {
    for (uint32_t i = 0; i < warm; i++) RETURN_IF_ERROR(dmls_device_run_work(dev, w));
    RETURN_IF_ERROR(dev->ops->synchronize(dev));
    for (uint32_t k = 0; k < samples; k++) {
        const uint64_t t0 = dmls_monotonic_ns();
        for (uint32_t i = 0; i < per_sample; i++) RETURN_IF_ERROR(dmls_device_run_work(dev, w));
        RETURN_IF_ERROR(dev->ops->synchronize(dev));
        seconds[k] = (double)(dmls_monotonic_ns() - t0) * 1e-9 / per_sample;
    }
    return DMLS_OK;
}

dmls_status dmls_device_time(dmls_device *dev, const dmls_device_work *work, uint32_t warm, uint32_t samples,
                             uint32_t per_sample, double *seconds) {
    dmls_clear_error();
    RETURN_IF(dev == NULL || work == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_time: %s is NULL",
              dev == NULL ? "dev" : "work");
    RETURN_IF(seconds == NULL && samples > 0, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_time: seconds is NULL for %u samples", samples);
    RETURN_IF(per_sample < 1, DMLS_ERROR_INVALID_ARGUMENT, NULL, "dmls_device_time: per_sample is 0 (at least 1)");
    RETURN_IF((uint64_t)samples * per_sample > UINT32_MAX - warm, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_time: %u + %u x %u runs pass 2^32 - 1", warm, samples, per_sample);
    const int no_in = work->in == NULL && work->n_in > 0;
    RETURN_IF(no_in || (work->out == NULL && work->n_out > 0), DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "dmls_device_time: %s is NULL for %u slots", no_in ? "in" : "out", no_in ? work->n_in : work->n_out);
    RETURN_IF_ERROR(check_work(work));
    return dev->ops->time != NULL ? dev->ops->time(dev, work, warm, samples, per_sample, seconds)
                                  : time_on_host(dev, work, warm, samples, per_sample, seconds);
}
