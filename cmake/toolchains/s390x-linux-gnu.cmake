# Cross-compiling for Linux on s390x (IBM Z, big-endian) with Debian's cross toolchain
# (gcc-s390x-linux-gnu), tests run by CTest under qemu-s390x-static
# (qemu-user-static) with the cross C library's folder as its root:
#   cmake -S . -B build-s390x --toolchain cmake/toolchains/s390x-linux-gnu.cmake -DDMLS_CUDA=OFF
# clang works the same way (-DCMAKE_C_COMPILER=clang: it targets the triple
# below and links with the cross binutils and sysroot).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(DMLS_CROSS_TRIPLE s390x-linux-gnu)

if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER ${DMLS_CROSS_TRIPLE}-gcc)
endif()
set(CMAKE_C_COMPILER_TARGET ${DMLS_CROSS_TRIPLE}) # read by clang, ignored by gcc
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x-static -L /usr/${DMLS_CROSS_TRIPLE})

# Headers and libraries from the cross sysroot only; programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${DMLS_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
