/* The .npy format: the preamble, the header dictionary, writing a header;
 * see npy_format.h. Its 'descr' value, and npy_escape, are npy_descr.c's. */
#include "npy_format.h"

#include "npy_text.h"
#include "overflow.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

bool npy_parse_preamble(const char *name, const unsigned char *buf, uint64_t len, npy_header *h, char *err) {
    memset(h, 0, sizeof *h);
    /* Judge the magic on the bytes there are, so a short file that is not
     * .npy at all is called that, and only a true prefix "truncated". */
    const size_t m = len < sizeof magic ? (size_t)len : sizeof magic;
    const char *why = len == 0                          ? "it is empty"
                      : memcmp(buf, magic, m) != 0      ? "bad magic; expected \\x93NUMPY"
                      : len < sizeof magic              ? "shorter than the 6-byte magic"
                      : len < 10                        ? "truncated before the header length"
                                                        : NULL;
    if (why) {
        snprintf(err, NPY_ERR_LEN, "%s: not a .npy file (%s)", name, why);
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
            snprintf(err, NPY_ERR_LEN, "%s: not a .npy file (truncated before the header length)", name);
            return false;
        }
        hlen = (uint64_t)buf[8] | (uint64_t)buf[9] << 8 | (uint64_t)buf[10] << 16 | (uint64_t)buf[11] << 24;
        start = 12;
    }
    if (hlen > NPY_MAX_HEADER) {
        snprintf(err, NPY_ERR_LEN, "%s: the header claims %" PRIu64 " bytes; at most %d are accepted", name, hlen,
                 NPY_MAX_HEADER);
        return false;
    }
    h->data_offset = start + hlen;
    return true;
}

static bool parse_header(const char *name, const unsigned char *buf, uint64_t len, npy_header *h, char *err,
                         bool items) {
    if (!npy_parse_preamble(name, buf, len, h, err)) return false;
    const uint64_t start = h->major == 1 ? 10 : 12, hlen = h->data_offset - start;
    if (h->data_offset > len) {
        snprintf(err, NPY_ERR_LEN, "%s: the header claims %" PRIu64 " bytes but the file has only %" PRIu64
                                   " after the preamble (truncated or lying header)",
                 name, hlen, len - start);
        return false;
    }

    hparser hp = {(const char *)buf + start, (const char *)buf + start + hlen};
    bool seen_descr = false, seen_order = false, seen_shape = false;
    char key[32];
    if (!hchar(&hp, '{')) goto malformed;
    while (!hchar(&hp, '}')) {
        if (!hstring(&hp, key, sizeof key) || !hchar(&hp, ':')) goto malformed;
        if (strcmp(key, "descr") == 0 && !seen_descr) {
            seen_descr = true;
            if (!(items ? npy_descr_items(name, &hp, h, err) : npy_descr_strict(name, &hp, h, err))) return false;
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
            char shown[4 * sizeof key];
            npy_escape(shown, sizeof shown, key, strlen(key));
            snprintf(err, NPY_ERR_LEN, "%s: header has %s key '%s' (expected descr, fortran_order and shape)", name,
                     strcmp(key, "descr") && strcmp(key, "fortran_order") && strcmp(key, "shape") ? "an unknown"
                                                                                                    : "a repeated",
                     shown);
            return false;
        }
        if (!hchar(&hp, ',')) {
            if (!hchar(&hp, '}')) goto malformed;
            break;
        }
    }
    /* Only padding may follow the dictionary: spaces and a newline as NumPy
     * writes it, or NULs as some other writers do. */
    while (hp.p < hp.end && (*hp.p == '\0' || *hp.p == ' ' || *hp.p == '\t' || *hp.p == '\n' || *hp.p == '\r')) hp.p++;
    if (hp.p != hp.end) goto malformed;
    if (!seen_descr || !seen_order || !seen_shape) {
        snprintf(err, NPY_ERR_LEN, "%s: header lacks '%s'", name,
                 !seen_descr ? "descr" : !seen_order ? "fortran_order" : "shape");
        return false;
    }
    /* An empty array is valid whatever its other dims (NumPy accepts
     * (2**32, 2**32, 0)); npy_strides saturates for it. */
    h->count = 1;
    bool empty = false, count_overflow = false;
    for (int i = 0; i < h->ndim; i++) {
        empty |= h->shape[i] == 0;
        count_overflow |= tool_mul_u64(h->count, (uint64_t)h->shape[i], &h->count);
    }
    if (empty) {
        h->count = 0;
    } else if (count_overflow || h->count > (uint64_t)INT64_MAX) {
        snprintf(err, NPY_ERR_LEN, "%s: the shape's element count overflows: it is over 2^63-1", name);
        return false;
    }
    if (tool_mul_u64(h->count, (uint64_t)h->esize, &h->data_bytes) || h->data_bytes > (uint64_t)INT64_MAX) {
        snprintf(err, NPY_ERR_LEN,
                 "%s: the shape's %" PRIu64 " elements of %zu bytes overflow the byte size: it is over 2^63-1", name,
                 h->count, h->esize);
        return false;
    }
    return true;
malformed: {
    char shown[4 * 100 + 1];
    npy_escape(shown, sizeof shown, (const char *)buf + start, hlen < 100 ? (size_t)hlen : 100);
    snprintf(err, NPY_ERR_LEN, "%s: malformed header dictionary near byte %ld of '%s'", name,
             (long)(hp.p - (const char *)buf), shown);
    return false;
}
}

bool npy_parse_header(const char *name, const unsigned char *buf, uint64_t len, npy_header *h, char *err) {
    return parse_header(name, buf, len, h, err, false);
}

bool npy_parse_header_items(const char *name, const unsigned char *buf, uint64_t len, npy_header *h, char *err) {
    return parse_header(name, buf, len, h, err, true);
}

bool npy_check_data(const char *name, const npy_header *h, uint64_t have, char *err) {
    if (have == h->data_bytes) return true;
    snprintf(err, NPY_ERR_LEN, "%s: the header's shape needs %" PRIu64 " bytes of data but the file has %" PRIu64 " (%s)",
             name, h->data_bytes, have, have < h->data_bytes ? "truncated file" : "header and data disagree");
    return false;
}

void npy_strides(const npy_header *h, int64_t *strides) {
    /* Zero dims count as 1 and the product saturates: it overflows only for
     * an empty array, whose strides address nothing. */
    int64_t s = 1;
    for (int k = 0; k < h->ndim; k++) {
        const int i = h->fortran_order ? k : h->ndim - 1 - k;
        strides[i] = s;
        if (tool_mul_i64(s, h->shape[i] ? h->shape[i] : 1, &s)) s = INT64_MAX;
    }
}

size_t npy_format_header(unsigned char *buf, size_t cap, const char *descr, size_t esize, int32_t ndim,
                         const int64_t *shape) {
    char named[8];
    if (descr[0] == '=' && strlen(descr) < sizeof named) {
        memcpy(named, descr, strlen(descr) + 1);
        named[0] = esize == 1 ? '|' : host_big_endian() ? '>' : '<';
        descr = named;
    }
    char dict[NPY_OUT_HEADER_MAX];
    const char *quote = descr[0] == '[' ? "" : "'";
    int n = snprintf(dict, sizeof dict, "{'descr': %s%s%s, 'fortran_order': False, 'shape': (", quote, descr, quote);
    for (int i = 0; i < ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%" PRId64, i ? ", " : "", shape[i]);
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", ndim == 1 ? "," : "");
    /* version 1.0 always suffices: rank <= 64 keeps the dict far below 64 KiB */
    size_t total = 10 + (size_t)n + 1;
    total = (total + 63) / 64 * 64;
    if (n < 0 || (size_t)n >= sizeof dict || total > cap) return 0;
    memcpy(buf, magic, 6);
    buf[6] = 1;
    buf[7] = 0;
    const size_t hlen = total - 10;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + 10, dict, (size_t)n);
    memset(buf + 10 + n, ' ', total - 10 - (size_t)n - 1);
    buf[total - 1] = '\n';
    return total;
}
