#!/bin/sh
# Builds the fuzz targets (clang, libFuzzer, ASan + UBSan), writes their seed
# corpora, and runs each target for SECONDS (default 60).
# Usage: fuzz/run.sh [SECONDS] [TARGET...]
# Prints one summary line per target: executions, coverage, crashes. Exits
# non-zero if any target crashed (its reproducer is left in build-fuzz/).
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
# Absolute: fuzz_model works in a sandbox folder of its own, so every path
# libFuzzer is given must not depend on the current folder.
build=$(pwd)/build-fuzz
CC=${FUZZ_CC:-clang} cmake -S . -B $build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDMLS_FUZZ=ON \
  -DDMLS_SANITIZE=address,undefined -DDMLS_CUDA=OFF -DDMLS_BUILD_TESTS=OFF -DDMLS_BUILD_TOOLS=OFF >/dev/null
cmake --build $build -j 4 >/dev/null
# Every target this build made (fuzz_model only where Jansson is installed).
targets=${*:-$(find $build/fuzz -maxdepth 1 -type f -name 'fuzz_*' ! -name fuzz_corpus -perm -u+x | sed 's|.*/||' | sort)}
rm -rf $build/seeds
$build/fuzz/fuzz_corpus $build/seeds
mkdir -p $build/seeds/fuzz_model && cp examples/dispatch/*.json fuzz/model_seeds/*.json $build/seeds/fuzz_model/
status=0
for t in $targets; do
  mkdir -p $build/corpus/$t $build/artifacts/$t
  log=$build/$t.log
  if $build/fuzz/$t -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix=$build/artifacts/$t/ $build/corpus/$t $build/seeds/$t >"$log" 2>&1; then
    result=ok
  else
    result=CRASH
    status=1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1)
  echo "$t: $result, ${execs:-?} executions in ${seconds}s, $cov, $ft, corpus $(ls $build/corpus/$t | wc -l) inputs"
  [ $result = ok ] || tail -40 "$log"
done
exit $status
