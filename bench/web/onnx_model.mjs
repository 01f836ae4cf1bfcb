// A one-node ONNX model (ModelProto, protobuf wire format) for the
// benchmark's onnxruntime-web peer: Slice, Transpose or Split of one input
// "x", the other inputs as int64 initializers. Field numbers are onnx.proto's.
const ONNX_TYPES = {float32: 1, uint8: 2, int32: 6, int64: 7, float16: 10, float64: 11};

function varint(v) {
  let x = BigInt.asUintN(64, BigInt(v));
  const out = [];
  do {
    const b = Number(x & 0x7fn);
    x >>= 7n;
    out.push(x ? b | 0x80 : b);
  } while (x);
  return out;
}
const cat = (parts) => parts.flat();
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, v) => cat([key(field, 0), varint(v)]);
const bytes = (field, b) => cat([key(field, 2), varint(b.length), Array.from(b)]);
const str = (field, s) => bytes(field, new TextEncoder().encode(s));
const msg = (field, parts) => bytes(field, cat(parts));

function int64Tensor(name, values) {
  const raw = new Uint8Array(new BigInt64Array(values.map(BigInt)).buffer);
  return [int(1, values.length), int(2, ONNX_TYPES.int64), str(8, name), bytes(9, raw)];
}

function valueInfo(field, name, dtype, shape) {
  const dims = shape ? [msg(2, shape.map((d) => msg(1, [int(1, d)])))] : [];
  return msg(field, [str(1, name), msg(2, [msg(1, [int(1, ONNX_TYPES[dtype]), ...dims])])]);
}

// op: 'Slice' {starts, ends, axes, steps} | 'Transpose' {perm} | 'Split' {axis, split}.
export function onnxModel(op, dtype, shape, args, outputs = 1) {
  const inputs = ['x'], inits = [], attrs = [];
  if (op === 'Slice') {
    for (const k of ['starts', 'ends', 'axes', 'steps']) {
      inputs.push(k);
      inits.push(msg(5, int64Tensor(k, args[k])));
    }
  } else if (op === 'Split') {
    inputs.push('split');
    inits.push(msg(5, int64Tensor('split', args.split)));
    attrs.push(msg(5, [str(1, 'axis'), int(20, 2), int(3, args.axis)]));
  } else {
    attrs.push(msg(5, [str(1, 'perm'), int(20, 7), ...args.perm.map((p) => int(8, p))]));
  }
  const names = Array.from({length: outputs}, (_, i) => `y${i}`);
  const node = msg(1, [...inputs.map((n) => str(1, n)), ...names.map((n) => str(2, n)), str(4, op), ...attrs]);
  const graph = msg(7, [node, str(2, 'g'), ...inits, valueInfo(11, 'x', dtype, shape),
                        ...names.map((n) => valueInfo(12, n, dtype))]);
  return new Uint8Array(cat([int(1, 8), msg(8, [str(1, ''), int(2, 13)]), graph]));
}

export const onnxDtypes = Object.keys(ONNX_TYPES);
