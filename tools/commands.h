/* The dmlslice tool's subcommands; each returns the process exit status:
 * 0 success, 1 failure (invalid parameters, bad file, I/O), 2 usage error. */
#ifndef DMLSLICE_TOOLS_COMMANDS_H
#define DMLSLICE_TOOLS_COMMANDS_H

int cmd_demo(int argc, char **argv);
int cmd_slice(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_dispatch(int argc, char **argv);
int cmd_grad(int argc, char **argv);

#endif
