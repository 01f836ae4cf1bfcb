/* The .npy header code (tools/npy/npy_format.c) on bytes in memory, at the edges
 * the end-to-end tool tests cannot reach cheaply: the dictionary's last
 * byte (each header here is followed by data bytes that a parser reading one
 * byte too far would take in, which the message's "near byte N" shows), the
 * buffers' exact sizes, the number bounds, the preamble's lengths and
 * npy_escape's truncation. */
#include "npy_format.h"
#include "support/test.h"

static const char *name = "t.npy";
static unsigned char file[1 << 17];
static npy_header h;
static char err[NPY_ERR_LEN];

/* file: a version 1.0 preamble and the dictionary's dlen bytes; their length. */
static size_t put_dict(const char *dict, size_t dlen) {
    memcpy(file, "\x93NUMPY\x01\x00", 8);
    file[8] = (unsigned char)(dlen & 0xff);
    file[9] = (unsigned char)(dlen >> 8);
    memcpy(file + 10, dict, dlen);
    return 10 + dlen;
}

/* A version 1.0 file: the dictionary's dlen bytes, then the after bytes. */
static bool parse_n(const char *dict, size_t dlen, const char *after) {
    put_dict(dict, dlen);
    memcpy(file + 10 + dlen, after, strlen(after));
    err[0] = '\0';
    return npy_parse_header(name, file, 10 + dlen + strlen(after), &h, err);
}

static bool parse(const char *dict, const char *after) { return parse_n(dict, strlen(dict), after); }

#define OK(dict, after) CHECK(parse(dict, after), "%s: %s", dict, err)
#define FAILS(dict, after, frag)                                                                             \
    CHECK(!parse(dict, after) && strstr(err, frag) != NULL, "%s: expected \"%s\", got \"%s\"", dict, frag, err)

/* The byte just past the dictionary, where a parser reading one too far ends. */
static void near_end(const char *dict, const char *after, int past) {
    char want[64];
    snprintf(want, sizeof want, "near byte %d of '", (int)(10 + strlen(dict)) + past);
    FAILS(dict, after, want);
}

static void test_dictionary_end(void) {
    near_end("{  ", "  X", 0);   /* whitespace up to the end */
    near_end("{", "'", 0);       /* a quote past the end */
    near_end("{'desc", "x'", 0); /* a key unterminated at the end */
    near_end("{'descr", "'", 0);
    near_end("{'descr': '<f4', 'fortran_order': False, 'shape': ()", "}", 0); /* the closing brace past the end */
    near_end("{'descr': '<f4', 'shape': (), 'fortran_order': False", "", 0);   /* a word that ends at the end */
    near_end("{'descr': '<f4', 'fortran_order': False, 'shape': (1", "2", 0);  /* digits past the end */
    near_end("{'descr': '<f4', 'fortran_order': False, 'shape': (1", "L", 0);
    /* 64 axes and a digit past the end: still malformed, not a 65th axis */
    char d[400];
    int n = snprintf(d, sizeof d, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
    for (int i = 0; i < NPY_MAX_RANK; i++) n += snprintf(d + n, sizeof d - (size_t)n, "1,");
    near_end(d, "7", 0);
    n += snprintf(d + n, sizeof d - (size_t)n, "), }");
    CHECK(parse(d, "") && h.ndim == NPY_MAX_RANK, "64 axes: %s", err);
}

static void test_layout(void) {
    /* tabs and newlines between tokens, keys in any order, no trailing comma */
    OK("{'descr':\t'<f4',\n'fortran_order':\r\nFalse, 'shape': (2,), }", "");
    OK("{'shape': (2, 3), 'fortran_order': True, 'descr': '<i2'}", "");
    CHECK(h.ndim == 2 && h.shape[0] == 2 && h.shape[1] == 3 && h.fortran_order && h.esize == 2, "reordered keys");
    OK("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", "");
    OK("{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 9L), }", ""); /* Python 2 longs */
    CHECK(h.ndim == 2 && h.shape[0] == 3 && h.shape[1] == 9 && h.count == 27, "longs: %d axes", (int)h.ndim);
    FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': (,), }", "", "malformed header dictionary near byte 61");
    FAILS("{'fortran_order': False, 'shape': (2,), }", "", "t.npy: header lacks 'descr'");
    FAILS("{'descr': '<f4', 'shape': (2,), }", "", "t.npy: header lacks 'fortran_order'");
    FAILS("{'descr': '<f4', 'fortran_order': False, }", "", "t.npy: header lacks 'shape'");
    FAILS("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (), }", "", "a repeated key 'descr'");
    FAILS("{'descr': '<f4', 'fortran_order': False, 'fortran_order': False, 'shape': (), }", "",
          "a repeated key 'fortran_order'");
    FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'shape': (), }", "", "a repeated key 'shape'");
}

static void test_keys(void) {
    /* the key buffer holds 31 bytes; a longer key is malformed, not unknown */
    FAILS("{'abcdefghijklmnopqrstuvwxyz01234': 1}", "", "an unknown key 'abcdefghijklmnopqrstuvwxyz01234'");
    FAILS("{'abcdefghijklmnopqrstuvwxyz012345': 1}", "", "malformed header dictionary near byte 43");
    /* 31 bytes that each escape to 4 are shown whole */
    char d[64] = "{'", want[256] = "an unknown key '";
    for (int i = 0; i < 31; i++) {
        d[2 + i] = '\x01';
        strcat(want, "\\x01");
    }
    strcat(d, "': 1}");
    strcat(want, "' (expected");
    FAILS(d, "", want);
}

static void test_numbers(void) {
    OK("{'descr': '|u1', 'fortran_order': False, 'shape': (9223372036854775807,), }", "");
    CHECK(h.shape[0] == INT64_MAX && h.count == (uint64_t)INT64_MAX && h.data_bytes == (uint64_t)INT64_MAX,
          "2^63-1 one-byte elements: shape %" PRId64 ", %" PRIu64 " bytes", h.shape[0], h.data_bytes);
    FAILS("{'descr': '|u1', 'fortran_order': False, 'shape': (9223372036854775808,), }", "",
          "t.npy: shape[0] does not fit 64 bits");
    FAILS("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 18446744073709551617,), }", "",
          "t.npy: shape[1] does not fit 64 bits");
    OK("{'descr': '<f4', 'fortran_order': False, 'shape': (9, 99), }", "");
    CHECK(h.shape[0] == 9 && h.shape[1] == 99, "nines: %" PRId64 " %" PRId64, h.shape[0], h.shape[1]);
}

/* Descrs a reader refuses, and the reason it gives: the strict reader
 * (npy_parse_header: the types the library computes with) or the reader of
 * items (npy_parse_header_items: any fixed-size type NumPy saves). */
static const struct {
    bool items;
    const char *descr, *msg;
} refused_descrs[] = {
    {false, "'|i2'", "t.npy: dtype '|i2' claims no byte order for a 2-byte type"},
    {false, "'|O'", "unsupported dtype '|O' (object arrays hold"},
    {false, "'O'", "unsupported dtype 'O' (object arrays hold"},
    {false, "'<U5'", "unsupported dtype '<U5' (strings are not"},
    {false, "'|S3'", "unsupported dtype '|S3' (strings are not"},
    {false, "'<M8[ns]'", "unsupported dtype '<M8[ns]' (dates are not"},
    {false, "'<m8'", "unsupported dtype '<m8' (dates are not"},
    {false, "'<x4'", "unsupported dtype '<x4'; supported:"},
    /* the descr buffer holds 15 bytes */
    {false, "'<U1234567890123'", "unsupported dtype '<U1234567890123' (strings"},
    {false, "'<U12345678901234'", "'descr' is malformed, not a simple type string"},
    {false, "5", "'descr' is malformed, not a simple type string"},
    {false, "[('a', '<f4')]", "'descr' is a structured (record) type"},
    /* The reader of items. */
    {true, "'|O'", "t.npy: unsupported dtype '|O' (object arrays hold Python pointers"},
    {true, "[('a', '<i4'), ('o', '|O')]", "t.npy: unsupported dtype: field 'o' is '|O' (object arrays hold"},
    {true, "[('a', [('b', 'O')])]", "field 'b' is 'O' (object arrays"},
    {true, "'|i2'", "t.npy: dtype '|i2' claims no byte order for a 2-byte type"},
    {true, "'|c16'", "dtype '|c16' claims no byte order"},
    {true, "'<c12'", "t.npy: unsupported dtype '<c12'"},
    {true, "'<i3'", "unsupported dtype '<i3'"},
    {true, "'<M8[xs]'", "unsupported dtype '<M8[xs]'"},
    {true, "'<M4'", "unsupported dtype '<M4'"},
    {true, "'|S'", "unsupported dtype '|S'"},
    {true, "'|S0'", "t.npy: elements of 0 bytes"},
    {true, "'<U99999999999999999999'", "unsupported dtype"},
    {true, "'|V9223372036854775807'", "2 elements of 9223372036854775807 bytes overflow the byte size"},
    {true, "[('a', '<i4')", "t.npy: malformed 'descr'"},
    {true, "[('a' '<i4')]", "malformed 'descr'"},
    {true, "[('a', '<i4', (2, -1))]", "malformed 'descr'"},
    {true, "[('a', 5)]", "malformed 'descr'"},
    {true, "[('a', '<i4', (4294967296, 4294967296, 2))]", "item size"},
    {true, "[('a\x01', '|O')]", "field 'a\\x01' is '|O'"},
    {true, "[('\x83', '|S0123456789012345678901234567890123456789012345678901234567890123')]",
     "field '\\x83' has a type string over 63 bytes"},
};

static bool parse_items(const char *descr);

/* One reader's rows of refused_descrs, each refused with its reason. */
static void check_refused_descrs(bool items) {
    for (size_t k = 0; k < sizeof refused_descrs / sizeof refused_descrs[0]; k++) {
        const char *descr = refused_descrs[k].descr, *msg = refused_descrs[k].msg;
        if (refused_descrs[k].items != items) continue;
        if (items) {
            CHECK(!parse_items(descr) && strstr(err, msg) != NULL, "%s: expected \"%s\", got \"%s\"", descr, msg, err);
        } else {
            char d[128];
            snprintf(d, sizeof d, "{'descr': %s, 'fortran_order': False, 'shape': (), }", descr);
            FAILS(d, "", msg);
        }
    }
}

static void test_descr(void) {
    OK("{'descr': '|b1', 'fortran_order': False, 'shape': (), }", "");
    CHECK(h.is_bool && h.dtype == DMLS_UINT8 && strcmp(h.descr, "|b1") == 0, "bool: %s", h.descr);
    OK("{'descr': '|u1', 'fortran_order': False, 'shape': (), }", "");
    CHECK(!h.is_bool && h.dtype == DMLS_UINT8, "u1 is not bool");
    OK("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", "");
    CHECK(!h.is_bool && h.dtype == DMLS_INT32 && strcmp(h.descr, "<i4") == 0, "i4: %s", h.descr);
    check_refused_descrs(false);
    FAILS("{'descr':", "[", "'descr' is malformed, not a simple type string"); /* '[' past the end */
    /* The same for a reader of records: a '[' past the end starts no list. */
    memcpy(file, "\x93NUMPY\x01\x00\x09\x00{'descr':[", 20);
    CHECK(!npy_parse_header_items(name, file, 19, &h, err) && strstr(err, "neither a type string nor a record"),
          "items, '[' past the end: %s", err);
}

/* npy_parse_header_items: every fixed-size dtype NumPy saves without
 * pickling, by item size, run as parts of a same-size unsigned type. */
static bool parse_items(const char *descr) {
    char d[4096];
    snprintf(d, sizeof d, "{'descr': %s, 'fortran_order': False, 'shape': (2,), }", descr);
    const size_t len = put_dict(d, strlen(d));
    err[0] = '\0';
    return npy_parse_header_items(name, file, len, &h, err);
}

static bool host_is_big_endian(void) {
    const uint16_t probe = 0x0102;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 0x01;
}

static void test_item_kinds(void) {
    static const struct {
        const char *descr;
        size_t esize;
        dmls_dtype dtype;
        int64_t parts;
        const char *kind;
    } ok[] = {
        {"'<f4'", 4, DMLS_FLOAT32, 1, "float32"},
        {"'|b1'", 1, DMLS_UINT8, 1, "bool"},
        {"'<c8'", 8, DMLS_UINT64, 1, "complex"},
        {"'>c16'", 16, DMLS_UINT64, 2, "complex"},
        {"'<c32'", 32, DMLS_UINT64, 4, "complex"},
        {"'<f16'", 16, DMLS_UINT64, 2, "extended float"},
        {"'<f12'", 12, DMLS_UINT32, 3, "extended float"},
        {"'<M8[ns]'", 8, DMLS_UINT64, 1, "datetime64"},
        {"'<M8'", 8, DMLS_UINT64, 1, "datetime64"},
        {"'>m8[25s]'", 8, DMLS_UINT64, 1, "timedelta64"},
        {"'|S5'", 5, DMLS_UINT8, 5, "bytes"},
        {"'|a2'", 2, DMLS_UINT16, 1, "bytes"},
        {"'<U3'", 12, DMLS_UINT32, 3, "str"},
        {"'>U1'", 4, DMLS_UINT32, 1, "str"},
        {"'|V6'", 6, DMLS_UINT16, 3, "void"},
        {"'|V1024'", 1024, DMLS_UINT64, 128, "void"},
        {"[('a', '<i4'), ('b', '<f8')]", 12, DMLS_UINT32, 3, "record"},
        {"[('a', '<i4'), ('', '|V4'), ('b', '<f8')]", 16, DMLS_UINT64, 2, "record"},
        {"[('a', [('x', '<i2'), ('y', '|u1')]), ('b', '<f8', (2, 3))]", 51, DMLS_UINT8, 51, "record"},
        {"[(('title', 'a'), '<i4'), ('b', '|S3', 2,)]", 10, DMLS_UINT16, 5, "record"},
        {"[(\"it's\", '<u2'), ('\\'q', '<u2',), ('e', '<f4', ())]", 8, DMLS_UINT64, 1, "record"},
        {"[('a', '<f4', (0,))]", 0, DMLS_UINT8, 0, "record"},
    };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        const bool parsed = parse_items(ok[k].descr);
        if (ok[k].esize == 0) {
            CHECK(!parsed && strstr(err, "t.npy: elements of 0 bytes") != NULL, "%s: %s", ok[k].descr, err);
            continue;
        }
        CHECK(parsed, "%s: %s", ok[k].descr, err);
        CHECK(h.esize == ok[k].esize && h.dtype == ok[k].dtype && h.parts == ok[k].parts &&
                  strcmp(h.kind, ok[k].kind) == 0 && h.data_bytes == 2 * ok[k].esize,
              "%s: %zu-byte items as %" PRId64 " x %s (%s), want %zu as %" PRId64 " x %s (%s)", ok[k].descr, h.esize,
              h.parts, dmls_dtype_name(h.dtype), h.kind, ok[k].esize, ok[k].parts, dmls_dtype_name(ok[k].dtype),
              ok[k].kind);
        /* The descr is kept as written, quotes and all for a record. */
        const bool quoted = ok[k].descr[0] == '\'';
        CHECK(strncmp(h.descr, ok[k].descr + quoted, strlen(ok[k].descr) - 2 * quoted) == 0 &&
                  strlen(h.descr) == strlen(ok[k].descr) - 2 * quoted,
              "%s: kept as %s", ok[k].descr, h.descr);
    }
    /* The strict reader (DirectML's types only) still refuses them. */
    CHECK(!parse("{'descr': '<c8', 'fortran_order': False, 'shape': (), }", ""), "strict reader took <c8");

    /* '=' in a record means this machine's order: written as the order it
     * stands for, as a reader elsewhere could not know it. */
    CHECK(parse_items("[('a', '=i4'), ('=b', '|u1')]"), "record with '=': %s", err);
    const char *want = host_is_big_endian() ? "[('a', '>i4'), ('=b', '|u1')]" : "[('a', '<i4'), ('=b', '|u1')]";
    CHECK(strcmp(h.descr, want) == 0, "record with '=': %s, want %s", h.descr, want);
}

/* Items the tool cannot copy as bits, or whose descr is no NumPy's, are
 * refused with the reason; nesting and the descr's length are bounded. */
static void test_item_refusals(void) {
    check_refused_descrs(true);

    /* Bounded: nesting and the descr's length. */
    char deep[4096] = "";
    for (int i = 0; i < 40; i++) strcat(deep, "[('a', ");
    strcat(deep, "'<i4'");
    for (int i = 0; i < 40; i++) strcat(deep, ")]");
    CHECK(!parse_items(deep) && strstr(err, "nested more than") != NULL, "40 nested records: %s", err);
    static char wide[NPY_MAX_DESCR + 64];
    int n = snprintf(wide, sizeof wide, "[");
    for (int i = 0; n < NPY_MAX_DESCR; i++) n += snprintf(wide + n, sizeof wide - (size_t)n, "('f%d', '<i4'), ", i);
    snprintf(wide + n, sizeof wide - (size_t)n, "]");
    char d[NPY_MAX_DESCR + 128];
    snprintf(d, sizeof d, "{'descr': %s, 'fortran_order': False, 'shape': (), }", wide);
    const size_t len = put_dict(d, strlen(d));
    CHECK(!npy_parse_header_items(name, file, len, &h, err) && strstr(err, "'descr' is over") != NULL,
          "a descr over %d bytes: %s", NPY_MAX_DESCR, err);
}

/* 100 bytes of the header are shown, each escaped to 4 characters. */
static void test_malformed_shown(void) {
    char d[120], want[480] = "t.npy: malformed header dictionary near byte 10 of '";
    memset(d, '\x01', sizeof d);
    for (int i = 0; i < 100; i++) strcat(want, "\\x01");
    strcat(want, "'");
    CHECK(!parse_n(d, sizeof d, "") && strcmp(err, want) == 0, "got %s", err);
    /* 100 printable bytes of a longer header, and a header of 99 (not the data after it) */
    char p[121];
    memset(p, 'x', 120);
    p[120] = '\0';
    snprintf(want, sizeof want, "t.npy: malformed header dictionary near byte 10 of '%.100s'", p);
    CHECK(!parse(p, "") && strcmp(err, want) == 0, "got %s", err);
    p[99] = '\0';
    snprintf(want, sizeof want, "t.npy: malformed header dictionary near byte 10 of '%s'", p);
    CHECK(!parse(p, "yz") && strcmp(err, want) == 0, "got %s", err);
}

static void test_preamble(void) {
    static const unsigned char v1[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0x34, 0x12, '{'};
    static const unsigned char v2[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0x00, 0x00, 0x01, 0x00, '{'};
    static const struct {
        const unsigned char *buf;
        uint64_t len;
        const char *msg; /* NULL: accepted */
        uint64_t offset;
    } cases[] = {
        {v1, 0, "t.npy: not a .npy file (it is empty)", 0},
        {v1, 1, "(shorter than the 6-byte magic)", 0},
        {v1, 6, "(truncated before the header length)", 0},
        {v1, 9, "(truncated before the header length)", 0},
        {v1, 10, NULL, 10 + 0x1234},
        {v2, 11, "(truncated before the header length)", 0},
        {v2, 12, NULL, 12 + 65536},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        err[0] = '\0';
        const bool ok = npy_parse_preamble(name, cases[k].buf, cases[k].len, &h, err);
        if (cases[k].msg)
            CHECK(!ok && strstr(err, cases[k].msg) != NULL, "%" PRIu64 " bytes: expected %s, got %s", cases[k].len,
                  cases[k].msg, err);
        else
            CHECK(ok && h.data_offset == cases[k].offset, "%" PRIu64 " bytes: offset %" PRIu64 " (%s)", cases[k].len,
                  h.data_offset, err);
    }
    static const unsigned char over[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0x01, 0x00, 0x01, 0x00};
    CHECK(!npy_parse_preamble(name, over, sizeof over, &h, err) &&
              strstr(err, "t.npy: the header claims 65537 bytes; at most 65536 are accepted") != NULL,
          "65537: %s", err);
    CHECK(!npy_parse_header(name, v1, sizeof v1, &h, err) &&
              strstr(err, "the header claims 4660 bytes but the file has only 1 after the preamble") != NULL,
          "short header: %s", err);
}

/* The header is padded with spaces and a newline to the next multiple of 64
 * bytes, as NumPy writes it; across the lengths where the dictionary ends
 * just before and just at a boundary, with lengths of one and two bytes. */
static void test_format_header(void) {
    bool exact = false, spill = false, long_len = false;
    for (int32_t ndim = 1; ndim <= NPY_MAX_RANK; ndim++) {
        for (int digits = 1; digits <= 3; digits++) {
            int64_t shape[NPY_MAX_RANK];
            for (int i = 0; i < ndim; i++) shape[i] = i == 0 ? (digits == 1 ? 7 : digits == 2 ? 42 : 123) : 1;
            unsigned char b[NPY_OUT_HEADER_MAX];
            memset(b, 0xa5, sizeof b); /* every byte of the header is written */
            const size_t total = npy_format_header(b, sizeof b, "<f4", 4, ndim, shape);
            const unsigned char *close = memchr(b, '}', total);
            const size_t n = close ? (size_t)(close - b) + 1 - 10 : 0, want = (10 + n + 1 + 63) / 64 * 64;
            bool padded = total > 0 && b[total - 1] == '\n';
            for (size_t k = total; k < sizeof b; k++) padded &= b[k] == 0xa5; /* nothing past the header */
            for (size_t k = 10 + n; padded && k + 1 < total; k++) padded = b[k] == ' ';
            CHECK(close && total == want && padded && b[8] == (total - 10) % 256 && b[9] == (total - 10) / 256,
                  "rank %d: %zu bytes for a dictionary of %zu", (int)ndim, total, n);
            exact |= want == 10 + n + 1;
            spill |= want == 10 + n + 64;
            long_len |= total - 10 >= 256;
            CHECK(npy_parse_header(name, b, total, &h, err) && h.ndim == ndim && h.shape[0] == shape[0],
                  "rank %d: %s", (int)ndim, err);
            /* cap counts every byte of the header */
            CHECK(npy_format_header(b, total, "<f4", 4, ndim, shape) == total &&
                      npy_format_header(b, total - 1, "<f4", 4, ndim, shape) == 0,
                  "rank %d: cap %zu", (int)ndim, total);
        }
    }
    CHECK(exact && spill && long_len, "no dictionary ended at a boundary (%d) or one past it (%d), or had 256 bytes (%d)", exact,
          spill, long_len);
    /* The largest header there is, NPY_MAX_RANK axes of 19 digits, fits
     * NPY_OUT_HEADER_MAX: npy_create's "does not fit" cannot happen. */
    int64_t big[NPY_MAX_RANK];
    for (int i = 0; i < NPY_MAX_RANK; i++) big[i] = INT64_MAX;
    unsigned char b[NPY_OUT_HEADER_MAX];
    const size_t total = npy_format_header(b, sizeof b, "<f8", 8, NPY_MAX_RANK, big);
    CHECK(total > 0 && total % 64 == 0 && b[total - 1] == '\n' && memchr(b, '}', total) != NULL,
          "%d axes of 2^63 - 1: %zu bytes", NPY_MAX_RANK, total);
}

/* Row-major, or column-major in Fortran order; a zero dim counts as 1. */
static void test_strides(void) {
    static const struct {
        bool fortran;
        int32_t ndim;
        int64_t shape[4], want[4];
    } cases[] = {
        {false, 4, {2, 3, 4, 5}, {60, 20, 5, 1}},
        {true, 4, {2, 3, 4, 5}, {1, 2, 6, 24}},
        {false, 3, {3, 0, 2}, {2, 2, 1}},
        {true, 3, {3, 0, 2}, {1, 3, 3}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        npy_header c = {.fortran_order = cases[k].fortran, .ndim = cases[k].ndim};
        memcpy(c.shape, cases[k].shape, sizeof cases[k].shape);
        int64_t s[6] = {-7, -7, -7, -7, -7, -7};
        npy_strides(&c, s + 1);
        CHECK(s[0] == -7 && s[cases[k].ndim + 1] == -7 && memcmp(s + 1, cases[k].want, (size_t)cases[k].ndim * sizeof(int64_t)) == 0,
              "case %zu: %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64, k, s[1], s[2], s[3], s[4]);
    }
}

static void test_escape(void) {
    char out[16];
    /* printable ASCII stays, everything else (backslash included) is \xNN */
    npy_escape(out, sizeof out, " ~\x1f\x7f", 4);
    CHECK(strcmp(out, " ~\\x1f\\x7f") == 0, "escaped: %s", out);
    npy_escape(out, sizeof out, "\\!\x80", 3);
    CHECK(strcmp(out, "\\x5c!\\x80") == 0, "escaped: %s", out);
    /* cap counts the terminator; an escape that does not fit whole is left out */
    static const struct {
        const char *src;
        size_t cap;
        const char *want;
    } cut[] = {
        {"abcdef", 4, "abc"}, {"abc", 4, "abc"},   {"\x01\x02", 5, "\\x01"},     {"\x01\x02", 8, "\\x01"},
        {"\x01\x02", 9, "\\x01\\x02"}, {"a\x01", 5, "a"}, {"a\x01", 6, "a\\x01"}, {"abc", 1, ""},
    };
    for (size_t k = 0; k < sizeof cut / sizeof cut[0]; k++) {
        memset(out, 'Z', sizeof out);
        npy_escape(out, cut[k].cap, cut[k].src, strlen(cut[k].src));
        CHECK(strcmp(out, cut[k].want) == 0 && out[cut[k].cap] == 'Z', "cap %zu: %s", cut[k].cap, out);
    }
    memset(out, 'Z', sizeof out);
    npy_escape(out, 0, "abc", 3);
    CHECK(out[0] == 'Z', "cap 0 wrote %c", out[0]);
}

/* npy_escape_text: UTF-8 that a terminal shows as itself stays, at each
 * edge of what it keeps; controls, overrides and malformed bytes do not. */
static void test_escape_text(void) {
    static const struct {
        const char *src, *want;
    } cases[] = {
        {"a\\b", "a\\b"},                         /* a backslash (Windows' separator) stays */
        {"\x1b[1m\x7f", "\\x1b[1m\\x7f"},          /* ESC and DEL */
        {"\xc2\x80\xc2\x9f\xc2\xa0", "\\xc2\\x80\\xc2\\x9f\xc2\xa0"}, /* C1 controls; U+00A0 stays */
        {"\xc3\xa9\xdf\xbf", "\xc3\xa9\xdf\xbf"},   /* 2 bytes, the last of them */
        {"\xc1\xbf", "\\xc1\\xbf"},                /* overlong */
        {"\xe0\x9f\xbf\xe0\xa0\x80", "\\xe0\\x9f\\xbf\xe0\xa0\x80"}, /* overlong 3 bytes; U+0800 */
        {"\xed\x9f\xbf\xed\xa0\x80", "\xed\x9f\xbf\\xed\\xa0\\x80"}, /* U+D7FF; a surrogate */
        {"\xe2\x80\xa9\xe2\x80\xaa\xe2\x80\xae\xe2\x80\xaf",
         "\xe2\x80\xa9\\xe2\\x80\\xaa\\xe2\\x80\\xae\xe2\x80\xaf"},   /* U+202A-U+202E */
        {"\xe2\x81\xa5\xe2\x81\xa6\xe2\x81\xa9\xe2\x81\xaa",
         "\xe2\x81\xa5\\xe2\\x81\\xa6\\xe2\\x81\\xa9\xe2\x81\xaa"},   /* U+2066-U+2069 */
        {"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"}, /* 4 bytes */
        {"\xf0\x8f\xbf\xbf", "\\xf0\\x8f\\xbf\\xbf"},   /* overlong 4 bytes */
        {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},   /* past U+10FFFF */
        {"\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80"},
        {"\xe2\x82", "\\xe2\\x82"},                /* cut short */
        {"\xe2\x28\xa1", "\\xe2(\\xa1"},           /* a byte that does not continue */
    };
    char out[128];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        npy_escape_text(out, sizeof out, cases[k].src, strlen(cases[k].src));
        CHECK(strcmp(out, cases[k].want) == 0, "case %zu: %s", k, out);
    }
    /* a character kept whole or not at all at the cap */
    memset(out, 'Z', sizeof out);
    npy_escape_text(out, 3, "a\xc3\xa9", 3);
    CHECK(strcmp(out, "a") == 0 && out[3] == 'Z', "cap 3: %s", out);
    npy_escape_text(out, 4, "a\xc3\xa9", 3);
    CHECK(strcmp(out, "a\xc3\xa9") == 0, "cap 4: %s", out);
}

int main(void) {
    test_dictionary_end();
    test_layout();
    test_keys();
    test_numbers();
    test_descr();
    test_item_kinds();
    test_item_refusals();
    test_malformed_shown();
    test_preamble();
    test_format_header();
    test_strides();
    test_escape();
    test_escape_text();
    TEST_MAIN_END();
}
