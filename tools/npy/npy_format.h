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
/* The longest 'descr' taken (a record's list of fields; NumPy's own
 * headers of a few hundred fields fit). */
#define NPY_MAX_DESCR 16384
/* Room for a header npy_format_header writes: the descr, and each axis at
 * most 20 digits and ", ". */
#define NPY_OUT_HEADER_MAX (128 + NPY_MAX_DESCR + 22 * NPY_MAX_RANK)

typedef struct npy_header {
    int major, minor;                /* format version */
    char descr[NPY_MAX_DESCR];       /* as written: a type string without its quotes ("<f4", "|S5"), or a
                                      * record's list ("[('a', '<i4'), ...]") with any '=' made explicit */
    dmls_dtype dtype;                /* the type the copy uses: DirectML's own, or unsigned parts of an item */
    int64_t parts;                   /* items are parts dtype-sized parts (2 for '<c16': UINT64) */
    const char *kind;                /* "float32", "bool", ..., "complex", "datetime64", "str", "record" */
    bool is_bool;
    bool big_endian;                 /* '>' (informational: slicing copies bits); false for a record */
    size_t esize;                    /* the item size: dmls_dtype_size(dtype) * parts */
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
 * truncated). Does not look at the data: see npy_check_data. Takes the
 * dtypes DirectML has (f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8, b1), for a file
 * whose values are read as DirectML's. */
bool npy_parse_header(const char *name, const unsigned char *buf, uint64_t len, npy_header *h, char *err);

/* The same for a file that is only sliced, which copies whole items: also
 * every other fixed-size dtype NumPy saves without pickling (complex,
 * extended floats, datetime64, timedelta64, S/a, U and V strings and
 * records, nested or with sub-array fields), by item size. An item whose
 * size is not 1, 2, 4 or 8 bytes is parts unsigned parts of the largest of
 * those that divides it. Object dtypes ('O', anywhere in a record) are
 * refused. */
bool npy_parse_header_items(const char *name, const unsigned char *buf, uint64_t len, npy_header *h, char *err);

/* Checks that the file holds exactly the data the shape needs: have is the
 * file's length after h->data_offset. */
bool npy_check_data(const char *name, const npy_header *h, uint64_t have, char *err);

/* Element strides of the file's layout: row-major, or column-major for a
 * Fortran-order file (so it is read in place, never transposed). Empty
 * arrays get strides that saturate rather than overflow. */
void npy_strides(const npy_header *h, int64_t *strides);

/* Writes the header of a C-order array (version 1.0, padded with spaces and
 * a newline so the data starts on a 64-byte boundary, as NumPy writes it)
 * into buf; returns its length, or 0 when cap is too small. descr is a
 * type string, quoted in the header, or a record's list ('['), written as
 * is. A type string with '=' (this machine's order, which a reader
 * elsewhere cannot know) is written with the order it stands for ('|' for
 * esize 1, as NumPy does). */
size_t npy_format_header(unsigned char *buf, size_t cap, const char *descr, size_t esize, int32_t ndim,
                         const int64_t *shape);

/* Copies n bytes of src into dst (cap bytes, always terminated) with every
 * byte outside printable ASCII and every backslash written as \xNN, so text
 * from a hostile file cannot reach a terminal as an escape sequence. */
void npy_escape(char *dst, size_t cap, const char *src, size_t n);
/* The same for UTF-8 text (names and paths in a model): a well-formed
 * character beyond ASCII and a backslash (Windows' separator) stay as they
 * are; control characters (C0, DEL, C1), bidirectional overrides and bytes
 * that are no UTF-8 become \xNN. */
void npy_escape_text(char *dst, size_t cap, const char *src, size_t n);

#endif
