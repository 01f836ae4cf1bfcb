/* .npy reading and atomic writing; see npy.h. Every system call is the
 * platform layer's (platform.h). */
#include "npy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

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

/* True on a big-endian host, where a descr's '=' means '>'. */
static bool host_big_endian(void) {
    const uint16_t probe = 0x0102;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 0x01;
}

/* descr -> element size and the same-size dmlslice type. Slicing copies
 * bits, so '>' data stays big-endian and the output keeps the byte order
 * (npy_create writes '=' as the order it stands for here). */
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
        h->big_endian = order == '>' || (order == '=' && host_big_endian());
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

static bool read_all(FILE *f, const char *name, npy_input *in, char *err) {
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap + NPY_PAD);
    for (;;) {
        if (buf == NULL) {
            snprintf(err, NPY_ERR_LEN, "%s: out of memory reading %zu bytes", name, cap);
            return false;
        }
        const size_t got = fread(buf + len, 1, cap - len, f);
        if (got == 0 && ferror(f)) {
            snprintf(err, NPY_ERR_LEN, "%s: read error: %s", name, strerror(errno));
            free(buf);
            return false;
        }
        if (got == 0) break;
        len += got;
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
    dmls_file_info info = {DMLS_FILE_STREAM, 0, 0, 0, 0, 0};
    int e = is_stdin ? 0 : dmls_path_info(path, 1, &info);
    if (e == 0 && info.kind == DMLS_FILE_MISSING) e = ENOENT;
    if (e != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot open: %s", name, dmls_error_text(e));
        return false;
    }
    const unsigned char *base = NULL;
    bool ok = true;
    if (info.kind == DMLS_FILE_REGULAR) {
        /* Mapped with NPY_PAD zero bytes after the file's end, whatever its
         * length modulo the page. */
        in->file_size = info.size;
        if (in->file_size == 0) {
            snprintf(err, NPY_ERR_LEN, "%s: not a .npy file (it is empty)", name);
            ok = false;
        } else if ((e = dmls_file_map(path, NPY_PAD, &in->mapped)) != 0) {
            snprintf(err, NPY_ERR_LEN, "%s: cannot map %" PRIu64 " bytes: %s", name, in->file_size,
                     dmls_error_text(e));
            ok = false;
        } else {
            in->file_size = in->mapped.size;
            base = in->mapped.data;
        }
    } else {
        FILE *f = is_stdin ? stdin : dmls_fopen(path, "rb");
        if (f == NULL) {
            snprintf(err, NPY_ERR_LEN, "%s: cannot open: %s", name, strerror(errno));
            return false;
        }
        ok = read_all(f, name, in, err);
        if (!is_stdin) fclose(f);
        base = in->heap;
    }
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
    dmls_file_unmap(&in->mapped);
    free(in->heap);
    memset(in, 0, sizeof *in);
}

/* ------------------------------------------------------------ output */

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
    out->path = path;
    out->force = force;
    uint64_t count = 1;
    for (int i = 0; i < ndim; i++) count *= (uint64_t)shape[i]; /* fits: validated by dmls_create */
    out->data_bytes = count * esize;
    out->capacity = (out->data_bytes + NPY_PAD - 1) / NPY_PAD * NPY_PAD;
    /* '=' is the writer's native order, which a reader on another machine
     * cannot know: name it ('|' for single bytes, as NumPy writes them). */
    char named[8];
    if (descr[0] == '=' && strlen(descr) < sizeof named) {
        memcpy(named, descr, strlen(descr) + 1);
        named[0] = esize == 1 ? '|' : host_big_endian() ? '>' : '<';
        descr = named;
    }
    char header[128 + 22 * NPY_MAX_RANK];
    out->header_len = format_header(header, sizeof header, descr, ndim, shape);
    out->file_len = out->header_len + out->data_bytes;

    if (strcmp(path, "-") == 0) {
        if (dmls_stdio_is_terminal(1)) {
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

    if (!force && npy_exists(path)) {
        snprintf(err, NPY_ERR_LEN, "%s: already exists; not overwritten (use -f to replace it)", path);
        return false;
    }
    /* Room for the padded capacity while writing, reserved up front (a full
     * disk is this error, not a crash); trimmed at commit. A replaced file's
     * permission bits carry over. */
    const uint64_t len = out->header_len + out->capacity;
    const int e = dmls_new_file_create(&out->file, path, len, -1);
    out->created = e == 0;
    if (e != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot reserve %" PRIu64 " bytes in its folder: %s", path, len,
                 dmls_error_text(e));
        return false;
    }
    memcpy(out->file.data, header, out->header_len);
    out->data = out->file.data + out->header_len;
    return true;
}

bool npy_commit(npy_output *out, char *err) {
    if (out->heap) {
        dmls_ignore_broken_pipe(); /* a closed pipe is an error to report, not a silent death */
        if (fwrite(out->heap, 1, (size_t)out->file_len, stdout) != out->file_len || fflush(stdout) != 0) {
            snprintf(err, NPY_ERR_LEN, "<stdout>: write error: %s", strerror(errno));
            return false;
        }
        free(out->heap);
        out->heap = NULL;
        return true;
    }
    const int e = dmls_new_file_commit(&out->file, out->file_len, out->force);
    if (e == EEXIST) {
        snprintf(err, NPY_ERR_LEN, "%s: already exists; not overwritten (use -f to replace it)", out->path);
        return false;
    }
    if (e != 0) {
        snprintf(err, NPY_ERR_LEN, "%s: cannot write: %s", out->path, dmls_error_text(e));
        return false;
    }
    out->created = false;
    return true;
}

void npy_abort(npy_output *out) {
    if (out->created) dmls_new_file_abort(&out->file);
    free(out->heap);
    memset(out, 0, sizeof *out);
}

bool npy_same_file(const char *in, const char *out) {
    if (strcmp(in, "-") == 0 || strcmp(out, "-") == 0) return false;
    if (strcmp(in, out) == 0) return true;
    dmls_file_info a, b;
    return dmls_path_info(in, 1, &a) == 0 && dmls_path_info(out, 1, &b) == 0 && dmls_same_file(&a, &b);
}

bool npy_exists(const char *path) {
    dmls_file_info info;
    return strcmp(path, "-") != 0 && dmls_path_info(path, 0, &info) == 0 && (info.kind != DMLS_FILE_MISSING || info.is_link);
}
