/* See device.h. The buffers start as D3D12 places them (dmlslice/device.h:
 * 64 KiB), so a binding offset is exactly as aligned on the device as on
 * the host (R-X-ALIGN). */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>

#include "dmlslice/device.h"

struct device_buffers {
    dmls_device *dev;
    size_t n;
    dmls_device_buffer **res; /* resource i */
};

dmls_status device_upload(const char *name, size_t n, unsigned char *const *host, const uint64_t *sizes,
                          device_buffers **out, char *err) {
    *out = NULL;
    err[0] = '\0';
    device_buffers *d = calloc(1, sizeof *d);
    if (d) d->res = calloc(n + 1, sizeof *d->res);
    if (!d || !d->res) {
        free(d);
        snprintf(err, 256, "out of memory");
        return DMLS_ERROR_OUT_OF_MEMORY;
    }
    d->n = n;
    dmls_status s = dmls_device_open(name, &d->dev);
    for (size_t i = 0; s == DMLS_OK && i < n; i++) {
        s = dmls_device_alloc(d->dev, sizes[i], &d->res[i]);
        if (s == DMLS_OK) s = dmls_device_upload(d->dev, d->res[i], 0, host[i], sizes[i]);
    }
    if (s != DMLS_OK) {
        snprintf(err, 256, "%s", dmls_last_error());
        device_free(d);
        return s;
    }
    *out = d;
    return DMLS_OK;
}

dmls_status device_dispatch(device_buffers *d, const dmls_operator *op, size_t in, uint64_t in_off, size_t out,
                            uint64_t out_off, unsigned char *host, char *err) {
    err[0] = '\0';
    const uint64_t in_size = dmls_device_buffer_bytes(d->res[in]), out_size = dmls_device_buffer_bytes(d->res[out]);
    const dmls_device_binding bi = {d->res[in], in_off, in_size - in_off}, bo = {d->res[out], out_off, out_size - out_off};
    dmls_status s = dmls_device_execute(d->dev, op, bi, bo);
    if (s == DMLS_OK) s = dmls_device_download(d->dev, d->res[out], 0, host, out_size);
    if (s != DMLS_OK) snprintf(err, 256, "%s", dmls_last_error());
    return s;
}

void device_free(device_buffers *d) {
    if (!d) return;
    for (size_t i = 0; d->dev && i < d->n; i++) dmls_device_free(d->dev, d->res[i]);
    dmls_device_close(d->dev);
    free(d->res);
    free(d);
}
