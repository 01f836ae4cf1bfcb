# The shared library's ABI version (SONAME), from project(VERSION) alone.
# Policy (docs/install.md): from 1.0 on, the SONAME is libdmlslice.so.MAJOR
# and changes only when the ABI breaks, which takes a new major version.
# Before 1.0 every minor release may break the ABI, so the SONAME carries
# the minor number too: libdmlslice.so.0.MINOR. Patch releases never break it.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(DMLS_SOVERSION "0.${PROJECT_VERSION_MINOR}")
else()
  set(DMLS_SOVERSION "${PROJECT_VERSION_MAJOR}")
endif()
