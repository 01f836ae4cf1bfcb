// The threaded build (dist/dmlslice-threads.mjs, `scripts/build-wasm.sh
// --threads`): the library's own pool on emscripten's pthreads (Web Workers,
// Node's worker_threads), chosen at load by init({threads}). Large cases
// (above the pool's parallel threshold, so the copy is cut between
// threads) equal the reference executor compiled into the same module.
import assert from 'node:assert/strict';
import {existsSync} from 'node:fs';
import test from 'node:test';

import * as dmls from '../dmlslice.mjs';
import {iota} from './helpers.mjs';

const built = existsSync(new URL('../dist/dmlslice-threads.wasm', import.meta.url));
const skip = built ? false : 'no threaded build (scripts/build-wasm.sh --threads)';

test('threaded build: init({threads}) runs the pool, thread count control', {skip}, async (t) => {
  await dmls.init({threads: 4});
  assert.equal(dmls.threads(), 4);
  assert.equal(dmls.threaded(), true);
  // Once loaded, init() returns the module as it is (other modules may
  // call it), and a thread count sets the count.
  await dmls.init();
  assert.equal(dmls.threads(), 4);
  await dmls.init({threads: 2});
  assert.equal(dmls.threads(), 2);

  await t.test('large cases equal the reference executor, at 4, 3 and 1 threads', () => {
    const x = iota([64, 96, 512]);                       // 12 MiB of float32
    const img = iota([8, 128, 128, 24], 'float16');      // NHWC, 6 MiB
    const cases = [
      () => dmls.planSlice(x, [1, 2, 3], [60, 90, 500], {strides: [1, 2, 1]}),
      () => dmls.planReverse(x, {axes: [0, 2]}),
      () => dmls.planTranspose(x, {permutation: [2, 0, 1]}),
      () => dmls.planIndex(x, '[::-1, 1:, ::3]'),
    ];
    for (const n of [4, 3, 1]) {
      assert.equal(dmls.setThreads(n), n);
      for (const make of cases) {
        const plan = make();
        try {
          const fast = plan.run(x), ref = plan.run(x, {reference: true});
          assert.deepEqual(fast.shape, ref.shape);
          assert.ok(Buffer.from(fast.data.buffer).equals(Buffer.from(ref.data.buffer)), `${n} threads`);
        } finally {
          plan.free();
        }
      }
      const nchw = dmls.planTranspose(img, {permutation: [0, 3, 1, 2]});
      try {
        const a = nchw.run(img).data, b = nchw.run(img, {reference: true}).data;
        assert.ok(Buffer.from(a.buffer).equals(Buffer.from(b.buffer)), `nhwc_to_nchw at ${n} threads`);
      } finally {
        nchw.free();
      }
      // The pool's workers all started (a worker that cannot start lowers
      // the count).
      assert.equal(dmls.threads(), n);
    }
  });

  await t.test('a split batch runs on the pool', () => {
    dmls.setThreads(4);
    const parts = dmls.split(x4(), [100, 412], {axis: 2});
    const [a, b] = [dmls.slice(x4(), [0, 0, 0], [64, 96, 100]), dmls.slice(x4(), [0, 0, 100], [64, 96, 412])];
    assert.ok(Buffer.from(parts[0].data.buffer).equals(Buffer.from(a.data.buffer)));
    assert.ok(Buffer.from(parts[1].data.buffer).equals(Buffer.from(b.data.buffer)));
  });

  await t.test('thread counts out of range are refused with the value', () => {
    assert.throws(() => dmls.setThreads(0), {name: 'RangeError', message: /threads = 0 .*1 to 1024/});
    assert.throws(() => dmls.setThreads(1025), {name: 'RangeError', message: /threads = 1025/});
    assert.throws(() => dmls.setThreads(2.5), {name: 'RangeError', message: /threads = 2.5/});
    assert.equal(dmls.threads(), 4);   // unchanged by a refusal
  });
});

function x4() { return iota([64, 96, 512]); }
