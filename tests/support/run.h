/* Starting a program from a test, the same way on POSIX and on Windows: an
 * argv array and no shell (system() is cmd.exe on Windows, whose quoting and
 * redirections are not sh's), standard streams from and to files or pipes,
 * the exit status back. Also a word splitter, so that a test still writes
 * the tool's arguments the way a user types them, and the few file chores
 * the tests once gave to a shell.
 *
 * A test program that includes this defines _DEFAULT_SOURCE (or
 * _POSIX_C_SOURCE 200809L) before any header, for posix_spawn and friends. */
#ifndef DMLS_SUPPORT_RUN_H
#define DMLS_SUPPORT_RUN_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <sys/stat.h>

#ifdef _WIN32
#include <direct.h>
#include <io.h>
#include <process.h>
#include <windows.h>
#else
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
#endif

/* One run's standard streams. */
typedef struct run_io {
    const char *in;       /* standard input: this file, */
    const void *in_bytes; /* or these in_len bytes through a pipe (what `printf ... |` gives), */
    size_t in_len;        /* or, both NULL, the test's own */
    const char *out;      /* standard output: this file, created or emptied; NULL: the test's own */
    const char *err;      /* standard error: the same */
} run_io;

#ifdef _WIN32
typedef HANDLE run_stream;
#define RUN_NO_STREAM INVALID_HANDLE_VALUE
typedef HANDLE run_proc;
#define RUN_NO_PROC NULL
#else
typedef int run_stream;
#define RUN_NO_STREAM (-1)
typedef pid_t run_proc;
#define RUN_NO_PROC ((pid_t)-1)
#endif

/* ------------------------------------------------------------ the system part */

#ifdef _WIN32

/* UTF-8 to UTF-16, malloc'd (the tests' names and arguments are UTF-8, as
 * the tool reads its own). */
static inline wchar_t *run_wide_(const char *s) {
    const int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    if (w) MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
    return w;
}

/* The file opened for the child: read, or written from empty. Not
 * inheritable; run_start_ hands the child an inheritable copy. */
static inline run_stream run_open_(const char *path, bool write) {
    wchar_t *w = run_wide_(path);
    HANDLE h = w ? CreateFileW(w, write ? GENERIC_WRITE : GENERIC_READ,
                               FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                               write ? CREATE_ALWAYS : OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL)
                 : INVALID_HANDLE_VALUE;
    if (h == INVALID_HANDLE_VALUE) fprintf(stderr, "run: cannot open %s (Windows error %lu)\n", path, GetLastError());
    free(w);
    return h;
}

static inline void run_close_(run_stream s) {
    if (s != RUN_NO_STREAM) CloseHandle(s);
}

static inline int run_pipe_(run_stream *read_end, run_stream *write_end) {
    if (CreatePipe(read_end, write_end, NULL, 1 << 16)) return 0;
    fprintf(stderr, "run: CreatePipe failed (Windows error %lu)\n", GetLastError());
    return -1;
}

static inline void run_write_all_(run_stream s, const void *p, size_t n) {
    const char *c = p;
    DWORD done;
    /* A child that exits without reading all of it breaks the pipe: its
     * status says what happened. */
    while (n > 0 && WriteFile(s, c, n > (1u << 30) ? (1u << 30) : (DWORD)n, &done, NULL)) c += done, n -= done;
}

/* Appends arg to the command line as CommandLineToArgvW and the C runtime
 * read it back: quoted when it is empty or holds a blank or a quote, a quote
 * escaped by a backslash, and backslashes doubled only before a quote. */
static inline char *run_quote_(char *q, const char *arg) {
    if (*arg && strpbrk(arg, " \t\n\v\"") == NULL) {
        strcpy(q, arg);
        return q + strlen(arg);
    }
    *q++ = '"';
    for (const char *p = arg;; p++) {
        size_t backslashes = 0;
        while (*p == '\\') p++, backslashes++;
        if (*p == '\0') {
            for (size_t i = 0; i < 2 * backslashes; i++) *q++ = '\\';
            break;
        }
        for (size_t i = 0; i < (*p == '"' ? 2 * backslashes + 1 : backslashes); i++) *q++ = '\\';
        *q++ = *p;
    }
    *q++ = '"';
    return q;
}

/* An inheritable copy of s (the test's own stream for RUN_NO_STREAM), made
 * just for one CreateProcess so that no other child inherits it. */
static inline HANDLE run_inheritable_(run_stream s, DWORD std) {
    HANDLE h = s != RUN_NO_STREAM ? s : GetStdHandle(std), d = NULL;
    if (h == NULL || h == INVALID_HANDLE_VALUE) return NULL;
    if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &d, 0, TRUE, DUPLICATE_SAME_ACCESS)) return NULL;
    return d;
}

static inline run_proc run_start_(const char *const *argv, run_stream in, run_stream out, run_stream err) {
    size_t cap = 1;
    for (const char *const *a = argv; *a; a++) cap += 2 * strlen(*a) + 3;
    char *line = malloc(cap), *q = line;
    if (line == NULL) return RUN_NO_PROC;
    for (const char *const *a = argv; *a; a++) {
        if (a != argv) *q++ = ' ';
        q = run_quote_(q, *a);
    }
    *q = '\0';
    wchar_t *wline = run_wide_(line), *app = run_wide_(argv[0]);
    free(line);
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = run_inheritable_(in, STD_INPUT_HANDLE);
    si.hStdOutput = run_inheritable_(out, STD_OUTPUT_HANDLE);
    si.hStdError = run_inheritable_(err, STD_ERROR_HANDLE);
    PROCESS_INFORMATION pi;
    BOOL ok = wline && app && CreateProcessW(app, wline, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi);
    /* Wine under load sometimes fails a start with ERROR_INTERNAL_ERROR
     * (1359) before the program runs at all: tried again, up to twice. */
    for (int again = 0; !ok && wline && app && GetLastError() == 1359 && again < 2; again++) {
        fprintf(stderr, "run: starting %s failed with Windows error 1359; trying again\n", argv[0]);
        Sleep(200);
        ok = CreateProcessW(app, wline, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi);
    }
    if (!ok) fprintf(stderr, "run: cannot start %s (Windows error %lu)\n", argv[0], GetLastError());
    if (si.hStdInput) CloseHandle(si.hStdInput);
    if (si.hStdOutput) CloseHandle(si.hStdOutput);
    if (si.hStdError) CloseHandle(si.hStdError);
    free(wline);
    free(app);
    if (!ok) return RUN_NO_PROC;
    CloseHandle(pi.hThread);
    return pi.hProcess;
}

/* The exit status, or -1. */
static inline int run_wait_(run_proc p) {
    DWORD code = 0;
    const bool ok = WaitForSingleObject(p, INFINITE) == WAIT_OBJECT_0 && GetExitCodeProcess(p, &code);
    CloseHandle(p);
    return ok ? (int)code : -1;
}

#else /* POSIX */

static inline run_stream run_open_(const char *path, bool write) {
    const int fd = open(path, write ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_RDONLY | O_CLOEXEC, 0666);
    if (fd < 0) fprintf(stderr, "run: cannot open %s: %s\n", path, strerror(errno));
    return fd;
}

static inline void run_close_(run_stream s) {
    if (s != RUN_NO_STREAM) close(s);
}

static inline int run_pipe_(run_stream *read_end, run_stream *write_end) {
    int fds[2];
    if (pipe(fds) != 0) {
        fprintf(stderr, "run: pipe: %s\n", strerror(errno));
        return -1;
    }
    /* The child gets its end through dup2, which drops the flag. */
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    *read_end = fds[0], *write_end = fds[1];
    return 0;
}

static inline void run_write_all_(run_stream s, const void *p, size_t n) {
    /* A child that exits without reading all of it breaks the pipe: its
     * status says what happened, so the test itself ignores SIGPIPE (each
     * child starts with the default action again; run_start_). */
    signal(SIGPIPE, SIG_IGN);
    const char *c = p;
    while (n > 0) {
        const ssize_t k = write(s, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        c += k, n -= (size_t)k;
    }
}

static inline run_proc run_start_(const char *const *argv, run_stream in, run_stream out, run_stream err) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t def;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    /* The default SIGPIPE action, as a shell gives its commands, whatever
     * the test ignores. */
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
    if (in != RUN_NO_STREAM) posix_spawn_file_actions_adddup2(&fa, in, 0);
    if (out != RUN_NO_STREAM) posix_spawn_file_actions_adddup2(&fa, out, 1);
    if (err != RUN_NO_STREAM) posix_spawn_file_actions_adddup2(&fa, err, 2);
    pid_t pid;
    const int e = posix_spawn(&pid, argv[0], &fa, &at, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (e != 0) {
        fprintf(stderr, "run: cannot start %s: %s\n", argv[0], strerror(e));
        return RUN_NO_PROC;
    }
    return pid;
}

/* The exit status, 128 + the signal that ended it, or -1. */
static inline int run_wait_(run_proc p) {
    int st;
    while (waitpid(p, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

#endif

/* ------------------------------------------------------------ running */

/* Runs argv[0] (a path; no search) with argv, its standard streams as io
 * says (io may be NULL). When b is not NULL, the shell's `a | b`: a's output
 * goes through a pipe to b's input, b's output and error go where io says,
 * a's error is the test's own, and *a_status gets a's exit status.
 * Returns the (last) program's exit status, 128 + a signal that ended it
 * (POSIX), or -1 when it could not be started (said on stderr). */
static inline int run_pipeline(const char *const *a, const char *const *b, const run_io *io, int *a_status) {
    static const run_io none;
    if (io == NULL) io = &none;
    run_stream in = RUN_NO_STREAM, feed = RUN_NO_STREAM, out = RUN_NO_STREAM, err = RUN_NO_STREAM;
    run_stream link_r = RUN_NO_STREAM, link_w = RUN_NO_STREAM;
    run_proc pa = RUN_NO_PROC, pb = RUN_NO_PROC;
    int status = -1, sa = -1;
    if (io->in && (in = run_open_(io->in, false)) == RUN_NO_STREAM) goto done;
    if (!io->in && io->in_bytes && run_pipe_(&in, &feed) != 0) goto done;
    if (io->out && (out = run_open_(io->out, true)) == RUN_NO_STREAM) goto done;
    if (io->err && (err = run_open_(io->err, true)) == RUN_NO_STREAM) goto done;
    if (b && run_pipe_(&link_r, &link_w) != 0) goto done;
    pa = run_start_(a, in, b ? link_w : out, b ? RUN_NO_STREAM : err);
    if (b && pa != RUN_NO_PROC) pb = run_start_(b, link_r, out, err);
    /* Only the children hold their ends now: each pipe ends when its writer does. */
    run_close_(in), run_close_(link_r), run_close_(link_w);
    in = link_r = link_w = RUN_NO_STREAM;
    if (feed != RUN_NO_STREAM && pa != RUN_NO_PROC) run_write_all_(feed, io->in_bytes, io->in_len);
    run_close_(feed);
    feed = RUN_NO_STREAM;
    if (pa != RUN_NO_PROC) sa = run_wait_(pa);
    if (pb != RUN_NO_PROC) status = run_wait_(pb);
    else if (!b) status = sa;
done:
    run_close_(in), run_close_(feed), run_close_(out), run_close_(err), run_close_(link_r), run_close_(link_w);
    if (a_status) *a_status = sa;
    return status;
}

static inline int run_argv(const char *const *argv, const run_io *io) { return run_pipeline(argv, NULL, io, NULL); }

/* Starts argv as run_argv does, but returns at once, for run_wait or
 * run_kill (io->in_bytes is not taken here). RUN_NO_PROC when it could not
 * start (said on stderr). */
static inline run_proc run_start(const char *const *argv, const run_io *io) {
    run_stream in = RUN_NO_STREAM, out = RUN_NO_STREAM, err = RUN_NO_STREAM;
    run_proc p = RUN_NO_PROC;
    if ((!io || !io->in || (in = run_open_(io->in, false)) != RUN_NO_STREAM) &&
        (!io || !io->out || (out = run_open_(io->out, true)) != RUN_NO_STREAM) &&
        (!io || !io->err || (err = run_open_(io->err, true)) != RUN_NO_STREAM))
        p = run_start_(argv, in, out, err);
    run_close_(in), run_close_(out), run_close_(err);
    return p;
}

/* Its exit status, as run_argv gives it. */
static inline int run_wait(run_proc p) { return run_wait_(p); }

/* Ends p at once, with nothing run in it after (SIGKILL, TerminateProcess);
 * run_wait still collects it. */
static inline void run_kill(run_proc p) {
#ifdef _WIN32
    TerminateProcess(p, 137);
#else
    kill(p, SIGKILL);
#endif
}

/* Splits line into words as sh would, without any expansion: blanks
 * separate words; '...' is literal; "..." is literal but for \" and \\; a
 * backslash elsewhere takes the next character literally; an unquoted |
 * ends a command, which puts a NULL word between the two. The words are
 * copied into buf; words[count] is NULL. Returns the count (the NULLs
 * between commands included), or -1 when the words do not fit or a quote is
 * not closed. */
static inline int run_split(const char *line, char *buf, size_t cap, const char **words, int max) {
    int n = 0;
    size_t k = 0;
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        if (*p == '\0') break;
        if (n + 1 >= max) return -1;
        if (*p == '|') {
            words[n++] = NULL;
            p++;
            continue;
        }
        words[n++] = buf + k;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '|') {
            if (k + 1 >= cap) return -1;
            if (*p == '\'') {
                const char *end = strchr(p + 1, '\'');
                if (end == NULL || k + (size_t)(end - p) >= cap) return -1;
                memcpy(buf + k, p + 1, (size_t)(end - p - 1));
                k += (size_t)(end - p - 1);
                p = end + 1;
            } else if (*p == '"') {
                for (p++; *p != '"'; p++) {
                    if (*p == '\0' || k + 1 >= cap) return -1;
                    if (*p == '\\' && (p[1] == '"' || p[1] == '\\')) p++;
                    buf[k++] = *p;
                }
                p++;
            } else {
                if (*p == '\\' && p[1]) p++;
                buf[k++] = *p++;
            }
        }
        buf[k++] = '\0';
    }
    words[n] = NULL;
    return n;
}

/* ------------------------------------------------------------ files */

/* path made absolute (and, on POSIX, free of links), as a test hands it to
 * a program that runs elsewhere. 0, or -1 (said on stderr). */
static inline int run_abs_path(const char *path, char *out, size_t cap) {
#ifdef _WIN32
    const bool ok = _fullpath(out, path, cap) != NULL;
#else
    char *r = realpath(path, NULL);
    const bool ok = r && strlen(r) < cap;
    if (ok) strcpy(out, r);
    free(r);
#endif
    if (!ok) fprintf(stderr, "run: no absolute path for %s: %s\n", path, strerror(errno));
    return ok ? 0 : -1;
}

/* A new empty folder parent/prefix.XXXXXX, its name into dir. 0, or -1. */
static inline int run_make_scratch(char *dir, size_t cap, const char *parent, const char *prefix) {
    if ((size_t)snprintf(dir, cap, "%s/%s.XXXXXX", parent, prefix) >= cap) return -1;
#ifdef _WIN32
    /* No mkdtemp: the process id and a counter, until a name is free. */
    char *x = dir + strlen(dir) - 6;
    for (unsigned i = 0; i < 1000; i++) {
        snprintf(x, 7, "%06u", ((unsigned)_getpid() * 1000u + i) % 1000000u);
        if (_mkdir(dir) == 0) return 0;
        if (errno != EEXIST) break;
    }
    fprintf(stderr, "run: cannot make a folder %s: %s\n", dir, strerror(errno));
    return -1;
#else
    if (mkdtemp(dir) != NULL) return 0;
    fprintf(stderr, "run: mkdtemp %s: %s\n", dir, strerror(errno));
    return -1;
#endif
}

/* Removes every file in the folder dir (a flat folder: the tests make no
 * sub-folders), then dir itself when remove_dir. 0, or -1 when something
 * stayed. */
static inline int run_clear_folder(const char *dir, bool remove_dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return errno == ENOENT ? 0 : -1;
    int result = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (remove(p) != 0) result = -1;
    }
    closedir(d);
#ifdef _WIN32
    if (remove_dir && _rmdir(dir) != 0) result = -1;
#else
    if (remove_dir && rmdir(dir) != 0) result = -1;
#endif
    return result;
}

/* A new file `to` with from's bytes. 0, or -1. */
static inline int run_copy_file(const char *from, const char *to) {
    FILE *f = fopen(from, "rb"), *t = f ? fopen(to, "wb") : NULL;
    char b[1 << 14];
    size_t n;
    bool ok = t != NULL;
    while (ok && (n = fread(b, 1, sizeof b, f)) > 0) ok = fwrite(b, 1, n, t) == n;
    ok = ok && !ferror(f);
    if (t && fclose(t) != 0) ok = false;
    if (f) fclose(f);
    return ok ? 0 : -1;
}

#endif
