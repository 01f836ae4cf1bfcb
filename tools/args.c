/* Checked value parsing for the dmlslice tool; see args.h. */
#include "args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *args_prog = "dmlslice";

static bool parse_int64(const char *s, const char *end, int64_t *value, bool *overflow) {
    *overflow = false;
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t')) end--;
    bool neg = false;
    if (s < end && (*s == '+' || *s == '-')) neg = *s++ == '-';
    if (s == end) return false;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t mag = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9') return false;
        const uint64_t d = (uint64_t)(*s - '0');
        if (mag > (limit - d) / 10) {
            *overflow = true;
            return false;
        }
        mag = mag * 10 + d;
    }
    *value = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return true;
}

bool args_int64(const char *opt, const char *text, int64_t *value) {
    bool overflow;
    if (parse_int64(text, text + strlen(text), value, &overflow)) return true;
    fprintf(stderr, "%s: %s: '%s' is %s\n", args_prog, opt, text,
            overflow ? "outside the 64-bit integer range" : "not an integer");
    return false;
}

/* The list parser of args_list and args_values; per_axis: the limit is the
 * rank's, and the message says so. */
static bool parse_list(const char *opt, const char *text, int64_t *values, int32_t max, bool per_axis,
                       int32_t *count) {
    *count = 0;
    const char *p = text;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\0') return true;
    for (int32_t i = 0;; i++) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        if (i == max) {
            if (per_axis)
                fprintf(stderr, "%s: %s: more than %d values in '%s' (one per axis, rank at most %d)\n", args_prog,
                        opt, (int)max, text, DMLS_MAX_RANK);
            else
                fprintf(stderr, "%s: %s: more than %d values\n", args_prog, opt, (int)max);
            return false;
        }
        bool overflow;
        if (!parse_int64(p, end, &values[i], &overflow)) {
            fprintf(stderr, "%s: %s: value %d ('%.*s') is %s\n", args_prog, opt, (int)i, (int)(end - p), p,
                    overflow ? "outside the 64-bit integer range" : "not an integer");
            return false;
        }
        *count = i + 1;
        if (comma == NULL) return true;
        p = comma + 1;
    }
}

bool args_list(const char *opt, const char *text, int64_t *values, int32_t *count) {
    return parse_list(opt, text, values, ARGS_MAX_LIST, true, count);
}

bool args_values(const char *opt, const char *text, int64_t *values, int32_t max, int32_t *count) {
    return parse_list(opt, text, values, max, false, count);
}

/* Exactly "M_m", "M.m" or "0x" and hex digits: nothing before or after. */
bool args_feature_level(const char *opt, const char *text, DML_FEATURE_LEVEL *level) {
    static const DML_FEATURE_LEVEL levels[] = {
        DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
        DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
        DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
        DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4};
    const size_t n = strlen(text);
    char norm[8] = "";
    bool is_hex = n > 2 && n <= 6 && text[0] == '0' && text[1] == 'x';
    unsigned long hex = 0;
    for (size_t i = 2; is_hex && i < n; i++) {
        const char c = text[i];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) is_hex = false;
        else hex = hex * 16 + (unsigned long)d;
    }
    if (!is_hex && n < sizeof norm)
        for (size_t i = 0; i <= n; i++) norm[i] = text[i] == '.' ? '_' : text[i];
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        if (is_hex ? hex == (unsigned long)levels[i] : strcmp(norm, dmls_feature_level_name(levels[i])) == 0) {
            *level = levels[i];
            return true;
        }
    }
    fprintf(stderr, "%s: %s: '%s' is not a DirectML feature level (1_0, 2_0, 2_1, 3_0, 3_1, 4_0, 4_1, 5_0, 5_1, "
                    "5_2, 6_0, 6_1, 6_2, 6_3, 6_4; also written 6.4 or 0x6400)\n",
            args_prog, opt, text);
    return false;
}

bool args_dtype(const char *opt, const char *text, dmls_dtype *dtype, bool *is_bool) {
    *is_bool = strcmp(text, "bool") == 0;
    if (*is_bool) {
        *dtype = DMLS_UINT8;
        return true;
    }
    for (int t = DMLS_FLOAT32; t <= DMLS_INT64; t++) {
        if (strcmp(text, dmls_dtype_name((dmls_dtype)t)) == 0) {
            *dtype = (dmls_dtype)t;
            return true;
        }
    }
    fprintf(stderr, "%s: %s: '%s' is not a data type (float32, float16, float64, int8, int16, int32, int64, uint8, "
                    "uint16, uint32, uint64, bool)\n",
            args_prog, opt, text);
    return false;
}
