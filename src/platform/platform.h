/* The one place that knows the operating system: threads, CPU facts,
 * memory and environment (posix.c, win32.c), and for the tool files,
 * standard streams, the command line and signals (posix_files.c,
 * win32_files.c). posix*.c serve Linux, macOS and other POSIX systems,
 * win32*.c Windows; CMakeLists.txt here says which part goes where.
 *
 * The library (pool, contexts, CPU detection, error messages) uses the
 * first part, the tool both; the kernels, the planner and the validation
 * never see a system call. Every
 * function here returns 0 on success and non-zero on failure unless its
 * comment says otherwise; none of them sets a dmlslice error message. */
#ifndef DMLS_PLATFORM_H
#define DMLS_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if !defined(_WIN32)
#include <pthread.h>
#endif

/* ------------------------------------------------------------ compiler */

/* Thread-local storage: C11's keyword, or MSVC's spelling where its C mode
 * lacks the keyword. */
#if defined(_MSC_VER) && !defined(__clang__)
#define DMLS_THREAD_LOCAL __declspec(thread)
#else
#define DMLS_THREAD_LOCAL _Thread_local
#endif

/* ------------------------------------------------------------- threads */

/* The handles are the system's own objects (a pthread type, or on Windows
 * a HANDLE, an SRWLOCK, a CONDITION_VARIABLE and an INIT_ONCE, each one
 * pointer wide: win32.c checks the sizes), kept opaque here so no caller
 * includes <windows.h>. */
#if defined(_WIN32)
typedef struct dmls_thread { void *handle; } dmls_thread;
typedef struct dmls_mutex { void *opaque; } dmls_mutex;
typedef struct dmls_cond { void *opaque; } dmls_cond;
typedef struct dmls_once { void *opaque; } dmls_once;
#define DMLS_ONCE_INIT {0}
#else
typedef struct dmls_thread { pthread_t id; } dmls_thread;
typedef struct dmls_mutex { pthread_mutex_t m; } dmls_mutex;
typedef struct dmls_cond { pthread_cond_t c; } dmls_cond;
typedef struct dmls_once { pthread_once_t o; } dmls_once;
#define DMLS_ONCE_INIT {PTHREAD_ONCE_INIT}
#endif

/* A thread's entry point has the system's own signature, so starting one
 * allocates nothing beyond the system's thread:
 *     static DMLS_THREAD_MAIN(worker, arg) { ...; DMLS_THREAD_RETURN; } */
#if defined(_WIN32)
#define DMLS_THREAD_MAIN(name, arg) unsigned __stdcall name(void *arg)
#define DMLS_THREAD_RETURN return 0
typedef unsigned(__stdcall *dmls_thread_main)(void *arg);
#else
#define DMLS_THREAD_MAIN(name, arg) void *name(void *arg)
#define DMLS_THREAD_RETURN return NULL
typedef void *(*dmls_thread_main)(void *arg);
#endif

/* Starts fn(arg) on a new thread. Non-zero when the system has no thread
 * to give; nothing is then started. */
int dmls_thread_start(dmls_thread *t, dmls_thread_main fn, void *arg);
/* Waits for the thread to return and releases it. */
void dmls_thread_join(dmls_thread *t);

int dmls_mutex_init(dmls_mutex *m);
void dmls_mutex_destroy(dmls_mutex *m);
void dmls_mutex_lock(dmls_mutex *m);
void dmls_mutex_unlock(dmls_mutex *m);

int dmls_cond_init(dmls_cond *c);
void dmls_cond_destroy(dmls_cond *c);
/* May wake spuriously, like every condition variable: wait in a loop. */
void dmls_cond_wait(dmls_cond *c, dmls_mutex *m);
void dmls_cond_signal(dmls_cond *c);
void dmls_cond_broadcast(dmls_cond *c);

/* As dmls_cond_wait, returning after about ms milliseconds at the latest. */
void dmls_cond_wait_ms(dmls_cond *c, dmls_mutex *m, long ms);

/* Runs fn exactly once per process for this o, however many threads call. */
void dmls_once_run(dmls_once *o, void (*fn)(void));

/* Identifies the calling thread; equal for two calls on one thread only. */
uintptr_t dmls_thread_self(void);

/* Sleeps the calling thread for at least ms milliseconds. */
void dmls_sleep_ms(long ms);

/* A monotonic clock in nanoseconds from an arbitrary start, for timing. */
uint64_t dmls_monotonic_ns(void);

/* ----------------------------------------------------------------- CPU */

/* Processors this process may run on: its affinity mask where the system
 * has one (Linux sched_getaffinity, Windows process affinity), else the
 * processors online. At least 1. */
int dmls_cpu_count(void);

/* True when the system says this ARM64 CPU has NEON (Advanced SIMD):
 * getauxval on Linux, sysctl on macOS, IsProcessorFeaturePresent on
 * Windows; 0 on other CPUs and systems. */
int dmls_cpu_has_neon(void);

/* The last-level data cache in bytes (L3, else L2), or 0 when the system
 * does not say. */
uint64_t dmls_cpu_cache_bytes(void);

/* -------------------------------------------------------------- memory */

/* size bytes aligned to alignment (a power of two, at least
 * sizeof(void *)); NULL when out of memory. Release with dmls_aligned_free
 * only (Windows keeps such blocks apart from malloc's). size 0 gives a
 * valid, unique pointer. */
void *dmls_aligned_alloc(size_t alignment, size_t size);
void dmls_aligned_free(void *p);

/* Whole pages straight from the system, for buffers against guard pages:
 * dmls_pages_reserve maps bytes (a multiple of dmls_page_size) that fault on
 * any access; dmls_pages_open makes a page-aligned part of them readable
 * and writable. NULL or non-zero on failure. */
size_t dmls_page_size(void);
void *dmls_pages_reserve(size_t bytes);
int dmls_pages_open(void *p, size_t bytes);
void dmls_pages_release(void *p, size_t bytes);

/* --------------------------------------------------------- environment */

/* Sets (value non-NULL) or removes (value NULL) an environment variable of
 * this process, as getenv then sees it. */
int dmls_env_set(const char *name, const char *value);

/* --------------------------------------------------------------- files */

/* Paths are UTF-8 everywhere: Windows converts them for its wide-character
 * API, so any name the file system allows works. Functions that fail
 * return an errno value (Windows' errors are mapped onto the nearest one:
 * ENOENT, EEXIST, EACCES, ENOSPC, EFBIG, EISDIR, ...) for
 * dmls_error_text. */

/* strerror for the errno values these functions return. */
const char *dmls_error_text(int err);

typedef enum dmls_file_kind {
    DMLS_FILE_MISSING, /* nothing by that name */
    DMLS_FILE_REGULAR,
    DMLS_FILE_FOLDER,
    DMLS_FILE_STREAM, /* read or written straight through: a character
                       * device, FIFO, socket, pipe or console */
    DMLS_FILE_OTHER   /* a block device and the like */
} dmls_file_kind;

typedef struct dmls_file_info {
    dmls_file_kind kind;
    int is_link;      /* the name itself is a symbolic link (asked not to follow) */
    uint64_t size;    /* a regular file's length */
    uint64_t volume;  /* with id: the file's identity, whatever its names */
    uint64_t id;
    unsigned mode;    /* POSIX permission bits; 0 on Windows */
} dmls_file_info;

/* What path names, following symbolic links or not. A missing path is no
 * failure: kind is DMLS_FILE_MISSING. */
int dmls_path_info(const char *path, int follow_links, dmls_file_info *info);
/* The same for standard input (0), output (1) or error (2). */
int dmls_stdio_info(int stream, dmls_file_info *info);
/* True when both name one existing file. */
int dmls_same_file(const dmls_file_info *a, const dmls_file_info *b);
/* True when the standard stream (0, 1, 2) is a terminal or console. */
int dmls_stdio_is_terminal(int stream);
/* Standard input and output carry bytes unchanged (Windows' text mode would
 * turn \n into \r\n and stop at ^Z). Call once, before using them. */
void dmls_stdio_binary(void);

/* The command line as UTF-8 (Windows rebuilds it from the wide-character
 * command line; elsewhere argv is returned). Call once, from main. */
char **dmls_utf8_args(int argc, char **argv);

/* fopen with a UTF-8 path; mode as fopen's, where "b" matters on Windows. */
FILE *dmls_fopen(const char *path, const char *mode);

/* A stream to write straight through, for an existing character device,
 * FIFO or socket (a POSIX socket is connected to); NULL with errno. */
FILE *dmls_open_stream_out(const char *path);
/* True when f is a terminal or console. */
int dmls_stream_is_terminal(FILE *f);
/* Writes all n bytes to f and flushes it, waiting out a non-blocking
 * descriptor; 0 or an errno value (EPIPE for a closed pipe). */
int dmls_stream_write_all(FILE *f, const void *p, uint64_t n);

/* The absolute path with every symbolic link resolved, malloc'd; NULL with
 * errno when path does not exist. */
char *dmls_real_path(const char *path);

/* How long path's folder part is: everything up to and including its last
 * separator ('/'; on Windows also '\' and a drive's colon, as in C:x.json),
 * so that path[0, n) + another name is that name beside path. 0 for a bare
 * name. */
size_t dmls_path_folder_len(const char *path);
/* True when path is relative to the current folder, so that a folder put in
 * front of it names something else: false for /x, and on Windows also for
 * \x, \\server\x and anything on a drive (C:\x, C:x). */
int dmls_path_is_relative(const char *path);

/* A regular file mapped read-only: [data, data + size + pad) is readable,
 * and the pad bytes after the file read as zero. A file that another
 * process shortens while it is mapped never crashes the reader: on POSIX
 * the lost pages read as zeros (a SIGBUS guard) and dmls_file_map_intact
 * says so; Windows refuses to shorten a mapped file. */
typedef struct dmls_mapped_file {
    const unsigned char *data;
    uint64_t size;
    void *base; /* the system's view or reserved range */
    size_t base_len;
    intptr_t handle; /* the open file */
    int guard;
    void *heap; /* a copy, where the system cannot map with the padding */
} dmls_mapped_file;
int dmls_file_map(const char *path, size_t pad, dmls_mapped_file *m);
/* After the data was read: 1 when the file kept its length throughout, else
 * 0 with its length now in *size_now. */
int dmls_file_map_intact(const dmls_mapped_file *m, uint64_t *size_now);
void dmls_file_unmap(dmls_mapped_file *m);

/* A new file that appears under its name only when complete, atomically,
 * and leaves nothing behind otherwise: created in the final name's folder
 * with its bytes reserved up front (a full disk or a file-size limit is an
 * error here, never a crash later), written through data, then committed.
 * Until the commit, no way the process can end leaves the file behind on
 * Windows (the system deletes it when its handle closes); on POSIX systems
 * a catchable terminating signal removes it. */
typedef struct dmls_new_file {
    unsigned char *data; /* bytes writable bytes */
    uint64_t bytes;
    intptr_t handle;     /* the system's handles and names */
    char *tmp_path;
    char *final_path;
    int guard;
    const char *failed;  /* after a failed create, the step: "create",
                          * "permissions", "reserve" or "map" */
} dmls_new_file;
/* mode: POSIX permission bits for the new file (the umask applies), or -1
 * to keep those of the file it replaces; ignored on Windows, where the new
 * file takes its folder's inherited permissions like any new file. */
int dmls_new_file_create(dmls_new_file *f, const char *path, uint64_t bytes, int mode);
/* True when a write through data failed (the file system could not store
 * it: POSIX reports that by a SIGBUS, which a guard turns into this). */
int dmls_new_file_faulted(const dmls_new_file *f);
/* Trims the file to length bytes, makes it durable and gives it its name:
 * replacing an existing file atomically when replace is set, else failing
 * with EEXIST if the name is taken. On failure nothing changed under the
 * name and the new file is still uncommitted (abort it). */
int dmls_new_file_commit(dmls_new_file *f, uint64_t length, int replace);
/* Removes an uncommitted new file; harmless after a commit or a failed
 * create. */
void dmls_new_file_abort(dmls_new_file *f);

/* A write to a closed pipe or socket is an error return (EPIPE), not the
 * end of the process, unless the process was set up otherwise. */
void dmls_ignore_broken_pipe(void);

/* Opens path to read only when it is a regular file, its type examined
 * before it is opened, so that a FIFO (whose open waits for a writer), a
 * device, a folder or a symbolic link as the last name is never opened;
 * the file opened is then checked to be the one examined, whose facts are
 * left in *info. 0 with *f open, or an errno value: EINVAL when path is
 * something other than a regular file (info->kind and info->is_link say
 * what), ENOENT when nothing has that name, EAGAIN when another file took
 * the name between the look and the open. */
int dmls_open_regular(const char *path, FILE **f, dmls_file_info *info);

#endif
