"""Counting kernels: one pass over the data into the count blocks; table maintenance."""


import numpy as np
from numba import njit, prange

# --------------------------------------------------------------------------------------------
# Counting (one pass over the data; weights may be negative to remove instances)
# --------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def count_order0(y, w, weighted, offset, k, counts):
    """Class counts N(y) (serial: a single tiny block)."""
    for r in range(y.shape[0]):
        counts[offset + y[r]] += w[r] if weighted else 1.0


LANES = 4  # independent partial histograms, so that consecutive rows hitting the same cell
# do not wait on each other's read-modify-write


@njit(cache=True, inline="always")
def _flush_lanes(local, n_cells, counts, off):
    for q in range(n_cells):
        acc = 0.0
        for lane in range(LANES):
            acc += float(local[lane * n_cells + q])
        counts[off + q] += acc


@njit(cache=True, inline="always")
def _histogram(cells, y, w, weighted, start, stop, k, n_cells, counts, off):
    """Add the lane histogram of ``cells[r - start] * k + y[r]`` over rows start..stop to
    ``counts[off:]``; ``n_cells`` counts attribute-value cells (the class axis is added)."""
    total = n_cells * k
    if weighted:
        local = np.zeros(LANES * total)
        for r in range(start, stop):
            local[(r & 3) * total + cells[r - start] * k + y[r]] += w[r]
        _flush_lanes(local, total, counts, off)
    else:
        ones = np.zeros(LANES * total, dtype=np.int32)
        for r in range(start, stop):
            ones[(r & 3) * total + cells[r - start] * k + y[r]] += 1
        _flush_lanes(ones, total, counts, off)


@njit(parallel=True, cache=True, nogil=True)
def count_order1(X, y, w, weighted, offsets, sizes, k, counts, block):
    """N(y, x_i) for every attribute; parallel over attributes."""
    n, a = X.shape
    for i in prange(a):
        n_cells = sizes[i]
        cells = np.empty(block, dtype=np.int32)
        for start in range(0, n, block):
            stop = min(start + block, n)
            for r in range(start, stop):
                cells[r - start] = X[r, i]
            _histogram(cells, y, w, weighted, start, stop, k, n_cells, counts, offsets[i])


@njit(parallel=True, cache=True, nogil=True)
def count_order2(X, y, w, weighted, combos, offsets, sizes, k, counts, block):
    """N(y, x_i, x_j) for every pair; rows in cache-sized blocks, parallel over pairs."""
    n = X.shape[0]
    n_combos = combos.shape[0]
    for start in range(0, n, block):
        stop = min(start + block, n)
        for c in prange(n_combos):
            i = combos[c, 0]
            j = combos[c, 1]
            sj = sizes[j]
            cells = np.empty(stop - start, dtype=np.int32)
            for r in range(start, stop):
                cells[r - start] = X[r, i] * sj + X[r, j]
            _histogram(cells, y, w, weighted, start, stop, k, sizes[i] * sj, counts, offsets[c])


@njit(parallel=True, cache=True, nogil=True)
def count_order3(X, y, w, weighted, combos, offsets, sizes, k, counts, block):
    """N(y, x_i, x_j, x_l) for every triple."""
    n = X.shape[0]
    n_combos = combos.shape[0]
    for start in range(0, n, block):
        stop = min(start + block, n)
        for c in prange(n_combos):
            i = combos[c, 0]
            j = combos[c, 1]
            l = combos[c, 2]
            sj = sizes[j]
            sl = sizes[l]
            cells = np.empty(stop - start, dtype=np.int32)
            for r in range(start, stop):
                cells[r - start] = (X[r, i] * sj + X[r, j]) * sl + X[r, l]
            n_cells = sizes[i] * sj * sl
            _histogram(cells, y, w, weighted, start, stop, k, n_cells, counts, offsets[c])


@njit(parallel=True, cache=True, nogil=True)
def count_order_any(X, y, w, weighted, combos, offsets, sizes, k, counts, block):
    """Joint counts for combinations of any order (used for order >= 4)."""
    n = X.shape[0]
    n_combos, d = combos.shape
    for start in range(0, n, block):
        stop = min(start + block, n)
        for c in prange(n_combos):
            off = offsets[c]
            for r in range(start, stop):
                cell = 0
                for t in range(d):
                    att = combos[c, t]
                    cell = cell * sizes[att] + X[r, att]
                counts[off + cell * k + y[r]] += w[r] if weighted else 1.0


# --------------------------------------------------------------------------------------------
# Table maintenance
# --------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True)
def regrid(old_counts, old_offsets, old_sizes, new_counts, new_offsets, new_sizes, combos,
           orders, k):
    """Copy every block into a layout with larger attribute extents (new values appended)."""
    for g in prange(combos.shape[0]):
        d = orders[g]
        n_cells = (old_offsets[g + 1] - old_offsets[g]) // k
        for cell in range(n_cells):
            # decode the old cell, re-encode it with the new extents
            rest = cell
            new_cell = 0
            mult = 1
            for t in range(d - 1, -1, -1):
                att = combos[g, t]
                coord = rest % old_sizes[att]
                rest //= old_sizes[att]
                new_cell += coord * mult
                mult *= new_sizes[att]
            for yy in range(k):
                new_counts[new_offsets[g] + new_cell * k + yy] = (
                    old_counts[old_offsets[g] + cell * k + yy])


@njit(cache=True)
def sub_combination_index(combos, orders, ext_first, order_first, max_order, out):
    """``out[g, p]``: global index of combination g without its member p."""
    for g in range(order_first[1], order_first[max_order + 1]):
        d = orders[g]
        for p in range(d):
            h = 0
            prev = -1
            for t in range(d):
                if t == p:
                    continue
                e = combos[g, t]
                h = ext_first[h] + (e - prev - 1)
                prev = e
            out[g, p] = h
