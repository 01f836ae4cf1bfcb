/* The dmlslice tool's commands: each one's definition (usage text, option
 * tables, examples: the one home of its help) and its entry point, which
 * returns the process exit status: 0 success, 1 failure (invalid
 * parameters, bad file, I/O), 2 usage error. */
#ifndef DMLSLICE_TOOLS_COMMANDS_H
#define DMLSLICE_TOOLS_COMMANDS_H

#include "options.h"

int cmd_demo(int argc, char **argv);
int cmd_slice(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_dispatch(int argc, char **argv);
int cmd_grad(int argc, char **argv);
int cmd_split(int argc, char **argv);
int cmd_crops(int argc, char **argv);

extern const command_def cmd_slice_def, cmd_split_def, cmd_crops_def, cmd_check_def, cmd_grad_def, cmd_dispatch_def,
    cmd_info_def, cmd_demo_def, cmd_bench_def;

#endif
