/* The progress reporter; see progress.h. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct progress {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done, shown;
    const char *what;
    uint64_t bytes;
    struct timespec t0;
};

static double since(const struct timespec *t0) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void *run(void *arg) {
    progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->done) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cond, &p->lock, &until);
        const double t = since(&p->t0);
        if (!p->done && t >= 1.0) {
            fprintf(stderr, "\rdmlslice: %s %.1f MiB ... %.1f s", p->what, (double)p->bytes / 1048576.0, t);
            fflush(stderr);
            p->shown = true;
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

progress *progress_start(bool quiet, const char *what, uint64_t bytes) {
    if (quiet || !isatty(STDERR_FILENO)) return NULL;
    progress *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    p->what = what;
    p->bytes = bytes;
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
    if (pthread_create(&p->thread, NULL, run, p) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

void progress_stop(progress *p) {
    if (p == NULL) return;
    pthread_mutex_lock(&p->lock);
    p->done = true;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    if (p->shown) fputs("\r\033[K", stderr);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
    free(p);
}
