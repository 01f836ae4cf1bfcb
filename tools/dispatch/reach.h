/* Where a model may read and write. A model is untrusted input: by default
 * it reads only beneath its own folder and the current folder (where
 * DxDispatch looks for files) and writes only beneath the current folder;
 * --allow-path names more folders, for both. Every folder and every path
 * is compared resolved (dmls_real_path: absolute, symbolic links and ".."
 * gone), so an absolute path, a ".." or a link that leads out is refused
 * while one that stays inside is not.
 *
 * A read is checked again after the file is open: the file opened must be
 * the one a path beneath the folders names then, so renaming folders while
 * the model runs reaches nothing outside. A write is checked by name before
 * its file is made (for a message that names what it resolves to), then on
 * the folder the new file holds open (reach_holds): the file is committed
 * into that folder, never through a name again, so a folder renamed or
 * swapped for a link meanwhile cannot lead it outside. */
#ifndef DMLSLICE_TOOLS_DISPATCH_REACH_H
#define DMLSLICE_TOOLS_DISPATCH_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "files.h"

#define REACH_WHY_LEN 600

typedef struct model_reach {
    char **read; /* resolved folders: the model's, the current one, the allowed */
    size_t n_read;
    char **write; /* the current folder and the allowed */
    dmls_file_info *write_id; /* each write folder's identity, when resolved */
    size_t n_write;
} model_reach;

/* Resolves the folders: model_dir ("" for the current folder; NULL when
 * the model came from standard input) and allowed, a list separated by the
 * system's path-list separator (':' on POSIX, ';' on Windows) or NULL. On
 * failure returns false with why naming the folder. */
bool reach_init(model_reach *r, const char *model_dir, const char *allowed, char *why);
void reach_free(model_reach *r);

/* Opens path to read when it is a regular file beneath a read folder; its
 * length in *size. On failure returns NULL with why (REACH_WHY_LEN bytes)
 * naming the path and what was wrong. */
FILE *reach_open_read(const model_reach *r, const char *path, uint64_t *size, char *why);

/* True when writing path stays beneath a write folder; else false with
 * why. A name that does not resolve (a missing folder, a dangling link)
 * passes here: the output's own checks refuse it with their message. */
bool reach_may_write(const model_reach *r, const char *path, char *why);

/* True when the folder that file (created for path) holds open is a write
 * folder or lies beneath one now, judged by the folders' identities, not
 * by names; else false with why naming path. */
bool reach_holds(const model_reach *r, const dmls_atomic_file *file, const char *path, char *why);

#endif
