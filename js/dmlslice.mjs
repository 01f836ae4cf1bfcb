// dmlslice for JavaScript: a thin adapter over the library compiled to
// WebAssembly (dist/dmlslice.wasm). Every slice is lowered and copied by the
// C library; this file only converts arguments, moves bytes into and out of
// the module's memory, and turns status codes into exceptions.
import createDmlslice from './dist/dmlslice.mjs';

const DTYPES = {
  float32: [1, 4, Float32Array], float16: [2, 2, Uint16Array], uint32: [3, 4, Uint32Array],
  uint16: [4, 2, Uint16Array], uint8: [5, 1, Uint8Array], int32: [6, 4, Int32Array],
  int16: [7, 2, Int16Array], int8: [8, 1, Int8Array], float64: [9, 8, Float64Array],
  uint64: [10, 8, BigUint64Array], int64: [11, 8, BigInt64Array],
};
// The dtype a TypedArray's kind means when the tensor names none.
const KIND_DTYPE = new Map([
  [Float32Array, 'float32'], [Float64Array, 'float64'], [Int8Array, 'int8'], [Uint8Array, 'uint8'],
  [Uint8ClampedArray, 'uint8'], [Int16Array, 'int16'], [Uint16Array, 'uint16'], [Int32Array, 'int32'],
  [Uint32Array, 'uint32'], [BigInt64Array, 'int64'], [BigUint64Array, 'uint64'],
]);
// Status codes (include/dmlslice/dmlslice.h) that are a wrong range or size
// rather than a wrong kind of argument.
const RANGE_STATUSES = new Set([12, 14, 20, 30]);
const WASM32_BYTES = 2 ** 32;

let M = null;
let threadedBuild = false;
const MAX_THREADS = 1024;   // the library's limit (dmls_context_create)

function nodeJs() { return typeof process === 'object' && Boolean(process.versions?.node); }

// The module's bytes from beside this file under Node (the glue, built for
// the web, would fetch() a file: URL); browsers and bundlers fetch them
// relative to the glue.
async function wasmBinary(name) {
  if (!nodeJs()) return undefined;
  const {readFile} = await import('node:fs/promises');
  return readFile(new URL(`./dist/${name}`, import.meta.url));
}

function checkThreads(n, what) {
  if (!Number.isInteger(n) || n < 1 || n > MAX_THREADS)
    throw new RangeError(`${what}: threads = ${n} is not a thread count from 1 to ${MAX_THREADS}`);
}

// 'auto': the CPUs the engine reports.
async function autoThreads() {
  if (nodeJs()) {
    const os = await import('node:os');
    return os.availableParallelism?.() ?? os.cpus().length;
  }
  return globalThis.navigator?.hardwareConcurrency ?? 1;
}

/**
 * Loads the module; call (and await) once before anything else.
 * {threads}: 1 or absent, the single-threaded build (the default); n > 1 or
 * 'auto', the threaded build (dist/dmlslice-threads.*: emscripten pthreads,
 * which need SharedArrayBuffer: Node has it, browsers only on a
 * cross-origin isolated page) running the library's pool of n threads.
 */
export async function init(options = {}) {
  const {threads: asked, ...opts} = options;
  let threads = asked === 'auto' ? await autoThreads() : asked ?? 1;
  if (asked === 'auto') threads = Math.min(Math.max(threads, 1), MAX_THREADS);
  checkThreads(threads, 'dmlslice: init');
  if (M) {
    // Once loaded, init() returns the module; a thread count is a
    // setThreads(), which the single-threaded build allows only as 1.
    if (asked !== undefined && threads > 1 && !threadedBuild)
      throw new TypeError(`dmlslice: init: threads = ${threads}, but the single-threaded build is loaded ` +
                          '(one build per page or process: ask for threads at the first init)');
    if (asked !== undefined) setThreads(threads);
    return M;
  }
  if (threads === 1) {
    opts.wasmBinary ??= await wasmBinary('dmlslice.wasm');
    M = await createDmlslice(opts);
    return M;
  }
  if (typeof SharedArrayBuffer !== 'function' || globalThis.crossOriginIsolated === false)
    throw new TypeError(`dmlslice: init: threads = ${threads} needs SharedArrayBuffer, which this page lacks ` +
                        '(serve it cross-origin isolated: Cross-Origin-Opener-Policy: same-origin and ' +
                        'Cross-Origin-Embedder-Policy: require-corp)');
  const {default: create} = await import('./dist/dmlslice-threads.mjs');
  opts.wasmBinary ??= await wasmBinary('dmlslice-threads.wasm');
  // The workers are started with the module, as a worker started later
  // runs only once JavaScript returns to its event loop.
  const m = await create({...opts, dmlsWorkers: threads - 1});
  M = m;
  threadedBuild = true;
  setThreads(threads);
  return M;
}

// Node: the pool's idle workers must not keep the process alive (a library
// loaded is no reason for a program not to end).
function unrefWorkers() {
  const p = M.PThread;
  if (nodeJs() && p) for (const w of [...p.unusedWorkers, ...p.runningWorkers]) w.unref?.();
}

/** Whether the threaded build is loaded. */
export function threaded() { mod(); return threadedBuild; }

/** The threads a copy is cut between (1: the calling thread alone). */
export function threads() { return mod()._dmlsw_threads(); }

/**
 * Sets the threads every later copy is cut between, the calling thread
 * included; returns the count. More than init's count start more workers,
 * which join from the next call on. The single-threaded build has 1.
 */
export function setThreads(n) {
  const m = mod();
  checkThreads(n, 'dmlslice: setThreads');
  if (n > 1 && !threadedBuild)
    throw new RangeError(`dmlslice: setThreads: threads = ${n} in the single-threaded build (load the threaded one ` +
                         'with init({threads}) instead)');
  const got = m._dmlsw_set_threads(n);
  if (!got) throwStatus(m._dmlsw_status(), 'dmlslice: setThreads');
  if (threadedBuild) unrefWorkers();
  return got;
}

function mod() {
  if (!M) throw new Error('dmlslice: call and await init() first');
  return M;
}

// WebNN's builder throws TypeError for every invalid argument; the other
// forms throw RangeError for a value out of range or size.
function throwStatus(status, what) {
  const m = mod();
  const msg = m.UTF8ToString(m._dmls_last_error());
  const rule = m.UTF8ToString(m._dmls_last_error_rule());
  const text = `${msg.startsWith(what) ? '' : `${what}: `}${msg}${rule && !msg.includes(rule) ? ` (${rule})` : ''}`;
  const range = !what.startsWith('WebNN') && RANGE_STATUSES.has(status);
  const err = range ? new RangeError(text) : new TypeError(text);
  err.status = status;
  err.rule = rule;
  throw err;
}

/** The dtype name of a tensor: its dtype field, else its array's kind. */
export function dtypeOf(t) {
  const have = kindOf(t.data);
  const name = t.dtype ?? (t.data instanceof HeapArray ? t.data.dtype : KIND_DTYPE.get(have));
  if (!name || !(name in DTYPES)) throw new TypeError(`dmlslice: unknown dtype ${String(t.dtype ?? have?.name)}`);
  const kind = DTYPES[name][2];
  if (have !== kind && !(name === 'uint8' && have === Uint8ClampedArray))
    throw new TypeError(`dmlslice: dtype ${name} is carried in a ${kind.name}, not a ${have?.name}`);
  return name;
}

function checkShape(shape, what) {
  if (!Array.isArray(shape)) throw new TypeError(`${what}: shape must be an array of sizes`);
  shape.forEach((d, i) => {
    if (!Number.isSafeInteger(d) || d < 0) throw new TypeError(`${what}: shape[${i}] = ${d} is not a size`);
  });
}

// A scratch area on the module's heap, freed by the caller's finally.
class Scratch {
  constructor() { this.ptrs = []; }
  alloc(bytes, alignment = 8) {
    const p = mod()._malloc(Math.max(bytes, 8) + alignment - 8);
    if (!p) throw new RangeError(`dmlslice: out of module memory for ${bytes} bytes`);
    this.ptrs.push(p);
    return Math.ceil(p / alignment) * alignment;
  }
  // Integers (numbers or BigInts) as int64_t: what does not fit is
  // refused, not wrapped.
  i64(values, what = 'dmlslice') {
    const big = values.map((v, i) => {
      if (typeof v === 'bigint' ? BigInt.asIntN(64, v) !== v : !Number.isSafeInteger(v))
        throw new TypeError(`${what}: value [${i}] = ${v} is not an integer of 64 bits`);
      return BigInt(v);
    });
    const p = this.alloc(values.length * 8);
    new BigInt64Array(mod().HEAPU8.buffer, p, values.length).set(big);
    return p;
  }
  u64(values) { return this.i64(values); }
  free() { for (const p of this.ptrs) mod()._free(p); this.ptrs = []; }
}

// The base alignment of alloc()'s arrays: DirectML's minimum for a bound
// buffer (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, R-X-ALIGN), which also
// suits the SIMD kernels; the module's malloc promises only 8.
const HEAP_ALIGNMENT = 16;

/**
 * An array in the module's own memory (alloc()): a tensor whose data (or
 * out) is one passes into the library without a copy. It holds an address,
 * not a view: the module's memory grows when a later allocation needs more,
 * which replaces its ArrayBuffer and detaches every view of the old one.
 * `array` is a view of the memory as it is now; take it again after any
 * call that may allocate rather than keep it.
 */
export class HeapArray {
  constructor(raw, ptr, length, dtype) {
    Object.assign(this, {raw, ptr, length, dtype, view: null});
  }
  get byteLength() { return this.length * DTYPES[this.dtype][1]; }
  get array() {
    if (!this.ptr) throw new TypeError(`dmlslice: this ${this.dtype} array was freed`);
    const buffer = mod().HEAPU8.buffer;
    if (this.view?.buffer !== buffer) this.view = new DTYPES[this.dtype][2](buffer, this.ptr, this.length);
    return this.view;
  }
  free() {
    if (this.raw) mod()._free(this.raw);
    Object.assign(this, {raw: 0, ptr: 0, view: null});
  }
}

/**
 * `count` elements of `dtype` in the module's own memory, 16-byte aligned
 * (or `alignment`, a power of two): a HeapArray. Release it with free().
 */
export function alloc(dtype, count, {alignment = HEAP_ALIGNMENT} = {}) {
  const [, size, Kind] = DTYPES[dtype] ?? [];
  if (!Kind) throw new TypeError(`dmlslice: unknown dtype ${dtype}`);
  if (!Number.isSafeInteger(count) || count < 0) throw new TypeError(`dmlslice: count = ${count} is not a size`);
  if (!Number.isSafeInteger(alignment) || alignment < 1 || (alignment & (alignment - 1)) !== 0 || alignment > 2 ** 30)
    throw new TypeError(`dmlslice: alignment = ${alignment} is not a power of two up to 2^30`);
  const bytes = count * size;
  if (bytes + alignment >= WASM32_BYTES) throw new RangeError(`dmlslice: ${bytes} bytes exceed wasm32's 4 GiB memory`);
  const raw = mod()._malloc(bytes + alignment);
  if (!raw) throw new RangeError(`dmlslice: out of module memory for ${bytes} bytes`);
  return new HeapArray(raw, Math.ceil(raw / alignment) * alignment, count, dtype);
}

/** Releases an array made by alloc(). */
export function free(array) {
  if (!(array instanceof HeapArray)) throw new TypeError('dmlslice: free() takes an array made by alloc()');
  array.free();
}

// The element kind of a tensor's data: its TypedArray's, or a HeapArray's.
function kindOf(data) {
  return data instanceof HeapArray ? DTYPES[data.dtype][2] : data?.constructor;
}

// The input's bytes in the module: a pointer and a byte count. Strided
// tensors bring every byte up to their last element.
function bindInput(t, scratch) {
  if (t.data instanceof HeapArray) return [t.data.array.byteOffset, t.data.byteLength];
  // Any other array, even a view of the module's memory (which an
  // allocation below could detach), is copied in.
  const bytes = t.data.byteLength;
  if (bytes >= WASM32_BYTES) throw new RangeError(`dmlslice: the input holds ${bytes} bytes; wasm32's memory is 4 GiB`);
  const p = scratch.alloc(bytes);
  mod().HEAPU8.set(new Uint8Array(t.data.buffer, t.data.byteOffset, bytes), p);
  return [p, bytes];
}

function count(shape) { return shape.reduce((a, b) => a * b, 1); }

// Runs op on t, into out (a TypedArray of the input's kind) or a new array.
function runOp(op, t, dtype, shape, out, reference, what) {
  const m = mod(), scratch = new Scratch();
  try {
    const [size, Kind] = [DTYPES[dtype][1], DTYPES[dtype][2]];
    const outBytes = m._dmlsw_output_bytes(op);
    if (outBytes >= WASM32_BYTES) throw new RangeError(`${what}: the result holds ${outBytes} bytes; wasm32's memory is 4 GiB`);
    const [pin, inBytes] = bindInput(t, scratch);
    const n = count(shape);
    let result = out;
    if (result && kindOf(result) !== kindOf(t.data)) throw new TypeError(`${what}: out must hold ${kindOf(t.data).name} elements`);
    if (result && result.length < n) throw new RangeError(`${what}: out holds ${result.length} elements; the result has ${n}`);
    const direct = result instanceof HeapArray;
    const pout = direct ? result.array.byteOffset : scratch.alloc(outBytes);
    const status = m._dmlsw_execute(op, pin, inBytes, pout, outBytes, reference ? 1 : 0);
    if (status !== 0) throwStatus(status, what);
    if (!result) result = new Kind(n);
    if (!direct) new Uint8Array(result.buffer, result.byteOffset, n * size).set(m.HEAPU8.subarray(pout, pout + n * size));
    return t.dtype ? {data: result, shape, dtype: t.dtype} : {data: result, shape};
  } finally {
    scratch.free();
  }
}

function inputStrides(t, what, scratch) {
  if (t.strides == null) return 0;
  if (!Array.isArray(t.strides) || t.strides.length !== t.shape.length)
    throw new TypeError(`${what}: strides must hold one element stride per axis (${t.shape.length})`);
  return scratch.i64(t.strides);
}

function unsignedList(values, name, what, rule) {
  if (!Array.isArray(values)) throw new TypeError(`${what}: ${name} must be an array`);
  values.forEach((v, i) => {
    if (!Number.isSafeInteger(v) || v < 0)
      throw new TypeError(`${what}: ${name}[${i}] = ${v} is not an unsigned integer (${rule})`);
  });
}

/**
 * A planned slice: the front end's lowering and the operator, made once and
 * run on any number of tensors of the same shape, strides and dtype.
 */
export class Planned {
  constructor(op, dtype, shape, what) { Object.assign(this, {op, dtype, shape, what}); }
  run(t, {out, reference} = {}) {
    if (!this.op) throw new TypeError(`${this.what}: the plan was released`);
    if (dtypeOf(t) !== this.dtype) throw new TypeError(`${this.what}: planned for ${this.dtype}, given ${dtypeOf(t)}`);
    return runOp(this.op, t, this.dtype, this.shape, out, reference, this.what);
  }
  free() { if (this.op) mod()._dmls_destroy(this.op); this.op = 0; }
}

// A lowering (fn fills a dmls_lowered) and its operator over t.
function planLowered(t, what, lower) {
  const m = mod(), scratch = new Scratch();
  checkShape(t.shape, what);
  const dtype = dtypeOf(t);
  try {
    const shape = scratch.i64(t.shape);
    const lw = scratch.alloc(m._dmlsw_layout(0));
    const status = lower(shape, lw, scratch);
    if (status !== 0) throwStatus(status, what);
    const op = m._dmlsw_create_lowered(DTYPES[dtype][0], lw, shape, inputStrides(t, what, scratch));
    if (!op) throwStatus(m._dmlsw_status(), what);
    const rank = m.HEAP32[(lw + m._dmlsw_layout(1)) >> 2];
    const fs = new BigInt64Array(m.HEAPU8.buffer, lw + m._dmlsw_layout(2), rank);
    return new Planned(op, dtype, Array.from(fs, Number), what);
  } finally {
    scratch.free();
  }
}

function once(plan, t, opts) {
  try { return plan.run(t, opts); } finally { plan.free(); }
}

/** Plans WebNN's slice(input, starts, sizes, {strides}). */
export function planSlice(t, starts, sizes, {strides} = {}) {
  const what = 'WebNN slice';
  unsignedList(starts, 'starts', what, 'WebNN slice: starts are unsigned');
  unsignedList(sizes, 'sizes', what, 'WebNN slice: sizes are unsigned');
  if (strides !== undefined) unsignedList(strides, 'strides', what, 'WebNN slice: strides are unsigned');
  return planLowered(t, what, (shape, lw, s) => mod()._dmls_lower_webnn_slice(
    t.shape.length, shape, s.u64(starts), starts.length, s.u64(sizes), sizes.length,
    strides === undefined ? 0 : s.u64(strides), strides === undefined ? 0 : strides.length, lw));
}
export function slice(t, starts, sizes, options = {}) { return once(planSlice(t, starts, sizes, options), t, options); }

/** Plans WebNN's reverse(input, {axes}). */
export function planReverse(t, {axes} = {}) {
  const what = 'WebNN reverse';
  if (axes !== undefined) unsignedList(axes, 'axes', what, 'WebNN reverse: axes are unsigned');
  return planLowered(t, what, (shape, lw, s) => mod()._dmls_lower_webnn_reverse(
    t.shape.length, shape, axes === undefined ? 0 : s.u64(axes), axes === undefined ? 0 : axes.length, lw));
}
export function reverse(t, options = {}) { return once(planReverse(t, options), t, options); }

/** Plans a NumPy basic index, e.g. "[1:3, ::-1, None]". */
export function planIndex(t, expr) {
  const m = mod();
  if (typeof expr !== 'string') throw new TypeError('NumPy index: the index must be a string');
  return planLowered(t, 'NumPy index', (shape, lw, s) => {
    const p = s.alloc(m.lengthBytesUTF8(expr) + 1);
    m.stringToUTF8(expr, p, m.lengthBytesUTF8(expr) + 1);
    return m._dmls_lower_numpy(t.shape.length, shape, p, lw);
  });
}
export function index(t, expr, options = {}) { return once(planIndex(t, expr), t, options); }

/** Plans ONNX Slice: starts, ends, and optional axes and steps (numbers or BigInts). */
export function planOnnxSlice(t, starts, ends, axes, steps) {
  if (starts?.length !== ends?.length) throw new TypeError(`ONNX Slice: starts has ${starts?.length} values, ends ${ends?.length}`);
  return planLowered(t, 'ONNX Slice', (shape, lw, s) => mod()._dmls_lower_onnx(
    t.shape.length, shape, s.i64(starts), s.i64(ends), starts.length, axes ? s.i64(axes) : 0, axes ? axes.length : 0,
    steps ? s.i64(steps) : 0, steps ? steps.length : 0, lw));
}
export function onnxSlice(t, starts, ends, axes, steps, options = {}) {
  return once(planOnnxSlice(t, starts, ends, axes, steps), t, options);
}

// The permuted view of t (a lowering of kind fn) and its copy.
function planPermute(t, perm, what, lower, s64) {
  const m = mod(), scratch = new Scratch();
  checkShape(t.shape, what);
  const dtype = dtypeOf(t);
  try {
    const tr = scratch.alloc(m._dmlsw_layout(3));
    const status = lower(t.shape.length, scratch.i64(t.shape), inputStrides(t, what, scratch),
                         perm ? (s64 ? scratch.i64(perm) : scratch.u64(perm)) : 0, perm ? perm.length : 0, tr);
    if (status !== 0) throwStatus(status, what);
    const op = m._dmlsw_create_transposed(DTYPES[dtype][0], tr);
    if (!op) throwStatus(m._dmlsw_status(), what);
    const shape = Array.from(new BigInt64Array(m.HEAPU8.buffer, tr + m._dmlsw_layout(4), t.shape.length), Number);
    return new Planned(op, dtype, shape, what);
  } finally {
    scratch.free();
  }
}

/** Plans WebNN's transpose(input, {permutation}). */
export function planTranspose(t, {permutation} = {}) {
  const what = 'WebNN transpose';
  if (permutation !== undefined) unsignedList(permutation, 'permutation', what, 'R-PERM');
  return planPermute(t, permutation, what, mod()._dmls_lower_webnn_transpose, false);
}
export function transpose(t, options = {}) { return once(planTranspose(t, options), t, options); }

/** ONNX Transpose (perm may be omitted: the axes reversed). */
export function onnxTranspose(t, perm, options = {}) {
  return once(planPermute(t, perm, 'ONNX Transpose', mod()._dmls_lower_onnx_transpose, true), t, options);
}

/**
 * A planned batch (split, crops): one input, its outputs packed one after
 * another in one output buffer, which run() hands back as one tensor each.
 */
export class PlannedBatch {
  constructor(batch, dtype, shapes, what) { Object.assign(this, {batch, dtype, shapes, what}); }
  run(t) {
    if (!this.batch) throw new TypeError(`${this.what}: the plan was released`);
    if (dtypeOf(t) !== this.dtype) throw new TypeError(`${this.what}: planned for ${this.dtype}, given ${dtypeOf(t)}`);
    const m = mod(), scratch = new Scratch(), [, size, Kind] = DTYPES[this.dtype];
    try {
      const [pin, inBytes] = bindInput(t, scratch);
      const outBytes = m._dmls_batch_output_bytes(this.batch, 0);
      const bytes = Number(outBytes);
      if (bytes >= WASM32_BYTES) throw new RangeError(`${this.what}: the results hold ${bytes} bytes; wasm32's memory is 4 GiB`);
      const pout = scratch.alloc(bytes);
      const status = m._dmlsw_batch_run(this.batch, pin, inBytes, pout, bytes);
      if (status !== 0) throwStatus(status, this.what);
      let at = pout;
      return this.shapes.map((shape) => {
        const n = count(shape), data = new Kind(n);
        new Uint8Array(data.buffer).set(m.HEAPU8.subarray(at, at + n * size));
        at += n * size;
        return t.dtype ? {data, shape, dtype: t.dtype} : {data, shape};
      });
    } finally {
      scratch.free();
    }
  }
  free() { if (this.batch) mod()._dmls_batch_destroy(this.batch); this.batch = 0; }
}

// WebNN split's sizes along the axis: a count that divides the axis, or
// sizes >= 1 that sum to it (the WebNN specification's validation steps).
function webnnSplitSizes(t, splits, axis, what) {
  const rank = t.shape.length;
  if (!Number.isSafeInteger(axis) || axis < 0 || axis >= rank)
    throw new TypeError(`${what}: axis = ${axis} is outside [0, ${rank - 1}] for an input of rank ${rank} (WebNN split: axis < rank)`);
  const d = t.shape[axis];
  if (typeof splits === 'number') {
    if (!Number.isSafeInteger(splits) || splits < 1 || d % splits !== 0)
      throw new TypeError(`${what}: splits = ${splits} does not divide axis ${axis} of size ${d} (WebNN split: splits divides the axis)`);
    return new Array(splits).fill(d / splits);
  }
  unsignedList(splits, 'splits', what, 'WebNN split: splits are unsigned');
  splits.forEach((v, i) => {
    if (v === 0) throw new TypeError(`${what}: splits[${i}] = 0 (WebNN split: each split is at least 1)`);
  });
  const sum = splits.reduce((a, b) => a + b, 0);
  if (sum !== d) throw new TypeError(`${what}: splits sum to ${sum}, axis ${axis} has size ${d} (WebNN split: splits sum to the axis)`);
  return splits;
}

function planSplitSizes(t, sizes, axis, what) {
  const m = mod(), scratch = new Scratch();
  checkShape(t.shape, what);
  const dtype = dtypeOf(t);
  try {
    const b = m._dmlsw_split(DTYPES[dtype][0], t.shape.length, scratch.i64(t.shape), inputStrides(t, what, scratch),
                             axis, scratch.i64(sizes), sizes.length);
    if (!b) throwStatus(m._dmlsw_status(), what);
    const a = axis < 0 ? axis + t.shape.length : axis;
    return new PlannedBatch(b, dtype, sizes.map((s) => t.shape.map((d, i) => (i === a ? Number(s) : d))), what);
  } finally {
    scratch.free();
  }
}

/** Plans WebNN's split(input, splits, {axis}). */
export function planSplit(t, splits, {axis = 0} = {}) {
  const what = 'WebNN split';
  checkShape(t.shape, what);
  return planSplitSizes(t, webnnSplitSizes(t, splits, axis, what), axis, what);
}
export function split(t, splits, options = {}) {
  const p = planSplit(t, splits, options);
  try { return p.run(t); } finally { p.free(); }
}

/** ONNX Split: explicit sizes along axis (negative counts from the back). */
export function onnxSplit(t, sizes, {axis = 0} = {}) {
  const p = planSplitSizes(t, sizes, axis, 'ONNX Split');
  try { return p.run(t); } finally { p.free(); }
}

/** Plans crops: starts is an array of rows (one start per axis), size the window. */
export function planCrops(t, starts, size) {
  const m = mod(), scratch = new Scratch(), what = 'crops';
  checkShape(t.shape, what);
  const dtype = dtypeOf(t);
  try {
    const flat = starts.flat();
    const b = m._dmlsw_crops(DTYPES[dtype][0], t.shape.length, scratch.i64(t.shape), inputStrides(t, what, scratch),
                             scratch.i64(size), scratch.i64(flat), starts.length);
    if (!b) throwStatus(m._dmlsw_status(), what);
    return new PlannedBatch(b, dtype, [[starts.length, ...size]], what);
  } finally {
    scratch.free();
  }
}
export function crops(t, starts, size) {
  const p = planCrops(t, starts, size);
  try { return p.run(t)[0]; } finally { p.free(); }
}

// DirectML's slice operators, their descriptors as plain objects with
// DirectML's field names. The library validates them (dmls_create_dml_lists):
// the JavaScript only reads the objects into its list form.
const DML_OPS = {
  SLICE: [60, 'InputTensor', 'OutputTensor', 'Offsets', 'Sizes', 'Strides'],
  SLICE1: [111, 'InputTensor', 'OutputTensor', 'InputWindowOffsets', 'InputWindowSizes', 'InputWindowStrides'],
  SLICE_GRAD: [135, 'InputGradientTensor', 'OutputGradientTensor', 'InputWindowOffsets', 'InputWindowSizes',
    'InputWindowStrides'],
};
const DML_TENSOR_FIELDS = ['DataType', 'DimensionCount', 'Sizes', 'Strides', 'TotalTensorSizeInBytes',
  'GuaranteedBaseOffsetAlignment'];

function dmlList(desc, field, what) {
  const v = desc[field];
  if (!Array.isArray(v)) throw new TypeError(`${what}: ${field} must be an array of integers (R-OP-NULL)`);
  return v;
}

function onlyFields(obj, allowed, what) {
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) throw new TypeError(`${what}: unknown field ${k}`);
}

// A DataType: DirectML's name, with or without DML_TENSOR_DATA_TYPE_, or
// its value (which the library judges).
function dmlDataType(v, what) {
  if (Number.isSafeInteger(v)) return v;
  const name = typeof v === 'string' ? v.replace(/^DML_TENSOR_DATA_TYPE_/, '').toLowerCase() : '';
  if (!(name in DTYPES)) throw new TypeError(`${what}: DataType ${String(v)} is not one of ${Object.keys(DTYPES).map((k) => k.toUpperCase()).join(', ')}`);
  return DTYPES[name][0];
}

// A tensor's record for the glue (tensor_lists in js/src/glue.c).
function dmlTensor(t, what, scratch) {
  onlyFields(t, DML_TENSOR_FIELDS, what);
  const sizes = dmlList(t, 'Sizes', what), n = t.DimensionCount ?? sizes.length;
  if (n !== sizes.length) throw new TypeError(`${what}: DimensionCount = ${n} but Sizes holds ${sizes.length} values`);
  if (t.Strides != null && dmlList(t, 'Strides', what).length !== n)
    throw new TypeError(`${what}: DimensionCount = ${n} but Strides holds ${t.Strides.length} values`);
  const rec = [n, scratch.i64(sizes, `${what}.Sizes`), t.Strides == null ? 0 : scratch.i64(t.Strides, `${what}.Strides`),
    t.TotalTensorSizeInBytes ?? 0, t.GuaranteedBaseOffsetAlignment ?? 0];
  return scratch.i64(rec, what);
}

// The feature level an option names (text as DirectML writes it, "4_1",
// or a DML_FEATURE_LEVEL value); the latest when absent.
function dmlLevel(level) {
  const m = mod();
  if (level === undefined) return m._dmls_feature_level_at(m._dmls_feature_level_count() - 1);
  if (Number.isSafeInteger(level)) return level;
  if (typeof level !== 'string') throw new TypeError(`DirectML: featureLevel ${String(level)} is not a level's name or value`);
  const scratch = new Scratch();
  try {
    const p = scratch.alloc(m.lengthBytesUTF8(level) + 1);
    m.stringToUTF8(level, p, m.lengthBytesUTF8(level) + 1);
    const v = m._dmlsw_feature_level(p);
    if (!v) throwStatus(m._dmlsw_status(), 'DirectML');
    return v;
  } finally {
    scratch.free();
  }
}

// The operator the descriptor describes, and its type's name.
function createDml(desc, featureLevel) {
  const m = mod(), scratch = new Scratch();
  if (desc === null || typeof desc !== 'object') throw new TypeError('DirectML: the descriptor must be an object');
  const entry = DML_OPS[desc.Type];
  if (!entry) throw new TypeError(`DirectML: Type ${String(desc.Type)} is not one of ${Object.keys(DML_OPS).join(', ')}`);
  const [type, inName, outName, ...lists] = entry, what = desc.Type;
  onlyFields(desc, ['Type', 'DimensionCount', inName, outName, ...lists], what);
  const level = dmlLevel(featureLevel);
  try {
    for (const f of [inName, outName])
      if (desc[f] === null || typeof desc[f] !== 'object') throw new TypeError(`${what}: ${f} is missing (R-OP-NULL)`);
    const [din, dout] = [desc[inName].DataType, desc[outName].DataType];
    const dt = dmlDataType(din, `${what}: ${inName}`);
    // The list form carries one data type for both tensors.
    if (dmlDataType(dout, `${what}: ${outName}`) !== dt)
      throw new TypeError(`${what}: ${inName}.DataType ${din} and ${outName}.DataType ${dout} differ (R-OP-TYPE)`);
    const vals = lists.map((f) => dmlList(desc, f, what)), n = desc.DimensionCount ?? vals[0].length;
    lists.forEach((f, i) => {
      if (vals[i].length !== n) throw new TypeError(`${what}: DimensionCount = ${n} but ${f} holds ${vals[i].length} values`);
    });
    const op = m._dmlsw_create_dml(type, dt, dmlTensor(desc[inName], `${what}: ${inName}`, scratch),
      dmlTensor(desc[outName], `${what}: ${outName}`, scratch), n,
      ...lists.map((f, i) => scratch.i64(vals[i], `${what}: ${f}`)), level);
    if (!op) throwStatus(m._dmlsw_status(), what);
    // Where run() places a buffer: at the alignment its tensor promises.
    const align = (t) => Math.max(16, 2 ** Math.ceil(Math.log2(Number(t.GuaranteedBaseOffsetAlignment ?? 0) || 1)));
    return [op, what, dt, [align(desc[inName]), align(desc[outName])]];
  } finally {
    scratch.free();
  }
}

function dmlShape(op) {
  const m = mod(), scratch = new Scratch();
  try {
    const rank = m._dmls_output_rank(op), p = scratch.alloc(rank * 8);
    m._dmls_output_shape(op, p);
    return Array.from(new BigInt64Array(m.HEAPU8.buffer, p, rank), Number);
  } finally {
    scratch.free();
  }
}

/**
 * A planned DirectML operator: run(input) binds a buffer of the input
 * tensor's TotalTensorSizeInBytes and returns the output buffer (the
 * output gradient for SLICE_GRAD) as a tensor of the output's sizes.
 */
export class PlannedDml {
  constructor(op, what, dt, alignment) {
    const m = mod(), dtype = Object.keys(DTYPES).find((k) => DTYPES[k][0] === dt);
    Object.assign(this, {op, what, dtype, alignment, shape: dmlShape(op), inputBytes: m._dmlsw_input_bytes(op),
                         outputBytes: m._dmlsw_output_bytes(op)});
  }
  run(input, {out, reference} = {}) {
    if (!this.op) throw new TypeError(`${this.what}: the plan was released`);
    const m = mod(), scratch = new Scratch(), [, size, Kind] = DTYPES[this.dtype];
    const heap = (a) => a instanceof HeapArray;
    if (!heap(input) && !ArrayBuffer.isView(input)) throw new TypeError(`${this.what}: the input must be a TypedArray or a HeapArray`);
    if (out && kindOf(out) !== Kind) throw new TypeError(`${this.what}: out must hold ${Kind.name} elements`);
    try {
      // DirectML's buffers are 16-byte aligned (R-X-ALIGN); only the output's
      // elements are written, so a caller's out keeps what lies between them.
      const pin = heap(input) ? input.array.byteOffset : scratch.alloc(input.byteLength, this.alignment[0]);
      if (!heap(input)) m.HEAPU8.set(new Uint8Array(input.buffer, input.byteOffset, input.byteLength), pin);
      const inBytes = input.byteLength;
      const outBytes = out ? out.byteLength : this.outputBytes;
      const pout = out && heap(out) ? out.array.byteOffset : scratch.alloc(outBytes, this.alignment[1]);
      if (!out) m.HEAPU8.fill(0, pout, pout + outBytes);
      else if (!heap(out)) m.HEAPU8.set(new Uint8Array(out.buffer, out.byteOffset, outBytes), pout);
      const status = m._dmlsw_execute(this.op, pin, inBytes, pout, outBytes, reference ? 1 : 0);
      if (status !== 0) throwStatus(status, this.what);
      const data = out ?? new Kind(Math.floor(outBytes / size));
      if (!heap(data)) new Uint8Array(data.buffer, data.byteOffset, data.byteLength).set(m.HEAPU8.subarray(pout, pout + data.byteLength));
      return {data, shape: this.shape, dtype: this.dtype};
    } finally {
      scratch.free();
    }
  }
  free() { if (this.op) mod()._dmls_destroy(this.op); this.op = 0; }
}

/**
 * Plans a DirectML SLICE, SLICE1 or SLICE_GRAD descriptor (a plain object:
 * {Type, InputTensor, OutputTensor, InputWindowOffsets, ...}) at
 * featureLevel ("4_1"; the latest when absent), as DirectML accepts or
 * refuses it.
 */
export function planDml(desc, {featureLevel} = {}) {
  return new PlannedDml(...createDml(desc, featureLevel));
}

/** Would DirectML accept the descriptor? Its output's sizes, or the error naming the rule. */
export function checkDml(desc, options = {}) {
  const p = planDml(desc, options);
  try { return p.shape; } finally { p.free(); }
}

/** Plans, runs on input (a buffer of the input tensor) and releases. */
export function sliceDml(desc, input, {featureLevel, out, reference} = {}) {
  const p = planDml(desc, {featureLevel});
  try { return p.run(input, {out, reference}); } finally { p.free(); }
}
