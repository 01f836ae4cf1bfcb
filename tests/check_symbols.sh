#!/bin/sh
# Every symbol the libraries export starts with dmls_ (one prefix, hidden
# visibility for everything outside include/), and the shared library
# exports exactly the public API: the functions that INCLUDE_DIR's headers
# declare with DMLS_API (dmlslice_cuda.h's and batch_cuda.h's only when
# HAVE_CUDA is ON, dmlslice_vulkan.h's and batch_vulkan.h's only when
# HAVE_VULKAN is ON), no
# internal function with the prefix, none of the API missing.
#   check_symbols.sh NM SHARED_LIB STATIC_LIB [OBJDUMP INCLUDE_DIR HAVE_CUDA [HAVE_VULKAN]]
# A Windows DLL (SHARED_LIB ending in .dll) is read with OBJDUMP instead of
# NM. Without INCLUDE_DIR only the prefix is checked.
set -eu
nm_tool=$1 shared=$2 static=$3
objdump_tool=${4:-} include=${5:-} have_cuda=${6:-OFF} have_vulkan=${7:-OFF}
bad=0

# The exported functions ($1: one name a line) against the declarations.
same_as_api() {
  [ -n "$include" ] || return 0
  headers=$(ls "$include"/dmlslice/*.h)
  [ "$have_cuda" = ON ] || headers=$(printf '%s\n' "$headers" | grep -v -E '/(dmlslice|batch)_cuda\.h$')
  [ "$have_vulkan" = ON ] || headers=$(printf '%s\n' "$headers" | grep -v -E '/(dmlslice|batch)_vulkan\.h$')
  # shellcheck disable=SC2086 # one word per header
  declared=$(grep -ho 'DMLS_API[^(]*(' $headers | grep -o 'dmls_[a-z0-9_]*($' | tr -d '(' | sort -u)
  if [ "$declared" != "$1" ]; then
    echo "the shared library's exported functions differ from the DMLS_API declarations" \
      "(< declared only, > exported only):"
    printf '%s\n' "$declared" >"${TMPDIR:-/tmp}/dmls_declared.$$"
    printf '%s\n' "$1" | diff "${TMPDIR:-/tmp}/dmls_declared.$$" - || true
    rm -f "${TMPDIR:-/tmp}/dmls_declared.$$"
    bad=1
  fi
}

case $shared in
*.dll)
  exported=$("$objdump_tool" -p "$shared" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' |
    awk '/^[[:space:]]*\[ *[0-9]+\]/ {print $NF}' | sort -u)
  same_as_api "$exported"
  count=$(printf '%s\n' "$exported" | grep -c '^dmls_' || true)
  [ "$count" -ge 10 ] || { echo "the DLL exports only $count dmls_ functions"; bad=1; }
  ;;
*)
  # Dynamic symbols of the shared library: only the prefix...
  leaks=$("$nm_tool" -D --defined-only "$shared" | awk 'NF >= 3 {print $3}' | grep -v -E '^(dmls_|_init$|_fini$|_edata$|_end$|__bss_start$)' || true)
  if [ -n "$leaks" ]; then echo "shared library exports symbols without the dmls_ prefix:"; echo "$leaks"; bad=1; fi
  count=$("$nm_tool" -D --defined-only "$shared" | grep -c ' T dmls_' || true)
  if [ "$count" -lt 10 ]; then echo "shared library exports only $count dmls_ functions"; bad=1; fi
  # ...and of those, the functions are the API, internal helpers hidden.
  same_as_api "$("$nm_tool" -D --defined-only "$shared" | awk 'NF >= 3 && $2 ~ /^[TWi]$/ {print $3}' | sort -u)"
  ;;
esac
# Every global symbol of the static library carries the prefix too,
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
