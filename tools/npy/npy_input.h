/* Opening a .npy input for the dmlslice tool.
 *
 * A regular file is memory-mapped read-only, so a small window of a file
 * larger than memory reads only the pages it needs; the mapping is guarded
 * (platform.h's dmls_file_map), so a file truncated by another process while it is read is
 * an error (npy_input_intact), not a crash. Anything else (standard input,
 * a pipe, a FIFO, a character device) is read incrementally and bounded:
 * the preamble first, then a header of at most NPY_MAX_HEADER bytes, then
 * exactly the data the header promises, the buffer growing only as bytes
 * arrive; fewer bytes is a truncated file, more is an error too.
 *
 * Every function that can fail writes a message naming the file into err
 * (NPY_ERR_LEN bytes) and returns false. */
#ifndef DMLSLICE_TOOLS_NPY_INPUT_H
#define DMLSLICE_TOOLS_NPY_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npy_format.h"
#include "files.h"

typedef struct npy_input {
    npy_header h;
    const unsigned char *data; /* followed by at least NPY_PAD readable zero bytes */
    uint64_t readable;         /* bytes readable at data: data_bytes + NPY_PAD */
    uint64_t file_size;
    dmls_mapped_file mapped;   /* a regular file's mapping, or none (data NULL) */
    unsigned char *heap;       /* a stream's bytes: header, data, padding */
    char name[256];            /* for messages: the path, or "<stdin>" */
} npy_input;

/* Opens path ("-" is standard input). */
bool npy_open(const char *path, npy_input *in, char *err);

/* After the data has been read: false, with a message, when the file
 * shrank meanwhile (its data was then partly zeros). */
bool npy_input_intact(const npy_input *in, char *err);

void npy_close(npy_input *in);

#endif
