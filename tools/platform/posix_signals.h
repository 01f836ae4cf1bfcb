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
 * writes many at once), after every armed undoable commit is taken back
 * (split's outputs: all or none). Signals ignored when the process started
 * stay ignored (nohup keeps working). */
#ifndef DMLSLICE_TOOLS_POSIX_SIGNALS_H
#define DMLSLICE_TOOLS_POSIX_SIGNALS_H

#include <stddef.h>
#include <stdint.h>

/* Guards [addr, addr + len); returns a slot, or -1 when every slot is taken
 * (the range is then unguarded). */
int posix_guard_range(void *addr, size_t len, int writable);
/* True when a fault hit the slot's range (-1: never). */
int posix_guard_faulted(int slot);
void posix_unguard_range(int slot);

/* Arms the removal of the temporary file name in the folder dir (an atomic
 * file's, held open); name (the caller's own copy) and dir stay valid until
 * posix_keep_on_signal(name). 0, or ENFILE when every slot is taken. */
int posix_remove_on_signal(int dir, char *name);
/* Disarms it (the file was named or removed). */
void posix_keep_on_signal(const char *name);

/* An undoable commit (posix_files.c's dmls_atomic_file_commit_undoable),
 * all in the folder dir that the atomic file holds open: the name the new
 * file took, that file's identity, the file it replaced kept under
 * backup_name (or NULL), and a spare name to move whatever holds the name
 * aside while it is checked. */
typedef struct posix_undo {
    int dir;
    const char *final_name;
    char *backup_name, *aside_name;
    uint64_t dev, ino;
} posix_undo;
/* Arms it: every catchable terminating signal takes the commit back
 * (posix_undo_now) before the temporary files go. 0, or ENFILE when every
 * slot is taken. */
int posix_undo_on_signal(posix_undo *u);
void posix_undo_keep(const posix_undo *u);
/* Takes the commit back, with async-signal-safe calls only: the new file
 * comes off the name only if the name still holds it (a file another
 * process put there since stays), then the replaced file comes back under
 * the name if the name is free. */
void posix_undo_now(const posix_undo *u);

/* SIGXFSZ, when at its default, is ignored, so going past the file-size
 * limit is the error EFBIG instead of death. */
void posix_ignore_file_size_limit(void);

#endif
