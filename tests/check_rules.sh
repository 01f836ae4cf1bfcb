#!/bin/sh
# Keeps docs/RULES.md true against docs/spec.md. Usage: check_rules.sh REPO_ROOT
# Exits 77 (CTest: skipped) when docs/spec.md is absent, since then no rule
# list can be trusted.
set -eu
root=$1
spec=$root/docs/spec.md map=$root/docs/RULES.md
[ -f "$spec" ] || { echo "skipped: $spec not found, so there is no rule list to check"; exit 77; }
fail=0
rules_in_map=$(grep -oE '^\| R-[A-Z]+(-[A-Z]+)? ' "$map" | tr -d '| ' | sort -u)
for r in $(grep -oE 'R-[A-Z]+(-[A-Z]+)?' "$spec" | sort -u); do
  printf '%s\n' "$rules_in_map" | grep -qx "$r" || { echo "docs/spec.md rule $r has no entry in docs/RULES.md"; fail=1; }
done
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
