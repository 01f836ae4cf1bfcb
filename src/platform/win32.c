/* platform.h's threads, CPU, memory, environment and files for Windows (Vista
 * and later: slim reader/writer locks, condition variables and one-time
 * initialisation are the kernel's own); the tool's files are in
 * tools/platform/. Built with MinGW-w64 and written to MSVC's C11. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <process.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

/* The opaque handles of platform.h hold these objects in place. */
_Static_assert(sizeof(SRWLOCK) <= sizeof(dmls_mutex), "SRWLOCK fits dmls_mutex");
_Static_assert(sizeof(CONDITION_VARIABLE) <= sizeof(dmls_cond), "CONDITION_VARIABLE fits dmls_cond");
_Static_assert(sizeof(INIT_ONCE) <= sizeof(dmls_once), "INIT_ONCE fits dmls_once");

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
void dmls_cond_wait(dmls_cond *c, dmls_mutex *m) { SleepConditionVariableSRW(CV(c), SRW(m), INFINITE, 0); }
void dmls_cond_wait_ms(dmls_cond *c, dmls_mutex *m, long ms) { SleepConditionVariableSRW(CV(c), SRW(m), (DWORD)ms, 0); }
void dmls_cond_signal(dmls_cond *c) { WakeConditionVariable(CV(c)); }
void dmls_cond_broadcast(dmls_cond *c) { WakeAllConditionVariable(CV(c)); }

typedef struct once_call {
    void (*fn)(void);
} once_call;

static BOOL CALLBACK once_main(PINIT_ONCE once, PVOID param, PVOID *context) {
    (void)once;
    (void)context;
    ((once_call *)param)->fn();
    return TRUE;
}

void dmls_once_run(dmls_once *o, void (*fn)(void)) {
    once_call call = {fn};
    InitOnceExecuteOnce((INIT_ONCE *)&o->opaque, once_main, &call, NULL);
}

uintptr_t dmls_thread_self(void) { return (uintptr_t)GetCurrentThreadId(); }

void dmls_sleep_ms(long ms) { Sleep((DWORD)ms); }

uint64_t dmls_monotonic_ns(void) {
    LARGE_INTEGER hz, t;
    QueryPerformanceFrequency(&hz);
    QueryPerformanceCounter(&t);
    const uint64_t ticks = (uint64_t)t.QuadPart, f = (uint64_t)hz.QuadPart;
    return ticks / f * 1000000000u + ticks % f * 1000000000u / f;
}

/* ----------------------------------------------------------------- CPU */

int dmls_cpu_count(void) {
    /* A process runs in one processor group of at most 64 unless the system
     * spreads it; with several groups, count all active processors. */
    if (GetActiveProcessorGroupCount() > 1) {
        DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
        return n > 0 ? (int)n : 1;
    }
    DWORD_PTR process = 0, system = 0;
    if (GetProcessAffinityMask(GetCurrentProcess(), &process, &system) && process != 0) {
        int n = 0;
        for (; process; process &= process - 1) n++;
        return n;
    }
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    return info.dwNumberOfProcessors > 0 ? (int)info.dwNumberOfProcessors : 1;
}

int dmls_cpu_has_neon(void) {
#if defined(_M_ARM64) || defined(__aarch64__)
    return IsProcessorFeaturePresent(PF_ARM_NEON_INSTRUCTIONS_AVAILABLE) != 0;
#else
    return 0;
#endif
}

uint64_t dmls_cpu_cache_bytes(void) {
    DWORD bytes = 0;
    GetLogicalProcessorInformation(NULL, &bytes);
    if (bytes == 0) return 0;
    SYSTEM_LOGICAL_PROCESSOR_INFORMATION *info = malloc(bytes);
    if (info == NULL) return 0;
    uint64_t l2 = 0, l3 = 0;
    if (GetLogicalProcessorInformation(info, &bytes)) {
        for (size_t i = 0; i < bytes / sizeof *info; i++) {
            if (info[i].Relationship != RelationCache) continue;
            const CACHE_DESCRIPTOR *c = &info[i].Cache;
            if (c->Type != CacheUnified && c->Type != CacheData) continue;
            if (c->Level == 3 && c->Size > l3) l3 = c->Size;
            if (c->Level == 2 && c->Size > l2) l2 = c->Size;
        }
    }
    free(info);
    return l3 ? l3 : l2;
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

/* --------------------------------------------------------- environment */

int dmls_env_set(const char *name, const char *value) {
    /* The C runtime's copy, which getenv reads; "" removes the variable
     * there, so an empty value cannot be told from none on Windows. */
    return _putenv_s(name, value ? value : "") == 0 ? 0 : -1;
}

/* --------------------------------------------------------------- files */

int dmls_dir_make_one(const char *path) {
    const DWORD attr = CreateDirectoryA(path, NULL) ? FILE_ATTRIBUTE_DIRECTORY : GetFileAttributesA(path);
    return attr == INVALID_FILE_ATTRIBUTES || !(attr & FILE_ATTRIBUTE_DIRECTORY) ? ENOTDIR : 0;
}

int dmls_file_replace(const char *path, const void *data, size_t bytes) {
    const size_t n = strlen(path) + 40;
    char *tmp = malloc(n);
    if (tmp == NULL) return ENOMEM;
    snprintf(tmp, n, "%s.%lu.%llu", path, (unsigned long)GetCurrentProcessId(),
             (unsigned long long)GetTickCount64());
    HANDLE h = CreateFileA(tmp, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
    int err = h == INVALID_HANDLE_VALUE ? EEXIST : 0;
    for (const char *at = data; err == 0 && bytes > 0;) {
        DWORD chunk = bytes > (1u << 30) ? (1u << 30) : (DWORD)bytes, wrote = 0;
        if (!WriteFile(h, at, chunk, &wrote, NULL) || wrote == 0) err = EIO;
        at += wrote, bytes -= wrote;
    }
    if (h != INVALID_HANDLE_VALUE && !CloseHandle(h) && err == 0) err = EIO;
    if (err == 0 && !MoveFileExA(tmp, path, MOVEFILE_REPLACE_EXISTING)) err = EIO;
    if (err != 0 && h != INVALID_HANDLE_VALUE) DeleteFileA(tmp);
    free(tmp);
    return err;
}
