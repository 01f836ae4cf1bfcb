#!/bin/sh
# The web build's benchmark in one command (bench/RESULTS.md's web sections):
# builds the single-threaded and threaded modules into js/dist
# (scripts/build-wasm.sh) when missing, installs the peers of
# bench/web/package.json (exact versions, into bench/web/node_modules, which
# git ignores; never a dependency of the package) when missing, then runs
# bench/web/bench.mjs single-threaded against the peers and threaded at
# each count of THREADS.
#   bench/web/run.sh [MAX_MIB=256] [REPEATS=5]      THREADS="2 4 8 16" by default: nproc
# Offline, the peers are skipped with a message and dmlslice is measured alone.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
web=$root/bench/web
max=${1:-256}
reps=${2:-5}
[ -f "$root/js/dist/dmlslice.wasm" ] || sh "$root/scripts/build-wasm.sh"
[ -f "$root/js/dist/dmlslice-threads.wasm" ] || sh "$root/scripts/build-wasm.sh" --threads
if [ ! -d "$web/node_modules/onnxruntime-web" ] || [ ! -d "$web/node_modules/@tensorflow/tfjs-backend-wasm" ]; then
  (cd "$web" && npm install --no-audit --no-fund --ignore-scripts) ||
    echo "bench/web/run.sh: npm could not install the peers (offline?): measuring dmlslice alone" >&2
fi
echo "$(uname -m), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); node $(node --version);" \
     "$(date -u '+%Y-%m-%d %H:%M UTC'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
node "$web/bench.mjs" "$max" "$reps"
for n in ${THREADS:-$(nproc)}; do
  [ "$n" -gt 1 ] || continue
  node "$web/bench.mjs" "$max" "$reps" --threads "$n"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
