#!/bin/sh
# dmlslice slice --device: cuda gives the CPU's bytes where a GPU is present,
# and a clear NO_DEVICE error (no output file left) where there is none.
# An unknown device is a usage error. Usage: check_slice_device.sh DMLSLICE
set -u
tool=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A 2x3 int32 .npy (format 1.0): 10-byte preamble + 118-byte header = 128.
{
  printf '\223NUMPY\001\000\166\000'
  printf "%-117s\n" "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"
  printf '\001\000\000\000\002\000\000\000\003\000\000\000\004\000\000\000\005\000\000\000\006\000\000\000'
} > "$dir/x.npy"
fail=0
"$tool" slice "$dir/x.npy" -o "$dir/cpu.npy" --index '[::-1, 1:]' -q || { echo "cpu slice failed"; fail=1; }
"$tool" slice "$dir/x.npy" -o "$dir/bad.npy" --index '[::-1]' --device gpu 2>"$dir/err"
[ $? -eq 2 ] || { echo "--device gpu: expected exit 2"; fail=1; }
"$tool" slice "$dir/x.npy" -o "$dir/gpu.npy" --index '[::-1, 1:]' --device cuda -q 2>"$dir/err"
rc=$?
if [ $rc -eq 0 ]; then
  cmp -s "$dir/cpu.npy" "$dir/gpu.npy" || { echo "cuda output differs from cpu output"; fail=1; }
  echo "device: cuda output equals cpu output"
else
  [ $rc -eq 1 ] || { echo "--device cuda without a GPU: exit $rc, expected 1"; fail=1; }
  grep -q "DMLS_ERROR_NO_DEVICE" "$dir/err" || { echo "--device cuda error lacks NO_DEVICE:"; cat "$dir/err"; fail=1; }
  [ ! -e "$dir/gpu.npy" ] || { echo "a failed --device cuda left an output file"; fail=1; }
  [ -z "$(ls "$dir" | grep -v -E '^(x|cpu)\.npy$|^err$')" ] || { echo "temporary files left: $(ls "$dir")"; fail=1; }
  echo "device: no GPU here; --device cuda failed cleanly: $(cat "$dir/err")"
fi
exit $fail
