/* See reach.h. */
#include "reach.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "platform.h"

#if defined(_WIN32)
#define LIST_SEPARATOR ';'
#define SEPARATOR '\\'
static bool is_separator(char c) { return c == '/' || c == '\\'; }
#else
#define LIST_SEPARATOR ':'
#define SEPARATOR '/'
static bool is_separator(char c) { return c == '/'; }
#endif

/* Both resolved: path is folder or lies inside it. A root ("/", "C:\")
 * ends in its separator, which the comparison leaves out. */
static bool beneath(const char *path, const char *folder) {
    size_t n = strlen(folder);
    while (n > 0 && is_separator(folder[n - 1])) n--;
    return strncmp(path, folder, n) == 0 && (path[n] == '\0' || is_separator(path[n]));
}

static bool inside(char *const *folders, size_t n, const char *path) {
    for (size_t i = 0; i < n; i++)
        if (beneath(path, folders[i])) return true;
    return false;
}

static bool add(char ***list, size_t *n, const char *folder, char *why) {
    char *real = dmls_real_path(folder);
    dmls_file_info info;
    if (real == NULL || dmls_path_info(real, 1, &info) != 0 || info.kind != DMLS_FILE_FOLDER) {
        snprintf(why, REACH_WHY_LEN, "'%.400s': %s", folder, real ? "not a folder" : strerror(errno));
        free(real);
        return false;
    }
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i], real) == 0) { /* named twice (the model's folder is the current one) */
            free(real);
            return true;
        }
    char **grown = realloc(*list, (*n + 1) * sizeof **list);
    if (grown == NULL) {
        free(real);
        snprintf(why, REACH_WHY_LEN, "out of memory");
        return false;
    }
    grown[(*n)++] = real;
    *list = grown;
    return true;
}

/* Each folder of a list separated by LIST_SEPARATOR, into both lists. */
static bool add_allowed(model_reach *r, const char *allowed, char *why) {
    while (*allowed) {
        const char *end = strchr(allowed, LIST_SEPARATOR);
        const size_t len = end ? (size_t)(end - allowed) : strlen(allowed);
        if (len > 0) {
            char *folder = malloc(len + 1);
            if (folder == NULL) {
                snprintf(why, REACH_WHY_LEN, "out of memory");
                return false;
            }
            memcpy(folder, allowed, len);
            folder[len] = '\0';
            const bool ok = add(&r->read, &r->n_read, folder, why) && add(&r->write, &r->n_write, folder, why);
            free(folder);
            if (!ok) return false;
        }
        allowed += len + (end != NULL);
    }
    return true;
}

bool reach_init(model_reach *r, const char *model_dir, const char *allowed, char *why) {
    memset(r, 0, sizeof *r);
    bool ok = add(&r->read, &r->n_read, ".", why) && add(&r->write, &r->n_write, ".", why);
    if (ok && model_dir) ok = add(&r->read, &r->n_read, model_dir[0] ? model_dir : ".", why);
    if (ok && allowed) ok = add_allowed(r, allowed, why);
    /* Identities taken once, as the folders were resolved: what a held
     * folder is compared with (reach_holds). */
    r->write_id = ok ? calloc(r->n_write + 1, sizeof *r->write_id) : NULL;
    if (ok && r->write_id == NULL) ok = (snprintf(why, REACH_WHY_LEN, "out of memory"), false);
    for (size_t i = 0; ok && i < r->n_write; i++) dmls_path_info(r->write[i], 1, &r->write_id[i]);
    if (!ok) reach_free(r);
    return ok;
}

void reach_free(model_reach *r) {
    for (size_t i = 0; i < r->n_read; i++) free(r->read[i]);
    for (size_t i = 0; i < r->n_write; i++) free(r->write[i]);
    free(r->read);
    free(r->write);
    free(r->write_id);
    memset(r, 0, sizeof *r);
}

/* "'PATH' resolves to 'REAL', outside the folders a model may VERB (A, B)". */
static void outside(char *why, const char *path, const char *real, const char *verb, char *const *folders, size_t n) {
    int at = snprintf(why, REACH_WHY_LEN, "'%.150s' resolves to '%.150s', outside the folders a model may %s (", path,
                      real, verb);
    for (size_t i = 0; i < n && at > 0 && at < REACH_WHY_LEN; i++)
        at += snprintf(why + at, REACH_WHY_LEN - (size_t)at, "%s%.100s", i ? ", " : "", folders[i]);
    if (at > 0 && at < REACH_WHY_LEN) snprintf(why + at, REACH_WHY_LEN - (size_t)at, "); --allow-path widens them");
}

static const char *kind_name(const dmls_file_info *info) {
    if (info->is_link) return "a symbolic link";
    switch (info->kind) {
    case DMLS_FILE_FOLDER: return "a folder";
    case DMLS_FILE_STREAM: return "a FIFO, socket or character device";
    default: return "a block device or other special file";
    }
}

FILE *reach_open_read(const model_reach *r, const char *path, uint64_t *size, char *why) {
    char *real = dmls_real_path(path);
    if (real == NULL) {
        snprintf(why, REACH_WHY_LEN, "cannot open '%.400s': %s", path, strerror(errno));
        return NULL;
    }
    FILE *f = NULL;
    dmls_file_info info, now;
    int e;
    if (!inside(r->read, r->n_read, real)) {
        outside(why, path, real, "read", r->read, r->n_read);
    } else if ((e = dmls_open_regular(real, &f, &info)) != 0) {
        if (e == EINVAL) snprintf(why, REACH_WHY_LEN, "'%.400s' is %s, not a regular file", path, kind_name(&info));
        else if (e == EAGAIN) snprintf(why, REACH_WHY_LEN, "'%.400s' changed while it was opened; not read", path);
        else snprintf(why, REACH_WHY_LEN, "cannot open '%.400s': %s", path, dmls_error_text(e));
    } else {
        /* The file opened must be the one its resolved name gives now, so
         * that a folder renamed meanwhile led nowhere else. */
        char *again = dmls_real_path(real);
        if (again == NULL || strcmp(again, real) != 0 || dmls_path_info(again, 1, &now) != 0 ||
            !dmls_same_file(&now, &info)) {
            snprintf(why, REACH_WHY_LEN, "'%.400s' changed while it was opened; not read", path);
            fclose(f);
            f = NULL;
        }
        free(again);
        *size = info.size;
    }
    free(real);
    return f;
}

/* Where a new file's name leads: its folder resolved, then its own name
 * (so that a refusal names the file, not only the folder); NULL when the
 * folder does not resolve, or out of memory. */
static char *real_new_path(const char *path) {
    const size_t n = dmls_path_folder_len(path);
    char *folder = malloc(n + 2);
    if (folder == NULL) return NULL;
    memcpy(folder, n ? path : ".", n ? n : 1);
    folder[n ? n : 1] = '\0';
    char *real = dmls_real_path(folder);
    free(folder);
    size_t len = real ? strlen(real) : 0;
    const size_t name = strlen(path + n);
    char *full = real ? malloc(len + name + 2) : NULL;
    if (full) {
        memcpy(full, real, len);
        if (len == 0 || !is_separator(real[len - 1])) full[len++] = SEPARATOR;
        memcpy(full + len, path + n, name + 1);
    }
    free(real);
    return full;
}

bool reach_may_write(const model_reach *r, const char *path, char *why) {
    dmls_file_info info;
    if (dmls_path_info(path, 0, &info) != 0) return true;
    errno = 0;
    char *real = info.kind != DMLS_FILE_MISSING ? dmls_real_path(path) : real_new_path(path);
    if (real == NULL && errno == ENOMEM) snprintf(why, REACH_WHY_LEN, "out of memory");
    if (real == NULL) return errno != ENOMEM;
    const bool ok = inside(r->write, r->n_write, real);
    if (!ok) outside(why, path, real, "write", r->write, r->n_write);
    free(real);
    return ok;
}

bool reach_holds(const model_reach *r, const dmls_atomic_file *file, const char *path, char *why) {
    for (size_t i = 0; i < r->n_write; i++)
        if (dmls_atomic_file_beneath(file, &r->write_id[i])) return true;
    int at = snprintf(why, REACH_WHY_LEN,
                      "'%.300s': its folder was moved or swapped while the file was made, and lies outside the "
                      "folders a model may write (",
                      path);
    for (size_t i = 0; i < r->n_write && at > 0 && at < REACH_WHY_LEN; i++)
        at += snprintf(why + at, REACH_WHY_LEN - (size_t)at, "%s%.100s", i ? ", " : "", r->write[i]);
    if (at > 0 && at < REACH_WHY_LEN) snprintf(why + at, REACH_WHY_LEN - (size_t)at, ")");
    return false;
}
