#!/bin/sh
# dmlslice bench --device: an unknown device is a usage error (2); cuda in a
# build without the backend says so (2); cuda with the backend either runs
# (a GPU is present: nvidia-smi lists one) or fails cleanly with exit 1 and
# the reason there is no device: never a crash, never a silent exit 0.
# Usage: check_bench_device.sh DMLSLICE HAVE_CUDA(ON|OFF) SCRATCH_DIR
set -u
bin=$1 have_cuda=$2 dir=$3
mkdir -p "$dir"
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# One small case keeps the GPU branch quick.
cases=$dir/bench_cases.json
cat >"$cases" <<'JSON'
[{"name": "small_f32", "dtype": "float32", "input_shape": [1, 4, 64, 64],
  "window_offsets": [0, 1, 2, 3], "window_sizes": [1, 2, 60, 60], "window_strides": [1, 1, 2, -1],
  "output_sizes": [1, 2, 30, 60]}]
JSON

"$bin" bench --device nosuch --cases "$cases" >"$dir/out.txt" 2>"$dir/err.txt"
rc=$?
[ $rc -eq 2 ] || fail "--device nosuch: exit $rc, expected 2"
grep -q "unknown device 'nosuch'" "$dir/err.txt" || fail "--device nosuch: no 'unknown device' message"

json=$dir/bench_cuda.json
rm -f "$json"
"$bin" bench --device cuda --cases "$cases" --reps 3 --json "$json" >"$dir/out.txt" 2>"$dir/err.txt"
rc=$?
if [ "$have_cuda" != ON ]; then
  [ $rc -eq 2 ] || fail "--device cuda without the backend: exit $rc, expected 2"
  grep -q "no CUDA backend" "$dir/err.txt" || fail "--device cuda without the backend: message missing"
elif nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  [ $rc -eq 0 ] || fail "--device cuda with a GPU: exit $rc, expected 0: $(cat "$dir/err.txt")"
  grep -q '^small_f32 ' "$dir/out.txt" || fail "--device cuda: no row for the case"
  grep -q '"case": "small_f32"' "$json" 2>/dev/null || fail "--device cuda: no case in $json"
  cat "$dir/out.txt"
else
  [ $rc -eq 1 ] || fail "--device cuda with no GPU: exit $rc, expected 1"
  grep -q "no CUDA device" "$dir/err.txt" || fail "--device cuda with no GPU: message does not name the missing device"
  [ ! -e "$json" ] || fail "--device cuda with no GPU wrote $json"
  cat "$dir/err.txt"
fi
[ $bad -eq 0 ] && echo "bench --device: ok (CUDA backend $have_cuda)"
exit $bad
