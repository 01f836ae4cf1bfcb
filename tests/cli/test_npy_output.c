/* npy_output_check (tools/npy_output.c), called directly: the output
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "npy_output.h"
#include "test.h"

static int fail_next_malloc, fail_next_calloc;

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

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_npy_output SCRATCH_FOLDER\n");
        return 2;
    }
    mkdir(argv[1], 0755);
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
    TEST_MAIN_END();
}
