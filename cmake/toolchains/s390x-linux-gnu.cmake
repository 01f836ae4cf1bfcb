# Cross-compiling for Linux on s390x (IBM Z, big-endian) with Debian's cross
# toolchain (gcc-s390x-linux-gnu), tests under qemu-s390x-static (what every
# Linux cross build shares: debian-cross-linux.cmake):
#   cmake -S . -B build-s390x --toolchain cmake/toolchains/s390x-linux-gnu.cmake -DDMLS_CUDA=OFF
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(DMLS_CROSS_TRIPLE s390x-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross-linux.cmake)
