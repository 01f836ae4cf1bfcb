/*
 * run.c: a copy run where its arrays live, through the device interface
 * (devices.c). A lowered slice compiled for packed arrays runs its
 * operator straight away when the arrays are those packed arrays (an
 * input with the packed strides, a C-contiguous result: one this call
 * made, or out=); any other pair is bound by layout.c.
 */
#include "run.h"
#include "array_view.h"
#include "layout.h"
#include "lowering.h"

#include <dmlslice/dmlslice.h>

#include "devices.h"

const char *run_library_version(void) { return dmls_version(); }

int run_copy(const lowered *p, const compiled *c, const array_view *in, const array_view *out, uintptr_t stream,
             int sync) {
    bound_copy b;
    if (c && layout_is_packed_input(c, in) && (out->source == SRC_FRESH_NUMPY || layout_is_packed_output(c, out)))
        b = (bound_copy){c->packed_op, 0, in->data, out->data, c->in_bytes, c->out_bytes};
    else if (layout_bind(p, c, in, out, &b) < 0)
        return -1;
    const run_where w = {in->device_type, in->device_id, sync, stream};
    const int rc = b.out_bytes ? devices_execute(&w, b.op, b.in_base, b.in_bytes, b.out_base, b.out_bytes) : 0;
    layout_unbind(&b);
    return rc;
}
