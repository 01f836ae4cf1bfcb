// Every code block of the package's README.md runs, so that an example that
// no longer works fails the suite (as tests/docs/run_blocks.py does for the
// C and Python pages). A block's fence names its language:
//   ```js        run as an ES module (its `from 'dmlslice'` is this
//                package), the page's blocks in order; a ```text block
//                right after it is its console output, compared exactly
//   ```sh build  a build or test command: only `sh -n` here
//   ```text      output, shown (and compared, after a js block)
// Any other fence fails.
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const FENCE = /^```([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
const KNOWN = new Set(['js', 'sh build', 'text']);
const pkgURL = new URL('../dmlslice.mjs', import.meta.url).href;

async function blocks() {
  const text = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  return Array.from(text.matchAll(FENCE), (m) => ({
    line: text.slice(0, m.index).split('\n').length, info: m[1].trim(), body: m[2],
  }));
}

// The block as a module of its own, its console.log lines captured.
async function runJs(dir, n, body) {
  const file = path.join(dir, `block${n}.mjs`);
  await writeFile(file, body.replace(/from\s+'dmlslice'/g, `from '${pkgURL}'`));
  const lines = [], log = console.log;
  console.log = (...args) => lines.push(args.join(' '));
  try {
    await import(pathToFileURL(file).href);
  } finally {
    console.log = log;
  }
  return lines.join('\n');
}

test('README.md: every block runs and prints what the page shows', async () => {
  const all = await blocks(), dir = await mkdtemp(path.join(tmpdir(), 'dmlslice-readme-'));
  let ran = 0;
  try {
    for (let i = 0; i < all.length; i++) {
      const {line, info, body} = all[i], where = `README.md:${line} (${info || 'no language'})`;
      assert.ok(KNOWN.has(info), `${where}: an unknown fence`);
      if (info === 'sh build') {
        const r = spawnSync('sh', ['-n', '-c', body], {encoding: 'utf8'});
        assert.equal(r.status, 0, `${where}: ${r.stderr}`);
      } else if (info === 'js') {
        const printed = await runJs(dir, i, body);
        ran++;
        if (all[i + 1]?.info === 'text') assert.equal(printed, all[i + 1].body.trimEnd(), `${where}: its output`);
      }
    }
  } finally {
    await rm(dir, {recursive: true, force: true});
  }
  assert.ok(ran > 0, 'the page has js blocks');
});
