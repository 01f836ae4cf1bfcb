/* The dmlslice tool's subcommands; each returns the process exit status. */
#ifndef DMLSLICE_TOOLS_COMMANDS_H
#define DMLSLICE_TOOLS_COMMANDS_H

int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
