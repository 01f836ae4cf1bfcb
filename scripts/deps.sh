#!/bin/sh
# Debian packages the build needs; installs only what is missing, quietly.
# Run as root, or as a user with password-less sudo.
#
#   scripts/deps.sh            the packages listed below
#   scripts/deps.sh PKG...     those packages instead (PKG:ARCH adds Debian's
#                              multiarch ARCH first; scripts/cross-test.sh)
#
# The tool (tools/): libjansson-dev and pkg-config, for `dmlslice dispatch`'s
# JSON models (docs/dispatch.md).
# The install tests (tests/install/run.sh, docs/install.md): pkg-config for
# the pkg-config consumer, dpkg-dev and file for cpack's .deb packages
# (dpkg-shlibdeps finds their dependencies), binutils for nm and readelf.
# The Python package (python/, for /usr/bin/python3): python3-dev,
# python3-setuptools, python3-wheel and python3-pip to build and install it;
# python3-numpy, python3-pytest and python3-hypothesis for its tests;
# python3-torch for its DLPack round trips (about 300 MB with its dependencies;
# about a minute to install here). Optional, for dmlslice.dask (docs/dask.md)
# and its tests: python3-dask, python3-distributed, python3-zarr.
# The Vulkan backend (docs/vulkan.md): libvulkan-dev (headers and loader),
# glslc (compiles its shaders at build time) and libvulkan-volk-dev (volk:
# the library loads the API at run time rather than linking the loader); its tests run on
# mesa-vulkan-drivers (lavapipe, Mesa's CPU driver) with
# vulkan-validationlayers on.
# The web build (scripts/build-wasm.sh, js/README.md): emscripten (emcc) and
# nodejs, whose tests CTest runs when both are found; node-acorn is the
# parser emscripten's JavaScript optimizer loads (NODE_PATH=/usr/share/nodejs);
# npm packs the package and chromium loads it in a page (js/test/package.sh).
# Debian's npm only where no npm is there: NodeSource's nodejs package (the
# one some machines carry) holds npm itself and conflicts with Debian's.
# The tests: qemu-user-static, whose x86-64 emulator plays a CPU without AVX2
# for the CPU-feature test on x86-64 hosts (tests/CMakeLists.txt).
set -eu

pkgs="cmake gcc make pkg-config libjansson-dev dpkg-dev file binutils
python3-dev python3-setuptools python3-wheel python3-pip
python3-numpy python3-pytest python3-hypothesis python3-torch
python3-dask python3-distributed python3-zarr
qemu-user-static emscripten nodejs node-acorn chromium
libvulkan-dev glslc libvulkan-volk-dev mesa-vulkan-drivers vulkan-validationlayers"

command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
[ $# -gt 0 ] && pkgs="$*"

missing=""
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
  apt="apt-get -o DPkg::Lock::Timeout=600"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  apt="sudo -n apt-get -o DPkg::Lock::Timeout=600"
else
  echo "deps.sh: missing Debian packages:$missing (run as root or with sudo)" >&2
  exit 1
fi

echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
for p in $missing; do
  case $p in
  *:*)
    arch=${p#*:}
    if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
      if [ "$(id -u)" = 0 ]; then dpkg --add-architecture "$arch"; else sudo -n dpkg --add-architecture "$arch"; fi
      $apt update -qq >/dev/null
    fi
    ;;
  esac
done
# shellcheck disable=SC2086 # the package list is split on purpose
$apt install -y -qq --no-install-recommends $missing >/dev/null ||
  { $apt update -qq >/dev/null && $apt install -y -qq --no-install-recommends $missing >/dev/null; }
