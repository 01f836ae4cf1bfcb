/* platform.h's files, standard streams and command line for Windows: the
 * wide-character API throughout (UTF-8 paths converted), binary standard
 * streams, and new files that the system deletes unless committed.
 *
 * No console-control handler is needed for cleanup: an uncommitted new file
 * is marked for deletion right after its creation, so Ctrl+C, Ctrl+Break,
 * closing the console or TerminateProcess all leave nothing behind, but for
 * two instants, between the creation and the mark and at the commit's
 * rename, whose leftovers the next new file in that folder removes
 * (remove_stale_names). */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <shellapi.h> /* CommandLineToArgvW */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "files.h"
#include "platform.h"

/* Windows' error codes onto the errno values platform.h promises. */
static int errno_of(DWORD e) {
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH: return ENOENT;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS: return EEXIST;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_WRITE_PROTECT: return EACCES;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL: return ENOSPC;
    case ERROR_FILE_TOO_LARGE: return EFBIG;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_COMMITMENT_LIMIT: return ENOMEM;
    case ERROR_DIRECTORY: return EISDIR;
    case ERROR_FILENAME_EXCED_RANGE: return ENAMETOOLONG;
    case ERROR_INVALID_NAME:
    case ERROR_INVALID_PARAMETER: return EINVAL;
    case ERROR_NOT_SAME_DEVICE: return EXDEV;
    case ERROR_BROKEN_PIPE:
    case ERROR_NO_DATA: return EPIPE;
    default: return EIO;
    }
}

const char *dmls_error_text(int err) { return strerror(err); }

static wchar_t *wide(const char *path);

int dmls_path_remove(const char *path) {
    wchar_t *w = wide(path);
    if (w == NULL) return errno;
    const int err = DeleteFileW(w) ? 0 : errno_of(GetLastError());
    free(w);
    return err;
}

/* path as UTF-16 for the wide-character API, malloc'd; NULL (errno set)
 * when it is not valid UTF-8 or memory is short. */
static wchar_t *wide(const char *path) {
    const int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
    if (n <= 0) {
        errno = EINVAL;
        return NULL;
    }
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (w == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, w, n);
    return w;
}

static char *narrow(const wchar_t *w) {
    const int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = n > 0 ? malloc((size_t)n) : NULL;
    if (s) WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
    return s;
}

char **dmls_utf8_args(int argc, char **argv) {
    int n = 0;
    wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
    if (w == NULL || n != argc) {
        if (w) LocalFree(w);
        return argv;
    }
    /* Kept for the life of the process, like argv itself. */
    char **u = calloc((size_t)n + 1, sizeof *u);
    for (int i = 0; u && i < n; i++) {
        u[i] = narrow(w[i]);
        if (u[i] == NULL) {
            u = NULL; /* leaks the little converted so far: the process goes on with argv */
            break;
        }
    }
    LocalFree(w);
    return u ? u : argv;
}

static void info_of_handle(HANDLE h, dmls_file_info *info) {
    const DWORD type = GetFileType(h);
    if (type == FILE_TYPE_CHAR || type == FILE_TYPE_PIPE) {
        info->kind = DMLS_FILE_STREAM;
        return;
    }
    BY_HANDLE_FILE_INFORMATION bh;
    if (type != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &bh)) {
        info->kind = DMLS_FILE_OTHER;
        return;
    }
    info->kind = bh.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? DMLS_FILE_FOLDER : DMLS_FILE_REGULAR;
    info->size = info->kind == DMLS_FILE_REGULAR ? (uint64_t)bh.nFileSizeHigh << 32 | bh.nFileSizeLow : 0;
    info->volume = bh.dwVolumeSerialNumber;
    info->id = (uint64_t)bh.nFileIndexHigh << 32 | bh.nFileIndexLow;
}

int dmls_path_info(const char *path, int follow_links, dmls_file_info *info) {
    memset(info, 0, sizeof *info);
    wchar_t *w = wide(path);
    if (w == NULL) return errno;
    /* No access asked: only the file's facts. Backup semantics opens
     * folders too; without following, a reparse point (a symbolic link or a
     * junction) is opened itself. */
    const DWORD flags = FILE_FLAG_BACKUP_SEMANTICS | (follow_links ? 0 : FILE_FLAG_OPEN_REPARSE_POINT);
    HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING, flags,
                           NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        const int e = errno_of(GetLastError());
        return e == ENOENT ? 0 : e;
    }
    info_of_handle(h, info);
    FILE_ATTRIBUTE_TAG_INFO tag;
    if (!follow_links && GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag, sizeof tag) &&
        (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
        info->is_link = 1;
        info->kind = DMLS_FILE_OTHER;
    }
    CloseHandle(h);
    return 0;
}

static HANDLE std_handle(int stream) {
    return GetStdHandle(stream == 0 ? STD_INPUT_HANDLE : stream == 1 ? STD_OUTPUT_HANDLE : STD_ERROR_HANDLE);
}

int dmls_stdio_info(int stream, dmls_file_info *info) {
    memset(info, 0, sizeof *info);
    HANDLE h = std_handle(stream);
    if (h == INVALID_HANDLE_VALUE || h == NULL) return EBADF;
    info_of_handle(h, info);
    return 0;
}

int dmls_same_file(const dmls_file_info *a, const dmls_file_info *b) {
    return a->kind != DMLS_FILE_MISSING && b->kind != DMLS_FILE_MISSING && (a->volume || a->id) &&
           a->volume == b->volume && a->id == b->id;
}

int dmls_stdio_is_terminal(int stream) {
    /* A console answers GetConsoleMode; NUL is a character device too, but
     * no terminal. */
    DWORD mode;
    HANDLE h = std_handle(stream);
    return GetFileType(h) == FILE_TYPE_CHAR && GetConsoleMode(h, &mode);
}

void dmls_stdio_binary(void) {
    _setmode(_fileno(stdin), _O_BINARY);
    _setmode(_fileno(stdout), _O_BINARY);
}

FILE *dmls_fopen(const char *path, const char *mode) {
    wchar_t *w = wide(path), wmode[8];
    size_t i = 0;
    for (; mode[i] && i < 7; i++) wmode[i] = (wchar_t)(unsigned char)mode[i];
    wmode[i] = 0;
    FILE *f = w ? _wfopen(w, wmode) : NULL;
    free(w);
    return f;
}

FILE *dmls_open_stream_out(const char *path) { return dmls_fopen(path, "wb"); }

int dmls_stream_is_terminal(FILE *f) {
    DWORD mode;
    HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
    return h != INVALID_HANDLE_VALUE && GetFileType(h) == FILE_TYPE_CHAR && GetConsoleMode(h, &mode);
}

int dmls_stream_write_all(FILE *f, const void *data, uint64_t n) {
    const unsigned char *p = data;
    while (n > 0) {
        const size_t chunk = n > (1u << 30) ? (1u << 30) : (size_t)n;
        const size_t w = fwrite(p, 1, chunk, f);
        if (w == 0) return errno ? errno : EIO;
        p += w;
        n -= w;
    }
    return fflush(f) == 0 ? 0 : errno ? errno : EIO;
}

/* After the last / or \ or a drive's colon (C:x.json). */
size_t dmls_path_folder_len(const char *path) {
    size_t at = 0;
    for (size_t i = 0; path[i]; i++)
        if (path[i] == '/' || path[i] == '\\' || (i == 1 && path[i] == ':')) at = i + 1;
    return at;
}

/* \x and /x are on the current drive's root, \\server\x on a share, and
 * C:x in drive C:'s current folder, which need not be this process's. */
int dmls_path_is_relative(const char *path) {
    return path[0] != '/' && path[0] != '\\' && !(path[0] != '\0' && path[1] == ':');
}

char *dmls_real_path(const char *path) {
    wchar_t *w = wide(path);
    if (w == NULL) return NULL;
    HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        errno = errno_of(GetLastError());
        return NULL;
    }
    wchar_t buf[32768];
    const DWORD n = GetFinalPathNameByHandleW(h, buf, 32768, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    CloseHandle(h);
    if (n == 0 || n >= 32768) {
        errno = EINVAL;
        return NULL;
    }
    /* \\?\C:\... becomes C:\...; a \\?\UNC\ share keeps its prefix. */
    const wchar_t *p = wcsncmp(buf, L"\\\\?\\", 4) == 0 && buf[5] == L':' ? buf + 4 : buf;
    return narrow(p);
}

/* An open file's length and last-write time; false when the system cannot
 * say. */
static BOOL length_and_time(HANDLE h, uint64_t *size, int64_t *modified) {
    BY_HANDLE_FILE_INFORMATION bh;
    if (!GetFileInformationByHandle(h, &bh)) return FALSE;
    *size = (uint64_t)bh.nFileSizeHigh << 32 | bh.nFileSizeLow;
    *modified = (int64_t)((uint64_t)bh.ftLastWriteTime.dwHighDateTime << 32 | bh.ftLastWriteTime.dwLowDateTime);
    return TRUE;
}

int dmls_file_map(const char *path, size_t pad, dmls_mapped_file *m) {
    memset(m, 0, sizeof *m);
    m->guard = -1;
    wchar_t *w = wide(path);
    if (w == NULL) return errno;
    /* Others may go on reading, writing or renaming the file; none can
     * shorten it while it is mapped (Windows refuses with
     * ERROR_USER_MAPPED_FILE), so a mapped input never loses pages. */
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) return errno_of(GetLastError());
    dmls_file_info info = {0};
    info_of_handle(h, &info);
    int err = info.kind == DMLS_FILE_FOLDER ? EISDIR : info.kind != DMLS_FILE_REGULAR ? EINVAL : 0;
    uint64_t size_then;
    if (!err && !length_and_time(h, &size_then, &m->modified)) err = errno_of(GetLastError());
    if (!err && info.size + pad > SIZE_MAX) err = EFBIG;
    const size_t page = dmls_page_size();
    const size_t tail = (size_t)(info.size % page);
    if (!err && info.size > 0 && tail != 0 && page - tail >= pad) {
        /* The view ends on a page boundary and the system zeroes the rest
         * of the last page: the padding is there. */
        HANDLE map = CreateFileMappingW(h, NULL, PAGE_READONLY, 0, 0, NULL);
        void *view = map ? MapViewOfFile(map, FILE_MAP_READ, 0, 0, 0) : NULL;
        if (view == NULL) err = errno_of(GetLastError());
        if (map) CloseHandle(map); /* the view keeps the mapping alive */
        m->data = view;
        m->base = view;
    } else if (!err) {
        /* An empty file cannot be mapped, and one that fills its last page
         * leaves no room for the padding: read it instead. */
        unsigned char *buf = calloc(1, (size_t)info.size + pad);
        if (buf == NULL) err = ENOMEM;
        for (uint64_t at = 0; !err && at < info.size;) {
            const uint64_t left = info.size - at;
            DWORD got = 0;
            if (!ReadFile(h, buf + at, left > (1u << 30) ? (1u << 30) : (DWORD)left, &got, NULL)) {
                err = errno_of(GetLastError());
            } else if (got == 0) {
                err = EIO; /* shortened meanwhile */
            }
            at += got;
        }
        if (err) free(buf);
        else m->data = buf, m->heap = buf;
    }
    if (err) {
        CloseHandle(h);
        memset(m, 0, sizeof *m);
        return err;
    }
    m->handle = (intptr_t)h; /* kept, to see the file change (dmls_file_map_intact) */
    m->size = info.size;
    return 0;
}

/* Windows refuses to shorten a mapped file (ERROR_USER_MAPPED_FILE), but
 * another program may extend it or write in place. */
int dmls_file_map_intact(const dmls_mapped_file *m, uint64_t *size_now) {
    int64_t modified;
    *size_now = m->size;
    if (m->handle == 0 || !length_and_time((HANDLE)m->handle, size_now, &modified)) return 1;
    return *size_now == m->size && modified == m->modified;
}

void dmls_file_unmap(dmls_mapped_file *m) {
    if (m->base) UnmapViewOfFile(m->base);
    if (m->handle != 0) CloseHandle((HANDLE)m->handle);
    free(m->heap);
    memset(m, 0, sizeof *m);
    m->guard = -1;
}

/* Marks the open file for deletion when its last handle closes (on), or
 * takes the mark back (off). */
static BOOL delete_on_close(HANDLE h, BOOL on) {
    FILE_DISPOSITION_INFO d = {on};
    return SetFileInformationByHandle(h, FileDispositionInfo, &d, sizeof d);
}

static BOOL set_length(HANDLE h, uint64_t bytes) {
    FILE_END_OF_FILE_INFO e;
    e.EndOfFile.QuadPart = (LONGLONG)bytes;
    return SetFileInformationByHandle(h, FileEndOfFileInfo, &e, sizeof e);
}

/* True for ".dmlslice-PID-K" (K of at most 9 digits): a temporary name of
 * dmls_atomic_file_create, or a replaced file's while an undoable commit
 * lasts. */
static int temporary_name(const char *name) {
    static const char prefix[] = ".dmlslice-";
    if (strncmp(name, prefix, sizeof prefix - 1) != 0) return 0;
    const char *p = name + sizeof prefix - 1, *digits = p;
    while (*p >= '0' && *p <= '9') p++;
    if (p == digits || p - digits > 10 || *p++ != '-') return 0;
    digits = p;
    while (*p >= '0' && *p <= '9') p++;
    return *p == '\0' && p > digits && p - digits <= 9;
}

/* A process that ends between the commit's taking back of the deletion mark
 * and its rename leaves its hidden .dmlslice-PID-K behind: such names in the
 * folder are removed before a new file is made there. A live process holds
 * its file open without sharing, so DeleteFileW cannot take that one. */
static void remove_stale_names(const char *path, size_t dir_len) {
    char *pattern = malloc(dir_len + sizeof ".dmlslice-*");
    if (pattern == NULL) return;
    snprintf(pattern, dir_len + sizeof ".dmlslice-*", "%.*s.dmlslice-*", (int)dir_len, path);
    wchar_t *w = wide(pattern);
    free(pattern);
    WIN32_FIND_DATAW found;
    HANDLE find = w ? FindFirstFileW(w, &found) : INVALID_HANDLE_VALUE;
    free(w);
    if (find == INVALID_HANDLE_VALUE) return;
    do {
        char *name = narrow(found.cFileName);
        char *full = name ? malloc(dir_len + strlen(name) + 1) : NULL;
        if (full && temporary_name(name)) {
            snprintf(full, dir_len + strlen(name) + 1, "%.*s%s", (int)dir_len, path, name);
            wchar_t *wf = wide(full);
            if (wf) DeleteFileW(wf);
            free(wf);
        }
        free(full);
        free(name);
    } while (FindNextFileW(find, &found));
    FindClose(find);
}

/* The final name's folder, opened once and held: the commit renames the
 * file into this very folder (relative to the handle), and, shared for
 * reading and writing but not for deletion, the folder cannot be renamed,
 * moved or deleted while it is held. The folder's own name is followed (a
 * link to a folder leads to that folder, as a name given anywhere does);
 * only once. */
static int open_folder(const char *path, size_t dir_len, HANDLE *folder) {
    char *dir = malloc(dir_len + 2);
    if (dir == NULL) return ENOMEM;
    if (dir_len) memcpy(dir, path, dir_len);
    else dir[dir_len++] = '.';
    dir[dir_len] = '\0';
    wchar_t *w = wide(dir);
    free(dir);
    if (w == NULL) return errno;
    *folder = CreateFileW(w, FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES, FILE_SHARE_READ |
                          FILE_SHARE_WRITE, NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    return *folder == INVALID_HANDLE_VALUE ? errno_of(GetLastError()) : 0;
}

/* A hidden file in the final name's folder, so the rename never crosses
 * volumes, marked for deletion at once: until the commit takes the mark
 * back, the system removes it however the process ends (a crash, Ctrl+C,
 * TerminateProcess), as Linux does for an O_TMPFILE file. The mark is a
 * second call: FILE_FLAG_DELETE_ON_CLOSE at creation could not be taken
 * back by the commit, so a process ended between the two leaves the file
 * to remove_stale_names. Win32 creates
 * files by path only: the folder held cannot move meanwhile, and the
 * commit's rename is relative to it wherever the file was made. */
static int make_temporary(dmls_atomic_file *f, const char *path, size_t dir_len) {
    char *full = malloc(dir_len + 64);
    f->tmp_name = malloc(64);
    int err = full && f->tmp_name ? 0 : ENOMEM;
    HANDLE h = INVALID_HANDLE_VALUE;
    for (unsigned k = 0; !err && h == INVALID_HANDLE_VALUE && k < 100; k++) {
        snprintf(f->tmp_name, 64, ".dmlslice-%lu-%u", GetCurrentProcessId(), k);
        snprintf(full, dir_len + 64, "%.*s%s", (int)dir_len, path, f->tmp_name);
        wchar_t *w = wide(full);
        if (w == NULL) {
            err = errno;
            break;
        }
        h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE | DELETE, 0, NULL, CREATE_NEW,
                        FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_NOT_CONTENT_INDEXED, NULL);
        free(w);
        if (h == INVALID_HANDLE_VALUE && GetLastError() != ERROR_FILE_EXISTS) err = errno_of(GetLastError());
    }
    free(full);
    if (!err && h == INVALID_HANDLE_VALUE) err = EEXIST;
    if (!err) {
        f->handle = (intptr_t)h;
        if (!delete_on_close(h, TRUE)) err = errno_of(GetLastError());
    }
    return err;
}

int dmls_atomic_file_create(dmls_atomic_file *f, const char *path, uint64_t bytes, int mode) {
    (void)mode;
    memset(f, 0, sizeof *f);
    f->handle = f->folder = (intptr_t)INVALID_HANDLE_VALUE;
    f->guard = -1;
    f->failed = "create";
    const size_t dir_len = dmls_path_folder_len(path);
    f->final_path = _strdup(path);
    HANDLE folder = INVALID_HANDLE_VALUE;
    int err = f->final_path ? open_folder(path, dir_len, &folder) : ENOMEM;
    f->folder = (intptr_t)folder;
    if (!err) f->final_name = f->final_path + dir_len;
    if (!err && f->final_name[0] == '\0') err = EISDIR;
    if (!err) remove_stale_names(path, dir_len);
    if (!err) err = make_temporary(f, path, dir_len);
    HANDLE h = (HANDLE)f->handle;
    /* Setting the length allocates every byte (files are not sparse unless
     * asked): a full disk is ERROR_DISK_FULL here, never a failed page
     * write through the mapping later. */
    if (!err) f->failed = "reserve";
    if (!err && bytes > 0 && !set_length(h, bytes)) err = errno_of(GetLastError());
    if (!err && bytes > SIZE_MAX) err = EFBIG;
    if (!err) f->failed = "map";
    if (!err && bytes > 0) {
        HANDLE map = CreateFileMappingW(h, NULL, PAGE_READWRITE, (DWORD)(bytes >> 32), (DWORD)bytes, NULL);
        void *view = map ? MapViewOfFile(map, FILE_MAP_WRITE, 0, 0, (SIZE_T)bytes) : NULL;
        if (view == NULL) err = errno_of(GetLastError());
        if (map) CloseHandle(map); /* the view keeps the mapping alive */
        f->data = view;
    }
    if (err) {
        dmls_atomic_file_abort(f); /* f->failed stays */
        return err;
    }
    f->failed = NULL;
    f->bytes = bytes;
    return 0;
}

/* Space is allocated at create, so a write through the view has nowhere to
 * fail short of a device error, which Windows raises as an exception that
 * ends the process (and with it the uncommitted file). */
int dmls_atomic_file_faulted(const dmls_atomic_file *f) {
    (void)f;
    return 0;
}

/* ntdll's NtSetInformationFile, found at run time (no import library
 * needed): Win32's SetFileInformationByHandle rewrites a rename's name
 * against the current folder on some systems (Wine), which a name relative
 * to RootDirectory must not be. */
typedef struct nt_io_status {
    union {
        LONG status;
        void *pointer;
    } u;
    ULONG_PTR information;
} nt_io_status;
typedef LONG(WINAPI *nt_set_information_file)(HANDLE, nt_io_status *, void *, ULONG, int);
#define NT_FILE_RENAME_INFORMATION 10

/* Renames the open file h to name in the folder held open (replacing a
 * file there when replace is set): atomic, refusing a taken name
 * otherwise, and relative to the folder's handle, so no path is resolved.
 * FILE_RENAME_INFO is laid out as the system's FILE_RENAME_INFORMATION. */
static int rename_handle(HANDLE h, HANDLE folder, const char *name, int replace) {
    static nt_set_information_file set_information;
    if (set_information == NULL) {
        HMODULE nt = GetModuleHandleW(L"ntdll.dll");
        set_information = nt ? (nt_set_information_file)(void (*)(void))GetProcAddress(nt, "NtSetInformationFile")
                             : NULL;
        if (set_information == NULL) return ENOSYS;
    }
    wchar_t *w = wide(name);
    if (w == NULL) return errno;
    const size_t name_bytes = wcslen(w) * sizeof(wchar_t);
    FILE_RENAME_INFO *r = calloc(1, sizeof *r + name_bytes);
    if (r == NULL) {
        free(w);
        return ENOMEM;
    }
    memcpy(r->FileName, w, name_bytes);
    free(w);
    r->ReplaceIfExists = replace ? TRUE : FALSE;
    r->RootDirectory = folder;
    r->FileNameLength = (DWORD)name_bytes;
    nt_io_status io;
    const LONG status = set_information(h, &io, r, (ULONG)(sizeof *r + name_bytes), NT_FILE_RENAME_INFORMATION);
    free(r);
    /* The NT statuses a rename gives, onto the Win32 errors errno_of maps. */
    switch ((unsigned long)status) {
    case 0: return 0;
    case 0xC0000035UL: return EEXIST;                          /* STATUS_OBJECT_NAME_COLLISION */
    case 0xC0000034UL: case 0xC000003AUL: return ENOENT;       /* STATUS_OBJECT_NAME/PATH_NOT_FOUND */
    case 0xC0000022UL: case 0xC0000043UL: return EACCES;       /* STATUS_ACCESS_DENIED, SHARING_VIOLATION */
    case 0xC00000D4UL: return EXDEV;                           /* STATUS_NOT_SAME_DEVICE */
    case 0xC0000033UL: return EINVAL;                          /* STATUS_OBJECT_NAME_INVALID */
    default: return EIO;
    }
}

/* Everything of a commit but the release of f: its handle stays open. */
static int commit_named(dmls_atomic_file *f, uint64_t length, int replace) {
    HANDLE h = (HANDLE)f->handle;
    int err = 0;
    if (f->data) {
        if (!FlushViewOfFile(f->data, 0)) err = errno_of(GetLastError());
        UnmapViewOfFile(f->data);
        f->data = NULL;
    }
    if (!err && (!set_length(h, length) || !FlushFileBuffers(h))) err = errno_of(GetLastError());
    if (err) return err;
    /* The deletion mark comes off just before the rename and goes back on
     * if it fails; between the two, an end of the process would leave the
     * hidden file. */
    if (!delete_on_close(h, FALSE)) return errno_of(GetLastError());
    err = rename_handle(h, (HANDLE)f->folder, f->final_name, replace);
    if (err) {
        delete_on_close(h, TRUE);
        return err;
    }
    free(f->tmp_name);
    f->tmp_name = NULL;
    return 0;
}

int dmls_atomic_file_commit(dmls_atomic_file *f, uint64_t length, int replace) {
    const int err = commit_named(f, length, replace);
    if (!err) dmls_atomic_file_abort(f); /* closes the handle; the file stays, named */
    return err;
}

/* ".dmlslice-PID-K", K counting from 100 (the create's are below): a name
 * for the replaced file while an undoable commit lasts; malloc'd. */
static char *spare_name(void) {
    static unsigned next = 100;
    char *name = malloc(64);
    if (name) snprintf(name, 64, ".dmlslice-%lu-%u", GetCurrentProcessId(), next++);
    return name;
}

/* The replaced file's second name (its full path), or NULL where none can
 * be made (then an undo leaves the name empty). Win32 makes a hard link by
 * path only: the folder's path, which cannot change while it is held. */
static char *keep_replaced(const dmls_atomic_file *f) {
    wchar_t *w = wide(f->final_path);
    const DWORD attr = w ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;
    char *name = attr != INVALID_FILE_ATTRIBUTES && !(attr & FILE_ATTRIBUTE_DIRECTORY) ? spare_name() : NULL;
    const size_t dir_len = (size_t)(f->final_name - f->final_path);
    char *backup = name ? malloc(dir_len + strlen(name) + 1) : NULL;
    if (backup) snprintf(backup, dir_len + strlen(name) + 1, "%.*s%s", (int)dir_len, f->final_path, name);
    free(name);
    wchar_t *wb = backup ? wide(backup) : NULL;
    if (wb == NULL || !CreateHardLinkW(wb, w, NULL)) {
        free(backup);
        backup = NULL;
    }
    free(wb);
    free(w);
    return backup;
}

int dmls_atomic_file_commit_undoable(dmls_atomic_file *f, uint64_t length, int replace) {
    char *backup = replace ? keep_replaced(f) : NULL;
    const int err = commit_named(f, length, replace);
    wchar_t *wb = backup ? wide(backup) : NULL;
    if (err && wb) DeleteFileW(wb);
    free(wb);
    if (err) {
        free(backup);
        return err;
    }
    /* The handle stays open: an undo renames this very file away through it. */
    f->undo = backup ? (void *)backup : (void *)f; /* f: an undo with no replaced file */
    return 0;
}

/* The replaced file's copy, when there is one. */
static char *backup_of(const dmls_atomic_file *f) { return f->undo != (const void *)f ? f->undo : NULL; }

void dmls_atomic_file_undo(dmls_atomic_file *f) {
    if (f->undo == NULL) return;
    char *backup = backup_of(f);
    /* Moved through its own handle to a hidden name and deleted when the
     * handle closes: only this file, whatever holds its old name now. */
    char *away = spare_name();
    if (away && rename_handle((HANDLE)f->handle, (HANDLE)f->folder, away, 0) == 0)
        delete_on_close((HANDLE)f->handle, TRUE);
    free(away);
    if (backup) {
        wchar_t *wb = wide(backup), *wf = wide(f->final_path);
        if (wb && wf && !MoveFileExW(wb, wf, 0)) DeleteFileW(wb); /* the name is another's now */
        free(wb);
        free(wf);
        free(backup);
    }
    f->undo = NULL;
    dmls_atomic_file_abort(f);
}

void dmls_atomic_file_settle(dmls_atomic_file *f) {
    char *backup = backup_of(f);
    if (backup) {
        wchar_t *wb = wide(backup);
        if (wb) DeleteFileW(wb);
        free(wb);
        free(backup);
    }
    f->undo = NULL;
    dmls_atomic_file_abort(f);
}

static int held(intptr_t h) { return (HANDLE)h != INVALID_HANDLE_VALUE && h != 0; }

void dmls_atomic_file_abort(dmls_atomic_file *f) {
    if (f->undo) {
        dmls_atomic_file_settle(f); /* an undoable commit left as it is: kept */
        return;
    }
    if (f->data) UnmapViewOfFile(f->data);
    /* Closing the handle deletes a file still marked for deletion. */
    if (held(f->handle)) CloseHandle((HANDLE)f->handle);
    if (held(f->folder)) CloseHandle((HANDLE)f->folder);
    free(f->tmp_name);
    free(f->final_path);
    const char *failed = f->failed;
    memset(f, 0, sizeof *f);
    f->handle = f->folder = (intptr_t)INVALID_HANDLE_VALUE;
    f->guard = -1;
    f->failed = failed;
}

/* Windows has no ".." to open from a handle: the held folder's path now
 * (its final path, links resolved), then the identity of each folder above
 * it, up to the volume's root. The held folder cannot move meanwhile. */
int dmls_atomic_file_beneath(const dmls_atomic_file *f, const dmls_file_info *folder) {
    if (!held(f->folder) || folder->kind != DMLS_FILE_FOLDER) return 0;
    const DWORD cap = 32768;
    wchar_t *w = malloc(cap * sizeof *w);
    DWORD n = w ? GetFinalPathNameByHandleW((HANDLE)f->folder, w, cap, FILE_NAME_NORMALIZED) : 0;
    int found = 0;
    while (n > 0 && n < cap && !found) {
        w[n] = L'\0';
        HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                               FILE_FLAG_BACKUP_SEMANTICS, NULL);
        if (h == INVALID_HANDLE_VALUE) break;
        dmls_file_info here;
        memset(&here, 0, sizeof here);
        info_of_handle(h, &here);
        CloseHandle(h);
        found = dmls_same_file(&here, folder);
        /* Up one: drop the last name; a root (\\?\C:\) keeps its separator. */
        while (n > 0 && w[n - 1] == L'\\') n--;
        while (n > 0 && w[n - 1] != L'\\') n--;
        if (n >= 2 && w[n - 2] == L'?') n = 0; /* past the root: \\?\ is left */
    }
    free(w);
    return found;
}

void dmls_ignore_broken_pipe(void) { /* Windows has no SIGPIPE: a write to a closed pipe fails with EPIPE */ }

int dmls_open_regular(const char *path, FILE **f, dmls_file_info *info) {
    *f = NULL;
    int e = dmls_path_info(path, 0, info);
    if (e != 0) return e;
    if (info->kind == DMLS_FILE_MISSING) return ENOENT;
    if (info->kind != DMLS_FILE_REGULAR) return EINVAL;
    FILE *opened = dmls_fopen(path, "rb");
    if (opened == NULL) return errno ? errno : EACCES;
    /* The file opened must be the one examined: not a link put in its place. */
    dmls_file_info now;
    memset(&now, 0, sizeof now);
    info_of_handle((HANDLE)_get_osfhandle(_fileno(opened)), &now);
    if (now.kind != DMLS_FILE_REGULAR || !dmls_same_file(&now, info)) {
        fclose(opened);
        info->kind = now.kind;
        return now.kind == DMLS_FILE_REGULAR ? EAGAIN : EINVAL;
    }
    *info = now;
    *f = opened;
    return 0;
}
