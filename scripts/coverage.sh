#!/usr/bin/env bash
# Line and branch coverage of the library (src/) under the whole CTest suite.
#
#   scripts/coverage.sh [BUILD_DIR]        (default BUILD_DIR: build-cov)
#
# Configures BUILD_DIR as a Debug build with --coverage on the C code, builds
# it, runs every CTest test, then prints line and branch coverage for each
# file of src/, each folder and the total. Exits 1 when a test fails or when
# the line coverage of src/ is below DMLS_COVERAGE_MIN percent (default 95).
#
# Where nvcc is found the CUDA backend is built, as in CI: its host code in C
# is measured (src/cuda/prepare.c runs inside every create), the kernels in
# kernels.cu are not. src/cuda/execute.c (and batch_launch.c, its batch
# counterpart) is listed but left out of the gated
# total: without a GPU only its no-device and argument paths can run.
#
# Reports with lcov (installed with apt-get when missing and this user can),
# else with gcov alone: same table, same gate. The gcov tool always matches
# the compiler's version, which gcov's data format requires.
#
# Environment: DMLS_COVERAGE_MIN (gate, percent of lines), DMLS_COVERAGE_JOBS
# (build and test jobs, default 2), DMLS_COVERAGE_TOOL=gcov (skip lcov), CC
# (compiler of a new BUILD_DIR: gcc or clang).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${1:-build-cov}
case $build in /*) ;; *) build=$root/$build ;; esac
min=${DMLS_COVERAGE_MIN:-95}
jobs=${DMLS_COVERAGE_JOBS:-2}
use_lcov=1
[ "${DMLS_COVERAGE_TOOL:-lcov}" = gcov ] && use_lcov=0
# Reported, not gated (see above). Paths relative to the repository root.
not_gated="src/cuda/execute.c src/cuda/batch_launch.c"
start=$(date +%s)

die() { echo "coverage: $*" >&2; exit 2; }

# ------------------------------------------------------------------ tools
if [ $use_lcov = 1 ] && ! command -v lcov >/dev/null 2>&1; then
  apt=""
  if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then apt="apt-get"; elif sudo -n true 2>/dev/null; then apt="sudo -n apt-get"; fi
  fi
  if [ -n "$apt" ]; then
    echo "coverage: installing lcov (Debian package)"
    export DEBIAN_FRONTEND=noninteractive
    timeout 600 $apt install -y -qq lcov >/dev/null 2>&1 ||
      { timeout 600 $apt update -qq >/dev/null 2>&1 && timeout 600 $apt install -y -qq lcov >/dev/null 2>&1; } ||
      echo "coverage: could not install lcov; using gcov alone"
  else
    echo "coverage: lcov not found and not installable here; using gcov alone"
  fi
fi

# ------------------------------------------------------------------ build
echo "coverage: building ${build#"$root"/} (Debug, --coverage) and running ctest"
# -fprofile-update=atomic: the thread pool's counters are bumped from several
# threads at once. --exclude-libs keeps the profiling runtime out of the
# shared library's exports (clang's would otherwise fail check_symbols).
# CUDA code is not instrumented, so it is built as for Release (nvcc's -O0
# host stubs would also leave dim3's inline constructors as global symbols,
# which check_symbols rejects), and for one virtual architecture only: no
# kernel runs here, and PTX alone spares the machine-code pass (CI's main
# build compiles both).
mkdir -p "$build"
# clang's counters need clang's profile runtime at link time, and nvcc links
# executables through gcc: a clang build leaves the CUDA backend out.
compiler=${CC:-cc}
[ -f "$build/CMakeCache.txt" ] && compiler=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cuda_arg=()
if "$compiler" --version 2>/dev/null | head -1 | grep -q clang; then
  cuda_arg=(-DDMLS_CUDA=OFF)
  echo "coverage: clang build: CUDA backend left out"
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DDMLS_BUILD_TESTS=ON -DDMLS_BUILD_TOOLS=ON -DDMLS_SANITIZE= -DDMLS_WEB=OFF \
  ${cuda_arg[@]+"${cuda_arg[@]}"} \
  "-DCMAKE_C_FLAGS=--coverage -fprofile-update=atomic" -DCMAKE_EXE_LINKER_FLAGS=--coverage \
  "-DCMAKE_SHARED_LINKER_FLAGS=--coverage -Wl,--exclude-libs,ALL" "-DCMAKE_CUDA_FLAGS_DEBUG=-O3 -DNDEBUG" -DCMAKE_CUDA_ARCHITECTURES=80-virtual \
  >"$build/coverage-configure.log" 2>&1 || { cat "$build/coverage-configure.log"; die "configure failed"; }
cmake --build "$build" -j "$jobs" >"$build/coverage-build.log" 2>&1 ||
  { tail -50 "$build/coverage-build.log"; die "build failed (log: $build/coverage-build.log)"; }

cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
cc=$(cache CMAKE_C_COMPILER)
cc_id=$("$cc" --version 2>/dev/null | head -1)
cc_major=$("$cc" -dumpversion | cut -d. -f1)
grep -q 'dmlslice CUDA backend: ON' "$build/coverage-configure.log" && cuda=ON || cuda=OFF

# A gcov that reads this compiler's data: gcov-N for gcc N, llvm-cov gcov for clang.
gcov=""
case "$cc_id" in
  *clang*)
    for t in "llvm-cov-$cc_major" llvm-cov; do
      if command -v "$t" >/dev/null 2>&1 && "$t" --version | grep -q "version $cc_major\."; then
        gcov="$build/coverage-gcov"
        printf '#!/bin/sh\nexec %s gcov "$@"\n' "$(command -v "$t")" >"$gcov"
        chmod +x "$gcov"
        break
      fi
    done ;;
  *)
    for t in "gcov-$cc_major" gcov; do
      if command -v "$t" >/dev/null 2>&1 && [ "$("$t" --version | head -1 | awk '{print $NF}' | cut -d. -f1)" = "$cc_major" ]; then
        gcov=$(command -v "$t")
        break
      fi
    done ;;
esac
[ -n "$gcov" ] || die "no gcov matching $cc_id (install gcov-$cc_major or llvm-cov-$cc_major)"

# ------------------------------------------------------------------ tests
find "$build" -name '*.gcda' -delete
tests_ok=1
ctest --test-dir "$build" -j "$jobs" --output-on-failure >"$build/coverage-ctest.log" 2>&1 || tests_ok=0
summary=$(grep -E '^[0-9]+% tests passed' "$build/coverage-ctest.log" || echo "no ctest summary")
if [ $tests_ok = 0 ]; then
  sed -n '/The following tests FAILED/,$p' "$build/coverage-ctest.log"
fi

# ------------------------------------------------------------------ data
out=$build/coverage
rm -rf "$out"
mkdir -p "$out"
info=$out/src.info
if [ $use_lcov = 1 ] && command -v lcov >/dev/null 2>&1; then
  tool="lcov $(lcov --version | sed 's/.*version //')"
  rc=(--rc lcov_branch_coverage=1)
  lcov --quiet "${rc[@]}" --gcov-tool "$gcov" --capture --directory "$build" \
    --output-file "$out/all.info" >"$out/lcov.log" 2>&1 || { cat "$out/lcov.log"; die "lcov --capture failed"; }
  lcov --quiet "${rc[@]}" --extract "$out/all.info" "$root/src/*" --output-file "$info" >>"$out/lcov.log" 2>&1 ||
    { cat "$out/lcov.log"; die "lcov --extract failed"; }
  if command -v genhtml >/dev/null 2>&1 &&
    genhtml --quiet "${rc[@]}" --prefix "$root" --output-directory "$out/html" "$info" >>"$out/lcov.log" 2>&1; then
    html="$out/html/index.html"
  fi
else
  # gcov alone: one .gcov set per object (a header's lines appear once per
  # object that includes it), merged per source line and branch into the
  # same tracefile format lcov writes.
  tool="gcov alone ($(basename "$gcov"))"
  n=0
  while IFS= read -r gcda; do
    n=$((n + 1))
    mkdir -p "$out/gcov/$n"
    (cd "$out/gcov/$n" && "$gcov" -b -c -p -o "$(dirname "$gcda")" "$gcda" >/dev/null 2>&1) || true
  done < <(find "$build/src" -name '*.gcda')
  find "$out/gcov" -name '*.gcov' -print0 | xargs -0 -r awk -v src="$root/src/" '
    FNR == 1 { file = ""; line = 0 }
    /^ *-: *0:Source:/ { sub(/^ *-: *0:Source:/, ""); file = index($0, src) == 1 ? $0 : ""; next }
    file == "" { next }
    /^ *[-#=0-9]+\*?: *[0-9]+:/ {
      split($0, fld, ":"); c = fld[1]; gsub(/[ *]/, "", c); line = fld[2] + 0; nb = 0
      if (c == "-") next
      key = file SUBSEP line; lines[key] = 1; files[file] = 1
      if (c ~ /^[0-9]+$/ && c > 0) hit[key] = 1
      next
    }
    /^branch / && line > 0 {
      bkey = file SUBSEP line SUBSEP nb++; branches[bkey] = 1
      if ($3 == "taken" && $4 > 0) taken[bkey] = 1
    }
    END {
      for (k in lines) { split(k, p, SUBSEP); lf[p[1]]++; if (k in hit) lh[p[1]]++ }
      for (k in branches) { split(k, p, SUBSEP); bf[p[1]]++; if (k in taken) bh[p[1]]++ }
      for (f in files)
        printf "SF:%s\nLF:%d\nLH:%d\nBRF:%d\nBRH:%d\nend_of_record\n", f, lf[f], lh[f] + 0, bf[f] + 0, bh[f] + 0
    }' >"$info"
fi

# ------------------------------------------------------------------ report
awk -v root="$root/" -v not_gated=" $not_gated " -v min="$min" -v tool="$tool" -v cuda="$cuda" \
    -v summary="$summary" '
  function pct(h, f) { return f ? sprintf("%5.1f%%", 100 * h / f) : "   -  " }
  function row(name, lh, lf, bh, bf, note) {
    printf "  %-28s %s %9s   %s %9s%s\n", name, pct(lh, lf), lh "/" lf, pct(bh, bf), bh "/" bf, note
  }
  /^SF:/ { f = substr($0, 4); sub("^" root, "", f); names[f] = 1 }
  /^LF:/ { lf[f] += substr($0, 4) } /^LH:/ { lh[f] += substr($0, 4) }
  /^BRF:/ { bf[f] += substr($0, 5) } /^BRH:/ { bh[f] += substr($0, 5) }
  END {
    n = 0
    for (f in names) sorted[++n] = f
    for (i = 2; i <= n; i++) for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) {
      t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t }
    print summary
    printf "coverage of src/ (%s)\n", tool
    printf "  %-28s %16s   %16s\n", "", "lines", "branches"
    for (i = 1; i <= n; i++) {
      f = sorted[i]; d = f; sub(/[^\/]*$/, "", d)
      gated = index(not_gated, " " f " ") == 0
      row(f, lh[f], lf[f], bh[f], bf[f], gated ? "" : "   (needs a GPU: not in the totals)")
      if (!gated) continue
      dirs[d] = 1; dlh[d] += lh[f]; dlf[d] += lf[f]; dbh[d] += bh[f]; dbf[d] += bf[f]
      tlh += lh[f]; tlf += lf[f]; tbh += bh[f]; tbf += bf[f]
    }
    print "  by folder:"
    m = 0
    for (d in dirs) ds[++m] = d
    for (i = 2; i <= m; i++) for (j = i; j > 1 && ds[j - 1] > ds[j]; j--) { t = ds[j]; ds[j] = ds[j - 1]; ds[j - 1] = t }
    for (i = 1; i <= m; i++) row(ds[i], dlh[ds[i]], dlf[ds[i]], dbh[ds[i]], dbf[ds[i]], "")
    row("total", tlh, tlf, tbh, tbf, "")
    if (cuda != "ON") print "  (no CUDA backend in this build: src/cuda is not measured)"
    line = tlf ? 100 * tlh / tlf : 0
    ok = tlf > 0 && line + 1e-9 >= min
    printf "line coverage %.1f%% %s the %s%% gate\n", line, ok ? "meets" : "is BELOW", min
    exit ok ? 0 : 3
  }' "$info" && gate_ok=1 || gate_ok=0

[ -n "${html:-}" ] && echo "html: $html"
echo "coverage: $(($(date +%s) - start)) s"
[ $tests_ok = 1 ] || { echo "coverage: some tests FAILED (log: $build/coverage-ctest.log)"; exit 1; }
[ $gate_ok = 1 ] || exit 1
