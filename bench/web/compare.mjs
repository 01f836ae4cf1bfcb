// Builds side by side (bench/RESULTS.md's web sections): the slices and
// transposes of bench/cases.json (bench/web/cases.mjs), shrunk to at most
// MAX_MIB of input, run by each of several single-threaded packages in one
// Node process, the packages taking turns rep by rep, so a burst of load on
// a shared machine falls on all of them alike (bench.mjs runs one build per
// process, and its best of few reps swings by 2x on a busy 2-core VM). Each
// package is a copy of js/'s dmlslice.mjs and dist/ (scripts/build-wasm.sh,
// then cp -R). Prints, per case and package, dmlslice's GB/s / memory.copy's
// GB/s in that package's memory (HEAPU8.copyWithin of the output's bytes) =
// their ratio; GB/s = 2 x output bytes / best time.
//   [CASES=FILE] node bench/web/compare.mjs MAX_MIB REPEATS PKG_DIR...
import {resolve} from 'node:path';
import {pathToFileURL} from 'node:url';

import {SIZES, plan, readCases, shrink} from './cases.mjs';

const [maxMiB, repeats, ...dirs] = process.argv.slice(2);
if (!dirs.length) {
  console.error('usage: [CASES=FILE] node bench/web/compare.mjs MAX_MIB REPEATS PKG_DIR...');
  process.exit(2);
}
// CASES=FILE: another cases file of the same form (bench/web/image_cases.json:
// images between planes and pixels).
const cases = (await readCases(process.env.CASES)).filter((c) => c.perm || c.window_sizes);
const builds = [];
for (const dir of dirs) {
  const d = await import(pathToFileURL(resolve(dir, 'dmlslice.mjs')).href);
  builds.push({dir, d, M: await d.init({threads: 1})});
}

const time = (fn) => {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
};
console.log(`inputs <= ${maxMiB} MiB, best of ${repeats}, packages taking turns: dmlslice GB/s / memory.copy GB/s = of copy`);
for (const c of cases) {
  if (!(c.dtype in SIZES)) continue;
  const s = shrink(c, Number(maxMiB)), n = s.input_shape.reduce((a, b) => a * b, 1);
  const dtype = s.dtype === 'float16' ? 'uint16' : s.dtype;
  let bytes = 0;
  const runs = builds.map(({d, M}) => {
    const data = d.alloc(dtype, n), plan_ = plan(d, s, {data, shape: s.input_shape});
    const outN = plan_.shape.reduce((a, b) => a * b, 1), out = d.alloc(dtype, outN);
    bytes = outN * SIZES[s.dtype];
    return {d, M, data, out, plan: plan_, slice: Infinity, copy: Infinity};
  });
  for (let r = 0; r < Number(repeats); r++) {
    for (const b of runs) {
      b.slice = Math.min(b.slice, time(() => b.plan.run({data: b.data, shape: s.input_shape}, {out: b.out})));
      b.copy = Math.min(b.copy, time(() => b.M.HEAPU8.copyWithin(b.out.ptr, b.data.ptr, b.data.ptr + bytes)));
    }
  }
  const gbs = (t) => ((2 * bytes) / t / 1e9).toFixed(2);
  console.log(`${c.name}: ` + runs.map((b, i) => `${dirs[i]} ${gbs(b.slice)} / ${gbs(b.copy)} = ${(b.copy / b.slice).toFixed(2)}`).join(', '));
  for (const b of runs) {
    b.plan.free();
    b.d.free(b.data);
    b.d.free(b.out);
  }
}
