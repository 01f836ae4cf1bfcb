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

bool args_feature_level(const char *opt, const char *text, DML_FEATURE_LEVEL *level) {
    if (dmls_feature_level_parse(text, level) == DMLS_OK) return true;
    fprintf(stderr, "%s: %s: %s\n", args_prog, opt, dmls_last_error());
    return false;
}

DML_FEATURE_LEVEL args_latest_feature_level(void) { return dmls_feature_level_at(dmls_feature_level_count() - 1); }

void args_feature_levels_help(FILE *f) {
    fprintf(f, "\nfeature levels (--feature-level; the default is the latest, %s):\n ",
            dmls_feature_level_name(args_latest_feature_level()));
    for (size_t i = 0; i < dmls_feature_level_count(); i++)
        fprintf(f, "%s %s", i ? "," : "", dmls_feature_level_name(dmls_feature_level_at(i)));
    fputs("\n", f);
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
