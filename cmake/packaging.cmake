# cpack: Debian packages in Debian's split and one .tar.gz of the whole
# install (docs/install.md). Only for the top-level project: a parent that
# embeds dmlslice keeps its own packaging.
if(NOT DMLS_INSTALL OR NOT DMLS_TOP_LEVEL)
  return()
endif()

set(CPACK_PACKAGE_NAME dmlslice)
set(CPACK_PACKAGE_VENDOR "dmlslice")
if(NOT CPACK_PACKAGE_CONTACT)
  set(CPACK_PACKAGE_CONTACT "dmlslice developers")
endif()
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "DirectML's slice operators (SLICE, SLICE1, SLICE_GRAD) in C11, on CPU and CUDA")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_RESOURCE_FILE_README "${PROJECT_SOURCE_DIR}/README.md")
set(CPACK_GENERATOR "DEB;TGZ" CACHE STRING "Package generators cpack runs")
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/packages")

# .tar.gz: one archive of the whole install, prefix-relative.
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)

# .deb: Debian's split. The runtime package is named after the SONAME
# (cmake/abi.cmake), so two ABIs can be installed side by side; -dev holds
# what a build needs (headers, the unversioned link, the static library,
# the CMake and pkg-config files); the tool is its own package and links the
# shared library (its public API only), so it depends on the runtime package;
# dpkg-shlibdeps finds that library in the build tree.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME "libdmlslice${DMLS_SOVERSION}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_GENERATE_SHLIBS ON)
get_target_property(dmls_shared_dir dmlslice BINARY_DIR) # where the build puts libdmlslice.so
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${dmls_shared_dir}")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libdmlslice-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_TOOL_PACKAGE_NAME dmlslice)
set(CPACK_DEBIAN_TOOL_PACKAGE_SECTION science)

# The source archive (cpack --config CPackSourceConfig.cmake): what
# FetchContent's URL takes (docs/install.md). The checkout less its build
# trees, version control and caches.
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_PACKAGE_FILE_NAME "dmlslice-${PROJECT_VERSION}-Source")
set(CPACK_SOURCE_IGNORE_FILES "/\\.git/" "/\\.git$" "/__pycache__/" "/\\.hypothesis/" "/\\.pytest_cache/"
    "^${PROJECT_SOURCE_DIR}/build[^/]*/" "^${PROJECT_BINARY_DIR}/" "^${PROJECT_SOURCE_DIR}/dist/")
# The binary packages' /usr is no place for the sources: cpack reads this
# file for every package it makes, the source archive included.
set(CPACK_PROJECT_CONFIG_FILE "${CMAKE_CURRENT_LIST_DIR}/cpack_source_prefix.cmake")
include(CPack)
cpack_add_component(runtime DISPLAY_NAME "dmlslice shared library"
                    DESCRIPTION "The shared library libdmlslice.so.${DMLS_SOVERSION}")
cpack_add_component(dev DISPLAY_NAME "dmlslice development files" DEPENDS runtime
                    DESCRIPTION "Headers, static library, CMake package and pkg-config file")
cpack_add_component(tool DISPLAY_NAME "dmlslice command-line tool" DEPENDS runtime
                    DESCRIPTION "The dmlslice tool, its manual page, the benchmark cases and the documentation")
