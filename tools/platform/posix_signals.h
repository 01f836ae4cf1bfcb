/* The signals posix_files.c needs, POSIX only (Windows has none of these
 * faults: a mapped file cannot shrink there, a temporary file is deleted
 * with its handle).
 *
 * Mapping guards: a mapped input that another process truncates, or a
 * mapped output the file system cannot back, raises SIGBUS when touched;
 * inside a guarded range the handler maps zero pages over the rest of the
 * range and raises its flag, so the copy runs to its end and the caller
 * turns the flag into an error.
 *
 * Temporary files: while one is armed, every catchable signal that would
 * end the process removes it first (one per output on its way: split
 * writes many at once). Signals ignored when the process started stay
 * ignored (nohup keeps working). */
#ifndef DMLSLICE_TOOLS_POSIX_SIGNALS_H
#define DMLSLICE_TOOLS_POSIX_SIGNALS_H

#include <stddef.h>

/* Guards [addr, addr + len); returns a slot, or -1 when every slot is taken
 * (the range is then unguarded). */
int posix_guard_range(void *addr, size_t len, int writable);
/* True when a fault hit the slot's range (-1: never). */
int posix_guard_faulted(int slot);
void posix_unguard_range(int slot);

/* Arms the removal of a temporary file; path (the caller's own copy of the
 * name) stays valid until posix_keep_on_signal(path). 0, or ENFILE when
 * every slot is taken. */
int posix_remove_on_signal(char *path);
/* Disarms it (the file was named or removed). */
void posix_keep_on_signal(const char *path);

/* SIGXFSZ, when at its default, is ignored, so going past the file-size
 * limit is the error EFBIG instead of death. */
void posix_ignore_file_size_limit(void);

#endif
