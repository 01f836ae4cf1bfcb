/* volk's implementation (libvulkan-volk-dev's volk.h), compiled once into
 * the library under the names of vk.h (volk_names.h), so that its function
 * pointers are the library's alone. Built only with DMLS_VULKAN_VOLK. */
#define VOLK_IMPLEMENTATION
#include "vk.h"
