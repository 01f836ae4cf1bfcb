/* Internal error reporting: every failure sets a thread-local message and
 * rule ID, then returns its status. */
#ifndef DMLS_ERROR_H
#define DMLS_ERROR_H

#include "compiler.h"
#include "dmlslice/dmlslice.h"

/* Where the compiler can, a message whose arguments disagree with its
 * format is a compile-time warning rather than a garbled error later.
 * MinGW's GCC (not clang) reads "printf" as msvcrt's formats (no %zu, %llu as
 * I64u); the build uses MinGW's own C99 stdio (__USE_MINGW_ANSI_STDIO,
 * CMakeLists.txt), whose formats are GNU's. */
#if DMLS_GNU_C && defined(__MINGW32__) && !defined(__clang__)
#define DMLS_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif DMLS_GNU_C
#define DMLS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define DMLS_PRINTF(a, b)
#endif

/* Records "<message> (<rule>)" (or just the message when rule is NULL) for
 * dmls_last_error() and returns status. */
dmls_status dmls_fail(dmls_status status, const char *rule, const char *fmt, ...) DMLS_PRINTF(3, 4);

/* Clears the calling thread's message: called on entry by every public call
 * that can fail, so a success never leaves a stale message behind. */
void dmls_clear_error(void);

/* Fail with status when cond holds. */
#define RETURN_IF(cond, status, rule, ...)                  \
    do {                                                    \
        if (cond) return dmls_fail((status), (rule), __VA_ARGS__); \
    } while (0)

/* Propagate a failed status (its message is already set). */
#define RETURN_IF_ERROR(expr)                   \
    do {                                        \
        dmls_status dmls_s_ = (expr);           \
        if (dmls_s_ != DMLS_OK) return dmls_s_; \
    } while (0)

#endif
