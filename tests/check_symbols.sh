#!/bin/sh
# Every symbol the libraries export starts with dmls_ (one prefix, hidden
# visibility for everything outside include/). Usage: check_symbols.sh NM SHARED_LIB STATIC_LIB
set -eu
nm_tool=$1 shared=$2 static=$3
bad=0
# Dynamic symbols of the shared library: only the public API.
leaks=$("$nm_tool" -D --defined-only "$shared" | awk 'NF >= 3 {print $3}' | grep -v -E '^(dmls_|_init$|_fini$|_edata$|_end$|__bss_start$)' || true)
if [ -n "$leaks" ]; then echo "shared library exports symbols without the dmls_ prefix:"; echo "$leaks"; bad=1; fi
count=$("$nm_tool" -D --defined-only "$shared" | grep -c ' T dmls_' || true)
if [ "$count" -lt 10 ]; then echo "shared library exports only $count dmls_ functions"; bad=1; fi
# Internal helpers are hidden from the shared library...
if "$nm_tool" -D --defined-only "$shared" | grep -q -E ' dmls_(normalize|plan_copies|fail|operator_build|execute_begin|validate_dml|validate_native|cpu_prepare|cpu_run_range|pool_run)$'; then
  echo "internal functions leak from the shared library"; bad=1
fi
# ...and every global symbol of the static library carries the prefix too,
# so static linking cannot clash with a user's names.
# nvcc's C++ leaves two kinds that cannot clash: names in an anonymous
# namespace (made unique by a per-file hash) and the exception personality
# reference the C++ runtime shares.
sleaks=$("$nm_tool" --defined-only -g "$static" | awk 'NF >= 3 {print $3}' |
  grep -v -E '^(dmls_|_ZN[0-9]+_GLOBAL__N_|DW\.ref\.__gxx_personality_v0$)' || true)
if [ -n "$sleaks" ]; then echo "static library defines globals without the dmls_ prefix:"; echo "$sleaks"; bad=1; fi
[ $bad -eq 0 ] && echo "symbols: $count exported functions, all prefixed dmls_"
exit $bad
