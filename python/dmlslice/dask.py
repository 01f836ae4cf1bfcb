"""dmlslice on Dask arrays: many crops and windows cut from chunked arrays.

    from dmlslice import dask as dsd
    y = dsd.crops(x, starts, (20, 50, 50))   # lazy (N, 20, 50, 50), chunked along N

Dask schedules, dmlslice computes (docs/dask.md): boxes are placed by the
chunks they touch (one sort); each chunk touched is read by one task, its
only reader, which cuts the boxes lying inside it with one ``ds.crops`` call
and the pieces of the boxes across its borders, and drops the chunk; each
output block then gathers its rows from those tasks. The graph grows with the
chunks touched and the output blocks, not with the number of boxes, and the
input is never held whole. Errors are raised when the graph is built, never
by a worker.
"""
import itertools as _itertools
import math

try:
    import dask.array as _da
    from dask.base import tokenize as _tokenize
    from dask.highlevelgraph import HighLevelGraph as _HighLevelGraph
    from dask.highlevelgraph import MaterializedLayer as _MaterializedLayer
except ImportError as e:  # Dask is an optional dependency of the package
    raise ImportError("dmlslice.dask needs Dask (Debian: python3-dask; pip: dask[array]); "
                      "the rest of dmlslice works without it") from e

import numpy as _np

import dmlslice as _ds

# Default rows per output block: about this many bytes each (Dask's own default chunk size).
_BLOCK_BYTES = 128 << 20


def _stand_in(x):
    """A NumPy array of x's shape and dtype that holds one element (zero strides):
    the library checks parameters against it exactly as against x."""
    return _np.broadcast_to(_np.zeros((), x.dtype), x.shape)


def _host_starts(x, starts, size):
    """starts as a checked (N, rank) int64 NumPy array. NumPy starts are checked
    as ds.crops checks them (its own errors); Dask starts are computed now (the
    graph's shape depends on them) and clamped, as ds.crops clamps starts it
    cannot see before it runs (docs/spec.md R-CROP-BOUNDS)."""
    lazy = isinstance(starts, _da.Array)
    probe = _stand_in(x)
    if lazy:
        _ds.crops(probe, _np.empty((0,) + starts.shape[1:], starts.dtype), size)  # dtype, shape, size
        if starts.ndim != 2 or starts.shape[1] != x.ndim or math.isnan(starts.shape[0]):
            starts = starts.compute()  # unknown length or a bad shape: let ds.crops say
        else:
            starts = _np.asarray(starts.compute())
    starts = _np.asarray(starts)
    ok_shape = starts.ndim == 2 and starts.shape[1] == x.ndim
    _ds.crops(probe, starts[:0] if ok_shape else starts, size)  # size, shape, dtype: its errors
    s = starts.astype(_np.int64, copy=False)
    hi = _np.asarray(x.shape, _np.int64) - _np.asarray(size, _np.int64)
    if lazy:
        return _np.clip(s, 0, hi)
    if len(s) and ((s < 0).any() or (s > hi).any()):
        _ds.crops(probe, starts, size)  # the library names the first crop outside x
        raise _ds.OutOfBoundsError("crops: a crop reaches outside x", "DMLS_ERROR_OUT_OF_BOUNDS",
                                   "R-CROP-BOUNDS")
    return s


def _held_array(x):
    """x's data as one NumPy array when the graph already holds it: x is one
    materialized layer whose every block is a NumPy view of one strided array
    (da.from_array over a NumPy array slices it when the graph is built). Then
    a block task has nothing to drop, and an output block is one ds.crops call
    on that array: the cubes are copied once, where the block tasks' buffers
    would copy them twice (docs/dask.md). Else None, and the blocks are read
    by one task each."""
    layer = x.dask.layers.get(x.name)
    if len(x.dask.layers) != 1 or not isinstance(layer, _MaterializedLayer) or x.ndim == 0 or x.size == 0:
        return None
    first = layer.get((x.name,) + (0,) * x.ndim)
    if type(first) is not _np.ndarray or first.dtype != x.dtype:
        return None
    bounds = [_np.concatenate([[0], _np.cumsum(c)]).astype(_np.int64) for c in x.chunks]
    base, strides = first.__array_interface__["data"][0], first.strides
    for idx in _np.ndindex(*x.numblocks):
        v = layer.get((x.name,) + idx)
        if (type(v) is not _np.ndarray or v.dtype != x.dtype or v.strides != strides
                or v.shape != tuple(int(bounds[k][i + 1] - bounds[k][i]) for k, i in enumerate(idx))
                or v.__array_interface__["data"][0] != base + sum(int(bounds[k][i]) * strides[k]
                                                                  for k, i in enumerate(idx))):
            return None
    # The blocks tile this window of memory exactly (checked above), so it is the array they are views of.
    return _np.lib.stride_tricks.as_strided(first, x.shape, strides, writeable=False)


def _block_of(bounds, pos):
    """The block index along one axis of each position (bounds: chunk starts and the end)."""
    return _np.searchsorted(bounds, pos, side="right") - 1


def _cut_chunk(size, rel, lo, hi, offs, block):
    """Everything one input block gives, as one flat buffer: first the crops
    lying inside it (rel: their starts in the block; one ds.crops call), then
    the pieces [lo, hi) of the crops that straddle its borders, each at its
    element offset offs. The block itself is not kept: its task is its only
    reader, so it leaves memory as soon as this returns."""
    vol = math.prod(size)
    ends = offs + _np.prod(hi - lo, axis=1)
    buf = _np.empty_like(block, shape=(int(ends[-1]) if len(ends) else len(rel) * vol,))
    if len(rel):
        _ds.crops(block, rel, size, out=buf[:len(rel) * vol].reshape((len(rel),) + tuple(size)))
    for p in range(len(offs)):
        src = tuple(slice(a, e) for a, e in zip(lo[p], hi[p]))
        buf[offs[p]:ends[p]].reshape(tuple(hi[p] - lo[p]))[...] = block[src]
    return buf


def _gather(n, size, rows, cuts, src, pieces, *parts):
    """One output block. Crops cut whole: rows[cuts[j]:cuts[j+1]] are the crops
    src[cuts[j]:cuts[j+1]] of parts[j], both ascending; each run of rows that
    follow one another in both is one slice copy. Crops that straddle: pieces
    (row, part, offset, lo, hi), one slice copy each. Index arrays, not lists:
    Dask does not look into them for keys."""
    out = _np.empty_like(parts[0], shape=(n,) + tuple(size))
    vol = math.prod(size)
    for j, part in enumerate(parts):
        r, m = rows[cuts[j]:cuts[j + 1]], src[cuts[j]:cuts[j + 1]]
        if len(m):
            whole = part[:(int(m[-1]) + 1) * vol].reshape((-1,) + tuple(size))
            # Not out[r] = whole[m]: the fancy index first copies the crops into a temporary as large
            # as this block's whole crops (up to the output block itself), a second copy in fresh memory.
            brk = _np.flatnonzero((_np.diff(r) != 1) | (_np.diff(m) != 1)) + 1
            for a, e in zip([0] + brk.tolist(), brk.tolist() + [len(m)]):
                out[r[a]:r[a] + e - a] = whole[m[a]:m[a] + e - a]
    prow, ppart, poff, plo, phi = pieces
    for i in range(len(prow)):
        shape = tuple(phi[i] - plo[i])
        dst = (prow[i],) + tuple(slice(a, e) for a, e in zip(plo[i], phi[i]))
        out[dst] = parts[ppart[i]][poff[i]:poff[i] + math.prod(shape)].reshape(shape)
    return out


def _row_chunks(n, size, itemsize, chunks):
    if chunks is None:
        per = max(1, _BLOCK_BYTES // max(1, math.prod(size) * itemsize))
        return _da.core.normalize_chunks((per,), (n,))[0]
    return _da.core.normalize_chunks(chunks if isinstance(chunks, tuple) else (chunks,), (n,))[0]


def crops(x, starts, size, *, chunks=None):
    """N windows of one size cut from the Dask array x: a lazy Dask array of
    shape (N, *size), equal to ``ds.crops(x.compute(), starts, size)``.

    starts is an (N, x.ndim) integer array. NumPy starts are checked as
    ds.crops checks them (R-CROP-BOUNDS, R-CROP-SIZE: the same errors, raised
    here); Dask starts are computed now and each is clamped to
    [0, x.shape[k] - size[k]], as ds.crops clamps starts held by a GPU.
    chunks is the output's chunking along N (default: blocks of about 128 MB).
    """
    if not isinstance(x, _da.Array):
        raise _ds.DTypeError(f"dsd.crops: x is a {type(x).__name__}, not a Dask array (ds.crops takes the others)",
                             "DMLS_ERROR_INVALID_ARGUMENT", "")
    size = tuple(int(v) for v in _np.asarray(size, _np.int64).reshape(-1)) if _np.ndim(size) else size
    s = _host_starts(x, starts, size)
    n, rank = len(s), x.ndim
    rows = _row_chunks(n, size, x.dtype.itemsize, chunks)
    name = "dmls-crops-" + _tokenize(x, s, size, rows)
    meta = _np.empty_like(x._meta, shape=(0,) * (rank + 1))
    if n == 0 or math.prod(size) == 0:
        return _da.zeros((n,) + size, dtype=x.dtype, chunks=(rows,) + size, meta=meta)
    held = _held_array(x)
    if held is not None:
        # Nothing to drop: every block is a view of this array, which the graph holds anyway.
        cuts = _np.cumsum((0,) + tuple(rows))
        dsk = {name + "-held": held}
        dsk.update({(name, b) + (0,) * rank: (_ds.crops, name + "-held", s[cuts[b]:cuts[b + 1]], size)
                    for b in range(len(rows))})
        graph = _HighLevelGraph.from_collections(name, dsk, dependencies=[])
        return _da.Array(graph, name, (rows,) + tuple((v,) for v in size), meta=meta)
    dsk, whole, pieces = _chunk_tasks(x, name + "-c", s, size)
    _gather_tasks(dsk, name, name + "-c", rows, rank, size, whole, pieces)
    graph = _HighLevelGraph.from_collections(name, dsk, dependencies=[x])
    return _da.Array(graph, name, (rows,) + tuple((v,) for v in size), meta=meta)


def _starts_of_runs(v):
    """The positions where the sorted array v changes value, its first included."""
    return _np.flatnonzero(_np.concatenate([[True], v[1:] != v[:-1]])) if len(v) else _np.zeros(0, _np.int64)


def _cols(cols, n):
    """Per-axis columns as an (n, rank) int64 array, rank 0 included."""
    return _np.stack(cols, axis=1).astype(_np.int64) if cols else _np.zeros((n, 0), _np.int64)


def _boxes_of_blocks(lo, hi):
    """Every block of each box [lo, hi] of block indices (C order), for all
    boxes at once: per block, its box and its block index."""
    g, rank = lo.shape
    ext = hi - lo + 1
    count = ext.prod(axis=1) if rank else _np.ones(g, _np.int64)
    owner = _np.repeat(_np.arange(g), count)
    j = _np.arange(int(count.sum())) - (_np.cumsum(count) - count)[owner]
    idx = _np.empty((len(j), rank), _np.int64)
    for k in reversed(range(rank)):
        idx[:, k] = lo[owner, k] + j % ext[owner, k]
        j //= ext[owner, k]
    return owner, idx


def _pieces(bounds, s, size, first, last, numblocks):
    """The crops that straddle block borders, cut into one piece per block they
    touch: per piece its crop, its block (flat index and block index) and the
    piece's corners [lo, hi) in the block and its offset in the crop."""
    cross = _np.flatnonzero((first != last).any(axis=1))
    owner, idx = _boxes_of_blocks(first[cross], last[cross])
    box = cross[owner]
    b0 = _cols([bounds[k][idx[:, k]] for k in range(len(size))], len(box))
    b1 = _cols([bounds[k][idx[:, k] + 1] for k in range(len(size))], len(box))
    a = _np.maximum(s[box], b0)
    e = _np.minimum(s[box] + _np.asarray(size, _np.int64), b1)
    return box, _np.ravel_multi_index(tuple(idx.T), numblocks), idx, a - b0, e - b0, a - s[box]


def _chunk_tasks(x, cname, s, size):
    """One task per input block that any crop touches, its block's only reader
    (_cut_chunk). Returns the tasks and where each crop's data lands: whole
    crops (box, task, row) and pieces (box, task, offset, lo, hi in the crop)."""
    n, rank = s.shape
    bounds = [_np.concatenate([[0], _np.cumsum(c)]) for c in x.chunks]
    first = _cols([_block_of(bounds[k], s[:, k]) for k in range(rank)], n)
    last = _cols([_block_of(bounds[k], s[:, k] + size[k] - 1) for k in range(rank)], n)
    anchor = _np.ravel_multi_index(tuple(first.T), x.numblocks) if rank else _np.zeros(n, _np.int64)
    inside = _np.flatnonzero((first == last).all(axis=1))
    inside = inside[_np.argsort(anchor[inside], kind="stable")]
    pbox, pblock, pidx, plo, phi, pdst = _pieces(bounds, s, size, first, last, x.numblocks)
    porder = _np.argsort(pblock, kind="stable")
    pbox, pblock, pidx, plo, phi, pdst = (v[porder] for v in (pbox, pblock, pidx, plo, phi, pdst))
    used = _np.union1d(anchor[inside], pblock)
    i_cut = _np.searchsorted(anchor[inside], used, side="left").tolist() + [len(inside)]
    p_cut = _np.searchsorted(pblock, used, side="left").tolist() + [len(pblock)]
    vol = math.prod(size)
    # Offsets in each task's buffer: its whole crops first, then its pieces.
    task_i = _np.searchsorted(used, anchor[inside])
    row_i = _np.arange(len(inside)) - _np.asarray(i_cut[:-1], _np.int64)[task_i]
    task_p = _np.searchsorted(used, pblock)
    cum = _np.concatenate([[0], _np.cumsum(_np.prod(phi - plo, axis=1))]).astype(_np.int64)
    poff = (_np.diff(i_cut) * vol)[task_p] + cum[:-1] - cum[_np.asarray(p_cut[:-1], _np.int64)][task_p]
    origin = _cols([bounds[k][first[inside, k]] for k in range(rank)], len(inside))
    rel = s[inside] - origin
    ublocks = _np.unravel_index(used, x.numblocks) if rank else ()
    keys = list(zip(_itertools.repeat(x.name, len(used)), *(b.tolist() for b in ublocks)))
    dsk = {(cname, t): (_cut_chunk, size, rel[i_cut[t]:i_cut[t + 1]], plo[p_cut[t]:p_cut[t + 1]],
                        phi[p_cut[t]:p_cut[t + 1]], poff[p_cut[t]:p_cut[t + 1]], keys[t])
           for t in range(len(used))}
    return dsk, (inside, task_i, row_i), (pbox, task_p, poff, pdst, pdst + phi - plo)


def _gather_tasks(dsk, name, cname, rows, rank, size, whole, pieces):
    """One task per output block, drawing its crops from the block tasks that
    cut them: whole crops sorted by (output block, task), pieces by output
    block, then slices per output block."""
    cuts = _np.cumsum((0,) + tuple(rows))
    box, task, row = whole
    wb = _np.searchsorted(cuts, box, side="right") - 1
    order = _np.lexsort((task, wb))
    box, task, row, wb = box[order], task[order], row[order], wb[order]
    w_cut = _np.searchsorted(wb, _np.arange(len(rows) + 1))
    pbox, ptask, poff, plo, phi = pieces
    pb = _np.searchsorted(cuts, pbox, side="right") - 1
    porder = _np.argsort(pb, kind="stable")
    pbox, ptask, poff, plo, phi, pb = (v[porder] for v in (pbox, ptask, poff, plo, phi, pb))
    p_cut = _np.searchsorted(pb, _np.arange(len(rows) + 1))
    # The block tasks' keys, picked per output block by NumPy, not built by a Python loop each time.
    ntask = int(max(task.max(initial=-1), ptask.max(initial=-1))) + 1
    ckeys = _np.empty(ntask, object)
    ckeys[:] = list(zip(_itertools.repeat(cname), range(ntask)))
    for b in range(len(rows)):
        w0, w1, p0, p1 = w_cut[b], w_cut[b + 1], p_cut[b], p_cut[b + 1]
        parts = _np.union1d(task[w0:w1], ptask[p0:p1])
        part_cuts = _np.searchsorted(task[w0:w1], _np.append(parts, _np.iinfo(_np.int64).max))
        piece_args = (pbox[p0:p1] - cuts[b], _np.searchsorted(parts, ptask[p0:p1]), poff[p0:p1], plo[p0:p1],
                      phi[p0:p1])
        dsk[(name, b) + (0,) * rank] = (_gather, int(rows[b]), size, box[w0:w1] - cuts[b], part_cuts, row[w0:w1],
                                        piece_args) + tuple(ckeys[parts])


def _runs(bounds, start, count, stride):
    """One axis of a window: its count positions start + stride * i, split
    where they cross from one block into the next (they move one way, so each
    block holds one run). Per run: its block, its first position in that
    block, its length."""
    pos = start + stride * _np.arange(count, dtype=_np.int64)
    blk = _block_of(bounds, pos)
    first = _starts_of_runs(blk)
    return blk[first].tolist(), (pos[first] - bounds[blk[first]]).tolist(), _np.diff(_np.append(first, count)).tolist()


def _cut_window(start, count, stride, block):
    """One output block of a window: SLICE1 over the one input block it reads
    (the window's negative strides walk from its far end, docs/spec.md)."""
    offsets = [s if st > 0 else s + (c - 1) * st for s, c, st in zip(start, count, stride)]
    sizes = [(c - 1) * abs(st) + 1 for c, st in zip(count, stride)]
    return _ds.slice1(block, offsets, sizes, stride)


def _window(x, op, who):
    """The lazy result of the planned window op on x: one task per output
    block, each a SLICE1 over the one input block it reads."""
    if tuple(op.input_shape) != x.shape or _np.dtype(op.dtype) != x.dtype:
        raise _ds.ArgumentError(f"{who}: the operator is planned for {tuple(op.input_shape)} {_np.dtype(op.dtype)}, "
                                f"x is {x.shape} {x.dtype}", "DMLS_ERROR_INVALID_ARGUMENT", "")
    if op.window is None:
        raise _ds.ArgumentError(f"{who}: a {op.kind} operator is not a window of x (dsd.transpose transposes)",
                                "DMLS_ERROR_INVALID_ARGUMENT", "")
    shape = tuple(op.output_shape)
    meta = _np.empty_like(x._meta, shape=(0,) * len(shape))
    if math.prod(shape) == 0 or x.ndim == 0:
        return _da.zeros(shape, dtype=x.dtype, meta=meta) if math.prod(shape) == 0 else x.reshape(shape)
    offsets, sizes, strides = op.window
    count = op.window_shape
    runs = [_runs(_np.concatenate([[0], _np.cumsum(c)]), o + (z - 1 if st < 0 else 0), n, st)
            for c, o, z, st, n in zip(x.chunks, offsets, sizes, strides, count)]
    name = "dmls-window-" + _tokenize(x, op.window, count)
    dsk = {}
    for idx in _itertools.product(*(range(len(r[0])) for r in runs)):
        blocks, starts, counts = zip(*((r[0][i], r[1][i], r[2][i]) for r, i in zip(runs, idx)))
        dsk[(name,) + idx] = (_cut_window, list(starts), list(counts), list(strides), (x.name,) + blocks)
    graph = _HighLevelGraph.from_collections(name, dsk, dependencies=[x])
    y = _da.Array(graph, name, tuple(tuple(r[2]) for r in runs), meta=_np.empty_like(x._meta, shape=(0,) * x.ndim))
    return y if y.shape == shape else y.reshape(shape)


def index(x, key):
    """x[key] (a NumPy basic index: ints, slices with any step, None, ...) of
    the Dask array x, equal to ``ds.index`` on the whole array: one task per
    output block, a SLICE1 over the one input block it reads (docs/dask.md
    measures it against Dask's own x[key]). A bad key raises now, with
    ds.index's own error (R-NP-*)."""
    return _window(x, _ds.plan("index", x.shape, x.dtype, key), "dsd.index")


def windows(x, items):
    """A list of lazy windows of the Dask array x, one per item: a NumPy index
    key (as ``dsd.index``) or an Operator planned for x's shape and dtype by
    ``ds.plan`` (slice, slice1, onnx_slice, webnn_slice, webnn_reverse,
    index). Every item is checked now; the first bad one raises."""
    if not isinstance(x, _da.Array):
        raise _ds.DTypeError(f"dsd.windows: x is a {type(x).__name__}, not a Dask array", "DMLS_ERROR_INVALID_ARGUMENT",
                             "")
    ops = [item if isinstance(item, _ds.Operator) else _ds.plan("index", x.shape, x.dtype, item) for item in items]
    return [_window(x, op, f"dsd.windows: item {i}") for i, op in enumerate(ops)]


def transpose(x, axes=None):
    """np.transpose of the Dask array x with contiguous blocks: each block is
    transposed by ds.transpose (Dask's own transpose leaves strided views that a
    later copy reads element by element). Errors (R-PERM) are raised here."""
    _ds.plan("transpose", x.shape, x.dtype, axes)
    perm = tuple(range(x.ndim))[::-1] if axes is None else tuple(a % x.ndim for a in axes)
    ind = tuple(range(x.ndim))
    return _da.blockwise(_ds.transpose, tuple(ind[p] for p in perm), x, ind, axes=perm, dtype=x.dtype,
                         meta=_np.empty_like(x._meta, shape=(0,) * x.ndim))
