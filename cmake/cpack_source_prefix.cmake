# Read by cpack for each package (CPACK_PROJECT_CONFIG_FILE, set in
# cmake/packaging.cmake): the source archive holds the tree at its top,
# dmlslice-VERSION-Source/CMakeLists.txt, not under the packages' /usr.
if(CPACK_PACKAGE_FILE_NAME STREQUAL CPACK_SOURCE_PACKAGE_FILE_NAME)
  set(CPACK_PACKAGING_INSTALL_PREFIX "")
endif()
