/* platform.h's threads, clock and memory for the tool on POSIX systems
 * (Linux, macOS, the BSDs); its files are in posix_files.c. */
#define _GNU_SOURCE /* MAP_ANONYMOUS under -std=c11 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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
void dmls_cond_signal(dmls_cond *c) { pthread_cond_signal(&c->c); }
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

/* --------------------------------------------------------------- clock */

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
