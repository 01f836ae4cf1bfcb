/* platform.h's threads, CPU, memory, environment and files for POSIX systems
 * (Linux, macOS, the BSDs); the tool's files are in tools/platform/. What
 * only Linux has (sched_getaffinity, the cache-size sysconf names) sits
 * behind a test of its own macro with a POSIX fallback. */
#define _GNU_SOURCE /* sched_getaffinity and CPU_COUNT; MAP_ANONYMOUS under -std=c11 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1ul << 1) /* the kernel's AArch64 hwcap bit, where libc's headers lack it */
#endif
#elif defined(__aarch64__) && defined(__APPLE__)
#include <sys/types.h> /* before sys/sysctl.h on the BSDs */
#include <sys/sysctl.h>
#endif

#include "platform.h"

/* ------------------------------------------------------------- threads */

int dmls_thread_start(dmls_thread *t, dmls_thread_main fn, void *arg) { return pthread_create(&t->id, NULL, fn, arg); }

void dmls_thread_join(dmls_thread *t) { pthread_join(t->id, NULL); }

int dmls_mutex_init(dmls_mutex *m) { return pthread_mutex_init(&m->m, NULL); }
void dmls_mutex_destroy(dmls_mutex *m) { pthread_mutex_destroy(&m->m); }
void dmls_mutex_lock(dmls_mutex *m) { pthread_mutex_lock(&m->m); }
void dmls_mutex_unlock(dmls_mutex *m) { pthread_mutex_unlock(&m->m); }

int dmls_cond_init(dmls_cond *c) { return pthread_cond_init(&c->c, NULL); }
void dmls_cond_destroy(dmls_cond *c) { pthread_cond_destroy(&c->c); }
void dmls_cond_wait(dmls_cond *c, dmls_mutex *m) { pthread_cond_wait(&c->c, &m->m); }
void dmls_cond_wait_ms(dmls_cond *c, dmls_mutex *m, long ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&c->c, &m->m, &until);
}
void dmls_cond_signal(dmls_cond *c) { pthread_cond_signal(&c->c); }
void dmls_cond_broadcast(dmls_cond *c) { pthread_cond_broadcast(&c->c); }

void dmls_once_run(dmls_once *o, void (*fn)(void)) { pthread_once(&o->o, fn); }

uintptr_t dmls_thread_self(void) {
    /* pthread_t is an integer or a pointer on every system this builds for;
     * thread-local storage gives a portable per-thread address instead. */
    static _Thread_local char self;
    return (uintptr_t)&self;
}

void dmls_sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

uint64_t dmls_monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ----------------------------------------------------------------- CPU */

int dmls_cpu_count(void) {
#if defined(__linux__)
    /* Honour taskset, cgroup cpusets and the like: threads beyond the CPUs
     * this process may use only contend. A set too large for cpu_set_t
     * (over 1024 CPUs) fails here and falls back. */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1 << 20 ? 1 << 20 : (int)n;
}

int dmls_cpu_has_neon(void) {
#if defined(__aarch64__) && defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#elif defined(__aarch64__) && defined(__APPLE__)
    int neon = 0;
    size_t len = sizeof neon;
    return sysctlbyname("hw.optional.neon", &neon, &len, NULL, 0) == 0 && neon;
#else
    return 0;
#endif
}

uint64_t dmls_cpu_cache_bytes(void) {
    long llc = -1;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return llc > 0 ? (uint64_t)llc : 0;
}

/* -------------------------------------------------------------- memory */

void *dmls_aligned_alloc(size_t alignment, size_t size) {
    void *p = NULL;
    /* posix_memalign takes any size (aligned_alloc wants a multiple of the
     * alignment) and exists on systems whose C library predates C11. */
    return posix_memalign(&p, alignment, size ? size : 1) == 0 ? p : NULL;
}

void dmls_aligned_free(void *p) { free(p); }

size_t dmls_page_size(void) {
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

void *dmls_pages_reserve(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int dmls_pages_open(void *p, size_t bytes) { return mprotect(p, bytes, PROT_READ | PROT_WRITE); }

void dmls_pages_release(void *p, size_t bytes) { munmap(p, bytes); }

/* --------------------------------------------------------- environment */

int dmls_env_set(const char *name, const char *value) {
    return value ? setenv(name, value, 1) : unsetenv(name);
}

/* --------------------------------------------------------------- files */

int dmls_dir_make_one(const char *path) {
    struct stat st;
    if (mkdir(path, 0700) != 0 && errno != EEXIST) return errno;
    return stat(path, &st) != 0 || !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
}

static int write_all(int fd, const void *data, size_t bytes) {
    const char *at = data;
    while (bytes > 0) {
        const ssize_t n = write(fd, at, bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? errno : EIO;
        at += n, bytes -= (size_t)n;
    }
    return 0;
}

int dmls_file_replace(const char *path, const void *data, size_t bytes) {
    const size_t n = strlen(path) + sizeof ".XXXXXX";
    char *tmp = malloc(n);
    if (tmp == NULL) return ENOMEM;
    snprintf(tmp, n, "%s.XXXXXX", path);
    const int fd = mkstemp(tmp); /* a new file only this call knows (mode 0600) */
    int err = fd < 0 ? errno : write_all(fd, data, bytes);
    if (fd >= 0 && close(fd) != 0 && err == 0) err = errno;
    if (err == 0 && rename(tmp, path) != 0) err = errno;
    if (err != 0 && fd >= 0) unlink(tmp);
    free(tmp);
    return err;
}
