/* Running a model read by model_read: DxDispatch's execution order. Every
 * dispatchable is created (validated at the feature level) and every
 * resource allocated and filled before the first command runs; then the
 * commands run in order, each seeing what the ones before it wrote. */
#ifndef DMLSLICE_TOOLS_DISPATCH_EXECUTE_H
#define DMLSLICE_TOOLS_DISPATCH_EXECUTE_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"

typedef struct execute_options {
    DML_FEATURE_LEVEL level;
    const char *device; /* dispatch on this device (device.h; its --device name), or NULL: on the host's memory */
    FILE *out;       /* where print and writeFile report */
    const char *name; /* the model's name, for messages */
    const char *path; /* the model's file ("-": standard input): never written over */
    bool force;       /* writeFile may replace an existing file (-f) */
    const model_reach *reach; /* where writeFile may write; NULL: nowhere */
} execute_options;

/* Checks every dispatchable and command first (paths against the
 * confinement, writeFile's types and shapes, bindings inside their
 * buffers), then runs the commands; writeFile's files are made as the
 * commands run and appear together at the end, each whole, or none does
 * (their lines are printed then, after the other commands' output).
 * Returns false at the first failure with err (MODEL_ERR_LEN bytes) naming
 * the command or dispatchable, the library's status and message; output
 * already printed stays printed. */
bool model_execute(const model *m, const execute_options *o, char *err);

#endif
