/* Checked parsing of command-line values: integers and comma-separated
 * integer lists (overflow is an error, never a wrap), feature levels and
 * data type names. Each parser prints its own error, naming the option and
 * the offending text, to stderr and returns false. */
#ifndef DMLSLICE_TOOLS_ARGS_H
#define DMLSLICE_TOOLS_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* The same for a list of at most max values that is not one per axis
 * (split's --sizes). */
bool args_values(const char *opt, const char *text, int64_t *values, int32_t max, int32_t *count);

/* --feature-level's text (dmls_feature_level_parse); on failure prints the
 * library's message after the option's name. */
bool args_feature_level(const char *opt, const char *text, DML_FEATURE_LEVEL *level);

/* The default --feature-level: the latest the library lists. */
DML_FEATURE_LEVEL args_latest_feature_level(void);

/* The levels --feature-level takes, as the library lists them, for the
 * help of each command that has the option (command_def.more_help). */
void args_feature_levels_help(FILE *f);

/* "float32", "int8", ... (dmls_dtype_name's names) or "bool" (copied as
 * uint8). */
bool args_dtype(const char *opt, const char *text, dmls_dtype *dtype, bool *is_bool);

#endif
