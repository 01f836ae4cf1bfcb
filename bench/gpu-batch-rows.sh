#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: the batch commands and rows of the tool,
# in one run. Builds the tool with the CUDA backend (no Vulkan, no Jansson
# needed), runs test_cli_batch (split and crops with --device cuda against
# slice, one launch per command), then dmlslice bench --device cuda (the
# canonical cases and the batch rows beside their yardsticks) and the CPU's
# batch row at 16 threads. At most 5 files go to $OUT (default
# build-gpu-batch/out): device.txt, test_cli_batch.txt, bench_cuda.txt,
# bench_cuda.json, bench_cpu.txt.
#   bench/gpu-batch-rows.sh            # from the repository root
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build-gpu-batch}
out=${OUT:-$build/out}
mkdir -p "$build" "$out"
status=0

{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; } \
  >"$out/device.txt" 2>&1
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if ! { cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DDMLS_CUDA=ON -DDMLS_VULKAN=OFF \
         -DDMLS_DISPATCH=OFF -DDMLS_BUILD_PROBES=OFF -DDMLS_PYTHON=OFF &&
       cmake --build "$build" -j "$(nproc)" --target dmlslice_cli test_cli_batch; } >"$build/build.log" 2>&1; then
  tail -40 "$build/build.log" >>"$out/device.txt"
  echo "build failed: see device.txt"
  exit 1
fi

ctest --test-dir "$build" -R '^test_cli_batch$' --output-on-failure >"$out/test_cli_batch.txt" 2>&1 || status=1
"$build/dmlslice" bench --device cuda --json "$out/bench_cuda.json" >"$out/bench_cuda.txt" 2>&1 || status=1
# The CPU's cases shrunk (--quick); the batch row is full size either way.
"$build/dmlslice" bench --threads 16 --quick >"$out/bench_cpu.txt" 2>&1 || status=1
tail -3 "$out/test_cli_batch.txt"
sed -n '/^batches/,$p' "$out/bench_cuda.txt" "$out/bench_cpu.txt"
echo "gpu-batch-rows: status $status"
exit $status
