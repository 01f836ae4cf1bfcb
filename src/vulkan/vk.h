/* The Vulkan API as the backend's sources see it: the loader's prototypes
 * (<vulkan/vulkan.h>), or in a build with volk (DMLS_VULKAN_VOLK) volk's
 * function pointers under the library's own names (volk_names.h, generated
 * from volk.h), filled at run time by dmls_vk_load (context.c). */
#ifndef DMLS_VULKAN_VK_H
#define DMLS_VULKAN_VK_H

#ifdef DMLS_VULKAN_VOLK
#include "volk_names.h"
#include <volk.h>
#else
#include <vulkan/vulkan.h>
#endif

#endif
