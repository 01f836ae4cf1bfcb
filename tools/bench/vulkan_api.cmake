# How a target's own Vulkan calls reach Vulkan (tools/bench/vulkan_api.h):
# the tool's and vk_probe's (bench/probes), which share tools/bench/vulkan_run.c.
# As the library does, with volk they go through volk, loaded when a context
# is made (vk_api_load), so the target does not link libvulkan.so.1 and starts
# where there is no loader; without volk, through the loader linked.
function(dmls_tool_vulkan_api target)
  if(DMLS_HAVE_VOLK)
    target_include_directories(${target} PRIVATE ${DMLS_VOLK_INCLUDE_DIR})
    target_compile_definitions(${target} PRIVATE DMLS_TOOL_VOLK VK_NO_PROTOTYPES)
    target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  else()
    target_link_libraries(${target} PRIVATE Vulkan::Vulkan)
  endif()
endfunction()
