/* What an operator tells its user: buffer sizes, output shape, element
 * size. A NULL operator answers a neutral value (documented in dmlslice.h)
 * instead of crashing, as dmls_destroy and dmls_execute accept NULL too. */
#include "operator.h"

uint64_t dmls_input_bytes(const dmls_operator *op) { return op ? op->needs.in_bytes : 0; }

uint64_t dmls_output_bytes(const dmls_operator *op) { return op ? op->needs.out_bytes : 0; }

int32_t dmls_output_rank(const dmls_operator *op) { return op ? op->problem.ndim : -1; }

size_t dmls_element_size(const dmls_operator *op) { return op ? (size_t)op->problem.esize : 0; }

void dmls_output_shape(const dmls_operator *op, int64_t *shape) {
    if (op == NULL || shape == NULL) return;
    for (int i = 0; i < op->problem.ndim; i++) shape[i] = op->problem.out.shape[i];
}
