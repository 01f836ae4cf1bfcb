"""Hypothesis strategies: arrays of every layout dmlslice reads in place.

views() makes a NumPy array over a random byte buffer with random byte
strides: positive, negative, zero (broadcast), and not multiples of the item
size; any byte offset (unaligned); random bits, so NaN payloads, -0.0 and
subnormals come up, and are also planted on purpose for float dtypes.
"""
import numpy as np
from hypothesis import strategies as st

DTYPES = ["?", "i1", "u1", "<i2", ">i2", "<f2", "<u4", "<f4", ">f4", "<i8", ">f8", "<f8",
          "<c8", ">c16", "V3", "S5", "V12"]

# Float bit patterns a copy that went through a float register could change.
SPECIALS = {
    2: [0x8000, 0x7E01, 0xFD55, 0x0001],
    4: [0x80000000, 0x7FC00001, 0xFFA00005, 0x7F800001, 0x00000001],
    8: [0x8000000000000000, 0x7FF8000000000001, 0xFFF4000000000005, 0x0000000000000001],
}


def unit_of(dtype, shape, strides):
    """The copy unit the extension picks (a power of two up to 8)."""
    g = dtype.itemsize
    for n, s in zip(shape, strides):
        if n > 1:
            g = np.gcd(g, abs(s))
    g = g & -g
    return min(g, 8)


@st.composite
def shapes(draw, min_rank=0, max_rank=8, min_side=0):
    rank = draw(st.integers(min_rank, max_rank))
    top = 4 if rank <= 4 else 3 if rank <= 6 else 2
    return tuple(draw(st.integers(min_side, top)) for _ in range(rank))


@st.composite
def views(draw, shape=None, min_rank=0, max_rank=8, min_side=0, dtypes=DTYPES, odd_strides=True):
    if shape is None:
        shape = draw(shapes(min_rank, max_rank, min_side))
    if len(shape) == 8 and sum(n > 1 for n in shape) == 8:
        # No room for copying an element as parts (see the rank-8 test).
        dtypes = [d for d in dtypes if np.dtype(d).itemsize in (1, 2, 4, 8)] or ["u1"]
    dt = np.dtype(draw(st.sampled_from(dtypes)))
    item = dt.itemsize
    layout = draw(st.sampled_from(["packed", "strided", "bytes"] if odd_strides else ["packed", "strided"]))
    if layout == "packed":
        strides = list(np.empty(shape, dt).strides) if shape else []
    else:
        strides = []
        for _ in shape:
            if layout == "strided":
                strides.append(item * draw(st.integers(-4, 4)))
            else:
                strides.append(draw(st.integers(-4 * item, 4 * item)))
        if sum(n > 1 for n in shape) == 8 and layout == "bytes" and unit_of(dt, shape, strides) < item:
            strides = [s * item for s in strides]  # rank 8 has no room for the split
    lo = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0 and n > 0)
    hi = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0 and n > 0)
    empty = 0 in shape
    pad = draw(st.integers(0, 7))
    nbytes = (0 if empty else hi - lo + item) + pad + 8
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    raw = bytearray(rng.integers(0, 256, nbytes, dtype=np.uint8).tobytes())
    x = np.ndarray(shape, dt, buffer=raw, offset=(0 if empty else -lo) + pad, strides=strides)
    if dt.kind in "fc" and not empty and draw(st.booleans()):
        width = item // (2 if dt.kind == "c" else 1)
        pats = SPECIALS[width]
        flat = x.reshape(-1) if x.flags.c_contiguous else None
        order = "<" if dt.byteorder in "<=|" else ">"
        for k in range(min(4, x.size)):
            idx = tuple(int(i) for i in np.unravel_index(rng.integers(0, x.size), shape))
            b = int(pats[k % len(pats)]).to_bytes(width, "little" if order == "<" else "big")
            x[idx] = np.frombuffer(b * (item // width), dt)[0]
        del flat
    return x


def same_bits(a, b):
    """a and b hold the same elements bit for bit (shape, dtype, bytes)."""
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
