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
#   windows        Windows x64, gcc-mingw-w64-x86-64; tests under Wine (wine64)
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
  windows) toolchain=x86_64-w64-mingw32; pkgs="gcc-mingw-w64-x86-64 wine64" ;;
  *) usage ;;
esac
[ -n "$arch" ] && pkgs="$pkgs pkg-config libjansson-dev:$arch"

# Debian packages: only what is missing, quietly.
missing=""
for p in cmake make $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt=apt-get
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    apt="sudo -n apt-get"
  else
    echo "cross-test.sh: missing Debian packages:$missing (run as root or with sudo)" >&2
    exit 1
  fi
  echo "cross-test.sh: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  if [ -n "$arch" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    if [ "$(id -u)" = 0 ]; then dpkg --add-architecture "$arch"; else sudo -n dpkg --add-architecture "$arch"; fi
    $apt update -qq >/dev/null
  fi
  # shellcheck disable=SC2086 # the package list is split on purpose
  $apt install -y -qq --no-install-recommends $missing >/dev/null ||
    { $apt update -qq >/dev/null && $apt install -y -qq --no-install-recommends $missing >/dev/null; }
fi

jobs=$(nproc 2>/dev/null || echo 2)
set -- -S "$root" -B "$build" --toolchain "$root/cmake/toolchains/$toolchain.cmake" -DDMLS_CUDA=OFF
[ -n "$cc" ] && set -- "$@" -DCMAKE_C_COMPILER="$cc"
echo "== $target: configure, build, test (${cc:-gcc}, $toolchain)"
cmake "$@" >/dev/null
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" -j "$jobs" --output-on-failure
