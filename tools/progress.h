/* Progress on stderr for long work: nothing for the first second, nothing
 * unless stderr is a terminal, and the line is erased when the work ends.
 * The caller reports the bytes done as the work runs in pieces; the line
 * shows the fraction done and the time left at the rate so far. */
#ifndef DMLSLICE_TOOLS_PROGRESS_H
#define DMLSLICE_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct progress progress;

/* The longest line progress_format writes. */
#define PROGRESS_LINE_MAX 128

/* Starts the reporter (returns NULL, harmlessly, when quiet, when stderr is
 * not a terminal, or when a thread cannot start). what: "slicing into";
 * bytes: the work's size. */
progress *progress_start(bool quiet, const char *what, uint64_t bytes);
/* done of the bytes are done (p may be NULL); once done is all of them,
 * the line says the data is being synced to disk. */
void progress_advance(progress *p, uint64_t done);
void progress_stop(progress *p);

/* The line shown after seconds with done of bytes done, into buf (cap
 * bytes, always terminated): "dmlslice: slicing into 1.50 GiB: 50%, 2.0 s,
 * about 2.0 s left". Before anything is done, only the time spent. */
void progress_format(char *buf, size_t cap, const char *what, uint64_t bytes, uint64_t done, double seconds);

#endif
