#!/bin/sh
# The install tests (issue 12; docs/install.md), each from a clean prefix
# under BUILD/install-tests:
#   1 file list: cmake --install into a fresh prefix installs every header,
#     both libraries with the SONAME links, the tool, its man page, the CMake
#     package, the .pc file and the shared data; one version everywhere
#   2 consumers: tests/install/consumers/{find_package,pkg_config,
#     fetchcontent} built out of tree and run (shared and static links)
#     2d the consumer lines of README.md and docs/install.md as written:
#     FetchContent from the source archive of cpack --config
#     CPackSourceConfig.cmake, pkg-config's programs run without
#     LD_LIBRARY_PATH
#   3 the installed shared library exports only dmls_ symbols
#   4 the installed tool runs demo and a benchmark from an unrelated folder
#     without LD_LIBRARY_PATH; 4b it and the library need no CUDA library
#     to start, and --device cuda falls back to the CPU where CUDA's
#     libraries are hidden from the loader; 4c the same for the Vulkan
#     loader (a build with volk), which --device vulkan then names
#   5 packages: cpack's .tar.gz holds the install; each .deb's Depends names
#     the packages of every library its files need; the .deb packages install
#     with dpkg -i, consumer 1 builds against them, dpkg -r removes them
#     (root only; skipped with a message elsewhere)
# Usage: tests/install/run.sh BUILD_DIR     (a configured and built tree)
set -eu
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
consumers=$src/tests/install/consumers
work=$build/install-tests
rm -rf "$work"
mkdir -p "$work"
unset LD_LIBRARY_PATH || true
fail=0
bad() { echo "FAIL: $*"; fail=1; }
step() { echo "== install test: $*"; }
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }

libdir=$(cache CMAKE_INSTALL_LIBDIR)

# ------------------------------------------------------------------ 1
step "1 cmake --install into a fresh prefix"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; exit 1; }
have_cuda=no
grep -q 'set(dmlslice_HAVE_CUDA ON)' "$prefix/$libdir/cmake/dmlslice/dmlsliceConfig.cmake" && have_cuda=yes
version=$(PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig pkg-config --modversion dmlslice) || bad "pkg-config finds no dmlslice"
case $version in
0.*) abi=0.$(echo "$version" | cut -d. -f2) ;;
*) abi=$(echo "$version" | cut -d. -f1) ;;
esac
for f in bin/dmlslice share/man/man1/dmlslice.1 share/dmlslice/cases.json share/doc/dmlslice/README.md \
         "$libdir/libdmlslice.a" "$libdir/libdmlslice.so.$version" "$libdir/pkgconfig/dmlslice.pc" \
         "$libdir/pkgconfig/dmlslice-static.pc" share/doc/dmlslice/docs/cli.md "$libdir/cmake/dmlslice/dmlsliceConfig.cmake" "$libdir/cmake/dmlslice/dmlsliceConfigVersion.cmake" \
         "$libdir/cmake/dmlslice/dmlsliceTargets.cmake" "$libdir/cmake/dmlslice/dmlsliceStaticTargets.cmake"; do
  [ -f "$prefix/$f" ] || bad "not installed: $f"
done
[ "$(readlink "$prefix/$libdir/libdmlslice.so.$abi" 2>/dev/null)" = "libdmlslice.so.$version" ] ||
  bad "$libdir/libdmlslice.so.$abi is not a link to libdmlslice.so.$version"
[ "$(readlink "$prefix/$libdir/libdmlslice.so" 2>/dev/null)" = "libdmlslice.so.$abi" ] ||
  bad "$libdir/libdmlslice.so is not a link to libdmlslice.so.$abi"
soname=$(readelf -d "$prefix/$libdir/libdmlslice.so.$version" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libdmlslice.so.$abi" ] || bad "SONAME is '$soname', the ABI policy says libdmlslice.so.$abi"
for h in "$src"/include/dmlslice/*.h "$build"/include/dmlslice/*.h; do
  [ -f "$h" ] || continue
  [ -f "$prefix/include/dmlslice/$(basename "$h")" ] || bad "header not installed: $(basename "$h")"
done
[ ! -f "$src/docs/spec.md" ] || [ -f "$prefix/share/doc/dmlslice/docs/spec.md" ] || bad "docs/spec.md not installed"
# The installed pages' links lead to installed files.
for page in $(cd "$prefix/share/doc/dmlslice" && find . -name '*.md'); do
  for target in $(grep -o '](\([^)#]*\)' "$prefix/share/doc/dmlslice/$page" | sed 's/^](//' | grep -v -E '^(https?:|mailto:|$)' | sort -u); do
    [ -e "$prefix/share/doc/dmlslice/$(dirname "$page")/$target" ] ||
      bad "the installed ${page#./} links $target, which is not installed"
  done
done
# Nothing else: no test program, no internal header.
(cd "$prefix" && find . -type f -o -type l) | sed 's|^\./||' | sort >"$work/files.txt"
unexpected=$(grep -v -E "^(bin/dmlslice|include/dmlslice/[a-z_]+\.h|$libdir/libdmlslice\.(a|so(\.[0-9.]+)?)|$libdir/pkgconfig/dmlslice(-static)?\.pc|$libdir/cmake/dmlslice/dmlslice[A-Za-z-]*\.cmake|share/man/man1/dmlslice\.1|share/dmlslice/cases\.json|share/doc/dmlslice/([a-z]+/)?[A-Za-z_.]+\.md|share/doc/dmlslice/docs/dmlslice\.1)$" "$work/files.txt" || true)
[ -z "$unexpected" ] || bad "unexpected installed files: $unexpected"
# One version everywhere: project(), the header, dmls_version() (the
# consumers print it), the tool, the .pc file, the SONAME (above).
tool_version=$("$prefix/bin/dmlslice" --version) || bad "dmlslice --version failed"
[ "$tool_version" = "dmlslice $version" ] || bad "tool says '$tool_version', the package $version"
grep -h -q "DMLS_VERSION_STRING \"$version\"" "$prefix"/include/dmlslice/*.h || bad "no header defines DMLS_VERSION_STRING \"$version\""
echo "installed $(wc -l <"$work/files.txt") files, version $version, SONAME libdmlslice.so.$abi, CUDA backend: $have_cuda"

# ------------------------------------------------------------------ 2
# Runs a consumer; its output must show both paths right (and the CUDA
# path's clean answer in a CUDA build) and the library version installed.
run_consumer() { # LABEL PROGRAM [CUDA: yes or no, default: as installed]
  out=$("$2" 2>&1) || { bad "$1: exit status $?: $out"; return; }
  for want in "dmlslice $version" "directml: 14 16 6 8" "native: 14 16 6 8"; do
    printf '%s\n' "$out" | grep -q -x -F "$want" || bad "$1: output lacks '$want': $out"
  done
  if [ "${3:-$have_cuda}" = yes ]; then
    printf '%s\n' "$out" | grep -q -E '^cuda: (no device \(.+\)|[0-9]+ device)' || bad "$1: no CUDA answer: $out"
  fi
  echo "$1: ok ($(printf '%s' "$out" | tr '\n' ';'))"
}
needs_lib() { readelf -d "$1" | grep -q 'NEEDED.*libdmlslice'; }
cmake_consumer() { # NAME BUILD_DIR ARGS...
  name=$1 dir=$2; shift 2
  if cmake -S "$consumers/$name" -B "$dir" "$@" >"$dir.log" 2>&1 && cmake --build "$dir" -j2 >>"$dir.log" 2>&1; then
    return 0
  fi
  cat "$dir.log"; bad "$name consumer did not build"; return 1
}

asked=$(echo "$version" | cut -d. -f1-2) # what a consumer written today asks find_package for
step "2a consumer with find_package (shared, then static)"
if cmake_consumer find_package "$work/find_package-shared" -DCMAKE_PREFIX_PATH="$prefix" -DDMLSLICE_WANT="$asked"; then
  run_consumer "find_package shared" "$work/find_package-shared/consumer"
  needs_lib "$work/find_package-shared/consumer" || bad "find_package shared: not linked to libdmlslice.so"
fi
if cmake_consumer find_package "$work/find_package-static" -DCMAKE_PREFIX_PATH="$prefix" -DDMLSLICE_LINK=static -DDMLSLICE_WANT="$asked"; then
  run_consumer "find_package static" "$work/find_package-static/consumer"
  needs_lib "$work/find_package-static/consumer" && bad "find_package static: linked to libdmlslice.so"
fi

step "2b consumer with pkg-config (shared, then --static)"
for link in shared static; do
  if PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig sh "$consumers/pkg_config/build.sh" $link "$work/pkg_config-$link" \
       >"$work/pkg_config-$link.log" 2>&1; then
    run_consumer "pkg-config $link" "$work/pkg_config-$link"
  else
    cat "$work/pkg_config-$link.log"; bad "pkg-config $link consumer did not build"
  fi
done
[ -f "$work/pkg_config-shared" ] && { needs_lib "$work/pkg_config-shared" || bad "pkg-config shared: not linked to libdmlslice.so"; }
[ -f "$work/pkg_config-static" ] && { needs_lib "$work/pkg_config-static" && bad "pkg-config static: linked to libdmlslice.so"; }

step "2c consumer with FetchContent of this checkout (offline)"
fc=$work/fetchcontent
if cmake_consumer fetchcontent "$fc" -DFETCHCONTENT_SOURCE_DIR_DMLSLICE="$src" -DFETCHCONTENT_FULLY_DISCONNECTED=ON; then
  run_consumer "FetchContent shared" "$fc/consumer" no
  run_consumer "FetchContent static" "$fc/consumer_static" no
  needs_lib "$fc/consumer_static" && bad "FetchContent static: linked to libdmlslice.so"
  # Embedded, dmlslice builds its libraries and nothing else.
  for extra in "$fc/_deps/dmlslice-build/dmlslice" "$fc/_deps/dmlslice-build/tests/test_api"; do
    [ -e "$extra" ] && bad "FetchContent built $(basename "$extra") of dmlslice"
  done
  grep -q '^DMLS_CUDA:STRING=OFF' "$fc/CMakeCache.txt" || bad "FetchContent: DMLS_CUDA is not OFF by default"
fi

step "2d the consumer lines of README.md and docs/install.md, as the pages show them"
# Extracted from the pages (doc_lines.py), so a page that drifts from what
# works fails here. FetchContent's URL names the source archive in the
# project's third_party/: the one cpack --config CPackSourceConfig.cmake
# makes, put there under its own name. The programs run as built, without
# LD_LIBRARY_PATH (the pkg-config line's rpath finds the private prefix).
pc_path=$prefix/$libdir/pkgconfig
(cd "$build" && rm -f packages/*-Source.tar.gz && cpack --config CPackSourceConfig.cmake >"$work/cpack-source.log" 2>&1) ||
  { cat "$work/cpack-source.log"; bad "cpack --config CPackSourceConfig.cmake"; }
source_archive=$build/packages/dmlslice-$version-Source.tar.gz
[ -f "$source_archive" ] || bad "the source package is not $source_archive: $(ls "$build/packages")"
for page in README.md docs/install.md; do
  tag=$(basename "$page" .md)
  python3 "$src/tests/install/doc_lines.py" "$src/$page" sh >"$work/doc-$tag.sh" || bad "$page: no sh lines"
  n=0
  while IFS= read -r line; do
    n=$((n + 1)) dir=$work/doc-$tag-sh$n
    mkdir -p "$dir" && cp "$consumers/app.c" "$dir/app.c"
    if (cd "$dir" && PKG_CONFIG_PATH=$pc_path sh -c "$line") >"$dir.log" 2>&1; then
      run_consumer "$page: $line" "$dir/a.out"
      case ${line%%#*} in
      *static*) needs_lib "$dir/a.out" && bad "$page: $line: linked to libdmlslice.so" ;;
      *) needs_lib "$dir/a.out" || bad "$page: $line: not linked to libdmlslice.so" ;;
      esac
    else
      cat "$dir.log"; bad "$page: '$line' failed"
    fi
  done <"$work/doc-$tag.sh"
  python3 "$src/tests/install/doc_lines.py" "$src/$page" cmake >"$work/doc-$tag.cmake" ||
    bad "$page: no CMake lines"
  python3 - "$work/doc-$tag.cmake" "$work/doc-$tag-cmake" <<'EOF_PY'
import sys
blocks = open(sys.argv[1]).read().split("\0")[:-1]
for i, b in enumerate(blocks, 1):
    with open("%s%d.txt" % (sys.argv[2], i), "w") as f:
        f.write(b)
EOF_PY
  for blockfile in "$work/doc-$tag-cmake"*.txt; do
    [ -f "$blockfile" ] || continue
    dir=${blockfile%.txt}
    mkdir -p "$dir/project/third_party" && cp "$consumers/app.c" "$dir/project/app.c"
    cp "$source_archive" "$dir/project/third_party/" 2>/dev/null || true
    { printf 'cmake_minimum_required(VERSION 3.20)\nproject(doc_consumer LANGUAGES C)\nadd_executable(app app.c)\n'
      cat "$blockfile"; } >"$dir/project/CMakeLists.txt"
    if cmake -S "$dir/project" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix" >"$dir.log" 2>&1 &&
       cmake --build "$dir/build" -j2 >>"$dir.log" 2>&1; then
      shown=$(sed 's/ *#.*//' "$blockfile" | grep -v '^ *$' | tr '\n' ' ')
      run_consumer "$page: $shown" "$dir/build/app" no
      if echo "$shown" | grep -q 'dmlslice_static'; then
        needs_lib "$dir/build/app" && bad "$page: $shown: linked to libdmlslice.so"
      fi
    else
      cat "$dir.log"; bad "$page: the CMake lines did not build: $(cat "$blockfile")"
    fi
  done
done

# ------------------------------------------------------------------ 3
step "3 the installed shared library exports only dmls_ symbols"
sh "$src/tests/check_symbols.sh" "$(cache CMAKE_NM)" "$prefix/$libdir/libdmlslice.so" "$prefix/$libdir/libdmlslice.a" ||
  bad "symbols of the installed libraries"

# ------------------------------------------------------------------ 4
step "4 the installed tool from an unrelated folder, without LD_LIBRARY_PATH"
elsewhere=$work/elsewhere
mkdir -p "$elsewhere"
readelf -d "$prefix/bin/dmlslice" | grep -q -E 'R(UN)?PATH.*\[\$ORIGIN/' || bad "the installed tool has no RPATH relative to itself"
if ldd "$prefix/bin/dmlslice" | grep -q 'not found'; then bad "the installed tool misses a library: $(ldd "$prefix/bin/dmlslice")"; fi
(cd "$elsewhere" && sh "$src/tests/check_demo.sh" "$prefix/bin/dmlslice") || bad "dmlslice demo from $elsewhere"
if "$prefix/bin/dmlslice" bench --help 2>&1 | grep -q -- '--quick'; then
  (cd "$elsewhere" && "$prefix/bin/dmlslice" bench --quick >"$work/bench.log" 2>&1) || { cat "$work/bench.log"; bad "dmlslice bench --quick"; }
else
  # This tool has no --quick: one small case of the cases' format, one repetition.
  printf '%s\n' '[{"name": "small", "dtype": "float32", "input_shape": [64, 64], "window_offsets": [0, 1],' \
    '"window_sizes": [64, 62], "window_strides": [2, 3], "output_sizes": [32, 21]}]' >"$elsewhere/small.json"
  (cd "$elsewhere" && "$prefix/bin/dmlslice" bench --cases small.json --reps 1 >"$work/bench.log" 2>&1) ||
    { cat "$work/bench.log"; bad "dmlslice bench --cases small.json --reps 1"; }
fi
grep -q '^case ' "$work/bench.log" || bad "bench printed no table of cases"
echo "tool: demo and bench ran from $elsewhere"

step "4b the installed tool and library start where CUDA's libraries are not"
# The CUDA runtime is linked statically and loads the driver only when a
# CUDA function is first called: neither file may need a CUDA library at
# load time, and the tool, started by the dynamic loader with its cache
# ignored (so CUDA's own folders, known through ld.so.conf, are not
# searched), runs, and --device cuda falls back to the CPU saying so where
# no driver is found (or runs on the GPU where one is).
for f in bin/dmlslice "$libdir/libdmlslice.so.$version"; do
  cuda_needed=$(readelf -d "$prefix/$f" | sed -n 's/.*(NEEDED).*\[\(libcu[^]]*\)\]/\1/p' | tr '\n' ' ')
  [ -z "$cuda_needed" ] || bad "$f needs $cuda_needed at load time"
done
interp=$(readelf -l "$prefix/bin/dmlslice" | sed -n 's/.*program interpreter: \(.*\)\]/\1/p')
hidden() { "$interp" --inhibit-cache --library-path "$prefix/$libdir" "$prefix/bin/dmlslice" "$@"; }
if [ -z "$interp" ] || ! "$interp" --help 2>/dev/null | grep -q -- --inhibit-cache; then
  echo "SKIP: the dynamic loader '$interp' cannot be run with --inhibit-cache"
else
  hidden_version=$(hidden -V 2>&1) || bad "the tool does not start without CUDA's libraries: $hidden_version"
  [ "$hidden_version" = "dmlslice $version" ] || bad "-V without CUDA's libraries says '$hidden_version'"
  printf '\223NUMPY\001\000\166\000%-117s\n\001\000\000\000\002\000\000\000' \
    "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }" >"$elsewhere/two.npy"
  if hidden slice "$elsewhere/two.npy" -o "$elsewhere/rev.npy" --index '[::-1]' --device cuda \
       >"$work/hidden.out" 2>"$work/hidden.err"; then
    [ "$(od -A n -t d4 -j 128 "$elsewhere/rev.npy" | tr -s ' ')" = " 2 1" ] || bad "--device cuda without CUDA's libraries: wrong output"
    if [ -s "$work/hidden.err" ]; then
      grep -q -x -E 'dmlslice slice: --device cuda: .+; running on the CPU' "$work/hidden.err" ||
        bad "--device cuda without CUDA's libraries says: $(cat "$work/hidden.err")"
    fi
    echo "without CUDA's libraries: -V and slice --device cuda ran ($(cat "$work/hidden.err"))"
  else
    bad "slice --device cuda without CUDA's libraries: $(cat "$work/hidden.err")"
  fi
fi

step "4c the installed tool and library start where the Vulkan loader is not"
# In a build with volk both load the Vulkan loader at run time: neither
# file may need libvulkan at load time, and in a private mount namespace
# (unshare -r -m) where the loader is an empty file (/dev/null bound over
# it), the tool starts, slices on the CPU, and --device vulkan fails saying
# that there is no loader. A build without volk links the loader by design.
pc=$prefix/$libdir/pkgconfig/dmlslice.pc
if ! grep -q DMLS_HAVE_VULKAN "$pc"; then
  echo "SKIP: no Vulkan backend in this build"
elif grep -q -- '-lvulkan' "$pc"; then
  echo "SKIP: this build links the Vulkan loader (no volk: docs/vulkan.md)"
else
  for f in bin/dmlslice "$libdir/libdmlslice.so.$version"; do
    vk_needed=$(readelf -d "$prefix/$f" | sed -n 's/.*(NEEDED).*\[\(libvulkan[^]]*\)\]/\1/p' | tr '\n' ' ')
    [ -z "$vk_needed" ] || bad "$f needs $vk_needed at load time"
  done
  ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
  loader=$("$ldconfig" -p 2>/dev/null | sed -n 's/.*libvulkan\.so\.1 .*=> //p' | head -n 1)
  if [ -z "$loader" ] || ! unshare -r -m true 2>/dev/null; then
    echo "SKIP: no Vulkan loader installed, or no private mount namespace (unshare -r -m): readelf -d only"
  else
    printf '\223NUMPY\001\000\166\000%-117s\n\001\000\000\000\002\000\000\000' \
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }" >"$elsewhere/vk-two.npy"
    cat >"$work/no-loader.sh" <<'EOS'
# $1 the loader's file, $2 the tool, $3 a folder: run inside unshare -r -m.
mount --bind /dev/null "$1" || exit 3
[ ! -s "$1" ] || exit 3
"$2" -V >"$3/nl-version.out" 2>&1 || exit 4
"$2" slice "$3/vk-two.npy" -o "$3/nl-cpu.npy" --index '[::-1]' 2>"$3/nl-cpu.err" || exit 5
"$2" slice "$3/vk-two.npy" -o "$3/nl-vk.npy" --index '[::-1]' --device vulkan 2>"$3/nl-vk.err" && exit 6
exit 0
EOS
    rc=0
    unshare -r -m sh "$work/no-loader.sh" "$(readlink -f "$loader")" "$prefix/bin/dmlslice" "$elsewhere" || rc=$?
    case $rc in
    0) ;;
    3) bad "could not hide the Vulkan loader $loader in the namespace" ;;
    4) bad "the tool does not start without the Vulkan loader: $(cat "$elsewhere/nl-version.out")" ;;
    5) bad "slice on the CPU without the Vulkan loader: $(cat "$elsewhere/nl-cpu.err")" ;;
    6) bad "slice --device vulkan succeeded without a Vulkan loader" ;;
    *) bad "the run without the Vulkan loader ended with status $rc" ;;
    esac
    if [ "$rc" = 0 ]; then
      [ "$(cat "$elsewhere/nl-version.out")" = "dmlslice $version" ] ||
        bad "-V without the Vulkan loader says '$(cat "$elsewhere/nl-version.out")'"
      [ "$(od -A n -t d4 -j 128 "$elsewhere/nl-cpu.npy" | tr -s ' ')" = " 2 1" ] ||
        bad "slice without the Vulkan loader: wrong output"
      grep -q 'no Vulkan loader' "$elsewhere/nl-vk.err" ||
        bad "--device vulkan without the loader says: $(cat "$elsewhere/nl-vk.err")"
      [ ! -e "$elsewhere/nl-vk.npy" ] || bad "--device vulkan without the loader left an output"
      echo "without the Vulkan loader ($loader hidden): -V and slice ran; --device vulkan said: $(cat "$elsewhere/nl-vk.err")"
    fi
  fi
fi

# ------------------------------------------------------------------ 5
step "5 packages"
(cd "$build" && cpack -G TGZ >"$work/cpack-tgz.log" 2>&1) || { cat "$work/cpack-tgz.log"; bad "cpack -G TGZ"; }
tgz=$(ls "$build"/packages/dmlslice-"$version"-*.tar.gz 2>/dev/null | head -n 1)
if [ -n "$tgz" ]; then
  for f in bin/dmlslice include/dmlslice/dmlslice.h "$libdir/libdmlslice.so.$version" "$libdir/libdmlslice.a" "$libdir/pkgconfig/dmlslice.pc"; do
    tar -tzf "$tgz" | grep -q "/$f\$" || bad "$(basename "$tgz") lacks $f"
  done
  echo "tar.gz: $(basename "$tgz"), $(tar -tzf "$tgz" | grep -c -v '/$') files"
else
  bad "cpack made no .tar.gz"
fi
if ! command -v dpkg >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
  echo "SKIP .deb: dpkg is absent"
elif [ "$(id -u)" -ne 0 ]; then
  echo "SKIP .deb: dpkg -i needs root"
elif dpkg -s "libdmlslice$abi" >/dev/null 2>&1 || [ -e /usr/include/dmlslice ]; then
  bad "dmlslice is already installed on this system: not touching it"
else
  rm -f "$build"/packages/*.deb
  (cd "$build" && cpack -G DEB >"$work/cpack-deb.log" 2>&1) || { cat "$work/cpack-deb.log"; bad "cpack -G DEB"; }
  debs=$(ls "$build"/packages/*.deb 2>/dev/null || true)
  [ "$(echo "$debs" | grep -c .)" -eq 3 ] || bad "expected 3 .deb packages, got: $debs"
  for d in $debs; do echo "deb: $(dpkg-deb -f "$d" Package Version Depends | tr '\n' ' ')"; done
  # Each package declares what its programs and libraries need: every
  # NEEDED library of an ELF file in it comes from a package its Depends
  # names (libdmlslice.so.ABI from the runtime package).
  for d in $debs; do
    x=$work/deb-x/$(basename "$d")
    mkdir -p "$x" && dpkg-deb -x "$d" "$x"
    depends=$(dpkg-deb -f "$d" Depends | tr ',|' '\n\n' | sed 's/^ *//; s/[ (].*//')
    for f in $(find "$x" -type f); do
      file -b "$f" | grep -q '^ELF' || continue
      for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        case $lib in
        libdmlslice.so.*) provider=libdmlslice$abi ;;
        *)
          path=$(ldconfig -p | sed -n "s|^[[:space:]]*$lib (.*) => ||p" | head -n 1)
          provider=$(dpkg -S "$(readlink -f "$path" 2>/dev/null || echo "$lib")" 2>/dev/null | head -n 1 | sed 's/[:,].*//')
          [ -n "$provider" ] || provider=$(dpkg -S "$path" 2>/dev/null | head -n 1 | sed 's/[:,].*//')
          ;;
        esac
        if [ -z "$provider" ]; then
          bad "$(basename "$d"): ${f#"$x"/} needs $lib, which no Debian package provides here"
        elif ! echo "$depends" | grep -q -x -F "$provider"; then
          bad "$(basename "$d"): ${f#"$x"/} needs $lib (package $provider), not in Depends: $(dpkg-deb -f "$d" Depends)"
        fi
      done
    done
  done
  packages="dmlslice libdmlslice-dev libdmlslice$abi"
  # shellcheck disable=SC2086
  trap 'dpkg -P $packages >/dev/null 2>&1 || true' EXIT
  # shellcheck disable=SC2086
  if dpkg -i $debs >"$work/dpkg-i.log" 2>&1; then
    [ -x /usr/bin/dmlslice ] || bad "dpkg -i: no /usr/bin/dmlslice"
    if cmake_consumer find_package "$work/deb-consumer"; then
      run_consumer "find_package against the .deb" "$work/deb-consumer/consumer"
      grep -q "^dmlslice_DIR:PATH=/usr/" "$work/deb-consumer/CMakeCache.txt" || bad "the .deb consumer did not find /usr's package"
    fi
    listed=$(dpkg -L $packages | sort -u)
  else
    cat "$work/dpkg-i.log"; bad "dpkg -i"
    listed=
  fi
  # shellcheck disable=SC2086
  dpkg -r $packages >"$work/dpkg-r.log" 2>&1 || { cat "$work/dpkg-r.log"; bad "dpkg -r"; }
  for p in $packages; do
    case $(dpkg-query -W -f '${Status}' "$p" 2>/dev/null || true) in
    *" installed") bad "dpkg -r left $p installed" ;;
    esac
  done
  left=$(for f in $listed; do if [ -f "$f" ] || [ -L "$f" ]; then echo "$f"; fi; done)
  [ -z "$left" ] || bad "dpkg -r left files: $left"
  # The runtime package keeps its ldconfig trigger's record until purged, as
  # every Debian library does; purge it so the system is as it was.
  # shellcheck disable=SC2086
  dpkg -P $packages >/dev/null 2>&1 || true
  trap - EXIT
  echo ".deb: installed, used by consumer 1, removed cleanly"
fi

[ $fail -eq 0 ] && echo "install tests: all passed"
exit $fail
