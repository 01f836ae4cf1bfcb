// The web benchmarks' cases (bench.mjs, compare.mjs): bench/cases.json (or
// another file of its form), each shrunk to at most maxMiB of input, and
// planned through the package's front ends.
import {readFile} from 'node:fs/promises';

export const SIZES = {float32: 4, float16: 2, uint8: 1, float64: 8, int64: 8, uint16: 2, int32: 4};

export async function readCases(file) {
  return JSON.parse(await readFile(file ?? new URL('../cases.json', import.meta.url)));
}

// Halves the largest axis (and the window on it) until the input fits.
export function shrink(c, maxMiB) {
  const s = structuredClone(c), size = SIZES[s.dtype];
  const bytes = () => s.input_shape.reduce((a, b) => a * b, size);
  while (bytes() > maxMiB * 2 ** 20) {
    // A split keeps its parts: its rows are halved.
    const a = s.split ? 0 : s.input_shape.indexOf(Math.max(...s.input_shape));
    s.input_shape[a] = Math.ceil(s.input_shape[a] / 2);
    if (s.window_sizes) {
      s.window_offsets[a] = Math.floor(s.window_offsets[a] / 2);
      s.window_sizes[a] = Math.max(1, Math.min(Math.ceil(s.window_sizes[a] / 2), s.input_shape[a] - s.window_offsets[a]));
    }
  }
  return s;
}

// A SLICE1 window as ONNX Slice's starts, ends and steps (ends as BigInts
// where the end lies before the first element).
export function onnxArgs(s) {
  const starts = [], ends = [];
  s.window_strides.forEach((st, i) => {
    const o = s.window_offsets[i], z = s.window_sizes[i];
    starts.push(st > 0 ? o : o + z - 1);
    ends.push(st > 0 ? o + z : (o === 0 ? -(2n ** 63n) : BigInt(o - 1)));
  });
  return {starts, ends, axes: s.input_shape.map((_, i) => i), steps: s.window_strides};
}

// The case's operator on x through the package d: a transpose, a split of
// the last axis, or an ONNX Slice.
export function plan(d, s, x) {
  if (s.perm) return d.planTranspose(x, {permutation: s.perm});
  if (s.split) return d.planSplit(x, s.split, {axis: s.input_shape.length - 1});
  const a = onnxArgs(s);
  return d.planOnnxSlice(x, a.starts, a.ends, null, a.steps);
}
