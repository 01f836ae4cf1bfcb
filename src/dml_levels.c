/* DirectML's feature levels: their names and the table of what each slice
 * operator accepts from which level on (docs/spec.md section 4). */
#include <stdio.h>

#include "dml_types.h"

const char *dmls_feature_level_name(DML_FEATURE_LEVEL level) {
    switch (level) {
    case DML_FEATURE_LEVEL_1_0: return "1_0";
    case DML_FEATURE_LEVEL_2_0: return "2_0";
    case DML_FEATURE_LEVEL_2_1: return "2_1";
    case DML_FEATURE_LEVEL_3_0: return "3_0";
    case DML_FEATURE_LEVEL_3_1: return "3_1";
    case DML_FEATURE_LEVEL_4_0: return "4_0";
    case DML_FEATURE_LEVEL_4_1: return "4_1";
    case DML_FEATURE_LEVEL_5_0: return "5_0";
    case DML_FEATURE_LEVEL_5_1: return "5_1";
    case DML_FEATURE_LEVEL_5_2: return "5_2";
    case DML_FEATURE_LEVEL_6_0: return "6_0";
    case DML_FEATURE_LEVEL_6_1: return "6_1";
    case DML_FEATURE_LEVEL_6_2: return "6_2";
    case DML_FEATURE_LEVEL_6_3: return "6_3";
    case DML_FEATURE_LEVEL_6_4: return "6_4";
    }
    return NULL;
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
