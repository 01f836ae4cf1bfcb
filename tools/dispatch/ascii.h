/* Names compared without case, as DxDispatch compares its type names and
 * file extensions. ASCII only and independent of the locale, where POSIX's
 * strcasecmp follows the locale (and MSVC spells it _stricmp). */
#ifndef DMLSLICE_TOOLS_DISPATCH_ASCII_H
#define DMLSLICE_TOOLS_DISPATCH_ASCII_H

#include <stdbool.h>
#include <string.h>

static inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

static inline bool ascii_equal_nocase(const char *a, const char *b) {
    for (; *a && ascii_lower(*a) == ascii_lower(*b); a++, b++) {}
    return ascii_lower(*a) == ascii_lower(*b);
}

/* True when s ends with suffix, case aside (".NPY" ends with ".npy"). */
static inline bool ascii_ends_with_nocase(const char *s, const char *suffix) {
    const size_t n = strlen(s), k = strlen(suffix);
    return n >= k && ascii_equal_nocase(s + n - k, suffix);
}

#endif
