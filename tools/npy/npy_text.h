/* The .npy header dictionary's text, for the two files that read it
 * (npy_format.c: the dictionary; npy_descr.c: its 'descr' value): a
 * tokenizer over Python literal syntax, the host's byte order, and the two
 * readers of 'descr'. Internal to tools/npy/. */
#ifndef DMLSLICE_TOOLS_NPY_TEXT_H
#define DMLSLICE_TOOLS_NPY_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "npy_format.h"

typedef struct hparser {
    const char *p, *end;
} hparser;

static inline void hws(hparser *hp) {
    while (hp->p < hp->end && (*hp->p == ' ' || *hp->p == '\t' || *hp->p == '\n' || *hp->p == '\r')) hp->p++;
}

/* True when the next character after whitespace is c; it is not taken.
 * The one bound check of a look ahead, which no reader repeats. */
static inline bool hpeek(hparser *hp, char c) {
    hws(hp);
    return hp->p < hp->end && *hp->p == c;
}

static inline bool hchar(hparser *hp, char c) {
    if (!hpeek(hp, c)) return false;
    hp->p++;
    return true;
}

/* A quoted Python string into out (cap bytes); false when absent or too long. */
static inline bool hstring(hparser *hp, char *out, size_t cap) {
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

static inline bool hword(hparser *hp, const char *w) {
    hws(hp);
    const size_t n = strlen(w);
    if ((size_t)(hp->end - hp->p) >= n && strncmp(hp->p, w, n) == 0) {
        hp->p += n;
        return true;
    }
    return false;
}

/* A non-negative decimal integer; *overflow when it exceeds int64. */
static inline bool hint(hparser *hp, int64_t *v, bool *overflow) {
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
static inline bool host_big_endian(void) {
    const uint16_t probe = 0x0102;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 0x01;
}

/* The 'descr' value at hp, into h (descr, dtype, esize, parts...): for
 * npy_parse_header a type string DirectML has; for npy_parse_header_items
 * any fixed-size dtype, records included, by item size. False with a
 * message naming the file (name) in err. */
bool npy_descr_strict(const char *name, hparser *hp, npy_header *h, char *err);
bool npy_descr_items(const char *name, hparser *hp, npy_header *h, char *err);

#endif
