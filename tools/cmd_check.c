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
    NULL,
};

int cmd_check(int argc, char **argv) {
    args_prog = "dmlslice check";
    params p;
    params_init(&p);
    bool quiet = false, have_dtype = false, is_bool = false;
    dmls_dtype dtype = DMLS_FLOAT32;
    param_list sizes = {0}, strides = {0}, out_strides = {0}, out_grad = {0};
    option_parser op;
    options_start(&op, &cmd_check_def, argc, argv);
    for (;;) {
        const option_def *o;
        const char *value;
        const option_result r = options_next(&op, &o, &value);
        if (r == OPTION_DONE) break;
        if (r == OPTION_HELP) return 0;
        if (r == OPTION_ERROR) return 2;
        if (r == OPTION_ARGUMENT) {
            fprintf(stderr, "%s: unexpected argument '%s' (check takes no files)\n", args_prog, value);
            return 2;
        }
        param_list *l = option_is(o, "--input-sizes")      ? &sizes
                        : option_is(o, "--input-strides")  ? &strides
                        : option_is(o, "--output-strides") ? &out_strides
                        : option_is(o, "--output-gradient-sizes") ? &out_grad
                                                           : NULL;
        if (l) {
            l->given = true;
            if (!args_list(o->name, value, l->v, &l->n)) return 2;
        } else if (option_is(o, "--dtype")) {
            if (!args_dtype(o->name, value, &dtype, &is_bool)) return 2;
            have_dtype = true;
        } else if (option_is(o, "--quiet")) {
            quiet = true;
        } else if (params_option(&p, o, value) < 0) {
            return 2;
        }
    }
    if (!have_dtype || !sizes.given) {
        fprintf(stderr, "%s: needs --dtype and --input-sizes\n", args_prog);
        return 2;
    }
    if (!params_complete(&p)) return 2;
    if (strides.given && strides.n != sizes.n) {
        fprintf(stderr, "%s: --input-strides has %d values but --input-sizes has %d\n", args_prog, (int)strides.n,
                (int)sizes.n);
        return 2;
    }
    const param_tensor t = {dtype, sizes.n, sizes.v, strides.given ? strides.v : NULL,
                            out_strides.given ? out_strides.v : NULL, out_strides.n, 1};
    /* With --output-gradient-sizes the description is SLICE_GRAD's: the
     * input sizes are the input gradient's, the window lies over the output
     * gradient. */
    if (out_grad.given && (p.form != FORM_DML_SLICE1 || p.out_sizes.given)) {
        fprintf(stderr, "%s: --output-gradient-sizes takes the window (--window-offsets, --window-sizes, "
                        "--window-strides) and no other slice parameters\n", args_prog);
        return 2;
    }
    param_setup setup;
    const bool ok = out_grad.given ? params_setup_grad(&p, &t, &out_grad, &setup) : params_setup(&p, &t, &setup);
    if (!ok) {
        if (!quiet) {
            printf("invalid: %s\n", setup.error);
            if (setup.rule && setup.rule[0]) printf("rule: %s\n", setup.rule);
        }
        return 1;
    }
    if (!quiet) {
        printf("valid: output%s shape (", out_grad.given ? " gradient" : "");
        for (int i = 0; i < setup.final_ndim; i++) printf("%s%" PRId64, i ? ", " : "", setup.final_shape[i]);
        printf("%s)", setup.final_ndim == 1 ? "," : "");
        if (setup.dml) printf(", %s at feature level %s", out_grad.given ? "DML_OPERATOR_SLICE_GRAD"
                                                         : p.form == FORM_DML_SLICE ? "DML_OPERATOR_SLICE" : "DML_OPERATOR_SLICE1",
                             dmls_feature_level_name(p.level));
        else if (p.level_given)
            printf(", its lowered DML_OPERATOR_SLICE1 valid at feature level %s", dmls_feature_level_name(p.level));
        printf("\n");
    }
    dmls_destroy(setup.op);
    return 0;
}
