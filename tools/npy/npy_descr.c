/* The .npy header's 'descr' value: the type strings DirectML has, and any
 * other fixed-size dtype NumPy saves (records, complex, strings, times) by
 * its item size (see npy_text.h); and npy_escape, which shows such text in
 * messages. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "npy_text.h"
#include "overflow.h"

/* The length of the well-formed UTF-8 character at s (n bytes left) that a
 * terminal shows as itself, else 0: no overlong form, surrogate or value
 * past U+10FFFF, no C1 control (U+0080-U+009F) and no bidirectional
 * override or isolate (U+202A-U+202E, U+2066-U+2069), which reorder the
 * text shown around them. */
static size_t utf8_shown(const unsigned char *s, size_t n) {
    const size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
    if (len == 0 || len > n || s[0] > 0xf4) return 0;
    uint32_t cp = s[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f) return 0;
    if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return 0;
    return len;
}

static void escape(char *dst, size_t cap, const char *src, size_t n, bool text) {
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < n && cap > 0; i++) {
        const unsigned char c = (unsigned char)src[i];
        const size_t keep = c >= 0x20 && c < 0x7f && (c != '\\' || text)        ? 1
                            : text && c >= 0x80 ? utf8_shown((const unsigned char *)src + i, n - i)
                                                : 0;
        if (keep) {
            if (o + keep >= cap) break;
            memcpy(dst + o, src + i, keep);
            o += keep;
            i += keep - 1;
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

void npy_escape(char *dst, size_t cap, const char *src, size_t n) { escape(dst, cap, src, n, false); }

void npy_escape_text(char *dst, size_t cap, const char *src, size_t n) { escape(dst, cap, src, n, true); }

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
    if (hpeek(&rp->hp, '[')) {
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

bool npy_descr_items(const char *name, hparser *hp, npy_header *h, char *err) {
    uint64_t size;
    bool overflow = false;
    item_type it = {0};
    if (hpeek(hp, '[')) {
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

bool npy_descr_strict(const char *name, hparser *hp, npy_header *h, char *err) {
    char d[16];
    if (!hstring(hp, d, sizeof d)) {
        snprintf(err, NPY_ERR_LEN, "%s: unsupported dtype: 'descr' is %s, not a simple type string", name,
                 hpeek(hp, '[') ? "a structured (record) type" : "malformed");
        return false;
    }
    if (!parse_descr(name, d, h, err)) return false;
    memcpy(h->descr, d, strlen(d) + 1);
    return true;
}
