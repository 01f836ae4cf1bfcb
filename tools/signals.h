/* The tool's signal handling for its files, in one place:
 *
 * - Mapping guards. A mapped input that another process truncates, or a
 *   mapped output the file system cannot back, raises SIGBUS when touched.
 *   Inside a guarded range the handler maps zero pages over the rest of the
 *   range and raises the range's flag, so the copy (on any thread) runs to
 *   its end and the caller turns the flag into an error message.
 * - A temporary file's name. While one is set, every catchable signal that
 *   would end the process removes it first. Signals that were ignored when
 *   the process started stay ignored (nohup keeps working).
 * - SIGXFSZ, when at its default, is ignored, so going past the file-size
 *   limit is the error EFBIG instead of death.
 *
 * Handlers use only async-signal-safe calls (unlink, mmap, sigaction,
 * raise). */
#ifndef DMLSLICE_TOOLS_SIGNALS_H
#define DMLSLICE_TOOLS_SIGNALS_H

#include <stdbool.h>
#include <stddef.h>

/* Guards [addr, addr + len); returns a slot for the calls below, or -1 when
 * every slot is taken (the range is then unguarded). writable: the zero
 * pages mapped after a fault accept writes. */
int sig_guard_range(void *addr, size_t len, bool writable);
/* True when a fault hit the range since it was guarded. */
bool sig_guard_faulted(int slot);
void sig_unguard_range(int slot);

/* Removes path (a copy is kept) if a terminating signal arrives; NULL
 * forgets it. */
void sig_cleanup_file(const char *path);

void sig_ignore_file_size_limit(void);

#endif
