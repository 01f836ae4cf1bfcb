#!/bin/sh
# Every symbol the libraries export starts with dmls_ (one prefix, hidden
# visibility for everything outside include/).
#   check_symbols.sh NM SHARED_LIB STATIC_LIB [OBJDUMP INCLUDE_DIR HAVE_CUDA [HAVE_VULKAN]]
# A Windows DLL (SHARED_LIB ending in .dll) is read with OBJDUMP instead: its
# export table must be exactly the functions that INCLUDE_DIR's headers
# declare with DMLS_API (dmlslice_cuda.h's and batch_cuda.h's only when HAVE_CUDA
# is ON, dmlslice_vulkan.h's only when HAVE_VULKAN is ON).
set -eu
nm_tool=$1 shared=$2 static=$3
bad=0
case $shared in
*.dll)
  objdump_tool=$4 include=$5 have_cuda=$6 have_vulkan=${7:-OFF}
  headers=$(ls "$include"/dmlslice/*.h)
  [ "$have_cuda" = ON ] || headers=$(printf '%s\n' "$headers" | grep -v -E '/(dmlslice|batch)_cuda\.h$')
  [ "$have_vulkan" = ON ] || headers=$(printf '%s\n' "$headers" | grep -v '/dmlslice_vulkan\.h$')
  # shellcheck disable=SC2086 # one word per header
  declared=$(grep -ho 'DMLS_API[^(]*(' $headers | grep -o 'dmls_[a-z0-9_]*($' | tr -d '(' | sort -u)
  exported=$("$objdump_tool" -p "$shared" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' |
    awk '/^[[:space:]]*\[ *[0-9]+\]/ {print $NF}' | sort -u)
  if [ "$declared" != "$exported" ]; then
    echo "the DLL's exports differ from the DMLS_API declarations (< declared only, > exported only):"
    printf '%s\n' "$declared" >"${TMPDIR:-/tmp}/dmls_declared.$$"
    printf '%s\n' "$exported" | diff "${TMPDIR:-/tmp}/dmls_declared.$$" - || true
    rm -f "${TMPDIR:-/tmp}/dmls_declared.$$"
    bad=1
  fi
  count=$(printf '%s\n' "$exported" | grep -c '^dmls_' || true)
  [ "$count" -ge 10 ] || { echo "the DLL exports only $count dmls_ functions"; bad=1; }
  ;;
*)
  # Dynamic symbols of the shared library: only the public API.
  leaks=$("$nm_tool" -D --defined-only "$shared" | awk 'NF >= 3 {print $3}' | grep -v -E '^(dmls_|_init$|_fini$|_edata$|_end$|__bss_start$)' || true)
  if [ -n "$leaks" ]; then echo "shared library exports symbols without the dmls_ prefix:"; echo "$leaks"; bad=1; fi
  count=$("$nm_tool" -D --defined-only "$shared" | grep -c ' T dmls_' || true)
  if [ "$count" -lt 10 ]; then echo "shared library exports only $count dmls_ functions"; bad=1; fi
  # Internal helpers are hidden from the shared library...
  if "$nm_tool" -D --defined-only "$shared" | grep -q -E ' dmls_(normalize|plan_copies|fail|operator_build|check_bindings|validate_dml|validate_native|cpu_prepare|cpu_run_range|pool_run|thread_start|cpu_count)$'; then
    echo "internal functions leak from the shared library"; bad=1
  fi
  ;;
esac
# ...and every global symbol of the static library carries the prefix too,
# so static linking cannot clash with a user's names.
# nvcc's C++ leaves two kinds that cannot clash: names in an anonymous
# namespace (made unique by a per-file hash) and the exception personality
# reference the C++ runtime shares. MinGW's compiler adds .refptr.NAME, a
# per-object pointer to NAME that the linker merges; AddressSanitizer adds
# __odr_asan.NAME beside each global variable NAME (the backend table).
sleaks=$("$nm_tool" --defined-only -g "$static" | awk 'NF >= 3 {print $3}' |
  grep -v -E '^(dmls_|_ZN[0-9]+_GLOBAL__N_|DW\.ref\.__gxx_personality_v0$|\.refptr\.|__odr_asan\.dmls_)' || true)
if [ -n "$sleaks" ]; then echo "static library defines globals without the dmls_ prefix:"; echo "$sleaks"; bad=1; fi
[ $bad -eq 0 ] && echo "symbols: $count exported functions, all prefixed dmls_"
exit $bad
