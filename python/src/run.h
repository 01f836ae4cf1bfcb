/* run.h: a copy run where its arrays live (run.c). */
#ifndef DMLSLICE_PY_RUN_H
#define DMLSLICE_PY_RUN_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "array_view.h"
#include "layout.h"
#include "lowering.h"

/* Copy in (shape p->in_shape) to out (shape p->final_shape), where they
 * live (devices.c). stream: cudaStream_t as an integer, for CUDA views. c may be
 * NULL (a lowered slice lowered for this call). 0, or -1 with an exception. */
int run_copy(const lowered *p, const compiled *c, const array_view *in, const array_view *out, uintptr_t stream,
             int sync);
const char *run_library_version(void);

#endif /* DMLSLICE_PY_RUN_H */
