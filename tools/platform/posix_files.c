/* files.h's files, standard streams and command line for POSIX systems;
 * the signals they need are posix_signals.c's. Linux-only paths
 * (O_TMPFILE, AT_EMPTY_PATH, O_PATH) each have a POSIX fallback. */
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH, strndup, realpath; MAP_ANONYMOUS under -std=c11 */
#define _DARWIN_C_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "files.h"
#include "platform.h"
#include "posix_signals.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif


const char *dmls_error_text(int err) { return strerror(err); }

static void fill_info(const struct stat *st, dmls_file_info *info) {
    info->kind = S_ISREG(st->st_mode)                                                  ? DMLS_FILE_REGULAR
                 : S_ISDIR(st->st_mode)                                                ? DMLS_FILE_FOLDER
                 : S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode) ? DMLS_FILE_STREAM
                                                                                       : DMLS_FILE_OTHER;
    info->size = S_ISREG(st->st_mode) ? (uint64_t)st->st_size : 0;
    info->volume = (uint64_t)st->st_dev;
    info->id = (uint64_t)st->st_ino;
    info->mode = (unsigned)st->st_mode & 07777;
}

int dmls_path_info(const char *path, int follow_links, dmls_file_info *info) {
    memset(info, 0, sizeof *info);
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT || errno == ENOTDIR ? 0 : errno;
    if (S_ISLNK(st.st_mode)) {
        info->is_link = 1;
        if (!follow_links) {
            info->kind = DMLS_FILE_OTHER;
            return 0;
        }
        if (stat(path, &st) != 0) return errno == ENOENT ? 0 : errno; /* a dangling link: missing */
    }
    fill_info(&st, info);
    return 0;
}

int dmls_stdio_info(int stream, dmls_file_info *info) {
    memset(info, 0, sizeof *info);
    struct stat st;
    if (fstat(stream, &st) != 0) return errno;
    fill_info(&st, info);
    return 0;
}

int dmls_same_file(const dmls_file_info *a, const dmls_file_info *b) {
    return a->kind != DMLS_FILE_MISSING && b->kind != DMLS_FILE_MISSING && a->volume == b->volume && a->id == b->id;
}

int dmls_stdio_is_terminal(int stream) { return isatty(stream); }

void dmls_stdio_binary(void) { /* POSIX streams carry bytes unchanged */ }

char **dmls_utf8_args(int argc, char **argv) {
    (void)argc;
    return argv;
}

FILE *dmls_fopen(const char *path, const char *mode) { return fopen(path, mode); }

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

FILE *dmls_open_stream_out(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return NULL;
    const int fd = S_ISSOCK(st.st_mode) ? connect_socket(path) : open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "wb");
    if (f == NULL) {
        const int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

int dmls_stream_is_terminal(FILE *f) { return isatty(fileno(f)); }

/* The largest single write: Linux moves at most 2 GiB - 4 KiB per call, and
 * a bounded chunk keeps progress steady on slow pipes. */
#define WRITE_CHUNK (1u << 30)

int dmls_stream_write_all(FILE *f, const void *data, uint64_t n) {
    /* Straight to the descriptor, past stdio's buffer (flushed first). */
    if (fflush(f) != 0) return errno;
    const int fd = fileno(f);
    const unsigned char *p = data;
    while (n > 0) {
        const ssize_t w = write(fd, p, n > WRITE_CHUNK ? WRITE_CHUNK : (size_t)n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { /* a non-blocking descriptor: wait */
            struct pollfd pfd = {fd, POLLOUT, 0};
            poll(&pfd, 1, -1);
            continue;
        }
        if (w < 0) return errno;
        if (w == 0) return EIO;
        p += w;
        n -= (uint64_t)w;
    }
    return 0;
}

char *dmls_real_path(const char *path) { return realpath(path, NULL); }

size_t dmls_path_folder_len(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

int dmls_path_is_relative(const char *path) { return path[0] != '/'; }

/* A file's modification time in nanoseconds (macOS names the field
 * differently). */
static int64_t modified_ns(const struct stat *st) {
#ifdef __APPLE__
    return (int64_t)st->st_mtimespec.tv_sec * 1000000000 + st->st_mtimespec.tv_nsec;
#else
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
#endif
}

int dmls_file_map(const char *path, size_t pad, dmls_mapped_file *m) {
    memset(m, 0, sizeof *m);
    m->handle = -1;
    m->guard = -1;
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    struct stat st;
    int err = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
    const uint64_t size = err ? 0 : (uint64_t)st.st_size;
    /* Reserve the file's length plus the padding as zero pages, then map
     * the file over the front: the padding is readable whatever the file's
     * length modulo the page. */
    const uint64_t page = dmls_page_size();
    const uint64_t want = (size + pad + page - 1) / page * page;
    if (!err && want > SIZE_MAX) err = EFBIG;
    void *range = MAP_FAILED;
    if (!err) {
        range = mmap(NULL, (size_t)want, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (range == MAP_FAILED) err = errno;
    }
    if (!err && size > 0 && mmap(range, (size_t)size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
        err = errno;
        munmap(range, (size_t)want);
    }
    if (err) {
        close(fd);
        return err;
    }
    m->data = range;
    m->size = size;
    m->base = range;
    m->base_len = (size_t)want;
    m->handle = fd; /* kept, to see the file change (dmls_file_map_intact) */
    m->modified = modified_ns(&st);
    m->guard = posix_guard_range(range, (size_t)want, 0);
    return 0;
}

int dmls_file_map_intact(const dmls_mapped_file *m, uint64_t *size_now) {
    struct stat st;
    *size_now = m->size;
    if (m->handle >= 0 && fstat((int)m->handle, &st) == 0) {
        *size_now = (uint64_t)st.st_size;
        if (*size_now != m->size || modified_ns(&st) != m->modified) return 0;
    }
    return !posix_guard_faulted(m->guard);
}

void dmls_file_unmap(dmls_mapped_file *m) {
    if (m->base) { /* else nothing is held (a zeroed or failed mapping) */
        posix_unguard_range(m->guard);
        munmap(m->base, m->base_len);
        if (m->handle >= 0) close((int)m->handle);
    }
    memset(m, 0, sizeof *m);
    m->handle = -1;
    m->guard = -1;
}

/* DMLSLICE_IO_FALLBACK (for tests, docs/cli.md "## Files") turns off the
 * Linux-only paths so the portable ones run on Linux too: "named" (no
 * O_TMPFILE), "proc" (no AT_EMPTY_PATH: link through /proc), "write"
 * (reserve space by writing zeros, not posix_fallocate). */
static int fallback(const char *what) {
    const char *v = getenv("DMLSLICE_IO_FALLBACK");
    return v && strstr(v, what) != NULL;
}

/* The folder part of path ("." for a bare name), opened once: every later
 * step of an atomic file is relative to it, so that a folder renamed or
 * swapped for a symbolic link meanwhile cannot send the file elsewhere.
 * Where the folder may be written but not read, Linux's O_PATH still holds
 * it (only the removal of stale names, which reads it, is then skipped). */
static int open_folder(const char *path, intptr_t *folder) {
    const size_t n = dmls_path_folder_len(path);
    char *dir = n ? strndup(path, n) : strdup(".");
    if (dir == NULL) return ENOMEM;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#ifdef O_PATH
    if (fd < 0 && errno == EACCES) fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
#endif
    const int err = fd < 0 ? errno : 0;
    free(dir);
    *folder = fd;
    return err;
}

/* A fresh name for the folder, ".dmlslice-PID-K", malloc'd: a named
 * temporary, a second name for a file being replaced, or a name to move a
 * file aside under. PID and K say whose it is, so that stale_temporary_name
 * knows it once that process is gone. */
static char *fresh_name(void) {
    static atomic_uint next;
    char *name = malloc(48);
    if (name) snprintf(name, 48, ".dmlslice-%ld-%u", (long)getpid(), atomic_fetch_add(&next, 1));
    return name;
}

/* True for ".dmlslice-PID-K" (K of at most 9 digits) whose process PID is
 * gone: what a process killed by SIGKILL with a named temporary, or inside
 * a commit, leaves. A PID now reused, or another user's live process
 * (EPERM), keeps its name. */
static int stale_temporary_name(const char *name) {
    static const char prefix[] = ".dmlslice-";
    if (strncmp(name, prefix, sizeof prefix - 1) != 0) return 0;
    const char *p = name + sizeof prefix - 1;
    long long pid = 0;
    for (; *p >= '0' && *p <= '9' && pid <= INT_MAX; p++) pid = pid * 10 + (*p - '0');
    if (*p++ != '-' || pid <= 0 || pid > INT_MAX || (pid_t)pid == getpid()) return 0;
    const char *k = p;
    while (*p >= '0' && *p <= '9') p++;
    if (*p != '\0' || p == k || p - k > 9) return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes what stale_temporary_name finds in the folder, before a new file
 * is made there: the leftover of a killed process lasts until then only. */
static void remove_stale_names(int folder) {
    const int fd = openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) { /* then creating the new file fails and says why */
        if (fd >= 0) close(fd);
        return;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (stale_temporary_name(e->d_name)) unlinkat(folder, e->d_name, 0);
    closedir(d);
}

/* Reserves bytes by writing zeros, where posix_fallocate cannot. */
static int reserve_by_writing(int fd, uint64_t bytes) {
    static const unsigned char zeros[1 << 16];
    for (uint64_t at = 0; at < bytes;) {
        const size_t n = bytes - at < sizeof zeros ? (size_t)(bytes - at) : sizeof zeros;
        const ssize_t w = pwrite(fd, zeros, n, (off_t)at);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        at += (uint64_t)w;
    }
    return 0;
}

/* The new file in f->folder: unnamed where the system can (O_TMPFILE:
 * nothing to clean up, however the process ends), else under a fresh name
 * that every catchable terminating signal removes. */
static int make_temporary(dmls_atomic_file *f) {
#ifdef O_TMPFILE
    /* Some file systems refuse: name one instead. */
    if (!fallback("named")) f->handle = openat((int)f->folder, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (f->handle >= 0) return 0;
#endif
    int err = EEXIST;
    for (int tries = 0; err == EEXIST && tries < 100; tries++) {
        free(f->tmp_name);
        f->tmp_name = fresh_name();
        if (f->tmp_name == NULL) return ENOMEM;
        /* No other thread runs yet: blocking signals closes the gap
         * between the file's creation and its removal being armed. */
        sigset_t all, old;
        sigfillset(&all);
        sigprocmask(SIG_BLOCK, &all, &old);
        f->handle = openat((int)f->folder, f->tmp_name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        err = f->handle < 0 ? errno : 0;
        if (!err) err = posix_remove_on_signal((int)f->folder, f->tmp_name);
        if (err && f->handle >= 0) {
            unlinkat((int)f->folder, f->tmp_name, 0);
            close((int)f->handle);
            f->handle = -1;
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    if (err) {
        free(f->tmp_name);
        f->tmp_name = NULL;
    }
    return err;
}

/* Permissions set, every byte reserved and mapped: the create's last steps,
 * each naming itself in f->failed. Every byte is reserved before one is
 * written through the mapping, so a full disk or the file-size limit is an
 * error here, not SIGBUS later. */
static int reserve_and_map(dmls_atomic_file *f, uint64_t bytes, int mode) {
    f->failed = "permissions";
    if (fchmod((int)f->handle, (mode_t)mode) != 0) return errno;
    f->failed = "reserve";
    if (bytes > (uint64_t)INT64_MAX || bytes > SIZE_MAX) return EFBIG;
    int err = 0;
    if (bytes > 0) {
        err = fallback("write") ? EOPNOTSUPP : posix_fallocate((int)f->handle, 0, (off_t)bytes);
        if (err == EOPNOTSUPP || err == ENOSYS || err == EINVAL) err = reserve_by_writing((int)f->handle, bytes);
    }
    if (err) return err;
    f->failed = "map";
    if (bytes > 0) {
        void *map = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_SHARED, (int)f->handle, 0);
        if (map == MAP_FAILED) return errno;
        f->data = map;
    }
    return 0;
}

int dmls_atomic_file_create(dmls_atomic_file *f, const char *path, uint64_t bytes, int mode) {
    memset(f, 0, sizeof *f);
    f->handle = f->folder = -1;
    f->guard = -1;
    f->failed = "create";
    f->final_path = strdup(path);
    int err = f->final_path ? open_folder(path, &f->folder) : ENOMEM;
    if (!err) f->final_name = f->final_path + dmls_path_folder_len(path);
    if (!err && f->final_name[0] == '\0') err = EISDIR;
    struct stat st;
    if (!err && mode < 0 && fstatat((int)f->folder, f->final_name, &st, 0) == 0) mode = (int)(st.st_mode & 0777);
    if (mode < 0) {
        const mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~(int)mask;
    }
    posix_ignore_file_size_limit();
    if (!err) remove_stale_names((int)f->folder);
    if (!err) err = make_temporary(f);
    if (!err) err = reserve_and_map(f, bytes, mode);
    if (err) {
        dmls_atomic_file_abort(f); /* f->failed stays */
        return err;
    }
    f->failed = NULL;
    if (f->data) f->guard = posix_guard_range(f->data, (size_t)bytes, 1);
    f->bytes = bytes;
    return 0;
}

/* Gives the open unnamed file fd the name `to` in folder (EEXIST when
 * taken). */
static int link_unnamed(int fd, int folder, const char *to) {
#ifdef AT_EMPTY_PATH
    if (!fallback("proc")) {
        if (linkat(fd, "", folder, to, AT_EMPTY_PATH) == 0) return 0;
        if (errno == EEXIST) return EEXIST;
    }
#endif
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, proc, folder, to, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
}

/* Links the unnamed file under a fresh name, armed for removal on a signal:
 * replacing needs rename, which needs a name. */
static int name_temporary(dmls_atomic_file *f) {
    int err = EEXIST;
    for (int tries = 0; err == EEXIST && tries < 100; tries++) {
        free(f->tmp_name);
        f->tmp_name = fresh_name();
        if (f->tmp_name == NULL) return ENOMEM;
        err = posix_remove_on_signal((int)f->folder, f->tmp_name);
        if (!err) err = link_unnamed((int)f->handle, (int)f->folder, f->tmp_name);
        if (err) posix_keep_on_signal(f->tmp_name);
    }
    if (err) {
        free(f->tmp_name);
        f->tmp_name = NULL;
    }
    return err;
}

/* Puts the complete file under its final name in its folder. */
static int name_file(dmls_atomic_file *f, int replace) {
    const int dir = (int)f->folder;
    if (f->tmp_name == NULL && !replace) return link_unnamed((int)f->handle, dir, f->final_name);
    if (f->tmp_name == NULL) {
        const int err = name_temporary(f);
        if (err) return err;
    }
    if (replace) return renameat(dir, f->tmp_name, dir, f->final_name) == 0 ? 0 : errno;
    /* link() refuses an existing name atomically, unlike rename(). */
    if (linkat(dir, f->tmp_name, dir, f->final_name, 0) == 0) {
        unlinkat(dir, f->tmp_name, 0);
        return 0;
    }
    if (errno == EEXIST) return EEXIST;
    /* A file system without hard links: check, then rename. */
    struct stat st;
    if (fstatat(dir, f->final_name, &st, AT_SYMLINK_NOFOLLOW) == 0) return EEXIST;
    return renameat(dir, f->tmp_name, dir, f->final_name) == 0 ? 0 : errno;
}

int dmls_atomic_file_faulted(const dmls_atomic_file *f) { return posix_guard_faulted(f->guard); }

/* The data durable and the file length bytes long: the commit's first step. */
static int finish_data(dmls_atomic_file *f, uint64_t length) {
    int err = posix_guard_faulted(f->guard) ? EIO : 0;
    if (f->data) {
        if (!err && msync(f->data, (size_t)f->bytes, MS_SYNC) != 0) err = errno;
        posix_unguard_range(f->guard);
        f->guard = -1;
        munmap(f->data, (size_t)f->bytes);
        f->data = NULL;
    }
    if (!err && (ftruncate((int)f->handle, (off_t)length) != 0 || fsync((int)f->handle) != 0)) err = errno;
    return err;
}

/* After the name is given: the temporary name disarmed and dropped, the
 * folder's new entry made durable. */
static void named(dmls_atomic_file *f) {
    posix_keep_on_signal(f->tmp_name);
    free(f->tmp_name);
    f->tmp_name = NULL; /* committed: nothing left to remove */
    fsync((int)f->folder); /* fails harmlessly on an O_PATH descriptor */
}

int dmls_atomic_file_commit(dmls_atomic_file *f, uint64_t length, int replace) {
    int err = finish_data(f, length);
    if (!err) err = name_file(f, replace);
    if (err) return err;
    named(f);
    dmls_atomic_file_abort(f);
    return 0;
}

/* Keeps the file under u->final_name, which the commit replaces, under a
 * fresh name (armed for removal on a signal: until the undo is armed, the
 * file is still under its own name). A file system without hard links
 * keeps no copy: an undo then leaves the name empty. */
static int keep_replaced(posix_undo *u) {
    struct stat st;
    if (fstatat(u->dir, u->final_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return 0;
    for (int tries = 0; tries < 100; tries++) {
        u->backup_name = fresh_name();
        if (u->backup_name == NULL) return ENOMEM;
        int err = posix_remove_on_signal(u->dir, u->backup_name);
        if (!err && linkat(u->dir, u->final_name, u->dir, u->backup_name, 0) == 0) return 0;
        if (!err) err = errno;
        posix_keep_on_signal(u->backup_name);
        free(u->backup_name);
        u->backup_name = NULL;
        if (err != EEXIST) return err == ENFILE || err == ENOMEM ? err : 0;
    }
    return EEXIST;
}

static void free_undo(posix_undo *u) {
    if (u == NULL) return;
    posix_undo_keep(u);
    if (u->backup_name) {
        posix_keep_on_signal(u->backup_name);
        unlinkat(u->dir, u->backup_name, 0);
    }
    free(u->backup_name);
    free(u->aside_name);
    free(u);
}

int dmls_atomic_file_commit_undoable(dmls_atomic_file *f, uint64_t length, int replace) {
    int err = finish_data(f, length);
    struct stat st;
    if (!err && fstat((int)f->handle, &st) != 0) err = errno;
    posix_undo *u = err ? NULL : calloc(1, sizeof *u);
    if (!err && u == NULL) err = ENOMEM;
    if (!err) {
        u->dir = (int)f->folder; /* held by f until the undo is freed */
        u->final_name = f->final_name;
        u->dev = (uint64_t)st.st_dev;
        u->ino = (uint64_t)st.st_ino;
        u->aside_name = fresh_name();
        if (u->aside_name == NULL) err = ENOMEM;
    }
    if (!err && replace) err = keep_replaced(u);
    /* Armed before the name is given: a signal in between finds the name
     * still another file's, and leaves it. */
    if (!err) err = posix_undo_on_signal(u);
    if (!err) err = name_file(f, replace);
    if (err) {
        free_undo(u);
        return err;
    }
    named(f);
    posix_unguard_range(f->guard);
    if (f->handle >= 0) close((int)f->handle);
    f->handle = -1;
    f->undo = u;
    return 0;
}

void dmls_atomic_file_undo(dmls_atomic_file *f) {
    posix_undo *u = f->undo;
    if (u == NULL) return;
    /* Not also by a handler meanwhile: it would undo the same commit. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    posix_undo_keep(u);
    posix_undo_now(u);
    sigprocmask(SIG_SETMASK, &old, NULL);
    free_undo(u);
    f->undo = NULL;
    dmls_atomic_file_abort(f);
}

void dmls_atomic_file_settle(dmls_atomic_file *f) {
    free_undo(f->undo); /* the replaced file's copy goes */
    f->undo = NULL;
    dmls_atomic_file_abort(f);
}

void dmls_atomic_file_abort(dmls_atomic_file *f) {
    free_undo(f->undo); /* an undoable commit left as it is: kept */
    posix_unguard_range(f->guard);
    if (f->data) munmap(f->data, (size_t)f->bytes);
    if (f->handle >= 0) close((int)f->handle);
    if (f->tmp_name) {
        posix_keep_on_signal(f->tmp_name);
        unlinkat((int)f->folder, f->tmp_name, 0);
    }
    if (f->folder >= 0) close((int)f->folder); /* last: the steps above are relative to it */
    free(f->tmp_name);
    free(f->final_path);
    const char *failed = f->failed;
    memset(f, 0, sizeof *f);
    f->handle = f->folder = -1;
    f->guard = -1;
    f->failed = failed;
}

/* The folder's identity, and its parent's through "..": no name is read,
 * so the walk follows where the folder is, not what a path says. O_PATH
 * (Linux) needs no permission to read the folders passed. */
#ifdef O_PATH
#define WALK_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)
#else
#define WALK_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#endif

int dmls_atomic_file_beneath(const dmls_atomic_file *f, const dmls_file_info *folder) {
    if (f->folder < 0 || folder->kind != DMLS_FILE_FOLDER) return 0;
    int at = openat((int)f->folder, ".", WALK_FLAGS), found = 0;
    /* Bounded: a path of PATH_MAX bytes has fewer folders than that. */
    for (int depth = 0; at >= 0 && !found && depth < PATH_MAX; depth++) {
        struct stat here, up;
        if (fstat(at, &here) != 0) break;
        found = (uint64_t)here.st_dev == folder->volume && (uint64_t)here.st_ino == folder->id;
        const int parent = found ? -1 : openat(at, "..", WALK_FLAGS);
        close(at);
        at = parent;
        /* The root is its own parent: the walk ends there. */
        if (at >= 0 && fstat(at, &up) == 0 && up.st_dev == here.st_dev && up.st_ino == here.st_ino) {
            found = (uint64_t)up.st_dev == folder->volume && (uint64_t)up.st_ino == folder->id;
            close(at);
            at = -1;
        }
    }
    if (at >= 0) close(at);
    return found;
}

int dmls_path_remove(const char *path) { return unlink(path) == 0 ? 0 : errno; }

int dmls_open_regular(const char *path, FILE **f, dmls_file_info *info) {
    *f = NULL;
    int e = dmls_path_info(path, 0, info);
    if (e != 0) return e;
    if (info->kind == DMLS_FILE_MISSING) return ENOENT;
    if (info->kind != DMLS_FILE_REGULAR) return EINVAL;
    /* Should the name change between the look and the open, O_NONBLOCK keeps
     * a FIFO from waiting and O_NOFOLLOW refuses a link; fstat then tells
     * whether this is still the file examined. */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return errno == ELOOP ? EINVAL : errno;
    struct stat st;
    dmls_file_info now;
    memset(&now, 0, sizeof now);
    if (fstat(fd, &st) != 0) {
        e = errno;
        close(fd);
        return e;
    }
    fill_info(&st, &now);
    if (now.kind != DMLS_FILE_REGULAR || !dmls_same_file(&now, info)) {
        close(fd);
        info->kind = now.kind;
        return now.kind == DMLS_FILE_REGULAR ? EAGAIN : EINVAL;
    }
    *info = now;
    *f = fdopen(fd, "rb");
    if (*f == NULL) {
        e = errno;
        close(fd);
        return e;
    }
    return 0;
}
