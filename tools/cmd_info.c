/* dmlslice info: what a .npy file holds, read from its header. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "npy_input.h"

int cmd_info(int argc, char **argv) {
    args_prog = "dmlslice info";
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) continue;
        if (args_is_option(argv[i]) || path) {
            fprintf(stderr, "%s: usage: dmlslice info FILE.npy ('%s' is not expected)\n", args_prog, argv[i]);
            return 2;
        }
        path = argv[i];
    }
    if (path == NULL) {
        fprintf(stderr, "%s: usage: dmlslice info FILE.npy\n", args_prog);
        return 2;
    }
    char err[NPY_ERR_LEN];
    npy_input in;
    if (!npy_open(path, &in, err)) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        return 1;
    }
    const npy_header *h = &in.h;
    printf("file:    %s\n", strcmp(path, "-") ? path : "<stdin>");
    printf("format:  .npy %d.%d\n", h->major, h->minor);
    printf("dtype:   %s (%s%s)\n", h->descr, h->is_bool ? "bool" : dmls_dtype_name(h->dtype),
           h->esize == 1 ? "" : h->big_endian ? ", big-endian" : ", little-endian");
    printf("shape:   (");
    for (int i = 0; i < h->ndim; i++) printf("%s%" PRId64, i ? ", " : "", h->shape[i]);
    printf("%s)\n", h->ndim == 1 ? "," : "");
    printf("order:   %s\n", h->fortran_order ? "Fortran (column-major)" : "C (row-major)");
    printf("elements: %" PRIu64 "\n", h->count);
    printf("bytes:   %" PRIu64 " of data after a %" PRIu64 "-byte header\n", h->data_bytes, h->data_offset);
    npy_close(&in);
    return 0;
}
