/* dmlslice info: what a .npy file holds, read from its header. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "device_opt.h"
#include "npy_input.h"
#include "options.h"

static const option_def info_options[] = {
    {"--quiet", "-q", NULL, "print nothing: the exit status alone says whether the file reads (as check -q)"},
    {"--devices", NULL, NULL, "list the devices each backend sees (cpu, cuda:N, vulkan:N) instead"},
    {NULL, NULL, NULL, NULL},
};

const command_def cmd_info_def = {
    "info", "IN.npy [-q] | --devices", "Print the dtype, shape, memory order and size of a .npy file ('-' for\nstandard input).",
    {{"options", info_options, NULL}, {"", options_common, NULL}}, NULL, "dmlslice info x.npy", cmd_info, NULL, "input file", false,
    false,
};

/* --devices answers at once: the list, then exit 0. */
static bool info_option(void *ctx, const option_def *o, const char *value) {
    (void)value;
    *(bool *)ctx = option_is(o, "--devices");
    return true;
}

int cmd_info(int argc, char **argv) {
    args_prog = "dmlslice info";
    bool devices = false;
    common_options c;
    const int parsed = options_parse(&cmd_info_def, argc, argv, &c, info_option, &devices);
    if (parsed >= 0) return parsed;
    if (devices && c.quiet) {
        fprintf(stderr, "%s: --quiet and --devices: the device list is the answer; drop one\n", args_prog);
        return 2;
    }
    if (devices) {
        device_list(stdout);
        return 0;
    }
    const char *path = c.input;
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
    if (c.quiet) {
        npy_close(&in);
        return 0;
    }
    const npy_header *h = &in.h;
    printf("file:    %s\n", strcmp(path, "-") ? path : "<stdin>");
    printf("format:  .npy %d.%d\n", h->major, h->minor);
    /* A kind DirectML has no type for says its item size; byte order means
     * nothing for bytes and is each field's own in a record. */
    const bool typed = h->is_bool || strcmp(h->kind, dmls_dtype_name(h->dtype)) == 0;
    const bool ordered = h->esize > 1 && h->kind[0] != 'r' && h->descr[0] != '|';
    char size[40] = "";
    if (!typed) snprintf(size, sizeof size, ", %zu-byte items", h->esize);
    printf("dtype:   %s (%s%s%s)\n", h->descr, h->kind, size,
           !ordered ? "" : h->big_endian ? ", big-endian" : ", little-endian");
    printf("shape:   (");
    for (int i = 0; i < h->ndim; i++) printf("%s%" PRId64, i ? ", " : "", h->shape[i]);
    printf("%s)\n", h->ndim == 1 ? "," : "");
    printf("order:   %s\n", h->fortran_order ? "Fortran (column-major)" : "C (row-major)");
    printf("elements: %" PRIu64 "\n", h->count);
    printf("bytes:   %" PRIu64 " of data after a %" PRIu64 "-byte header\n", h->data_bytes, h->data_offset);
    npy_close(&in);
    return 0;
}
