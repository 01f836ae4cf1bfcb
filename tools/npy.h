/* .npy files (NumPy format versions 1.0, 2.0 and 3.0) for the dmlslice tool:
 * reading through a read-only private memory map, so a small window of a
 * file larger than memory touches only the pages it needs, and writing
 * atomically, so a failure never leaves a partial file or clobbers one.
 *
 * Every function that can fail writes a message naming the file and the
 * problem into err (ERR_LEN bytes) and returns false. */
#ifndef DMLSLICE_TOOLS_NPY_H
#define DMLSLICE_TOOLS_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlslice/dmlslice.h"
#include "platform.h" /* the mapped input and the new output file */

#define NPY_ERR_LEN 512
/* The most axes NumPy writes (NPY_MAXDIMS of NumPy 2). */
#define NPY_MAX_RANK 64

typedef struct npy_header {
    int major, minor;                /* format version */
    char descr[8];                   /* as written, e.g. "<f4", ">i2", "|b1" */
    dmls_dtype dtype;                /* the same-size type the copy uses (bool: UINT8) */
    bool is_bool;
    bool big_endian;                 /* '>' (informational: slicing copies bits) */
    size_t esize;
    bool fortran_order;
    int32_t ndim;
    int64_t shape[NPY_MAX_RANK];
    uint64_t count;                  /* elements */
    uint64_t data_offset;            /* bytes from the start of the file to the data */
    uint64_t data_bytes;             /* count * esize */
} npy_header;

/* Parses the preamble and header dictionary at the start of buf (len bytes
 * of a file of file_size bytes) and checks the data length against the
 * shape. name is the file's name for messages. */
bool npy_parse_header(const char *name, const unsigned char *buf, uint64_t len, uint64_t file_size,
                      npy_header *h, char *err);

/* An opened input: the header and a pointer to the data, followed by at
 * least NPY_PAD readable zero bytes (DirectML rounds buffer sizes up to
 * 4 bytes; the padding lets a bound buffer honestly hold them). */
#define NPY_PAD 8
typedef struct npy_input {
    npy_header h;
    const unsigned char *data;
    uint64_t readable;   /* bytes readable at data: data_bytes + NPY_PAD */
    uint64_t file_size;
    dmls_mapped_file mapped; /* a regular file, mapped */
    unsigned char *heap; /* stdin (or a non-regular file) read fully */
} npy_input;

/* Opens path ("-" reads standard input fully into memory). */
bool npy_open(const char *path, npy_input *in, char *err);
void npy_close(npy_input *in);

/* Element strides of the file's layout: row-major, or column-major for a
 * Fortran-order file (so it is read in place, never transposed). */
void npy_strides(const npy_header *h, int64_t *strides);

/* An output on its way to disk (or standard output). data has room for
 * capacity >= data_bytes bytes (rounded up to NPY_PAD) and is written in
 * place; nothing becomes visible under the final name until commit. */
typedef struct npy_output {
    const char *path;   /* final name, or "-" */
    dmls_new_file file; /* the file on its way, while created */
    bool created;
    bool force;
    unsigned char *data;
    uint64_t data_bytes, capacity;
    uint64_t header_len;
    uint64_t file_len;  /* header_len + data_bytes: the committed length */
    unsigned char *heap; /* header + data for standard output */
} npy_output;

/* Starts an output of C-order data with the given descr and shape. Without
 * force an existing path is refused here and again, atomically, at commit. */
bool npy_create(const char *path, bool force, const char *descr, int32_t ndim, const int64_t *shape,
                size_t esize, npy_output *out, char *err);
/* Flushes, syncs and renames into place (or writes to standard output). */
bool npy_commit(npy_output *out, char *err);
/* Removes the temporary file; the final path is untouched. Safe after a
 * failed create or commit. */
void npy_abort(npy_output *out);

/* True when path (not "-") names an existing file system entry. */
bool npy_exists(const char *path);

/* True when out names the same file as in (same path or same inode). */
bool npy_same_file(const char *in, const char *out);

#endif
