/* The one create path: validate -> plan -> prepare each backend -> allocate.
 * Every way to make an operator (the DirectML descriptors, the native views,
 * the one-shot calls) goes through dmls_operator_build, so there is one
 * order of steps and one place that allocates. */
#include <stdlib.h>

#include "cpu/features.h"
#include "error.h"
#include "operator.h"
#include "validate.h"
#ifdef DMLS_HAVE_VULKAN
#include "vulkan/launch.h"
#endif

dmls_status dmls_operator_build(const dmls_problem *problem, const dmls_buffer_needs *needs, dmls_operator **out) {
    dmls_operator *op = calloc(1, sizeof *op);
    RETURN_IF(op == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "%s: out of memory creating the operator", problem->name);
    op->problem = *problem;
    op->needs = *needs;
    dmls_plan_copies(&op->problem, &op->copy, &op->fill, &op->zero_fill);
    dmls_cpu_prepare(&op->cpu, &op->copy, dmls_cpu_features(), dmls_cpu_nontemporal_threshold());
#ifdef DMLS_HAVE_CUDA
    /* The launch plan is derived here, once, so a GPU execute only launches. */
    dmls_cuda_prepare(&op->cuda, &op->copy, op->zero_fill ? &op->fill : NULL);
#endif
#ifdef DMLS_HAVE_VULKAN
    if (dmls_vulkan_prepare(op, &op->vulkan) != DMLS_OK) {
        free(op);
        return DMLS_ERROR_OUT_OF_MEMORY; /* the message is set */
    }
#endif
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
#ifdef DMLS_HAVE_VULKAN
    if (op != NULL) dmls_vulkan_destroy(op->vulkan);
#endif
    free(op);
}

/* The one-shot calls: the public create, execute and destroy, in that order. */

dmls_status dmls_slice_dml(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level, const void *input,
                           uint64_t input_bytes, void *output, uint64_t output_bytes) {
    dmls_operator *op = NULL;
    RETURN_IF_ERROR(dmls_create_dml(desc, level, &op));
    dmls_status s = dmls_execute(op, input, input_bytes, output, output_bytes);
    dmls_destroy(op);
    return s;
}

dmls_status dmls_slice(const dmls_tensor *input, const void *input_data, uint64_t input_bytes,
                       const dmls_tensor *output, void *output_data, uint64_t output_bytes,
                       const dmls_window *window) {
    dmls_operator *op = NULL;
    RETURN_IF_ERROR(dmls_create(input, output, window, &op));
    dmls_status s = dmls_execute(op, input_data, input_bytes, output_data, output_bytes);
    dmls_destroy(op);
    return s;
}
