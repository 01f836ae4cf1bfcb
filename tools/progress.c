/* The progress reporter; see progress.h. */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>

#include "files.h"
#include "platform.h"

struct progress {
    dmls_thread thread;
    dmls_mutex lock;
    dmls_cond cond;
    bool done_all, shown;
    const char *what;
    uint64_t bytes, done;
    uint64_t t0; /* ns */
};

/* A duration as a person reads it: tenths of seconds under a minute, then
 * minutes and seconds, then hours and minutes. */
static void duration(char *buf, size_t cap, double s) {
    if (s < 60) snprintf(buf, cap, "%.1f s", s);
    else if (s < 3600) snprintf(buf, cap, "%d min %d s", (int)(s / 60), (int)s % 60);
    else snprintf(buf, cap, "%d h %d min", (int)(s / 3600), (int)(s / 60) % 60);
}

void progress_format(char *buf, size_t cap, const char *what, uint64_t bytes, uint64_t done, double seconds) {
    char size[32], spent[32], left[32];
    const double gib = 1073741824.0;
    if ((double)bytes >= gib) snprintf(size, sizeof size, "%.2f GiB", (double)bytes / gib);
    else snprintf(size, sizeof size, "%.1f MiB", (double)bytes / 1048576.0);
    duration(spent, sizeof spent, seconds);
    if (bytes == 0 || done >= bytes) {
        snprintf(buf, cap, "dmlslice: %s %s: 100%%, syncing to disk, %s", what, size, spent);
        return;
    }
    /* Rounded down, so 100% means every byte. */
    const int percent = (int)((double)done * 100.0 / (double)bytes);
    if (done == 0) { /* no piece done yet, or one piece only (SLICE_GRAD, CUDA): no rate to tell */
        snprintf(buf, cap, "dmlslice: %s %s: %s", what, size, spent);
        return;
    }
    duration(left, sizeof left, seconds * (double)(bytes - done) / (double)done);
    snprintf(buf, cap, "dmlslice: %s %s: %d%%, %s, about %s left", what, size, percent, spent, left);
}

static DMLS_THREAD_MAIN(run, arg) {
    progress *p = arg;
    dmls_mutex_lock(&p->lock);
    while (!p->done_all) {
        dmls_cond_wait_ms(&p->cond, &p->lock, 250);
        const double t = 1e-9 * (double)(dmls_monotonic_ns() - p->t0);
        if (!p->done_all && t >= 1.0) {
            char line[PROGRESS_LINE_MAX];
            progress_format(line, sizeof line, p->what, p->bytes, p->done, t);
            /* The line's end erased: a shorter line replaces a longer one. */
            fprintf(stderr, "\r%s\033[K", line);
            fflush(stderr);
            p->shown = true;
        }
    }
    dmls_mutex_unlock(&p->lock);
    DMLS_THREAD_RETURN;
}

progress *progress_start(bool quiet, const char *what, uint64_t bytes) {
    if (quiet || !dmls_stdio_is_terminal(2)) return NULL;
    progress *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    if (dmls_mutex_init(&p->lock) != 0 || dmls_cond_init(&p->cond) != 0) {
        free(p); /* no progress shown: never an error */
        return NULL;
    }
    p->what = what;
    p->bytes = bytes;
    p->t0 = dmls_monotonic_ns();
    if (dmls_thread_start(&p->thread, run, p) != 0) {
        dmls_cond_destroy(&p->cond);
        dmls_mutex_destroy(&p->lock);
        free(p);
        return NULL;
    }
    return p;
}

void progress_advance(progress *p, uint64_t done) {
    if (p == NULL) return;
    dmls_mutex_lock(&p->lock);
    p->done = done;
    dmls_mutex_unlock(&p->lock);
}

void progress_stop(progress *p) {
    if (p == NULL) return;
    dmls_mutex_lock(&p->lock);
    p->done_all = true;
    dmls_cond_signal(&p->cond);
    dmls_mutex_unlock(&p->lock);
    dmls_thread_join(&p->thread);
    if (p->shown) fputs("\r\033[K", stderr);
    dmls_mutex_destroy(&p->lock);
    dmls_cond_destroy(&p->cond);
    free(p);
}
