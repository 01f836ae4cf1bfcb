// The web build's benchmark (not in CI): bench/cases.json's canonical and
// permute cases, shrunk to at most MAX_MIB of input, each run by dmlslice in
// wasm on arrays in the module's memory (no copy in or out) against a copy
// of the same output bytes inside the module (HEAPU8.copyWithin: the
// engine's memory.copy, the limit). Prints one Markdown row per case.
//   node js/bench/bench.mjs [MAX_MIB=64] [REPEATS=5]
// onnxruntime-web and @tensorflow/tfjs-backend-wasm are not measured here
// yet (bench/RESULTS.md says so).
import {readFile} from 'node:fs/promises';

import * as d from '../dmlslice.mjs';

const maxMiB = Number(process.argv[2] ?? 64), repeats = Number(process.argv[3] ?? 5);
const SIZES = {float32: 4, float16: 2, uint8: 1, float64: 8, int64: 8, uint16: 2, int32: 4};
const cases = JSON.parse(await readFile(new URL('../../bench/cases.json', import.meta.url)));
const M = await d.init();

// Halves the largest axis (and the window on it) until the input fits.
function shrink(c) {
  const s = structuredClone(c), size = SIZES[s.dtype];
  const bytes = () => s.input_shape.reduce((a, b) => a * b, size);
  while (bytes() > maxMiB * 2 ** 20) {
    const a = s.input_shape.indexOf(Math.max(...s.input_shape));
    s.input_shape[a] = Math.ceil(s.input_shape[a] / 2);
    if (s.window_sizes) {
      s.window_offsets[a] = Math.floor(s.window_offsets[a] / 2);
      s.window_sizes[a] = Math.max(1, Math.min(Math.ceil(s.window_sizes[a] / 2), s.input_shape[a] - s.window_offsets[a]));
    }
  }
  return s;
}

// A SLICE1 window as ONNX Slice's starts, ends and steps.
function plan(s, x) {
  if (s.perm) return d.planTranspose(x, {permutation: s.perm});
  const starts = [], ends = [];
  s.window_strides.forEach((st, i) => {
    const o = s.window_offsets[i], z = s.window_sizes[i];
    starts.push(st > 0 ? o : o + z - 1);
    ends.push(st > 0 ? o + z : (o === 0 ? -(2n ** 63n) : BigInt(o - 1)));
  });
  return d.planOnnxSlice(x, starts, ends, null, s.window_strides);
}

function best(fn) {
  let t = Infinity;
  for (let r = 0; r < repeats; r++) {
    const t0 = process.hrtime.bigint();
    fn();
    t = Math.min(t, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return t;
}

console.log('| case | input MiB | dmlslice GB/s | memory.copy GB/s | ratio |');
console.log('|---|---|---|---|---|');
for (const c of cases) {
  if (!(c.dtype in SIZES) || (!c.perm && !c.window_sizes)) continue;
  const s = shrink(c), n = s.input_shape.reduce((a, b) => a * b, 1);
  const dtype = s.dtype === 'float16' ? 'uint16' : s.dtype;
  // HeapArrays: their views are re-made after any growth of the memory.
  const data = d.alloc(dtype, n);
  const p = plan(s, {data, shape: s.input_shape});
  const outN = p.shape.reduce((a, b) => a * b, 1), outBytes = outN * SIZES[s.dtype];
  const out = d.alloc(dtype, outN);
  const tSlice = best(() => p.run({data, shape: s.input_shape}, {out}));
  const tCopy = best(() => M.HEAPU8.copyWithin(out.ptr, data.ptr, data.ptr + outBytes));
  // Traffic: the output's bytes read and written.
  const gb = (t) => ((2 * outBytes) / t / 1e9).toFixed(2);
  console.log(`| ${c.name} | ${(n * SIZES[s.dtype] / 2 ** 20).toFixed(0)} | ${gb(tSlice)} | ${gb(tCopy)} | ${(tCopy / tSlice).toFixed(2)} |`);
  p.free(); d.free(data); d.free(out);
}
