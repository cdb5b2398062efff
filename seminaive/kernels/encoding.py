"""Input-coding kernels: integer- and float-coded nominal matrices, numeric values binned by
cut points, and UTF-8 strings (Arrow buffers) looked up in a small hash table."""


import numpy as np
from numba import njit, prange

# --------------------------------------------------------------------------------------------
# Input coding (integer-coded nominal columns, all columns in one pass each)
# --------------------------------------------------------------------------------------------


#: rows per block of the row-parallel kernels (a block of a row-major matrix stays in cache)
ROW_BLOCK = 4096


@njit(parallel=True, cache=True)
def int_column_ranges(X, lows, highs):
    """Minimum and maximum of every column of an integer matrix.

    Parallel over blocks of rows, reading each block row by row (the matrix is row-major),
    then a reduction over the blocks."""
    n, a = X.shape
    n_blocks = max((n + ROW_BLOCK - 1) // ROW_BLOCK, 1)
    block_lo = np.empty((n_blocks, a), dtype=np.int64)
    block_hi = np.empty((n_blocks, a), dtype=np.int64)
    for b in prange(n_blocks):
        r0 = b * ROW_BLOCK
        r1 = min(n, r0 + ROW_BLOCK)
        for j in range(a):
            v = np.int64(X[r0, j]) if r0 < n else 0
            block_lo[b, j] = v
            block_hi[b, j] = v
        for r in range(r0, r1):
            for j in range(a):
                v = np.int64(X[r, j])
                if v < block_lo[b, j]:
                    block_lo[b, j] = v
                if v > block_hi[b, j]:
                    block_hi[b, j] = v
    for j in range(a):
        lo = block_lo[0, j]
        hi = block_hi[0, j]
        for b in range(1, n_blocks):
            lo = min(lo, block_lo[b, j])
            hi = max(hi, block_hi[b, j])
        lows[j] = lo
        highs[j] = hi


@njit(parallel=True, cache=True)
def int_column_presence(X, lows, starts, present):
    """present[starts[j] + v - lows[j]] = True for every value v of column j.

    Parallel over blocks of rows read row by row; every thread only ever writes True, so the
    shared flags need no lock."""
    n, a = X.shape
    n_blocks = (n + ROW_BLOCK - 1) // ROW_BLOCK
    for b in prange(n_blocks):
        r0 = b * ROW_BLOCK
        r1 = min(n, r0 + ROW_BLOCK)
        for r in range(r0, r1):
            for j in range(a):
                present[starts[j] + np.int64(X[r, j]) - lows[j]] = True


@njit(parallel=True, cache=True)
def encode_int_columns(X, lows, starts, lookup, out):
    """out[r, j] = lookup[starts[j] + X[r, j] - lows[j]], or -1 outside the lookup range.

    Parallel over blocks of rows: each block of the (row-major) input stays in cache while
    the (column-major) output is written column by column."""
    n, a = X.shape
    block = 4096
    for b in prange((n + block - 1) // block):
        r0 = b * block
        r1 = min(n, r0 + block)
        for j in range(a):
            span = starts[j + 1] - starts[j]
            for r in range(r0, r1):
                v = np.int64(X[r, j]) - lows[j]
                out[r, j] = lookup[starts[j] + v] if 0 <= v < span else -1


@njit(parallel=True, cache=True)
def bin_columns(X, cuts, cut_starts, out_cols, out):
    """out[r, out_cols[j]] = number of cut points of column j below X[r, j], -1 for NaN.

    The cut points of column j are ``cuts[cut_starts[j]:cut_starts[j + 1]]`` (ascending);
    a value is compared as float64, so bin ``i`` holds ``c_{i-1} < x <= c_i`` exactly as
    ``np.searchsorted(cuts, x, side="left")`` places it.  Parallel over blocks of rows, every
    column of a block in one pass.  Returns the number of infinite values (which the caller
    refuses)."""
    n, a = X.shape
    n_blocks = (n + ROW_BLOCK - 1) // ROW_BLOCK
    infs = np.zeros(max(n_blocks, 1), dtype=np.int64)
    for b in prange(n_blocks):
        r0 = b * ROW_BLOCK
        r1 = min(n, r0 + ROW_BLOCK)
        count = 0
        for j in range(a):
            c0 = cut_starts[j]
            c1 = cut_starts[j + 1]
            col = out_cols[j]
            for r in range(r0, r1):
                v = np.float64(X[r, j])
                if np.isnan(v):
                    out[r, col] = -1
                    continue
                if np.isinf(v):
                    count += 1
                lo = c0
                hi = c1
                while lo < hi:  # first cut point >= v
                    mid = (lo + hi) >> 1
                    if cuts[mid] < v:
                        lo = mid + 1
                    else:
                        hi = mid
                out[r, col] = lo - c0
        infs[b] = count
    return infs.sum()


@njit(parallel=True, cache=True)
def float_column_ranges(X, lows, highs):
    """Minimum and maximum of every column of a float matrix, NaN left out.

    Returns False as soon as a column holds a value that is not an integer of magnitude
    below 2**52 (then lows and highs are meaningless); a column of NaN only gets low 0,
    high -1."""
    n, a = X.shape
    n_blocks = max((n + ROW_BLOCK - 1) // ROW_BLOCK, 1)
    block_lo = np.empty((n_blocks, a), dtype=np.float64)
    block_hi = np.empty((n_blocks, a), dtype=np.float64)
    bad = np.zeros(n_blocks, dtype=np.bool_)
    limit = 2.0 ** 52
    for b in prange(n_blocks):
        r0 = b * ROW_BLOCK
        r1 = min(n, r0 + ROW_BLOCK)
        for j in range(a):
            block_lo[b, j] = np.inf
            block_hi[b, j] = -np.inf
        for r in range(r0, r1):
            for j in range(a):
                v = np.float64(X[r, j])
                if np.isnan(v):
                    continue
                if not (-limit < v < limit) or v != np.floor(v):
                    bad[b] = True
                if v < block_lo[b, j]:
                    block_lo[b, j] = v
                if v > block_hi[b, j]:
                    block_hi[b, j] = v
    if bad.any():
        return False
    for j in range(a):
        lo = np.inf
        hi = -np.inf
        for b in range(n_blocks):
            lo = min(lo, block_lo[b, j])
            hi = max(hi, block_hi[b, j])
        if lo > hi:
            lows[j] = 0
            highs[j] = -1
        else:
            lows[j] = np.int64(lo)
            highs[j] = np.int64(hi)
    return True


@njit(parallel=True, cache=True)
def float_column_presence(X, lows, starts, present):
    """present[starts[j] + v - lows[j]] = True for every non-NaN value v of column j (the
    values are integers within the ranges of :func:`float_column_ranges`)."""
    n, a = X.shape
    n_blocks = (n + ROW_BLOCK - 1) // ROW_BLOCK
    for b in prange(n_blocks):
        r0 = b * ROW_BLOCK
        r1 = min(n, r0 + ROW_BLOCK)
        for r in range(r0, r1):
            for j in range(a):
                v = np.float64(X[r, j])
                if not np.isnan(v):
                    present[starts[j] + np.int64(v) - lows[j]] = True


@njit(parallel=True, cache=True)
def encode_float_columns(X, lows, starts, lookup, out):
    """:func:`encode_int_columns` for a float matrix: -1 for NaN, for a value that is not an
    integer and for one outside the lookup range."""
    n, a = X.shape
    for b in prange((n + ROW_BLOCK - 1) // ROW_BLOCK):
        r0 = b * ROW_BLOCK
        r1 = min(n, r0 + ROW_BLOCK)
        for j in range(a):
            span = starts[j + 1] - starts[j]
            lo = np.float64(lows[j])
            for r in range(r0, r1):
                v = np.float64(X[r, j]) - lo
                if 0.0 <= v < span and v == np.floor(v):
                    out[r, j] = lookup[starts[j] + np.int64(v)]
                else:
                    out[r, j] = -1


@njit(cache=True)
def _utf8_word(data, start, stop):
    """The first (at most) eight bytes of ``data[start:stop]`` as a little-endian word."""
    w = np.uint64(0)
    for t in range(min(stop - start, 8)):
        w |= np.uint64(data[start + t]) << np.uint64(8 * t)
    return w


@njit(cache=True)
def utf8_hash(data, start, stop, first_word):
    """Hash of the bytes ``data[start:stop]`` whose first word is ``first_word``: the
    length and the eight-byte words folded by multiplication, then mixed (the same hash is
    written out in :func:`encode_utf8`)."""
    prime = np.uint64(0x100000001B3)
    h = (first_word ^ np.uint64(stop - start)) * np.uint64(0x9E3779B97F4A7C15)
    pos = start + 8
    while pos < stop:
        h = (h ^ _utf8_word(data, pos, stop)) * prime
        pos += 8
    h ^= h >> np.uint64(29)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(32))


@njit(cache=True)
def utf8_slots(keys, key_offsets, n_slots):
    """Open-addressing table (``n_slots``, a power of two) of the strings ``keys`` (UTF-8
    bytes, string k at ``keys[key_offsets[k]:key_offsets[k + 1]]``, all distinct): slot ->
    index of the string, -1 where empty; and the first word of every string."""
    slots = np.full(n_slots, -1, dtype=np.int32)
    words = np.empty(max(key_offsets.size - 1, 0), dtype=np.uint64)
    mask = np.uint64(n_slots - 1)
    for k in range(key_offsets.size - 1):
        words[k] = _utf8_word(keys, key_offsets[k], key_offsets[k + 1])
        s = utf8_hash(keys, key_offsets[k], key_offsets[k + 1], words[k]) & mask
        while slots[s] >= 0:
            s = (s + np.uint64(1)) & mask
        slots[s] = k
    return slots, words


@njit(parallel=True, cache=True)
def encode_utf8(offsets, data, validity, first, keys, key_offsets, slots, words, out):
    """out[i] = index of string ``first + i`` of an Arrow string array among ``keys``, -1 if
    it is null or not among them.

    ``offsets`` and ``data`` are the array's offset and byte buffers, ``validity`` its
    validity bitmap (empty: no nulls), ``first`` its offset; ``keys`` / ``key_offsets`` /
    ``slots`` / ``words`` come from :func:`utf8_slots`.  A string of at most eight bytes is
    compared by its length and first word, a longer one byte by byte.  The common case (a
    known value in its home slot; the table is kept sparse) takes no data-dependent branch.
    Parallel over blocks of rows."""
    n = out.size
    mask = np.uint64(slots.size - 1)
    check = validity.size > 0
    safe = data.size - 8  # a string starting at or before this can be read as 8 bytes
    for b in prange((n + ROW_BLOCK - 1) // ROW_BLOCK):
        r0 = b * ROW_BLOCK
        r1 = min(n, r0 + ROW_BLOCK)
        for r in range(r0, r1):
            i = first + r
            start = np.int64(offsets[i])
            stop = np.int64(offsets[i + 1])
            length = stop - start
            # written out here: numba compiles the helpers' loops more slowly when inlined
            w = np.uint64(0)
            if start <= safe:
                for t in range(8):
                    w |= np.uint64(data[start + t]) << np.uint64(8 * t)
                if length < 8:
                    w &= (np.uint64(1) << np.uint64(8 * length)) - np.uint64(1)
            else:
                for t in range(min(length, 8)):
                    w |= np.uint64(data[start + t]) << np.uint64(8 * t)
            h = (w ^ np.uint64(length)) * np.uint64(0x9E3779B97F4A7C15)
            pos = start + 8  # a while loop: a stepped range costs a division per row
            while pos < stop:
                x = np.uint64(0)
                for t in range(min(stop - pos, 8)):
                    x |= np.uint64(data[pos + t]) << np.uint64(8 * t)
                h = (h ^ x) * np.uint64(0x100000001B3)
                pos += 8
            h ^= h >> np.uint64(29)
            h *= np.uint64(0xBF58476D1CE4E5B9)
            s = (h ^ (h >> np.uint64(32))) & mask
            k = slots[s]
            kk = max(k, 0)
            code = -1
            if (k >= 0) & (key_offsets[kk + 1] - key_offsets[kk] == length) & (
                    words[kk] == w) & (length <= 8):
                code = k
            else:
                while slots[s] >= 0:
                    k = slots[s]
                    k0 = key_offsets[k]
                    if key_offsets[k + 1] - k0 == length and words[k] == w:
                        same = True
                        for t in range(8, length):
                            if data[start + t] != keys[k0 + t]:
                                same = False
                                break
                        if same:
                            code = k
                            break
                    s = (s + np.uint64(1)) & mask
            if check:
                code = code if (validity[i >> 3] >> (i & 7)) & 1 else -1
            out[r] = code
