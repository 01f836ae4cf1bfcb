// WebNN's slice, reverse, transpose and split: cases written from the WebNN
// specification and the behaviour its web-platform tests expect (iota
// inputs, results worked out by hand), and its validation: every invalid
// argument is a TypeError naming what was wrong.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {iota, load, plain} from './helpers.mjs';

const d = await load();

function expect(result, shape, values) {
  assert.deepEqual(result.shape, shape);
  assert.deepEqual(plain(result.data), values);
}

test('slice: WebNN slice cases', () => {
  expect(d.slice(iota([24]), [12], [12]), [12], [12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]);
  expect(d.slice(iota([4, 6]), [2, 2], [2, 3]), [2, 3], [14, 15, 16, 20, 21, 22]);
  expect(d.slice(iota([3, 4, 2]), [1, 1, 0], [2, 2, 2]), [2, 2, 2], [10, 11, 12, 13, 18, 19, 20, 21]);
  expect(d.slice({data: new Float32Array([7.5]), shape: []}, [], []), [], [7.5]);
});

test('slice: strides, the output size is ceil(size / stride)', () => {
  expect(d.slice(iota([4, 6]), [0, 1], [4, 5], {strides: [2, 2]}), [2, 3], [1, 3, 5, 13, 15, 17]);
  expect(d.slice(iota([10]), [1], [8], {strides: [3]}), [3], [1, 4, 7]);
});

test('reverse: every axis by default, the named ones, none for []', () => {
  expect(d.reverse(iota([2, 3])), [2, 3], [5, 4, 3, 2, 1, 0]);
  expect(d.reverse(iota([2, 3]), {axes: [0]}), [2, 3], [3, 4, 5, 0, 1, 2]);
  expect(d.reverse(iota([2, 3]), {axes: []}), [2, 3], [0, 1, 2, 3, 4, 5]);
  expect(d.reverse(iota([2, 2, 3]), {axes: [1, 2]}), [2, 2, 3], [5, 4, 3, 2, 1, 0, 11, 10, 9, 8, 7, 6]);
});

test('transpose: the axes reversed by default, or the permutation', () => {
  expect(d.transpose(iota([2, 3])), [3, 2], [0, 3, 1, 4, 2, 5]);
  const r = d.transpose(iota([2, 3, 4]), {permutation: [1, 2, 0]});
  assert.deepEqual(r.shape, [3, 4, 2]);
  assert.deepEqual(plain(r.data).slice(0, 8), [0, 12, 1, 13, 2, 14, 3, 15]);
  expect(d.transpose({data: new Int32Array([3]), shape: []}, {permutation: []}), [], [3]);
});

test('split: a count that divides the axis, or sizes that sum to it', () => {
  const parts = d.split(iota([6]), 3);
  assert.deepEqual(parts.map((p) => plain(p.data)), [[0, 1], [2, 3], [4, 5]]);
  const sized = d.split(iota([2, 6]), [1, 2, 3], {axis: 1});
  assert.deepEqual(sized.map((p) => p.shape), [[2, 1], [2, 2], [2, 3]]);
  assert.deepEqual(sized.map((p) => plain(p.data)), [[0, 6], [1, 2, 7, 8], [3, 4, 5, 9, 10, 11]]);
  assert.deepEqual(d.split(iota([4, 2]), 2).map((p) => plain(p.data)), [[0, 1, 2, 3], [4, 5, 6, 7]]);
});

// Each invalid call: a TypeError whose message holds the given pieces.
function rejects(fn, ...pieces) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof TypeError, `${e.constructor.name}: ${e.message}`);
    for (const p of pieces) assert.ok(e.message.includes(p), `"${e.message}" lacks "${p}"`);
    return true;
  });
}

test('slice: WebNN validation', () => {
  const x = iota([4, 6]);
  rejects(() => d.slice(x, [0], [1, 1]), 'starts');
  rejects(() => d.slice(x, [0, 0], [1]), 'sizes');
  rejects(() => d.slice(x, [0, 0], [1, 0]), 'sizes[1]');
  rejects(() => d.slice(x, [0, 0], [2, 2], {strides: [1, 0]}), 'strides[1]');
  rejects(() => d.slice(x, [4, 0], [1, 1]), 'starts[0] = 4');
  rejects(() => d.slice(x, [0, 3], [1, 4]), 'sizes[1]');
  rejects(() => d.slice(x, [0, 0], [2, 2], {strides: [3, 1]}), 'strides[0] = 3');
  rejects(() => d.slice(x, [-1, 0], [1, 1]), 'starts[0] = -1', 'unsigned');
  rejects(() => d.slice(x, [0.5, 0], [1, 1]), 'starts[0] = 0.5');
});

test('reverse, transpose, split: WebNN validation and R-PERM', () => {
  const x = iota([2, 3]);
  rejects(() => d.reverse(x, {axes: [2]}), 'axes[0] = 2');
  rejects(() => d.reverse(x, {axes: [1, 1]}), 'axes[1] = 1');
  for (const permutation of [[0], [0, 2], [1, 1]]) {
    assert.throws(() => d.transpose(x, {permutation}), (e) => e instanceof TypeError && e.rule === 'R-PERM' &&
      e.message.includes('R-PERM') && e.message.startsWith('WebNN transpose'));
  }
  rejects(() => d.split(x, 4, {axis: 1}), 'splits = 4', 'size 3');
  rejects(() => d.split(x, [1, 1], {axis: 1}), 'sum to 2', 'size 3');
  rejects(() => d.split(x, [0, 3], {axis: 1}), 'splits[0] = 0');
  rejects(() => d.split(x, 1, {axis: 2}), 'axis = 2');
});
