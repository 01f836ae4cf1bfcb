#!/bin/sh
# Keeps docs/RULES.md true. Usage: check_rules.sh REPO_ROOT [SPEC.md]
# Without SPEC.md (no ../shared beside the checkout) the rule list comes
# from RULES.md alone, and the SPEC comparison is reported as skipped.
set -eu
root=$1 spec=${2:-}
map=$root/docs/RULES.md
fail=0
rules_in_map=$(grep -o '^| R-[A-Z]*-[A-Z]* ' "$map" | tr -d '| ' | sort -u)
if [ -n "$spec" ] && [ -f "$spec" ]; then
  for r in $(grep -o 'R-[A-Z]*-[A-Z]*' "$spec" | sort -u); do
    printf '%s\n' "$rules_in_map" | grep -qx "$r" || { echo "SPEC rule $r has no entry in docs/RULES.md"; fail=1; }
  done
else
  echo "SPEC.md not found: checking docs/RULES.md against the tests only"
fi
n=0
for r in $rules_in_map; do
  entries=$(grep "^| $r " "$map" | awk -F'|' '{print $4}' | tr ',' '\n' | tr -d ' ')
  [ -n "$entries" ] || { echo "$r lists no test"; fail=1; }
  for e in $entries; do
    file=${e%%:*} fn=${e#*:}
    if [ ! -f "$root/$file" ]; then echo "$r: $file does not exist"; fail=1; continue; fi
    grep -q "$r" "$root/$file" || { echo "$r: $file does not name the rule"; fail=1; }
    grep -Eq "(^|[ *])$fn\(" "$root/$file" || { echo "$r: $file has no function $fn"; fail=1; }
    n=$((n + 1))
  done
done
[ $fail -eq 0 ] && echo "rules: $(printf '%s\n' "$rules_in_map" | wc -l) rules, $n test references, all found"
exit $fail
