/* The library's one place that knows the operating system: threads, CPU
 * facts, memory, clocks, environment and the atomic replace of a file
 * (posix.c for Linux, macOS and other POSIX systems, win32.c for Windows). The pool, contexts, CPU detection and
 * error messages use it; the kernels, the planner and the validation never
 * see a system call. The tool compiles it in as well (its own copy: the
 * library's is hidden); its files, standard streams, command line and
 * signals are the tool's own (tools/platform/files.h). Every function here
 * returns 0 on success and non-zero on failure unless its comment says
 * otherwise; none of them sets a dmlslice error message. */
#ifndef DMLS_PLATFORM_H
#define DMLS_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

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

/* The user's cache folder, where a program keeps what it can make again
 * (the Vulkan pipeline cache): $XDG_CACHE_HOME when absolute (the XDG rule:
 * a relative one is ignored), else ~/.cache ($HOME); on Windows, where those
 * are unset, %LOCALAPPDATA%. A malloc'd path the caller frees, or NULL when
 * none is known. */
char *dmls_user_cache_dir(void);

/* Makes the folder path and any missing folder above it (readable by the
 * user alone where the system has permissions); 0 when it exists already. */
int dmls_dirs_make(const char *path);

/* Makes the one folder path (its parent exists), readable by the user alone
 * where the system has permissions: 0 when it is a folder now (made or
 * found), ENOTDIR when a file holds the name, else the system's errno. The
 * rest of the two functions above is paths.c, the same on every system. */
int dmls_dir_make_one(const char *path);

/* Replaces the file path by bytes bytes of data, atomically: written to a
 * new file beside it, then renamed over it, so that a reader sees the old
 * file or the whole new one, never a part (the Vulkan pipeline cache). On
 * failure path is as it was and nothing is left beside it. */
int dmls_file_replace(const char *path, const void *data, size_t bytes);

#endif
