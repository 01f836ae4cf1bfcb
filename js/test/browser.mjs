// The package in a real browser: serves PACKAGE_DIR (an installed
// dmlslice, e.g. node_modules/dmlslice) and pages that import it over a
// local HTTP server, loads each page in headless Chromium and waits for the
// verdict the page posts back (not a DOM dump under a virtual-time budget:
// that budget runs out while the page waits on its workers). Two pages, one
// build each (a page loads one): the single-threaded build, and, where the
// package holds it, the threaded one on a cross-origin isolated page (the
// COOP and COEP headers below, without which a browser gives no
// SharedArrayBuffer).
//   node browser.mjs PACKAGE_DIR [CHROMIUM]
import {spawn} from 'node:child_process';
import {existsSync} from 'node:fs';
import {readFile} from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

const [pkg, chromium = 'chromium'] = process.argv.slice(2);
const TYPES = {'.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html'};

// Cases worked out by hand, as in webnn.test.mjs; any difference is listed.
const PAGE = `<!doctype html><script type="module">
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
await fetch('/verdict', {method: 'POST', body: fails.length ? 'FAIL ' + fails.join('; ') : 'PASS'});
</script>`;

// The threaded build: the pool's workers start in the browser (a worker
// that cannot start lowers the count), and a transpose large enough to be
// cut between threads equals the reference executor, at 3 threads and 1.
const THREADS_PAGE = `<!doctype html><script type="module">
import * as d from '/pkg/dmlslice.mjs';
const fails = [];
try {
  if (!crossOriginIsolated) fails.push('the page is not cross-origin isolated');
  await d.init({threads: 3});
  if (!d.threaded()) fails.push('threaded() is false');
  const x = {data: Float32Array.from({length: 64 * 96 * 512}, (_, i) => i), shape: [64, 96, 512]};
  for (const n of [3, 1]) {
    d.setThreads(n);
    if (d.threads() !== n) fails.push('threads() is ' + d.threads() + ', not ' + n);
    const plan = d.planTranspose(x, {permutation: [2, 0, 1]});
    const fast = plan.run(x).data, ref = plan.run(x, {reference: true}).data;
    plan.free();
    if (fast.length !== ref.length || fast.some((v, i) => v !== ref[i])) fails.push('transpose at ' + n + ' threads differs');
  }
} catch (e) {
  fails.push('threw ' + e);
}
await fetch('/verdict', {method: 'POST', body: fails.length ? 'FAIL ' + fails.join('; ') : 'PASS'});
</script>`;
const ISOLATED = {'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp'};

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/') return res.writeHead(200, {'content-type': 'text/html'}).end(PAGE);
  if (url.pathname === '/threads') return res.writeHead(200, {'content-type': 'text/html', ...ISOLATED}).end(THREADS_PAGE);
  if (url.pathname === '/verdict' && req.method === 'POST') {
    let body = '';
    req.on('data', (b) => { body += b; });
    req.on('end', () => { res.writeHead(204).end(); posted?.(body); });
    return;
  }
  const rel = url.pathname.replace(/^\/pkg\//, '');
  const file = path.resolve(pkg, rel);
  if (!url.pathname.startsWith('/pkg/') || !file.startsWith(path.resolve(pkg))) return res.writeHead(404).end();
  try {
    const body = await readFile(file);
    res.writeHead(200, {'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', ...ISOLATED}).end(body);
  } catch {
    res.writeHead(404).end();
  }
});

// Loads one page in a Chromium of its own and waits, up to two minutes,
// for the verdict it posts; resolves to it.
let posted = null;
function verdictOf(url) {
  const args = ['--headless=new', '--no-sandbox', '--disable-gpu', '--enable-logging=stderr', url];
  const child = spawn(chromium, args, {stdio: ['ignore', 'ignore', 'pipe']});
  let errs = '';
  child.stderr.on('data', (b) => { errs += b; });
  return new Promise((resolve) => {
    const done = (verdict) => {
      clearTimeout(timer);
      posted = null;
      child.kill();
      resolve({verdict, errs});
    };
    const timer = setTimeout(() => done('no verdict in 120 s'), 120000);
    posted = done;
    child.on('close', () => { if (posted === done) done('no verdict: Chromium ended'); });
  });
}

const pages = [['browser', '/']];
if (existsSync(path.join(pkg, 'dist', 'dmlslice-threads.wasm'))) pages.push(['browser, threaded build', '/threads']);
else console.log('browser, threaded build: not in the package (scripts/build-wasm.sh --threads), not run');
server.listen(0, '127.0.0.1', async () => {
  let failed = false;
  for (const [name, where] of pages) {
    const {verdict, errs} = await verdictOf(`http://127.0.0.1:${server.address().port}${where}`);
    console.log(`${name}: ${verdict}`);
    if (verdict !== 'PASS') {
      console.log(errs.slice(-2000));
      failed = true;
    }
  }
  server.close();
  process.exit(failed ? 1 : 0);
});
