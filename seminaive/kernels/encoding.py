"""Input-coding kernels for integer-coded nominal matrices."""


import numpy as np
from numba import njit, prange

# --------------------------------------------------------------------------------------------
# Input coding (integer-coded nominal columns, all columns in one pass each)
# --------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True)
def int_column_ranges(X, lows, highs):
    """Minimum and maximum of every column of an integer matrix."""
    for j in prange(X.shape[1]):
        lo = np.int64(X[0, j])
        hi = lo
        for r in range(X.shape[0]):
            v = np.int64(X[r, j])
            lo = min(lo, v)
            hi = max(hi, v)
        lows[j] = lo
        highs[j] = hi


@njit(parallel=True, cache=True)
def int_column_presence(X, lows, starts, present):
    """present[starts[j] + v - lows[j]] = True for every value v of column j."""
    for j in prange(X.shape[1]):
        for r in range(X.shape[0]):
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
