#!/bin/sh
# Cross-builds dmlslice for another machine and runs the whole CTest suite
# there through its emulator (CMAKE_CROSSCOMPILING_EMULATOR: every test
# program, and the tool wherever a test starts it).
#
#   scripts/cross-test.sh TARGET [BUILD_DIR]
#
#   aarch64        Linux ARM64, gcc-aarch64-linux-gnu; tests under qemu-aarch64-static
#   aarch64-clang  the same with clang --target=aarch64-linux-gnu and Debian's cross sysroot
#   s390x          Linux s390x (big-endian), gcc-s390x-linux-gnu; tests under qemu-s390x-static
#   windows        Windows x64, gcc-mingw-w64-x86-64; tests under Wine (wine64),
#                  without `dmlslice dispatch` (Debian has no MinGW Jansson)
#
# BUILD_DIR defaults to build-TARGET. Missing Debian packages are installed
# first (as root, or through sudo). CUDA is off: there is no cross nvcc.
set -eu

usage() {
  echo "usage: $0 aarch64|aarch64-clang|s390x|windows [BUILD_DIR]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
target=$1
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/build-$target}
cc=""
# The tool's own dependency (Jansson, for `dmlslice dispatch`) for the
# target comes from Debian's multiarch packages (libjansson-dev:ARCH).
arch=""
case $target in
  aarch64) toolchain=aarch64-linux-gnu; arch=arm64; pkgs="gcc-aarch64-linux-gnu qemu-user-static" ;;
  aarch64-clang) toolchain=aarch64-linux-gnu; arch=arm64; cc=clang; pkgs="clang gcc-aarch64-linux-gnu qemu-user-static" ;;
  s390x) toolchain=s390x-linux-gnu; arch=s390x; pkgs="gcc-s390x-linux-gnu qemu-user-static" ;;
  windows) toolchain=x86_64-w64-mingw32; pkgs="gcc-mingw-w64-x86-64 wine wine64" ;;
  *) usage ;;
esac
[ -n "$arch" ] && pkgs="$pkgs pkg-config libjansson-dev:$arch"

# Debian packages: only what is missing, quietly.
sh "$root/scripts/deps.sh" cmake make $pkgs

jobs=$(nproc 2>/dev/null || echo 2)
set -- -S "$root" -B "$build" --toolchain "$root/cmake/toolchains/$toolchain.cmake" -DDMLS_CUDA=OFF
[ -n "$cc" ] && set -- "$@" -DCMAKE_C_COMPILER="$cc"
if [ "$target" = windows ]; then
  # Debian has no MinGW Jansson: the tool is built without `dispatch`.
  set -- "$@" -DDMLS_DISPATCH=OFF
  # Wine: no debug chatter, no Mono or Gecko dialogs; the prefix is made
  # once, up front, so no test pays for it.
  export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
  wineboot --init >/dev/null 2>&1 || true
fi
echo "== $target: configure, build, test (${cc:-gcc}, $toolchain)"
cmake "$@" >/dev/null
cmake --build "$build" -j "$jobs"
# s390x under qemu: a SIGBUS from a truncated mapping is not delivered as on
# hardware (test_files' shrinking-input case dies with it), and its gcc
# expands the zero fill's memset inline where test_plan_choice counts calls
# through --wrap. Both are known gaps of this run, listed in the README.
skip=""
[ "$target" = s390x ] && skip="^(test_files|test_plan_choice)$"
if [ -n "$skip" ]; then
  echo "cross-test.sh: $target: not run here: $skip"
  ctest --test-dir "$build" -j "$jobs" --output-on-failure -E "$skip"
else
  ctest --test-dir "$build" -j "$jobs" --output-on-failure
fi
