// The web build's benchmark (not in CI; bench/web/run.sh runs it): the
// canonical and permute cases of bench/cases.json and one ONNX Split, shrunk
// to at most MAX_MIB of input, in one Node process:
//   - dmlslice on arrays in the module's memory (no copy in or out) against
//     a copy of the same output bytes inside the module (HEAPU8.copyWithin:
//     the engine's memory.copy, the limit);
//   - dmlslice on plain TypedArrays (one copy in, one out) against
//     onnxruntime-web's wasm Slice/Transpose/Split (session.run, which copies
//     in and out too);
//   - dmlslice in the module's memory against TensorFlow.js's wasm backend
//     (stridedSlice, reverse, transpose, split on tensors in its memory;
//     float32 only, the dtypes it has).
// GB/s = 2 x output bytes / best time. Prints one Markdown row per case.
//   node bench/web/bench.mjs [MAX_MIB=256] [REPEATS=5] [--threads N]
// --threads N: the threaded build with N threads, dmlslice and the copy only.
import {fileURLToPath} from 'node:url';

import * as d from '../../js/dmlslice.mjs';
import {SIZES, onnxArgs, plan, readCases, shrink} from './cases.mjs';
import {onnxDtypes, onnxModel} from './onnx_model.mjs';

const argv = process.argv.slice(2);
const at = argv.indexOf('--threads');
const threads = at < 0 ? 1 : Number(argv.splice(at, 2)[1]);
const maxMiB = Number(argv[0] ?? 256), repeats = Number(argv[1] ?? 5);
const cases = await readCases();
cases.push({name: 'split3_f32 (ONNX Split)', dtype: 'float32', input_shape: [4096, 3072], split: [1024, 1024, 1024]});
const M = await d.init({threads});
const peers = threads === 1 ? await loadPeers() : {};

async function loadPeers() {
  const found = {};
  try {
    found.ort = await import('onnxruntime-web');
    found.ort.env.wasm.numThreads = 1;
  } catch (e) {
    console.log(`onnxruntime-web skipped (bench/web/run.sh installs it): ${e.message.split('\n')[0]}`);
  }
  try {
    found.tf = await import('@tensorflow/tfjs-core');
    const {setWasmPaths} = await import('@tensorflow/tfjs-backend-wasm');
    setWasmPaths(fileURLToPath(new URL('./node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url)));
    await found.tf.setBackend('wasm');
  } catch (e) {
    delete found.tf;
    console.log(`TensorFlow.js wasm skipped (bench/web/run.sh installs it): ${e.message.split('\n')[0]}`);
  }
  return found;
}

async function best(fn) {
  let t = Infinity;
  for (let r = 0; r < repeats; r++) {
    const t0 = process.hrtime.bigint();
    await fn();
    t = Math.min(t, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return t;
}

// onnxruntime-web's session for the case, fed a plain TypedArray.
async function ortTime(s, dtype, plainIn) {
  if (!peers.ort || !onnxDtypes.includes(s.dtype)) return null;
  const op = s.perm ? 'Transpose' : s.split ? 'Split' : 'Slice';
  const args = s.perm ? {perm: s.perm} : s.split ? {axis: s.input_shape.length - 1, split: s.split} : onnxArgs(s);
  const model = onnxModel(op, s.dtype, s.input_shape, args, s.split ? s.split.length : 1);
  const session = await peers.ort.InferenceSession.create(model);
  const x = new peers.ort.Tensor(s.dtype, plainIn, s.input_shape);
  try {
    return await best(() => session.run({x}));
  } finally {
    await session.release();
  }
}

// TensorFlow.js's op on a tensor in its wasm memory; the result stays there.
async function tfTime(s, plainIn) {
  const tf = peers.tf;
  if (!tf || s.dtype !== 'float32') return null;
  const x = tf.tensor(plainIn, s.input_shape);
  let op;
  if (s.perm) op = () => tf.transpose(x, s.perm);
  else if (s.split) op = () => tf.split(x, s.split, -1);
  else if (s.window_strides.every((st) => st === 1)) op = () => tf.slice(x, s.window_offsets, s.window_sizes);
  else if (s.window_strides.every((st) => Math.abs(st) === 1)) {
    // A flip of whole axes: reverse, as a user would write it.
    const axes = s.window_strides.flatMap((st, i) => (st < 0 ? [i] : []));
    op = () => tf.reverse(x, axes);
  } else {
    const a = onnxArgs(s);
    let endMask = 0;
    const ends = a.ends.map((e, i) => {
      if (typeof e === 'bigint') endMask |= 1 << i;   // up to the first element
      return typeof e === 'bigint' ? 0 : e;
    });
    op = () => tf.stridedSlice(x, a.starts, ends, a.steps, 0, endMask);
  }
  try {
    return await best(() => tf.dispose(op()));
  } finally {
    x.dispose();
  }
}

const ratio = (a, b) => (a == null || b == null ? 'n/a' : (b / a).toFixed(2));
const gbs = (bytes, t) => (t == null ? 'n/a' : ((2 * bytes) / t / 1e9).toFixed(2));
console.log(`threads ${d.threads()} (${d.threaded() ? 'threaded' : 'single-threaded'} build), inputs <= ${maxMiB} MiB, best of ${repeats}`);
console.log('| case | input MiB | dmlslice GB/s | memory.copy GB/s | of copy | dmlslice + copies GB/s | onnxruntime-web GB/s | x ort | TF.js wasm GB/s | x TF.js |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const c of cases) {
  if (!(c.dtype in SIZES) || (!c.perm && !c.window_sizes && !c.split)) continue;
  const s = shrink(c, maxMiB), n = s.input_shape.reduce((a, b) => a * b, 1);
  const dtype = s.dtype === 'float16' ? 'uint16' : s.dtype;
  // HeapArrays: their views are re-made after any growth of the memory.
  const data = d.alloc(dtype, n);
  const p = plan(d, s, {data, shape: s.input_shape});
  const outN = s.split ? n : p.shape.reduce((a, b) => a * b, 1), outBytes = outN * SIZES[s.dtype];
  let tSlice = null;
  const out = d.alloc(dtype, outN);
  if (!s.split) tSlice = await best(() => p.run({data, shape: s.input_shape}, {out}));
  const tCopy = await best(() => M.HEAPU8.copyWithin(out.ptr, data.ptr, data.ptr + outBytes));
  const plainIn = data.array.slice();
  const tCopies = await best(() => p.run({data: plainIn, shape: s.input_shape}));
  p.free(); d.free(data); d.free(out);
  const tOrt = await ortTime(s, dtype, plainIn), tTf = await tfTime(s, plainIn);
  console.log(`| ${c.name} | ${(n * SIZES[s.dtype] / 2 ** 20).toFixed(0)} | ${gbs(outBytes, tSlice)} | ${gbs(outBytes, tCopy)} | ` +
              `${ratio(tSlice, tCopy)} | ${gbs(outBytes, tCopies)} | ${gbs(outBytes, tOrt)} | ${ratio(tCopies, tOrt)} | ` +
              `${gbs(outBytes, tTf)} | ${ratio(tSlice ?? tCopies, tTf)} |`);
}
process.exit(0);   // the threaded build's workers would keep Node alive
