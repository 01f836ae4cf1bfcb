#!/bin/sh
# Every model under examples/dispatch/ prints exactly its .expected file
# (DirectML's documented outputs; see docs/dispatch.md).
# Usage: check_examples.sh DMLSLICE EXAMPLES_DIR [cpu|cuda]
set -eu
tool=$1 dir=$2 device=${3:-cpu}
fail=0 n=0
for model in "$dir"/*.json; do
  expected=${model%.json}.expected
  [ -f "$expected" ] || { echo "$model: no .expected file beside it"; fail=1; continue; }
  if ! out=$("$tool" dispatch "$model" --device "$device" 2>&1); then
    echo "$model: failed: $out"; fail=1; continue
  fi
  # The tool prints \n line ends everywhere; a checkout on Windows may have
  # given the .expected file \r\n ones.
  if [ "$out" != "$(tr -d '\r' <"$expected")" ]; then
    echo "$model: printed"; echo "$out"; echo "expected"; cat "$expected"; fail=1
  fi
  n=$((n + 1))
done
[ "$n" -ge 6 ] || { echo "only $n example models ran"; fail=1; }
[ $fail -eq 0 ] && echo "dispatch examples: $n models print their documented outputs"
exit $fail
