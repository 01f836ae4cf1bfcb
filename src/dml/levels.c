/* DirectML's feature levels: their names and the table of what each slice
 * operator accepts from which level on (docs/spec.md section 4). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types.h"
#include "error.h"

/* Every DML_FEATURE_LEVEL, oldest first, as (major, minor): the one list
 * the library, the tool and the Python package read (dmls_feature_level_at).
 * The table, the names and the list in parse's message are made from it. */
#define LEVELS(X) \
    X(1, 0) X(2, 0) X(2, 1) X(3, 0) X(3, 1) X(4, 0) X(4, 1) X(5, 0) X(5, 1) X(5, 2) X(6, 0) X(6, 1) X(6, 2) X(6, 3) X(6, 4)

#define ROW(major, minor) {DML_FEATURE_LEVEL_##major##_##minor, #major "_" #minor},
static const struct {
    DML_FEATURE_LEVEL level;
    const char *name;
} known[] = {LEVELS(ROW)};
#define KNOWN_COUNT (sizeof known / sizeof known[0])

/* ", 1_0, 2_0, ..., 6_4": the message skips the first ", ". */
#define LISTED(major, minor) ", " #major "_" #minor
static const char listed[] = LEVELS(LISTED);

const char *dmls_feature_level_name(DML_FEATURE_LEVEL level) {
    for (size_t i = 0; i < KNOWN_COUNT; i++)
        if (known[i].level == level) return known[i].name;
    return NULL;
}

DML_FEATURE_LEVEL dmls_feature_level_at(size_t index) {
    return index < KNOWN_COUNT ? known[index].level : (DML_FEATURE_LEVEL)0;
}

size_t dmls_feature_level_count(void) { return KNOWN_COUNT; }

/* The value of the hex form, "0x" or "0X" and up to 8 hex digits with
 * nothing else (text is n bytes and a NUL), or 0, which is no level, for
 * any other text. */
static unsigned long parse_hex(const char *text, size_t n) {
    const bool hex_form = n <= 10 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') &&
                          strspn(text + 2, "0123456789abcdefABCDEF") == n - 2;
    return hex_form ? strtoul(text + 2, NULL, 16) : 0;
}

/* "M_m" or "M.m" as listed: the name with its '_' written either way, and
 * nothing after it. Reads text no further than the name's length + 1. */
static bool names_level(const char *text, const char *name) {
    for (;; text++, name++) {
        if (*text != *name && !(*name == '_' && *text == '.')) return false;
        if (*name == '\0') return true;
    }
}

/* The text for a message: its first 32 bytes, then "..." if there is
 * more, anything outside printable ASCII as '?', so that a hostile string
 * cannot garble the message. */
static void quote(const char *text, size_t n, char buf[36]) {
    size_t used = 0;
    for (; used < n && used < 32; used++) buf[used] = text[used] >= 0x20 && text[used] <= 0x7e ? text[used] : '?';
    buf[used] = '\0';
    if (n > 32) strcat(buf, "...");
}

dmls_status dmls_feature_level_parse(const char *text, DML_FEATURE_LEVEL *level) {
    dmls_clear_error();
    RETURN_IF(text == NULL || level == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "feature_level_parse: %s is NULL", text == NULL ? "text" : "level");
    /* No form is longer than 10 bytes: counting stops soon after, so a
     * long string is neither read to its end nor matched. */
    size_t n = 0;
    while (n < 40 && text[n] != '\0') n++;
    const unsigned long hex = parse_hex(text, n);
    for (size_t i = 0; i < KNOWN_COUNT; i++) {
        if (hex != 0 ? hex == (unsigned long)known[i].level : names_level(text, known[i].name)) {
            *level = known[i].level;
            return DMLS_OK;
        }
    }
    char shown[36];
    quote(text, n, shown);
    const char *last = known[KNOWN_COUNT - 1].name;
    const int major = (int)strcspn(last, "_");
    return dmls_fail(DMLS_ERROR_INVALID_ARGUMENT, NULL,
                     "'%s' is not a DirectML feature level (%s; also written %.*s.%s or 0x%X)", shown, listed + 2,
                     major, last, last + major + 1, (unsigned)known[KNOWN_COUNT - 1].level);
}

#define TYPES_FL1_0                                                                           \
    (DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE_FLOAT32) | DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE_FLOAT16) |        \
     DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE_INT32) | DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE_INT16) |            \
     DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE_UINT32) | DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE_UINT16))
#define TYPES_8 (TYPES_FL1_0 | DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE_INT8) | DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE_UINT8))
#define TYPES_8_64                                                                            \
    (TYPES_8 | DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE_FLOAT64) | DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE_INT64) | \
     DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE_UINT64))

typedef dmls_dml_support support_row;

static const support_row slice_rows[] = {
    {DML_FEATURE_LEVEL_1_0, 4, 5, TYPES_FL1_0},
    {DML_FEATURE_LEVEL_2_1, 4, 5, TYPES_8},
    {DML_FEATURE_LEVEL_3_0, 1, 8, TYPES_8},
    {DML_FEATURE_LEVEL_4_1, 1, 8, TYPES_8_64},
};
static const support_row slice1_rows[] = {
    {DML_FEATURE_LEVEL_2_1, 4, 5, TYPES_8},
    {DML_FEATURE_LEVEL_3_0, 1, 8, TYPES_8},
    {DML_FEATURE_LEVEL_4_1, 1, 8, TYPES_8_64},
};
/* 3_1 raised SLICE_GRAD's dimension limit from 4 to 8 (docs/spec.md
 * section 2, recorded decisions). */
static const support_row grad_rows[] = {
    {DML_FEATURE_LEVEL_3_0, 1, 4, TYPES_8},
    {DML_FEATURE_LEVEL_3_1, 1, 8, TYPES_8},
    {DML_FEATURE_LEVEL_4_1, 1, 8, TYPES_8_64},
};

const dmls_dml_support *dmls_dml_support_at(DML_OPERATOR_TYPE op, DML_FEATURE_LEVEL level,
                                            DML_FEATURE_LEVEL *introduced) {
    const support_row *rows = NULL;
    size_t n = 0;
    switch (op) {
    case DML_OPERATOR_SLICE: rows = slice_rows, n = sizeof slice_rows / sizeof slice_rows[0]; break;
    case DML_OPERATOR_SLICE1: rows = slice1_rows, n = sizeof slice1_rows / sizeof slice1_rows[0]; break;
    case DML_OPERATOR_SLICE_GRAD: rows = grad_rows, n = sizeof grad_rows / sizeof grad_rows[0]; break;
    case DML_OPERATOR_INVALID: return NULL;
    }
    if (introduced != NULL && n > 0) *introduced = rows[0].from;
    const support_row *found = NULL;
    for (size_t i = 0; i < n; i++)
        if ((unsigned)level >= (unsigned)rows[i].from) found = &rows[i];
    return found;
}

const char *dmls_dml_type_name(unsigned t) {
    static const char *const names[] = {"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32", "UINT16",
                                        "UINT8",   "INT32",   "INT16",   "INT8",   "FLOAT64",
                                        "UINT64",  "INT64",   "UINT4",   "INT4"};
    return t < sizeof names / sizeof names[0] ? names[t] : "?";
}

/* "FLOAT32, FLOAT16, ..." for a type mask, into buf. */
const char *dmls_dml_type_list(unsigned mask, char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = '\0';
    static const unsigned order[] = {9, 1, 2, 11, 6, 7, 8, 10, 3, 4, 5}; /* DirectML's documentation's order */
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (!(mask & DMLS_TYPE_BIT(order[i]))) continue;
        int n = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", dmls_dml_type_name(order[i]));
        if (n < 0 || (size_t)n >= cap - used) break;
        used += (size_t)n;
    }
    return buf;
}
