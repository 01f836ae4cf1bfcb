/* The one-shot calls, dmls_slice_dml and dmls_slice: the public create, the
 * CPU's execute and destroy, in that order, so the two paths cannot drift. */
#include "../error.h"
#include "dmlslice/dml.h"

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
