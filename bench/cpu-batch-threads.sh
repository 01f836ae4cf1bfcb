#!/usr/bin/env bash
# The CPU batch row (issue 24: 1,024 tiny crops, >= 10x a loop of
# dmls_execute on 16 threads) on this host, for 1, 2, 4, 8 and 16 threads,
# five runs each, so erratic runs show. CPU only: builds without CUDA or
# Vulkan. Writes $OUT/cpu-batch-threads.txt (and the build log on failure).
set -euo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
cmake -S . -B build-cpubatch -DCMAKE_BUILD_TYPE=Release -DDMLS_VULKAN=OFF -DDMLS_CUDA=OFF >"$OUT/build.log" 2>&1
cmake --build build-cpubatch -j"$(nproc)" --target dmlslice_cli >>"$OUT/build.log" 2>&1
{
    echo "# $(date -u +%FT%TZ) $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    for t in 1 2 4 8 16; do
        for r in 1 2 3 4 5; do
            printf 'threads=%-2d run=%d ' "$t" "$r"
            build-cpubatch/dmlslice bench --quick --threads "$t" 2>&1 | sed -n '/^batches/,$p' | grep crops_1024 || echo "(no batch row)"
        done
    done
} >"$OUT/cpu-batch-threads.txt"
rm -f "$OUT/build.log"
