/* The tool's --device values, parsed in one place: cpu, cuda, vulkan or
 * vulkan:N (the Nth Vulkan physical device, in the loader's order). */
#ifndef DMLSLICE_TOOLS_DEVICE_OPT_H
#define DMLSLICE_TOOLS_DEVICE_OPT_H

#include <stdbool.h>

typedef enum device_kind { DEVICE_CPU, DEVICE_CUDA, DEVICE_VULKAN } device_kind;

typedef struct device_choice {
    device_kind kind;
    int index; /* vulkan:N; 0 otherwise */
} device_choice;

/* Parses value into *d; false (with a message on stderr naming prog) when
 * it is none of the forms above. */
bool device_parse(const char *prog, const char *value, device_choice *d);

#include <stdio.h>

/* What each backend sees, one device a line: cpu, cuda:N, vulkan:N (or
 * why a backend has none). dmlslice info --devices. */
void device_list(FILE *f);

#endif
