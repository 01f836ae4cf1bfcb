#!/bin/sh
# The WebAssembly build (js/README.md): the library's own sources compiled by
# emscripten's emcc through the project's CMake (emcmake), then linked with
# the C glue the JavaScript calls (js/src/*.c, public API only) into
# js/dist/dmlslice.mjs + dmlslice.wasm, an ES module for Node >= 18 and
# browsers.
#
#   scripts/build-wasm.sh [BUILD_DIR]          single-threaded (the default)
#   scripts/build-wasm.sh --threads [BUILD_DIR] the threaded build beside it:
#       dist/dmlslice-threads.{mjs,wasm,worker.js}, the library compiled
#       again with -pthread (its objects cannot be shared: thread-local
#       storage compiled for shared memory loses its initial values in a
#       single-threaded link); init({threads}) loads it (js/README.md)
#   DMLS_WASM_OUT=DIR scripts/build-wasm.sh     the package staged in DIR
#       (its files, tests and dist/) rather than built into js/ (the CTest
#       tests do this: js/CMakeLists.txt)
#
# The glue is built for the web alone: under Node, js/dmlslice.mjs reads
# the .wasm itself and hands it over (emscripten 3.1.6's Node glue is
# CommonJS and fetches file paths with Node's fetch, which fails).
# Debian's emscripten 3.1.6 finds its JavaScript optimizer's acorn only
# with NODE_PATH=/usr/share/nodejs under Node 20.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
threads=0
if [ "${1:-}" = --threads ]; then threads=1; shift; fi
if [ $threads = 1 ]; then build=${1:-$root/build-wasm-threads}; else build=${1:-$root/build-wasm}; fi
pkg=${DMLS_WASM_OUT:-$root/js}
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
mkdir -p "$build"

flags="-msimd128 -O3"
[ $threads = 0 ] || flags="$flags -pthread"

emcmake cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS="$flags" -DDMLS_BUILD_TESTS=OFF -DDMLS_BUILD_TOOLS=OFF \
  -DDMLS_BUILD_PROBES=OFF -DDMLS_INSTALL=OFF -DDMLS_CUDA=OFF -DDMLS_VULKAN=OFF \
  -DDMLS_WEB=OFF >"$build/configure.log"
cmake --build "$build" -j "${JOBS:-2}" --target dmlslice_static

if [ "$pkg" != "$root/js" ]; then
  mkdir -p "$pkg"
  cp -R "$root/js/dmlslice.mjs" "$root/js/dmlslice.d.ts" "$root/js/package.json" "$root/js/README.md" \
        "$root/js/test" "$pkg/"
fi
out=$pkg/dist
mkdir -p "$out"
link="-sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createDmlslice -sENVIRONMENT=web,worker
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sEXPORTED_RUNTIME_METHODS=UTF8ToString,stringToUTF8,lengthBytesUTF8
  -sEXPORTED_FUNCTIONS=_malloc,_free,_dmls_last_error,_dmls_last_error_rule,_dmls_destroy,_dmls_lower_webnn_slice,_dmls_lower_webnn_reverse,_dmls_lower_webnn_transpose,_dmls_lower_onnx_transpose,_dmls_lower_numpy,_dmls_lower_onnx,_dmls_batch_output_bytes,_dmls_batch_destroy,_dmls_feature_level_count,_dmls_feature_level_at,_dmls_feature_level_name,_dmls_output_rank,_dmls_output_shape -sFILESYSTEM=0"
name=dmlslice
if [ $threads = 1 ]; then
  # Node runs the workers too (worker_threads), so the glue is built for
  # it as well, given require() by node_esm.js; the workers' script is
  # CommonJS, hence dist/'s own package.json. The pool's workers start
  # with the module (dmlsWorkers, set by init): a worker started later
  # runs only once JavaScript returns to its event loop.
  name=dmlslice-threads
  link=$(echo "$link" | sed 's/-sENVIRONMENT=web,worker/-sENVIRONMENT=web,worker,node/')
  link="$link -pthread -sPTHREAD_POOL_SIZE=Module.dmlsWorkers --extern-pre-js $root/js/src/node_esm.js"
  echo '{"type": "commonjs"}' >"$out/package.json"
fi
# shellcheck disable=SC2086
emcc $flags -I"$root/include" -I"$build/include" "$root"/js/src/*.c "$build/src/libdmlslice.a" \
  $link -o "$out/$name.mjs"
echo "build-wasm: $out/$name.mjs"
