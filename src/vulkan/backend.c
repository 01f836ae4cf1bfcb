/* The Vulkan backend's entry in the table of backends (backend.h): its data
 * is the operator's launches (launch.h), prepared once at create
 * (prepare.c, plain C, no Vulkan header) so that execute.c only checks the
 * binding, records and submits. */
#include "../backend.h"
#include "../device/device_ops.h"
#include "batch_table.h"
#include "launch.h"

const dmls_backend dmls_vulkan_backend = {"vulkan", dmls_vulkan_prepare, dmls_vulkan_destroy, NULL,
                                          dmls_vk_batch_release, &dmls_vulkan_device};
