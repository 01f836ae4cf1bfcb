// The adapter over the library: every dtype, random slices of random
// layouts against the library's reference executor (compiled into the same
// module), NumPy and ONNX forms, planned reuse, the module's heap, and the
// refusal of what wasm32 cannot hold.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {DTYPES, iota, load, plain, rng} from './helpers.mjs';

const d = await load();
// An array's bytes, for comparisons that NaNs' bit patterns must not fool.
const raw = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

test('every dtype: the result is a new array of the input kind', () => {
  for (const dtype of Object.keys(DTYPES)) {
    const r = d.reverse(iota([2, 5], dtype), {axes: [1]});
    assert.ok(r.data instanceof DTYPES[dtype], dtype);
    assert.equal(r.dtype, dtype === 'float16' ? 'float16' : undefined);
    assert.deepEqual(plain(r.data), [4, 3, 2, 1, 0, 9, 8, 7, 6, 5], dtype);
    const s = d.slice(iota([3, 4], dtype), [1, 1], [2, 3], {strides: [1, 2]});
    assert.deepEqual(plain(s.data), [5, 7, 9, 11], dtype);
  }
  const clamped = d.transpose({data: new Uint8ClampedArray([1, 2, 3, 4, 5, 6]), shape: [2, 3]});
  assert.deepEqual(plain(clamped.data), [1, 4, 2, 5, 3, 6]);
});

test('a dtype that disagrees with the array kind is refused', () => {
  assert.throws(() => d.reverse({data: new Float32Array(2), shape: [2], dtype: 'float16'}), /float16 is carried in a Uint16Array/);
  assert.throws(() => d.reverse({data: [1, 2], shape: [2]}), /unknown dtype/);
});

// A random layout: shape, element strides (any sign, with a byte offset
// folded into the data's start), and a random NumPy index over it.
function randomCase(r) {
  const rank = 1 + r(4), shape = [], key = [];
  for (let i = 0; i < rank; i++) shape.push(1 + r(6));
  for (const dim of shape) {
    const step = (1 + r(3)) * (r(2) ? -1 : 1), a = r(dim), b = r(dim + 1);
    key.push(r(5) === 0 ? String(a) : `${a}:${b}:${step}`);
  }
  return {shape, expr: `[${key.join(', ')}]`};
}

test('random NumPy indexes: dmls_execute equals the reference executor', () => {
  const r = rng(37), names = Object.keys(DTYPES);
  for (let n = 0; n < 200; n++) {
    const {shape, expr} = randomCase(r);
    const x = iota(shape, names[n % names.length]);
    const plan = d.planIndex(x, expr);
    try {
      const fast = plan.run(x), ref = plan.run(x, {reference: true});
      assert.deepEqual(fast.shape, ref.shape, expr);
      assert.deepEqual(plain(fast.data), plain(ref.data), `${expr} over [${shape}]`);
    } finally {
      plan.free();
    }
  }
});

test('strided inputs: element strides, transposed and sliced', () => {
  // A [3, 2] view of a [2, 3] buffer read column-major.
  const x = {data: new Int16Array([0, 1, 2, 3, 4, 5]), shape: [3, 2], strides: [1, 3]};
  assert.deepEqual(plain(d.slice(x, [1, 0], [2, 2]).data), [1, 4, 2, 5]);
  assert.deepEqual(plain(d.transpose(x).data), [0, 1, 2, 3, 4, 5]);
});

test('NumPy index strings, ONNX Slice, ONNX Transpose and Split, crops', () => {
  const x = iota([2, 3, 4]);
  const r = d.index(x, '[1, ::-1, None, 1:3]');
  assert.deepEqual(r.shape, [3, 1, 2]);
  assert.deepEqual(plain(r.data), [21, 22, 17, 18, 13, 14]);
  assert.throws(() => d.index(x, '[1:2:0]'), TypeError);
  const o = d.onnxSlice(x, [-1, 0], [-1000, 4], [2, 0], [-2, 1]);
  assert.deepEqual(o.shape, [2, 3, 2]);
  assert.deepEqual(plain(o.data).slice(0, 4), [3, 1, 7, 5]);
  assert.deepEqual(d.onnxTranspose(x, [2, 0, 1]).shape, [4, 2, 3]);
  assert.deepEqual(d.onnxSplit(x, [1, 3], {axis: -1}).map((p) => p.shape), [[2, 3, 1], [2, 3, 3]]);
  const c = d.crops(x, [[0, 0, 0], [1, 1, 1]], [1, 2, 2]);
  assert.deepEqual(c.shape, [2, 1, 2, 2]);
  assert.deepEqual(plain(c.data), [0, 1, 4, 5, 17, 18, 21, 22]);
  assert.throws(() => d.crops(x, [[1, 2, 3]], [1, 2, 2]), (e) => e instanceof RangeError && /R-CROP-BOUNDS/.test(e.message));
});

test('planned reuse: one plan, many inputs, the caller\'s out, the module\'s heap', () => {
  const plan = d.planSlice(iota([4, 4]), [1, 0], [2, 4], {strides: [1, 2]});
  try {
    const a = iota([4, 4]), b = {data: a.data.map((v) => -v), shape: [4, 4]};
    assert.deepEqual(plain(plan.run(a).data), [4, 6, 8, 10]);
    const out = new Float32Array(4);
    assert.equal(plan.run(b, {out}).data, out);
    assert.deepEqual(plain(out), [-4, -6, -8, -10]);
    // Input and output in the module's memory: no copy either way.
    const hin = d.alloc('float32', 16), hout = d.alloc('float32', 4);
    hin.array.set(a.data);
    assert.equal(plan.run({data: hin, shape: [4, 4]}, {out: hout}).data, hout);
    assert.deepEqual(plain(hout.array), [4, 6, 8, 10]);
    d.free(hin);
    d.free(hout);
    assert.throws(() => hin.array, /freed/);
    assert.throws(() => plan.run({data: new Int32Array(16), shape: [4, 4]}), /planned for float32/);
    assert.throws(() => plan.run(a, {out: new Float32Array(3)}), RangeError);
  } finally {
    plan.free();
  }
  assert.throws(() => plan.run(iota([4, 4])), /released/);
});

// The module's memory grows (a new ArrayBuffer, the old one detached) when
// an allocation needs more than it holds: arrays from alloc() must still
// work as inputs, outputs and views afterwards.
test('heap arrays outlive the module memory growing between alloc and use', async () => {
  const m = await d.init();
  const hin = d.alloc('int32', 16), hout = d.alloc('int32', 8);
  hin.array.set(iota([4, 4], 'int32').data);
  const before = m.HEAPU8.buffer;
  const big = d.alloc('uint8', 2 * before.byteLength);
  try {
    assert.notEqual(m.HEAPU8.buffer, before, 'the memory grew');
    assert.equal(before.byteLength, 0, 'the old buffer is detached');
    const r = d.slice({data: hin, shape: [4, 4]}, [0, 1], [4, 3], {strides: [1, 2], out: hout});
    assert.equal(r.data, hout);
    assert.deepEqual(plain(hout.array), [1, 3, 5, 7, 9, 11, 13, 15]);
    assert.equal(hin.array.byteOffset % 16, 0);
  } finally {
    d.free(big);
    d.free(hin);
    d.free(hout);
  }
});

test('nothing over wasm32\'s 4 GiB: refused with the figure', () => {
  // 2^31 x 4 float32 elements read through zero strides: a 32 GiB result.
  const x = {data: new Float32Array(1), shape: [2 ** 31, 4], strides: [0, 0]};
  assert.throws(() => d.reverse(x), (e) => e instanceof RangeError && e.message.includes('34359738368 bytes'));
  assert.throws(() => d.alloc('float64', 2 ** 29), (e) => e instanceof RangeError && e.message.includes('4294967296 bytes'));
});

// The cases the SIMD128 kernels take (kernels_wasm_simd128.c): reversed and
// short-step gathers into packed rows of at least 32 bytes, items of 1, 2,
// 4 and 8 bytes, odd lengths for the scalar tails; the portable C path's
// reference executor is the oracle.
test('SIMD128 reversal and gathers equal the reference executor', () => {
  const cases = [];
  for (const dtype of ['int8', 'uint16', 'float32', 'float64']) {
    for (const n of [33, 64, 77, 130]) {
      cases.push([dtype, [3, n], '[:, ::-1]'], [dtype, [2, n], '[::-1, ::-2]'], [dtype, [2, n], '[:, 1::2]'],
                 [dtype, [2, n], '[:, ::3]'], [dtype, [2, n], '[:, ::-3]']);
    }
  }
  // 2 of 3 channels of an image: 2-byte items read every 3 bytes.
  cases.push(['uint8', [5, 40, 3], '[:, :, 0:2]'], ['uint8', [5, 40, 3], '[:, ::-1, 1:]']);
  for (const [dtype, shape, expr] of cases) {
    const x = iota(shape, dtype), plan = d.planIndex(x, expr);
    try {
      assert.deepEqual(plain(plan.run(x).data), plain(plan.run(x, {reference: true}).data), `${dtype} [${shape}] ${expr}`);
    } finally {
      plan.free();
    }
  }
});

// The transposes the tiled kernels take (copy_tiled.h; kernels_wasm_simd128.c
// transposes SIMD128 sub-tiles in registers): items of 1, 2, 4 and 8 bytes,
// sizes around a block of 64 / w items a side (whole blocks and ragged
// edges), rows read forwards and backwards, and more rows than a chunk
// (512), with 2-byte items in a call large enough for the staged 16-column
// strips (300 columns: a stage of 256 and a ragged one), and output rows a
// multiple of 8 KiB apart (2048 float32, 4096 int16 items), whose 2- and
// 4-byte blocks go through a buffer where others are written straight into
// the output, and staged calls of fewer columns than a stage row, whose
// stage goes out as one run; the reference executor is the oracle.
test('SIMD128 tiled transposes equal the reference executor', () => {
  const cases = [];
  for (const [dtype, b] of [['uint8', 64], ['int16', 32], ['float32', 16], ['float64', 8]]) {
    for (const [R, C] of [[b, b], [2 * b + 3, b + 1], [3 * b, 2 * b - 1], [b - 1, 2 * b]]) cases.push([dtype, R, C]);
  }
  cases.push(['float32', 1030, 20], ['uint8', 70, 600], ['int16', 300, 1100], ['float32', 2048, 37], ['int16', 4096, 35]);
  // Staged calls with fewer columns than a stage row (100 channels of int16, RGB's 3 of uint8).
  cases.push(['int16', 100, 700], ['uint8', 3, 30001]);
  for (const [dtype, R, C] of cases) {
    // Random bytes: an iota of small items repeats, which could hide a misplaced one.
    const x = iota([R, C], dtype), bytes = new Uint8Array(x.data.buffer), r = rng(R * C);
    for (let i = 0; i < bytes.length; i++) bytes[i] = r(256);
    for (const expr of ['[:, :]', '[::-1, :]', '[:, ::-1]', '[1:, ::-1]']) {
      // The [C, R] column-major view of x: packing it reads down x's columns.
      const view = {...x, shape: [C, R], strides: [1, C]};
      const plan = d.planIndex(view, expr);
      try {
        assert.deepEqual(plain(plan.run(view).data), plain(plan.run(view, {reference: true}).data), `${dtype} ${R}x${C} ${expr}`);
      } finally {
        plan.free();
      }
    }
  }
});

// Images between planes and pixels (interleave.h; kernels_wasm_simd128.c's
// few-columns gather and deinterleave, each with constant widths and
// channel counts for the common pixels and a general loop for the rest):
// every channel count a 16-byte vector holds for items of 1, 2, 4 and 8
// bytes, pixel counts around a round (16 / w) and four rounds, and planes of
// fewer channels than a pixel holds (fewer rows than the step); random
// bytes, the reference executor the oracle.
test('planes to pixels and back: SIMD128 shuffles equal the reference executor', () => {
  const r = rng(9157);
  for (const dtype of ['uint8', 'int16', 'float32', 'float64']) {
    const w = DTYPES[dtype].BYTES_PER_ELEMENT;
    for (let k = 2; k <= Math.min(8, 16 / w); k++) {
      for (const P of [1, 16 / w - 1, 16 / w + 1, 64 / w, 64 / w + 16 / w + 3, 4099]) {
        const x = iota([2, k, P], dtype), bytes = new Uint8Array(x.data.buffer);
        for (let i = 0; i < bytes.length; i++) bytes[i] = r(256);
        const pixels = {...x, shape: [2, P, k], strides: [k * P, 1, P]}; // the planes seen as pixels
        const planes = {...x, shape: [2, k, P], strides: [k * P, 1, k]}; // the bytes as pixels, seen as planes
        for (const [view, expr] of [[pixels, '[:, :, :]'], [planes, '[:, :, :]'], [planes, '[:, 1:, :]'],
                                    [planes, '[:, :-1, 1:]']]) {
          const plan = d.planIndex(view, expr);
          try {
            assert.ok(raw(plan.run(view).data).equals(raw(plan.run(view, {reference: true}).data)),
                      `${dtype}, ${k} channels, ${P} pixels, strides [${view.strides}] ${expr}`);
          } finally {
            plan.free();
          }
        }
      }
    }
  }
});

// Random shapes for the tiled walk of kernels_wasm_simd128.c (sub-tiles read
// in place; panels, strips, and panels down chunks of 32 rows) and the vector rows of copy_contiguous.c's
// WebAssembly branch: items of 1, 2, 4, 8 and 16 bytes (two float64s folded
// into one item), odd sizes, transposes of both walks (columns under and
// over a panel's span apart) read either way, and crops whose rows run
// 65 bytes to past the vector rows' limit. Random bytes, seed printed; the
// reference executor is the oracle, byte for byte (random float bytes hold NaNs).
test('random transposes and crops: SIMD128 walks equal the reference executor', () => {
  const seed = 4037, r = rng(seed);
  for (const [dtype, pair] of [['uint8', false], ['int16', false], ['float32', false], ['float64', false], ['float64', true]]) {
    const w = DTYPES[dtype].BYTES_PER_ELEMENT * (pair ? 2 : 1);
    for (let k = 0; k < 8; k++) {
      // Columns far apart (over 256 items) take strips; near, panels.
      const R = 1 + r(k % 2 ? 700 : 330), C = 1 + r(k % 2 ? 90 : 1400);
      const x = iota(pair ? [R, C, 2] : [R, C], dtype), bytes = new Uint8Array(x.data.buffer);
      for (let i = 0; i < bytes.length; i++) bytes[i] = r(256);
      const view = pair ? {...x, shape: [C, R, 2], strides: [2, 2 * C, 1]} : {...x, shape: [C, R], strides: [1, C]};
      const rest = pair ? ', :' : '';
      for (const expr of ['[:, :]', '[::-1, :]', '[:, ::-1]', `[${r(C)}:, ${r(R)}::-1]`]) {
        const plan = d.planIndex(view, expr.slice(0, -1) + rest + ']');
        try {
          assert.ok(raw(plan.run(view).data).equals(raw(plan.run(view, {reference: true}).data)),
                    `seed ${seed}: ${w}-byte items, ${R}x${C} transposed, ${expr}`);
        } finally {
          plan.free();
        }
      }
      // Rows of 65 bytes and more, up to past 64 KiB, contiguous on both sides.
      const n = Math.ceil((65 + r(k === 7 ? 70000 : 3000)) / w), rows = 1 + r(5), a = r(7);
      const y = iota(pair ? [rows, n + a + 3, 2] : [rows, n + a + 3], dtype), yb = new Uint8Array(y.data.buffer);
      for (let i = 0; i < yb.length; i++) yb[i] = r(256);
      const crop = `[:, ${a}:${a + n}${rest}]`, plan = d.planIndex(y, crop);
      try {
        assert.ok(raw(plan.run(y).data).equals(raw(plan.run(y, {reference: true}).data)),
                  `seed ${seed}: ${w}-byte items, [${y.shape}] ${crop}`);
      } finally {
        plan.free();
      }
    }
  }
});

// The single-threaded build (the default) has no pool: more threads are
// refused, naming the build to load instead.
test('the single-threaded build refuses more threads', async () => {
  const d = await load();
  assert.equal(d.threaded(), false);
  assert.equal(d.threads(), 1);
  assert.equal(d.setThreads(1), 1);
  assert.throws(() => d.setThreads(2), {name: 'RangeError', message: /single-threaded build.*init\(\{threads\}\)/});
  await assert.rejects(d.init({threads: 2}), /single-threaded build is loaded/);
});
