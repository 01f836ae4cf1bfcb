/* The operator: a validated problem, its buffer needs, its copy plans and
 * each backend's prepared form of them, behind one pointer per backend
 * (backend.h). Built in one place (create.c) and immutable afterwards, so
 * every executor only reads it. */
#ifndef DMLS_OPERATOR_H
#define DMLS_OPERATOR_H

#include <stdbool.h>

#include "backend.h"
#include "plan/copy_plan.h"
#include "plan/problem.h"

struct dmls_operator {
    dmls_problem problem;
    dmls_buffer_needs needs;
    bool zero_fill;      /* SLICE_GRAD: run fill before copy */
    dmls_copy_plan fill; /* every element of the output (src unused) */
    dmls_copy_plan copy;
    /* Each backend's own data, made by its prepare; NULL for a backend not
     * built in. Only that backend looks inside. */
    void *prepared[DMLS_BACKEND_COUNT];
};

/* The one create path: plans a validated problem, prepares every backend
 * built in, then hands the operator to *out. Returns
 * DMLS_ERROR_OUT_OF_MEMORY on allocation failure (nothing else can fail
 * after validation), leaving nothing allocated. */
dmls_status dmls_operator_build(const dmls_problem *problem, const dmls_buffer_needs *needs,
                                dmls_operator **out);

/* What backend id prepared for op: how a backend's execute reaches its own
 * data. */
static inline const void *dmls_operator_prepared(const dmls_operator *op, dmls_backend_id id) {
    return op->prepared[id];
}

#endif
