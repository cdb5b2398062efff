"""Input-coding kernels: integer- and float-coded nominal matrices, and numeric values binned
by cut points.  (Arrow strings are coded by Arrow's own hash lookup,
:func:`pyarrow.compute.index_in`, which measured seven times as fast as a kernel over their
buffers.)"""


import numpy as np

from ._fortran import padded_fortran, typed_fortran
from ._jit import njit, prange
from ._threads import parallel_calls, parts

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
    shared flags need no lock, and writes a flag only when it is not set yet (a flag set
    once is only read after, which keeps the threads from taking the line from each other)."""
    n, a = X.shape
    n_blocks = (n + ROW_BLOCK - 1) // ROW_BLOCK
    for b in prange(n_blocks):
        r0 = b * ROW_BLOCK
        r1 = min(n, r0 + ROW_BLOCK)
        for r in range(r0, r1):
            for j in range(a):
                k = starts[j] + np.int64(X[r, j]) - lows[j]
                if not present[k]:  # read first: no thread writes a line another reads
                    present[k] = True


@njit(parallel=True, cache=True)
def encode_int_columns(X, lows, starts, lookup, out):
    """out[r, j] = lookup[starts[j] + X[r, j] - lows[j]], or -1 outside the lookup range.

    Parallel over blocks of rows, each read row by row in the order it is stored (row-major);
    the (column-major) output of a block is one short run per column, which stays in cache.
    Measured three times as fast as reading a block column by column."""
    n, a = X.shape
    block = 1024
    for b in prange((n + block - 1) // block):
        r0 = b * block
        r1 = min(n, r0 + block)
        for r in range(r0, r1):
            for j in range(a):
                v = np.int64(X[r, j]) - lows[j]
                span = starts[j + 1] - starts[j]
                # one unsigned comparison: a value below the low wraps to a huge number
                out[r, j] = lookup[starts[j] + v] if np.uint64(v) < np.uint64(span) else -1


#: values within this many of a column's base are coded in the pass that finds them
#: (:func:`int_scan_codes`)
SMALL_VALUES = 64


def int_scan_codes(X, base, lows, highs, masks, out):
    """One pass over an integer matrix: the minimum and maximum of every column, the set of
    its values in ``[base[j], base[j] + 64)`` as the bits of ``masks[j]`` (bit ``v -
    base[j]``), and ``out[r, j] = X[r, j] - base[j] + 1`` for those values (0 for any
    other).

    When every value of every column lies in its window this is all a fit needs: the
    sorted values of a column are its base plus the set bits of its mask, and ``out``
    holds storage codes (a value's position + 1) as they are when each column's values are
    ``base .. base + k - 1`` (:func:`recode_small` maps them otherwise).  One range of
    rows per thread (:func:`._threads.parallel_calls`), each read row by row with its own
    minima, maxima and masks, reduced at the end."""
    n, a = X.shape
    bounds = parts(n, X.size) or [(0, 0)]
    part_lo = np.zeros((len(bounds), a), dtype=np.int64)
    part_hi = np.zeros((len(bounds), a), dtype=np.int64)
    part_mask = np.zeros((len(bounds), a), dtype=np.uint64)
    parallel_calls(_scan_rows, [(X, base, r0, r1, part_lo[p], part_hi[p], part_mask[p], out)
                                for p, (r0, r1) in enumerate(bounds)])
    lows[:] = part_lo.min(axis=0)
    highs[:] = part_hi.max(axis=0)
    masks[:] = np.bitwise_or.reduce(part_mask, axis=0)


@njit(cache=True, nogil=True)
def _scan_rows(X, base, r0, r1, lo, hi, mask, out):
    """:func:`int_scan_codes` of the rows ``r0 .. r1 - 1`` (``lo``, ``hi``, ``mask``: this
    range's own)."""
    a = X.shape[1]
    if r0 < r1:
        for j in range(a):
            lo[j] = np.int64(X[r0, j])
            hi[j] = lo[j]
    for r in range(r0, r1):
        for j in range(a):
            v = np.int64(X[r, j])
            lo[j] = min(lo[j], v)
            hi[j] = max(hi[j], v)
            v -= base[j]
            if np.uint64(v) < np.uint64(SMALL_VALUES):
                mask[j] |= np.uint64(1) << np.uint64(v)
                out[r, j] = np.uint8(v + 1)
            else:
                out[r, j] = 0


@njit(parallel=True, cache=True)
def recode_small(codes, tables):
    """``codes[r, j] = tables[j, codes[r, j]]`` in place, for the codes of
    :func:`int_scan_codes` (``tables[j, v + 1]``: the storage code of value ``v``)."""
    n, a = codes.shape
    block = 4096
    for b in prange((n + block - 1) // block):
        r0 = b * block
        r1 = min(n, r0 + block)
        for j in range(a):
            for r in range(r0, r1):
                codes[r, j] = tables[j, codes[r, j]]


#: the largest matrix :func:`bin_columns` copies into Fortran order rather than compile a
#: second specialisation of its kernel for (elements)
SMALL_COPY = 1 << 16


def bin_columns(X, cuts, cut_starts, out_cols, out):
    """out[r, out_cols[j]] = number of cut points of column j below X[r, j], -1 for NaN.

    The cut points of column j are ``cuts[cut_starts[j]:cut_starts[j + 1]]`` (ascending);
    a value is compared as float64, so bin ``i`` holds ``c_{i-1} < x <= c_i`` exactly as
    ``np.searchsorted(cuts, x, side="left")`` places it.  Up to 16 cut points are counted
    without branches, more are searched by bisection.  Blocks of rows on the threads
    (:func:`._threads.parallel_calls`), every column of a block in one pass; a small
    matrix that numba would not type Fortran-ordered (one row, one column, strided) is
    copied into one first, so that the kernel compiles once.  Returns the number of
    infinite values (which the caller refuses)."""
    n = X.shape[0]
    if n == 0:
        return 0
    if X.flags.writeable:  # read-only, as a frame's own values are: one specialisation
        X = X.view()
        X.flags.writeable = False
    small = X.size <= SMALL_COPY and out.size <= SMALL_COPY
    if small and not (typed_fortran(X) and typed_fortran(out)):
        # a few rows (a one-row predict, a small partial_fit chunk) whose layout numba
        # would type other than the F matrices every fit passes: copied into F arrays of at
        # least two rows and columns, so that :func:`_bin_blocks` compiles once
        Xf = padded_fortran(X)
        Xf.flags.writeable = False
        outf = padded_fortran(out)
        n_blocks = (Xf.shape[0] + ROW_BLOCK - 1) // ROW_BLOCK
        infs = np.zeros(n_blocks, dtype=np.int64)
        _bin_blocks(Xf, cuts, cut_starts, out_cols, outf, 0, n_blocks, infs)
        out[...] = outf[:n, :out.shape[1]]
        return int(infs.sum())
    n_blocks = (n + ROW_BLOCK - 1) // ROW_BLOCK
    infs = np.zeros(max(n_blocks, 1), dtype=np.int64)
    work = X.size
    parallel_calls(_bin_blocks, [(X, cuts, cut_starts, out_cols, out, lo, hi, infs)
                                 for lo, hi in parts(n_blocks, work)])
    return int(infs.sum())


@njit(cache=True, nogil=True)
def _bin_blocks(X, cuts, cut_starts, out_cols, out, b0, b1, infs):
    """:func:`bin_columns` of the row blocks ``b0 .. b1 - 1`` (the columns that have cut
    points: ``cut_starts.size - 1``, the first of ``X``'s)."""
    n = X.shape[0]
    a = cut_starts.size - 1
    for b in range(b0, b1):
        r0 = b * ROW_BLOCK
        r1 = min(n, r0 + ROW_BLOCK)
        count = 0
        for j in range(a):
            c0 = cut_starts[j]
            c1 = cut_starts[j + 1]
            col = out_cols[j]
            if c1 - c0 <= 16:
                for r in range(r0, r1):
                    v = np.float64(X[r, j])
                    below = 0
                    for k in range(c0, c1):
                        below += cuts[k] < v
                    count += np.isinf(v)
                    out[r, col] = -1 if np.isnan(v) else below
                continue
            for r in range(r0, r1):
                v = np.float64(X[r, j])
                count += np.isinf(v)
                lo = c0
                hi = c1
                while lo < hi:  # first cut point >= v
                    mid = (lo + hi) >> 1
                    if cuts[mid] < v:
                        lo = mid + 1
                    else:
                        hi = mid
                out[r, col] = -1 if np.isnan(v) else lo - c0
        infs[b] = count


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


def column_medians(X, out):
    """out[j] = median of the non-NaN values of column j of X (0 for a column of NaN only),
    as ``np.median`` gives it.

    NumPy's partition per column (a numba kernel of ``np.median`` took seconds to compile
    for a few milliseconds of work)."""
    X = np.asarray(X, dtype=np.float64)
    for j in range(X.shape[1]):
        col = X[:, j]
        col = col[~np.isnan(col)]
        out[j] = np.median(col) if col.size else 0.0
