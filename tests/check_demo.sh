#!/bin/sh
# `dmlslice demo` prints the four outputs of DirectML's worked examples.
set -eu
out=$("$1" demo)
fail=0
expect() {
  printf '%s\n' "$out" | grep -F -q -- "$1" || { echo "demo output lacks: $1"; fail=1; }
}
expect '[[[[ 7,  8],'; expect '[11, 12],'; expect '[15, 16]]]]'
expect '[[[[ 5,  8],'; expect '[13, 16]]]]'
expect '[[[[ 2,  4],'; expect '[10, 12]]]]'
expect '[[[[14, 16],'; expect '[ 6,  8]]]]'
[ "$(printf '%s\n' "$out" | grep -c 'OutputTensor:')" -eq 4 ] || { echo "expected 4 outputs"; fail=1; }
"$1" demo extra 2>/dev/null && { echo "demo accepted an argument"; fail=1; }
[ $fail -eq 0 ] && echo "demo: 4 outputs as in DirectML's documentation"
exit $fail
