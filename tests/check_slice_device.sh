#!/bin/sh
# dmlslice slice and grad --device: cuda gives the CPU's bytes where a GPU is present;
# where none can be used (no GPU, no driver, a build without the CUDA
# backend) it runs on the CPU, says so on stderr (even with -q) and exits 0.
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
[ $rc -eq 0 ] || { echo "--device cuda: exit $rc, expected 0: $(cat "$dir/err")"; fail=1; }
cmp -s "$dir/cpu.npy" "$dir/gpu.npy" || { echo "--device cuda output differs from the CPU's"; fail=1; }
if [ -s "$dir/err" ]; then
  # The fallback: one line that names the reason and the CPU.
  # tr: Windows ends the line with CR LF.
  tr -d '\r' <"$dir/err" | grep -q -E '^dmlslice slice: --device cuda: .+; running on the CPU$' ||
    { echo "--device cuda: unexpected message: $(cat "$dir/err")"; fail=1; }
  echo "device: no usable GPU here; --device cuda ran on the CPU: $(cat "$dir/err")"
else
  echo "device: cuda output equals cpu output"
fi
# With no NVIDIA driver at all the reason says that, not that the driver
# is "insufficient" (the CUDA runtime's word for a missing one too).
has_libcuda() {
  ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && return 0
  for d in $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' '); do [ -e "$d/libcuda.so.1" ] && return 0; done
  return 1
}
if [ -s "$dir/err" ] && ! grep -qi 'no CUDA backend' "$dir/err" && command -v ldconfig >/dev/null && ! has_libcuda; then
  grep -q 'no CUDA device: no NVIDIA driver is installed' "$dir/err" ||
    { echo "--device cuda with no driver: $(cat "$dir/err")"; fail=1; }
fi
# grad does the same (its message names grad).
"$tool" grad "$dir/x.npy" -o "$dir/dx_cpu.npy" --window-offsets 0,1 --window-sizes 2,3 --window-strides 1,1 \
  --output-gradient-sizes 3,4 -q || { echo "cpu grad failed"; fail=1; }
"$tool" grad "$dir/x.npy" -o "$dir/dx_gpu.npy" --window-offsets 0,1 --window-sizes 2,3 --window-strides 1,1 \
  --output-gradient-sizes 3,4 -q --device cuda 2>"$dir/err"
rc=$?
[ $rc -eq 0 ] || { echo "grad --device cuda: exit $rc, expected 0: $(cat "$dir/err")"; fail=1; }
cmp -s "$dir/dx_cpu.npy" "$dir/dx_gpu.npy" || { echo "grad --device cuda output differs from the CPU's"; fail=1; }
if [ -s "$dir/err" ]; then
  tr -d '\r' <"$dir/err" | grep -q -E '^dmlslice grad: --device cuda: .+; running on the CPU$' ||
    { echo "grad --device cuda: unexpected message: $(cat "$dir/err")"; fail=1; }
fi
exit $fail
