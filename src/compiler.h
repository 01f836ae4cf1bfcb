/* Whether the GNU C extensions are there, decided in one place for the
 * library and the tool: every use of one (an overflow or CPU builtin, a
 * function attribute, inline assembly) sits under #if DMLS_GNU_C, beside
 * the plain C11 that MSVC and other compilers take instead.
 *
 * DMLS_GNU_C is 1 for gcc, clang and the compilers that define __GNUC__ as
 * they do; 0 for MSVC, clang-cl (no __GNUC__: it takes MSVC's path) and
 * other C11 compilers. It is also 0 in a build configured with
 * -DDMLS_PORTABLE_FALLBACKS=ON, so that gcc or clang compile and test the
 * fallbacks: CI builds that way with clang -pedantic-errors and runs the
 * suite, and tests/check_portable.py proves that no GNU-only token is left
 * in what such a compiler sees (docs/platforms.md). */
#ifndef DMLS_COMPILER_H
#define DMLS_COMPILER_H

#if defined(__GNUC__) && !defined(DMLS_PORTABLE_FALLBACKS)
#define DMLS_GNU_C 1
#else
#define DMLS_GNU_C 0
#endif

/* Makes a function inline where the constants of its call are what make it
 * fast: a kernel's body called with an item width or a channel count that
 * is a literal, so that its loops over them unroll. */
#if DMLS_GNU_C
#define DMLS_ALWAYS_INLINE __attribute__((always_inline))
#else
#define DMLS_ALWAYS_INLINE
#endif

#endif
