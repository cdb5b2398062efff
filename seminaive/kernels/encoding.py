"""Input-coding kernels for integer-coded nominal matrices."""


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
