# What every Linux cross build shares, included by the toolchain files named
# for a target (aarch64-linux-gnu.cmake, s390x-linux-gnu.cmake) after they set
# CMAKE_SYSTEM_PROCESSOR and DMLS_CROSS_TRIPLE: Debian's cross toolchain
# (gcc-TRIPLE), tests run by CTest under qemu-PROCESSOR-static
# (qemu-user-static) with the cross C library's folder as its root. Not a
# toolchain file of its own: it names no target.
# clang works the same way (-DCMAKE_C_COMPILER=clang: it targets the triple
# and links with the cross binutils and sysroot).
set(CMAKE_SYSTEM_NAME Linux)

if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER ${DMLS_CROSS_TRIPLE}-gcc)
endif()
set(CMAKE_C_COMPILER_TARGET ${DMLS_CROSS_TRIPLE}) # read by clang, ignored by gcc
# The emulator runs the cross toolchain's loader (-L) and, through
# LD_LIBRARY_PATH, its C library: where Debian's multiarch libc6:ARCH is
# installed too (libjansson-dev:ARCH brings it), the loader would otherwise
# pick that libc from the cache, a different build of glibc, and programs
# crash or hang.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-${CMAKE_SYSTEM_PROCESSOR}-static -L /usr/${DMLS_CROSS_TRIPLE}
    -E LD_LIBRARY_PATH=/usr/${DMLS_CROSS_TRIPLE}/lib)

# Libraries of the target that Debian installs beside the host's (multiarch,
# e.g. libjansson-dev:ARCH for the tool) live in /usr/lib/TRIPLE; the C
# library comes from the cross toolchain's own folder.
set(CMAKE_LIBRARY_ARCHITECTURE ${DMLS_CROSS_TRIPLE})
