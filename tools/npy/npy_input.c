/* Opening .npy inputs; see npy_input.h. Every system call is the platform
 * layer's (platform.h). */
#include "npy_input.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads until want bytes or the end of the stream; returns the count, or -1
 * with errno set. At most 2^30 bytes a call: Windows' C runtime reads at
 * most INT_MAX bytes in one. */
static int64_t read_upto(FILE *f, unsigned char *buf, uint64_t want) {
    uint64_t got = 0;
    while (got < want) {
        const uint64_t ask = want - got > (1u << 30) ? (1u << 30) : want - got;
        const size_t r = fread(buf + got, 1, (size_t)ask, f);
        got += r;
        if (r < ask) {
            if (ferror(f)) return -1;
            break; /* the end of the stream */
        }
    }
    return (int64_t)got;
}

/* Grows in->heap to hold at least need bytes (doubling from 64 KiB, never
 * past limit). */
static bool grow(npy_input *in, size_t *cap, uint64_t need, uint64_t limit, char *err) {
    if (need <= *cap) return true;
    uint64_t c = *cap ? *cap : 1u << 16;
    while (c < need) c = c > UINT64_MAX / 2 ? UINT64_MAX : c * 2;
    if (c > limit) c = limit;
    unsigned char *b = c > SIZE_MAX ? NULL : realloc(in->heap, (size_t)c);
    if (b == NULL) {
        snprintf(err, NPY_ERR_LEN, "%s: out of memory for %" PRIu64 " bytes", in->name, c);
        return false;
    }
    in->heap = b;
    *cap = (size_t)c;
    return true;
}

static bool read_error(const npy_input *in, char *err) {
    snprintf(err, NPY_ERR_LEN, "%s: read error: %s", in->name, strerror(errno));
    return false;
}

/* The stream reader: preamble, bounded header, then exactly the data. */
static bool read_stream(FILE *f, npy_input *in, char *err) {
    size_t cap = 0;
    if (!grow(in, &cap, NPY_PREAMBLE_MAX, UINT64_MAX, err)) return false;
    int64_t got = read_upto(f, in->heap, NPY_PREAMBLE_MAX);
    if (got < 0) return read_error(in, err);
    uint64_t have = (uint64_t)got;
    if (!npy_parse_preamble(in->name, in->heap, have, &in->h, err)) return false;
    /* The header, whose length the preamble bounds. */
    if (!grow(in, &cap, in->h.data_offset, UINT64_MAX, err)) return false;
    if (have < in->h.data_offset) {
        got = read_upto(f, in->heap + have, in->h.data_offset - have);
        if (got < 0) return read_error(in, err);
        have += (uint64_t)got;
    }
    if (!npy_parse_header_items(in->name, in->heap, have, &in->h, err)) return false;
    /* The data: the buffer grows as it arrives, so a header that promises
     * more than comes costs only what came. */
    const uint64_t end = in->h.data_offset + in->h.data_bytes, limit = end + NPY_PAD;
    while (have < end) {
        if (!grow(in, &cap, have + 1, limit, err)) return false;
        const uint64_t room = (cap < end ? cap : end) - have;
        got = read_upto(f, in->heap + have, room);
        if (got < 0) return read_error(in, err);
        have += (uint64_t)got;
        if ((uint64_t)got < room) break; /* the end of the stream */
    }
    if (!npy_check_data(in->name, &in->h, have - in->h.data_offset, err)) return false;
    /* One byte more says the stream holds more than the header describes. */
    unsigned char extra;
    got = read_upto(f, &extra, 1);
    if (got < 0) return read_error(in, err);
    if (got > 0) {
        snprintf(err, NPY_ERR_LEN,
                 "%s: the header's shape needs %" PRIu64 " bytes of data but more follow (header and data disagree)",
                 in->name, in->h.data_bytes);
        return false;
    }
    if (!grow(in, &cap, limit, limit, err)) return false;
    memset(in->heap + end, 0, NPY_PAD);
    in->file_size = end;
    in->data = in->heap + in->h.data_offset;
    return true;
}

/* A regular file, mapped with NPY_PAD zero bytes after its end (whatever
 * its length modulo the page) and guarded against shrinking. */
static bool map_file(const char *path, uint64_t size, npy_input *in, char *err) {
    in->file_size = size;
    if (in->file_size == 0) return npy_parse_preamble(in->name, NULL, 0, &in->h, err);
    const int e = dmls_file_map(path, NPY_PAD, &in->mapped);
    if (e != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot map %" PRIu64 " bytes: %s", in->name, in->file_size, dmls_error_text(e));
        return false;
    }
    in->file_size = in->mapped.size;
    const unsigned char *base = in->mapped.data;
    if (!npy_parse_header_items(in->name, base, in->file_size, &in->h, err) ||
        !npy_check_data(in->name, &in->h, in->file_size - in->h.data_offset, err))
        return false;
    in->data = base + in->h.data_offset;
    return true;
}

bool npy_open(const char *path, npy_input *in, char *err) {
    memset(in, 0, sizeof *in);
    const bool is_stdin = strcmp(path, "-") == 0;
    snprintf(in->name, sizeof in->name, "%s", is_stdin ? "<stdin>" : path);
    dmls_file_info info;
    int e = is_stdin ? dmls_stdio_info(0, &info) : dmls_path_info(path, 1, &info);
    if (e == 0 && info.kind == DMLS_FILE_MISSING) e = ENOENT;
    if (e != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot open: %s", in->name, dmls_error_text(e));
        return false;
    }
    bool ok;
    if (info.kind == DMLS_FILE_FOLDER) {
        snprintf(err, NPY_ERR_LEN, "%s: is a folder, not a .npy file", in->name);
        ok = false;
    } else if (info.kind == DMLS_FILE_REGULAR && !is_stdin) {
        ok = map_file(path, info.size, in, err);
    } else {
        FILE *f = is_stdin ? stdin : dmls_fopen(path, "rb");
        if (f == NULL) {
            snprintf(err, NPY_ERR_LEN, "%s: cannot open: %s", in->name, strerror(errno));
            return false;
        }
        ok = read_stream(f, in, err);
        if (!is_stdin) fclose(f);
    }
    if (!ok) {
        npy_close(in);
        return false;
    }
    in->readable = in->h.data_bytes + NPY_PAD;
    return true;
}

bool npy_input_intact(const npy_input *in, char *err) {
    uint64_t now;
    if (in->mapped.data == NULL || dmls_file_map_intact(&in->mapped, &now)) return true;
    if (now == in->file_size)
        snprintf(err, NPY_ERR_LEN, "%s: the file was modified while it was being read (another program wrote it)",
                 in->name);
    else
        snprintf(err, NPY_ERR_LEN, "%s: the file %s from %" PRIu64 " to %" PRIu64
                                   " bytes while it was being read (another program changed it)",
                 in->name, now < in->file_size ? "shrank" : "grew", in->file_size, now);
    return false;
}

void npy_close(npy_input *in) {
    dmls_file_unmap(&in->mapped);
    free(in->heap);
    memset(in, 0, sizeof *in);
}
