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
# The emulator runs the cross toolchain's loader (-L) and, through
# LD_LIBRARY_PATH, its C library: where Debian's multiarch libc6:ARCH is
# installed too (libjansson-dev:ARCH brings it), the loader would otherwise
# pick that libc from the cache, a different build of glibc, and programs
# crash or hang.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x-static -L /usr/${DMLS_CROSS_TRIPLE}
    -E LD_LIBRARY_PATH=/usr/${DMLS_CROSS_TRIPLE}/lib)

# Libraries of the target that Debian installs beside the host's (multiarch,
# e.g. libjansson-dev:ARCH for the tool) live in /usr/lib/TRIPLE; the C
# library comes from the cross toolchain's own folder.
set(CMAKE_LIBRARY_ARCHITECTURE ${DMLS_CROSS_TRIPLE})
