/* The end-to-end tests' side of the dmlslice tool: a scratch folder that is
 * the test's working folder, the tool run in it with its arguments written
 * as a user types them (split as sh would, no shell started: support/run.h),
 * its standard output and error kept in out.txt and err.txt for the checks,
 * and .npy files written and read back byte for byte.
 *
 * One test program includes this once (the state below is the program's),
 * after defining _DEFAULT_SOURCE (support/run.h says why), and calls
 * tool_setup first and ends with tool_finish. */
#ifndef DMLS_SUPPORT_TOOL_H
#define DMLS_SUPPORT_TOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "support/run.h"
#include "support/test.h"

static const char *tool;                   /* the tool under test, an absolute path */
static char tool_scratch[4096], tool_parent[4096];

/* The scratch file name's path. */
static inline void path_of(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", tool_scratch, name);
}

/* Takes `PROGRAM DMLSLICE SCRATCH_PARENT`: makes a fresh folder
 * SCRATCH_PARENT/PREFIX.XXXXXX and works in it, the paths made absolute
 * (the tool runs there too). 0, or 2 (said on stderr) when that fails. */
static inline int tool_setup(int argc, char **argv, const char *prefix) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s DMLSLICE SCRATCH_PARENT\n", argv[0]);
        return 2;
    }
    static char tool_path[4096];
    if (run_abs_path(argv[1], tool_path, sizeof tool_path) != 0 ||
        run_abs_path(argv[2], tool_parent, sizeof tool_parent) != 0)
        return 2;
    tool = tool_path;
    if (run_make_scratch(tool_scratch, sizeof tool_scratch, tool_parent, prefix) != 0) return 2;
    if (chdir(tool_scratch) != 0) {
        fprintf(stderr, "cannot work in %s: %s\n", tool_scratch, strerror(errno));
        return 2;
    }
    return 0;
}

/* The scratch folder goes when every check passed, and stays for a look
 * when one failed. */
static inline void tool_finish(void) {
    if (test_checks_failed == 0) {
        if (chdir(tool_parent) != 0 || run_clear_folder(tool_scratch, true) != 0)
            printf("scratch folder %s not removed\n", tool_scratch);
    } else {
        printf("scratch folder kept: %s\n", tool_scratch);
    }
}

/* The usual main: setup, each test in turn, finish; the exit status. */
static inline int tool_main(int argc, char **argv, const char *prefix, void (*const *tests)(void), size_t n) {
    const int setup = tool_setup(argc, argv, prefix);
    if (setup != 0) return setup;
    for (size_t k = 0; k < n; k++) tests[k]();
    tool_finish();
    TEST_MAIN_END();
}

/* ------------------------------------------------------------ running */

/* Runs "TOOL args" with the given standard streams; the exit status. */
static inline int run_v(const run_io *io, const char *fmt, va_list ap) {
    char args[2048], words[2400];
    const char *argv[128] = {tool};
    vsnprintf(args, sizeof args, fmt, ap);
    if (run_split(args, words, sizeof words, argv + 1, 127) < 0) {
        fprintf(stderr, "  cannot split: %s\n", args);
        return -1;
    }
    return run_argv(argv, io);
}

/* stdout to out.txt, stderr to err.txt. */
static inline int run(const char *fmt, ...) {
    const run_io io = {.out = "out.txt", .err = "err.txt"};
    va_list ap;
    va_start(ap, fmt);
    const int rc = run_v(&io, fmt, ap);
    va_end(ap);
    return rc;
}

/* The same with n bytes through a pipe as standard input (the shell's
 * `cat FILE | dmlslice ...`) and standard output to out. */
static inline int run_fed(const void *in, size_t n, const char *out, const char *fmt, ...) {
    const run_io io = {.in_bytes = in, .in_len = n, .out = out, .err = "err.txt"};
    va_list ap;
    va_start(ap, fmt);
    const int rc = run_v(&io, fmt, ap);
    va_end(ap);
    return rc;
}

/* ------------------------------------------------------------ files */

/* The file's bytes and a terminating zero (so text reads as a string), or NULL. */
static inline unsigned char *slurp(const char *name, size_t *len) {
    char p[4200];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "rb");
    *len = 0;
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b) {
        *len = fread(b, 1, (size_t)n, f);
        b[*len] = '\0';
    }
    fclose(f);
    return b;
}

/* Both files exist and are the same bytes. */
static inline bool same_file(const char *a, const char *b) {
    size_t na, nb;
    unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
    const bool same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* A name is there, a dangling link included. */
static inline bool exists(const char *name) {
    char p[4200];
    struct stat st;
    path_of(p, sizeof p, name);
#ifdef _WIN32
    return stat(p, &st) == 0;
#else
    return lstat(p, &st) == 0;
#endif
}

static inline void rm(const char *name) {
    char p[4200];
    path_of(p, sizeof p, name);
    remove(p);
}

static inline void write_raw(const char *name, const void *data, size_t n) {
    char p[4200];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL, "cannot write %s", p);
    if (f == NULL) return;
    CHECK(fwrite(data, 1, n, f) == n, "cannot write %zu bytes to %s", n, p);
    fclose(f);
}

/* The file holds frag; the file is shown when say and it does not. */
static inline bool file_has(const char *name, const char *frag, bool say) {
    size_t n;
    unsigned char *b = slurp(name, &n);
    const bool ok = b && strstr((char *)b, frag) != NULL;
    if (!ok && say) fprintf(stderr, "  %s was: %s\n", name, b ? (char *)b : "(none)");
    free(b);
    return ok;
}

/* The last run's standard error or output holds frag; the _quiet forms, for
 * fragments that must be absent, print nothing. */
static inline bool err_has(const char *frag) { return file_has("err.txt", frag, true); }
static inline bool out_has(const char *frag) { return file_has("out.txt", frag, true); }
static inline bool err_has_quiet(const char *frag) { return file_has("err.txt", frag, false); }
static inline bool out_has_quiet(const char *frag) { return file_has("out.txt", frag, false); }

/* A run of the tool and what it must do: exit with status, its standard
 * error and output holding every fragment given (each list up to its first
 * NULL). A table of them states a test's many refusals one line each. */
typedef struct {
    const char *args; /* as typed after the tool's name */
    int status;
    const char *err[4], *out[2];
    const char *what; /* NULL: the arguments say it */
} tool_expect;

static inline void check_runs(const tool_expect *runs, size_t n) {
    for (size_t k = 0; k < n; k++) {
        const tool_expect *r = &runs[k];
        const int rc = run("%s", r->args);
        bool ok = rc == r->status;
        for (size_t i = 0; ok && i < 4 && r->err[i]; i++) ok = err_has(r->err[i]);
        for (size_t i = 0; ok && i < 2 && r->out[i]; i++) ok = out_has(r->out[i]);
        CHECK(ok, "%s%s`%s` exited %d (want %d) or lacks a fragment", r->what ? r->what : "", r->what ? ": " : "",
              r->args, rc, r->status);
    }
}
#define CHECK_RUNS(table) check_runs((table), sizeof(table) / sizeof((table)[0]))

/* No hidden file (the tool's temporary ".NAME" ones) is in the scratch folder. */
static inline bool no_temp_files(void) {
    DIR *d = opendir(tool_scratch);
    bool clean = true;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            fprintf(stderr, "  left behind: %s\n", e->d_name);
            clean = false;
        }
    if (d) closedir(d);
    return clean;
}

/* Lengthens the file name to size bytes without writing them: sparse, the
 * new bytes zeros that use no disk. False where the file system cannot. */
static inline bool extend_sparse(const char *name, uint64_t size) {
    char p[4200];
    path_of(p, sizeof p, name);
#ifdef _WIN32
    /* Only a file marked sparse skips the disk: without the mark, Windows
     * allocates every byte. */
    wchar_t w[4200];
    if (MultiByteToWideChar(CP_UTF8, 0, p, -1, w, 4200) == 0) return false;
    HANDLE h = CreateFileW(w, GENERIC_WRITE, 0, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) return false;
    DWORD got;
    LARGE_INTEGER at;
    at.QuadPart = (LONGLONG)size;
    const bool ok = DeviceIoControl(h, FSCTL_SET_SPARSE, NULL, 0, NULL, 0, &got, NULL) &&
                    SetFilePointerEx(h, at, NULL, FILE_BEGIN) && SetEndOfFile(h);
    CloseHandle(h);
    return ok;
#else
    return truncate(p, (off_t)size) == 0;
#endif
}

/* ------------------------------------------------------------ .npy files */

/* A .npy file: version major.0, the given dict text verbatim (padded to 64
 * bytes as NumPy does), then the data. Returns the header length. */
static inline size_t write_npy_dict(const char *name, int major, const char *dict, const void *data, size_t n) {
    const size_t pre = major == 1 ? 10 : 12;
    const size_t total = (pre + strlen(dict) + 1 + 63) / 64 * 64;
    unsigned char *b = calloc(1, total + n + 1);
    if (b == NULL) abort();
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    const size_t hlen = total - pre;
    b[8] = (unsigned char)hlen;
    b[9] = (unsigned char)(hlen >> 8);
    memset(b + pre, ' ', hlen);
    memcpy(b + pre, dict, strlen(dict));
    b[total - 1] = '\n';
    if (n) memcpy(b + total, data, n);
    write_raw(name, b, total + n);
    free(b);
    return total;
}

/* A shape as NumPy's header writes it: "()", "(4,)", "(2, 3)". */
static inline void shape_text(char *buf, size_t cap, int ndim, const int64_t *shape) {
    int k = snprintf(buf, cap, "(");
    for (int i = 0; i < ndim; i++) k += snprintf(buf + k, cap - (size_t)k, "%s%lld", i ? ", " : "", (long long)shape[i]);
    snprintf(buf + k, cap - (size_t)k, "%s)", ndim == 1 ? "," : "");
}

/* A version 1.0 file of that descr (a record's descr is a list, unquoted). */
static inline void write_npy(const char *name, const char *descr, bool fortran, int ndim, const int64_t *shape,
                             const void *data, size_t n) {
    char dict[2048], st[1600];
    shape_text(st, sizeof st, ndim, shape);
    const char *q = descr[0] == '[' ? "" : "'";
    snprintf(dict, sizeof dict, "{'descr': %s%s%s, 'fortran_order': %s, 'shape': %s, }", q, descr, q,
             fortran ? "True" : "False", st);
    write_npy_dict(name, 1, dict, data, n);
}

/* The output file is a version 1.0 file in C order whose header names
 * descr and shape, and its data equals want. */
static inline bool check_npy(const char *what, const char *name, const char *descr, int ndim, const int64_t *shape,
                             const void *want, size_t n) {
    size_t len;
    unsigned char *b = slurp(name, &len);
    CHECK(b != NULL, "%s: %s was not written", what, name);
    if (b == NULL) return false;
    bool ok = len >= 10 && memcmp(b, "\x93NUMPY\x01\x00", 8) == 0;
    const size_t hlen = ok ? 10 + (size_t)(b[8] | b[9] << 8) : 0;
    ok = ok && hlen % 64 == 0 && hlen <= len && b[hlen - 1] == '\n';
    CHECK(ok, "%s: %s has no valid version 1.0 preamble", what, name);
    char frag[1700], st[1600];
    const char *q = descr[0] == '[' ? "" : "'";
    snprintf(frag, sizeof frag, "'descr': %s%s%s", q, descr, q);
    CHECK(ok && strstr((char *)b + 10, frag) != NULL, "%s: header lacks %s: %.*s", what, frag, (int)hlen, b);
    shape_text(st, sizeof st, ndim, shape);
    snprintf(frag, sizeof frag, "'shape': %s", st);
    CHECK(ok && strstr((char *)b + 10, frag) != NULL, "%s: header lacks %s: %.*s", what, frag, (int)hlen, b);
    CHECK(ok && strstr((char *)b + 10, "'fortran_order': False") != NULL, "%s: output not C order", what);
    CHECK(ok && len - hlen == n, "%s: %zu data bytes, want %zu", what, len - hlen, n);
    const bool same = ok && len - hlen == n && memcmp(b + hlen, want, n) == 0;
    CHECK(same, "%s: data differs", what);
    free(b);
    return same;
}

/* The tests' usual input, a.npy: a 4x5 int32 array holding 0..19. */
static const int64_t S45[2] = {4, 5};
static const int32_t a45[20] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19};

static inline void write_a45(void) { write_npy("a.npy", "<i4", false, 2, S45, a45, sizeof a45); }

#endif
