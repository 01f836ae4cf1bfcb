/* .npy reading and atomic writing; see npy.h. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, fchmod, fsync under -std=c11 (glibc) */
#define _DARWIN_C_SOURCE
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* ------------------------------------------------------------ header */

typedef struct hparser {
    const char *p, *end;
} hparser;

static void hws(hparser *hp) {
    while (hp->p < hp->end && (*hp->p == ' ' || *hp->p == '\t' || *hp->p == '\n' || *hp->p == '\r')) hp->p++;
}

static bool hchar(hparser *hp, char c) {
    hws(hp);
    if (hp->p < hp->end && *hp->p == c) {
        hp->p++;
        return true;
    }
    return false;
}

/* A quoted Python string into out (cap bytes); false when absent or too long. */
static bool hstring(hparser *hp, char *out, size_t cap) {
    hws(hp);
    if (hp->p >= hp->end || (*hp->p != '\'' && *hp->p != '"')) return false;
    const char q = *hp->p++;
    size_t n = 0;
    while (hp->p < hp->end && *hp->p != q) {
        if (n + 1 >= cap) return false;
        out[n++] = *hp->p++;
    }
    if (hp->p >= hp->end) return false;
    hp->p++;
    out[n] = '\0';
    return true;
}

static bool hword(hparser *hp, const char *w) {
    hws(hp);
    const size_t n = strlen(w);
    if ((size_t)(hp->end - hp->p) >= n && strncmp(hp->p, w, n) == 0) {
        hp->p += n;
        return true;
    }
    return false;
}

/* A non-negative decimal integer; *overflow when it exceeds int64. */
static bool hint(hparser *hp, int64_t *v, bool *overflow) {
    hws(hp);
    *overflow = false;
    if (hp->p >= hp->end || *hp->p < '0' || *hp->p > '9') return false;
    uint64_t m = 0;
    for (; hp->p < hp->end && *hp->p >= '0' && *hp->p <= '9'; hp->p++) {
        const uint64_t d = (uint64_t)(*hp->p - '0');
        if (m > ((uint64_t)INT64_MAX - d) / 10) *overflow = true;
        else m = m * 10 + d;
    }
    if (hp->p < hp->end && *hp->p == 'L') hp->p++; /* Python 2 longs */
    *v = (int64_t)m;
    return true;
}

/* descr -> element size and the same-size dmlslice type. Slicing copies
 * bits, so '>' data stays big-endian and the output keeps the descr. */
static bool parse_descr(const char *name, const char *d, npy_header *h, char *err) {
    const size_t n = strlen(d);
    const char order = n ? d[0] : '\0';
    const bool has_order = order == '<' || order == '>' || order == '=' || order == '|';
    const char *t = has_order ? d + 1 : d;
    static const struct {
        const char *code;
        dmls_dtype dtype;
    } types[] = {{"f2", DMLS_FLOAT16}, {"f4", DMLS_FLOAT32}, {"f8", DMLS_FLOAT64}, {"i1", DMLS_INT8},
                 {"i2", DMLS_INT16},   {"i4", DMLS_INT32},   {"i8", DMLS_INT64},   {"u1", DMLS_UINT8},
                 {"u2", DMLS_UINT16},  {"u4", DMLS_UINT32},  {"u8", DMLS_UINT64},  {"b1", DMLS_UINT8}};
    for (size_t k = 0; has_order && k < sizeof types / sizeof types[0]; k++) {
        if (strcmp(t, types[k].code) != 0) continue;
        h->dtype = types[k].dtype;
        h->esize = dmls_dtype_size(h->dtype);
        h->is_bool = t[0] == 'b';
        if (order == '|' && h->esize > 1) {
            snprintf(err, NPY_ERR_LEN, "%s: dtype '%s' claims no byte order for a %zu-byte type", name, d, h->esize);
            return false;
        }
        h->big_endian = order == '>';
        return true;
    }
    const char *why = t[0] == 'O'                  ? " (object arrays hold Python pointers, not data)"
                      : t[0] == 'c'                ? " (complex numbers are not a DirectML data type)"
                      : t[0] == 'U' || t[0] == 'S' ? " (strings are not a DirectML data type)"
                      : t[0] == 'M' || t[0] == 'm' ? " (dates are not a DirectML data type)"
                                                   : "";
    snprintf(err, NPY_ERR_LEN,
             "%s: unsupported dtype '%s'%s; supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 in either byte order",
             name, d, why);
    return false;
}

bool npy_parse_header(const char *name, const unsigned char *buf, uint64_t len, uint64_t file_size,
                      npy_header *h, char *err) {
    memset(h, 0, sizeof *h);
    if (len < 10 || memcmp(buf, magic, 6) != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: not a .npy file (%s)", name,
                 len < 6 ? "shorter than the 6-byte magic" : len < 10 ? "truncated before the header length"
                                                                      : "bad magic; expected \\x93NUMPY");
        return false;
    }
    h->major = buf[6];
    h->minor = buf[7];
    if ((h->major != 1 && h->major != 2 && h->major != 3) || h->minor != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: unsupported .npy format version %d.%d (1.0, 2.0 and 3.0 are)", name, h->major,
                 h->minor);
        return false;
    }
    uint64_t hlen, start;
    if (h->major == 1) {
        hlen = (uint64_t)buf[8] | (uint64_t)buf[9] << 8;
        start = 10;
    } else {
        if (len < 12) {
            snprintf(err, NPY_ERR_LEN, "%s: truncated before the header length", name);
            return false;
        }
        hlen = (uint64_t)buf[8] | (uint64_t)buf[9] << 8 | (uint64_t)buf[10] << 16 | (uint64_t)buf[11] << 24;
        start = 12;
    }
    if (hlen > len - start) {
        snprintf(err, NPY_ERR_LEN, "%s: the header claims %" PRIu64 " bytes but the file has only %" PRIu64
                                   " after the preamble (truncated or lying header)",
                 name, hlen, len - start);
        return false;
    }
    h->data_offset = start + hlen;

    hparser hp = {(const char *)buf + start, (const char *)buf + start + hlen};
    bool seen_descr = false, seen_order = false, seen_shape = false;
    char key[32];
    if (!hchar(&hp, '{')) goto malformed;
    while (!hchar(&hp, '}')) {
        if (!hstring(&hp, key, sizeof key) || !hchar(&hp, ':')) goto malformed;
        if (strcmp(key, "descr") == 0 && !seen_descr) {
            char d[16];
            seen_descr = true;
            if (!hstring(&hp, d, sizeof d)) {
                hws(&hp);
                snprintf(err, NPY_ERR_LEN, "%s: unsupported dtype: 'descr' is %s, not a simple type string", name,
                         hp.p < hp.end && *hp.p == '[' ? "a structured (record) type" : "malformed");
                return false;
            }
            if (!parse_descr(name, d, h, err)) return false;
            memcpy(h->descr, d, strlen(d) + 1);
        } else if (strcmp(key, "fortran_order") == 0 && !seen_order) {
            seen_order = true;
            if (hword(&hp, "True")) h->fortran_order = true;
            else if (!hword(&hp, "False")) goto malformed;
        } else if (strcmp(key, "shape") == 0 && !seen_shape) {
            seen_shape = true;
            if (!hchar(&hp, '(')) goto malformed;
            while (!hchar(&hp, ')')) {
                int64_t v;
                bool overflow;
                if (!hint(&hp, &v, &overflow)) goto malformed;
                if (overflow) {
                    snprintf(err, NPY_ERR_LEN, "%s: shape[%d] does not fit 64 bits", name, (int)h->ndim);
                    return false;
                }
                if (h->ndim == NPY_MAX_RANK) {
                    snprintf(err, NPY_ERR_LEN, "%s: the array has more than %d axes", name, NPY_MAX_RANK);
                    return false;
                }
                h->shape[h->ndim++] = v;
                if (!hchar(&hp, ',')) {
                    if (!hchar(&hp, ')')) goto malformed;
                    break;
                }
            }
        } else {
            snprintf(err, NPY_ERR_LEN, "%s: header has %s key '%s' (expected descr, fortran_order and shape)", name,
                     strcmp(key, "descr") && strcmp(key, "fortran_order") && strcmp(key, "shape") ? "an unknown"
                                                                                                    : "a repeated",
                     key);
            return false;
        }
        if (!hchar(&hp, ',')) {
            if (!hchar(&hp, '}')) goto malformed;
            break;
        }
    }
    hws(&hp);
    while (hp.p < hp.end && *hp.p == '\0') hp.p++; /* some writers pad with NULs */
    if (hp.p != hp.end) goto malformed;
    if (!seen_descr || !seen_order || !seen_shape) {
        snprintf(err, NPY_ERR_LEN, "%s: header lacks '%s'", name,
                 !seen_descr ? "descr" : !seen_order ? "fortran_order" : "shape");
        return false;
    }
    h->count = 1;
    /* The packed strides skip zero dims (npy_strides), so the product of the
     * others must fit too, even when a zero makes the tensor empty. */
    uint64_t span = h->esize;
    for (int i = 0; i < h->ndim; i++) {
        const uint64_t d = (uint64_t)h->shape[i];
        if (__builtin_mul_overflow(h->count, d, &h->count) || __builtin_mul_overflow(span, d ? d : 1, &span) ||
            span > (uint64_t)INT64_MAX) {
            snprintf(err, NPY_ERR_LEN, "%s: the shape's element count overflows 64 bits", name);
            return false;
        }
    }
    if (__builtin_mul_overflow(h->count, (uint64_t)h->esize, &h->data_bytes) || h->data_bytes > (uint64_t)INT64_MAX) {
        snprintf(err, NPY_ERR_LEN, "%s: %" PRIu64 " elements of %zu bytes overflow a 64-bit byte count", name,
                 h->count, h->esize);
        return false;
    }
    const uint64_t have = file_size - h->data_offset;
    if (have != h->data_bytes) {
        snprintf(err, NPY_ERR_LEN, "%s: the header's shape needs %" PRIu64 " bytes of data but the file has %" PRIu64
                                   " (%s)",
                 name, h->data_bytes, have, have < h->data_bytes ? "truncated file" : "header and data disagree");
        return false;
    }
    return true;
malformed:
    snprintf(err, NPY_ERR_LEN, "%s: malformed header dictionary near byte %ld of '%.*s'", name,
             (long)(hp.p - (const char *)buf), (int)(hlen < 120 ? hlen : 120), (const char *)buf + start);
    return false;
}

void npy_strides(const npy_header *h, int64_t *strides) {
    int64_t s = 1;
    if (h->fortran_order) {
        for (int i = 0; i < h->ndim; i++) {
            strides[i] = s;
            s *= h->shape[i] ? h->shape[i] : 1; /* fits: the header check bounds the product */
        }
    } else {
        for (int i = h->ndim - 1; i >= 0; i--) {
            strides[i] = s;
            s *= h->shape[i] ? h->shape[i] : 1;
        }
    }
}

/* ------------------------------------------------------------ input */

static bool read_all(int fd, const char *name, npy_input *in, char *err) {
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap + NPY_PAD);
    for (;;) {
        if (buf == NULL) {
            snprintf(err, NPY_ERR_LEN, "%s: out of memory reading %zu bytes", name, cap);
            return false;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            snprintf(err, NPY_ERR_LEN, "%s: read error: %s", name, strerror(errno));
            free(buf);
            return false;
        }
        if (got == 0) break;
        len += (size_t)got;
        if (len == cap) {
            unsigned char *bigger = cap > SIZE_MAX / 2 - NPY_PAD ? NULL : realloc(buf, cap * 2 + NPY_PAD);
            if (bigger == NULL) free(buf);
            buf = bigger;
            cap *= 2;
        }
    }
    memset(buf + len, 0, NPY_PAD);
    in->heap = buf;
    in->file_size = len;
    return true;
}

bool npy_open(const char *path, npy_input *in, char *err) {
    memset(in, 0, sizeof *in);
    const bool is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : path;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot open: %s", name, strerror(errno));
        return false;
    }
    struct stat st;
    bool ok = fstat(fd, &st) == 0;
    if (!ok) snprintf(err, NPY_ERR_LEN, "%s: cannot stat: %s", name, strerror(errno));
    const unsigned char *base = NULL;
    if (ok && S_ISREG(st.st_mode) && !is_stdin) {
        in->file_size = (uint64_t)st.st_size;
        if (in->file_size == 0) {
            snprintf(err, NPY_ERR_LEN, "%s: not a .npy file (it is empty)", name);
            ok = false;
        } else {
            /* Reserve the file's length plus padding as zero pages, then map
             * the file over the front: the padding after the data is then
             * always readable, whatever the file size modulo the page. */
            const long page = sysconf(_SC_PAGESIZE);
            const uint64_t want = (in->file_size + NPY_PAD + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page;
            if (want > SIZE_MAX) {
                snprintf(err, NPY_ERR_LEN, "%s: %" PRIu64 " bytes do not fit this machine's address space", name,
                         in->file_size);
                ok = false;
            } else {
                in->map_len = (size_t)want;
                in->map = mmap(NULL, in->map_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (in->map == MAP_FAILED ||
                    mmap(in->map, (size_t)in->file_size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
                    snprintf(err, NPY_ERR_LEN, "%s: cannot map %" PRIu64 " bytes: %s", name, in->file_size,
                             strerror(errno));
                    if (in->map != MAP_FAILED) munmap(in->map, in->map_len);
                    in->map = NULL;
                    ok = false;
                }
                base = in->map;
            }
        }
    } else if (ok) {
        ok = read_all(fd, name, in, err);
        base = in->heap;
    }
    if (!is_stdin) close(fd);
    if (ok) ok = npy_parse_header(name, base, in->file_size, in->file_size, &in->h, err);
    if (!ok) {
        npy_close(in);
        return false;
    }
    in->data = base + in->h.data_offset;
    in->readable = in->h.data_bytes + NPY_PAD;
    return true;
}

void npy_close(npy_input *in) {
    if (in->map) munmap(in->map, in->map_len);
    free(in->heap);
    memset(in, 0, sizeof *in);
}

/* ------------------------------------------------------------ output */

/* The temporary file's name, for the signal handler: an interrupted run
 * must not leave it behind. Only async-signal-safe calls in the handler. */
static char pending_tmp[4096];
static volatile sig_atomic_t pending_set = 0;

static void on_signal(int sig) {
    if (pending_set) unlink(pending_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void watch_tmp(const char *path) {
    if (path) {
        snprintf(pending_tmp, sizeof pending_tmp, "%s", path);
        pending_set = 1;
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        signal(SIGHUP, on_signal);
    } else {
        pending_set = 0;
    }
}

/* The header, padded with spaces and a newline so the data starts on a
 * 64-byte boundary, as NumPy writes it. Returns its length. */
static size_t format_header(char *buf, size_t cap, const char *descr, int32_t ndim, const int64_t *shape) {
    char dict[64 + 22 * NPY_MAX_RANK]; /* each axis at most 20 digits and ", " */
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int i = 0; i < ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%" PRId64, i ? ", " : "", shape[i]);
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", ndim == 1 ? "," : "");
    /* version 1.0 always suffices: rank <= 64 keeps the dict far below 64 KiB */
    size_t total = 10 + (size_t)n + 1;
    total = (total + 63) / 64 * 64;
    if (total > cap) return 0;
    memcpy(buf, magic, 6);
    buf[6] = 1;
    buf[7] = 0;
    const size_t hlen = total - 10;
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8);
    memcpy(buf + 10, dict, (size_t)n);
    memset(buf + 10 + n, ' ', total - 10 - (size_t)n - 1);
    buf[total - 1] = '\n';
    return total;
}

bool npy_create(const char *path, bool force, const char *descr, int32_t ndim, const int64_t *shape, size_t esize,
                npy_output *out, char *err) {
    memset(out, 0, sizeof *out);
    out->fd = -1;
    out->path = path;
    out->force = force;
    uint64_t count = 1;
    for (int i = 0; i < ndim; i++) count *= (uint64_t)shape[i]; /* fits: validated by dmls_create */
    out->data_bytes = count * esize;
    out->capacity = (out->data_bytes + NPY_PAD - 1) / NPY_PAD * NPY_PAD;
    char header[128 + 22 * NPY_MAX_RANK];
    out->header_len = format_header(header, sizeof header, descr, ndim, shape);
    out->file_len = out->header_len + out->data_bytes;

    if (strcmp(path, "-") == 0) {
        if (isatty(STDOUT_FILENO)) {
            snprintf(err, NPY_ERR_LEN, "<stdout>: refusing to write binary .npy data to a terminal");
            return false;
        }
        if (out->header_len + out->capacity > SIZE_MAX) {
            snprintf(err, NPY_ERR_LEN, "<stdout>: %" PRIu64 " bytes do not fit memory", out->file_len);
            return false;
        }
        out->heap = calloc(1, (size_t)(out->header_len + out->capacity));
        if (out->heap == NULL) {
            snprintf(err, NPY_ERR_LEN, "<stdout>: out of memory for %" PRIu64 " bytes", out->file_len);
            return false;
        }
        memcpy(out->heap, header, out->header_len);
        out->data = out->heap + out->header_len;
        return true;
    }

    struct stat st;
    if (!force && lstat(path, &st) == 0) {
        snprintf(err, NPY_ERR_LEN, "%s: already exists; not overwritten (use -f to replace it)", path);
        return false;
    }
    /* The temporary file lives in the output's folder so the final rename
     * never crosses a file system. */
    const char *slash = strrchr(path, '/');
    const size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    const size_t need = strlen(path) + 16;
    out->tmp_path = malloc(need);
    if (out->tmp_path == NULL) {
        snprintf(err, NPY_ERR_LEN, "%s: out of memory", path);
        return false;
    }
    snprintf(out->tmp_path, need, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
    out->fd = mkstemp(out->tmp_path);
    if (out->fd < 0) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot create a temporary file in its folder: %s", path, strerror(errno));
        free(out->tmp_path);
        out->tmp_path = NULL;
        return false;
    }
    watch_tmp(out->tmp_path);
    const mode_t mask = umask(0);
    umask(mask);
    bool ok = fchmod(out->fd, 0666 & ~mask) == 0;
    /* Room for the padded capacity while writing; trimmed at commit. */
    const uint64_t len = out->header_len + out->capacity;
    ok = ok && len <= (uint64_t)INT64_MAX && ftruncate(out->fd, (off_t)len) == 0;
    ok = ok && pwrite(out->fd, header, out->header_len, 0) == (ssize_t)out->header_len;
    if (ok && len <= SIZE_MAX) {
        out->map_len = (size_t)len;
        out->map = mmap(NULL, out->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, out->fd, 0);
        if (out->map == MAP_FAILED) {
            out->map = NULL;
            ok = false;
        }
    } else {
        ok = false;
    }
    if (!ok) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot prepare %" PRIu64 " bytes in %s: %s", path, len, out->tmp_path,
                 strerror(errno));
        npy_abort(out);
        return false;
    }
    out->data = (unsigned char *)out->map + out->header_len;
    return true;
}

static bool write_all(int fd, const unsigned char *p, uint64_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : (size_t)n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (uint64_t)w;
    }
    return true;
}

bool npy_commit(npy_output *out, char *err) {
    if (out->heap) {
        signal(SIGPIPE, SIG_IGN); /* a closed pipe is an error to report, not a silent death */
        if (!write_all(STDOUT_FILENO, out->heap, out->file_len)) {
            snprintf(err, NPY_ERR_LEN, "<stdout>: write error: %s", strerror(errno));
            return false;
        }
        free(out->heap);
        out->heap = NULL;
        return true;
    }
    bool ok = msync(out->map, out->map_len, MS_SYNC) == 0;
    munmap(out->map, out->map_len);
    out->map = NULL;
    ok = ok && ftruncate(out->fd, (off_t)out->file_len) == 0 && fsync(out->fd) == 0;
    ok = close(out->fd) == 0 && ok;
    out->fd = -1;
    if (!ok) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot write %s: %s", out->path, out->tmp_path, strerror(errno));
        return false;
    }
    if (out->force) {
        ok = rename(out->tmp_path, out->path) == 0;
    } else {
        /* link() refuses an existing name atomically, unlike rename(). */
        ok = link(out->tmp_path, out->path) == 0;
        if (!ok && errno == EEXIST) {
            snprintf(err, NPY_ERR_LEN, "%s: already exists; not overwritten (use -f to replace it)", out->path);
            return false;
        }
        if (ok) {
            unlink(out->tmp_path);
        } else {
            /* A file system without hard links: check, then rename. */
            struct stat st;
            if (lstat(out->path, &st) == 0) {
                snprintf(err, NPY_ERR_LEN, "%s: already exists; not overwritten (use -f to replace it)", out->path);
                return false;
            }
            ok = rename(out->tmp_path, out->path) == 0;
        }
    }
    if (!ok) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot move %s into place: %s", out->path, out->tmp_path, strerror(errno));
        return false;
    }
    watch_tmp(NULL);
    /* Make the new name durable too. */
    const char *slash = strrchr(out->path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out->path + (slash == out->path)) : 1,
             slash ? out->path : ".");
    int dfd = open(dir, O_RDONLY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(out->tmp_path);
    out->tmp_path = NULL;
    return true;
}

void npy_abort(npy_output *out) {
    if (out->map) munmap(out->map, out->map_len);
    if (out->fd >= 0) close(out->fd);
    if (out->tmp_path) unlink(out->tmp_path);
    watch_tmp(NULL);
    free(out->tmp_path);
    free(out->heap);
    memset(out, 0, sizeof *out);
    out->fd = -1;
}

bool npy_same_file(const char *in, const char *out) {
    if (strcmp(in, "-") == 0 || strcmp(out, "-") == 0) return false;
    if (strcmp(in, out) == 0) return true;
    struct stat a, b;
    return stat(in, &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool npy_exists(const char *path) {
    struct stat st;
    return strcmp(path, "-") != 0 && lstat(path, &st) == 0;
}
