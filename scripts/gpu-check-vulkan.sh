#!/usr/bin/env bash
# The Vulkan backend on the NVIDIA GPU machine, in one command: the Vulkan
# suite (test_vulkan with the canonical cases at full size and 2,000 random
# cases, the CLI checks), `dmlslice info --devices`, and the benchmark with
# --device vulkan beside --device cuda in the same build and run.
#   scripts/gpu-check-vulkan.sh          # from the repository root
#
# That machine has NVIDIA's driver (under /usr/local/nvidia) but no Vulkan
# loader, no Vulkan headers, no glslc and no network, and the driver's own
# manifest names libGLX_nvidia.so.0, which cannot create an instance without
# a display. The recipe (issue 25): Debian's packages, downloaded beforehand
# on a machine with a network into the git-ignored folder .gl/ of the
# repository root,
#   cd .gl && apt-get download libvulkan1 libvulkan-dev glslc libshaderc1 libvulkan-volk-dev
# are unpacked (dpkg-deb -x) into a temporary root; the loader's folder goes
# on LD_LIBRARY_PATH; VK_DRIVER_FILES points at a manifest written here that
# names libEGL_nvidia.so.0 (found under /usr/local/nvidia or by ldconfig).
# The H100 then shows as a discrete GPU with Vulkan 1.4.312.
# If the unpacked glslc cannot run on that machine, put the SPIR-V of a
# build elsewhere in .gl/spv/ (cp BUILD/src/vulkan/*.spv .gl/spv/): the
# build then embeds those (DMLS_VULKAN_SPIRV_DIR) instead of compiling.
# Logs go to $OUT when set, else to build-gpu-vk/logs.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build-gpu-vk}
logs=${OUT:-$build/logs}
mkdir -p "$logs"
status=0
step() { echo "== $*"; }

step "unpack the Vulkan packages of .gl/"
debs=$(ls "$root"/.gl/*.deb 2>/dev/null)
[ -n "$debs" ] || { echo "no .deb in $root/.gl (see the comment at the top of this script)"; exit 1; }
vk=$(mktemp -d)
trap 'rm -rf "$vk"' EXIT
for d in $debs; do dpkg-deb -x "$d" "$vk" || { echo "dpkg-deb -x $d failed"; exit 1; }; done
lib=$(dirname "$(find "$vk" -name 'libvulkan.so.1*' | head -1)")
[ -d "$lib" ] || { echo "no libvulkan.so.1 in the packages of .gl"; exit 1; }
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

step "ICD manifest naming libEGL_nvidia.so.0"
egl=$(find /usr/local/nvidia -name 'libEGL_nvidia.so.0' 2>/dev/null | head -1)
[ -n "$egl" ] || egl=$(ldconfig -p 2>/dev/null | awk '/libEGL_nvidia.so.0 / {print $NF; exit}')
[ -n "$egl" ] || { echo "libEGL_nvidia.so.0 not found under /usr/local/nvidia nor by ldconfig"; exit 1; }
api=$(sed -n 's/.*"api_version" *: *"\([0-9.]*\)".*/\1/p' /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json 2>/dev/null | head -1)
cat > "$vk/nvidia_egl_icd.json" <<JSON
{"file_format_version": "1.0.1", "ICD": {"library_path": "$egl", "api_version": "${api:-1.3.0}"}}
JSON
export VK_DRIVER_FILES="$vk/nvidia_egl_icd.json"
cat "$VK_DRIVER_FILES" | tee "$logs/icd.txt"

step "build (CUDA and Vulkan)"
glslc=$(find "$vk" -path '*/bin/glslc' -type f | head -1)
spv=()
if [ -z "$glslc" ] || ! "$glslc" --version >/dev/null 2>&1; then
  [ -d "$root/.gl/spv" ] || { echo "glslc from .gl does not run here and .gl/spv is absent"; exit 1; }
  spv=(-DDMLS_VULKAN_SPIRV_DIR="$root/.gl/spv")
  echo "using the SPIR-V of .gl/spv"
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDMLS_CUDA=ON -DDMLS_VULKAN=ON \
  -DVulkan_INCLUDE_DIR="$vk/usr/include" -DVulkan_LIBRARY="$(ls "$lib"/libvulkan.so.1 | head -1)" \
  ${glslc:+-DDMLS_GLSLC="$glslc"} "${spv[@]}" >"$logs/build.txt" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" >>"$logs/build.txt" 2>&1 || { tail -30 "$logs/build.txt"; exit 1; }
grep -E "backend" "$logs/build.txt"

step "devices"
"$build/dmlslice" info --devices 2>&1 | tee "$logs/devices.txt"

step "Vulkan suite (canonical cases at full size, 2000 random cases; DMLS_TEST_LARGE=1: an input over 4 GiB)"
DMLS_TEST_CANONICAL=1 DMLS_TEST_LARGE=1 DMLS_TEST_ITERS=2000 "$build/tests/vulkan/test_vulkan" >"$logs/test_vulkan.txt" 2>&1 ||
  status=1
grep -E "seed|device:|random:|canonical|large|passed|FAIL|failed" "$logs/test_vulkan.txt" | tail -25
ctest --test-dir "$build" -R "vulkan|cuda|worked|dispatch" --output-on-failure >"$logs/ctest.txt" 2>&1 || status=1
tail -4 "$logs/ctest.txt"

step "benchmark: --device vulkan, then --device cuda (same build, same run)"
"$build/dmlslice" bench --device vulkan --json "$logs/bench_vulkan.json" 2>&1 | tee "$logs/bench_vulkan.txt" || status=1
"$build/dmlslice" bench --device cuda --json "$logs/bench_cuda.json" 2>&1 | tee "$logs/bench_cuda.txt" || status=1
echo "gpu-check-vulkan: status $status"
exit $status
