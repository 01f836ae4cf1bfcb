/* platform.h's threads, clock and memory for the tool on Windows (Vista and
 * later: slim reader/writer locks and condition variables are the
 * kernel's own); its files are in win32_files.c. Built with MinGW-w64 and
 * written to MSVC's C11. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <process.h>
#include <stdlib.h>

#include "platform.h"

/* The opaque handles of platform.h hold these objects in place. */
_Static_assert(sizeof(SRWLOCK) <= sizeof(dmls_mutex), "SRWLOCK fits dmls_mutex");
_Static_assert(sizeof(CONDITION_VARIABLE) <= sizeof(dmls_cond), "CONDITION_VARIABLE fits dmls_cond");

#define SRW(m) ((SRWLOCK *)&(m)->opaque)
#define CV(c) ((CONDITION_VARIABLE *)&(c)->opaque)

/* ------------------------------------------------------------- threads */

int dmls_thread_start(dmls_thread *t, dmls_thread_main fn, void *arg) {
    /* _beginthreadex, not CreateThread: the C runtime's per-thread state
     * (errno, strtok, locale) is set up for the new thread. */
    uintptr_t h = _beginthreadex(NULL, 0, fn, arg, 0, NULL);
    if (h == 0) return EAGAIN;
    t->handle = (void *)h;
    return 0;
}

void dmls_thread_join(dmls_thread *t) {
    WaitForSingleObject(t->handle, INFINITE);
    CloseHandle(t->handle);
}

int dmls_mutex_init(dmls_mutex *m) {
    InitializeSRWLock(SRW(m));
    return 0;
}
void dmls_mutex_destroy(dmls_mutex *m) { (void)m; /* an SRW lock holds no resource */ }
void dmls_mutex_lock(dmls_mutex *m) { AcquireSRWLockExclusive(SRW(m)); }
void dmls_mutex_unlock(dmls_mutex *m) { ReleaseSRWLockExclusive(SRW(m)); }

int dmls_cond_init(dmls_cond *c) {
    InitializeConditionVariable(CV(c));
    return 0;
}
void dmls_cond_destroy(dmls_cond *c) { (void)c; /* holds no resource */ }
void dmls_cond_signal(dmls_cond *c) { WakeConditionVariable(CV(c)); }
void dmls_cond_wait_ms(dmls_cond *c, dmls_mutex *m, long ms) { SleepConditionVariableSRW(CV(c), SRW(m), (DWORD)ms, 0); }

/* --------------------------------------------------------------- clock */

void dmls_sleep_ms(long ms) { Sleep((DWORD)ms); }

uint64_t dmls_monotonic_ns(void) {
    LARGE_INTEGER hz, t;
    QueryPerformanceFrequency(&hz);
    QueryPerformanceCounter(&t);
    const uint64_t ticks = (uint64_t)t.QuadPart, f = (uint64_t)hz.QuadPart;
    return ticks / f * 1000000000u + ticks % f * 1000000000u / f;
}

/* -------------------------------------------------------------- memory */

void *dmls_aligned_alloc(size_t alignment, size_t size) { return _aligned_malloc(size ? size : 1, alignment); }

void dmls_aligned_free(void *p) { _aligned_free(p); }

size_t dmls_page_size(void) {
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    return info.dwPageSize;
}

void *dmls_pages_reserve(size_t bytes) { return VirtualAlloc(NULL, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_NOACCESS); }

int dmls_pages_open(void *p, size_t bytes) {
    DWORD old;
    return VirtualProtect(p, bytes, PAGE_READWRITE, &old) ? 0 : -1;
}

void dmls_pages_release(void *p, size_t bytes) {
    (void)bytes;
    VirtualFree(p, 0, MEM_RELEASE);
}
