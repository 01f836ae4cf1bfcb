#!/bin/sh
# The npm tarball as a user gets it: `npm pack` of the package in PKG_DIR,
# installed offline into a fresh project under WORK_DIR, imported by Node,
# then (given CHROMIUM) loaded by a page in headless Chromium (browser.mjs).
#   package.sh PKG_DIR WORK_DIR [CHROMIUM]
set -eu
pkg=$1 work=$2 chromium=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/app"
(cd "$pkg" && npm pack --silent --pack-destination "$work" >/dev/null)
tgz=$(ls "$work"/dmlslice-*.tgz)
cd "$work/app"
echo '{"name": "app", "version": "1.0.0", "type": "module", "private": true}' >package.json
npm install --offline --no-audit --no-fund --silent "$tgz"
cat >smoke.mjs <<'JS'
import * as d from 'dmlslice';
await d.init();
const r = d.slice({data: Float64Array.from([0, 1, 2, 3, 4, 5]), shape: [2, 3]}, [0, 1], [2, 2]);
if (JSON.stringify(Array.from(r.data)) !== '[1,2,4,5]') throw new Error(`node: ${Array.from(r.data)}`);
console.log('node: PASS');
JS
node smoke.mjs
[ -z "$chromium" ] || node "$here/browser.mjs" "$work/app/node_modules/dmlslice" "$chromium"
