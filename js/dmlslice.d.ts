// TypeScript declarations of dmlslice.mjs.

export type DType = 'float32' | 'float16' | 'uint32' | 'uint16' | 'uint8' | 'int32' | 'int16' | 'int8' |
  'float64' | 'uint64' | 'int64';
export type Data = Float32Array | Float64Array | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array |
  Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;

/** A tensor: data holds its elements at shape's (or strides') positions; float16 is a Uint16Array with dtype 'float16'. */
export interface Tensor<T extends Data = Data> {
  /** The elements: a TypedArray, or a HeapArray (alloc()) of the same kind. */
  data: T | HeapArray;
  shape: number[];
  /** Element strides, one per axis; packed row-major when absent. */
  strides?: number[];
  dtype?: DType;
}

export interface RunOptions<T extends Data = Data> {
  /** Where the result goes: an array (or HeapArray) of the input's kind, of at least the result's element count. */
  out?: T | HeapArray;
  /** Run through the library's scalar reference executor (the tests' oracle). */
  reference?: boolean;
}

/** A planned slice, reusable on tensors of the shape, strides and dtype it was planned for. */
export class Planned {
  readonly shape: number[];
  run<T extends Data>(t: Tensor<T>, options?: RunOptions<T>): Tensor<T>;
  free(): void;
}

/** A planned batch (split, crops): one result tensor per output. */
export class PlannedBatch {
  readonly shapes: number[][];
  run<T extends Data>(t: Tensor<T>): Tensor<T>[];
  free(): void;
}

/** Loads the WebAssembly module; await it once before any other call. */
/**
 * Loads the module. threads: 1 or absent, the single-threaded build (the
 * default); n > 1 or 'auto', the threaded build (needs SharedArrayBuffer:
 * Node, or a cross-origin isolated page) with a pool of n threads.
 */
export function init(options?: {threads?: number | 'auto'; [emscripten: string]: unknown}): Promise<unknown>;
/** Whether the threaded build is loaded. */
export function threaded(): boolean;
/** The threads a copy is cut between, the calling thread included. */
export function threads(): number;
/** Sets the thread count (1 to 1024; above 1 only in the threaded build); returns it. */
export function setThreads(n: number): number;
export function dtypeOf(t: Tensor): DType;
/**
 * An array in the module's own memory: a tensor whose data (or out) is one passes in (and results out)
 * without a copy. It holds an address: `array` views the memory as it is now (the memory's growth detaches
 * older views), so take it again after a call rather than keep it.
 */
export class HeapArray {
  readonly ptr: number;
  readonly length: number;
  readonly dtype: DType;
  readonly byteLength: number;
  readonly array: Data;
  free(): void;
}
/** `count` elements of dtype in the module's memory, 16-byte aligned unless alignment (a power of two) says. */
export function alloc(dtype: DType, count: number, options?: {alignment?: number}): HeapArray;
export function free(array: HeapArray): void;

export function planSlice(t: Tensor, starts: number[], sizes: number[], options?: {strides?: number[]}): Planned;
export function slice<T extends Data>(t: Tensor<T>, starts: number[], sizes: number[],
  options?: {strides?: number[]} & RunOptions<T>): Tensor<T>;
export function planReverse(t: Tensor, options?: {axes?: number[]}): Planned;
export function reverse<T extends Data>(t: Tensor<T>, options?: {axes?: number[]} & RunOptions<T>): Tensor<T>;
export function planTranspose(t: Tensor, options?: {permutation?: number[]}): Planned;
export function transpose<T extends Data>(t: Tensor<T>, options?: {permutation?: number[]} & RunOptions<T>): Tensor<T>;
export function planSplit(t: Tensor, splits: number | number[], options?: {axis?: number}): PlannedBatch;
export function split<T extends Data>(t: Tensor<T>, splits: number | number[], options?: {axis?: number}): Tensor<T>[];

/** NumPy basic indexing written as Python writes it: "[1:3, ::-1, None, ...]". */
export function planIndex(t: Tensor, expr: string): Planned;
export function index<T extends Data>(t: Tensor<T>, expr: string, options?: RunOptions<T>): Tensor<T>;
type Int = number | bigint;
export function planOnnxSlice(t: Tensor, starts: Int[], ends: Int[], axes?: Int[], steps?: Int[]): Planned;
export function onnxSlice<T extends Data>(t: Tensor<T>, starts: Int[], ends: Int[], axes?: Int[], steps?: Int[],
  options?: RunOptions<T>): Tensor<T>;
export function onnxTranspose<T extends Data>(t: Tensor<T>, perm?: number[], options?: RunOptions<T>): Tensor<T>;
export function onnxSplit<T extends Data>(t: Tensor<T>, sizes: number[], options?: {axis?: number}): Tensor<T>[];
/** Windows of one size at each row of starts, stacked: shape [starts.length, ...size]. */
export function planCrops(t: Tensor, starts: number[][], size: number[]): PlannedBatch;
export function crops<T extends Data>(t: Tensor<T>, starts: number[][], size: number[]): Tensor<T>;

/** A DirectML buffer tensor (DML_BUFFER_TENSOR_DESC); DimensionCount is Sizes.length. */
export interface DmlTensor {
  DataType: string | number;
  Sizes: Int[];
  Strides?: Int[];
  /** The least DirectML accepts when absent. */
  TotalTensorSizeInBytes?: Int;
  GuaranteedBaseOffsetAlignment?: Int;
  DimensionCount?: number;
}
/** DML_SLICE_OPERATOR_DESC, DML_SLICE1_OPERATOR_DESC or DML_SLICE_GRAD_OPERATOR_DESC, with Type. */
export type DmlDesc =
  {Type: 'SLICE'; InputTensor: DmlTensor; OutputTensor: DmlTensor; DimensionCount?: number;
   Offsets: Int[]; Sizes: Int[]; Strides: Int[]} |
  {Type: 'SLICE1'; InputTensor: DmlTensor; OutputTensor: DmlTensor; DimensionCount?: number;
   InputWindowOffsets: Int[]; InputWindowSizes: Int[]; InputWindowStrides: Int[]} |
  {Type: 'SLICE_GRAD'; InputGradientTensor: DmlTensor; OutputGradientTensor: DmlTensor; DimensionCount?: number;
   InputWindowOffsets: Int[]; InputWindowSizes: Int[]; InputWindowStrides: Int[]};
/** A DirectML feature level: its name ("4_1", "4.1", "0x4100") or its DML_FEATURE_LEVEL value; the latest when absent. */
export interface DmlOptions { featureLevel?: string | number; }

/** A planned DirectML operator: run() binds buffers of the tensors' TotalTensorSizeInBytes. */
export class PlannedDml {
  readonly shape: number[];
  readonly dtype: DType;
  readonly inputBytes: number;
  readonly outputBytes: number;
  run<T extends Data>(input: Data | HeapArray, options?: RunOptions<T>): Tensor<T>;
  free(): void;
}
export function planDml(desc: DmlDesc, options?: DmlOptions): PlannedDml;
/** The output's sizes where DirectML accepts the descriptor at the level; throws naming the rule otherwise. */
export function checkDml(desc: DmlDesc, options?: DmlOptions): number[];
export function sliceDml<T extends Data>(desc: DmlDesc, input: Data | HeapArray, options?: DmlOptions & RunOptions<T>): Tensor<T>;
