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
    bool done, shown;
    const char *what;
    uint64_t bytes;
    uint64_t t0; /* ns */
};

static DMLS_THREAD_MAIN(run, arg) {
    progress *p = arg;
    dmls_mutex_lock(&p->lock);
    while (!p->done) {
        dmls_cond_wait_ms(&p->cond, &p->lock, 250);
        const double t = 1e-9 * (double)(dmls_monotonic_ns() - p->t0);
        if (!p->done && t >= 1.0) {
            fprintf(stderr, "\rdmlslice: %s %.1f MiB ... %.1f s", p->what, (double)p->bytes / 1048576.0, t);
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

void progress_stop(progress *p) {
    if (p == NULL) return;
    dmls_mutex_lock(&p->lock);
    p->done = true;
    dmls_cond_signal(&p->cond);
    dmls_mutex_unlock(&p->lock);
    dmls_thread_join(&p->thread);
    if (p->shown) fputs("\r\033[K", stderr);
    dmls_mutex_destroy(&p->lock);
    dmls_cond_destroy(&p->cond);
    free(p);
}
