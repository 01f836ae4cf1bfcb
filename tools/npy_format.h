/* The .npy format (NumPy format versions 1.0, 2.0 and 3.0): parsing and
 * writing headers. Pure computation on bytes in memory, no system calls, so
 * the fuzzer and any platform use it as is; reading and writing files is in
 * npy_input.h and npy_output.h.
 *
 * Every function that can fail writes a message naming the file and the
 * problem into err (NPY_ERR_LEN bytes) and returns false. Text copied from a
 * file into a message has its control and non-ASCII bytes escaped. */
#ifndef DMLSLICE_TOOLS_NPY_FORMAT_H
#define DMLSLICE_TOOLS_NPY_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlslice/dmlslice.h"

#define NPY_ERR_LEN 512
/* The most axes NumPy writes (NPY_MAXDIMS of NumPy 2). */
#define NPY_MAX_RANK 64

/* The preamble: magic, version, header length (2 bytes in 1.0, 4 after). */
#define NPY_PREAMBLE_MAX 12
/* The longest header dictionary accepted. A header of any supported array
 * is under 1 KiB; the bound keeps a hostile stream from making the reader
 * buffer gigabytes before it can say the file is bad. */
#define NPY_MAX_HEADER 65536
/* Bytes of zeros kept readable after the data (DirectML rounds buffer sizes
 * up to 4 bytes; the padding lets a bound buffer honestly hold them). */
#define NPY_PAD 8
/* Room for a header npy_format_header writes: each axis at most 20 digits
 * and ", ". */
#define NPY_OUT_HEADER_MAX (128 + 22 * NPY_MAX_RANK)

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

/* Reads the preamble from the first len bytes of a file (len may be less
 * than NPY_PREAMBLE_MAX when the file is that short) and sets h->major,
 * h->minor and h->data_offset (where the header dictionary ends). Checks the
 * magic, the version and the bound on the header length. */
bool npy_parse_preamble(const char *name, const unsigned char *buf, uint64_t len, npy_header *h, char *err);

/* Parses the preamble and the header dictionary from the first len bytes
 * of a file; len must reach the header's end (else the header is called
 * truncated). Does not look at the data: see npy_check_data. */
bool npy_parse_header(const char *name, const unsigned char *buf, uint64_t len, npy_header *h, char *err);

/* Checks that the file holds exactly the data the shape needs: have is the
 * file's length after h->data_offset. */
bool npy_check_data(const char *name, const npy_header *h, uint64_t have, char *err);

/* Element strides of the file's layout: row-major, or column-major for a
 * Fortran-order file (so it is read in place, never transposed). Empty
 * arrays get strides that saturate rather than overflow. */
void npy_strides(const npy_header *h, int64_t *strides);

/* Writes the header of a C-order array (version 1.0, padded with spaces and
 * a newline so the data starts on a 64-byte boundary, as NumPy writes it)
 * into buf; returns its length, or 0 when cap is too small. A descr with
 * '=' (this machine's order, which a reader elsewhere cannot know) is
 * written with the order it stands for ('|' for esize 1, as NumPy does). */
size_t npy_format_header(unsigned char *buf, size_t cap, const char *descr, size_t esize, int32_t ndim,
                         const int64_t *shape);

/* Copies n bytes of src into dst (cap bytes, always terminated) with every
 * byte outside printable ASCII and every backslash written as \xNN, so text
 * from a hostile file cannot reach a terminal as an escape sequence. */
void npy_escape(char *dst, size_t cap, const char *src, size_t n);

#endif
