/* Checked parsing of command-line values: integers and comma-separated
 * integer lists (overflow is an error, never a wrap), feature levels and
 * data type names. Each parser prints its own error, naming the option and
 * the offending text, to stderr and returns false. */
#ifndef DMLSLICE_TOOLS_ARGS_H
#define DMLSLICE_TOOLS_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlslice/dml.h"

/* At most this many values in a list: one per axis. */
#define ARGS_MAX_LIST DMLS_MAX_RANK

/* The program name and subcommand for messages ("dmlslice slice"). */
extern const char *args_prog;

/* A whole-string decimal int64 (optional sign, no spaces inside). */
bool args_int64(const char *opt, const char *text, int64_t *value);

/* "1,-2,3" into values (at most ARGS_MAX_LIST); "" is the empty list.
 * Spaces around values are allowed. */
bool args_list(const char *opt, const char *text, int64_t *values, int32_t *count);

/* "6_4", "6.4" or "0x6400" into a feature level DirectML lists. */
bool args_feature_level(const char *opt, const char *text, DML_FEATURE_LEVEL *level);

/* "float32", "int8", ... (dmls_dtype_name's names) or "bool" (copied as
 * uint8). */
bool args_dtype(const char *opt, const char *text, dmls_dtype *dtype, bool *is_bool);

/* Splits "--opt=value" into the option (copied into buf) and *inline_value;
 * any other argument is returned as is with *inline_value NULL. */
const char *args_option(const char *arg, char *buf, size_t cap, const char **inline_value);

/* The value of opt: the inline one, or the next argument (advancing *i).
 * Prints an error and returns false when there is none. */
bool args_value(const char *opt, const char *inline_value, int argc, char **argv, int *i, const char **value);

/* True for an argument that looks like an option ("-x", "--x"); "-" alone
 * and negative numbers are not options. */
bool args_is_option(const char *arg);

#endif
