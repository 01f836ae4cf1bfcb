/* Writing .npy outputs; see npy_output.h. Every system call is the platform
 * layer's (platform.h): it creates, reserves, names and cleans up the new
 * file, however the system does that. */
#include "npy_output.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *copy_of(const char *s) {
    char *c = malloc(strlen(s) + 1);
    return c ? memcpy(c, s, strlen(s) + 1) : NULL;
}

/* The folder part of path ("." when none), malloc'd. */
static char *folder_of(const char *path) {
    const char *slash = strrchr(path, '/');
#if defined(_WIN32)
    const char *back = strrchr(path, '\\');
    if (back && (!slash || back > slash)) slash = back;
#endif
    if (slash == NULL) return copy_of(".");
    if (slash == path) return copy_of("/");
    char *dir = malloc((size_t)(slash - path) + 1);
    if (dir) {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
    }
    return dir;
}

/* The file that standard input or in_path is, when it is a regular one. */
static bool input_identity(const char *in_path, dmls_file_info *info) {
    const int r = strcmp(in_path, "-") == 0 ? dmls_stdio_info(0, info) : dmls_path_info(in_path, 1, info);
    return r == 0 && info->kind == DMLS_FILE_REGULAR;
}

bool npy_output_check(const char *out_path, const char *in_path, bool force, char *err) {
    dmls_file_info in_info, info;
    const bool in_known = input_identity(in_path, &in_info);
    if (strcmp(out_path, "-") == 0) {
        if (in_known && dmls_stdio_info(1, &info) == 0 && info.kind == DMLS_FILE_REGULAR &&
            dmls_same_file(&info, &in_info)) {
            snprintf(err, NPY_ERR_LEN, "<stdout>: standard output is the input file; refusing to write over it");
            return false;
        }
        return true;
    }
    const size_t n = strlen(out_path);
    if (n == 0 || out_path[n - 1] == '/') {
        snprintf(err, NPY_ERR_LEN, "%s: names a folder; give the output a file name", out_path);
        return false;
    }
    if (strcmp(in_path, out_path) == 0 ||
        (in_known && dmls_path_info(out_path, 1, &info) == 0 && info.kind == DMLS_FILE_REGULAR &&
         dmls_same_file(&info, &in_info))) {
        snprintf(err, NPY_ERR_LEN, "%s: the output is the input file; refusing to overwrite it", out_path);
        return false;
    }
    int e = dmls_path_info(out_path, 0, &info);
    if (e != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot write: %s", out_path, dmls_error_text(e));
        return false;
    }
    if (info.kind == DMLS_FILE_MISSING) {
        char *dir = folder_of(out_path);
        dmls_file_info d;
        e = dir ? dmls_path_info(dir, 1, &d) : ENOMEM;
        const bool ok = e == 0 && d.kind == DMLS_FILE_FOLDER;
        if (!ok)
            snprintf(err, NPY_ERR_LEN, "%s: cannot write: the folder '%s' %s", out_path, dir ? dir : "?",
                     e != 0                          ? dmls_error_text(e)
                     : d.kind == DMLS_FILE_MISSING ? "does not exist"
                                                     : "is not a folder");
        free(dir);
        return ok;
    }
    if (info.is_link && ((e = dmls_path_info(out_path, 1, &info)) != 0 || info.kind == DMLS_FILE_MISSING)) {
        snprintf(err, NPY_ERR_LEN, "%s: a symbolic link to nothing (%s); not followed", out_path,
                 dmls_error_text(e ? e : ENOENT));
        return false;
    }
    if (info.kind == DMLS_FILE_FOLDER) {
        snprintf(err, NPY_ERR_LEN, "%s: is a folder; give the output a file name", out_path);
        return false;
    }
    if (info.kind == DMLS_FILE_STREAM) return true; /* written through */
    if (info.kind != DMLS_FILE_REGULAR) {
        snprintf(err, NPY_ERR_LEN, "%s: is a block device or other special file; refusing to write over it",
                 out_path);
        return false;
    }
    if (!force) {
        snprintf(err, NPY_ERR_LEN, "%s: already exists; not overwritten (use -f to replace it)", out_path);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------ creating */

static bool fail(npy_output *out, char *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, NPY_ERR_LEN, fmt, ap);
    va_end(ap);
    npy_abort(out);
    return false;
}

/* Header and data in memory, written to out->stream at commit. */
static bool start_stream(npy_output *out, const unsigned char *header, char *err) {
    if (dmls_stream_is_terminal(out->stream))
        return fail(out, err, "%s: refusing to write binary .npy data to a terminal", out->shown);
    if (out->header_len + out->capacity > SIZE_MAX)
        return fail(out, err, "%s: %" PRIu64 " bytes do not fit memory", out->shown, out->file_len);
    out->heap = calloc(1, (size_t)(out->header_len + out->capacity));
    if (out->heap == NULL) return fail(out, err, "%s: out of memory for %" PRIu64 " bytes", out->shown, out->file_len);
    if (out->header_len) memcpy(out->heap, header, out->header_len);
    out->data = out->heap + out->header_len;
    return true;
}

/* Starts an output of header_len header bytes then data_bytes of data. */
static bool create(const char *path, bool force, const unsigned char *header, uint64_t header_len,
                   uint64_t data_bytes, npy_output *out, char *err) {
    out->force = force;
    out->shown = strcmp(path, "-") == 0 ? "<stdout>" : path;
    out->data_bytes = data_bytes;
    out->capacity = (out->data_bytes + NPY_PAD - 1) / NPY_PAD * NPY_PAD;
    out->header_len = header_len;
    out->file_len = out->header_len + out->data_bytes;

    if (strcmp(path, "-") == 0) {
        out->stream = stdout;
        return start_stream(out, header, err);
    }
    dmls_file_info info;
    const bool exists = dmls_path_info(path, 1, &info) == 0 && info.kind != DMLS_FILE_MISSING;
    if (exists && info.kind == DMLS_FILE_STREAM) {
        /* Opened by the name given: the system follows links itself
         * (/dev/stdout leads to "pipe:[...]", which is no path to resolve). */
        out->stream = dmls_open_stream_out(path);
        if (out->stream == NULL) return fail(out, err, "%s: cannot open for writing: %s", path, strerror(errno));
        out->own_stream = true;
        return start_stream(out, header, err);
    }
    /* A symbolic link is followed: its target is what gets replaced. */
    out->path = exists ? dmls_real_path(path) : copy_of(path);
    if (out->path == NULL) return fail(out, err, "%s: cannot resolve: %s", path, strerror(errno));
    if (exists && info.kind != DMLS_FILE_REGULAR)
        return fail(out, err, "%s: not a regular file; refusing to replace it", path);
    if (exists && !force) return fail(out, err, "%s: already exists; not overwritten (use -f to replace it)", path);
    const uint64_t len = out->header_len + out->capacity;
    if (len > (uint64_t)INT64_MAX || len > SIZE_MAX)
        return fail(out, err, "%s: %" PRIu64 " bytes do not fit a file offset here", path, len);
    /* Every byte reserved before one is written through the mapping, so that
     * a full disk or the file-size limit is an error here, not a crash later;
     * a replaced file's permission bits carry over. */
    const int e = dmls_atomic_file_create(&out->file, out->path, len, -1);
    if (e != 0) {
        const char *failed = out->file.failed ? out->file.failed : "";
        if (strcmp(failed, "reserve") == 0)
            return fail(out, err, "%s: cannot reserve %" PRIu64 " bytes: %s", path, len, dmls_error_text(e));
        if (strcmp(failed, "map") == 0)
            return fail(out, err, "%s: cannot map %" PRIu64 " bytes: %s", path, len, dmls_error_text(e));
        if (strcmp(failed, "permissions") == 0)
            return fail(out, err, "%s: cannot set the new file's permissions: %s", path, dmls_error_text(e));
        char *dir = folder_of(out->path);
        fail(out, err, "%s: cannot create a file in '%s': %s", out->shown, dir ? dir : "?", dmls_error_text(e));
        free(dir);
        return false;
    }
    out->created = true;
    if (out->header_len) memcpy(out->file.data, header, out->header_len);
    out->data = out->file.data + out->header_len;
    return true;
}

bool npy_create(const char *path, bool force, const char *descr, int32_t ndim, const int64_t *shape, size_t esize,
                npy_output *out, char *err) {
    memset(out, 0, sizeof *out);
    uint64_t count = 1;
    for (int i = 0; i < ndim; i++) count *= (uint64_t)shape[i]; /* fits: validated by dmls_create */
    unsigned char header[NPY_OUT_HEADER_MAX];
    const size_t header_len = npy_format_header(header, sizeof header, descr, esize, ndim, shape);
    const char *shown = strcmp(path, "-") == 0 ? "<stdout>" : path;
    if (header_len == 0) return fail(out, err, "%s: internal error: the header does not fit", shown);
    return create(path, force, header, header_len, count * esize, out, err);
}

bool npy_create_raw(const char *path, bool force, uint64_t bytes, npy_output *out, char *err) {
    memset(out, 0, sizeof *out);
    return create(path, force, NULL, 0, bytes, out, err);
}

/* ------------------------------------------------------------ committing */

static bool commit_stream(npy_output *out, char *err) {
    /* A closed pipe is an error to report, not a silent death (unless the
     * caller chose otherwise: only the default action is changed). */
    dmls_ignore_broken_pipe();
    const int e = dmls_stream_write_all(out->stream, out->heap, out->file_len);
    if (e != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: write error: %s", out->shown, dmls_error_text(e));
        return false;
    }
    npy_abort(out); /* releases the buffer and a device's stream; the data is sent */
    return true;
}

/* Commits a regular file, undoably when undoable (npy_commit_all). */
static bool commit_file(npy_output *out, bool undoable, char *err) {
    if (dmls_atomic_file_faulted(&out->file)) {
        snprintf(err, NPY_ERR_LEN, "%s: the file system could not store the data (a write through the mapping failed)",
                 out->shown);
        return false;
    }
    const int e = undoable ? dmls_atomic_file_commit_undoable(&out->file, out->file_len, out->force)
                           : dmls_atomic_file_commit(&out->file, out->file_len, out->force);
    if (e == EEXIST) {
        snprintf(err, NPY_ERR_LEN, "%s: already exists; not overwritten (use -f to replace it)", out->shown);
        return false;
    }
    if (e != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot write: %s", out->shown, dmls_error_text(e));
        return false;
    }
    return true;
}

bool npy_commit(npy_output *out, char *err) {
    if (out->stream) return commit_stream(out, err);
    if (!commit_file(out, false, err)) return false;
    out->created = false; /* committed: the file is in place */
    npy_abort(out);       /* releases what is left */
    return true;
}

/* Streams are written last: a file committed before a failure can be
 * taken back, a stream's bytes cannot. Files are committed undoably, so
 * that a failure, or a signal (files.h), takes every one back. */
bool npy_commit_all(npy_output *outs, int n, char *err) {
    bool ok = true;
    for (int pass = 0; pass < 2 && ok; pass++)
        for (int k = 0; k < n && ok; k++) {
            if ((outs[k].stream != NULL) != (pass == 1)) continue;
            ok = outs[k].stream ? commit_stream(&outs[k], err) : commit_file(&outs[k], true, err);
            if (ok && !outs[k].stream && outs[k].created) outs[k].committed = true;
        }
    for (int k = n - 1; k >= 0; k--) {
        if (!outs[k].committed) continue;
        if (ok) dmls_atomic_file_settle(&outs[k].file);
        else dmls_atomic_file_undo(&outs[k].file);
        outs[k].created = outs[k].committed = false;
        npy_abort(&outs[k]);
    }
    for (int k = 0; !ok && k < n; k++) npy_abort(&outs[k]);
    return ok;
}

void npy_abort(npy_output *out) {
    if (out->created || out->committed) dmls_atomic_file_abort(&out->file);
    if (out->own_stream) fclose(out->stream);
    free(out->path);
    free(out->heap);
    memset(out, 0, sizeof *out);
}
