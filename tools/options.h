/* The one option parser of the dmlslice tool, and the one home of its usage
 * text: each command describes its options in a table (name, value, help
 * line), and the same table drives parsing and `dmlslice CMD --help`.
 *
 * Rules every command shares: "--opt=value" or "--opt value"; "--" ends the
 * options (what follows is an argument even if it starts with '-'); "-"
 * alone and negative numbers are arguments; an option not in the command's
 * tables is "unknown"; an option that takes a value may be given once
 * (but -o in a command with many outputs). The parser itself is
 * options_parse: commands see only its result. */
#ifndef DMLSLICE_TOOLS_OPTIONS_H
#define DMLSLICE_TOOLS_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "device_opt.h"

typedef struct option_def {
    const char *name;  /* "--threads"; NULL ends a table */
    const char *alias; /* "-t", or NULL */
    const char *value; /* the value's name in the help ("N"), or NULL for a flag */
    const char *help;  /* one or more lines, '\n' between them */
} option_def;

/* A group of options with a heading in the help ("options", "PARAMS"). */
typedef struct option_group {
    const char *heading;
    const option_def *options;
    const char *note; /* printed after the group, or NULL */
} option_group;

#define COMMAND_MAX_GROUPS 4

typedef struct command_def {
    const char *name;     /* "slice" */
    const char *synopsis; /* what follows "dmlslice slice " in the usage line */
    const char *summary;  /* what the command does, a few lines */
    option_group groups[COMMAND_MAX_GROUPS]; /* unused ones have options NULL */
    const char *details;  /* printed after the options, or NULL */
    const char *examples; /* one command per line, continued with " \\"; run by the tests */
    int (*run)(int argc, char **argv);
    void (*more_help)(FILE *f); /* help computed at run time, after the details; or NULL */
    const char *argument; /* what its one positional argument is ("input file", "model"); NULL: none */
    bool many_outputs;    /* -o may be given more than once (split) */
    bool copies;          /* copies into files: its --threads (OPTIONS_COPY_TAIL) is shared, into
                           * common_options.threads; bench's own --threads means something else */
} command_def;

/* The options every command takes. */
extern const option_def options_common[];

/* The --device row: the device names (DEVICE_NAMES), then `what`, the
 * command's own words on what it does there. */
#define OPTION_DEVICE(what) {"--device", NULL, "D", DEVICE_NAMES what}

/* The last rows of a command that copies into files (slice, grad, split,
 * crops): where it runs, on how many threads, -f and -q, in that order in
 * every help; each command says in its own words what they do there. */
#define OPTIONS_COPY_TAIL(device_help, threads_help, force_help, quiet_help)                                          \
    OPTION_DEVICE(device_help), {"--threads", NULL, "N", threads_help},                                               \
        {"--force", "-f", NULL, force_help}, {"--quiet", "-q", NULL, quiet_help}, {NULL, NULL, NULL, NULL}

/* The threads of a plain copy (split, crops). */
#define OPTIONS_COPY_THREADS "threads for the copy, 1 to 1024 (default: $DMLSLICE_THREADS,\nelse every CPU)"

/* True when opt is the option named name (its long name). */
bool option_is(const option_def *opt, const char *name);

/* Looks an option up in a command's tables (long name or alias). */
const option_def *options_find(const command_def *cmd, const char *name);

/* True for an argument that looks like an option ("-x", "--x"); "-" alone
 * and negative numbers are not options. */
bool options_looks_like_option(const char *arg);

/* What the commands share, each recognised when the command's tables have
 * it: the positional argument (command_def.argument), --output/-o (as
 * often as the option repeats), --force/-f, --quiet/-q, --device,
 * --threads (command_def.copies) and --help. The outputs point into argv. */
#define OPTIONS_MAX_OUTPUTS 1024
typedef struct common_options {
    const char *input;
    const char *outputs[OPTIONS_MAX_OUTPUTS];
    int noutputs;
    bool force, quiet;
    device_choice device; /* cpu unless --device says otherwise */
    int64_t threads;      /* --threads, 1 to 1024; 0 when not given: $DMLSLICE_THREADS, else every CPU */
} common_options;

/* A command's own options: false after saying what is wrong on stderr. */
typedef bool (*option_handler)(void *ctx, const option_def *opt, const char *value);

/* The whole option loop of a command: the shared options into *c, every
 * other option to other(ctx, ...) (NULL: the command has none of its own).
 * Returns -1 when the command goes on, else its exit status: 0 after
 * --help, 2 after a usage error (reported on stderr). */
int options_parse(const command_def *cmd, int argc, char **argv, common_options *c, option_handler other, void *ctx);

/* `dmlslice CMD --help`. */
void options_print_help(FILE *f, const command_def *cmd);

#endif
