/* See values.h. */
#include "values.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ascii.h"

typedef struct dtype_info {
    const char *name;
    DML_TENSOR_DATA_TYPE type;
    size_t size;
    bool is_float, is_signed;
} dtype_info;

static const dtype_info dtypes[] = {
    {"UNKNOWN", DML_TENSOR_DATA_TYPE_UNKNOWN, 0, false, false},
    {"FLOAT32", DML_TENSOR_DATA_TYPE_FLOAT32, 4, true, true},
    {"FLOAT16", DML_TENSOR_DATA_TYPE_FLOAT16, 2, true, true},
    {"UINT32", DML_TENSOR_DATA_TYPE_UINT32, 4, false, false},
    {"UINT16", DML_TENSOR_DATA_TYPE_UINT16, 2, false, false},
    {"UINT8", DML_TENSOR_DATA_TYPE_UINT8, 1, false, false},
    {"INT32", DML_TENSOR_DATA_TYPE_INT32, 4, false, true},
    {"INT16", DML_TENSOR_DATA_TYPE_INT16, 2, false, true},
    {"INT8", DML_TENSOR_DATA_TYPE_INT8, 1, false, true},
    {"FLOAT64", DML_TENSOR_DATA_TYPE_FLOAT64, 8, true, true},
    {"UINT64", DML_TENSOR_DATA_TYPE_UINT64, 8, false, false},
    {"INT64", DML_TENSOR_DATA_TYPE_INT64, 8, false, true},
    {"UINT4", DML_TENSOR_DATA_TYPE_UINT4, 0, false, false},
    {"INT4", DML_TENSOR_DATA_TYPE_INT4, 0, false, true},
};
#define DTYPE_COUNT (sizeof dtypes / sizeof dtypes[0])

static const dtype_info *info(DML_TENSOR_DATA_TYPE type) {
    for (size_t i = 0; i < DTYPE_COUNT; i++)
        if (dtypes[i].type == type) return &dtypes[i];
    return &dtypes[0];
}

bool values_parse_dtype(const char *text, DML_TENSOR_DATA_TYPE *type) {
    static const char prefix[] = "DML_TENSOR_DATA_TYPE_";
    if (strncmp(text, prefix, sizeof prefix - 1) == 0) text += sizeof prefix - 1;
    for (size_t i = 0; i < DTYPE_COUNT; i++) {
        if (strcmp(text, dtypes[i].name) == 0) {
            *type = dtypes[i].type;
            return true;
        }
    }
    return false;
}

const char *values_dtype_name(DML_TENSOR_DATA_TYPE type) { return info(type)->name; }

size_t values_dtype_size(DML_TENSOR_DATA_TYPE type) { return info(type)->size; }

uint16_t values_float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    const uint32_t abs = x & 0x7FFFFFFFu;
    if (abs >= 0x7F800000u) return (uint16_t)(sign | 0x7C00u | (abs > 0x7F800000u ? 0x200u : 0)); /* inf, nan */
    if (abs >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u); /* rounds past 65504: inf */
    if (abs < 0x38800000u) {
        /* A half subnormal (or zero): the value in units of 2^-24, rounded to
         * nearest even. */
        if (abs < 0x33000000u) return sign; /* below half of the smallest subnormal */
        const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
        const int shift = 126 - (int)(abs >> 23); /* 14..24 */
        uint32_t h = mant >> shift;
        const uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rest > half || (rest == half && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((abs >> 13) - (112u << 10));
    const uint32_t rest = abs & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

float values_half_to_float(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
    uint32_t x;
    if (exp == 0x1F) {
        x = sign | 0x7F800000u | (mant << 13);
    } else if (exp != 0) {
        x = sign | ((exp + 112u) << 23) | (mant << 13);
    } else {
        const float v = (float)mant * (1.0f / 16777216.0f); /* mant * 2^-24, exact */
        memcpy(&x, &v, 4);
        x |= sign;
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static void store(unsigned char *out, size_t size, uint64_t bits) {
    /* Little-endian element bytes, as DirectML's buffers hold them. */
    for (size_t i = 0; i < size; i++) out[i] = (unsigned char)(bits >> (8 * i));
}

static uint64_t load(const unsigned char *in, size_t size) {
    uint64_t bits = 0;
    for (size_t i = 0; i < size; i++) bits |= (uint64_t)in[i] << (8 * i);
    return bits;
}

static void store_double(DML_TENSOR_DATA_TYPE type, unsigned char *out, double d) {
    if (type == DML_TENSOR_DATA_TYPE_FLOAT64) {
        uint64_t b;
        memcpy(&b, &d, 8);
        store(out, 8, b);
        return;
    }
    const float f = (float)d;
    uint32_t b;
    memcpy(&b, &f, 4);
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) store(out, 4, b);
    else store(out, 2, values_float_to_half(f));
}

static double load_double(DML_TENSOR_DATA_TYPE type, const unsigned char *in) {
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) return values_half_to_float((uint16_t)load(in, 2));
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        const uint32_t b = (uint32_t)load(in, 4);
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    const uint64_t b = load(in, 8);
    double d;
    memcpy(&d, &b, 8);
    return d;
}

bool values_parse(const json_t *value, DML_TENSOR_DATA_TYPE type, unsigned char *out, char *why) {
    const dtype_info *t = info(type);
    if (t->size == 0) {
        snprintf(why, 200, "the data type %s has no JSON values", t->name);
        return false;
    }
    if (t->is_float) {
        double d;
        if (json_is_number(value)) {
            d = json_number_value(value);
        } else if (json_is_string(value)) {
            const char *s = json_string_value(value);
            if (ascii_equal_nocase(s, "nan")) d = NAN;
            else if (ascii_equal_nocase(s, "inf")) d = INFINITY;
            else if (ascii_equal_nocase(s, "-inf")) d = -INFINITY;
            else {
                snprintf(why, 200, "the string \"%.40s\" is not a number ('nan', 'inf' or '-inf' are)", s);
                return false;
            }
        } else {
            snprintf(why, 200, "expected a number or 'nan', 'inf', '-inf' for %s", t->name);
            return false;
        }
        store_double(type, out, d);
        return true;
    }
    if (!json_is_integer(value)) {
        snprintf(why, 200, "expected an integer for %s%s", t->name,
                 json_is_real(value) ? " (integer types take no fraction or exponent)" : "");
        return false;
    }
    const json_int_t v = json_integer_value(value);
    const int bits = (int)(t->size * 8);
    if (t->is_signed) {
        const int64_t lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
        const int64_t hi = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
        if (v < lo || v > hi) {
            snprintf(why, 200, "%lld does not fit %s (%" PRId64 " to %" PRId64 ")", (long long)v, t->name, lo, hi);
            return false;
        }
    } else {
        const uint64_t hi = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
        if (v < 0 || (uint64_t)v > hi) {
            snprintf(why, 200, "%lld does not fit %s (0 to %" PRIu64 ")", (long long)v, t->name, hi);
            return false;
        }
    }
    store(out, t->size, (uint64_t)v);
    return true;
}

void values_step(DML_TENSOR_DATA_TYPE type, unsigned char *value, const unsigned char *delta) {
    const dtype_info *t = info(type);
    if (t->is_float) {
        if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
            /* Single-precision addition, as the C++ float += float. */
            const float sum = (float)load_double(type, value) + (float)load_double(type, delta);
            store_double(type, value, sum);
        } else {
            store_double(type, value, load_double(type, value) + load_double(type, delta));
        }
        return;
    }
    store(value, t->size, load(value, t->size) + load(delta, t->size));
}

void values_print(FILE *f, DML_TENSOR_DATA_TYPE type, const unsigned char *element) {
    const dtype_info *t = info(type);
    if (t->is_float) {
        fprintf(f, "%g", load_double(type, element));
        return;
    }
    const uint64_t bits = load(element, t->size);
    if (!t->is_signed) {
        fprintf(f, "%" PRIu64, bits);
        return;
    }
    const int shift = 64 - (int)(t->size * 8);
    /* Sign-extend through the top bits. */
    const int64_t v = (int64_t)(bits << shift) >> shift;
    fprintf(f, "%" PRId64, v);
}
