# Cross-compiling for Linux on AArch64 (ARM64) with Debian's cross toolchain
# (gcc-aarch64-linux-gnu), tests run by CTest under qemu-aarch64-static
# (qemu-user-static) with the cross C library's folder as its root:
#   cmake -S . -B build-aarch64 --toolchain cmake/toolchains/aarch64-linux-gnu.cmake -DDMLS_CUDA=OFF
# clang works the same way (-DCMAKE_C_COMPILER=clang: it targets the triple
# below and links with the cross binutils and sysroot).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(DMLS_CROSS_TRIPLE aarch64-linux-gnu)

if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER ${DMLS_CROSS_TRIPLE}-gcc)
endif()
set(CMAKE_C_COMPILER_TARGET ${DMLS_CROSS_TRIPLE}) # read by clang, ignored by gcc
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/${DMLS_CROSS_TRIPLE})

# Headers and libraries from the cross sysroot only; programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${DMLS_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
