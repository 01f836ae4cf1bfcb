/* The .npy stream reader (tools/npy/npy_input.c) on scripted streams: the
 * linker's --wrap puts this file's fread, ferror and realloc under the
 * reader, so a stream can fail at any byte, an allocation can fail at any
 * step, and a stream of several GiB costs only the pages it touches.
 *
 * What the wrapped fread checks on every call: each byte lands at its own
 * offset in the reader's buffer and inside it, and no call asks for more
 * than INT_MAX bytes (Windows' C runtime reads at most that in one call,
 * which is why the reader cuts its reads). */
#define _POSIX_C_SOURCE 200809L /* symlink, dup2 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "npy_input.h"
#include "support/test.h"

/* The sanitizers' realloc copies the old block into a new one, touching
 * every page of a multi-GiB buffer: the giant-stream cases run in plain
 * builds only. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

/* The scripted stream: head[] (preamble and header), then data bytes whose
 * value is pat(offset); only the first MiB, the last 64 bytes and the marks
 * are written, so untouched pages of a giant buffer stay untouched. */
#define WRITTEN_HEAD (1u << 20)
static struct {
    unsigned char head[1 << 17];
    uint64_t head_len, total, pos, fail_at;
    uint64_t marks[4];
    bool error;
    long calls;
    size_t largest;
} S;

/* The reader's one buffer, as the last successful realloc left it. */
static struct {
    unsigned char *ptr;
    size_t size;
    int calls, fail_call;
} R;

static unsigned char pat(uint64_t o) { return (unsigned char)(o * 131u + 7u); }

static bool written(uint64_t o) {
    if (o < S.head_len + WRITTEN_HEAD || o + 64 >= S.total) return true;
    for (int k = 0; k < 4; k++)
        if (o == S.marks[k]) return true;
    return false;
}

void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);
size_t __wrap_fread(void *buf, size_t size, size_t n, FILE *f);
int __wrap_ferror(FILE *f);

void *__wrap_realloc(void *p, size_t n) {
    if (++R.calls == R.fail_call) return NULL;
    void *q = __real_realloc(p, n);
    if (q != NULL) {
        R.ptr = q;
        R.size = n;
    }
    return q;
}

int __wrap_ferror(FILE *f) {
    (void)f;
    return S.error;
}

static void put(unsigned char *b, uint64_t from, uint64_t to) {
    if (from < S.head_len) {
        const uint64_t e = to < S.head_len ? to : S.head_len;
        memcpy(b, S.head + from, (size_t)(e - from));
    }
    const uint64_t lo = from > S.head_len ? from : S.head_len;
    const uint64_t first_end = S.head_len + WRITTEN_HEAD < to ? S.head_len + WRITTEN_HEAD : to;
    for (uint64_t o = lo; o < first_end; o++) b[o - from] = pat(o);
    for (uint64_t o = (S.total > 64 ? S.total - 64 : 0); o < to; o++)
        if (o >= lo) b[o - from] = pat(o);
    for (int k = 0; k < 4; k++)
        if (S.marks[k] >= lo && S.marks[k] < to) b[S.marks[k] - from] = pat(S.marks[k]);
}

size_t __wrap_fread(void *buf, size_t size, size_t n, FILE *f) {
    (void)f;
    if (++S.calls > 100000) { /* a reader asking again and again (for 0 bytes, say) */
        fprintf(stderr, "test_npy_input: over 100000 reads of a %llu-byte stream; the reader loops\n",
                (unsigned long long)S.total);
        abort();
    }
    CHECK(size == 1, "fread of items of %zu bytes", size);
    CHECK(n > 0 && n <= INT_MAX, "a read asks for %zu bytes: at least 1 and at most INT_MAX", n);
    if (n > S.largest) S.largest = n;
    unsigned char *b = buf;
    const bool in_heap = R.ptr != NULL && b >= R.ptr && b < R.ptr + R.size;
    if (in_heap) {
        const size_t at = (size_t)(b - R.ptr);
        CHECK(at == S.pos, "stream byte %llu is read to buffer offset %zu", (unsigned long long)S.pos, at);
        CHECK(n <= R.size - at, "a read of %zu bytes at offset %zu overruns the %zu-byte buffer", n, at, R.size);
        if (n > R.size - at) n = R.size - at;
    } else {
        /* Outside the buffer only the one-byte probe for bytes past the data. */
        CHECK(n == 1 && S.pos >= S.head_len, "a read of %zu bytes outside the buffer at stream byte %llu", n,
              (unsigned long long)S.pos);
        if (n > 1) return 0;
    }
    uint64_t k = S.total - S.pos < n ? S.total - S.pos : n;
    if (S.fail_at < S.pos + n) { /* the stream fails at byte fail_at */
        if (S.fail_at - S.pos < k) k = S.fail_at - S.pos;
        S.error = true;
        errno = EIO;
    }
    put(b, S.pos, S.pos + k);
    S.pos += k;
    return (size_t)k;
}

/* A stream of count bytes of '|u1' with a header of hlen bytes (0: the
 * smallest that real writers pad to a multiple of 64), then extra bytes. */
static void stream(int major, uint64_t count, uint64_t hlen, uint64_t extra) {
    memset(&S, 0, sizeof S);
    memset(&R, 0, sizeof R);
    S.fail_at = UINT64_MAX;
    const int pre = major == 1 ? 10 : 12;
    char dict[128];
    const int d = snprintf(dict, sizeof dict, "{'descr': '|u1', 'fortran_order': False, 'shape': (%llu,), }",
                           (unsigned long long)count);
    if (hlen == 0) hlen = ((uint64_t)(pre + d + 1) + 63) / 64 * 64 - (uint64_t)pre;
    memcpy(S.head, major == 1 ? "\x93NUMPY\x01\x00" : "\x93NUMPY\x02\x00", 8);
    for (int i = 0; i < pre - 8; i++) S.head[8 + i] = (unsigned char)(hlen >> (8 * i));
    memset(S.head + pre, ' ', (size_t)hlen);
    memcpy(S.head + pre, dict, (size_t)d);
    S.head[pre + hlen - 1] = '\n';
    S.head_len = (uint64_t)pre + hlen;
    S.total = S.head_len + count + extra;
    for (int k = 0; k < 4; k++) S.marks[k] = S.total; /* none */
}

static npy_input in;
static char err[NPY_ERR_LEN];

static bool open_stream(void) {
    err[0] = '\0';
    return npy_open("-", &in, err);
}

/* The data arrived whole: every written byte where it belongs, zeros after. */
static void check_data(const char *what) {
    const uint64_t n = S.total - S.head_len;
    CHECK(in.h.data_bytes == n && in.data == R.ptr + S.head_len && in.file_size == S.total, "%s: %llu data bytes",
          what, (unsigned long long)in.h.data_bytes);
    int bad = 0;
    for (uint64_t o = S.head_len; o < S.total; o++) {
        if (!written(o)) {
            const uint64_t skip = S.total > 64 ? S.total - 64 : o; /* the next written byte */
            uint64_t next = skip;
            for (int k = 0; k < 4; k++)
                if (S.marks[k] > o && S.marks[k] < next) next = S.marks[k];
            o = next - 1;
            continue;
        }
        if (in.data[o - S.head_len] != pat(o) && bad++ < 3)
            CHECK(false, "%s: data byte %llu is %d, not %d", what, (unsigned long long)(o - S.head_len),
                  in.data[o - S.head_len], pat(o));
    }
    for (int i = 0; i < NPY_PAD; i++) CHECK(in.data[n + i] == 0, "%s: padding byte %d is not zero", what, i);
}

static void test_small(void) {
    stream(1, 10, 0, 0);
    const bool ok = open_stream();
    CHECK(ok, "10 bytes: %s", err);
    if (ok) check_data("10 bytes");
    CHECK(R.calls == 1 && R.size == 1u << 16, "10 bytes: %d allocations, the last of %zu bytes", R.calls, R.size);
    npy_close(&in);
}

#ifndef SANITIZED
/* Multi-GiB streams. The buffer doubles to 2^31 bytes, then grows to the
 * data's end, which sets the last read: with the end at 2^32, 2^31 bytes
 * (over INT_MAX, so cut in two halves); at 2^31 + 2^29 + 4099, fewer than
 * 2^30 (one piece, asking no more than is left); at 3 * 2^30 + 4099, 2^30
 * and 4099 bytes. */
static void giant(uint64_t end, uint64_t extra) {
    char what[64];
    snprintf(what, sizeof what, "a %llu-byte stream%s", (unsigned long long)end, extra ? " and one byte" : "");
    stream(1, 0, 0, 0); /* the header's length, for the data's */
    stream(1, end - S.head_len, 0, extra);
    S.marks[0] = S.head_len + (1ull << 30) - 1;
    S.marks[1] = 1ull << 31;
    S.marks[2] = (1ull << 31) + (1ull << 29);
    S.marks[3] = (1ull << 31) + (1ull << 30);
    const bool ok = open_stream();
    if (extra) {
        char want[128];
        snprintf(want, sizeof want, "<stdin>: the header's shape needs %llu bytes of data but more follow",
                 (unsigned long long)(end - S.head_len));
        CHECK(!ok && strstr(err, want) != NULL && S.pos == S.total, "%s: %s", what, err);
        return;
    }
    CHECK(ok, "%s: %s", what, err);
    if (ok) check_data(what);
    npy_close(&in);
}

#endif

static void test_giant(void) {
#ifdef SANITIZED
    printf("note: the multi-GiB stream cases run only in builds without sanitizers\n");
#else
    giant(1ull << 32, 0);
    CHECK(S.largest == 1u << 30, "the largest read asked for %zu bytes, not 2^30", S.largest);
    giant(1ull << 32, 1);
    giant((1ull << 31) + (1ull << 29) + 4099, 0);
    giant((3ull << 30) + 4099, 0);
#endif
}

/* A read error at each stage: the preamble, the header, the data, the
 * probe for bytes past it. */
static void test_read_errors(void) {
    char want[128];
    snprintf(want, sizeof want, "<stdin>: read error: %s", strerror(EIO));
    const char *what[] = {"in the preamble", "in the header", "in the data", "after the data"};
    for (int i = 0; i < 4; i++) {
        stream(1, 300, 0, 0);
        const uint64_t at[] = {5, S.head_len - 40, S.head_len + 5, S.total};
        S.fail_at = at[i];
        CHECK(!open_stream() && strcmp(err, want) == 0, "a read error %s: \"%s\"", what[i], err);
        CHECK(in.heap == NULL, "a read error %s: the buffer is kept", what[i]);
    }
}

/* An allocation refused at each growth: the first buffer, a header past
 * it, the data, and the padding after data that ends the buffer exactly. */
static void test_out_of_memory(void) {
    const struct {
        const char *what;
        int major;
        uint64_t count, hlen;
        int fail_call;
        uint64_t bytes;
    } cases[] = {
        {"the first buffer", 1, 10, 0, 1, 1u << 16},
        {"a 65536-byte header", 2, 10, 65536, 2, 1u << 17},
        {"the data", 1, 200000, 0, 2, 1u << 17},
        {"the padding", 1, (1u << 16) - 128, 0, 2, (1u << 16) + NPY_PAD},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        stream(cases[i].major, cases[i].count, cases[i].hlen, 0);
        R.fail_call = cases[i].fail_call;
        char want[128];
        snprintf(want, sizeof want, "<stdin>: out of memory for %llu bytes", (unsigned long long)cases[i].bytes);
        CHECK(!open_stream() && strcmp(err, want) == 0, "no memory for %s: \"%s\"", cases[i].what, err);
        CHECK(R.calls == cases[i].fail_call, "no memory for %s: %d allocations", cases[i].what, R.calls);
        /* the same stream with the memory: read whole */
        stream(cases[i].major, cases[i].count, cases[i].hlen, 0);
        const bool ok = open_stream();
        CHECK(ok, "%s: %s", cases[i].what, err);
        if (ok) check_data(cases[i].what);
        npy_close(&in);
    }
}

/* The lowest free file descriptor: it moves when one leaks. */
static int lowest_free_fd(void) {
    const int fd = dup(0);
    close(fd);
    return fd;
}

/* Expects npy_open(path) to fail with exactly want, reading nothing: the
 * scripted stream is empty, so a read that should not happen shows as a
 * different message. */
static void open_fails(const char *path, const char *want, const char *what) {
    stream(1, 0, 0, 0);
    S.total = 0;
    err[0] = '\0';
    const bool ok = npy_open(path, &in, err);
    CHECK(!ok && strcmp(err, want) == 0 && S.calls == 0, "%s: \"%s\" (%ld reads), not \"%s\"", what, err, S.calls,
          want);
    if (ok) npy_close(&in);
}

/* What npy_open does before it reads: standard input that is a folder or
 * closed, a link to a folder, a socket (which cannot be opened), and a
 * stream opened by name, whose descriptor is closed with it while standard
 * input stays open. */
static void test_open(const char *dir) {
    char path[512], want[640];
    const int saved = dup(0);
    const int folder = open(dir, O_RDONLY);
    CHECK(saved >= 0 && folder >= 0 && dup2(folder, 0) == 0, "standard input as the folder %s", dir);
    open_fails("-", "<stdin>: is a folder, not a .npy file", "standard input is a folder");
    close(0);
    snprintf(want, sizeof want, "<stdin>: cannot open: %s", strerror(EBADF));
    open_fails("-", want, "standard input is closed");
    CHECK(dup2(saved, 0) == 0, "standard input back");
    close(saved);
    close(folder);

    /* A name under a regular file (`dmlslice info x.npy/foo`) is missing,
     * like any missing file, not "Not a directory" (issue 22, item 12). */
    snprintf(path, sizeof path, "%s/regular.npy", dir);
    FILE *reg = fopen(path, "wb");
    CHECK(reg != NULL && fclose(reg) == 0, "making %s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/regular.npy/foo", dir);
    snprintf(want, sizeof want, "%s: cannot open: %s", path, strerror(ENOENT));
    open_fails(path, want, "a name under a regular file");
    snprintf(path, sizeof path, "%s/regular.npy", dir);
    unlink(path);

    snprintf(path, sizeof path, "%s/folder-link.npy", dir);
    unlink(path);
    CHECK(symlink(".", path) == 0, "symlink %s: %s", path, strerror(errno)); /* to its own folder */
    snprintf(want, sizeof want, "%s: is a folder, not a .npy file", path);
    open_fails(path, want, "a link to a folder");
    unlink(path);

    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(path, sizeof path, "%s/socket.npy", dir);
    if (strlen(path) < sizeof sa.sun_path) {
        unlink(path);
        memcpy(sa.sun_path, path, strlen(path) + 1);
        const int sock = socket(AF_UNIX, SOCK_STREAM, 0);
        CHECK(sock >= 0 && bind(sock, (const struct sockaddr *)&sa, sizeof sa) == 0, "socket %s: %s", path,
              strerror(errno));
        snprintf(want, sizeof want, "%s: cannot open: %s", path, strerror(ENXIO));
        open_fails(path, want, "a socket");
        close(sock);
        unlink(path);
    } else {
        printf("note: the socket case needs a folder path under %zu bytes; %s is longer\n", sizeof sa.sun_path, dir);
    }

    /* A name the system cannot look up: its own reason, not "missing". */
    char longname[300];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    snprintf(want, sizeof want, ": cannot open: %s", strerror(ENAMETOOLONG));
    stream(1, 0, 0, 0);
    S.total = 0;
    err[0] = '\0';
    CHECK(!npy_open(longname, &in, err) && strlen(err) > strlen(want) &&
              strcmp(err + strlen(err) - strlen(want), want) == 0,
          "a 299-byte name: \"%s\"", err);

    const int fd = lowest_free_fd();
    stream(1, 10, 0, 0);
    err[0] = '\0';
    const bool ok = npy_open("/dev/null", &in, err); /* a character device: read as a stream (scripted) */
    CHECK(ok && in.h.data_bytes == 10, "a stream by name: %s", err);
    if (ok) npy_close(&in);
    CHECK(lowest_free_fd() == fd, "a stream by name leaves a descriptor open (lowest free %d, was %d)",
          lowest_free_fd(), fd);
    stream(1, 10, 0, 0);
    CHECK(open_stream(), "standard input: %s", err);
    npy_close(&in);
    CHECK(fcntl(0, F_GETFD) != -1, "reading standard input closed it");
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_npy_input SCRATCH_FOLDER\n");
        return 2;
    }
    mkdir(argv[1], 0755);
    /* Standard input as the tests expect it, whatever ran them. */
    const int null = open("/dev/null", O_RDONLY);
    if (null > 0) {
        dup2(null, 0);
        close(null);
    }
    test_open(argv[1]);
    test_small();
    test_read_errors();
    test_out_of_memory();
    test_giant();
    TEST_MAIN_END();
}
