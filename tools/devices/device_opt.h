/* The tool's --device values, parsed in one place: cpu, cuda or cuda:N,
 * vulkan or vulkan:N (the library's device names, dmlslice/device.h). */
#ifndef DMLSLICE_TOOLS_DEVICE_OPT_H
#define DMLSLICE_TOOLS_DEVICE_OPT_H

#include <stdbool.h>
#include <stdio.h>

/* What every --device takes, as the commands' help says it (one home: each
 * help appends what its command does there; device_parse's message and
 * docs/cli.md list the same names). */
#define DEVICE_NAMES "cpu (default), cuda[:N] or vulkan[:N]"

/* The kind matters to the tool only where behaviour differs by the
 * documented contract: cuda falls back to the CPU (device_io.h). */
typedef enum device_kind { DEVICE_CPU, DEVICE_CUDA, DEVICE_VULKAN } device_kind;

typedef struct device_choice {
    device_kind kind;
    int index;     /* N of cuda:N or vulkan:N; 0 otherwise */
    char name[32]; /* the name dmls_device_open takes */
} device_choice;

/* Parses value into *d; false (with a message on stderr naming prog) when
 * it is none of the forms above. */
bool device_parse(const char *prog, const char *value, device_choice *d);

/* The CPU, --device's default. */
void device_default(device_choice *d);

/* What the machine has, one device a line (cpu, cuda:N, vulkan:N), and
 * why a backend has none. dmlslice info --devices. */
void device_list(FILE *f);

#endif
