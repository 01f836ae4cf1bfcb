/* Writing .npy outputs; see npy_output.h. */
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH (Linux); each has a POSIX fallback below */
#define _DARWIN_C_SOURCE
#include "npy_output.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "signals.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* The largest single write: Linux moves at most 2 GiB - 4 KiB per call, and
 * a bounded chunk keeps progress steady on slow pipes. */
#define WRITE_CHUNK (1u << 30)

/* DMLSLICE_IO_FALLBACK (for tests, see docs/cli.md "## Files") turns off
 * the Linux-only paths so the portable ones run on Linux too: "named" (no
 * O_TMPFILE), "proc" (no AT_EMPTY_PATH: link through /proc), "write"
 * (reserve space by writing zeros, not posix_fallocate). */
static bool fallback(const char *what) {
    const char *v = getenv("DMLSLICE_IO_FALLBACK");
    return v && strstr(v, what) != NULL;
}

/* The folder part of path ("." when none), malloc'd. */
static char *folder_of(const char *path) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL) return strdup(".");
    if (slash == path) return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* The file that standard input or in_path is, when it is a regular one. */
static bool input_identity(const char *in_path, struct stat *st) {
    const int r = strcmp(in_path, "-") == 0 ? fstat(STDIN_FILENO, st) : stat(in_path, st);
    return r == 0 && S_ISREG(st->st_mode);
}

static bool same(const struct stat *a, const struct stat *b) { return a->st_dev == b->st_dev && a->st_ino == b->st_ino; }

bool npy_output_check(const char *out_path, const char *in_path, bool force, char *err) {
    struct stat in_st, st;
    const bool in_known = input_identity(in_path, &in_st);
    if (strcmp(out_path, "-") == 0) {
        if (in_known && fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) && same(&st, &in_st)) {
            snprintf(err, NPY_ERR_LEN, "<stdout>: standard output is the input file; refusing to write over it");
            return false;
        }
        return true;
    }
    const size_t n = strlen(out_path);
    if (n == 0 || out_path[n - 1] == '/') {
        snprintf(err, NPY_ERR_LEN, "%s: names a folder; give the output a file name", out_path);
        return false;
    }
    if (strcmp(in_path, out_path) == 0 ||
        (in_known && stat(out_path, &st) == 0 && S_ISREG(st.st_mode) && same(&st, &in_st))) {
        snprintf(err, NPY_ERR_LEN, "%s: the output is the input file; refusing to overwrite it", out_path);
        return false;
    }
    if (lstat(out_path, &st) != 0) {
        if (errno != ENOENT) {
            snprintf(err, NPY_ERR_LEN, "%s: cannot write: %s", out_path, strerror(errno));
            return false;
        }
        char *dir = folder_of(out_path);
        struct stat dst;
        bool ok = dir && stat(dir, &dst) == 0 && S_ISDIR(dst.st_mode);
        if (!ok)
            snprintf(err, NPY_ERR_LEN, "%s: cannot write: the folder '%s' %s", out_path, dir ? dir : "?",
                     dir && errno == ENOENT ? "does not exist" : dir && !S_ISDIR(dst.st_mode) ? "is not a folder"
                                                                                            : strerror(errno));
        free(dir);
        return ok;
    }
    if (S_ISLNK(st.st_mode) && stat(out_path, &st) != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: a symbolic link to nothing (%s); not followed", out_path, strerror(errno));
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, NPY_ERR_LEN, "%s: is a folder; give the output a file name", out_path);
        return false;
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) return true; /* written through */
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, NPY_ERR_LEN, "%s: is a block device or other special file; refusing to write over it",
                 out_path);
        return false;
    }
    if (!force) {
        snprintf(err, NPY_ERR_LEN, "%s: already exists; not overwritten (use -f to replace it)", out_path);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------ creating */

static bool fail(npy_output *out, char *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, NPY_ERR_LEN, fmt, ap);
    va_end(ap);
    npy_abort(out);
    return false;
}

/* A Unix socket cannot be open()ed; connect to it instead. */
static int connect_socket(const char *path) {
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path));
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    if (connect(fd, (const struct sockaddr *)&sa, sizeof sa) != 0) {
        const int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Header and data in memory, written to out->fd at commit. */
static bool start_stream(npy_output *out, const unsigned char *header, char *err) {
    if (isatty(out->fd)) return fail(out, err, "%s: refusing to write binary .npy data to a terminal", out->shown);
    if (out->header_len + out->capacity > SIZE_MAX)
        return fail(out, err, "%s: %" PRIu64 " bytes do not fit memory", out->shown, out->file_len);
    out->heap = calloc(1, (size_t)(out->header_len + out->capacity));
    if (out->heap == NULL) return fail(out, err, "%s: out of memory for %" PRIu64 " bytes", out->shown, out->file_len);
    memcpy(out->heap, header, out->header_len);
    out->data = out->heap + out->header_len;
    out->stream = true;
    return true;
}

/* Reserves len bytes by writing zeros, where posix_fallocate cannot. */
static int reserve_by_writing(int fd, uint64_t len) {
    static const unsigned char zeros[1 << 16];
    for (uint64_t at = 0; at < len;) {
        const size_t n = len - at < sizeof zeros ? (size_t)(len - at) : sizeof zeros;
        const ssize_t w = pwrite(fd, zeros, n, (off_t)at);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        at += (uint64_t)w;
    }
    return 0;
}

/* The new file, unnamed where the system allows (O_TMPFILE), else a named
 * temporary file that the signal handlers remove. */
static bool open_new_file(npy_output *out, const char *dir, char *err) {
#ifdef O_TMPFILE
    if (!fallback("named")) {
        out->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (out->fd >= 0) return true;
        /* The file system (or kernel) refuses unnamed files: name one. */
    }
#endif
    const size_t need = strlen(dir) + sizeof "/.dmlslice-XXXXXX";
    out->tmp_path = malloc(need);
    if (out->tmp_path == NULL) return fail(out, err, "%s: out of memory", out->shown);
    snprintf(out->tmp_path, need, "%s/.dmlslice-XXXXXX", dir);
    /* Nothing runs on another thread yet: blocking signals here closes the
     * gap between the file's creation and its cleanup being armed. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    out->fd = mkstemp(out->tmp_path);
    const int e = errno;
    if (out->fd >= 0) sig_cleanup_file(out->tmp_path);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (out->fd < 0) {
        free(out->tmp_path);
        out->tmp_path = NULL;
        return fail(out, err, "%s: cannot create a file in '%s': %s", out->shown, dir, strerror(e));
    }
    return true;
}

bool npy_create(const char *path, bool force, const char *descr, int32_t ndim, const int64_t *shape, size_t esize,
                npy_output *out, char *err) {
    memset(out, 0, sizeof *out);
    out->fd = -1;
    out->dir_fd = -1;
    out->force = force;
    out->shown = strcmp(path, "-") == 0 ? "<stdout>" : path;
    uint64_t count = 1;
    for (int i = 0; i < ndim; i++) count *= (uint64_t)shape[i]; /* fits: validated by dmls_create */
    out->data_bytes = count * esize;
    out->capacity = (out->data_bytes + NPY_PAD - 1) / NPY_PAD * NPY_PAD;
    unsigned char header[NPY_OUT_HEADER_MAX];
    out->header_len = npy_format_header(header, sizeof header, descr, esize, ndim, shape);
    if (out->header_len == 0) return fail(out, err, "%s: internal error: the header does not fit", out->shown);
    out->file_len = out->header_len + out->data_bytes;

    if (strcmp(path, "-") == 0) {
        out->fd = STDOUT_FILENO;
        return start_stream(out, header, err);
    }
    struct stat st;
    const bool exists = stat(path, &st) == 0;
    if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
        /* open() follows links itself (/dev/stdout leads to "pipe:[...]",
         * which is no path to resolve). */
        out->fd = S_ISSOCK(st.st_mode) ? connect_socket(path) : open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (out->fd < 0) return fail(out, err, "%s: cannot open for writing: %s", path, strerror(errno));
        return start_stream(out, header, err);
    }
    /* A symbolic link is followed: its target is what gets replaced. */
    out->path = exists ? realpath(path, NULL) : strdup(path);
    if (out->path == NULL) return fail(out, err, "%s: cannot resolve: %s", path, strerror(errno));
    if (exists && !S_ISREG(st.st_mode)) return fail(out, err, "%s: not a regular file; refusing to replace it", path);
    if (exists && !force) return fail(out, err, "%s: already exists; not overwritten (use -f to replace it)", path);
    if (exists) {
        out->mode = (unsigned)st.st_mode & 0777;
    } else {
        const mode_t mask = umask(0);
        umask(mask);
        out->mode = 0666 & ~(unsigned)mask;
    }
    char *dir = folder_of(out->path);
    if (dir == NULL) return fail(out, err, "%s: out of memory", path);
    out->dir_fd = open(dir, O_RDONLY | O_CLOEXEC);
    sig_ignore_file_size_limit();
    const bool opened = open_new_file(out, dir, err);
    free(dir);
    if (!opened) return false;
    if (fchmod(out->fd, (mode_t)out->mode) != 0)
        return fail(out, err, "%s: cannot set the new file's permissions: %s", path, strerror(errno));
    const uint64_t len = out->header_len + out->capacity;
    if (len > (uint64_t)INT64_MAX || len > SIZE_MAX)
        return fail(out, err, "%s: %" PRIu64 " bytes do not fit a file offset here", path, len);
    /* Reserve every byte before writing one through the mapping, so that a
     * full disk or the file-size limit is an error here, not SIGBUS later. */
    int rc = fallback("write") ? EOPNOTSUPP : posix_fallocate(out->fd, 0, (off_t)len);
    if (rc == EOPNOTSUPP || rc == ENOSYS || rc == EINVAL) rc = reserve_by_writing(out->fd, len);
    if (rc != 0) return fail(out, err, "%s: cannot reserve %" PRIu64 " bytes: %s", path, len, strerror(rc));
    out->map_len = (size_t)len;
    out->map = mmap(NULL, out->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, out->fd, 0);
    if (out->map == MAP_FAILED) {
        out->map = NULL;
        return fail(out, err, "%s: cannot map %" PRIu64 " bytes: %s", path, len, strerror(errno));
    }
    out->guard = sig_guard_range(out->map, out->map_len, true) + 1;
    memcpy(out->map, header, out->header_len);
    out->data = (unsigned char *)out->map + out->header_len;
    return true;
}

/* ------------------------------------------------------------ committing */

static bool write_all(int fd, const unsigned char *p, uint64_t n) {
    while (n > 0) {
        const ssize_t w = write(fd, p, n > WRITE_CHUNK ? WRITE_CHUNK : (size_t)n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { /* a non-blocking descriptor: wait */
            struct pollfd pfd = {fd, POLLOUT, 0};
            poll(&pfd, 1, -1);
            continue;
        }
        if (w <= 0) return false;
        p += w;
        n -= (uint64_t)w;
    }
    return true;
}

static bool commit_stream(npy_output *out, char *err) {
    /* A closed pipe is an error to report, not a silent death (unless the
     * caller chose otherwise: only the default action is changed). */
    struct sigaction old;
    if (sigaction(SIGPIPE, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);
    if (!write_all(out->fd, out->heap, out->file_len)) {
        snprintf(err, NPY_ERR_LEN, "%s: write error: %s", out->shown, strerror(errno));
        return false;
    }
    npy_abort(out); /* releases the buffer and a device's descriptor; the data is sent */
    return true;
}

/* Gives the unnamed file (fd) the name to; errno EEXIST when taken. */
static bool link_unnamed(int fd, const char *to) {
#ifdef AT_EMPTY_PATH
    if (!fallback("proc") && linkat(fd, "", AT_FDCWD, to, AT_EMPTY_PATH) == 0) return true;
    if (errno == EEXIST) return false;
#endif
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, proc, AT_FDCWD, to, AT_SYMLINK_FOLLOW) == 0;
}

static bool exists_error(npy_output *out, char *err) {
    snprintf(err, NPY_ERR_LEN, "%s: already exists; not overwritten (use -f to replace it)", out->shown);
    return false;
}

/* Puts the complete file under out->path. */
static bool link_into_place(npy_output *out, char *err) {
    if (out->tmp_path == NULL && !out->force) {
        if (link_unnamed(out->fd, out->path)) return true;
        if (errno == EEXIST) return exists_error(out, err);
        snprintf(err, NPY_ERR_LEN, "%s: cannot link the new file into place: %s", out->shown, strerror(errno));
        return false;
    }
    if (out->tmp_path == NULL) {
        /* Replacing needs rename, which needs a name: link the file under a
         * fresh temporary one (removed by the signal handlers meanwhile). */
        char *dir = folder_of(out->path);
        const size_t need = (dir ? strlen(dir) : 0) + 64;
        out->tmp_path = dir ? malloc(need) : NULL;
        bool linked = false;
        for (unsigned k = 0; out->tmp_path && !linked && k < 100; k++) {
            snprintf(out->tmp_path, need, "%s/.dmlslice-%ld-%u", dir, (long)getpid(), k);
            sig_cleanup_file(out->tmp_path);
            linked = link_unnamed(out->fd, out->tmp_path);
            if (!linked) sig_cleanup_file(NULL);
            if (!linked && errno != EEXIST) break;
        }
        free(dir);
        if (!linked) {
            snprintf(err, NPY_ERR_LEN, "%s: cannot link the new file into its folder: %s", out->shown,
                     out->tmp_path ? strerror(errno) : "out of memory");
            free(out->tmp_path);
            out->tmp_path = NULL;
            return false;
        }
    }
    if (out->force) {
        if (rename(out->tmp_path, out->path) != 0) {
            snprintf(err, NPY_ERR_LEN, "%s: cannot move the new file into place: %s", out->shown, strerror(errno));
            return false;
        }
    } else if (link(out->tmp_path, out->path) == 0) {
        unlink(out->tmp_path); /* link() refuses an existing name atomically, unlike rename() */
    } else if (errno == EEXIST) {
        return exists_error(out, err);
    } else {
        /* A file system without hard links: check, then rename. */
        struct stat st;
        if (lstat(out->path, &st) == 0) return exists_error(out, err);
        if (rename(out->tmp_path, out->path) != 0) {
            snprintf(err, NPY_ERR_LEN, "%s: cannot move the new file into place: %s", out->shown, strerror(errno));
            return false;
        }
    }
    sig_cleanup_file(NULL);
    free(out->tmp_path);
    out->tmp_path = NULL;
    return true;
}

bool npy_commit(npy_output *out, char *err) {
    if (out->stream) return commit_stream(out, err);
    if (sig_guard_faulted(out->guard - 1)) {
        snprintf(err, NPY_ERR_LEN, "%s: the file system could not store the data (a write through the mapping failed)",
                 out->shown);
        return false;
    }
    bool ok = msync(out->map, out->map_len, MS_SYNC) == 0;
    int e = errno;
    sig_unguard_range(out->guard - 1);
    out->guard = 0;
    munmap(out->map, out->map_len);
    out->map = NULL;
    if (ok) ok = ftruncate(out->fd, (off_t)out->file_len) == 0 && fsync(out->fd) == 0, e = errno;
    if (!ok) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot write: %s", out->shown, strerror(e));
        return false;
    }
    if (!link_into_place(out, err)) return false;
    if (out->dir_fd >= 0) fsync(out->dir_fd); /* make the new name durable too */
    close(out->fd);
    out->fd = -1;
    npy_abort(out); /* releases what is left; the file is in place */
    return true;
}

void npy_abort(npy_output *out) {
    sig_unguard_range(out->guard - 1);
    if (out->map) munmap(out->map, out->map_len);
    if (out->fd > STDERR_FILENO) close(out->fd);
    if (out->dir_fd > STDERR_FILENO) close(out->dir_fd);
    if (out->tmp_path) unlink(out->tmp_path);
    if (out->tmp_path) sig_cleanup_file(NULL);
    free(out->tmp_path);
    free(out->path);
    free(out->heap);
    memset(out, 0, sizeof *out);
    out->fd = -1;
    out->dir_fd = -1;
}
