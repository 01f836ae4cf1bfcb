// DirectML's SLICE, SLICE1 and SLICE_GRAD descriptors as plain objects:
// DirectML's worked cases, the support matrix of docs/spec.md section 4
// across every feature level (the verdicts are the C library's, through
// the module), rule IDs of refused descriptors, and binding.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {iota, load, plain} from './helpers.mjs';

const d = await load();

const T = (DataType, Sizes, extra = {}) => ({DataType, Sizes, ...extra});
const slice1 = (dt = 'FLOAT32', rank = 4) => ({
  Type: 'SLICE1',
  InputTensor: T(dt, [...Array(rank - 2).fill(1), 4, 4]), OutputTensor: T(dt, [...Array(rank - 2).fill(1), 2, 2]),
  InputWindowOffsets: [...Array(rank - 2).fill(0), 0, 1], InputWindowSizes: [...Array(rank - 2).fill(1), 4, 3],
  InputWindowStrides: [...Array(rank - 2).fill(1), -2, 2],
});

test('SLICE, SLICE1 and SLICE_GRAD: the cases worked by hand', () => {
  const x = iota([16]).data;
  // SLICE1: rows 3 and 1 (a negative stride starts at the window's end), columns 1 and 3.
  const r = d.sliceDml(slice1(), x);
  assert.deepEqual(r.shape, [1, 1, 2, 2]);
  assert.deepEqual(plain(r.data), [13, 15, 5, 7]);
  const s = {Type: 'SLICE', InputTensor: T('FLOAT32', [1, 1, 4, 4]), OutputTensor: T('FLOAT32', [1, 1, 2, 2]),
             Offsets: [0, 0, 0, 1], Sizes: [1, 1, 2, 2], Strides: [1, 1, 2, 1]};
  assert.deepEqual(plain(d.sliceDml(s, x).data), [1, 2, 9, 10]);
  // SLICE_GRAD: each gradient element lands where SLICE1 read it, zeros elsewhere.
  const g = {Type: 'SLICE_GRAD', InputGradientTensor: T('INT32', [1, 1, 2, 2]),
             OutputGradientTensor: T('INT32', [1, 1, 4, 4]), InputWindowOffsets: [0, 0, 0, 1],
             InputWindowSizes: [1, 1, 4, 3], InputWindowStrides: [1, 1, -2, 2]};
  const dx = d.sliceDml(g, new Int32Array([1, 2, 3, 4]));
  assert.ok(dx.data instanceof Int32Array);
  assert.deepEqual(plain(dx.data), [0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0, 1, 0, 2]);
});

// docs/spec.md section 4: from which level each operator exists, its ranks
// and its types (R-OP-RANK, R-OP-TYPE).
const LEVELS = ['1_0', '2_0', '2_1', '3_0', '3_1', '4_0', '4_1', '5_0', '5_1', '5_2', '6_0', '6_1', '6_2', '6_3', '6_4'];
const at = (level, from) => LEVELS.indexOf(level) >= LEVELS.indexOf(from);
function accepted(op, level, rank, dt) {
  const since = {SLICE: '1_0', SLICE1: '2_1', SLICE_GRAD: '3_0'}[op];
  if (!at(level, since)) return false;
  const low = op === 'SLICE_GRAD' ? (at(level, '3_1') ? 8 : 4) : at(level, '3_0') ? 8 : 5;
  if (rank > low || (rank < 4 && !at(level, '3_0'))) return false;
  if (['FLOAT64', 'INT64', 'UINT64'].includes(dt)) return at(level, '4_1');
  return !(dt === 'INT8' || dt === 'UINT8') || at(level, '2_1');
}

function descriptor(op, rank, dt) {
  const ones = Array(rank).fill(1), sizes = Array(rank).fill(2);
  if (op === 'SLICE')
    return {Type: op, InputTensor: T(dt, sizes), OutputTensor: T(dt, ones), Offsets: ones, Sizes: ones, Strides: ones};
  const [a, b] = op === 'SLICE1' ? ['InputTensor', 'OutputTensor'] : ['InputGradientTensor', 'OutputGradientTensor'];
  // The window lies over SLICE1's input and SLICE_GRAD's output gradient.
  return {Type: op, [a]: T(dt, op === 'SLICE1' ? sizes : ones), [b]: T(dt, op === 'SLICE1' ? ones : sizes),
          InputWindowOffsets: ones, InputWindowSizes: ones, InputWindowStrides: ones};
}

test('the support matrix at every feature level (R-OP-RANK, R-OP-TYPE)', () => {
  for (const op of ['SLICE', 'SLICE1', 'SLICE_GRAD']) {
    for (const level of LEVELS) {
      for (const [rank, dt] of [[4, 'FLOAT32'], [5, 'UINT16'], [3, 'FLOAT16'], [8, 'INT32'], [4, 'INT8'], [4, 'INT64'], [1, 'FLOAT64']]) {
        const want = accepted(op, level, rank, dt), where = `${op} rank ${rank} ${dt} at ${level}`;
        let got = true;
        try {
          d.checkDml(descriptor(op, rank, dt), {featureLevel: level});
        } catch (e) {
          got = false;
          assert.match(e.message, /R-OP-RANK|R-OP-TYPE|introduced in/, where);
        }
        assert.equal(got, want, where);
      }
    }
  }
});

test('refused descriptors name the field, the values and the rule', () => {
  const bounds = {...slice1(), InputWindowOffsets: [0, 0, 2, 1]};
  assert.throws(() => d.checkDml(bounds), (e) => e instanceof RangeError && e.rule === 'R-WIN-BOUNDS' &&
    e.message.includes('InputWindowOffsets[2] + InputWindowSizes[2] = 2 + 4 = 6'));
  assert.throws(() => d.checkDml({...slice1(), InputWindowStrides: [1, 1, -2, 2 ** 31]}), /InputWindowStrides\[3\] = 2147483648.*R-DML-FIELD/);
  assert.throws(() => d.checkDml({...slice1(), InputWindowStrides: [1, 1, 0, 2]}), /R-WIN-STRIDE/);
  assert.throws(() => d.checkDml({...slice1(), OutputTensor: T('FLOAT32', [1, 1, 2, 2], {TotalTensorSizeInBytes: 8})}), /R-T-TOTAL/);
  assert.throws(() => d.checkDml({...slice1(), OutputTensor: T('FLOAT16', [1, 1, 2, 2])}), /differ \(R-OP-TYPE\)/);
  assert.throws(() => d.checkDml({...slice1(), InputTensor: undefined}), /InputTensor is missing \(R-OP-NULL\)/);
  assert.throws(() => d.checkDml({...slice1(), InputWindowSize: [1]}), /unknown field InputWindowSize/);
  assert.throws(() => d.checkDml({...slice1(), Type: 'SLICE2'}), /Type SLICE2 is not one of SLICE, SLICE1, SLICE_GRAD/);
  assert.throws(() => d.checkDml(slice1(), {featureLevel: '9_9'}), /'9_9' is not a DirectML feature level/);
  assert.throws(() => d.checkDml(slice1(), {featureLevel: 0x2000}), /introduced in 2_1/);
  assert.deepEqual(d.checkDml(slice1('INT64', 6), {featureLevel: '4_1'}), [1, 1, 1, 1, 2, 2]);
});

test('binding: buffers of TotalTensorSizeInBytes, strided outputs keep their padding, the reference executor agrees', () => {
  // The output written every other element: out's elements between are kept.
  const desc = {...slice1('UINT16'), OutputTensor: T('UINT16', [1, 1, 2, 2], {Strides: [8, 8, 4, 2], TotalTensorSizeInBytes: 16})};
  const plan = d.planDml(desc, {featureLevel: '3_0'});
  try {
    assert.equal(plan.inputBytes, 32);
    assert.equal(plan.outputBytes, 16);
    const out = new Uint16Array(8).fill(99), x = iota([16], 'uint16').data;
    assert.equal(plan.run(x, {out}).data, out);
    assert.deepEqual(plain(out), [13, 99, 15, 99, 5, 99, 7, 99]);
    assert.deepEqual(plain(plan.run(x, {reference: true}).data), [13, 0, 15, 0, 5, 0, 7, 0]);
    assert.throws(() => plan.run(new Uint16Array(8)), (e) => e instanceof RangeError && /R-X-BOUNDS/.test(e.message));
    const h = d.alloc('uint16', 16), ho = d.alloc('uint16', 8);
    h.array.set(x);
    plan.run(h, {out: ho});
    assert.deepEqual(plain(ho.array).filter((_, i) => i % 2 === 0), [13, 15, 5, 7]);
    h.free();
    ho.free();
  } finally {
    plan.free();
  }
});
