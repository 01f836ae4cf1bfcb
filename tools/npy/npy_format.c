/* The .npy format: header parsing and writing; see npy_format.h. */
#include "npy_format.h"

#include "overflow.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

/* The type strings DirectML has a type for (bool travels as UINT8). */
static const struct {
    const char *code;
    dmls_dtype dtype;
} types[] = {{"f2", DMLS_FLOAT16}, {"f4", DMLS_FLOAT32}, {"f8", DMLS_FLOAT64}, {"i1", DMLS_INT8},
             {"i2", DMLS_INT16},   {"i4", DMLS_INT32},   {"i8", DMLS_INT64},   {"u1", DMLS_UINT8},
             {"u2", DMLS_UINT16},  {"u4", DMLS_UINT32},  {"u8", DMLS_UINT64},  {"b1", DMLS_UINT8}};

/* descr -> element size and the same-size dmlslice type. Slicing copies
 * bits, so '>' data stays big-endian and the output keeps the byte order
 * (npy_format_header writes '=' as the order it stands for here). */
static bool parse_descr(const char *name, const char *d, npy_header *h, char *err) {
    const size_t n = strlen(d);
    const char order = n ? d[0] : '\0';
    const bool has_order = order == '<' || order == '>' || order == '=' || order == '|';
    const char *t = has_order ? d + 1 : d;
    for (size_t k = 0; has_order && k < sizeof types / sizeof types[0]; k++) {
        if (strcmp(t, types[k].code) != 0) continue;
        h->dtype = types[k].dtype;
        h->esize = dmls_dtype_size(h->dtype);
        h->is_bool = t[0] == 'b';
        if (order == '|' && h->esize > 1) {
            snprintf(err, NPY_ERR_LEN, "%s: dtype '%s' claims no byte order for a %zu-byte type", name, d, h->esize);
            /* d matched a known code here, so it holds no byte to escape */
            return false;
        }
        h->big_endian = order == '>' || (order == '=' && host_big_endian());
        h->parts = 1;
        h->kind = h->is_bool ? "bool" : dmls_dtype_name(h->dtype);
        return true;
    }
    const char *why = t[0] == 'O'                  ? " (object arrays hold Python pointers, not data)"
                      : t[0] == 'c'                ? " (complex numbers are not a DirectML data type)"
                      : t[0] == 'U' || t[0] == 'S' ? " (strings are not a DirectML data type)"
                      : t[0] == 'M' || t[0] == 'm' ? " (dates are not a DirectML data type)"
                                                   : "";
    char shown[64];
    npy_escape(shown, sizeof shown, d, n);
    snprintf(err, NPY_ERR_LEN,
             "%s: unsupported dtype '%s'%s; supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 in either byte order",
             name, shown, why);
    return false;
}

void npy_escape(char *dst, size_t cap, const char *src, size_t n) {
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < n && cap > 0; i++) {
        const unsigned char c = (unsigned char)src[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            if (o + 1 >= cap) break;
            dst[o++] = (char)c;
        } else {
            if (o + 4 >= cap) break;
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[c >> 4];
            dst[o++] = hex[c & 15];
        }
    }
    if (cap > 0) dst[o] = '\0';
}

/* ------------------------------------------------------------ items
 *
 * npy_parse_header_items: any fixed-size dtype, by item size. */

/* A type string's meaning: its item size, the size of the parts its byte
 * order applies to (1 for bytes, where no order means anything), and a
 * name for it. */
typedef struct item_type {
    uint64_t size, unit;
    const char *kind;
    dmls_dtype dtype; /* DirectML's type for it, when kind names one */
    bool typed, is_bool;
} item_type;

/* Decimal digits at *t (at least one), advancing *t; false past max. */
static bool digits(const char **t, uint64_t max, uint64_t *v) {
    const char *p = *t;
    *v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (*v > (max - (uint64_t)(*p - '0')) / 10) return false;
        *v = *v * 10 + (uint64_t)(*p - '0');
    }
    if (p == *t) return false;
    *t = p;
    return true;
}

/* datetime64's and timedelta64's unit: "", "[ns]", "[25s]" and the like. */
static bool time_unit(const char *t) {
    if (*t == '\0') return true;
    if (*t++ != '[') return false;
    uint64_t n;
    if (*t >= '0' && *t <= '9' && !digits(&t, UINT32_MAX, &n)) return false;
    static const char *const units[] = {"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"};
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
        const size_t n2 = strlen(units[k]);
        if (strncmp(t, units[k], n2) == 0 && t[n2] == ']' && t[n2 + 1] == '\0') return true;
    }
    return false;
}

/* The kinds DirectML has no type for, from the code after the byte order. */
static bool other_type(const char *t, item_type *it) {
    const char k = *t++;
    uint64_t n = 0;
    it->typed = false;
    if (k == 'M' || k == 'm') {
        it->size = it->unit = 8;
        it->kind = k == 'M' ? "datetime64" : "timedelta64";
        return *t++ == '8' && time_unit(t);
    }
    if (!digits(&t, (uint64_t)INT64_MAX, &n) || *t != '\0') return false;
    switch (k) {
    case 'c': it->kind = "complex", it->size = n, it->unit = n / 2; return n == 8 || n == 16 || n == 24 || n == 32;
    case 'f': it->kind = "extended float", it->size = it->unit = n; return n == 12 || n == 16;
    case 'S':
    case 'a': it->kind = "bytes", it->size = n, it->unit = 1; return true;
    case 'V': it->kind = "void", it->size = n, it->unit = 1; return true;
    case 'U': it->kind = "str", it->size = 4 * n, it->unit = 4; return n <= (uint64_t)INT64_MAX / 4;
    default: return false;
    }
}

/* One type string d (for a record's field, field names it in messages). */
static bool parse_item_type(const char *name, const char *field, const char *d, item_type *it, char *err) {
    const char order = d[0];
    const bool has_order = order == '<' || order == '>' || order == '=' || order == '|';
    const char *t = has_order ? d + 1 : d;
    memset(it, 0, sizeof *it);
    bool known = false;
    for (size_t k = 0; !known && k < sizeof types / sizeof types[0]; k++) {
        if (strcmp(t, types[k].code) != 0) continue;
        known = true;
        it->typed = true;
        it->dtype = types[k].dtype;
        it->size = it->unit = dmls_dtype_size(it->dtype);
        it->is_bool = t[0] == 'b';
        it->kind = it->is_bool ? "bool" : dmls_dtype_name(it->dtype);
    }
    if (!known) known = other_type(t, it);
    char shown[4 * 64], where[4 * 40 + 16] = "";
    npy_escape(shown, sizeof shown, d, strlen(d));
    if (field) {
        char f[4 * 40];
        npy_escape(f, sizeof f, field, strlen(field) < 40 ? strlen(field) : 40);
        snprintf(where, sizeof where, ": field '%s' is", f);
    }
    if (!has_order || !known) {
        snprintf(err, NPY_ERR_LEN, "%s: unsupported dtype%s '%s'%s", name, where, shown,
                 t[0] == 'O' ? " (object arrays hold Python pointers, not data)"
                             : "; every fixed-size type NumPy saves without pickling is taken");
        return false;
    }
    if (order == '|' && it->unit > 1) {
        snprintf(err, NPY_ERR_LEN, "%s: dtype%s '%s' claims no byte order for a %" PRIu64 "-byte type", name, where,
                 shown, it->unit);
        return false;
    }
    return true;
}

#define NPY_MAX_RECORD_DEPTH 32

typedef struct record_parser {
    hparser hp;
    char *text; /* h->descr, where '=' is made explicit */
    const char *name;
    char *err;
} record_parser;

static bool record_malformed(record_parser *rp) {
    snprintf(rp->err, NPY_ERR_LEN, "%s: malformed 'descr' (a record's list of fields) near its byte %ld", rp->name,
             (long)(rp->hp.p - rp->text));
    return false;
}

/* A quoted Python string, escapes and all: its text in [*at, *at + *n). */
static bool quoted(hparser *hp, const char **at, size_t *n) {
    hws(hp);
    if (hp->p >= hp->end || (*hp->p != '\'' && *hp->p != '"')) return false;
    const char q = *hp->p++;
    *at = hp->p;
    while (hp->p < hp->end && *hp->p != q) hp->p += *hp->p == '\\' && hp->p + 1 < hp->end ? 2 : 1;
    if (hp->p >= hp->end) return false;
    *n = (size_t)(hp->p++ - *at);
    return true;
}

/* A sub-array field's shape: an integer or a tuple of them; the product. */
static bool field_shape(record_parser *rp, uint64_t *count, bool *overflow) {
    int64_t v;
    bool big;
    *count = 1;
    if (!hchar(&rp->hp, '(')) {
        if (!hint(&rp->hp, &v, &big)) return false;
        *overflow |= big || tool_mul_u64(*count, (uint64_t)v, count);
        return true;
    }
    while (!hchar(&rp->hp, ')')) {
        if (!hint(&rp->hp, &v, &big)) return false;
        *overflow |= big || tool_mul_u64(*count, (uint64_t)v, count);
        if (!hchar(&rp->hp, ',')) return hchar(&rp->hp, ')');
    }
    return true;
}

static bool record_list(record_parser *rp, int depth, uint64_t *size, bool *overflow);

/* One field: (name, type[, shape]), name perhaps (title, name). */
static bool record_field(record_parser *rp, int depth, uint64_t *size, bool *overflow) {
    const char *at, *type_at;
    size_t n, type_n;
    char field[41];
    if (!hchar(&rp->hp, '(')) return record_malformed(rp);
    const bool titled = hchar(&rp->hp, '(');
    if (titled && (!quoted(&rp->hp, &at, &n) || !hchar(&rp->hp, ','))) return record_malformed(rp);
    if (!quoted(&rp->hp, &at, &n) || (titled && !hchar(&rp->hp, ')')) || !hchar(&rp->hp, ','))
        return record_malformed(rp);
    snprintf(field, sizeof field, "%.*s", (int)(n < 40 ? n : 40), at);
    uint64_t fsize;
    hws(&rp->hp);
    if (rp->hp.p < rp->hp.end && *rp->hp.p == '[') {
        if (!record_list(rp, depth + 1, &fsize, overflow)) return false;
    } else {
        char d[64];
        item_type it;
        if (!quoted(&rp->hp, &type_at, &type_n)) return record_malformed(rp);
        snprintf(d, sizeof d, "%.*s", (int)(type_n < 63 ? type_n : 63), type_at);
        if (type_n > 63) {
            char shown[4 * 40 + 1];
            npy_escape(shown, sizeof shown, field, strlen(field));
            snprintf(rp->err, NPY_ERR_LEN, "%s: unsupported dtype: field '%s' has a type string over 63 bytes",
                     rp->name, shown);
            return false;
        }
        if (!parse_item_type(rp->name, field, d, &it, rp->err)) return false;
        if (d[0] == '=') /* the same length: patched where it stands */
            rp->text[type_at - rp->text] = it.unit == 1 ? '|' : host_big_endian() ? '>' : '<';
        fsize = it.size;
    }
    if (hchar(&rp->hp, ',')) {
        if (!hchar(&rp->hp, ')')) { /* else a trailing comma */
            uint64_t count;
            if (!field_shape(rp, &count, overflow)) return record_malformed(rp);
            *overflow |= tool_mul_u64(fsize, count, &fsize);
            hchar(&rp->hp, ',');
            if (!hchar(&rp->hp, ')')) return record_malformed(rp);
        }
    } else if (!hchar(&rp->hp, ')')) {
        return record_malformed(rp);
    }
    *overflow |= tool_add_u64(*size, fsize, size);
    return true;
}

/* [field, field, ...]: the sum of the fields' sizes (NumPy writes padding
 * as fields named ''). */
static bool record_list(record_parser *rp, int depth, uint64_t *size, bool *overflow) {
    if (depth > NPY_MAX_RECORD_DEPTH) {
        snprintf(rp->err, NPY_ERR_LEN, "%s: unsupported dtype: records nested more than %d deep", rp->name,
                 NPY_MAX_RECORD_DEPTH);
        return false;
    }
    *size = 0;
    if (!hchar(&rp->hp, '[')) return record_malformed(rp);
    while (!hchar(&rp->hp, ']')) {
        if (!record_field(rp, depth, size, overflow)) return false;
        if (!hchar(&rp->hp, ',')) {
            if (!hchar(&rp->hp, ']')) return record_malformed(rp);
            break;
        }
    }
    return true;
}

/* Where the list at hp ends (brackets outside strings balanced); NULL when
 * the header ends first. */
static const char *list_end(const hparser *hp) {
    int depth = 0;
    for (const char *p = hp->p; p < hp->end; p++) {
        if (*p == '\'' || *p == '"') {
            const char q = *p++;
            while (p < hp->end && *p != q) p += *p == '\\' ? 2 : 1;
            if (p >= hp->end) return NULL;
        } else if (*p == '[' || *p == '(') {
            depth++;
        } else if ((*p == ']' || *p == ')') && --depth == 0) {
            return p + 1;
        }
    }
    return NULL;
}

/* The descr value at hp in npy_parse_header_items: the item size, into h. */
static bool items_descr(const char *name, hparser *hp, npy_header *h, char *err) {
    uint64_t size;
    bool overflow = false;
    hws(hp);
    item_type it = {0};
    if (hp->p < hp->end && *hp->p == '[') {
        const char *end = list_end(hp);
        if (end == NULL) {
            snprintf(err, NPY_ERR_LEN, "%s: malformed 'descr' (a record's list of fields): it does not end", name);
            return false;
        }
        if (end - hp->p >= NPY_MAX_DESCR) {
            snprintf(err, NPY_ERR_LEN, "%s: unsupported dtype: 'descr' is over %d bytes", name, NPY_MAX_DESCR - 1);
            return false;
        }
        memcpy(h->descr, hp->p, (size_t)(end - hp->p));
        h->descr[end - hp->p] = '\0';
        record_parser rp = {{h->descr, h->descr + (end - hp->p)}, h->descr, name, err};
        if (!record_list(&rp, 1, &size, &overflow)) return false;
        if (rp.hp.p != rp.hp.end) return record_malformed(&rp);
        hp->p = end;
        it.kind = "record";
    } else {
        char d[64];
        if (!hstring(hp, d, sizeof d)) {
            snprintf(err, NPY_ERR_LEN, "%s: unsupported dtype: 'descr' is neither a type string nor a record", name);
            return false;
        }
        if (!parse_item_type(name, NULL, d, &it, err)) return false;
        memcpy(h->descr, d, strlen(d) + 1);
        size = it.size;
        h->big_endian = d[0] == '>' || (d[0] == '=' && host_big_endian());
    }
    if (overflow || size > (uint64_t)INT64_MAX) {
        snprintf(err, NPY_ERR_LEN, "%s: unsupported dtype: the item size overflows: it is over 2^63-1", name);
        return false;
    }
    if (size == 0) {
        snprintf(err, NPY_ERR_LEN, "%s: elements of 0 bytes hold nothing to slice", name);
        return false;
    }
    h->esize = (size_t)size;
    h->kind = it.kind;
    h->is_bool = it.is_bool;
    uint64_t unit = size & (0 - size);
    unit = unit > 8 ? 8 : unit;
    h->dtype = it.typed ? it.dtype : unit == 1 ? DMLS_UINT8 : unit == 2 ? DMLS_UINT16 : unit == 4 ? DMLS_UINT32 : DMLS_UINT64;
    h->parts = (int64_t)(size / dmls_dtype_size(h->dtype));
    return true;
}

/* npy_parse_header's descr: a type string DirectML has. */
static bool strict_descr(const char *name, hparser *hp, npy_header *h, char *err) {
    char d[16];
    if (!hstring(hp, d, sizeof d)) {
        hws(hp);
        snprintf(err, NPY_ERR_LEN, "%s: unsupported dtype: 'descr' is %s, not a simple type string", name,
                 hp->p < hp->end && *hp->p == '[' ? "a structured (record) type" : "malformed");
        return false;
    }
    if (!parse_descr(name, d, h, err)) return false;
    memcpy(h->descr, d, strlen(d) + 1);
    return true;
}

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
            if (!(items ? items_descr(name, &hp, h, err) : strict_descr(name, &hp, h, err))) return false;
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
