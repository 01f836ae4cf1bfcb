/* End-to-end tests of the dmlslice tool's file handling (docs/cli.md,
 * "## Files"): inputs that are pipes, FIFOs or endless devices; hostile
 * headers; outputs that are special files, links, folders or long names;
 * signals and the file-size limit mid-write; an input that shrinks while it
 * is read; a full disk. Every case checks the exit status, the message's
 * text and numbers, that an old output is untouched and that no temporary
 * file is left.
 *
 * Usage: test_files DMLSLICE SCRATCH_PARENT [full-disk|shrinking]
 * With "full-disk" it runs only the full-disk cases, on a 1 MiB tmpfs it
 * mounts (root only: exit 77, skipped, otherwise); with "shrinking" only the
 * shrinking input (exit 77 under an emulator that cannot deliver its SIGBUS
 * as the tool needs, see shrinking()). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support/test.h"

static const char *tool;
static char dir[4096];

/* dir/name, in one of a few rotating buffers. */
static const char *P(const char *name) {
    static char bufs[8][4500];
    static int k;
    char *b = bufs[k++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

static void write_file(const char *name, const void *data, size_t n) {
    const int fd = open(P(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, data, n) != (ssize_t)n) fprintf(stderr, "cannot write %s\n", name);
    if (fd >= 0) close(fd);
}

static unsigned char *read_file(const char *name, size_t *len) {
    *len = 0;
    const int fd = open(P(name), O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    fstat(fd, &st);
    unsigned char *b = malloc((size_t)st.st_size + 1);
    ssize_t r = read(fd, b, (size_t)st.st_size);
    close(fd);
    *len = r > 0 ? (size_t)r : 0;
    b[*len] = '\0';
    return b;
}

static bool file_is(const char *name, const void *want, size_t n) {
    size_t len;
    unsigned char *b = read_file(name, &len);
    const bool ok = b && len == n && memcmp(b, want, n) == 0;
    free(b);
    return ok;
}

/* A version-1.0 header for dict, its padding filled with pad (the last byte
 * a newline), so the data starts at a multiple of 64. */
static size_t npy_header_bytes(unsigned char *b, const char *dict, char pad) {
    const size_t total = (10 + strlen(dict) + 1 + 63) / 64 * 64, hlen = total - 10;
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (unsigned char)hlen;
    b[9] = (unsigned char)(hlen >> 8);
    memset(b + 10, pad, hlen);
    memcpy(b + 10, dict, strlen(dict));
    b[total - 1] = '\n';
    return total;
}

static size_t write_npy(const char *name, const char *dict, const void *data, size_t n) {
    unsigned char *b = malloc(4096 + n);
    const size_t h = npy_header_bytes(b, dict, ' ');
    if (n) memcpy(b + h, data, n);
    write_file(name, b, h + n);
    free(b);
    return h;
}

/* A u1 file of n bytes, sparse (holes read as zeros) but for the bytes at
 * the given offsets, which hold (offset * 7) & 255 | 1. */
static size_t write_sparse_u1(const char *name, uint64_t n, const uint64_t *marks, int nmarks) {
    char dict[128];
    snprintf(dict, sizeof dict, "{'descr': '|u1', 'fortran_order': False, 'shape': (%llu,), }",
             (unsigned long long)n);
    const size_t h = write_npy(name, dict, NULL, 0);
    const int fd = open(P(name), O_WRONLY);
    if (fd < 0 || ftruncate(fd, (off_t)(h + n)) != 0) fprintf(stderr, "cannot size %s\n", name);
    for (int k = 0; k < nmarks; k++) {
        const unsigned char v = (unsigned char)((marks[k] * 7) & 255) | 1;
        if (pwrite(fd, &v, 1, (off_t)(h + marks[k])) != 1) fprintf(stderr, "cannot mark %s\n", name);
    }
    close(fd);
    return h;
}

/* ------------------------------------------------------------ running the tool */

typedef struct spawn_opts {
    int in_fd;          /* standard input, or -1 for /dev/null */
    int out_fd;         /* standard output, or -1 for dir/out.txt */
    const char *env;    /* "NAME=value" added to the environment, or NULL */
    bool ignore_hup;    /* start with SIGHUP ignored, as nohup does */
    rlim_t fsize;       /* a file-size limit in bytes, or 0 */
} spawn_opts;

static const char *io_env; /* DMLSLICE_IO_FALLBACK=... for the current pass, or NULL */

static pid_t spawn_argv(const spawn_opts *o, char **argv) {
    const pid_t pid = fork();
    if (pid != 0) return pid;
    if (chdir(dir) != 0) _exit(120);
    const int in = o->in_fd >= 0 ? o->in_fd : open("/dev/null", O_RDONLY);
    const int out = o->out_fd >= 0 ? o->out_fd : open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    for (int fd = 3; fd < 1024; fd++) close(fd);
    if (o->env) putenv((char *)o->env);
    if (io_env) putenv((char *)io_env);
    signal(SIGHUP, o->ignore_hup ? SIG_IGN : SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (o->fsize) {
        struct rlimit rl = {o->fsize, o->fsize};
        setrlimit(RLIMIT_FSIZE, &rl);
    }
    execv(argv[0], argv);
    _exit(127);
}

#define MAX_ARGS 24
static pid_t spawn_tool(const spawn_opts *o, const char *first, va_list ap) {
    char *argv[MAX_ARGS + 2];
    int n = 0;
    argv[n++] = (char *)tool;
    for (const char *a = first; a && n < MAX_ARGS; a = va_arg(ap, const char *)) argv[n++] = (char *)a;
    argv[n] = NULL;
    return spawn_argv(o, argv);
}

/* Waits up to seconds; the exit status, 128 + the signal, or -1 after a
 * timeout (the process is then killed). */
static int wait_for(pid_t pid, double seconds) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int st;
        const pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > seconds) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        usleep(2000);
    }
}

/* Runs the tool with the given arguments (NULL-terminated) and options. */
static int run_with(const spawn_opts *o, const char *first, ...) {
    va_list ap;
    va_start(ap, first);
    const pid_t pid = spawn_tool(o, first, ap);
    va_end(ap);
    return wait_for(pid, 60);
}
/* Options for one run: standard input and output (-1: none), SIGHUP
 * ignored or not, a file-size limit (0: none). */
static const spawn_opts *O(int in_fd, int out_fd, bool ignore_hup, rlim_t fsize) {
    static spawn_opts o;
    o.in_fd = in_fd;
    o.out_fd = out_fd;
    o.env = NULL;
    o.ignore_hup = ignore_hup;
    o.fsize = fsize;
    return &o;
}
#define RUN(...) run_with(O(-1, -1, false, 0), __VA_ARGS__, (const char *)NULL)

static pid_t start(const spawn_opts *o, const char *first, ...) {
    va_list ap;
    va_start(ap, first);
    const pid_t pid = spawn_tool(o, first, ap);
    va_end(ap);
    return pid;
}

/* Runs a shell line in the scratch folder with $TOOL set, with a timeout. */
static int shell(const char *shell_path, const char *line, double seconds) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "TOOL='%s'; %s", tool, line);
    char *argv[] = {(char *)shell_path, "-c", cmd, NULL};
    spawn_opts o = {-1, -1, NULL, false, 0};
    const pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) != 0) _exit(120);
        if (io_env) putenv((char *)io_env);
        signal(SIGPIPE, SIG_DFL);
        setpgid(0, 0); /* the timeout kills the whole line */
        execv(argv[0], argv);
        _exit(127);
    }
    (void)o;
    const int r = wait_for(pid, seconds);
    if (r == -1) kill(-pid, SIGKILL);
    return r;
}

static char *err_text(void) {
    size_t n;
    unsigned char *e = read_file("err.txt", &n);
    return (char *)e;
}

static bool err_has(const char *frag) {
    char *e = err_text();
    const bool ok = e && strstr(e, frag) != NULL;
    if (!ok) fprintf(stderr, "  stderr lacks \"%s\": %s\n", frag, e ? e : "(none)");
    free(e);
    return ok;
}

static bool out_has(const char *frag) {
    size_t n;
    char *o = (char *)read_file("out.txt", &n);
    const bool ok = o && strstr(o, frag) != NULL;
    if (!ok) fprintf(stderr, "  stdout lacks \"%s\": %s\n", frag, o ? o : "(none)");
    free(o);
    return ok;
}

static bool err_lacks(const char *frag) {
    char *e = err_text();
    const bool ok = e && strstr(e, frag) == NULL;
    if (!ok) fprintf(stderr, "  stderr has \"%s\": %s\n", frag, e ? e : "(none)");
    free(e);
    return ok;
}

static bool exists(const char *name) {
    struct stat st;
    return lstat(P(name), &st) == 0;
}

/* No temporary file is left in folder: any name beginning with a dot. */
static bool no_temp_files_in(const char *folder) {
    DIR *d = opendir(folder);
    struct dirent *e;
    bool clean = true;
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            fprintf(stderr, "  left behind: %s/%s\n", folder, e->d_name);
            clean = false;
        }
    if (d) closedir(d);
    return clean;
}
static bool no_temp_files(void) { return no_temp_files_in(dir); }

/* Waits until pid holds a descriptor on a file in folder other than skip
 * (its input) and the folder itself: it has started writing its output. */
static bool wait_writing(pid_t pid, const char *folder, const char *skip) {
    char fds[64], link[400], target[4200];
    snprintf(fds, sizeof fds, "/proc/%d/fd", (int)pid);
    for (int tries = 0; tries < 20000; tries++) {
        DIR *d = opendir(fds);
        struct dirent *e;
        bool found = false;
        while (d && (e = readdir(d)) != NULL) {
            snprintf(link, sizeof link, "%s/%s", fds, e->d_name);
            const ssize_t n = readlink(link, target, sizeof target - 1);
            if (n <= 0) continue;
            target[n] = '\0';
            const size_t fl = strlen(folder);
            /* A file in folder itself: an input may sit in a subfolder. */
            if (strncmp(target, folder, fl) == 0 && target[fl] == '/' && strchr(target + fl + 1, '/') == NULL &&
                strcmp(target, skip) != 0 &&
                strcmp(target + fl, "/out.txt") != 0 && strcmp(target + fl, "/err.txt") != 0)
                found = true;
        }
        if (d) closedir(d);
        if (found) return true;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            fprintf(stderr, "  the tool ended before it wrote\n");
            return false;
        }
        usleep(200);
    }
    return false;
}

/* ------------------------------------------------------------ messages */

static const uint32_t d4[4] = {1, 2, 3, 4};

static void test_messages(void) {
    /* Kinds DirectML has no type for are sliced by item size; info names
     * them. Objects are refused, saying why. */
    write_npy("u1str.npy", "{'descr': '<U1', 'fortran_order': False, 'shape': (4,), }", d4, 16);
    CHECK(RUN("info", "u1str.npy") == 0 && out_has("dtype:   <U1 (str, 4-byte items, little-endian)"), "info of '<U1'");
    write_npy("date.npy", "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (2,), }", d4, 16);
    CHECK(RUN("info", "date.npy") == 0 && out_has("dtype:   <M8[ns] (datetime64, 8-byte items, little-endian)"),
          "info of '<M8[ns]'");
    write_npy("obj.npy", "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", d4, 16);
    CHECK(RUN("info", "obj.npy") == 1 && err_has("obj.npy: unsupported dtype '|O' (object arrays hold Python pointers") &&
              err_lacks("string"),
          "object hint");
    write_file("magic10.npy", "\x93NUMPZ\x01\x00\x10\x00", 10);
    CHECK(RUN("info", "magic10.npy") == 1 && err_has("magic10.npy: not a .npy file (bad magic") &&
              err_lacks("truncated"),
          "10-byte bad magic");
    write_file("magic7.npy", "PK\x03\x04zip", 7);
    CHECK(RUN("info", "magic7.npy") == 1 && err_has("(bad magic") && err_lacks("truncated"), "7-byte bad magic");
    write_file("empty.npy", "", 0);
    CHECK(RUN("info", "empty.npy") == 1 && err_has("empty.npy: not a .npy file (it is empty)"), "empty file");
    write_file("one.npy", "\x93", 1); /* a one-byte file is mapped and read, not taken for empty */
    CHECK(RUN("info", "one.npy") == 1 && err_has("one.npy: not a .npy file (shorter than the 6-byte magic)"),
          "1-byte file");
    /* A regular file that cannot be mapped (sysfs attributes have no mmap). */
    const char *sys = "/sys/kernel/mm/transparent_hugepage/enabled";
    if (access(sys, R_OK) == 0) {
        CHECK(RUN("info", sys) == 1 && err_has("enabled: cannot map 4096 bytes: "), "unmappable file");
    } else {
        printf("note: no %s; the unmappable file not tried\n", sys);
    }
    write_file("prefix.npy", "\x93NUMPY\x01", 7);
    CHECK(RUN("info", "prefix.npy") == 1 && err_has("(truncated before the header length)"), "true prefix");

    /* Byte size against element count, and empty arrays of huge dims. */
    write_npy("bytes.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (2305843009213693952, 2), }", d4, 16);
    CHECK(RUN("info", "bytes.npy") == 1 &&
              err_has("bytes.npy: the shape's 4611686018427387904 elements of 4 bytes overflow the byte size") &&
              err_lacks("element count"),
          "byte size overflow");
    write_npy("count.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (4294967296, 4294967297), }", d4, 16);
    CHECK(RUN("info", "count.npy") == 1 && err_has("count.npy: the shape's element count overflows"),
          "element count overflow");
    write_npy("zero.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (4294967296, 4294967296, 0), }", NULL, 0);
    CHECK(RUN("info", "zero.npy") == 0, "a zero dim with huge others refused");
    size_t n;
    unsigned char *o = read_file("out.txt", &n);
    CHECK(o && strstr((char *)o, "elements: 0") && strstr((char *)o, "(4294967296, 4294967296, 0)"), "info: %s",
          o ? (char *)o : "");
    free(o);
    /* Slicing it is the front ends' and the library's business: both still
     * count elements in an order where (2**32, 2**32, 0) overflows. An
     * empty Fortran-order array, whose strides saturate, goes through. */
    write_npy("zerof.npy", "{'descr': '>i2', 'fortran_order': True, 'shape': (0, 2, 44444, 2, 4444444444444444444, 2), }",
              NULL, 0);
    CHECK(RUN("slice", "zerof.npy", "-o", "zoutf.npy", "--index", "...") == 0, "empty Fortran array with huge dims");

    /* Padding after the dictionary: NULs are fine, text is not. */
    const uint16_t v[3] = {7, 8, 9};
    unsigned char b[256];
    size_t hl = npy_header_bytes(b, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", '\0');
    memcpy(b + hl, v, sizeof v);
    write_file("nulpad.npy", b, hl + sizeof v);
    CHECK(RUN("slice", "nulpad.npy", "-o", "nulout.npy", "--index", "::-1") == 0, "NUL padding refused");
    hl = npy_header_bytes(b, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), } x", ' ');
    memcpy(b + hl, v, sizeof v);
    write_file("textpad.npy", b, hl + sizeof v);
    CHECK(RUN("info", "textpad.npy") == 1 && err_has("textpad.npy: malformed header dictionary near byte 68"),
          "text after the dictionary accepted");

    /* Text from a file is escaped. */
    write_npy("esc.npy", "{'descr': '\x1b[31m', 'fortran_order': False, 'shape': (4,), }", d4, 16);
    CHECK(RUN("info", "esc.npy") == 1 && err_has("unsupported dtype '\\x1b[31m'") && err_lacks("\x1b"),
          "descr not escaped");
    write_npy("esc2.npy", "{'descr': '<u4', \x1b]0;owned\x07 }", d4, 16);
    CHECK(RUN("info", "esc2.npy") == 1 && err_has("\\x1b]0;owned\\x07") && err_lacks("\x1b") && err_lacks("\x07"),
          "malformed header not escaped");
    write_npy("esc3.npy", "{'descr': '<u4', '\x9b\x31m': 1, 'fortran_order': False, 'shape': (4,), }", d4, 16);
    CHECK(RUN("info", "esc3.npy") == 1 && err_has("unknown key '\\x9b1m'") && err_lacks("\x9b"), "key not escaped");

    /* The header's length is bounded (a version 2.0 header may claim 4 GiB). */
    unsigned char big[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0x01, 0x00, 0x01, 0x00, '{', '}'};
    write_file("bighdr.npy", big, 14);
    CHECK(RUN("info", "bighdr.npy") == 1 && err_has("bighdr.npy: the header claims 65537 bytes; at most 65536"),
          "header bound");

    /* A missing output folder is named as such, before any input is read. */
    int never[2];
    if (pipe(never) == 0) {
        const int r = run_with(O(never[0], -1, false, 0), "slice", "-", "-o", "nodir/o.npy",
                               "--index", "0", (const char *)NULL);
        CHECK(r == 1 && err_has("nodir/o.npy: cannot write: the folder 'nodir' does not exist") &&
                  err_lacks("Bad file descriptor"),
              "missing output folder (exit %d)", r);
        close(never[0]);
        close(never[1]);
    }
    CHECK(no_temp_files(), "temporary files after the message cases");
}

/* ------------------------------------------------------------ inputs */

/* A child that writes name into fd and exits. */
static pid_t feed(const char *name, int fd) {
    const pid_t pid = fork();
    if (pid == 0) {
        size_t n;
        unsigned char *b = read_file(name, &n);
        signal(SIGPIPE, SIG_DFL);
        for (size_t at = 0; b && at < n;) {
            const ssize_t w = write(fd, b + at, n - at);
            if (w <= 0) _exit(1);
            at += (size_t)w;
        }
        _exit(0);
    }
    return pid;
}

static void test_inputs(void) {
    /* 150000 u2 (300 KB): the stream reader's buffer grows several times. */
    enum { N = 150000 };
    uint16_t *v = malloc(N * 2), *rev = malloc(N * 2);
    for (int i = 0; i < N; i++) v[i] = (uint16_t)(i * 31 + 5), rev[N - 1 - i] = v[i];
    const size_t h = write_npy("wide.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (150000,), }", v, N * 2);
    unsigned char *want = malloc(h + N * 2);
    npy_header_bytes(want, "{'descr': '<u2', 'fortran_order': False, 'shape': (150000,), }", ' ');
    memcpy(want + h, rev, N * 2);

    int p[2];
    CHECK(pipe(p) == 0, "pipe");
    pid_t f = feed("wide.npy", p[1]);
    close(p[1]);
    int r = run_with(O(p[0], -1, false, 0), "slice", "-", "-o", "w1.npy", "--index", "::-1",
                     (const char *)NULL);
    close(p[0]);
    waitpid(f, NULL, 0);
    CHECK(r == 0 && file_is("w1.npy", want, h + N * 2), "300 KB from a pipe (exit %d)", r);

    CHECK(mkfifo(P("in.fifo"), 0600) == 0, "mkfifo");
    f = fork();
    if (f == 0) {
        const int fd = open(P("in.fifo"), O_WRONLY);
        size_t n;
        unsigned char *b = read_file("wide.npy", &n);
        _exit(write(fd, b, n) == (ssize_t)n ? 0 : 1);
    }
    r = RUN("slice", "in.fifo", "-o", "w2.npy", "--index", "::-1");
    waitpid(f, NULL, 0);
    CHECK(r == 0 && file_is("w2.npy", want, h + N * 2), "a FIFO as input (exit %d)", r);
    unlink(P("in.fifo"));

    if (access("/bin/bash", X_OK) == 0) {
        r = shell("/bin/bash", "$TOOL slice <(cat wide.npy) -o w3.npy --index ::-1 2>err.txt", 60);
        CHECK(r == 0 && file_is("w3.npy", want, h + N * 2), "<(cat wide.npy) as input (exit %d)", r);
    } else {
        printf("note: no /bin/bash; <(cat ...) not tried\n");
    }
    free(v);
    free(rev);
    free(want);
}

/* Inputs that are no .npy file, or not the one their header announces:
 * refused at once, the stream read only as far as the reason. */
static void test_refused_inputs(void) {
    /* Endless or random devices: refused at once, reading a few bytes. */
    int r = RUN("info", "/dev/zero");
    CHECK(r == 1 && err_has("/dev/zero: not a .npy file (bad magic"), "info /dev/zero (exit %d)", r);
    r = RUN("slice", "/dev/zero", "-o", "z.npy", "--index", "0");
    CHECK(r == 1 && err_has("/dev/zero: not a .npy file (bad magic"), "slice /dev/zero (exit %d)", r);
    const int ur = open("/dev/urandom", O_RDONLY);
    r = run_with(O(ur, -1, false, 0), "slice", "-", "-o", "z.npy", "--index", "0",
                 (const char *)NULL);
    close(ur);
    CHECK(r == 1 && err_has("<stdin>: not a .npy file"), "stdin from /dev/urandom (exit %d)", r);
    write_npy("hdr16.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (16,), }", NULL, 0);
    write_file("hdr2g.npy", "\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12); /* version 2.0, 2 GiB */
    write_npy("short.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (1099511627776,), }", d4, 16);
    write_file("hdrcut.npy", "\x93NUMPY\x01\x00\x40\x00{'", 12);   /* 64 bytes announced, 2 there */
    write_file("hdr0.npy", "\x93NUMPY\x01\x00\x00\x00xx", 12);     /* version 1.0, length 0 */
    static const struct {
        const char *line, *fragment, *what;
    } streams[] = {
        {"cat /dev/urandom | $TOOL slice - -o z.npy --index 0 2>err.txt", "<stdin>: not a .npy file",
         "cat /dev/urandom |"},
        /* A good header, then endless zeros: exactly the promised bytes are
         * read, and the one more says the stream is longer. */
        {"cat hdr16.npy /dev/zero | $TOOL slice - -o z.npy --index 0 2>err.txt",
         "<stdin>: the header's shape needs 16 bytes of data but more follow", "header then /dev/zero"},
        {"cat hdr2g.npy /dev/zero | $TOOL info - 2>err.txt",
         "<stdin>: the header claims 2147483647 bytes; at most 65536", "2 GiB header"},
        /* A stream shorter than its header promises, by a lot: no huge buffer. */
        {"cat short.npy | $TOOL info - 2>err.txt",
         "<stdin>: the header's shape needs 1099511627776 bytes of data but the file has 16 (truncated file)",
         "short stream"},
        {"cat hdr16.npy | $TOOL info - 2>err.txt",
         "<stdin>: the header's shape needs 16 bytes of data but the file has 0 (truncated file)",
         "a stream that ends with its header"},
        {"cat hdrcut.npy | $TOOL info - 2>err.txt",
         "<stdin>: the header claims 64 bytes but the file has only 2 after the preamble", "stream cut in the header"},
        /* An empty dictionary on a long stream: the reader takes nothing past
         * the 12 bytes it has. */
        {"(cat hdr0.npy; head -c 1048576 /dev/zero) | $TOOL info - 2>err.txt",
         "<stdin>: malformed header dictionary near byte 10 of ''", "empty dictionary"},
        {"cat wide.npy wide.npy | $TOOL info - 2>err.txt",
         "needs 300000 bytes of data but more follow (header and data disagree)", "two files on one stream"},
    };
    for (size_t k = 0; k < sizeof streams / sizeof streams[0]; k++) {
        r = shell("/bin/sh", streams[k].line, 20);
        CHECK(r == 1 && err_has(streams[k].fragment), "%s (exit %d)", streams[k].what, r);
    }
    /* A read that fails (standard input open for writing only) is a read
     * error with the system's reason, not an empty or truncated file. */
    const int wo = open(P("wo.npy"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    r = run_with(O(wo, -1, false, 0), "info", "-", (const char *)NULL);
    close(wo);
    CHECK(r == 1 && err_has("<stdin>: read error: ") && err_lacks("empty"), "write-only stdin (exit %d)", r);
    r = RUN("info", "-"); /* standard input is /dev/null */
    CHECK(r == 1 && err_has("<stdin>: not a .npy file (it is empty)"), "empty stdin (exit %d)", r);
    CHECK(RUN("info", ".") == 1 && err_has(".: is a folder"), "a folder as input");
    CHECK(!exists("z.npy") && no_temp_files(), "outputs after refused inputs");
}

/* ------------------------------------------------------------ outputs */

static const char *DICT3 = "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }";
static unsigned char want3[256]; /* a.npy reversed, as written */
static size_t want3_len;

static void make_a(void) {
    const uint16_t v[3] = {1, 2, 3}, r[3] = {3, 2, 1};
    write_npy("a.npy", DICT3, v, sizeof v);
    want3_len = npy_header_bytes(want3, DICT3, ' ');
    memcpy(want3 + want3_len, r, sizeof r);
    want3_len += sizeof r;
}

static unsigned mode_of(const char *name) {
    struct stat st;
    return lstat(P(name), &st) == 0 ? (unsigned)st.st_mode & 07777 : 0;
}

/* Reads everything from fd into a malloc'd buffer. */
static unsigned char *drain(int fd, size_t *len) {
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    for (;;) {
        if (n == cap) b = realloc(b, cap *= 2);
        const ssize_t r = read(fd, b + n, cap - n);
        if (r <= 0) break;
        n += (size_t)r;
    }
    *len = n;
    return b;
}

/* Regular files, links, folders and names as outputs; the input's file
 * reached through standard input or output. */
static void test_outputs(void) {
    make_a();
    /* -f keeps the permission bits of the file it replaces. */
    const unsigned modes[2] = {0600, 0640};
    for (int k = 0; k < 2; k++) {
        write_file("perm.npy", "old", 3);
        chmod(P("perm.npy"), modes[k]);
        CHECK(RUN("slice", "a.npy", "-o", "perm.npy", "-f", "--index", "::-1") == 0 && file_is("perm.npy", want3, want3_len),
              "-f replace");
        CHECK(mode_of("perm.npy") == modes[k], "mode %o became %o", modes[k], mode_of("perm.npy"));
    }
    /* A symbolic link to a regular file: the target is replaced, the link stays. */
    write_file("target.npy", "old", 3);
    chmod(P("target.npy"), 0604);
    CHECK(symlink("target.npy", P("link.npy")) == 0, "symlink");
    CHECK(RUN("slice", "a.npy", "-o", "link.npy", "--index", "::-1") == 1 && err_has("link.npy: already exists"),
          "a link to a file without -f");
    CHECK(RUN("slice", "a.npy", "-o", "link.npy", "-f", "--index", "::-1") == 0, "through a link");
    struct stat st;
    char t[64] = "";
    CHECK(lstat(P("link.npy"), &st) == 0 && S_ISLNK(st.st_mode) && readlink(P("link.npy"), t, sizeof t) == 10 &&
              memcmp(t, "target.npy", 10) == 0,
          "the link is no longer the same link");
    CHECK(file_is("target.npy", want3, want3_len) && mode_of("target.npy") == 0604, "the link's target");
    CHECK(symlink("nothing.npy", P("dangling.npy")) == 0, "symlink");
    CHECK(RUN("slice", "a.npy", "-o", "dangling.npy", "-f", "--index", "::-1") == 1 &&
              err_has("dangling.npy: a symbolic link to nothing"),
          "dangling link");
    CHECK(!exists("nothing.npy"), "a dangling link's target was created");

    /* A folder is refused before any work: the input (a pipe that never
     * ends) is not even read. */
    CHECK(mkdir(P("sub"), 0755) == 0, "mkdir");
    int never[2];
    CHECK(pipe(never) == 0, "pipe");
    int r = run_with(O(never[0], -1, false, 0), "slice", "-", "-o", "sub", "-f", "--index", "0",
                     (const char *)NULL);
    CHECK(r == 1 && err_has("sub: is a folder"), "a folder as output (exit %d)", r);
    r = run_with(O(never[0], -1, false, 0), "slice", "-", "-o", "sub/", "--index", "0",
                 (const char *)NULL);
    CHECK(r == 1 && err_has("sub/: names a folder"), "a folder/ as output (exit %d)", r);
    close(never[0]);
    close(never[1]);

    /* Any name the file system allows. */
    char name[256];
    for (int len = 250; len <= 255; len += 5) {
        memset(name, 'n', (size_t)len);
        memcpy(name + len - 4, ".npy", 4);
        name[len] = '\0';
        r = RUN("slice", "a.npy", "-o", name, "--index", "::-1");
        CHECK(r == 0 && file_is(name, want3, want3_len), "a %d-byte name (exit %d)", len, r);
        r = RUN("slice", "a.npy", "-o", name, "-f", "--index", "::-1");
        CHECK(r == 0 && file_is(name, want3, want3_len), "replacing a %d-byte name (exit %d)", len, r);
        unlink(P(name));
    }

    /* The output is never the input, through standard input or output. */
    write_file("b.npy", want3, want3_len);
    int in = open(P("b.npy"), O_RDONLY);
    r = run_with(O(in, -1, false, 0), "slice", "-", "-o", "b.npy", "-f", "--index", "::-1",
                 (const char *)NULL);
    close(in);
    CHECK(r == 1 && err_has("b.npy: the output is the input file") && file_is("b.npy", want3, want3_len),
          "stdin's file as output (exit %d)", r);
    const int app = open(P("b.npy"), O_WRONLY | O_APPEND);
    r = run_with(O(-1, app, false, 0), "slice", "b.npy", "-o", "-", "--index", "::-1",
                 (const char *)NULL);
    close(app);
    CHECK(r == 1 && err_has("<stdout>: standard output is the input file") && file_is("b.npy", want3, want3_len),
          "stdout appending to the input (exit %d)", r);
}

/* Special files are written straight through and stay what they are. */
static void test_special_outputs(void) {
    make_a();
    struct stat st;
    int r, p[2];
    CHECK(pipe(p) == 0, "pipe");
    const pid_t pid = start(O(-1, p[1], false, 0), "slice", "a.npy", "-o", "/dev/stdout", "--index",
                            "::-1", (const char *)NULL);
    close(p[1]);
    size_t n;
    unsigned char *got = drain(p[0], &n);
    close(p[0]);
    r = wait_for(pid, 30);
    CHECK(r == 0 && n == want3_len && memcmp(got, want3, n) == 0, "-o /dev/stdout into a pipe (exit %d, %zu bytes)",
          r, n);
    free(got);
    /* A reader that has gone: an error to report (exit 1), not death by SIGPIPE. */
    int gone[2];
    CHECK(pipe(gone) == 0, "pipe");
    close(gone[0]);
    r = run_with(O(-1, gone[1], false, 0), "slice", "a.npy", "-o", "-", "--index", "::-1", (const char *)NULL);
    close(gone[1]);
    CHECK(r == 1 && err_has("write error: Broken pipe"), "-o - into a pipe nobody reads (exit %d)", r);
    CHECK(RUN("slice", "a.npy", "-o", "/dev/null", "--index", "::-1") == 0, "-o /dev/null");
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null is no longer a device");
    if (access("/dev/full", W_OK) == 0)
        CHECK(RUN("slice", "a.npy", "-o", "/dev/full", "--index", "::-1") == 1 &&
                  err_has("/dev/full: write error: No space left on device"),
              "-o /dev/full");
    if (mknod(P("null.dev"), S_IFCHR | 0666, makedev(1, 3)) == 0) {
        CHECK(RUN("slice", "a.npy", "-o", "null.dev", "-f", "--index", "::-1") == 0, "-o a null device -f");
        CHECK(lstat(P("null.dev"), &st) == 0 && S_ISCHR(st.st_mode), "-f replaced a character device");
    } else {
        printf("note: mknod not permitted (not root); a private character device not tried\n");
    }
    CHECK(mkfifo(P("out.fifo"), 0600) == 0, "mkfifo");
    for (int force = 0; force < 2; force++) {
        const pid_t rd = fork();
        if (rd == 0) {
            const int fd = open(P("out.fifo"), O_RDONLY);
            size_t m;
            unsigned char *b = drain(fd, &m);
            write_file("fifo.got", b, m);
            _exit(0);
        }
        r = RUN("slice", "a.npy", "-o", "out.fifo", force ? "-f" : "-q", "--index", "::-1");
        wait_for(rd, r == 0 ? 10 : 0); /* a reader nobody wrote to would wait forever */
        CHECK(r == 0 && file_is("fifo.got", want3, want3_len), "-o a FIFO%s (exit %d)", force ? " -f" : "", r);
        CHECK(lstat(P("out.fifo"), &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
    }
    /* A Unix socket: connected to, written through. */
    const int ls = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", P("out.sock"));
    if (strlen(P("out.sock")) < sizeof sa.sun_path && bind(ls, (struct sockaddr *)&sa, sizeof sa) == 0 &&
        listen(ls, 1) == 0) {
        const pid_t rd = fork();
        if (rd == 0) {
            const int c = accept(ls, NULL, NULL);
            size_t m;
            unsigned char *b = drain(c, &m);
            write_file("sock.got", b, m);
            _exit(0);
        }
        r = RUN("slice", "a.npy", "-o", "out.sock", "--index", "::-1");
        wait_for(rd, r == 0 ? 10 : 0);
        CHECK(r == 0 && file_is("sock.got", want3, want3_len), "-o a socket (exit %d)", r);
    } else {
        printf("note: the scratch path is too long for a socket; not tried\n");
    }
    close(ls);
    CHECK(no_temp_files(), "temporary files after the output cases");
}

/* ------------------------------------------------------------ interrupted writes */

#define BIG_BYTES (192ull << 20)
static char big_path[4500];

static const char *pass_name(void) { return io_env ? io_env : "default"; }

/* Each signal mid-write: the process dies of it, the old output is as it
 * was, and nothing else is left in the folder. */
static void test_signals(void) {
    const int sigs[] = {SIGKILL, SIGQUIT, SIGUSR1, SIGALRM, SIGPIPE, SIGINT, SIGTERM, SIGHUP};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        /* Only an unnamed file survives SIGKILL, which no handler sees. */
        if (sigs[k] == SIGKILL && io_env && strstr(io_env, "named")) continue;
        write_file("keep.npy", "precious", 8);
        const pid_t pid = start(O(-1, -1, false, 0), "slice", "big.npy", "-o", "keep.npy", "-f",
                                "--index", "::-1", "--threads", "1", (const char *)NULL);
        const bool writing = wait_writing(pid, dir, big_path);
        kill(pid, sigs[k]);
        const int r = wait_for(pid, 60);
        CHECK(writing && r == 128 + sigs[k], "%s: signal %d mid-write: exit %d", pass_name(), sigs[k], r);
        CHECK(file_is("keep.npy", "precious", 8), "%s: signal %d: the old output changed", pass_name(), sigs[k]);
        CHECK(no_temp_files(), "%s: signal %d left a temporary file", pass_name(), sigs[k]);
    }
    /* Started with SIGHUP ignored (nohup): a hang-up changes nothing. */
    write_file("keep.npy", "precious", 8);
    const pid_t pid = start(O(-1, -1, true, 0), "slice", "big.npy", "-o", "keep.npy", "-f",
                            "--index", "::-1", "--threads", "1", (const char *)NULL);
    const bool writing = wait_writing(pid, dir, big_path);
    kill(pid, SIGHUP);
    const int r = wait_for(pid, 120);
    struct stat st;
    CHECK(writing && r == 0 && stat(P("keep.npy"), &st) == 0 && (uint64_t)st.st_size == 128 + BIG_BYTES,
          "%s: nohup: exit %d", pass_name(), r);
    unlink(P("keep.npy"));
    CHECK(no_temp_files(), "%s: temporary file after nohup", pass_name());

    /* The file-size limit: an error naming the file, not SIGXFSZ. */
    write_file("keep.npy", "precious", 8);
    const int rl = run_with(O(-1, -1, false, 1 << 20), "slice", "mid.npy", "-o", "keep.npy", "-f",
                            "--index", "::-1", (const char *)NULL);
    CHECK(rl == 1 && err_has("keep.npy: cannot reserve 2097280 bytes: File too large"), "%s: ulimit -f: exit %d",
          pass_name(), rl);
    CHECK(file_is("keep.npy", "precious", 8) && no_temp_files(), "%s: ulimit -f left a mess", pass_name());
    unlink(P("keep.npy"));
}

/* The tool's mapping guard (src/platform/posix_files.c) finds the mapping
 * that faulted by SIGBUS's si_addr. The probe asks whether si_addr is right
 * for a read past the end of a truncated file mapping, as the guard needs:
 * Linux gives the faulting address; qemu-user (7.2) passes the host's
 * BUS_ADRERR on as a siginfo of pid and uid fields, which puts the
 * address's two 32-bit halves in the wrong order on a big-endian guest
 * (s390x), so no program there can tell which mapping faulted. */
static char *volatile probe_page;
static volatile uintptr_t probe_addr;
static size_t probe_page_bytes;

static void probe_on_bus(int sig, siginfo_t *si, void *ctx) {
    (void)sig, (void)ctx;
    probe_addr = (uintptr_t)si->si_addr;
    /* Zeros over the page the probe read (known here, whatever si_addr
     * says), so the read resumes. */
    mmap(probe_page, probe_page_bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

/* Whether SIGBUS reports the address of a read past a truncated file's end;
 * the address read (want) and the one reported (got, 0 for no SIGBUS). */
static bool sigbus_reports_address(uintptr_t *want, uintptr_t *got) {
    probe_page_bytes = (size_t)sysconf(_SC_PAGESIZE);
    *want = *got = 0;
    const int fd = open(P("probe.bin"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    unlink(P("probe.bin"));
    char *m = fd < 0 || ftruncate(fd, (off_t)(2 * probe_page_bytes)) != 0
                  ? MAP_FAILED
                  : mmap(NULL, 2 * probe_page_bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED || ftruncate(fd, (off_t)probe_page_bytes) != 0) {
        fprintf(stderr, "  SIGBUS probe: cannot map a file: %s\n", strerror(errno));
        if (fd >= 0) close(fd);
        return false;
    }
    probe_page = m + probe_page_bytes;
    probe_addr = 0;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = probe_on_bus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &old);
    const char v = *(volatile char *)(probe_page + 8); /* past the end: SIGBUS */
    sigaction(SIGBUS, &old, NULL);
    *want = (uintptr_t)(probe_page + 8);
    *got = probe_addr;
    munmap(m, 2 * probe_page_bytes);
    close(fd);
    return v == 0 && *got == *want;
}

/* Truncated by another process while being sliced: an error, no output. */
static void test_shrinking_input(void) {
    for (int attempt = 0; attempt < 3; attempt++) {
        const uint64_t mark = BIG_BYTES - 1;
        write_sparse_u1("shrink.npy", BIG_BYTES, &mark, 1);
        const pid_t pid = start(O(-1, -1, false, 0), "slice", "shrink.npy", "-o", "s.npy",
                                "--index", "::-1", "--threads", "2", (const char *)NULL);
        const bool writing = wait_writing(pid, dir, P("shrink.npy"));
        const int tr = truncate(P("shrink.npy"), 4096);
        const int r = wait_for(pid, 60);
        if (r == 0 && attempt < 2) { /* finished before the truncation: try again */
            unlink(P("s.npy"));
            continue;
        }
        CHECK(writing && tr == 0 && r == 1, "shrinking input: exit %d", r);
        char msg[200];
        snprintf(msg, sizeof msg, "shrink.npy: the file shrank from %llu to 4096 bytes while it was being read",
                 (unsigned long long)(BIG_BYTES + 128));
        CHECK(err_has(msg), "shrinking input message");
        CHECK(!exists("s.npy") && no_temp_files(), "shrinking input left an output");
        break;
    }
    unlink(P("shrink.npy"));
}

/* A PID no process has: a child's, once it has been reaped. */
static pid_t dead_pid(void) {
    const pid_t pid = fork();
    if (pid == 0) _exit(0);
    int st;
    waitpid(pid, &st, 0);
    return pid;
}

/* SIGKILL between the link and the rename of a -f replace leaves the
 * finished file under .dmlslice-PID-K: the next new file in that folder
 * removes such a name once its process is gone, and nothing else. */
static void test_stale_temporary_names(void) {
    make_a();
    char stale[64], live[64], other[4][64];
    snprintf(stale, sizeof stale, ".dmlslice-%d-0", (int)dead_pid());
    snprintf(live, sizeof live, ".dmlslice-%d-0", (int)getpid());
    snprintf(other[0], sizeof other[0], ".dmlslice-%d-x", (int)dead_pid());
    snprintf(other[1], sizeof other[1], ".dmlslice-%d", (int)dead_pid());
    snprintf(other[2], sizeof other[2], ".dmlslice-Ab12cd");
    snprintf(other[3], sizeof other[3], "dmlslice-%d-0", (int)dead_pid());
    const char *passes[] = {NULL, "DMLSLICE_IO_FALLBACK=named", "DMLSLICE_IO_FALLBACK=proc,write"};
    for (size_t k = 0; k < sizeof passes / sizeof passes[0]; k++) {
        io_env = passes[k];
        write_file(stale, "left by SIGKILL", 15);
        write_file(live, "a live process's", 16);
        for (int i = 0; i < 4; i++) write_file(other[i], "not ours", 8);
        for (int force = 0; force < 2; force++) {
            if (force) write_file("o.npy", "old", 3);
            const int r = force ? RUN("slice", "a.npy", "-o", "o.npy", "-f", "--index", "::-1")
                                : RUN("slice", "a.npy", "-o", "o.npy", "--index", "::-1");
            CHECK(r == 0 && file_is("o.npy", want3, want3_len), "%s: slice beside stale names (-f %d): exit %d",
                  pass_name(), force, r);
            CHECK(!exists(stale), "%s: %s (its process gone) was left (-f %d)", pass_name(), stale, force);
            CHECK(exists(live), "%s: %s (a live process's) was removed", pass_name(), live);
            for (int i = 0; i < 4; i++)
                CHECK(exists(other[i]), "%s: %s (not a temporary name) was removed", pass_name(), other[i]);
            unlink(P("o.npy"));
            write_file(stale, "left by SIGKILL", 15);
        }
        unlink(P(stale));
        unlink(P(live));
        for (int i = 0; i < 4; i++) unlink(P(other[i]));
    }
    io_env = NULL;
    CHECK(no_temp_files(), "stale names: the folder is not clean");
}

/* An input another program writes while it is being sliced: growing, or
 * rewritten in place at the same length, is an error and no output. */
static void test_changing_input(void) {
    for (int how = 0; how < 2; how++) {
        const char *what = how ? "rewritten in place" : "growing";
        for (int attempt = 0; attempt < 5; attempt++) {
            const uint64_t mark = BIG_BYTES - 1;
            write_sparse_u1("change.npy", BIG_BYTES, &mark, 1);
            const pid_t pid = start(O(-1, -1, false, 0), "slice", "change.npy", "-o", "c.npy", "--index", "::-1",
                                    "--threads", "1", (const char *)NULL);
            const bool writing = wait_writing(pid, dir, P("change.npy"));
            /* Past the clock tick of the tool's look at the file (a few ms
             * on Linux), so that the write moves its modification time. */
            usleep(30000);
            const int fd = open(P("change.npy"), O_WRONLY);
            const unsigned char v = 0x5a;
            const off_t at = how ? 4096 : (off_t)(BIG_BYTES + 128);
            const bool wrote = fd >= 0 && pwrite(fd, &v, 1, at) == 1;
            if (fd >= 0) close(fd);
            const int r = wait_for(pid, 60);
            if (r == 0 && attempt < 4) { /* finished before the write: try again */
                unlink(P("c.npy"));
                continue;
            }
            CHECK(writing && wrote && r == 1, "%s input: exit %d", what, r);
            char msg[200];
            if (how) snprintf(msg, sizeof msg, "change.npy: the file was modified while it was being read");
            else
                snprintf(msg, sizeof msg, "change.npy: the file grew from %llu to %llu bytes while it was being read",
                         (unsigned long long)(BIG_BYTES + 128), (unsigned long long)(BIG_BYTES + 129));
            CHECK(err_has(msg), "%s input message", what);
            CHECK(!exists("c.npy") && no_temp_files(), "%s input left an output", what);
            unlink(P("c.npy"));
            break;
        }
        unlink(P("change.npy"));
    }
}

/* A starts file truncated while crops runs: an error naming it, no output,
 * as slice's input (the starts sit in a subfolder, so that wait_writing
 * sees the output and not them). */
static void test_changing_starts(void) {
    const uint64_t mark = BIG_BYTES - 1;
    write_sparse_u1("crop_in.npy", BIG_BYTES, &mark, 1);
    mkdir(P("st"), 0700);
    const int64_t zero = 0;
    const size_t h = write_npy("st/starts.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 1), }", &zero, 8);
    char size[32];
    snprintf(size, sizeof size, "%llu", (unsigned long long)BIG_BYTES);
    for (int attempt = 0; attempt < 5; attempt++) {
        const pid_t pid = start(O(-1, -1, false, 0), "crops", "crop_in.npy", "--starts", "st/starts.npy", "--size",
                                size, "-o", "c.npy", "--threads", "1", (const char *)NULL);
        const bool writing = wait_writing(pid, dir, P("crop_in.npy"));
        const int tr = truncate(P("st/starts.npy"), 0);
        const int r = wait_for(pid, 60);
        if (r == 0 && attempt < 4) { /* finished before the truncation: try again */
            unlink(P("c.npy"));
            write_npy("st/starts.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 1), }", &zero, 8);
            continue;
        }
        CHECK(writing && tr == 0 && r == 1, "starts truncated under crops: exit %d", r);
        char msg[200];
        snprintf(msg, sizeof msg, "st/starts.npy: the file shrank from %zu to 0 bytes while it was being read", h + 8);
        CHECK(err_has(msg), "starts truncated under crops: message");
        CHECK(!exists("c.npy") && no_temp_files(), "starts truncated under crops left an output");
        break;
    }
    unlink(P("st/starts.npy"));
    rmdir(P("st"));
    unlink(P("crop_in.npy"));
}

/* ------------------------------------------------------------ split's commit */

/* split mid.npy into b1.npy, b2.npy and a FIFO the test opens but does not
 * read: the files are committed first, then the stream's 2 MiB fill the
 * pipe and the tool waits in the commit, b1 and b2 already in place. The
 * reader's descriptor, or -1 when the tool never got there. */
static int split_held_in_commit(pid_t *pid, bool force) {
    unlink(P("fifo"));
    mkfifo(P("fifo"), 0600);
    const int rd = open(P("fifo"), O_RDONLY | O_NONBLOCK);
    *pid = force ? start(O(-1, -1, false, 0), "split", "mid.npy", "--sizes", "1,1,2097150", "-f", "-o", "b1.npy",
                         "-o", "b2.npy", "-o", "fifo", (const char *)NULL)
                 : start(O(-1, -1, false, 0), "split", "mid.npy", "--sizes", "1,1,2097150", "-o", "b1.npy", "-o",
                         "b2.npy", "-o", "fifo", (const char *)NULL);
    for (int tries = 0; tries < 20000 && rd >= 0; tries++) {
        struct stat st;
        if (stat(P("b1.npy"), &st) == 0 && st.st_size == 129 && stat(P("b2.npy"), &st) == 0 && st.st_size == 129) {
            usleep(20000); /* into the stream's write */
            return rd;
        }
        usleep(500);
    }
    if (rd >= 0) close(rd);
    return -1;
}

/* A file of the test's own put under name, as another program would. */
static void put_other_file(const char *name, const char *text) {
    write_file("other.tmp", text, strlen(text));
    rename(P("other.tmp"), P(name));
}

/* R: split writes every output or none, also when a signal comes while the
 * outputs are committed: the committed ones are taken back, with -f the
 * replaced files come back, and a file another program put under an
 * output's name meanwhile is never removed. */
static void test_split_commit_signals(void) {
    const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (size_t k = 0; k < 3; k++)
        for (int force = 0; force < 2; force++) {
            unlink(P("b1.npy")), unlink(P("b2.npy"));
            if (force) write_file("b1.npy", "old one", 7), write_file("b2.npy", "old two", 7);
            pid_t pid;
            const int rd = split_held_in_commit(&pid, force);
            kill(pid, sigs[k]);
            const int r = wait_for(pid, 60);
            if (rd >= 0) close(rd);
            CHECK(rd >= 0 && r == 128 + sigs[k], "%s: signal %d in split's commit (-f %d): exit %d", pass_name(),
                  sigs[k], force, r);
            if (force)
                CHECK(file_is("b1.npy", "old one", 7) && file_is("b2.npy", "old two", 7),
                      "%s: signal %d in split's commit: the replaced files did not come back", pass_name(), sigs[k]);
            else
                CHECK(!exists("b1.npy") && !exists("b2.npy"), "%s: signal %d in split's commit left an output",
                      pass_name(), sigs[k]);
            CHECK(no_temp_files(), "%s: signal %d in split's commit left a temporary file", pass_name(), sigs[k]);
        }
    /* Another program's file under b1.npy since the commit: it stays, by a
     * signal and by a failure (the FIFO's reader gone: EPIPE). */
    for (int how = 0; how < 2; how++) {
        unlink(P("b1.npy")), unlink(P("b2.npy"));
        pid_t pid;
        const int rd = split_held_in_commit(&pid, false);
        put_other_file("b1.npy", "not the tool's");
        if (how == 0) kill(pid, SIGTERM);
        if (rd >= 0) close(rd);
        const int r = wait_for(pid, 60);
        CHECK(rd >= 0 && r == (how == 0 ? 128 + SIGTERM : 1), "%s: %s after b1.npy was replaced: exit %d", pass_name(),
              how == 0 ? "SIGTERM" : "a closed pipe", r);
        if (how == 1) CHECK(err_has("fifo: write error"), "%s: the closed pipe's message", pass_name());
        CHECK(file_is("b1.npy", "not the tool's", 14) && !exists("b2.npy"),
              "%s: taking back split's outputs (%s) removed another program's file", pass_name(),
              how == 0 ? "SIGTERM" : "a closed pipe");
        CHECK(no_temp_files(), "%s: taking back split's outputs left a temporary file", pass_name());
    }
    unlink(P("b1.npy")), unlink(P("fifo"));
}

/* Standard output and /dev/stdout are one output, a pipe or a file,
 * with or without -f. */
static void test_stdout_twice(void) {
    make_a();
    for (int force = 0; force < 2; force++) {
        int p[2];
        CHECK(pipe(p) == 0, "pipe");
        const pid_t pid = force ? start(O(-1, p[1], false, 0), "split", "a.npy", "--sizes", "1,2", "-f", "-o", "-",
                                        "-o", "/dev/stdout", (const char *)NULL)
                                : start(O(-1, p[1], false, 0), "split", "a.npy", "--sizes", "1,2", "-o", "-", "-o",
                                        "/dev/stdout", (const char *)NULL);
        close(p[1]);
        char buf[4096];
        ssize_t got = 0, r;
        while ((r = read(p[0], buf, sizeof buf)) > 0) got += r;
        close(p[0]);
        const int rc = wait_for(pid, 60);
        CHECK(rc == 1 && got == 0 && err_has("are the same file"), "-o - -o /dev/stdout on a pipe (-f %d): exit %d, %zd bytes",
              force, rc, got);
    }
}

/* Over 1 GiB to standard output: every byte arrives (the writes are cut in
 * 1 GiB pieces); the reader counts them and checks the marked ones. */
static void test_large_stdout(void) {
    const uint64_t n = (1ull << 30) + 4099;
    const uint64_t marks[4] = {0, 12345, (1ull << 30) - 1, n - 1};
    const size_t h = write_sparse_u1("huge.npy", n, marks, 4);
    int p[2];
    CHECK(pipe(p) == 0, "pipe");
    const pid_t pid = start(O(-1, p[1], false, 0), "slice", "huge.npy", "-o", "-", "--index", "::-1",
                            (const char *)NULL);
    close(p[1]);
    static unsigned char buf[1 << 20];
    uint64_t total = 0;
    int seen = 0;
    for (;;) {
        const ssize_t r = read(p[0], buf, sizeof buf);
        if (r <= 0) break;
        for (int k = 0; k < 4; k++) {
            /* reversed: input offset m is output data offset n - 1 - m */
            const uint64_t at = h + (n - 1 - marks[k]);
            if (at >= total && at < total + (uint64_t)r) {
                const unsigned char wantv = (unsigned char)((marks[k] * 7) & 255) | 1;
                CHECK(buf[at - total] == wantv, "byte at %llu is %d, not %d", (unsigned long long)at, buf[at - total],
                      wantv);
                seen++;
            }
        }
        total += (uint64_t)r;
    }
    close(p[0]);
    const int r = wait_for(pid, 120);
    CHECK(r == 0 && total == h + n && seen == 4, "1 GiB to stdout: exit %d, %llu of %llu bytes", r,
          (unsigned long long)total, (unsigned long long)(h + n));
    unlink(P("huge.npy"));
}

/* The shrinking-input case alone; 77 (skipped) where an emulator cannot
 * deliver SIGBUS as the tool's guard needs (sigbus_reports_address).
 * DMLS_TEST_EMULATOR names the emulator (CMake sets it when the tests run
 * under CMAKE_CROSSCOMPILING_EMULATOR); natively a wrong si_addr fails. */
static int shrinking(void) {
    uintptr_t want, got;
    if (!sigbus_reports_address(&want, &got)) {
        const char *emulator = getenv("DMLS_TEST_EMULATOR");
        const bool swapped = (uint64_t)got == ((uint64_t)want << 32 | (uint64_t)want >> 32);
        if (emulator && *emulator) {
            printf("SKIP: shrinking input: under %s a SIGBUS from a read at %#llx past a truncated file's end "
                   "reports si_addr %#llx%s, so the tool's mapping guard cannot tell which mapping faulted\n",
                   emulator, (unsigned long long)want, (unsigned long long)got,
                   swapped ? " (the address's 32-bit halves swapped)" : "");
            return 77;
        }
        CHECK(false, "a SIGBUS from a read at %#llx past a truncated file's end reports si_addr %#llx: the tool's "
              "mapping guard cannot work here", (unsigned long long)want, (unsigned long long)got);
        return -1;
    }
    test_shrinking_input();
    return -1;
}

/* ------------------------------------------------------------ full disk */

static int full_disk(void) {
    if (geteuid() != 0) {
        printf("SKIP: the full-disk cases mount a tmpfs and need root\n");
        return 77;
    }
    char mnt[4500];
    snprintf(mnt, sizeof mnt, "%s/small", dir);
    if (mkdir(mnt, 0755) != 0 || mount("tmpfs", mnt, "tmpfs", 0, "size=1m") != 0) {
        printf("SKIP: cannot mount a 1 MiB tmpfs here (%s)\n", strerror(errno));
        rmdir(mnt);
        return 77;
    }
    write_sparse_u1("mid.npy", 2u << 20, NULL, 0);
    const char *passes[] = {NULL, "DMLSLICE_IO_FALLBACK=named", "DMLSLICE_IO_FALLBACK=write",
                            "DMLSLICE_IO_FALLBACK=named,write"};
    for (size_t k = 0; k < sizeof passes / sizeof passes[0]; k++) {
        io_env = passes[k];
        write_file("small/keep.npy", "precious", 8);
        struct statvfs before, after;
        statvfs(mnt, &before);
        const int r = RUN("slice", "mid.npy", "-o", "small/keep.npy", "-f", "--index", "::-1");
        CHECK(r == 1 && err_has("small/keep.npy: cannot reserve 2097280 bytes: No space left on device"),
              "%s: full disk: exit %d", pass_name(), r);
        CHECK(file_is("small/keep.npy", "precious", 8), "%s: the old output changed", pass_name());
        CHECK(no_temp_files_in(mnt), "%s: a temporary file fills the disk", pass_name());
        statvfs(mnt, &after);
        CHECK(after.f_bfree == before.f_bfree, "%s: %llu blocks free before, %llu after", pass_name(),
              (unsigned long long)before.f_bfree, (unsigned long long)after.f_bfree);
        /* A small output still fits. */
        CHECK(RUN("slice", "mid.npy", "-o", "small/ok.npy", "--index", "0:1000") == 0, "%s: small output on the tmpfs",
              pass_name());
        unlink(P("small/ok.npy"));
    }
    io_env = NULL;
    umount(mnt);
    rmdir(mnt);
    unlink(P("mid.npy"));
    return -1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: test_files DMLSLICE SCRATCH_PARENT [full-disk|shrinking]\n");
        return 2;
    }
    static char tool_path[4096];
    if (realpath(argv[1], tool_path) == NULL) {
        perror(argv[1]);
        return 2;
    }
    tool = tool_path;
    snprintf(dir, sizeof dir, "%s/files_scratch.XXXXXX", argv[2]);
    char made[4096];
    if (mkdtemp(dir) == NULL || realpath(dir, made) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", made);
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 3 && (strcmp(argv[3], "full-disk") == 0 || strcmp(argv[3], "shrinking") == 0)) {
        const int skip = strcmp(argv[3], "full-disk") == 0 ? full_disk() : shrinking();
        if (skip >= 0) {
            rmdir(dir);
            return skip;
        }
    } else {
        test_messages();
        test_inputs();
        test_refused_inputs();
        test_outputs();
        test_special_outputs();
        write_sparse_u1("big.npy", BIG_BYTES, NULL, 0);
        write_sparse_u1("mid.npy", 2u << 20, NULL, 0);
        snprintf(big_path, sizeof big_path, "%s", P("big.npy"));
        const char *passes[] = {NULL, "DMLSLICE_IO_FALLBACK=named", "DMLSLICE_IO_FALLBACK=proc,write"};
        for (size_t k = 0; k < sizeof passes / sizeof passes[0]; k++) {
            io_env = passes[k];
            test_signals();
        }
        io_env = NULL;
        test_stale_temporary_names();
        test_changing_input();
        test_changing_starts();
        for (size_t k = 0; k < 2; k++) {
            io_env = passes[k];
            test_split_commit_signals();
        }
        io_env = NULL;
        test_stdout_twice();
        unlink(P("big.npy"));
        unlink(P("mid.npy"));
        test_large_stdout();
    }
    if (test_checks_failed == 0) {
        char cmd[4600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
    } else {
        printf("scratch folder kept: %s\n", dir);
    }
    TEST_MAIN_END();
}
