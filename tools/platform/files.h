/* The tool's files, standard streams, command line and signals: the part
 * of the operating system only the tool needs, which the library never
 * touches (posix_files.c for Linux, macOS and other POSIX systems,
 * win32_files.c for Windows; CMakeLists.txt here says which is built).
 * Every function here returns 0 on success and non-zero on failure unless
 * its comment says otherwise. */
#ifndef DMLS_TOOLS_FILES_H
#define DMLS_TOOLS_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Paths are UTF-8 everywhere: Windows converts them for its wide-character
 * API, so any name the file system allows works. Functions that fail
 * return an errno value (Windows' errors are mapped onto the nearest one:
 * ENOENT, EEXIST, EACCES, ENOSPC, EFBIG, EISDIR, ...) for
 * dmls_error_text. */

/* strerror for the errno values these functions return. */
const char *dmls_error_text(int err);

typedef enum dmls_file_kind {
    DMLS_FILE_MISSING, /* nothing by that name */
    DMLS_FILE_REGULAR,
    DMLS_FILE_FOLDER,
    DMLS_FILE_STREAM, /* read or written straight through: a character
                       * device, FIFO, socket, pipe or console */
    DMLS_FILE_OTHER   /* a block device and the like */
} dmls_file_kind;

typedef struct dmls_file_info {
    dmls_file_kind kind;
    int is_link;      /* the name itself is a symbolic link (asked not to follow) */
    uint64_t size;    /* a regular file's length */
    uint64_t volume;  /* with id: the file's identity, whatever its names */
    uint64_t id;
    unsigned mode;    /* POSIX permission bits; 0 on Windows */
} dmls_file_info;

/* What path names, following symbolic links or not. A missing path is no
 * failure: kind is DMLS_FILE_MISSING. */
int dmls_path_info(const char *path, int follow_links, dmls_file_info *info);
/* The same for standard input (0), output (1) or error (2). */
int dmls_stdio_info(int stream, dmls_file_info *info);
/* True when both name one existing file. */
int dmls_same_file(const dmls_file_info *a, const dmls_file_info *b);
/* True when the standard stream (0, 1, 2) is a terminal or console. */
int dmls_stdio_is_terminal(int stream);
/* Standard input and output carry bytes unchanged (Windows' text mode would
 * turn \n into \r\n and stop at ^Z). Call once, before using them. */
void dmls_stdio_binary(void);

/* The command line as UTF-8 (Windows rebuilds it from the wide-character
 * command line; elsewhere argv is returned). Call once, from main. */
char **dmls_utf8_args(int argc, char **argv);

/* fopen with a UTF-8 path; mode as fopen's, where "b" matters on Windows. */
FILE *dmls_fopen(const char *path, const char *mode);

/* A stream to write straight through, for an existing character device,
 * FIFO or socket (a POSIX socket is connected to); NULL with errno. */
FILE *dmls_open_stream_out(const char *path);
/* True when f is a terminal or console. */
int dmls_stream_is_terminal(FILE *f);
/* Writes all n bytes to f and flushes it, waiting out a non-blocking
 * descriptor; 0 or an errno value (EPIPE for a closed pipe). */
int dmls_stream_write_all(FILE *f, const void *p, uint64_t n);

/* The absolute path with every symbolic link resolved, malloc'd; NULL with
 * errno when path does not exist. */
char *dmls_real_path(const char *path);

/* How long path's folder part is: everything up to and including its last
 * separator ('/'; on Windows also '\' and a drive's colon, as in C:x.json),
 * so that path[0, n) + another name is that name beside path. 0 for a bare
 * name. */
size_t dmls_path_folder_len(const char *path);
/* True when path is relative to the current folder, so that a folder put in
 * front of it names something else: false for /x, and on Windows also for
 * \x, \\server\x and anything on a drive (C:\x, C:x). */
int dmls_path_is_relative(const char *path);

/* A regular file mapped read-only: [data, data + size + pad) is readable,
 * and the pad bytes after the file read as zero. A file that another
 * process shortens while it is mapped never crashes the reader: on POSIX
 * the lost pages read as zeros (a SIGBUS guard); Windows refuses to shorten
 * a mapped file. dmls_file_map_intact tells whether the file changed. */
typedef struct dmls_mapped_file {
    const unsigned char *data;
    uint64_t size;
    void *base; /* the system's view or reserved range */
    size_t base_len;
    intptr_t handle; /* the open file */
    int64_t modified; /* its modification time when mapped, in the system's units */
    int guard;
    void *heap; /* a copy, where the system cannot map with the padding */
} dmls_mapped_file;
int dmls_file_map(const char *path, size_t pad, dmls_mapped_file *m);
/* After the data was read: 1 when the file is as it was when mapped (the
 * same length and modification time, as finely as the file system records
 * it), else 0 with its length now in *size_now (unchanged when it was
 * rewritten in place). */
int dmls_file_map_intact(const dmls_mapped_file *m, uint64_t *size_now);
void dmls_file_unmap(dmls_mapped_file *m);

/* An atomic file: a new file that appears under its name only when
 * complete, atomically, and leaves nothing behind otherwise: created in the
 * final name's folder with its bytes reserved up front (a full disk or a
 * file-size limit is an error here, never a crash later), written through
 * data, then committed. The folder is resolved once, when the file is
 * created, and held open: the commit, the undo and every cleanup act in that
 * folder, never through its name again, so a folder renamed or swapped for
 * a symbolic link meanwhile cannot send the file anywhere else (a swapped
 * folder's file lands in the folder it was created in, under its new
 * name). Until the commit, no way the process can end leaves the file behind
 * on Windows (the system deletes it when its handle closes); on POSIX
 * systems a catchable terminating signal removes it. A process killed
 * before its commit (POSIX, where the file system refuses an unnamed file)
 * or inside the commit of a replace may leave .dmlslice-PID-K; creating a
 * new file removes such names in its folder once their process is gone. */
typedef struct dmls_atomic_file {
    unsigned char *data;    /* bytes writable bytes */
    uint64_t bytes;
    intptr_t handle;        /* the new file, open */
    intptr_t folder;        /* its folder, held open from the create on */
    char *tmp_name;         /* the new file's name in folder before the
                             * commit, or NULL while it has none */
    char *final_path;       /* the name as given */
    const char *final_name; /* its last part: the name in folder */
    int guard;
    const char *failed;     /* after a failed create, the step: "create",
                             * "permissions", "reserve" or "map" */
    void *undo;             /* after dmls_atomic_file_commit_undoable: how to
                             * take it back */
} dmls_atomic_file;
/* mode: POSIX permission bits for the new file (the umask applies), or -1
 * to keep those of the file it replaces; ignored on Windows, where the new
 * file takes its folder's inherited permissions like any new file. */
int dmls_atomic_file_create(dmls_atomic_file *f, const char *path, uint64_t bytes, int mode);
/* True when a write through data failed (the file system could not store
 * it: POSIX reports that by a SIGBUS, which a guard turns into this). */
int dmls_atomic_file_faulted(const dmls_atomic_file *f);
/* Trims the file to length bytes, makes it durable and gives it its name:
 * replacing an existing file atomically when replace is set, else failing
 * with EEXIST if the name is taken. On failure nothing changed under the
 * name and the new file is still uncommitted (abort it). */
int dmls_atomic_file_commit(dmls_atomic_file *f, uint64_t length, int replace);
/* dmls_atomic_file_commit for one of several files committed together
 * (split's outputs: all or none). Until dmls_atomic_file_settle or
 * dmls_atomic_file_undo, a file it replaced is kept under a temporary name in
 * the same folder. dmls_atomic_file_undo takes the commit back: the new file
 * comes off its name only if the name still holds this very file (device
 * and inode; a file another process put there since stays), and the
 * replaced file comes back under the name if the name is free. On POSIX
 * systems every catchable terminating signal undoes all unsettled commits
 * before the process ends; on Windows a process that ends meanwhile keeps
 * them (the replaced file as a hidden .dmlslice-PID-K, removed by the next
 * new file in that folder). On failure, as dmls_atomic_file_commit. */
int dmls_atomic_file_commit_undoable(dmls_atomic_file *f, uint64_t length, int replace);
/* Takes an undoable commit back, as above, and releases f. */
void dmls_atomic_file_undo(dmls_atomic_file *f);
/* Makes an undoable commit final (the replaced file's copy goes) and
 * releases f. dmls_atomic_file_abort does the same for a committed f. */
void dmls_atomic_file_settle(dmls_atomic_file *f);
/* Removes an uncommitted new file; harmless after a commit or a failed
 * create, whose f->failed it keeps. */
void dmls_atomic_file_abort(dmls_atomic_file *f);
/* True when f's folder, held since the create, is the folder folder
 * (dmls_path_info's identity of it) or lies beneath it now, whatever names
 * lead to either: a confinement (dispatch's) judged on the folder the file
 * will be committed into, not on a name. */
int dmls_atomic_file_beneath(const dmls_atomic_file *f, const dmls_file_info *folder);
/* Removes the file named path (a committed output taken back when a later
 * one of the same command fails); 0 or an errno value. */
int dmls_path_remove(const char *path);

/* A write to a closed pipe or socket is an error return (EPIPE), not the
 * end of the process, unless the process was set up otherwise. */
void dmls_ignore_broken_pipe(void);

/* Opens path to read only when it is a regular file, its type examined
 * before it is opened, so that a FIFO (whose open waits for a writer), a
 * device, a folder or a symbolic link as the last name is never opened;
 * the file opened is then checked to be the one examined, whose facts are
 * left in *info. 0 with *f open, or an errno value: EINVAL when path is
 * something other than a regular file (info->kind and info->is_link say
 * what), ENOENT when nothing has that name, EAGAIN when another file took
 * the name between the look and the open. */
int dmls_open_regular(const char *path, FILE **f, dmls_file_info *info);

#endif
