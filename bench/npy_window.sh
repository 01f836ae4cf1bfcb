#!/bin/sh
# Peak memory of slicing a small window out of a multi-GiB .npy file.
#
# Makes a sparse .npy file (the header, then truncate to the full size: no
# disk blocks, reads return zeros), slices a 10x10 window out of it with
# `dmlslice slice`, and reports the tool's peak resident set size. Because
# the input is memory-mapped, only the pages under the window are touched,
# so the figure stays near the tool's own footprint whatever the file size.
#
# usage: bench/npy_window.sh [path/to/dmlslice] [GiB]   (defaults: build/dmlslice, 4)
set -eu

tool=${1:-build/dmlslice}
gib=${2:-4}
[ -x "$tool" ] || { echo "npy_window.sh: $tool is not an executable (build first)" >&2; exit 2; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/dmlslice-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM

# float32 rows of 16384 elements (64 KiB each): rows * 64 KiB = gib GiB.
cols=16384
rows=$((gib * 16384))
dict="{'descr': '<f4', 'fortran_order': False, 'shape': ($rows, $cols), }"
# NumPy's layout: 10-byte preamble + dict + spaces + newline, a multiple of 64.
total=$(( (10 + ${#dict} + 1 + 63) / 64 * 64 ))
hlen=$((total - 10))
pad=$((hlen - ${#dict} - 1))
{
    printf '\223NUMPY\001\000'
    printf "\\$(printf %03o $((hlen % 256)))\\$(printf %03o $((hlen / 256)))"
    printf '%s' "$dict"
    printf "%${pad}s\n" ''
} > "$dir/big.npy"
truncate -s $((total + rows * cols * 4)) "$dir/big.npy"

size=$(wc -c < "$dir/big.npy" | tr -d ' ')
echo "input:  $dir/big.npy, shape ($rows, $cols) float32, $size bytes (sparse)"
"$tool" info "$dir/big.npy" > /dev/null

run() {
    label=$1
    shift
    if [ -x /usr/bin/time ] && /usr/bin/time -v true > /dev/null 2>&1; then
        /usr/bin/time -v "$tool" slice "$dir/big.npy" -o "$dir/out.npy" -f -q "$@" 2> "$dir/time.txt"
        kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$dir/time.txt")
        secs=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time.txt")
        echo "$label: peak RSS $kb KiB, wall $secs"
    else
        "$tool" slice "$dir/big.npy" -o "$dir/out.npy" -f -q "$@"
        echo "$label: done (GNU time not found; peak RSS not measured)"
    fi
}

mid=$((rows / 2))
run "--index [$mid:$((mid + 10)), 1000:1010]        " --index "[$mid:$((mid + 10)), 1000:1010]"
run "--onnx  last 10 rows reversed, 10 columns   " --onnx-starts -1,0 --onnx-ends -11,10 --onnx-steps -1,1
run "--window-* (DML_SLICE1) rows 0..9, cols 0..9" --window-offsets 0,0 --window-sizes 10,10 --window-strides 1,1 \
    --feature-level 6_4 || echo "DML_SLICE1: refused (DirectML allows at most 2^32-1 elements)"
"$tool" info "$dir/out.npy" | sed -n 's/^shape: */output shape: /p'
