"""Kernels of Gaussian children (``numeric="gaussian"``): moment counting and AnDE scores.

Moments (:class:`seminaive.tables.MomentTable`): for every entry (parent attributes, numeric
child), a block of shape (cells of the parents, k, 3) holds the weight, sum and sum of
squares of the (centred) values of the child in the rows of each parent cell and class.
Cells count missing parent values in slot 0, as the count blocks do.  The AnDE scoring
kernel reads the entries of (parent combination g, j-th numeric attribute) at
``moment_offsets[g, j]`` (-1 where the attribute is a member of g).

Scores: every sub-model of AnDE (Webb et al. 2012, eq. 11) with its numeric children's
log P(x_c | y, x_s) replaced by the Gaussian log density at the estimated mean and variance,
and its parent term P(y, x_s) divided by the widths of its numeric parents' bins (a density,
so that every sub-model estimates the same joint density; see :mod:`seminaive.tables`).
"""

import math

import numpy as np
from numba import njit, prange

from .scoring import _aggregate_row

_LOG_2PI = math.log(2.0 * math.pi)


@njit(parallel=True, cache=True)
def count_moments(X, y, w, weighted, V, parents, orders, column, offsets, sizes, k, sums):
    """Add the moments of the rows (storage codes ``X``, classes ``y``, numeric values
    ``V`` of shape (n, number of numeric attributes), NaN = missing) to every entry e:
    child column ``column[e]`` of ``V`` given the parents ``parents[e, :orders[e]]``, block
    at ``offsets[e]`` of shape (cells, k, 3)."""
    n_rows = X.shape[0]
    for e in prange(orders.size):
        d = orders[e]
        j = column[e]
        off = offsets[e]
        for r in range(n_rows):
            v = V[r, j]
            if math.isnan(v):
                continue
            cell = 0
            for t in range(d):
                att = parents[e, t]
                cell = cell * sizes[att] + X[r, att]
            wr = w[r] if weighted else 1.0
            base = off + (cell * k + y[r]) * 3
            sums[base] += wr
            sums[base + 1] += wr * v
            sums[base + 2] += wr * v * v


@njit(cache=True, inline="always")
def _qualifying(x, level, combos, offsets, sizes, k, order_first, lj, qual, cells):
    """Cells of the parent combinations of one order in row x, and which qualify."""
    p_first = order_first[level]
    used = 0
    for g in range(p_first, order_first[level + 1]):
        cell = 0
        for t in range(level):
            att = combos[g, t]
            cell = cell * sizes[att] + x[att]
        cells[g - p_first] = cell
        ok = not math.isnan(lj[offsets[g] + cell * k])
        qual[g - p_first] = ok
        if ok:
            used += 1
    return used


@njit(parallel=True, cache=True)
def gaussian_scores(X, V, n, max_order, combos, offsets, sizes, k, order_first, sub_index, lj,
                    lc, lc_offsets, gaussian, log_width, moment_offsets, mean, var,
                    aggregate, out):
    """Per-class AnDE scores with Gaussian numeric children (see the module docstring).

    ``gaussian[i]``: the index of attribute i among the numeric attributes (-1: nominal);
    ``V`` the centred numeric values of the rows; ``mean`` and ``var`` the estimates, one
    per (cell, class) of every moment block (``moment_offsets // 3``); ``log_width[i, code]``
    the log width of a value of a numeric parent (0 otherwise).  Rows cascade to lower
    orders as in :func:`seminaive.kernels.scoring.predict_scores`.
    """
    n_rows, a = X.shape
    n_num = V.shape[1]
    widest = 0
    for level in range(n + 1):
        widest = max(widest, order_first[level + 1] - order_first[level])
    for r in prange(n_rows):
        x = X[r]
        qual = np.empty(widest, dtype=np.bool_)
        cells = np.empty(widest, dtype=np.int64)
        terms = np.empty((widest, k))
        level = n
        while True:
            used = _qualifying(x, level, combos, offsets, sizes, k, order_first, lj, qual,
                               cells)
            if used > 0 or level == 0:
                break
            level -= 1
        p_first = order_first[level]
        n_par = order_first[level + 1] - p_first
        for s in range(n_par):
            g = p_first + s
            if not qual[s]:
                for yy in range(k):
                    terms[s, yy] = np.nan
                continue
            base = offsets[g] + cells[s] * k
            correction = 0.0
            for t in range(level):
                att = combos[g, t]
                correction += log_width[att, x[att]]
            for yy in range(k):
                terms[s, yy] = lj[base + yy] - correction
            # Gaussian children
            for j in range(n_num):
                off = moment_offsets[g, j]
                v = V[r, j]
                if off < 0 or math.isnan(v):
                    continue
                cell = off // 3 + cells[s] * k
                for yy in range(k):
                    s2 = var[cell + yy]
                    dv = v - mean[cell + yy]
                    terms[s, yy] -= 0.5 * (_LOG_2PI + math.log(s2) + dv * dv / s2)
        # nominal children from the log-conditional tables
        d = level + 1
        if d <= max_order:
            for h in range(order_first[d], order_first[d + 1]):
                cell_h = 0
                for t in range(d):
                    att = combos[h, t]
                    cell_h = cell_h * sizes[att] + x[att]
                for p in range(d):
                    c = combos[h, p]
                    if x[c] == 0 or gaussian[c] >= 0:
                        continue
                    s = sub_index[h, p] - p_first
                    if not qual[s]:
                        continue
                    base = lc_offsets[h] + (cell_h * d + p) * k
                    for yy in range(k):
                        terms[s, yy] += lc[base + yy]
        _aggregate_row(terms, n_par, k, aggregate, out[r])
