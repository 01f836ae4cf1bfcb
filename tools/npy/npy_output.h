/* Writing a .npy output for the dmlslice tool, so that no failure and no
 * signal ever leaves a partial file, a temporary file or a damaged old one.
 *
 * What -o names decides how it is written:
 * - "-": standard output, written straight through (never a terminal).
 * - a character device, FIFO or socket (/dev/stdout, /dev/null, a named
 *   pipe): written straight through; -f is not needed, nothing is replaced.
 * - a new or existing regular file (an existing one only with -f), or a
 *   symbolic link to one (the target is replaced and the link stays): the
 *   data goes to a new file in the same folder with its space reserved
 *   first, so a full disk or the file-size limit is an error, never a crash.
 *   That folder is resolved once, when the output is created, and held
 *   open (files.h's atomic file): a folder swapped meanwhile cannot
 *   redirect the commit.
 *   On Linux the file has no name until it is complete (O_TMPFILE), then it
 *   is linked in; elsewhere, or where the file system refuses that, it is a
 *   named temporary file that every catchable terminating signal removes.
 *   The final step is atomic: a link that fails if the name exists (no -f),
 *   or a rename over the old file (-f, which keeps the old permission bits).
 * - a folder, a block device, a dangling symbolic link, a folder that does
 *   not exist: refused by npy_output_check, before any work.
 *
 * Every function that can fail writes a message naming the file into err
 * (NPY_ERR_LEN bytes) and returns false. */
#ifndef DMLSLICE_TOOLS_NPY_OUTPUT_H
#define DMLSLICE_TOOLS_NPY_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "npy_format.h"
#include "files.h"

typedef struct npy_output {
    char *path;          /* the name data ends up under (a symbolic link resolved) */
    const char *shown;   /* the name for messages: as given, or "<stdout>" */
    bool force;
    FILE *stream;        /* written straight through at commit, or NULL */
    bool own_stream;     /* stream is a device this output opened */
    dmls_atomic_file file;  /* a regular file on its way (while created) */
    bool created;
    bool committed;      /* undoably, by npy_commit_all, until it ends */
    unsigned char *data; /* capacity bytes the copy writes */
    uint64_t data_bytes, capacity;
    uint64_t header_len;
    uint64_t file_len;   /* header_len + data_bytes: the committed length */
    unsigned char *heap; /* a stream's header and data */
} npy_output;

/* Checks, before any work, that out_path can be written: not a folder, its
 * folder exists, not an existing file without force, and not the input file
 * (in_path, or standard input's file for "-") by any route. */
bool npy_output_check(const char *out_path, const char *in_path, bool force, char *err);

/* Starts an output of C-order data with the given descr and shape. */
bool npy_create(const char *path, bool force, const char *descr, int32_t ndim, const int64_t *shape,
                size_t esize, npy_output *out, char *err);

/* Starts an output of bytes raw bytes, no .npy header (dmlslice dispatch's
 * raw writeFile, whose buffers hold at most 4 GiB), written by the same
 * rules; bytes is below 2^63, as a file's length is. */
bool npy_create_raw(const char *path, bool force, uint64_t bytes, npy_output *out, char *err);

/* Makes the output complete under its name (or sends it to the stream). */
bool npy_commit(npy_output *out, char *err);

/* Commits n outputs, all or none: regular files first, then streams (whose
 * bytes cannot be taken back). When one fails, or a terminating signal
 * comes (POSIX), the files already committed are taken back
 * (dmls_atomic_file_undo: only where the name still holds the file this run
 * made), a file that -f replaced comes back, and the rest are dropped. */
bool npy_commit_all(npy_output *outs, int n, char *err);

/* Drops an uncommitted output: nothing remains, the final path untouched.
 * Safe after a failed create or commit, and on a zeroed npy_output. */
void npy_abort(npy_output *out);

#endif
