/* platform.h's files, standard streams and command line for POSIX systems.
 * Linux-only paths (O_TMPFILE, AT_EMPTY_PATH) each have a POSIX fallback. */
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH, strndup; MAP_ANONYMOUS under -std=c11 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

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

int dmls_file_map(const char *path, size_t pad, dmls_mapped_file *m) {
    memset(m, 0, sizeof *m);
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
    close(fd);
    if (err) return err;
    m->data = range;
    m->size = size;
    m->sys[0] = range;
    m->sys_len = (size_t)want;
    return 0;
}

void dmls_file_unmap(dmls_mapped_file *m) {
    if (m->sys[0]) munmap(m->sys[0], m->sys_len);
    memset(m, 0, sizeof *m);
}

/* A named temporary file's path, for the handlers below: a signal that ends
 * the process removes it first. Only async-signal-safe calls in handlers. */
static char pending_path[4096];
static volatile sig_atomic_t pending_set;

static void remove_pending(int sig) {
    if (pending_set) unlink(pending_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Arms (path) or disarms (NULL) the removal; a signal that was ignored when
 * the process started stays ignored (nohup keeps working). */
static void remove_on_signal(const char *path) {
    static const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE};
    if (path == NULL) {
        pending_set = 0;
        return;
    }
    snprintf(pending_path, sizeof pending_path, "%s", path);
    pending_set = 1;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_pending;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

static char *folder_of(const char *path) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL) return strdup(".");
    if (slash == path) return strdup("/");
    return strndup(path, (size_t)(slash - path));
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

int dmls_new_file_create(dmls_new_file *f, const char *path, uint64_t bytes, int mode) {
    memset(f, 0, sizeof *f);
    f->handle = -1;
    struct stat st;
    if (mode < 0) mode = stat(path, &st) == 0 ? (int)(st.st_mode & 0777) : -2;
    if (mode == -2) {
        const mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~(int)mask;
    }
    f->final_path = strdup(path);
    char *dir = folder_of(path);
    int err = f->final_path && dir ? 0 : ENOMEM;
#ifdef O_TMPFILE
    /* Unnamed until committed: nothing to clean up, however the process
     * ends. Some file systems refuse: name one instead. The tests turn this
     * off (DMLSLICE_IO_FALLBACK=named) to run the portable path on Linux. */
    const char *fallback = getenv("DMLSLICE_IO_FALLBACK");
    if (!err && !(fallback && strstr(fallback, "named"))) f->handle = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (!err && f->handle < 0) {
        const size_t need = strlen(dir) + sizeof "/.dmlslice-XXXXXX";
        f->tmp_path = malloc(need);
        if (f->tmp_path == NULL) err = ENOMEM;
        if (!err) {
            snprintf(f->tmp_path, need, "%s/.dmlslice-XXXXXX", dir);
            /* No other thread runs yet: blocking signals closes the gap
             * between the file's creation and its removal being armed. */
            sigset_t all, old;
            sigfillset(&all);
            sigprocmask(SIG_BLOCK, &all, &old);
            f->handle = mkstemp(f->tmp_path);
            err = f->handle < 0 ? errno : 0;
            if (!err) remove_on_signal(f->tmp_path);
            sigprocmask(SIG_SETMASK, &old, NULL);
            if (err) {
                free(f->tmp_path);
                f->tmp_path = NULL;
            }
        }
    }
    free(dir);
    if (!err && fchmod((int)f->handle, (mode_t)mode) != 0) err = errno;
    if (!err && (bytes > (uint64_t)INT64_MAX || bytes > SIZE_MAX)) err = EFBIG;
    /* Every byte reserved before one is written through the mapping, so a
     * full disk or the file-size limit is this error, not SIGBUS later. */
    if (!err && bytes > 0) {
        err = posix_fallocate((int)f->handle, 0, (off_t)bytes);
        if (err == EOPNOTSUPP || err == ENOSYS || err == EINVAL) err = reserve_by_writing((int)f->handle, bytes);
    }
    if (!err && bytes > 0) {
        void *map = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_SHARED, (int)f->handle, 0);
        if (map == MAP_FAILED) err = errno;
        else f->data = map;
    }
    if (err) {
        dmls_new_file_abort(f);
        return err;
    }
    f->bytes = bytes;
    return 0;
}

/* Gives the open unnamed file fd the name to (EEXIST when taken). */
static int link_unnamed(int fd, const char *to) {
#ifdef AT_EMPTY_PATH
    if (linkat(fd, "", AT_FDCWD, to, AT_EMPTY_PATH) == 0) return 0;
    if (errno == EEXIST) return EEXIST;
#endif
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, proc, AT_FDCWD, to, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
}

/* Puts the complete file under f->final_path. */
static int name_file(dmls_new_file *f, int replace) {
    if (f->tmp_path == NULL && !replace) return link_unnamed((int)f->handle, f->final_path);
    if (f->tmp_path == NULL) {
        /* Replacing needs rename, which needs a name: link the file under a
         * temporary one first (removed by the signal handlers meanwhile). */
        char *dir = folder_of(f->final_path);
        const size_t need = (dir ? strlen(dir) : 0) + 64;
        f->tmp_path = dir ? malloc(need) : NULL;
        int err = f->tmp_path ? EEXIST : ENOMEM;
        for (unsigned k = 0; err == EEXIST && k < 100; k++) {
            snprintf(f->tmp_path, need, "%s/.dmlslice-%ld-%u", dir, (long)getpid(), k);
            remove_on_signal(f->tmp_path);
            err = link_unnamed((int)f->handle, f->tmp_path);
            if (err) remove_on_signal(NULL);
        }
        free(dir);
        if (err) {
            free(f->tmp_path);
            f->tmp_path = NULL;
            return err;
        }
    }
    if (replace) return rename(f->tmp_path, f->final_path) == 0 ? 0 : errno;
    /* link() refuses an existing name atomically, unlike rename(). */
    if (link(f->tmp_path, f->final_path) == 0) {
        unlink(f->tmp_path);
        return 0;
    }
    if (errno == EEXIST) return EEXIST;
    /* A file system without hard links: check, then rename. */
    struct stat st;
    if (lstat(f->final_path, &st) == 0) return EEXIST;
    return rename(f->tmp_path, f->final_path) == 0 ? 0 : errno;
}

int dmls_new_file_commit(dmls_new_file *f, uint64_t length, int replace) {
    int err = 0;
    if (f->data) {
        if (msync(f->data, (size_t)f->bytes, MS_SYNC) != 0) err = errno;
        munmap(f->data, (size_t)f->bytes);
        f->data = NULL;
    }
    if (!err && (ftruncate((int)f->handle, (off_t)length) != 0 || fsync((int)f->handle) != 0)) err = errno;
    if (!err) err = name_file(f, replace);
    if (err) return err;
    remove_on_signal(NULL);
    free(f->tmp_path);
    f->tmp_path = NULL; /* committed: nothing left to remove */
    /* The new name durable too. */
    char *dir = folder_of(f->final_path);
    const int dfd = dir ? open(dir, O_RDONLY | O_CLOEXEC) : -1;
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(dir);
    dmls_new_file_abort(f);
    return 0;
}

void dmls_new_file_abort(dmls_new_file *f) {
    if (f->data) munmap(f->data, (size_t)f->bytes);
    if (f->handle >= 0) close((int)f->handle);
    if (f->tmp_path) {
        unlink(f->tmp_path);
        remove_on_signal(NULL);
    }
    free(f->tmp_path);
    free(f->final_path);
    memset(f, 0, sizeof *f);
    f->handle = -1;
}

void dmls_ignore_broken_pipe(void) {
    struct sigaction old;
    if (sigaction(SIGPIPE, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);
}
