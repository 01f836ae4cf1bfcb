/* dmlslice check: validate slice parameters against a tensor description
 * without any data, and print the output shape or the broken rule. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "params.h"

int cmd_check(int argc, char **argv) {
    args_prog = "dmlslice check";
    params p;
    params_init(&p);
    bool quiet = false, have_dtype = false, is_bool = false;
    dmls_dtype dtype = DMLS_FLOAT32;
    param_list sizes = {0}, strides = {0}, out_strides = {0}, out_grad = {0};
    for (int i = 1; i < argc; i++) {
        char buf[64];
        const char *inline_value, *value;
        const char *opt = args_option(argv[i], buf, sizeof buf, &inline_value);
        if (strcmp(opt, "-q") == 0 || strcmp(opt, "--quiet") == 0) {
            quiet = true;
            continue;
        }
        if (!args_is_option(opt)) {
            fprintf(stderr, "%s: unexpected argument '%s' (check takes no files)\n", args_prog, opt);
            return 2;
        }
        if (!args_value(opt, inline_value, argc, argv, &i, &value)) return 2;
        param_list *l = strcmp(opt, "--input-sizes") == 0     ? &sizes
                        : strcmp(opt, "--input-strides") == 0 ? &strides
                        : strcmp(opt, "--output-strides") == 0 ? &out_strides
                        : strcmp(opt, "--output-gradient-sizes") == 0 ? &out_grad
                                                               : NULL;
        if (l) {
            if (l->given) {
                fprintf(stderr, "%s: %s given twice\n", args_prog, opt);
                return 2;
            }
            l->given = true;
            if (!args_list(opt, value, l->v, &l->n)) return 2;
        } else if (strcmp(opt, "--dtype") == 0) {
            if (!args_dtype(opt, value, &dtype, &is_bool)) return 2;
            have_dtype = true;
        } else {
            int r = params_option(&p, opt, value);
            if (r < 0) return 2;
            if (r == 0) {
                fprintf(stderr, "%s: unknown option '%s' (try 'dmlslice --help')\n", args_prog, opt);
                return 2;
            }
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
                            out_strides.given ? out_strides.v : NULL};
    /* With --output-gradient-sizes the description is SLICE_GRAD's: the
     * input sizes are the input gradient's, the window lies over the output
     * gradient. */
    if (out_grad.given && (p.form != FORM_DML_SLICE1 || p.out_sizes.given)) {
        fprintf(stderr, "%s: --output-gradient-sizes takes the window (--window-offsets, --window-sizes, "
                        "--window-strides) and no other slice parameters\n", args_prog);
        return 2;
    }
    param_plan plan;
    bool ok = out_grad.given ? params_plan_grad(&p, &t, &out_grad, &plan) : params_plan(&p, &t, &plan);
    /* The output strides must match the output's rank; the library checks
     * the values, this only catches a list of the wrong length. */
    if (ok && out_strides.given && out_strides.n != dmls_output_rank(plan.op)) {
        snprintf(plan.error, sizeof plan.error, "--output-strides has %d values but the output has rank %d",
                 (int)out_strides.n, (int)dmls_output_rank(plan.op));
        plan.rule = "R-OP-RANK";
        dmls_destroy(plan.op);
        plan.op = NULL;
        ok = false;
    }
    if (!ok) {
        if (!quiet) {
            printf("invalid: %s\n", plan.error);
            if (plan.rule && plan.rule[0]) printf("rule: %s\n", plan.rule);
        }
        return 1;
    }
    if (!quiet) {
        printf("valid: output%s shape (", out_grad.given ? " gradient" : "");
        for (int i = 0; i < plan.final_ndim; i++) printf("%s%" PRId64, i ? ", " : "", plan.final_shape[i]);
        printf("%s)", plan.final_ndim == 1 ? "," : "");
        if (plan.dml) printf(", %s at feature level %s", out_grad.given ? "DML_OPERATOR_SLICE_GRAD"
                                                         : p.form == FORM_DML_SLICE ? "DML_OPERATOR_SLICE" : "DML_OPERATOR_SLICE1",
                             dmls_feature_level_name(p.level));
        printf("\n");
    }
    dmls_destroy(plan.op);
    return 0;
}
