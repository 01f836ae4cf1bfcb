/* Elapsed-time progress on stderr for long work: nothing for the first
 * second, nothing unless stderr is a terminal, and the line is erased when
 * the work ends. The copy is a single library call with no callback, so
 * this reports time and size, not a percentage. */
#ifndef DMLSLICE_TOOLS_PROGRESS_H
#define DMLSLICE_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct progress progress;

/* Starts the reporter (returns NULL, harmlessly, when quiet, when stderr is
 * not a terminal, or when a thread cannot start). what: "slicing". */
progress *progress_start(bool quiet, const char *what, uint64_t bytes);
void progress_stop(progress *p);

#endif
