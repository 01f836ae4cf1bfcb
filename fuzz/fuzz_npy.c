#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c11 */
/* Fuzz target: the .npy header readers of the dmlslice tool (DirectML's
 * types, and any item size). The input is a whole file. A parse either fails with a message naming the file, or gives
 * a header whose data lies inside the file and whose strides address only
 * that data; the data is then sliced whole, through those strides, into a
 * guard-page buffer. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "npy_format.h"

/* The slicing commands' reader (any fixed-size dtype, records included):
 * a message naming the file, or items of parts units that hold the data. */
static void check_items(const unsigned char *file, size_t size) {
    static npy_header h; /* NPY_MAX_DESCR bytes of descr */
    char err[NPY_ERR_LEN];
    err[0] = '\0';
    if (!npy_parse_header_items("fuzz.npy", file, size, &h, err)) {
        if (strstr(err, "fuzz.npy") == NULL) abort();
        for (const char *c = err; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f) abort();
        return;
    }
    if (h.parts < 1 || h.esize != dmls_dtype_size(h.dtype) * (size_t)h.parts || strlen(h.descr) >= NPY_MAX_DESCR)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    guarded file;
    if (guarded_alloc(&file, size, 0)) abort();
    memcpy(file.data, data, size);
    check_items(file.data, size);
    npy_header h;
    char err[NPY_ERR_LEN];
    err[0] = '\0';
    if (!npy_parse_header("fuzz.npy", file.data, size, &h, err) ||
        !npy_check_data("fuzz.npy", &h, size - h.data_offset, err)) {
        if (strstr(err, "fuzz.npy") == NULL) abort(); /* every message names the file */
        for (const char *c = err; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f) abort(); /* file text is escaped */
        guarded_free(&file);
        return 0;
    }
    if (h.data_offset > size || h.data_bytes > size - h.data_offset) abort();
    if (h.ndim < 0 || h.ndim > NPY_MAX_RANK || h.esize != dmls_dtype_size(h.dtype)) abort();
    int64_t strides[NPY_MAX_RANK];
    npy_strides(&h, strides);
    /* The whole-array copy needs a rank the library plans directly. */
    if (h.data_bytes <= (1u << 20) && h.ndim <= DMLS_MAX_RANK) {
        int64_t off[DMLS_MAX_RANK] = {0}, st[DMLS_MAX_RANK];
        for (int i = 0; i < h.ndim; i++) st[i] = 1;
        dmls_tensor in = {h.dtype, h.ndim, h.shape, strides, 0}, out = {h.dtype, h.ndim, h.shape, NULL, 0};
        dmls_window w = {off, h.shape, st};
        dmls_operator *op = NULL;
        if (dmls_create(&in, &out, &w, &op) != DMLS_OK) abort();
        if (dmls_input_bytes(op) > h.data_bytes) abort(); /* the strides stay inside the data */
        guarded o;
        if (guarded_alloc(&o, dmls_output_bytes(op), 0)) abort();
        if (dmls_execute(op, file.data + h.data_offset, h.data_bytes, o.data, dmls_output_bytes(op)) != DMLS_OK)
            abort();
        guarded_free(&o);
        dmls_destroy(op);
    }
    guarded_free(&file);
    return 0;
}
