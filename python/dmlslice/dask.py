"""dmlslice on Dask arrays: many crops and windows cut from chunked arrays.

    from dmlslice import dask as dsd
    y = dsd.crops(x, starts, (20, 50, 50))   # lazy (N, 20, 50, 50), chunked along N

Dask schedules, dmlslice computes (docs/dask.md): boxes are grouped by the
chunk their first element lies in (one sort), each group is one task that
reads that chunk and the neighbours its boxes reach, cuts the boxes lying
inside the chunk with one ``ds.crops`` call and assembles the others from
their pieces; each output block then gathers its rows from those tasks. The
graph grows with the chunks touched and the output blocks, not with the
number of boxes. Errors are raised when the graph is built, never by a worker.
"""
import itertools as _itertools
import math

try:
    import dask.array as _da
    from dask.base import tokenize as _tokenize
    from dask.highlevelgraph import HighLevelGraph as _HighLevelGraph
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


def _block_of(bounds, pos):
    """The block index along one axis of each position (bounds: chunk starts and the end)."""
    return _np.searchsorted(bounds, pos, side="right") - 1


def _cut_group(size, lo, hi, rel, inside, *blocks):
    """The crops of one group, in group order: those inside the anchor block in
    one ds.crops call, the others assembled from the pieces the blocks hold.
    blocks are the blocks of the box [lo, hi] of block indices, C order;
    rel the starts relative to the anchor block's origin; inside how many of
    the group's first boxes lie inside it."""
    grid = tuple(h - l + 1 for l, h in zip(lo, hi))
    first = blocks[0]
    out = _np.empty_like(first, shape=(len(rel),) + tuple(size))
    if inside:
        _ds.crops(blocks[0], rel[:inside], size, out=out[:inside])
    if inside == len(rel):
        return out
    # Block origins relative to the anchor's origin, per axis.
    origins = []
    for k in range(len(size)):
        lens = [blocks[_np.ravel_multi_index(tuple(j if a == k else 0 for a in range(len(size))), grid)].shape[k]
                for j in range(grid[k])]
        origins.append(_np.concatenate([[0], _np.cumsum(lens)]))
    for i in range(inside, len(rel)):
        r = rel[i]
        ranges = [range(_block_of(origins[k], r[k]), _block_of(origins[k], r[k] + size[k] - 1) + 1)
                  for k in range(len(size))]
        for idx in _np.ndindex(*(len(q) for q in ranges)):
            b = tuple(ranges[k][j] for k, j in enumerate(idx))
            src, dst = [], []
            for k, bk in enumerate(b):
                o0, o1 = origins[k][bk], origins[k][bk + 1]
                a, e = max(r[k], o0), min(r[k] + size[k], o1)
                src.append(slice(a - o0, e - o0))
                dst.append(slice(a - r[k], e - r[k]))
            out[(i,) + tuple(dst)] = blocks[_np.ravel_multi_index(b, grid)][tuple(src)]
    return out


def _gather(n, size, dst, src, cuts, *parts):
    """One output block: its rows dst[cuts[j]:cuts[j+1]] are the rows
    src[cuts[j]:cuts[j+1]] of parts[j] (arrays, not lists: Dask does not look
    into them for keys)."""
    out = _np.empty_like(parts[0], shape=(n,) + tuple(size))
    for j, part in enumerate(parts):
        dst_j, src_j = dst[cuts[j]:cuts[j + 1]], src[cuts[j]:cuts[j + 1]]
        out[dst_j] = part[src_j]
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

    bounds = [_np.concatenate([[0], _np.cumsum(c)]) for c in x.chunks]
    first = _np.zeros((n, rank), _np.int64)
    last = _np.zeros((n, rank), _np.int64)
    for k in range(rank):
        first[:, k] = _block_of(bounds[k], s[:, k])
        last[:, k] = _block_of(bounds[k], s[:, k] + size[k] - 1)
    anchor = _np.ravel_multi_index(tuple(first.T), x.numblocks) if rank else _np.zeros(n, _np.int64)
    straddles = (first != last).any(axis=1)
    dsk, group_of, row_in_group = _group_tasks(x.name, name + "-g", bounds, s, size, first, last, anchor, straddles)
    _gather_tasks(dsk, name, rows, rank, size, group_of, row_in_group)
    graph = _HighLevelGraph.from_collections(name, dsk, dependencies=[x])
    return _da.Array(graph, name, (rows,) + tuple((v,) for v in size), meta=meta)


def _starts_of_runs(v):
    """The positions where the sorted array v changes value, its first included."""
    return _np.flatnonzero(_np.concatenate([[True], v[1:] != v[:-1]])) if len(v) else _np.zeros(0, _np.int64)


def _dep_keys(xname, lo, hi):
    """The keys of the blocks each group reads (the box [lo, hi] of block
    indices, C order), built for all groups at once: the list of keys and
    where each group's run of them starts and ends."""
    g, rank = lo.shape
    ext = hi - lo + 1
    count = ext.prod(axis=1) if rank else _np.ones(g, _np.int64)
    ends = _np.cumsum(count)
    owner = _np.repeat(_np.arange(g), count)
    j = _np.arange(ends[-1] if g else 0) - (ends - count)[owner]
    idx = _np.empty((len(j), rank), _np.int64)
    for k in reversed(range(rank)):
        idx[:, k] = lo[owner, k] + j % ext[owner, k]
        j //= ext[owner, k]
    keys = list(zip(_itertools.repeat(xname, len(idx)), *idx.T.tolist()))
    return keys, (ends - count).tolist(), ends.tolist()


def _group_tasks(xname, gname, bounds, s, size, first, last, anchor, straddles):
    """One task per anchor block (the block of a box's first element): it reads
    that block and the blocks its boxes reach. Returns the tasks and, per box,
    its group and its row in the group's result."""
    n, rank = s.shape
    order = _np.lexsort((straddles, anchor))  # by anchor block, the boxes inside it first
    gstart = _starts_of_runs(anchor[order])
    counts = _np.diff(_np.concatenate([gstart, [n]]))
    lo = first[order[gstart]]
    hi = _np.maximum.reduceat(last[order], gstart, axis=0)
    inside = _np.add.reduceat(~straddles[order], gstart).tolist()
    group_sorted = _np.repeat(_np.arange(len(gstart)), counts)
    origin = _np.stack([bounds[k][lo[:, k]] for k in range(rank)], axis=1) if rank else lo
    rel = s[order] - origin[group_sorted]
    group_of = _np.empty(n, _np.int64)
    row_in_group = _np.empty(n, _np.int64)
    group_of[order] = group_sorted
    row_in_group[order] = _np.arange(n) - gstart[group_sorted]
    keys, d0, d1 = _dep_keys(xname, lo, hi)
    b0, b1 = gstart.tolist(), (gstart + counts).tolist()
    dsk = {(gname, g): (_cut_group, size, l, h, rel[r0:r1], i) + tuple(keys[a:e])
           for g, (l, h, r0, r1, i, a, e) in enumerate(zip(map(tuple, lo.tolist()), map(tuple, hi.tolist()),
                                                           b0, b1, inside, d0, d1))}
    return dsk, group_of, row_in_group


def _gather_tasks(dsk, name, rows, rank, size, group_of, row_in_group):
    """One task per output block, drawing its rows from the groups that cut
    them: one sort of all rows by (block, group), then slices per block."""
    n = len(group_of)
    cuts = _np.cumsum((0,) + tuple(rows))
    block = _np.repeat(_np.arange(len(rows)), rows)
    order = _np.lexsort((group_of, block))
    pair = _starts_of_runs(block[order] * (group_of.max() + 1) + group_of[order])
    pair_block = block[order[pair]]
    bpairs = _np.searchsorted(pair_block, _np.arange(len(rows) + 1))
    gname = name + "-g"
    # One key per group, picked per (block, group) pair by NumPy, not by a Python loop.
    gkeys = _np.empty(group_of.max() + 1, object)
    gkeys[:] = list(zip(_itertools.repeat(gname), range(len(gkeys))))
    pair_keys = gkeys[group_of[order[pair]]]
    dst = order - cuts[block[order]]
    src = row_in_group[order]
    pair_list = _np.concatenate([pair, [n]])
    for b in range(len(rows)):
        p0, p1 = bpairs[b], bpairs[b + 1]
        r0 = cuts[b]
        dsk[(name, b) + (0,) * rank] = (_gather, int(rows[b]), size, dst[r0:cuts[b + 1]], src[r0:cuts[b + 1]],
                                        pair_list[p0:p1 + 1] - r0) + tuple(pair_keys[p0:p1])


def transpose(x, axes=None):
    """np.transpose of the Dask array x with contiguous blocks: each block is
    transposed by ds.transpose (Dask's own transpose leaves strided views that a
    later copy reads element by element). Errors (R-PERM) are raised here."""
    _ds.plan("transpose", x.shape, x.dtype, axes)
    perm = tuple(range(x.ndim))[::-1] if axes is None else tuple(a % x.ndim for a in axes)
    ind = tuple(range(x.ndim))
    return _da.blockwise(_ds.transpose, tuple(ind[p] for p in perm), x, ind, axes=perm, dtype=x.dtype,
                         meta=_np.empty_like(x._meta, shape=(0,) * x.ndim))
