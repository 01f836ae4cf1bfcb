#!/bin/sh
# Cross-builds dmlslice for Windows x64 with MinGW-w64 and runs the whole
# CTest suite under Wine: every test program through
# CMAKE_CROSSCOMPILING_EMULATOR, and the tool wherever a test starts it.
#
#   scripts/windows-test.sh [BUILD_DIR]        (default BUILD_DIR: build-windows)
#
# Missing Debian packages (gcc-mingw-w64-x86-64, wine64, cmake, make) are
# installed first, as root or through sudo. The build is the plain CMake
# cross-compiling invocation, so anyone can repeat it. CUDA is off (there is
# no cross nvcc), and `dmlslice dispatch` is left out (Debian has no MinGW
# build of Jansson). Wine's first start in a fresh prefix takes a while.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-windows}
jobs=${DMLS_JOBS:-2}

missing=""
for p in cmake make gcc-mingw-w64-x86-64 wine64; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt=apt-get
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    apt="sudo -n apt-get"
  else
    echo "windows-test.sh: missing Debian packages:$missing (run as root or with sudo)" >&2
    exit 1
  fi
  echo "windows-test.sh: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086 # the package list is split on purpose
  $apt install -y -qq --no-install-recommends $missing >/dev/null ||
    { $apt update -qq >/dev/null && $apt install -y -qq --no-install-recommends $missing >/dev/null; }
fi

# Wine: no debug chatter, no dialogs; the prefix is made once, up front, so
# no test pays for it.
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
wineboot --init >/dev/null 2>&1 || true

echo "== windows: configure, build, test (x86_64-w64-mingw32-gcc, tests under Wine)"
cmake -S "$root" -B "$build" -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_C_COMPILER=x86_64-w64-mingw32-gcc \
  -DCMAKE_CROSSCOMPILING_EMULATOR=wine -DDMLS_CUDA=OFF -DDMLS_DISPATCH=OFF >/dev/null
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" -j "$jobs" --output-on-failure
