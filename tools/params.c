/* PARAMS parsing: the options into a params (params.h); params_setup.c
 * makes the operator from them. */
#include "params.h"

#include <stdio.h>
#include <string.h>

void params_init(params *p) {
    memset(p, 0, sizeof *p);
    p->level = args_latest_feature_level();
}

/* Every PARAMS option in the help's order, LIST for those that take a list
 * (with its form and its field in params), OTHER for the rest: the one table
 * both the help (params_options) and the parser (list_options) are made
 * from, so that they cannot disagree. The list options come in one group a
 * form, which names the form (F) and the words opening each help line (P)
 * once. The groups' rows share one shape (`duplicates` pairs them): options
 * of one table, not twins to merge. */
#define PARAMS_OPTIONS(LIST, OTHER)                                                                                   \
    PARAMS_DML_SLICE(LIST, FORM_DML_SLICE, "DML_SLICE: ")                                                             \
    PARAMS_DML_SLICE1(LIST, FORM_DML_SLICE1, "DML_SLICE1: ")                                                          \
    OTHER("--index", "EXPR",                                                                                          \
          "NumPy basic indexing: integers, start:stop:step, ...,\nNone/newaxis, e.g. '[1:3, ::-2, ..., None, 0]'")    \
    PARAMS_ONNX(LIST, FORM_ONNX, "ONNX Slice: ")                                                                      \
    PARAMS_WEBNN_SLICE(LIST, FORM_WEBNN_SLICE, "WebNN slice(): ")                                                     \
    LIST("--webnn-reverse", "L|all", FORM_WEBNN_REVERSE, webnn_axes,                                                  \
         "WebNN reverse(): the listed axes ('' none, 'all' every axis)")                                              \
    OTHER("--perm", "P|reverse",                                                                                      \
          "transpose first: PARAMS (if any) apply to np.transpose(x, P),\nP one axis per input axis, negatives from "  \
          "the back;\n'reverse' reverses the axes (np.transpose(x), x.T)")                                            \
    OTHER("--feature-level", "L",                                                                                     \
          "DirectML feature level, by name (4_1), as 4.1 or in hex\n(0x4100); the levels and the default are listed " \
          "below.\nThe DirectML forms are validated at it; with a front end\nthe lowered SLICE1 must pass DirectML's " \
          "rules at it too")

#define PARAMS_DML_SLICE(LIST, F, P)                                                                                  \
    LIST("--offsets", "L", F, offsets, P "the first element read, per axis")                                          \
    LIST("--sizes", "L", F, sizes, P "elements per axis (the output's sizes)")                                       \
    LIST("--strides", "L", F, strides, P "steps, each at least 1")

#define PARAMS_DML_SLICE1(LIST, F, P)                                                                                 \
    LIST("--window-offsets", "L", F, win_offsets, P "the window's first element, per axis")                           \
    LIST("--window-sizes", "L", F, win_sizes, P "the window's extent, per axis (at least 1)")                         \
    LIST("--window-strides", "L", F, win_strides, P "steps, non-zero; negative walks backwards")                      \
    LIST("--output-sizes", "L", F, out_sizes,                                                                         \
         P "the output's sizes (default: every element the\nwindow holds, 1 + (size - 1) / |stride|)")

#define PARAMS_ONNX(LIST, F, P)                                                                                       \
    LIST("--onnx-starts", "L", F, onnx_starts, P "starts (negative counts from the end)")                             \
    LIST("--onnx-ends", "L", F, onnx_ends, P "ends, clamped as the ONNX specification says")                         \
    LIST("--onnx-axes", "L", F, onnx_axes, P "the axes starts/ends name (default 0, 1, ...)")                        \
    LIST("--onnx-steps", "L", F, onnx_steps, P "steps, non-zero (default 1)")

#define PARAMS_WEBNN_SLICE(LIST, F, P)                                                                                \
    LIST("--webnn-starts", "L", F, webnn_starts, P "unsigned starts")                                                 \
    LIST("--webnn-sizes", "L", F, webnn_sizes, P "window sizes, at least 1")                                          \
    LIST("--webnn-strides", "L", F, webnn_strides, P "strides, at least 1 (default 1)")

#define LIST_HELP(name, value, form, field, help) {name, NULL, value, help},
#define OTHER_HELP(name, value, help) {name, NULL, value, help},
const option_def params_options[] = {PARAMS_OPTIONS(LIST_HELP, OTHER_HELP){NULL, NULL, NULL, NULL}};

/* The one home of the PARAMS summary: scripts/gen-cli-docs.py writes it into
 * docs/cli.md and docs/dmlslice.1 from `dmlslice slice --help` (each form
 * and what it is apart by two spaces or more, a long form's on the next
 * line; the prose after them). */
const char params_note[] =
    "  PARAMS is one of these forms (L: comma-separated integers, one per axis):\n"
    "    --offsets L --sizes L --strides L                          DML_SLICE\n"
    "    --window-offsets L --window-sizes L --window-strides L [--output-sizes L]\n"
    "                                                               DML_SLICE1\n"
    "    --index EXPR                                               NumPy\n"
    "    --onnx-starts L --onnx-ends L [--onnx-axes L] [--onnx-steps L]  ONNX Slice\n"
    "    --webnn-starts L --webnn-sizes L [--webnn-strides L]       WebNN slice()\n"
    "    --webnn-reverse L|all                                      WebNN reverse()\n"
    "    --perm P|reverse                                           alone: the transpose\n"
    "  The DirectML forms follow DirectML at --feature-level: 32-bit fields, at most\n"
    "  2^32-1 elements, no empty tensors. The front ends use the native 64-bit API: no\n"
    "  DirectML size limits, and empty results are valid. With --perm P any form\n"
    "  applies to the transposed input, np.transpose(x, P)[...]: ONNX's Transpose\n"
    "  then Slice; the result is C order.";

typedef struct list_option {
    const char *name;
    param_form form;
    size_t offset; /* of the param_list in params */
} list_option;

#define LIST_PARSE(name, value, form, field, help) {name, form, offsetof(params, field)},
#define OTHER_PARSE(name, value, help)
static const list_option list_options[] = {PARAMS_OPTIONS(LIST_PARSE, OTHER_PARSE)};

static bool set_form(params *p, param_form form, const char *opt) {
    if (p->form != FORM_NONE && p->form != form) {
        fprintf(stderr, "%s: %s cannot be combined with %s: give one kind of slice parameters\n", args_prog, opt,
                p->form_option);
        return false;
    }
    if (p->form == FORM_NONE) p->form_option = opt;
    p->form = form;
    return true;
}

/* Repeats never reach here: the option parser refuses a value option given
 * twice. */
int params_option(params *p, const option_def *o, const char *value) {
    const char *opt = o->name;
    if (strcmp(opt, "--feature-level") == 0) {
        p->level_given = true;
        return args_feature_level(opt, value, &p->level) ? 1 : -1;
    }
    if (strcmp(opt, "--perm") == 0) {
        p->perm_given = true;
        p->perm_reverse = strcmp(value, "reverse") == 0;
        return p->perm_reverse || args_values(opt, value, p->perm, DMLS_NUMPY_MAX_RANK, &p->n_perm) ? 1 : -1;
    }
    if (strcmp(opt, "--index") == 0) {
        if (!set_form(p, FORM_NUMPY, opt)) return -1;
        p->index = value;
        return 1;
    }
    for (size_t k = 0; k < sizeof list_options / sizeof list_options[0]; k++) {
        const list_option *lo = &list_options[k];
        if (strcmp(opt, lo->name) != 0) continue;
        if (!set_form(p, lo->form, opt)) return -1;
        param_list *l = (param_list *)((char *)p + lo->offset);
        l->given = true;
        if (lo->form == FORM_WEBNN_REVERSE && strcmp(value, "all") == 0) {
            p->webnn_reverse_all = true;
            return 1;
        }
        return args_list(opt, value, l->v, &l->n) ? 1 : -1;
    }
    return 0;
}

static bool require(const param_list *l, const char *name, const char *form_option) {
    if (l->given) return true;
    fprintf(stderr, "%s: %s needs %s too\n", args_prog, form_option, name);
    return false;
}

bool params_complete(const params *p) {
    switch (p->form) {
    case FORM_NONE:
        if (p->perm_given) return true; /* the whole transposed array */
        fprintf(stderr, "%s: no slice parameters: give --index, --onnx-starts/--onnx-ends, --webnn-starts/--webnn-sizes, "
                        "--webnn-reverse, --offsets/--sizes/--strides, --window-offsets/--window-sizes/--window-strides or --perm\n",
                args_prog);
        return false;
    case FORM_DML_SLICE:
        return require(&p->offsets, "--offsets", p->form_option) && require(&p->sizes, "--sizes", p->form_option) &&
               require(&p->strides, "--strides", p->form_option);
    case FORM_DML_SLICE1:
        return require(&p->win_offsets, "--window-offsets", p->form_option) &&
               require(&p->win_sizes, "--window-sizes", p->form_option) &&
               require(&p->win_strides, "--window-strides", p->form_option);
    case FORM_ONNX:
        return require(&p->onnx_starts, "--onnx-starts", p->form_option) &&
               require(&p->onnx_ends, "--onnx-ends", p->form_option);
    case FORM_WEBNN_SLICE:
        return require(&p->webnn_starts, "--webnn-starts", p->form_option) &&
               require(&p->webnn_sizes, "--webnn-sizes", p->form_option);
    case FORM_NUMPY:
    case FORM_WEBNN_REVERSE: return true;
    }
    return false;
}
