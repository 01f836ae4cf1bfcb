#!/bin/sh
# Cross-builds dmlslice for another machine and runs the whole CTest suite
# there through its emulator (CMAKE_CROSSCOMPILING_EMULATOR: every test
# program, and the tool wherever a test starts it).
#
#   scripts/cross-test.sh TARGET [BUILD_DIR]
#
#   aarch64        Linux ARM64, gcc-aarch64-linux-gnu; tests under qemu-aarch64-static
#   aarch64-clang  the same with clang --target=aarch64-linux-gnu and Debian's cross sysroot
#                  (either ARM64 build: the library's tests only, below)
#   s390x          Linux s390x (big-endian), gcc-s390x-linux-gnu; tests under qemu-s390x-static
#   windows        Windows x64, gcc-mingw-w64-x86-64; tests under Wine (wine64)
#
# BUILD_DIR defaults to build-TARGET. Missing Debian packages are installed
# first (as root, or through sudo). CUDA is off: there is no cross nvcc.
#
# Jansson, the JSON reader of `dmlslice dispatch`: for Linux targets Debian's
# multiarch package (libjansson-dev:ARCH). Debian has no MinGW build of it,
# so for windows its Debian source package (apt-get source, from a deb-src
# entry this script adds to apt when there is none) is cross-built once into
# BUILD_DIR/jansson, a static library with its pkg-config file, and reused by
# every later run on that BUILD_DIR.
set -eu

usage() {
  echo "usage: $0 aarch64|aarch64-clang|s390x|windows [BUILD_DIR]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
target=$1
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/build-$target}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac  # the Jansson paths handed to CMake must not depend on its folder
cc=""
arch=""
case $target in
  aarch64) toolchain=aarch64-linux-gnu; arch=arm64; pkgs="gcc-aarch64-linux-gnu qemu-user-static" ;;
  aarch64-clang) toolchain=aarch64-linux-gnu; arch=arm64; cc=clang; pkgs="clang gcc-aarch64-linux-gnu qemu-user-static" ;;
  s390x) toolchain=s390x-linux-gnu; arch=s390x; pkgs="gcc-s390x-linux-gnu qemu-user-static" ;;
  windows) toolchain=x86_64-w64-mingw32; pkgs="gcc-mingw-w64-x86-64 wine wine64 dpkg-dev" ;; # wine: the `wine` command; dpkg-dev: dpkg-source
  *) usage ;;
esac
# The cross C library's headers and start files: only recommended by the
# cross gcc, so deps.sh (no recommends) would leave them out.
[ -n "$arch" ] && pkgs="$pkgs pkg-config libjansson-dev:$arch libc6-dev-$arch-cross"

# Debian packages: only what is missing, quietly.
sh "$root/scripts/deps.sh" cmake make $pkgs

jobs=$(nproc 2>/dev/null || echo 2)

# As root, or through password-less sudo (as scripts/deps.sh).
as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n "$@"
  else
    echo "cross-test.sh: needs root (or password-less sudo) for: $*" >&2
    exit 1
  fi
}

# Debian's jansson source package into $1 (a .dsc, its tarballs). apt
# fetches it over the same signed archive as the binary packages, so the
# files are checked against the release's signed hashes. Without a deb-src
# entry for Debian in apt's sources, one is added, copied from the deb
# entries (same mirrors, suites, components and signing key).
fetch_jansson_source() {
  if ! apt-cache showsrc jansson 2>/dev/null | grep -q '^Package: jansson$'; then
    list=""
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      # deb822 (Debian 12 and later): the same stanzas, as source entries.
      list=/etc/apt/sources.list.d/dmlslice-deb-src.sources
      sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$build/deb-src.tmp"
    elif grep -q '^deb ' /etc/apt/sources.list 2>/dev/null; then
      list=/etc/apt/sources.list.d/dmlslice-deb-src.list
      sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$build/deb-src.tmp"
    fi
    [ -n "$list" ] || { echo "cross-test.sh: no Debian entry in apt's sources to copy a deb-src entry from" >&2; exit 1; }
    echo "cross-test.sh: adding Debian's source packages to apt ($list)"
    as_root cp "$build/deb-src.tmp" "$list"
    rm -f "$build/deb-src.tmp"
    # Only the new entry's indexes are fetched; the others stay as they are.
    as_root apt-get -o DPkg::Lock::Timeout=600 -o Dir::Etc::sourcelist="$list" -o Dir::Etc::sourceparts=- \
      -o APT::Get::List-Cleanup=0 update -qq
  fi
  mkdir -p "$1"
  # As root, apt downloads as its own unprivileged user (_apt), who cannot
  # write in root's folder, and warns before downloading as root: it is
  # told to up front.
  (cd "$1" && apt-get source --download-only -qq -o APT::Sandbox::User="$(id -un)" jansson) >"$1/apt.log" 2>&1 ||
    { cat "$1/apt.log" >&2; exit 1; }
}

# Jansson cross-built for Windows into $build/jansson, once: a static
# library (the tool then needs no Jansson DLL beside it), with its
# pkg-config file (the build finds it by that). Its tests, examples
# and documentation are not built. A stamp marks a complete install.
jansson_for_windows() {
  prefix=$build/jansson
  [ -f "$prefix/dmlslice-built" ] && return 0
  src=$build/jansson-source
  ls "$src"/jansson_*.dsc >/dev/null 2>&1 || fetch_jansson_source "$src"
  dsc=$(ls "$src"/jansson_*.dsc | tail -n 1)
  echo "== windows: Jansson $(sed -n 's/^Version: //p' "$dsc") from Debian's source, cross-built into $prefix"
  rm -rf "$src/tree" "$src/build" "$prefix"
  # dpkg-source checks the tarballs against the .dsc's hashes and applies
  # Debian's patches. (It cannot check the .dsc's signature without
  # Debian's developer keyring; apt checked the files against the signed
  # archive already.)
  dpkg-source -x "$dsc" "$src/tree" >"$src/extract.log" 2>&1 || { cat "$src/extract.log" >&2; exit 1; }
  # CMAKE_POLICY_VERSION_MINIMUM: Jansson asks for CMake 3.1, which CMake 4
  # refuses without it.
  cmake -S "$src/tree" -B "$src/build" --toolchain "$root/cmake/toolchains/$toolchain.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DJANSSON_BUILD_SHARED_LIBS=OFF -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_EXAMPLES=OFF -DJANSSON_BUILD_DOCS=OFF \
    >"$src/configure.log" 2>&1 || { cat "$src/configure.log" >&2; exit 1; }
  cmake --build "$src/build" -j "$jobs" >"$src/build.log" 2>&1 || { cat "$src/build.log" >&2; exit 1; }
  cmake --install "$src/build" >/dev/null
  touch "$prefix/dmlslice-built"
}

set -- -S "$root" -B "$build" --toolchain "$root/cmake/toolchains/$toolchain.cmake" -DDMLS_CUDA=OFF
[ -n "$cc" ] && set -- "$@" -DCMAKE_C_COMPILER="$cc"
if [ "$target" = windows ]; then
  mkdir -p "$build"
  jansson_for_windows
  # Found through its pkg-config file (lib/pkgconfig/jansson.pc), as
  # tools/dispatch/CMakeLists.txt finds Jansson everywhere.
  set -- "$@" -DDMLS_DISPATCH=ON -DCMAKE_PREFIX_PATH="$build/jansson"
  # Wine: no debug chatter, no Mono or Gecko dialogs; the prefix is made
  # once, up front, so no test pays for it.
  export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
  # One persistent wineserver for the whole suite. Left to itself the server
  # exits a few seconds after its last client, and a test's wine started in
  # that moment dies with "wine client error:0: recvmsg: Connection reset by
  # peer" (a CI run failed so). A server already running is waited out first.
  wineserver -p 2>/dev/null || { timeout 60 wineserver -w; wineserver -p; } || true
  trap 'wineserver -k 2>/dev/null || true' EXIT
  wineboot --init >/dev/null 2>&1 || true
fi
echo "== $target: configure, build, test (${cc:-gcc}, $toolchain)"
cmake "$@" >/dev/null
cmake --build "$build" -j "$jobs"
# ARM64 (either compiler): what differs from x86-64 is the library (its NEON
# kernels above all), so it runs the library's tests. The tool's tests (the
# command line, files, dispatch), which start the tool under qemu hundreds of
# times and took most of CI's ARM64 minutes, run its POSIX code with
# x86-64's byte order: the native suite covers that, s390x the other byte
# order, Windows the other platform layer.
set --
case $target in aarch64*) set -- -E '^(test_cli_|check_cli_|check_docs|check_files_|check_bench_|check_demo|test_byte_order|test_npy_|test_progress|test_files|dispatch_|test_grad|docs_blocks|python_tests)' ;; esac
ctest --test-dir "$build" -j "$jobs" --output-on-failure "$@"
