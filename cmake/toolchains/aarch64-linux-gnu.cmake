# Cross-compiling for Linux on AArch64 (ARM64) with Debian's cross toolchain
# (gcc-aarch64-linux-gnu), tests under qemu-aarch64-static (what every Linux
# cross build shares: debian-cross-linux.cmake):
#   cmake -S . -B build-aarch64 --toolchain cmake/toolchains/aarch64-linux-gnu.cmake -DDMLS_CUDA=OFF
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(DMLS_CROSS_TRIPLE aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross-linux.cmake)
