#!/usr/bin/env bash
# Everything the CUDA backend needs checked on a GPU machine, in one command:
# build, the CUDA tests, the same under compute-sanitizer (memcheck, then
# racecheck on a short run), the GPU benchmark (dmlslice bench --device cuda)
# and the peers (PyTorch, CuPy, JAX) in the same run. Logs go to $OUT when set, else to build-gpu/logs.
#   scripts/gpu-check.sh            # from the repository root
#   PEERS=path/to/peers.py scripts/gpu-check.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build-gpu}
logs=${OUT:-$build/logs}
mkdir -p "$logs"
status=0
step() { echo "== $*"; }

step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | tee "$logs/device.txt"
date -u +%Y-%m-%dT%H:%MZ | tee -a "$logs/device.txt"

step "build"
cmake -S "$root" -B "$build" -G Ninja -DDMLS_CUDA=ON -DCMAKE_BUILD_TYPE=Release >"$logs/build.txt" 2>&1 &&
  cmake --build "$build" >>"$logs/build.txt" 2>&1 || { tail -30 "$logs/build.txt"; exit 1; }

step "tests (ctest with DMLS_TEST_LARGE=1: large_tensors on the CPU; test_cuda's 64-bit index path, inputs over 4 GiB and 2^32 elements)"
DMLS_TEST_LARGE=1 ctest --test-dir "$build" -V >"$logs/tests.txt" 2>&1 || status=1
grep -E "tests passed|Failed|failed|Skipped|launches run|compact boundary|sampled elements|large:|passed, |device:" \
  "$logs/tests.txt"

if command -v compute-sanitizer >/dev/null; then
  step "compute-sanitizer memcheck (random cases, no canonical)"
  DMLS_TEST_ITERS=300 DMLS_TEST_NO_CANONICAL=1 compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$build/tests/cuda/test_cuda" >"$logs/memcheck.txt" 2>&1 || status=1
  tail -3 "$logs/memcheck.txt"
  step "compute-sanitizer racecheck (short)"
  DMLS_TEST_ITERS=40 DMLS_TEST_NO_CANONICAL=1 compute-sanitizer --tool racecheck --error-exitcode 9 \
    "$build/tests/cuda/test_cuda" >"$logs/racecheck.txt" 2>&1 || status=1
  tail -3 "$logs/racecheck.txt"
fi

step "benchmark (dmlslice bench --device cuda)"
"$build/dmlslice" bench --device cuda --cases "$root/bench/cases.json" --json "$logs/gpu_bench.json" 2>&1 |
  tee "$logs/gpu_bench.txt" || status=1

peers=${PEERS:-$root/.peers/peers.py}
if [ -f "$peers" ]; then
  step "peers (same run)"
  PYTHONUNBUFFERED=1 python3 "$peers" gpu "$logs/peers.json" 2>&1 | tee "$logs/peers.txt" || status=1
fi
# The Vulkan backend, when .gl/ holds the Vulkan packages the machine lacks
# (scripts/gpu-check-vulkan.sh says which and why).
if ls "$root"/.gl/*.deb >/dev/null 2>&1; then
  step "Vulkan (scripts/gpu-check-vulkan.sh)"
  OUT="$logs/vulkan" BUILD="$root/build-gpu-vk" "$root/scripts/gpu-check-vulkan.sh" || status=1
fi
echo "gpu-check: status $status"
exit $status
