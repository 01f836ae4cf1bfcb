// What the tests share: the loaded module, iota tensors of any dtype and a
// deterministic RNG (tests make their own data).
import * as dmls from '../dmlslice.mjs';

export const DTYPES = {
  float32: Float32Array, float16: Uint16Array, uint32: Uint32Array, uint16: Uint16Array, uint8: Uint8Array,
  int32: Int32Array, int16: Int16Array, int8: Int8Array, float64: Float64Array, uint64: BigUint64Array,
  int64: BigInt64Array,
};

export async function load() {
  await dmls.init();
  return dmls;
}

// 0, 1, 2, ... of shape (wrapping within small types), as dtype.
export function iota(shape, dtype = 'float32') {
  const Kind = DTYPES[dtype], n = shape.reduce((a, b) => a * b, 1);
  const big = Kind === BigInt64Array || Kind === BigUint64Array;
  const data = new Kind(n);
  for (let i = 0; i < n; i++) data[i] = big ? BigInt(i) : i;
  const t = {data, shape};
  if (dtype === 'float16') t.dtype = 'float16';
  return t;
}

// xorshift32: the same cases every run.
export function rng(seed) {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s % n;
  };
}

export const plain = (a) => Array.from(a, (v) => (typeof v === 'bigint' ? Number(v) : v));
