// The package in a real browser: serves PACKAGE_DIR (an installed
// dmlslice, e.g. node_modules/dmlslice) and a page that imports it over a
// local HTTP server, loads the page in headless Chromium and reads the
// verdict the page writes into its DOM.
//   node browser.mjs PACKAGE_DIR [CHROMIUM]
import {spawn} from 'node:child_process';
import {readFile} from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

const [pkg, chromium = 'chromium'] = process.argv.slice(2);
const TYPES = {'.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html'};

// Cases worked out by hand, as in webnn.test.mjs; any difference is listed.
const PAGE = `<!doctype html><pre id="verdict">running</pre><script type="module">
import * as d from '/pkg/dmlslice.mjs';
const fails = [];
function check(name, got, want) {
  if (JSON.stringify(got) !== JSON.stringify(want)) fails.push(name + ': ' + JSON.stringify(got));
}
try {
  await d.init();
  const x = {data: Float32Array.from({length: 24}, (_, i) => i), shape: [4, 6]};
  check('slice', Array.from(d.slice(x, [0, 1], [4, 5], {strides: [2, 2]}).data), [1, 3, 5, 13, 15, 17]);
  check('reverse', Array.from(d.reverse({data: new Int8Array([1, 2, 3]), shape: [3]}).data), [3, 2, 1]);
  check('transpose', Array.from(d.transpose({data: new Uint16Array([0, 1, 2, 3, 4, 5]), shape: [2, 3]}).data), [0, 3, 1, 4, 2, 5]);
  check('split', d.split(x, [2, 4], {axis: 1}).map((t) => t.shape), [[4, 2], [4, 4]]);
  check('int64', Array.from(d.index({data: new BigInt64Array([5n, 6n, 7n]), shape: [3]}, '[::-1]').data, Number), [7, 6, 5]);
  try { d.slice(x, [4, 0], [1, 1]); fails.push('no TypeError'); } catch (e) { check('error', e instanceof TypeError, true); }
} catch (e) {
  fails.push('threw ' + e);
}
document.getElementById('verdict').textContent = fails.length ? 'FAIL ' + fails.join('; ') : 'PASS';
</script>`;

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/') return res.writeHead(200, {'content-type': 'text/html'}).end(PAGE);
  const rel = url.pathname.replace(/^\/pkg\//, '');
  const file = path.resolve(pkg, rel);
  if (!url.pathname.startsWith('/pkg/') || !file.startsWith(path.resolve(pkg))) return res.writeHead(404).end();
  try {
    const body = await readFile(file);
    res.writeHead(200, {'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream'}).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
server.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}/`;
  const args = ['--headless=new', '--no-sandbox', '--disable-gpu', '--dump-dom', '--virtual-time-budget=20000', url];
  const child = spawn(chromium, args, {stdio: ['ignore', 'pipe', 'pipe']});
  let dom = '', errs = '';
  child.stdout.on('data', (b) => { dom += b; });
  child.stderr.on('data', (b) => { errs += b; });
  child.on('close', () => {
    server.close();
    const verdict = /<pre id="verdict">([^<]*)<\/pre>/.exec(dom)?.[1] ?? 'no verdict';
    console.log(`browser: ${verdict}`);
    if (verdict !== 'PASS') {
      console.log(errs.slice(-2000));
      process.exit(1);
    }
  });
});
