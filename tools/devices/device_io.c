/* See device_io.h. One path for every backend: the device is opened by
 * the name --device gave, and only dmlslice/device.h is called. */
#include "device_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "dmlslice/device.h"

void device_io_fallback(device_choice *d) {
    if (d->kind != DEVICE_CUDA) return;
    dmls_device *dev = NULL;
    if (dmls_device_open(d->name, &dev) == DMLS_OK) {
        dmls_device_close(dev);
        return;
    }
    fprintf(stderr, "%s: --device cuda: %s; running on the CPU\n", args_prog, dmls_last_error());
    d->kind = DEVICE_CPU;
    snprintf(d->name, sizeof d->name, "cpu");
}

/* The device and its two buffers: the input, and one for every output
 * (each at a multiple of 16 bytes: whole words apart, so that a batch's
 * items run with no barrier between them on Vulkan). */
typedef struct device_run {
    dmls_device *dev;
    dmls_device_buffer *in, *out;
} device_run;

static dmls_status run_open(device_run *r, const device_choice *d, const void *in, uint64_t in_bytes,
                            uint64_t out_bytes) {
    memset(r, 0, sizeof *r);
    dmls_status s = dmls_device_open(d->name, &r->dev);
    if (s == DMLS_OK) s = dmls_device_alloc(r->dev, in_bytes, &r->in);
    if (s == DMLS_OK) s = dmls_device_alloc(r->dev, out_bytes, &r->out);
    if (s == DMLS_OK) s = dmls_device_upload(r->dev, r->in, 0, in, in_bytes);
    return s;
}

/* Keeps the failure's message in err before the cleanup can replace it. */
static dmls_status run_close(device_run *r, dmls_status s, char *err) {
    if (s != DMLS_OK) snprintf(err, 256, "%s", dmls_last_error());
    if (r->dev == NULL) return s;
    dmls_device_free(r->dev, r->in);
    dmls_device_free(r->dev, r->out);
    dmls_device_close(r->dev);
    return s;
}

dmls_status device_io_run(const device_choice *d, const dmls_operator *op, const void *in, uint64_t in_bytes,
                          void *out, uint64_t out_bytes, char *err) {
    err[0] = '\0';
    device_run r;
    dmls_status s = run_open(&r, d, in, in_bytes, out_bytes);
    /* The output's padding keeps the file's bytes, as on the CPU. */
    if (s == DMLS_OK) s = dmls_device_upload(r.dev, r.out, 0, out, out_bytes);
    if (s == DMLS_OK)
        s = dmls_device_execute(r.dev, op, (dmls_device_binding){r.in, 0, in_bytes},
                                (dmls_device_binding){r.out, 0, out_bytes});
    /* Copied back only after a successful run, so a failure leaves out as it was. */
    if (s == DMLS_OK) s = dmls_device_download(r.dev, r.out, 0, out, out_bytes);
    return run_close(&r, s, err);
}

dmls_status device_io_run_batch(const device_choice *d, dmls_batch *batch, const void *in, uint64_t in_bytes,
                                void *const *outs, const uint64_t *out_bytes, uint32_t n, char *err) {
    err[0] = '\0';
    dmls_device_binding *slots = calloc(n ? n : 1, sizeof *slots);
    if (slots == NULL) {
        snprintf(err, 256, "no memory for %u output slots", n);
        return DMLS_ERROR_OUT_OF_MEMORY;
    }
    uint64_t total = 0;
    for (uint32_t k = 0; k < n; k++) {
        slots[k].offset = total, slots[k].bytes = out_bytes[k];
        total += (out_bytes[k] + 15) / 16 * 16;
    }
    device_run r;
    dmls_status s = run_open(&r, d, in, in_bytes, total);
    for (uint32_t k = 0; s == DMLS_OK && k < n; k++) {
        slots[k].buffer = r.out;
        s = dmls_device_upload(r.dev, r.out, slots[k].offset, outs[k], out_bytes[k]);
    }
    if (s == DMLS_OK) s = dmls_device_batch_prepare(r.dev, batch);
    if (s == DMLS_OK) s = dmls_device_batch_execute(r.dev, batch, &(dmls_device_binding){r.in, 0, in_bytes}, 1, slots, n);
    for (uint32_t k = 0; s == DMLS_OK && k < n; k++)
        s = dmls_device_download(r.dev, r.out, slots[k].offset, outs[k], out_bytes[k]);
    free(slots);
    return run_close(&r, s, err);
}
