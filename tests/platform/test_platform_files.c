/* The platform layer's files (platform.h), on whatever system runs the
 * test (Linux natively, Windows under Wine): a new file appears under its
 * name only when committed, a taken name is refused without -f's replace
 * and replaced atomically with it, a failure or an abort leaves nothing
 * behind and the old file untouched, UTF-8 and long names work, a
 * mapped file is followed by readable zero padding, and paths split into
 * folder and name as the system splits them.
 *
 *   test_platform_files DIR          the checks, in the empty folder DIR
 *   test_platform_files die DIR      starts a new file in DIR, then ends
 *                                    the process by SIGTERM's default action
 *   test_platform_files empty DIR    DIR holds no file that die left
 */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* symlink */
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#if defined(_WIN32)
#include <direct.h>
#define make_folder(p) _mkdir(p)
#else
#include <sys/stat.h>
#include <unistd.h>
#define make_folder(p) mkdir(p, 0777)
#endif

#include "files.h"
#include "platform/platform.h"
#include "support/test.h"

static char dir[512];

static void path_in(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", dir, name); }

static void write_file(const char *path, const char *text) {
    FILE *f = dmls_fopen(path, "wb");
    CHECK(f != NULL, "cannot create %s", path);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* The whole file as a string (at most cap - 1 bytes); "" when absent. */
static const char *read_file(const char *path, char *buf, size_t cap) {
    buf[0] = '\0';
    FILE *f = dmls_fopen(path, "rb");
    if (!f) return buf;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static dmls_file_kind kind_of(const char *path) {
    dmls_file_info info;
    CHECK(dmls_path_info(path, 1, &info) == 0, "path_info(%s)", path);
    return info.kind;
}

/* A new file of bytes reserved, text written at its start, committed at
 * strlen(text) bytes. Returns commit's answer; *tmp gets the temporary
 * name, if the system gave the file one, for the nothing-left checks. */
static int make(const char *path, const char *text, uint64_t bytes, int replace, char *tmp, size_t tmp_cap) {
    dmls_atomic_file f;
    tmp[0] = '\0';
    int err = dmls_atomic_file_create(&f, path, bytes, 0644);
    CHECK(err == 0, "create %s: %s", path, dmls_error_text(err));
    if (err) return err;
    if (f.tmp_name) snprintf(tmp, tmp_cap, "%s/%s", dir, f.tmp_name);
    CHECK(f.bytes == bytes && (bytes == 0 || f.data != NULL), "create %s: %llu bytes mapped", path,
          (unsigned long long)f.bytes);
    if (tmp[0]) CHECK(kind_of(tmp) == DMLS_FILE_REGULAR, "the temporary file %s is not there", tmp);
    if (f.data) memcpy(f.data, text, strlen(text));
    err = dmls_atomic_file_commit(&f, strlen(text), replace);
    dmls_atomic_file_abort(&f);
    return err;
}

static void test_new_files(void) {
    char path[1200], tmp[1400], buf[256];
    path_in(path, sizeof path, "a.npy");
    /* A new name: created with exactly its bytes, no temporary file left. */
    CHECK(make(path, "first", 1 << 20, 0, tmp, sizeof tmp) == 0, "commit to a new name");
    CHECK(strcmp(read_file(path, buf, sizeof buf), "first") == 0, "content: '%s'", buf);
    dmls_file_info info;
    CHECK(dmls_path_info(path, 1, &info) == 0 && info.kind == DMLS_FILE_REGULAR && info.size == 5,
          "a.npy is %d bytes", (int)info.size);
    if (tmp[0]) CHECK(kind_of(tmp) == DMLS_FILE_MISSING, "%s left behind", tmp);

    /* A taken name without replace: EEXIST, the old file untouched. */
    CHECK(make(path, "second", 64, 0, tmp, sizeof tmp) == EEXIST, "a taken name was not refused");
    CHECK(strcmp(read_file(path, buf, sizeof buf), "first") == 0, "refused commit changed the file: '%s'", buf);
    if (tmp[0]) CHECK(kind_of(tmp) == DMLS_FILE_MISSING, "%s left behind after a refused commit", tmp);

    /* With replace: the new content, atomically, under the same name. */
    dmls_file_info before;
    dmls_path_info(path, 1, &before);
    CHECK(make(path, "third!", 64, 1, tmp, sizeof tmp) == 0, "replace");
    CHECK(strcmp(read_file(path, buf, sizeof buf), "third!") == 0, "replaced content: '%s'", buf);
    dmls_path_info(path, 1, &info);
    CHECK(!dmls_same_file(&before, &info), "replace wrote into the old file instead of replacing it");
    if (tmp[0]) CHECK(kind_of(tmp) == DMLS_FILE_MISSING, "%s left behind after a replace", tmp);

    /* An abort: nothing under the name, nothing left, the old file kept. */
    dmls_atomic_file f;
    CHECK(dmls_atomic_file_create(&f, path, 4096, -1) == 0, "create over an existing name");
    if (f.tmp_name) snprintf(tmp, sizeof tmp, "%s/%s", dir, f.tmp_name);
    else tmp[0] = '\0';
    if (f.data) memcpy(f.data, "junk", 4);
    dmls_atomic_file_abort(&f);
    CHECK(strcmp(read_file(path, buf, sizeof buf), "third!") == 0, "abort changed the file: '%s'", buf);
    if (tmp[0]) CHECK(kind_of(tmp) == DMLS_FILE_MISSING, "%s left behind after an abort", tmp);

    /* More than any disk holds: the reservation fails, with nothing left
     * and the old file untouched. */
    const int err = dmls_atomic_file_create(&f, path, (uint64_t)1 << 60, -1);
    CHECK(err != 0, "reserving 2^60 bytes succeeded");
    CHECK(err == ENOSPC || err == EFBIG || err == EINVAL || err == ENOMEM, "reserving 2^60 bytes: %s",
          dmls_error_text(err));
    dmls_atomic_file_abort(&f);
    CHECK(strcmp(read_file(path, buf, sizeof buf), "third!") == 0, "a failed reservation changed the file");

    /* A name outside ASCII (UTF-8 through the wide-character API on
     * Windows), and one of 200 bytes. */
    char name[256];
    path_in(path, sizeof path, "caf\xc3\xa9-\xe6\x95\xb0\xe6\x8d\xae.npy");
    CHECK(make(path, "utf8", 16, 0, tmp, sizeof tmp) == 0, "a UTF-8 name");
    CHECK(strcmp(read_file(path, buf, sizeof buf), "utf8") == 0, "UTF-8 name's content: '%s'", buf);
    memset(name, 'n', 196);
    memcpy(name + 196, ".npy", 5);
    path_in(path, sizeof path, name);
    CHECK(make(path, "long", 16, 0, tmp, sizeof tmp) == 0, "a 200-byte name");
    CHECK(kind_of(path) == DMLS_FILE_REGULAR, "the 200-byte name is missing");

    /* A folder that does not exist: an error, nothing made. */
    path_in(path, sizeof path, "no-such-folder/x.npy");
    CHECK(dmls_atomic_file_create(&f, path, 16, -1) == ENOENT, "a missing folder is not ENOENT");
    dmls_atomic_file_abort(&f);
}


/* An atomic file's folder is resolved once, at its create (item 1 of the
 * write race, issue 35): the folder renamed away and another put under its
 * name (on POSIX a symbolic link to a folder elsewhere, the swap of the
 * race; on Windows a plain folder, the held folder refusing the rename)
 * before the commit, the file lands in the folder it was made in, never in
 * what the name leads to now. Checked for a new name, a replace and an
 * undone commit. */
static void test_folder_held(void) {
    char held[1200], moved[1200], other[1200], path[1300], buf[256];
    path_in(held, sizeof held, "held");
    path_in(moved, sizeof moved, "held-moved");
    path_in(other, sizeof other, "elsewhere");
    CHECK(make_folder(held) == 0 && make_folder(other) == 0, "cannot make the folders");
    snprintf(path, sizeof path, "%s/b.bin", held);
    write_file(path, "old");
    snprintf(path, sizeof path, "%s/b.bin", other);
    write_file(path, "theirs");
    const char *names[] = {"a.bin", "b.bin", "c.bin"};
    dmls_atomic_file f[3];
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", held, names[k]);
        const int err = dmls_atomic_file_create(&f[k], path, 64, 0644);
        CHECK(err == 0, "create %s: %s", path, dmls_error_text(err));
        if (err) return;
        memcpy(f[k].data, "ours", 4);
    }
    CHECK(dmls_atomic_file_commit_undoable(&f[2], 4, 0) == 0, "the undoable commit of c.bin");
    const bool renamed = rename(held, moved) == 0;
#if defined(_WIN32)
    if (!renamed) snprintf(moved, sizeof moved, "%s", held); /* held without sharing its deletion: kept */
    const bool swapped = renamed && make_folder(held) == 0;
#else
    CHECK(renamed, "rename %s: %s", held, strerror(errno));
    const bool swapped = renamed && symlink("elsewhere", held) == 0;
    CHECK(swapped, "symlink %s: %s", held, strerror(errno));
#endif
    dmls_file_info in_moved, in_other, in_dir;
    CHECK(dmls_path_info(moved, 1, &in_moved) == 0 && dmls_path_info(other, 1, &in_other) == 0 &&
              dmls_path_info(dir, 1, &in_dir) == 0, "path_info of the folders");
    CHECK(dmls_atomic_file_beneath(&f[0], &in_moved) && dmls_atomic_file_beneath(&f[0], &in_dir),
          "the held folder is not found where it was moved");
    CHECK(!dmls_atomic_file_beneath(&f[0], &in_other), "the held folder is taken for the swapped-in one");
    CHECK(dmls_atomic_file_commit(&f[0], 4, 0) == 0, "commit a.bin after the swap");
    CHECK(dmls_atomic_file_commit(&f[1], 4, 1) == 0, "commit b.bin (a replace) after the swap");
    dmls_atomic_file_abort(&f[0]);
    dmls_atomic_file_abort(&f[1]);
    if (swapped) { /* the undo finds a c.bin of another's under the name now */
        snprintf(path, sizeof path, "%s/c.bin", other);
        write_file(path, "theirs");
    }
    dmls_atomic_file_undo(&f[2]);
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", moved, names[k]);
        CHECK(strcmp(read_file(path, buf, sizeof buf), k < 2 ? "ours" : "") == 0,
              "%s holds '%s' (a.bin, b.bin: ours; c.bin undone)", path, buf);
        snprintf(path, sizeof path, "%s/%s", other, names[k]);
        CHECK(strcmp(read_file(path, buf, sizeof buf), k == 1 || (k == 2 && swapped) ? "theirs" : "") == 0,
              "the swapped-in folder's %s holds '%s'", names[k], buf);
    }
}

static void test_info(void) {
    char a[1200], b[1200];
    path_in(a, sizeof a, "same.bin");
    write_file(a, "x");
    snprintf(b, sizeof b, "%s/./same.bin", dir);
    dmls_file_info ia, ib, id;
    CHECK(dmls_path_info(a, 1, &ia) == 0 && dmls_path_info(b, 1, &ib) == 0, "path_info");
    CHECK(dmls_same_file(&ia, &ib), "two routes to one file are not the same file");
    CHECK(dmls_path_info(dir, 1, &id) == 0 && id.kind == DMLS_FILE_FOLDER, "the folder is kind %d", (int)id.kind);
    CHECK(!dmls_same_file(&ia, &id), "a file and its folder are the same file");
    path_in(b, sizeof b, "missing.bin");
    CHECK(dmls_path_info(b, 1, &ib) == 0 && ib.kind == DMLS_FILE_MISSING, "a missing file is kind %d", (int)ib.kind);
    CHECK(!dmls_same_file(&ib, &ib), "two missing files are the same file");
}

/* Files of lengths around a page: each maps with its bytes, then zeros. */
static void test_map(void) {
    const size_t page = dmls_page_size();
    const size_t sizes[] = {1, 100, page - 8, page - 3, page, page + 1, 3 * page};
    char path[1200];
    path_in(path, sizeof path, "mapped.bin");
    unsigned char *want = malloc(3 * page + 1);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const size_t n = sizes[k];
        for (size_t i = 0; i < n; i++) want[i] = (unsigned char)(i * 7 + k + 1);
        FILE *f = dmls_fopen(path, "wb");
        CHECK(f != NULL && fwrite(want, 1, n, f) == n, "write %zu bytes", n);
        if (f) fclose(f);
        dmls_mapped_file m;
        const int err = dmls_file_map(path, 8, &m);
        CHECK(err == 0, "map %zu bytes: %s", n, dmls_error_text(err));
        if (err) continue;
        CHECK(m.size == n && memcmp(m.data, want, n) == 0, "mapped %zu bytes differ", n);
        bool zeros = true;
        for (size_t i = 0; i < 8; i++) zeros &= m.data[n + i] == 0;
        CHECK(zeros, "the padding after %zu bytes is not zero", n);
        uint64_t now = 0;
        CHECK(dmls_file_map_intact(&m, &now) && now == n, "%zu bytes untouched: not intact (%llu)", n,
              (unsigned long long)now);
        /* Another writer extends the mapped file: no longer intact. */
        f = dmls_fopen(path, "ab");
        CHECK(f != NULL && fwrite("x", 1, 1, f) == 1, "append to %zu bytes", n);
        if (f) fclose(f);
        CHECK(!dmls_file_map_intact(&m, &now) && now == n + 1, "%zu bytes grown by one: intact, or length %llu", n,
              (unsigned long long)now);
        dmls_file_unmap(&m);
    }
    free(want);
    dmls_mapped_file m;
    CHECK(dmls_file_map(dir, 8, &m) != 0, "a folder was mapped");
    path_in(path, sizeof path, "missing.bin");
    CHECK(dmls_file_map(path, 8, &m) == ENOENT, "a missing file is not ENOENT");
}

/* Paths' folder parts and which paths another folder may go in front of:
 * the tool finds a model's files beside it with these. */
static void test_path_parts(void) {
    static const struct {
        const char *path;
        size_t folder;
        int relative;
    } cases[] = {
        {"m.json", 0, 1}, {"a/m.json", 2, 1}, {"a/b/", 4, 1}, {"./m.json", 2, 1}, {"", 0, 1},
        {"/m.json", 1, 0}, {"/a/b/m.json", 5, 0},
#if defined(_WIN32)
        {"a\\m.json", 2, 1}, {"a/b\\m.json", 4, 1}, {"a\\b/m.json", 4, 1},
        {"C:\\m\\x.json", 5, 0}, {"C:/x.json", 3, 0}, {"C:x.json", 2, 0},
        {"\\x.json", 1, 0}, {"\\\\srv\\share\\x.json", 12, 0},
#else
        {"a\\m.json", 0, 1}, /* a backslash is a name's character */
        {"C:x.json", 0, 1},
#endif
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const size_t n = dmls_path_folder_len(cases[i].path);
        CHECK(n == cases[i].folder, "'%s': folder part of %zu characters, expected %zu", cases[i].path, n,
              cases[i].folder);
        const int rel = dmls_path_is_relative(cases[i].path) != 0;
        CHECK(rel == cases[i].relative, "'%s' %s relative", cases[i].path, rel ? "is" : "is not");
    }
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "die") == 0) {
        /* Dies with a new file uncommitted, having noted its temporary name
         * (if the system gave it one) for "empty". */
        snprintf(dir, sizeof dir, "%s", argv[2]);
        char path[1200], note[1200];
        path_in(path, sizeof path, "dead.npy");
        path_in(note, sizeof note, "tmpname.txt");
        dmls_atomic_file f;
        if (dmls_atomic_file_create(&f, path, 1 << 20, -1) != 0) return 2;
        char tmp[1400] = "";
        if (f.tmp_name) snprintf(tmp, sizeof tmp, "%s/%s", dir, f.tmp_name);
        write_file(note, tmp);
        fflush(NULL);
        raise(SIGTERM);
        return 3; /* not reached: SIGTERM's default action ends the process */
    }
    if (argc == 3 && strcmp(argv[1], "empty") == 0) {
        snprintf(dir, sizeof dir, "%s", argv[2]);
        char path[1200], note[1200], tmp[1400];
        path_in(note, sizeof note, "tmpname.txt");
        CHECK(kind_of(note) == DMLS_FILE_REGULAR, "%s missing: the die step did not run", note);
        read_file(note, tmp, sizeof tmp);
        if (tmp[0]) CHECK(kind_of(tmp) == DMLS_FILE_MISSING, "the dead process left %s behind", tmp);
        path_in(path, sizeof path, "dead.npy");
        CHECK(kind_of(path) == DMLS_FILE_MISSING, "the dead process's file appeared under its name");
        TEST_MAIN_END();
    }
    CHECK(argc == 2, "usage: test_platform_files DIR | die DIR | empty DIR");
    if (argc != 2) TEST_MAIN_END();
    snprintf(dir, sizeof dir, "%s", argv[1]);
    CHECK(kind_of(dir) == DMLS_FILE_FOLDER, "%s is not a folder", dir);
    test_new_files();
    test_folder_held();
    test_info();
    test_map();
    test_path_parts();
    TEST_MAIN_END();
}
