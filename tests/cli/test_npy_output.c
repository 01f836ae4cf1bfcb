/* npy_output_check (tools/npy/npy_output.c), called directly: the output
 * checks the tool makes before any work, at the edges the end-to-end tests
 * do not reach: an output in the root folder, a one-character name, an
 * input named through a symbolic link to the output, a folder named through
 * one, a name too long to look up, an existing file and a block device, no
 * memory for the folder's name (malloc and calloc are this file's, through
 * the linker's --wrap); and npy_create: to standard output that is a
 * terminal or cannot have its buffer, over what it must not replace or
 * cannot open, and the room it makes for the data. */
#define _XOPEN_SOURCE 700 /* symlink, mknod, posix_openpt */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "npy_output.h"
#include "support/test.h"

static int fail_next_malloc, fail_next_calloc, fail_next_mmap, fail_next_fchmod, fake_fault;

void *__real_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off);
void *__wrap_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off);
int __real_fchmod(int fd, mode_t mode);
int __wrap_fchmod(int fd, mode_t mode);
int __real_dmls_atomic_file_faulted(const dmls_atomic_file *f);
int __wrap_dmls_atomic_file_faulted(const dmls_atomic_file *f);
void *__wrap_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off) {
    if (fail_next_mmap) {
        fail_next_mmap = 0;
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return __real_mmap(addr, n, prot, flags, fd, off);
}
int __wrap_fchmod(int fd, mode_t mode) {
    if (fail_next_fchmod) {
        fail_next_fchmod = 0;
        errno = EPERM;
        return -1;
    }
    return __real_fchmod(fd, mode);
}
/* A write through the mapping that failed (SIGBUS on a full disk): the
 * platform layer's flag, faked. */
int __wrap_dmls_atomic_file_faulted(const dmls_atomic_file *f) { return fake_fault || __real_dmls_atomic_file_faulted(f); }

void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_malloc(size_t n) {
    if (fail_next_malloc) {
        fail_next_malloc = 0;
        errno = ENOMEM;
        return NULL;
    }
    return __real_malloc(n);
}
void *__wrap_calloc(size_t k, size_t n) {
    if (fail_next_calloc) {
        fail_next_calloc = 0;
        errno = ENOMEM;
        return NULL;
    }
    return __real_calloc(k, n);
}

static char err[NPY_ERR_LEN];

/* A success leaves err as it was. */
static void accepts(const char *out, const char *in, bool force, const char *what) {
    err[0] = '\0';
    CHECK(npy_output_check(out, in, force, err) && err[0] == '\0', "%s: refused: %s", what, err);
}

static void refuses(const char *out, const char *in, bool force, const char *want, const char *what) {
    err[0] = '\0';
    CHECK(!npy_output_check(out, in, force, err) && strcmp(err, want) == 0, "%s: \"%s\", not \"%s\"", what, err,
          want);
}

static void touch(const char *path) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL && fputs("not even .npy", f) >= 0 && fclose(f) == 0, "writing %s", path);
}

/* npy_create to standard output: a terminal is refused, and so is an
 * output whose buffer cannot be had. */
static void test_stdout(void) {
    const int64_t shape[1] = {4};
    npy_output out;
    fflush(stdout);
    const int saved = dup(1);
    const int master = posix_openpt(O_RDWR | O_NOCTTY);
    const char *slave = master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0 ? ptsname(master) : NULL;
    const int tty = slave ? open(slave, O_RDWR | O_NOCTTY) : -1;
    if (tty >= 0 && dup2(tty, 1) == 1) {
        err[0] = '\0';
        CHECK(!npy_create("-", false, "<f4", 1, shape, 4, &out, err) &&
                  strcmp(err, "<stdout>: refusing to write binary .npy data to a terminal") == 0,
              "standard output a terminal: \"%s\"", err);
        npy_abort(&out);
    } else {
        printf("note: no pseudo-terminal here (%s); the terminal case is not run\n", strerror(errno));
    }
    const int null = open("/dev/null", O_WRONLY);
    CHECK(null >= 0 && dup2(null, 1) == 1, "standard output to /dev/null");
    fail_next_calloc = 1;
    err[0] = '\0';
    CHECK(!npy_create("-", false, "<f4", 1, shape, 4, &out, err) &&
              strncmp(err, "<stdout>: out of memory for ", 28) == 0,
          "no memory for standard output's buffer: \"%s\"", err);
    npy_abort(&out);
    err[0] = '\0';
    CHECK(npy_create("-", false, "<f4", 1, shape, 4, &out, err), "standard output: %s", err);
    npy_abort(&out);
    dup2(saved, 1);
    close(saved);
    if (null >= 0) close(null);
    if (tty >= 0) close(tty);
    if (master >= 0) close(master);
}

static void create_fails(const char *path, bool force, const char *want, const char *what) {
    const int64_t shape[1] = {4};
    npy_output out;
    err[0] = '\0';
    const bool ok = npy_create(path, force, "<f4", 1, shape, 4, &out, err);
    CHECK(!ok && strcmp(err, want) == 0, "%s: \"%s\", not \"%s\"", what, err, want);
    npy_abort(&out);
}

/* npy_create by name: what cannot be replaced or opened, no memory for the
 * name, and room for the data however long (the copy writes capacity
 * bytes: whole NPY_PAD units, never fewer than the data). */
static void test_create(void) {
    char want[NPY_ERR_LEN];
    mkdir("folder.npy", 0755);
    create_fails("folder.npy", true, "folder.npy: not a regular file; refusing to replace it", "a folder");
    rmdir("folder.npy");
    unlink("blk");
    if (mknod("blk", S_IFBLK | 0600, makedev(7, 0)) == 0) {
        create_fails("blk", true, "blk: not a regular file; refusing to replace it", "a block device");
        unlink("blk");
    }
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, "sock.npy", 9);
    unlink("sock.npy");
    const int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(sock >= 0 && bind(sock, (const struct sockaddr *)&sa, sizeof sa) == 0, "socket: %s", strerror(errno));
    snprintf(want, sizeof want, "sock.npy: cannot open for writing: %s", strerror(ECONNREFUSED));
    create_fails("sock.npy", false, want, "a socket nothing listens on");
    close(sock);
    unlink("sock.npy");
    touch("old.npy");
    create_fails("old.npy", false, "old.npy: already exists; not overwritten (use -f to replace it)",
                 "an existing file without -f");
    unlink("old.npy");
    snprintf(want, sizeof want, "none/new.npy: cannot create a file in 'none': %s", strerror(ENOENT));
    create_fails("none/new.npy", false, want, "a folder that does not exist");
    {
        /* 2^63 - 1 bytes round up to 2^63 of room: past any file offset,
         * refused before anything is made */
        const int64_t huge = INT64_MAX;
        npy_output out;
        err[0] = '\0';
        CHECK(!npy_create("huge.npy", false, "|u1", 1, &huge, 1, &out, err) &&
                  strstr(err, "huge.npy: 9223372036854775") == err && strstr(err, " bytes do not fit a file offset here"),
              "2^63 - 1 bytes: \"%s\"", err);
        npy_abort(&out);
        CHECK(access("huge.npy", F_OK) != 0, "2^63 - 1 bytes: a file was left");
    }
    snprintf(want, sizeof want, "new.npy: cannot resolve: %s", strerror(ENOMEM));
    fail_next_malloc = 1;
    create_fails("new.npy", false, want, "no memory for the name");

    const int null = open("/dev/null", O_WRONLY);
    const int saved = dup(1);
    fflush(stdout);
    CHECK(null >= 0 && dup2(null, 1) == 1, "standard output to /dev/null");
    for (int64_t n = 0; n <= 3 * NPY_PAD; n++) {
        for (int k = 0; k < 2; k++) {
            const char *path = k ? "-" : "sized.npy";
            npy_output out;
            err[0] = '\0';
            const bool ok = npy_create(path, false, "|u1", 1, &n, 1, &out, err);
            CHECK(ok && out.data_bytes == (uint64_t)n && out.capacity % NPY_PAD == 0 &&
                      out.capacity >= out.data_bytes && out.capacity < out.data_bytes + NPY_PAD,
                  "%s of %d bytes: capacity %llu (%s)", path, (int)n, (unsigned long long)out.capacity, err);
            npy_abort(&out);
        }
    }
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    if (null >= 0) close(null);
}

/* The lowest free file descriptor: it moves when one leaks, or when
 * standard input is closed. */
static int lowest_free_fd(void) {
    const int fd = dup(2);
    close(fd);
    return fd;
}

/* Nothing in the current folder but in.npy (no temporary file left). */
static bool folder_clean(void) {
    DIR *d = opendir(".");
    if (d == NULL) return false;
    bool clean = true;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && strcmp(e->d_name, "in.npy") != 0) {
            printf("left: %s\n", e->d_name);
            clean = false;
        }
    closedir(d);
    return clean;
}

static bool start(const char *path, bool force, npy_output *out) {
    const int64_t shape[1] = {4};
    err[0] = '\0';
    const bool ok = npy_create(path, force, "<f4", 1, shape, 4, out, err);
    CHECK(ok, "creating %s: %s", path, err);
    return ok;
}

/* Creating, committing and dropping by name, unnamed (O_TMPFILE) and named
 * (DMLSLICE_IO_FALLBACK=named): each failure is named, nothing is left
 * behind, no descriptor leaks, and a name taken meanwhile is not replaced. */
static void test_commit(const char *how) {
    npy_output out;
    memset(&out, 0, sizeof out);
    char want[NPY_ERR_LEN];
    const int fd = lowest_free_fd();

    fail_next_fchmod = 1;
    snprintf(want, sizeof want, "x.npy: cannot set the new file's permissions: %s", strerror(EPERM));
    create_fails("x.npy", false, want, how);
    fail_next_mmap = 1;
    snprintf(want, sizeof want, "x.npy: cannot map 144 bytes: %s", strerror(ENOMEM));
    create_fails("x.npy", false, want, how);
    npy_abort(&out); /* a zeroed output: nothing to drop */
    CHECK(folder_clean() && lowest_free_fd() == fd, "%s: failed creations left something (lowest free fd %d, was %d)",
          how, lowest_free_fd(), fd);

    if (start("x.npy", false, &out)) npy_abort(&out);
    CHECK(folder_clean() && lowest_free_fd() == fd, "%s: a dropped output left something (lowest free fd %d, was %d)",
          how, lowest_free_fd(), fd);
    if (start("/dev/null", false, &out)) npy_abort(&out); /* a device opened by name */
    CHECK(lowest_free_fd() == fd, "%s: a dropped device output leaves a descriptor (lowest free %d, was %d)", how,
          lowest_free_fd(), fd);

    if (start("x.npy", false, &out)) {
        fake_fault = 1;
        CHECK(!npy_commit(&out, err) &&
                  strcmp(err, "x.npy: the file system could not store the data (a write through the mapping "
                              "failed)") == 0,
              "%s: a faulted write: \"%s\"", how, err);
        fake_fault = 0;
        npy_abort(&out);
    }
    if (start("x.npy", false, &out)) {
        touch("x.npy"); /* taken meanwhile */
        CHECK(!npy_commit(&out, err) && strcmp(err, "x.npy: already exists; not overwritten (use -f to replace it)") == 0,
              "%s: a name taken meanwhile: \"%s\"", how, err);
        npy_abort(&out);
        struct stat st;
        CHECK(stat("x.npy", &st) == 0 && st.st_size == 13, "%s: the file that took the name was changed", how);
        unlink("x.npy");
    }
    /* The folder is held from the create on: moved away, and a link to
     * another folder put under its name, the file still lands in it. */
    mkdir("dir", 0755);
    mkdir("other", 0755);
    if (start("dir/x.npy", false, &out)) {
        CHECK(rename("dir", "moved") == 0 && symlink("other", "dir") == 0, "rename, symlink: %s", strerror(errno));
        CHECK(npy_commit(&out, err), "%s: the folder moved away: \"%s\"", how, err);
        npy_abort(&out);
        CHECK(access("moved/x.npy", F_OK) == 0 && access("other/x.npy", F_OK) != 0,
              "%s: the file did not land in the folder it was made in", how);
        unlink("moved/x.npy");
        unlink("other/x.npy");
        unlink("dir");
        CHECK(rmdir("moved") == 0, "rmdir moved: %s", strerror(errno));
    }
    rmdir("other");
    rmdir("dir");
    if (start("x.npy", false, &out)) {
        CHECK(npy_commit(&out, err) && access("x.npy", F_OK) == 0, "%s: committing: %s", how, err);
        npy_abort(&out);
        unlink("x.npy");
    }
    CHECK(folder_clean() && lowest_free_fd() == fd, "%s: something was left (lowest free fd %d, was %d)", how,
          lowest_free_fd(), fd);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_npy_output SCRATCH_FOLDER\n");
        return 2;
    }
    mkdir(argv[1], 0755);
    const int null = open("/dev/null", O_RDONLY); /* standard input open, whatever ran the test */
    if (null > 0) {
        dup2(null, 0);
        close(null);
    }
    CHECK(chdir(argv[1]) == 0, "chdir %s: %s", argv[1], strerror(errno));
    touch("in.npy");

    /* A new file in the root folder: its folder is "/", not "". */
    const char *root_out = "/dmlslice-test-npy-output-never-written.npy";
    if (access(root_out, F_OK) != 0)
        accepts(root_out, "in.npy", false, "a new file in /");
    else
        printf("note: %s exists; the root-folder case is not run\n", root_out);

    /* One character is a file name, not a folder. */
    unlink("x");
    accepts("x", "in.npy", false, "a one-character name");
    refuses("", "in.npy", false, ": names a folder; give the output a file name", "an empty name");

    /* The input named through a link to the output is still the input. */
    unlink("link.npy");
    CHECK(symlink("in.npy", "link.npy") == 0, "symlink: %s", strerror(errno));
    refuses("in.npy", "link.npy", true, "in.npy: the output is the input file; refusing to overwrite it",
            "the input through a link");
    unlink("link.npy");

    /* No memory for the folder's name, with and without a folder part. */
    char want[NPY_ERR_LEN];
    snprintf(want, sizeof want, "new.npy: cannot write: the folder '?' %s", strerror(ENOMEM));
    fail_next_malloc = 1;
    refuses("new.npy", "in.npy", false, want, "no memory for '.'");
    mkdir("sub", 0755);
    snprintf(want, sizeof want, "sub/new.npy: cannot write: the folder '?' %s", strerror(ENOMEM));
    fail_next_malloc = 1;
    refuses("sub/new.npy", "in.npy", false, want, "no memory for 'sub'");
    accepts("sub/new.npy", "in.npy", false, "a new file in sub");
    /* A folder named through a link is a folder. */
    unlink("sub-link");
    CHECK(symlink("sub", "sub-link") == 0, "symlink: %s", strerror(errno));
    accepts("sub-link/new.npy", "in.npy", false, "a new file in a linked folder");
    unlink("sub-link");
    rmdir("sub");

    /* An existing file only with force; a block device never. */
    touch("old.npy");
    refuses("old.npy", "in.npy", false, "old.npy: already exists; not overwritten (use -f to replace it)",
            "an existing file without -f");
    accepts("old.npy", "in.npy", true, "an existing file with -f");
    unlink("old.npy");
    unlink("blk");
    if (mknod("blk", S_IFBLK | 0600, makedev(7, 0)) == 0) {
        refuses("blk", "in.npy", true, "blk: is a block device or other special file; refusing to write over it",
                "a block device");
        unlink("blk");
    } else {
        printf("note: mknod of a block device: %s; that case is not run\n", strerror(errno));
    }

    /* A name the system cannot look up is refused with its reason. */
    char longname[300];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    snprintf(want, sizeof want, "%s: cannot write: %s", longname, strerror(ENAMETOOLONG));
    refuses(longname, "in.npy", false, want, "a 299-byte name");
    unlink("in.npy");
    test_stdout();
    test_create();
    touch("in.npy");
    test_commit("unnamed");
    setenv("DMLSLICE_IO_FALLBACK", "named", 1);
    test_commit("named");
    unsetenv("DMLSLICE_IO_FALLBACK");
    unlink("in.npy");
    /* Dropping an output never closes what it did not open. */
    CHECK(fcntl(0, F_GETFD) != -1, "standard input was closed");
    TEST_MAIN_END();
}
