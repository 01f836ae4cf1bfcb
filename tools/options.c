/* The tool's option parser and help printer; see options.h. */
#include "options.h"

#include <inttypes.h>
#include <string.h>

#include "args.h"

typedef enum option_result {
    OPTION_DONE,     /* no arguments left */
    OPTION_ARGUMENT, /* a positional argument, in *value */
    OPTION_MATCHED,  /* *opt matched; *value is its value, NULL for a flag */
    OPTION_HELP,     /* -h/--help: the command's help was printed to stdout */
    OPTION_ERROR     /* the message was printed to stderr: a usage error */
} option_result;

typedef struct option_parser {
    const command_def *cmd;
    int argc;
    char **argv; /* argv[0] is the command's name */
    int next;
    bool ended; /* "--" seen */
    const option_def *given[64]; /* options with values already seen */
    int ngiven;
} option_parser;

const option_def options_common[] = {
    {"--help", "-h", NULL, "show this help"},
    {NULL, NULL, NULL, NULL},
};

bool options_looks_like_option(const char *arg) {
    return arg[0] == '-' && arg[1] != '\0' && !(arg[1] >= '0' && arg[1] <= '9');
}

bool option_is(const option_def *opt, const char *name) { return opt && strcmp(opt->name, name) == 0; }

static const option_def *find_len(const command_def *cmd, const char *name, size_t len) {
    for (int g = 0; g < COMMAND_MAX_GROUPS; g++)
        for (const option_def *o = cmd->groups[g].options; o && o->name; o++)
            if ((strlen(o->name) == len && strncmp(o->name, name, len) == 0) ||
                (o->alias && strlen(o->alias) == len && strncmp(o->alias, name, len) == 0))
                return o;
    return NULL;
}

const option_def *options_find(const command_def *cmd, const char *name) { return find_len(cmd, name, strlen(name)); }

static void options_start(option_parser *p, const command_def *cmd, int argc, char **argv) {
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->argc = argc;
    p->argv = argv;
    p->next = 1;
}

static option_result options_next(option_parser *p, const option_def **opt, const char **value) {
    *opt = NULL;
    *value = NULL;
    if (p->next >= p->argc) return OPTION_DONE;
    const char *arg = p->argv[p->next++];
    if (p->ended || !options_looks_like_option(arg)) {
        *value = arg;
        return OPTION_ARGUMENT;
    }
    if (strcmp(arg, "--") == 0) {
        p->ended = true;
        return options_next(p, opt, value);
    }
    const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    const option_def *o = find_len(p->cmd, arg, eq ? (size_t)(eq - arg) : strlen(arg));
    if (o == NULL) {
        fprintf(stderr, "%s: unknown option '%.*s' (try 'dmlslice %s --help')\n", args_prog,
                eq ? (int)(eq - arg) : (int)strlen(arg), arg, p->cmd->name);
        return OPTION_ERROR;
    }
    *opt = o;
    if (option_is(o, "--help")) {
        options_print_help(stdout, p->cmd);
        return OPTION_HELP;
    }
    if (o->value == NULL) {
        if (eq) {
            fprintf(stderr, "%s: %s takes no value ('%s')\n", args_prog, o->name, arg);
            return OPTION_ERROR;
        }
        return OPTION_MATCHED;
    }
    if (eq) {
        *value = eq + 1;
    } else if (p->next < p->argc) {
        *value = p->argv[p->next++];
    } else {
        fprintf(stderr, "%s: %s needs a value (%s)\n", args_prog, o->name, o->value);
        return OPTION_ERROR;
    }
    const bool repeats = p->cmd->many_outputs && option_is(o, "--output");
    for (int k = 0; !repeats && k < p->ngiven; k++)
        if (p->given[k] == o) {
            fprintf(stderr, "%s: %s given twice\n", args_prog, o->name);
            return OPTION_ERROR;
        }
    if (!repeats && p->ngiven < (int)(sizeof p->given / sizeof p->given[0])) p->given[p->ngiven++] = o;
    return OPTION_MATCHED;
}

/* --threads N of the copying commands: 1 to 1024; false after saying what
 * is wrong. */
static bool options_threads(const option_def *o, const char *value, int64_t *threads) {
    if (!args_int64(o->name, value, threads)) return false;
    if (*threads < 1 || *threads > 1024) {
        fprintf(stderr, "%s: --threads %" PRId64 " is outside 1 to 1024\n", args_prog, *threads);
        return false;
    }
    return true;
}

/* A shared option into c; false after a usage error. */
static bool common_option(common_options *c, const option_def *o, const char *value) {
    if (option_is(o, "--force")) {
        c->force = true;
    } else if (option_is(o, "--quiet")) {
        c->quiet = true;
    } else if (option_is(o, "--device")) {
        return device_parse(args_prog, value, &c->device);
    } else if (option_is(o, "--threads")) {
        return options_threads(o, value, &c->threads);
    } else if (c->noutputs == OPTIONS_MAX_OUTPUTS) {
        fprintf(stderr, "%s: more than %d outputs (-o)\n", args_prog, OPTIONS_MAX_OUTPUTS);
        return false;
    } else {
        c->outputs[c->noutputs++] = value;
    }
    return true;
}

static bool is_common(const command_def *cmd, const option_def *o) {
    return option_is(o, "--force") || option_is(o, "--quiet") || option_is(o, "--device") ||
           option_is(o, "--output") || (cmd->copies && option_is(o, "--threads"));
}

int options_parse(const command_def *cmd, int argc, char **argv, common_options *c, option_handler other, void *ctx) {
    memset(c, 0, sizeof *c);
    device_default(&c->device);
    option_parser op;
    options_start(&op, cmd, argc, argv);
    for (;;) {
        const option_def *o;
        const char *value;
        const option_result r = options_next(&op, &o, &value);
        if (r == OPTION_DONE) return -1;
        if (r == OPTION_HELP) return 0;
        if (r == OPTION_ERROR) return 2;
        if (r == OPTION_ARGUMENT && cmd->argument == NULL) {
            fprintf(stderr, "%s: unexpected argument '%s'\n", args_prog, value);
            return 2;
        }
        if (r == OPTION_ARGUMENT && c->input) {
            fprintf(stderr, "%s: one %s only ('%s' and '%s')\n", args_prog, cmd->argument, c->input, value);
            return 2;
        }
        if (r == OPTION_ARGUMENT) {
            c->input = value;
        } else if (is_common(cmd, o)) {
            if (!common_option(c, o, value)) return 2;
        } else if (other == NULL || !other(ctx, o, value)) {
            return 2;
        }
    }
}

/* Help lines: "  -q, --quiet      text", continuation lines aligned. */
static void print_option(FILE *f, const option_def *o) {
    char head[64];
    snprintf(head, sizeof head, "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
             o->value ? " " : "", o->value ? o->value : "");
    const char *h = o->help;
    int width = 24;
    if ((int)strlen(head) + 2 > width) {
        fprintf(f, "  %s\n", head);
        head[0] = '\0';
    }
    for (;;) {
        const char *nl = strchr(h, '\n');
        fprintf(f, "  %-*s%.*s\n", width - 2, head, nl ? (int)(nl - h) : (int)strlen(h), h);
        head[0] = '\0';
        if (!nl) break;
        h = nl + 1;
    }
}

void options_print_help(FILE *f, const command_def *cmd) {
    fprintf(f, "usage: dmlslice %s%s%s\n\n%s\n", cmd->name, cmd->synopsis[0] ? " " : "", cmd->synopsis, cmd->summary);
    for (int g = 0; g < COMMAND_MAX_GROUPS; g++) {
        const option_group *grp = &cmd->groups[g];
        if (grp->options == NULL) continue;
        if (grp->heading[0]) fprintf(f, "\n%s:\n", grp->heading);
        for (const option_def *o = grp->options; o->name; o++) print_option(f, o);
        if (grp->note) fprintf(f, "%s\n", grp->note);
    }
    if (cmd->details) fprintf(f, "\n%s\n", cmd->details);
    if (cmd->more_help) cmd->more_help(f);
    if (cmd->examples) {
        fprintf(f, "\nexamples:\n");
        for (const char *e = cmd->examples; *e;) {
            const char *nl = strchr(e, '\n');
            int len = nl ? (int)(nl - e) : (int)strlen(e);
            fprintf(f, "  %.*s\n", len, e);
            e += len + (nl != NULL);
        }
    }
}
