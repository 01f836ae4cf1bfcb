/* The tool's threads, clock and memory: the few operating-system basics the
 * tool needs beside its files (files.h). posix.c serves Linux, macOS and
 * other POSIX systems, win32.c Windows.
 *
 * The library has the same basics in src/platform/platform.h, compiled into
 * libdmlslice and hidden there. The tool reaches the library through its
 * public API only, so it keeps its own copy of the few it uses, under the
 * same names and contracts, so that both read alike. The two copies never
 * meet: only the tool compiles these, and it links the shared library,
 * which exports none of its own (tests and fuzzers of the tool's code link
 * the library's copy instead, and files.h's code works with either).
 * Every function here returns 0 on success and non-zero on failure unless
 * its comment says otherwise. */
#ifndef DMLS_TOOLS_PLATFORM_H
#define DMLS_TOOLS_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#if !defined(_WIN32)
#include <pthread.h>
#endif

/* ------------------------------------------------------------- threads */

/* The system's own objects (a pthread type, or on Windows a HANDLE, an
 * SRWLOCK and a CONDITION_VARIABLE, each one pointer wide: win32.c checks
 * the sizes), kept opaque here so no caller includes <windows.h>. */
#if defined(_WIN32)
typedef struct dmls_thread { void *handle; } dmls_thread;
typedef struct dmls_mutex { void *opaque; } dmls_mutex;
typedef struct dmls_cond { void *opaque; } dmls_cond;
#else
typedef struct dmls_thread { pthread_t id; } dmls_thread;
typedef struct dmls_mutex { pthread_mutex_t m; } dmls_mutex;
typedef struct dmls_cond { pthread_cond_t c; } dmls_cond;
#endif

/* A thread's entry point has the system's own signature:
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

/* Starts fn(arg) on a new thread; non-zero when the system has none to give. */
int dmls_thread_start(dmls_thread *t, dmls_thread_main fn, void *arg);
/* Waits for the thread to return and releases it. */
void dmls_thread_join(dmls_thread *t);

int dmls_mutex_init(dmls_mutex *m);
void dmls_mutex_destroy(dmls_mutex *m);
void dmls_mutex_lock(dmls_mutex *m);
void dmls_mutex_unlock(dmls_mutex *m);

int dmls_cond_init(dmls_cond *c);
void dmls_cond_destroy(dmls_cond *c);
void dmls_cond_signal(dmls_cond *c);
/* Waits for a signal, about ms milliseconds at the latest; may wake
 * spuriously, like every condition variable: wait in a loop. */
void dmls_cond_wait_ms(dmls_cond *c, dmls_mutex *m, long ms);

/* --------------------------------------------------------------- clock */

/* Sleeps the calling thread for at least ms milliseconds. */
void dmls_sleep_ms(long ms);

/* A monotonic clock in nanoseconds from an arbitrary start, for timing. */
uint64_t dmls_monotonic_ns(void);

/* -------------------------------------------------------------- memory */

/* size bytes aligned to alignment (a power of two, at least
 * sizeof(void *)); NULL when out of memory. Release with dmls_aligned_free
 * only (Windows keeps such blocks apart from malloc's). */
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

#endif
