/* dmlslice check: validate slice parameters against a tensor description
 * without any data, and print the output shape or the broken rule. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "options.h"
#include "params.h"

static const option_def check_options[] = {
    {"--dtype", NULL, "T", "data type: float16 float32 float64 int8 int16 int32 int64\nuint8 uint16 uint32 uint64 bool"},
    {"--input-sizes", NULL, "L", "the input's sizes, one per axis"},
    {"--input-strides", NULL, "L", "the input's element strides (default: packed, C order)"},
    {"--output-gradient-sizes", NULL, "L",
     "SLICE_GRAD instead: the output gradient's sizes; --input-sizes\nare then the input gradient's, PARAMS the window"},
    {"--output-strides", NULL, "L",
     "the output's element strides, one per axis of the SLICE1\noutput: the window's count for the DirectML forms, "
     "the\ninput's rank for --index, --onnx-* and --webnn-* (default:\npacked)"},
    {"--quiet", "-q", NULL, "no report: the exit status only"},
    {NULL, NULL, NULL, NULL},
};

const command_def cmd_check_def = {
    "check",
    "--dtype T --input-sizes L [--input-strides L] [--output-strides L] [--output-gradient-sizes L] PARAMS "
    "[--feature-level L] [-q]",
    "Validate PARAMS for a tensor without data: print the output shape, or the\n"
    "error and the rule ID of docs/RULES.md it breaks. Exit status 0 valid,\n"
    "1 invalid, 2 usage error.",
    {{"options", check_options, NULL}, {"", options_common, NULL}, {"PARAMS", params_options, params_note}},
    NULL,
    "dmlslice check --dtype float32 --input-sizes 1,1,4,4 --window-offsets 0,0,2,0 \\\n"
    "    --window-sizes 1,1,3,4 --window-strides 1,1,1,1\n"
    "dmlslice check --dtype float32 --input-sizes 4,5,6 --index '[::2]' --feature-level 2_1",
    cmd_check,
    args_feature_levels_help,
    NULL,
    false,
    false,
};

typedef struct check_args {
    params p;
    bool have_dtype, is_bool;
    dmls_dtype dtype;
    param_list sizes, strides, out_strides, out_grad;
} check_args;

static bool check_option(void *ctx, const option_def *o, const char *value) {
    check_args *a = ctx;
    param_list *l = option_is(o, "--input-sizes")             ? &a->sizes
                    : option_is(o, "--input-strides")         ? &a->strides
                    : option_is(o, "--output-strides")        ? &a->out_strides
                    : option_is(o, "--output-gradient-sizes") ? &a->out_grad
                                                              : NULL;
    if (l) {
        l->given = true;
        return args_list(o->name, value, l->v, &l->n);
    }
    if (option_is(o, "--dtype")) return a->have_dtype = args_dtype(o->name, value, &a->dtype, &a->is_bool);
    return params_option(&a->p, o, value) >= 0;
}

int cmd_check(int argc, char **argv) {
    args_prog = "dmlslice check";
    check_args a;
    memset(&a, 0, sizeof a);
    params_init(&a.p);
    a.dtype = DMLS_FLOAT32;
    common_options c;
    const int parsed = options_parse(&cmd_check_def, argc, argv, &c, check_option, &a);
    if (parsed >= 0) return parsed;
    if (!a.have_dtype || !a.sizes.given) {
        fprintf(stderr, "%s: needs --dtype and --input-sizes\n", args_prog);
        return 2;
    }
    if (!params_complete(&a.p)) return 2;
    if (a.strides.given && a.strides.n != a.sizes.n) {
        fprintf(stderr, "%s: --input-strides has %d values but --input-sizes has %d\n", args_prog, (int)a.strides.n,
                (int)a.sizes.n);
        return 2;
    }
    const param_tensor t = {a.dtype, a.sizes.n, a.sizes.v, a.strides.given ? a.strides.v : NULL,
                            a.out_strides.given ? a.out_strides.v : NULL, a.out_strides.n, 1};
    /* With --output-gradient-sizes the description is SLICE_GRAD's: the
     * input sizes are the input gradient's, the window lies over the output
     * gradient. */
    if (a.out_grad.given && (a.p.form != FORM_DML_SLICE1 || a.p.out_sizes.given)) {
        fprintf(stderr, "%s: --output-gradient-sizes takes the window (--window-offsets, --window-sizes, "
                        "--window-strides) and no other slice parameters\n", args_prog);
        return 2;
    }
    param_setup setup;
    const bool ok = a.out_grad.given ? params_setup_grad(&a.p, &t, &a.out_grad, &setup) : params_setup(&a.p, &t, &setup);
    if (!ok) {
        if (!c.quiet) {
            printf("invalid: %s\n", setup.error);
            if (setup.rule && setup.rule[0]) printf("rule: %s\n", setup.rule);
        }
        return 1;
    }
    if (!c.quiet) {
        printf("valid: output%s shape (", a.out_grad.given ? " gradient" : "");
        for (int i = 0; i < setup.final_ndim; i++) printf("%s%" PRId64, i ? ", " : "", setup.final_shape[i]);
        printf("%s)", setup.final_ndim == 1 ? "," : "");
        if (setup.dml) printf(", %s at feature level %s", a.out_grad.given ? "DML_OPERATOR_SLICE_GRAD"
                                                         : a.p.form == FORM_DML_SLICE ? "DML_OPERATOR_SLICE" : "DML_OPERATOR_SLICE1",
                             dmls_feature_level_name(a.p.level));
        else if (a.p.level_given)
            printf(", its lowered DML_OPERATOR_SLICE1 valid at feature level %s", dmls_feature_level_name(a.p.level));
        printf("\n");
    }
    dmls_destroy(setup.op);
    return 0;
}
