/* What `dmlslice slice` and `dmlslice grad` share: one operator from a .npy
 * input into a new .npy output, on the CPU's threads (in pieces with
 * progress where the copy can be cut), on CUDA or on Vulkan, the output
 * written atomically or not at all. The commands differ only in how they
 * make the operator from their parameters. */
#ifndef DMLSLICE_TOOLS_SLICE_RUN_H
#define DMLSLICE_TOOLS_SLICE_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "params.h"

/* options_parse (cmd, other, ctx), then the input and the output both
 * commands need (input: what the message calls the input, "an input
 * file"). Returns -1 when the command goes on, else its exit status. */
int slice_run_options(const command_def *cmd, int argc, char **argv, common_options *c, option_handler other,
                      void *ctx, const char *input);

/* Makes the operator for input tensor t from a command's parsed arguments;
 * false with setup->error (and setup->rule) set, as params_setup. */
typedef bool (*slice_setup_fn)(const void *args, const param_tensor *t, param_setup *setup);

/* Runs the command on c's input and output: refuses an output that cannot
 * or must not be written before reading the input, opens the input, makes
 * the operator with setup(args, ...), runs it on c->device (the CPU with
 * c->threads threads: 0 = $DMLSLICE_THREADS, else every CPU), showing
 * progress as "dmlslice: WHAT SIZE: ..." unless c->quiet, and commits the
 * output or removes it. Returns the exit status. */
int slice_run_file(const common_options *c, slice_setup_fn setup, const void *args, const char *what);

#endif
