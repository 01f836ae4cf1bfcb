/* The one create path: validate -> plan -> prepare each backend -> hand
 * over. Every way to make an operator (the DirectML descriptors, the native
 * views, the one-shot calls) goes through dmls_operator_build, so there is
 * one order of steps and one place that allocates. The backends are reached
 * through their table only (backend.h). */
#include <stdlib.h>

#include "error.h"
#include "operator.h"
#include "plan/validate.h"

dmls_status dmls_operator_build(const dmls_problem *problem, const dmls_buffer_needs *needs, dmls_operator **out) {
    dmls_operator *op = calloc(1, sizeof *op);
    RETURN_IF(op == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "%s: out of memory creating the operator", problem->name);
    op->problem = *problem;
    op->needs = *needs;
    dmls_plan_copies(&op->problem, &op->copy, &op->fill, &op->zero_fill);
    /* Each backend derives its own form of the plans here, once, so that
     * its execute only checks the binding and runs. */
    for (int id = 0; id < DMLS_BACKEND_COUNT; id++) {
        const dmls_backend *b = dmls_backends[id];
        if (b == NULL) continue;
        dmls_status s = b->prepare(op, &op->prepared[id]);
        if (s != DMLS_OK) {
            dmls_destroy(op);
            return s;
        }
    }
    *out = op;
    return DMLS_OK;
}

dmls_status dmls_create_dml(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level, dmls_operator **op) {
    dmls_clear_error();
    RETURN_IF(op == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "create_dml: op (the result pointer) is NULL");
    *op = NULL;
    dmls_problem problem;
    dmls_buffer_needs needs;
    RETURN_IF_ERROR(dmls_validate_dml(desc, level, &problem, &needs));
    return dmls_operator_build(&problem, &needs, op);
}

static dmls_status create_native(bool grad, const dmls_tensor *input, const dmls_tensor *output,
                                 const dmls_window *window, dmls_operator **op) {
    dmls_clear_error();
    RETURN_IF(op == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: op (the result pointer) is NULL",
              grad ? "slice_grad" : "slice");
    *op = NULL;
    dmls_problem problem;
    dmls_buffer_needs needs;
    RETURN_IF_ERROR(dmls_validate_native(grad, input, output, window, &problem, &needs));
    return dmls_operator_build(&problem, &needs, op);
}

dmls_status dmls_create(const dmls_tensor *input, const dmls_tensor *output, const dmls_window *window,
                        dmls_operator **op) {
    return create_native(false, input, output, window, op);
}

dmls_status dmls_create_grad(const dmls_tensor *input_grad, const dmls_tensor *output_grad,
                             const dmls_window *window, dmls_operator **op) {
    return create_native(true, input_grad, output_grad, window, op);
}

void dmls_destroy(dmls_operator *op) {
    if (op == NULL) return;
    for (int id = 0; id < DMLS_BACKEND_COUNT; id++)
        if (op->prepared[id] != NULL) dmls_backends[id]->destroy(op->prepared[id]);
    free(op);
}
