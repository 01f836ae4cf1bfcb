/* Opening .npy inputs; see npy_input.h. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS under -std=c11 (glibc) */
#define _DARWIN_C_SOURCE
#include "npy_input.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "signals.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* Reads until want bytes or the end of the stream; returns the count, or -1
 * with errno set. */
static int64_t read_upto(int fd, unsigned char *buf, uint64_t want) {
    uint64_t got = 0;
    while (got < want) {
        const uint64_t ask = want - got > (1u << 30) ? (1u << 30) : want - got;
        const ssize_t r = read(fd, buf + got, (size_t)ask);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (uint64_t)r;
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
static bool read_stream(int fd, npy_input *in, char *err) {
    size_t cap = 0;
    if (!grow(in, &cap, NPY_PREAMBLE_MAX, UINT64_MAX, err)) return false;
    int64_t got = read_upto(fd, in->heap, NPY_PREAMBLE_MAX);
    if (got < 0) return read_error(in, err);
    uint64_t have = (uint64_t)got;
    if (!npy_parse_preamble(in->name, in->heap, have, &in->h, err)) return false;
    /* The header, whose length the preamble bounds. */
    if (!grow(in, &cap, in->h.data_offset, UINT64_MAX, err)) return false;
    if (have < in->h.data_offset) {
        got = read_upto(fd, in->heap + have, in->h.data_offset - have);
        if (got < 0) return read_error(in, err);
        have += (uint64_t)got;
    }
    if (!npy_parse_header(in->name, in->heap, have, &in->h, err)) return false;
    /* The data: the buffer grows as it arrives, so a header that promises
     * more than comes costs only what came. */
    const uint64_t end = in->h.data_offset + in->h.data_bytes, limit = end + NPY_PAD;
    while (have < end) {
        if (!grow(in, &cap, have + 1, limit, err)) return false;
        const uint64_t room = (cap < end ? cap : end) - have;
        got = read_upto(fd, in->heap + have, room);
        if (got < 0) return read_error(in, err);
        have += (uint64_t)got;
        if ((uint64_t)got < room) break; /* the end of the stream */
    }
    if (!npy_check_data(in->name, &in->h, have - in->h.data_offset, err)) return false;
    /* One byte more says the stream holds more than the header describes. */
    unsigned char extra;
    got = read_upto(fd, &extra, 1);
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

/* A regular file: reserve its length plus padding as zero pages and map the
 * file over the front, so the padding after the data is always readable
 * whatever the file's length modulo the page. */
static bool map_file(int fd, const struct stat *st, npy_input *in, char *err) {
    in->file_size = (uint64_t)st->st_size;
    if (in->file_size == 0) return npy_parse_preamble(in->name, NULL, 0, &in->h, err);
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    const uint64_t want = (in->file_size + NPY_PAD + page - 1) / page * page;
    if (want > SIZE_MAX) {
        snprintf(err, NPY_ERR_LEN, "%s: %" PRIu64 " bytes do not fit this machine's address space", in->name,
                 in->file_size);
        return false;
    }
    in->map_len = (size_t)want;
    in->map = mmap(NULL, in->map_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (in->map == MAP_FAILED ||
        mmap(in->map, (size_t)in->file_size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot map %" PRIu64 " bytes: %s", in->name, in->file_size, strerror(errno));
        if (in->map != MAP_FAILED) munmap(in->map, in->map_len);
        in->map = NULL;
        return false;
    }
    in->guard = sig_guard_range(in->map, in->map_len, false);
    const unsigned char *base = in->map;
    if (!npy_parse_header(in->name, base, in->file_size, &in->h, err) ||
        !npy_check_data(in->name, &in->h, in->file_size - in->h.data_offset, err))
        return false;
    in->data = base + in->h.data_offset;
    return true;
}

bool npy_open(const char *path, npy_input *in, char *err) {
    memset(in, 0, sizeof *in);
    in->fd = -1;
    in->guard = -1;
    const bool is_stdin = strcmp(path, "-") == 0;
    snprintf(in->name, sizeof in->name, "%s", is_stdin ? "<stdin>" : path);
    const int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot open: %s", in->name, strerror(errno));
        return false;
    }
    struct stat st;
    bool ok;
    if (fstat(fd, &st) != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot stat: %s", in->name, strerror(errno));
        ok = false;
    } else if (S_ISDIR(st.st_mode)) {
        snprintf(err, NPY_ERR_LEN, "%s: is a folder, not a .npy file", in->name);
        ok = false;
    } else if (S_ISREG(st.st_mode) && !is_stdin) {
        ok = map_file(fd, &st, in, err);
        if (ok) in->fd = fd;
    } else {
        ok = read_stream(fd, in, err);
    }
    if (!is_stdin && in->fd != fd) close(fd);
    if (!ok) {
        npy_close(in);
        return false;
    }
    in->readable = in->h.data_bytes + NPY_PAD;
    return true;
}

bool npy_input_intact(const npy_input *in, char *err) {
    if (in->fd < 0) return true;
    struct stat st;
    const bool shrank = fstat(in->fd, &st) == 0 && (uint64_t)st.st_size < in->file_size;
    if (!shrank && !sig_guard_faulted(in->guard)) return true;
    snprintf(err, NPY_ERR_LEN, "%s: the file shrank from %" PRIu64 " to %" PRIu64
                               " bytes while it was being read (another program changed it)",
             in->name, in->file_size, shrank ? (uint64_t)st.st_size : in->file_size);
    return false;
}

void npy_close(npy_input *in) {
    sig_unguard_range(in->guard);
    if (in->map) munmap(in->map, in->map_len);
    if (in->fd >= 0) close(in->fd);
    free(in->heap);
    memset(in, 0, sizeof *in);
    in->fd = -1;
    in->guard = -1;
}
