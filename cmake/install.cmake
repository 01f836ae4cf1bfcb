# cmake --install: everything in the GNUInstallDirs layout (docs/install.md
# lists the files). Included by the top-level CMakeLists.txt after the
# targets exist; does nothing unless DMLS_INSTALL is on.
if(NOT DMLS_INSTALL)
  return()
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(DMLS_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/dmlslice" CACHE STRING
    "Where the CMake package (dmlsliceConfig.cmake) is installed, relative to the prefix")
mark_as_advanced(DMLS_INSTALL_CMAKEDIR)

# ---------------------------------------------------------------- headers
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/dmlslice" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        COMPONENT dev FILES_MATCHING PATTERN "*.h")
# Headers generated from project() (the version header), where the build makes them.
install(DIRECTORY "${PROJECT_BINARY_DIR}/include/dmlslice" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        COMPONENT dev OPTIONAL FILES_MATCHING PATTERN "*.h")

# ---------------------------------------------------------------- libraries
# Two export sets, so that the CMake package can offer the shared library
# where the static one's dependencies (a CUDA build's toolkit) are absent.
install(TARGETS dmlslice EXPORT dmlsliceTargets
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT runtime
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime NAMELINK_COMPONENT dev
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT dev
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS dmlslice_static EXPORT dmlsliceStaticTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT dev
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(EXPORT dmlsliceTargets NAMESPACE dmlslice:: DESTINATION "${DMLS_INSTALL_CMAKEDIR}" COMPONENT dev)
install(EXPORT dmlsliceStaticTargets NAMESPACE dmlslice:: DESTINATION "${DMLS_INSTALL_CMAKEDIR}" COMPONENT dev)

# ---------------------------------------------------------------- CMake package
configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/dmlsliceConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/dmlsliceConfig.cmake"
                              INSTALL_DESTINATION "${DMLS_INSTALL_CMAKEDIR}")
# The ABI policy of cmake/abi.cmake: before 1.0 only the same minor version
# is compatible, from 1.0 on the same major version.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(dmls_compat SameMinorVersion)
else()
  set(dmls_compat SameMajorVersion)
endif()
write_basic_package_version_file("${PROJECT_BINARY_DIR}/dmlsliceConfigVersion.cmake"
                                 VERSION "${PROJECT_VERSION}" COMPATIBILITY ${dmls_compat})
install(FILES "${PROJECT_BINARY_DIR}/dmlsliceConfig.cmake" "${PROJECT_BINARY_DIR}/dmlsliceConfigVersion.cmake"
        DESTINATION "${DMLS_INSTALL_CMAKEDIR}" COMPONENT dev)

# ---------------------------------------------------------------- pkg-config
# Relocatable: every path is relative to the .pc file's own folder, so the
# same file serves cmake --install --prefix ANY, the .deb and the .tar.gz.
set(dmls_pcdir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(DMLS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(DMLS_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH dmls_up "/prefix/${dmls_pcdir}" "/prefix")
  string(REGEX REPLACE "/$" "" dmls_up "${dmls_up}")
  set(DMLS_PC_PREFIX "\${pcfiledir}/${dmls_up}")
  set(DMLS_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(DMLS_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(DMLS_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# What a static link needs beyond libdmlslice.a: the system threads and, in
# a CUDA build, the static CUDA runtime (with the libraries it uses) and the
# C++ runtime that nvcc's host code for the kernels calls.
set(DMLS_PC_CFLAGS "")
set(DMLS_PC_CUDA_WORDS "")
set(DMLS_PC_LIBS_PRIVATE "-lpthread")
if(DMLS_HAVE_CUDA)
  set(DMLS_PC_CFLAGS " -DDMLS_HAVE_CUDA")
  set(DMLS_PC_CUDA_WORDS " and CUDA")
  set(DMLS_PC_LIBS_PRIVATE "-L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt -lpthread -lstdc++")
endif()
if(DMLS_HAVE_VULKAN)
  # The Vulkan backend needs the loader, which exists only as a shared
  # library: it comes last, linked dynamically even inside a
  # -Wl,-Bstatic ... -Wl,-Bdynamic static link (docs/vulkan.md).
  string(APPEND DMLS_PC_CFLAGS " -DDMLS_HAVE_VULKAN")
  string(APPEND DMLS_PC_CUDA_WORDS " and Vulkan")
  if(DMLS_HAVE_VOLK)
    string(APPEND DMLS_PC_LIBS_PRIVATE " -ldl") # volk opens the loader at run time
  else()
    string(APPEND DMLS_PC_LIBS_PRIVATE " -Wl,-Bdynamic -lvulkan")
  endif()
endif()
configure_file("${CMAKE_CURRENT_LIST_DIR}/dmlslice.pc.in" "${PROJECT_BINARY_DIR}/dmlslice.pc" @ONLY)
# dmlslice-static.pc: the static library by its path, so that the linker
# cannot take the shared one that sits beside it (pkg-config --static only
# adds Libs.private; which of the two -ldmlslice finds is the linker's
# choice, and it takes the .so).
get_target_property(dmls_static_name dmlslice_static OUTPUT_NAME)
set(DMLS_PC_STATIC_LIB "${CMAKE_STATIC_LIBRARY_PREFIX}${dmls_static_name}${CMAKE_STATIC_LIBRARY_SUFFIX}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/dmlslice-static.pc.in" "${PROJECT_BINARY_DIR}/dmlslice-static.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/dmlslice.pc" "${PROJECT_BINARY_DIR}/dmlslice-static.pc"
        DESTINATION "${dmls_pcdir}" COMPONENT dev)

# ---------------------------------------------------------------- tool and data
if(TARGET dmlslice_cli)
  # The installed tool finds the installed library beside it, wherever the
  # prefix is moved, without LD_LIBRARY_PATH.
  file(RELATIVE_PATH dmls_bin_to_lib "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(dmlslice_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${dmls_bin_to_lib}")
  install(TARGETS dmlslice_cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT tool)
  install(FILES "${PROJECT_SOURCE_DIR}/docs/dmlslice.1" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT tool)
  # The canonical benchmark cases, where `dmlslice bench` looks for them.
  install(FILES "${PROJECT_SOURCE_DIR}/bench/cases.json" DESTINATION "${CMAKE_INSTALL_DATADIR}/dmlslice"
          COMPONENT tool)
endif()
# The README and the pages it links, in the repository's layout, so that
# every link of an installed page leads to an installed file
# (tests/install/run.sh checks that).
install(FILES "${PROJECT_SOURCE_DIR}/README.md" "${PROJECT_SOURCE_DIR}/CHANGELOG.md"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT tool)
file(GLOB dmls_doc_pages "${PROJECT_SOURCE_DIR}/docs/*.md")
install(FILES ${dmls_doc_pages} "${PROJECT_SOURCE_DIR}/docs/dmlslice.1" DESTINATION "${CMAKE_INSTALL_DOCDIR}/docs"
        COMPONENT tool)
install(FILES "${PROJECT_SOURCE_DIR}/bench/RESULTS.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}/bench" COMPONENT tool)
install(FILES "${PROJECT_SOURCE_DIR}/python/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}/python" COMPONENT tool)
install(FILES "${PROJECT_SOURCE_DIR}/js/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}/js" COMPONENT tool)
