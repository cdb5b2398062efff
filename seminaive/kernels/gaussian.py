"""Kernels of Gaussian children (``numeric="gaussian"``): moment counting and AnDE scores.

Moments (:class:`seminaive.tables.MomentTable`): for every entry (parent attributes, numeric
child), a block of shape (cells of the parents, k, 3) holds the weight, sum and sum of
squares of the (centred) values of the child in the rows of each parent cell and class.
Cells count missing parent values in slot 0, as the count blocks do.

Scores: every sub-model of AnDE (Webb et al. 2012, eq. 11) with its numeric children's
log P(x_c | y, x_s) replaced by the Gaussian log density at the estimated mean and variance,
and its parent term P(y, x_s) divided by the widths of its numeric parents' bins (a density,
so that every sub-model estimates the same joint density; see :mod:`seminaive.tables`).
"""

import math

import numpy as np
from numba import njit, prange

from .scoring import (
    _aggregate_row,
    _aggregate_row_weighted,
    qualifying_parents,
    row_cell,
    widest_order,
)

_LOG_2PI = math.log(2.0 * math.pi)


def gaussian_terms(mean, var):
    """(mean, log(2 pi var) / 2, 1 / (2 var)): the log density of v is
    -(norm + (v - mean)^2 * precision)."""
    return mean, 0.5 * (_LOG_2PI + np.log(var)), 0.5 / var


@njit(parallel=True, cache=True)
def count_moments(X, y, w, weighted, V, parents, orders, column, offsets, group_starts, sizes,
                  k, sums):
    """Add the moments of the rows (storage codes ``X``, classes ``y``, numeric values
    ``V`` of shape (n, number of numeric attributes), NaN = missing) to every entry e:
    child column ``column[e]`` of ``V`` given the parents ``parents[e, :orders[e]]``, block
    at ``offsets[e]`` of shape (cells, k, 3).  Entries ``group_starts[q]`` to
    ``group_starts[q + 1] - 1`` share their parents: a row's cell is computed once for
    them."""
    n_rows = X.shape[0]
    for q in prange(group_starts.size - 1):
        first = group_starts[q]
        last = group_starts[q + 1]
        d = orders[first]
        for r in range(n_rows):
            cell = 0
            for t in range(d):
                att = parents[first, t]
                cell = cell * sizes[att] + X[r, att]
            wr = w[r] if weighted else 1.0
            rest = (cell * k + y[r]) * 3
            for e in range(first, last):
                v = V[r, column[e]]
                if math.isnan(v):
                    continue
                base = offsets[e] + rest
                sums[base] += wr
                sums[base + 1] += wr * v
                sums[base + 2] += wr * v * v


@njit(cache=True)
def _level_terms(x, Vr, level, max_order, combos, offsets, sizes, k, order_first, sub_index,
                 lj, lc, lc_offsets, gaussian, missing_code, log_width, grid_offsets, mean,
                 norm, precision, qual, cells, terms):
    """Sub-model scores of one row at one parent order (NaN rows: not qualifying)."""
    n_num = Vr.size
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
        # Gaussian children (slots of members of g hold zeros: no term)
        first = grid_offsets[g] + cells[s] * n_num * k
        for j in range(n_num):
            v = Vr[j]
            if math.isnan(v):
                continue
            cell = first + j * k
            for yy in range(k):
                dv = v - mean[cell + yy]
                terms[s, yy] -= norm[cell + yy] + dv * dv * precision[cell + yy]
    # nominal children from the log-conditional tables
    d = level + 1
    if d > max_order:
        return n_par
    for h in range(order_first[d], order_first[d + 1]):
        cell_h = row_cell(x, h, d, combos, sizes)
        for p in range(d):
            c = combos[h, p]
            xc = x[c]
            if xc == 0 or (gaussian[c] >= 0 and missing_code[c] == 0):
                continue
            s = sub_index[h, p] - p_first
            if not qual[s]:
                continue
            base = lc_offsets[h] + (cell_h * d + p) * k
            if gaussian[c] < 0 or xc == missing_code[c]:
                for yy in range(k):
                    terms[s, yy] += lc[base + yy]
                continue
            # an observed Gaussian child under missing="value": P(observed)
            stride = 1
            for t in range(p + 1, d):
                stride *= sizes[combos[h, t]]
            base = lc_offsets[h] + ((cell_h + (missing_code[c] - xc) * stride) * d + p) * k
            for yy in range(k):
                terms[s, yy] += math.log1p(-math.exp(lc[base + yy]))
    return n_par


@njit(parallel=True, cache=True)
def gaussian_scores(X, V, n, max_order, combos, offsets, sizes, k, order_first, sub_index, lj,
                    lc, lc_offsets, gaussian, missing_code, log_width, grid_offsets, mean, norm,
                    precision, aggregate, weighted, lw, out):
    """Per-class AnDE scores with Gaussian numeric children (see the module docstring).

    ``gaussian[i]``: the index of attribute i among the numeric attributes (-1: nominal);
    ``missing_code[i]``: the storage code of a Gaussian attribute's value for missing
    (``missing="value"``; 0: none), whose child term is then log P(missing | y, x_s) or,
    for an observed value, log (1 - P(missing | y, x_s)) plus the log density;
    ``V`` the centred numeric values of the rows; ``mean``, ``norm`` = log(2 pi var) / 2 and
    ``precision`` = 1 / (2 var) of the estimates (:func:`gaussian_terms`), laid out by
    :meth:`seminaive.tables.MomentTable.grid_terms` (block of parent combination g at
    ``grid_offsets[g]``, shape (cells, numeric attributes, k)); ``log_width[i, code]``
    the log width of a value of a numeric parent (0 otherwise).  Rows cascade to lower
    orders as in :func:`seminaive.kernels.scoring.predict_scores`; with ``weighted``, the
    sub-models are combined with the per-cell log weights ``lw`` as there
    (:func:`seminaive.kernels.scoring.predict_scores_weighted`).
    """
    n_rows, a = X.shape
    widest = widest_order(order_first, n)
    for r in prange(n_rows):
        x = X[r]
        qual = np.empty(widest, dtype=np.bool_)
        cells = np.empty(widest, dtype=np.int64)
        terms = np.empty((widest, k))
        row_w = np.empty(widest)
        level = n
        while True:
            used = qualifying_parents(x, level, combos, offsets, sizes, k, order_first, lj,
                                      qual, cells)
            if used == 0 and level > 0:
                level -= 1
                continue
            n_par = _level_terms(x, V[r], level, max_order, combos, offsets, sizes, k,
                                 order_first, sub_index, lj, lc, lc_offsets, gaussian,
                                 missing_code, log_width, grid_offsets, mean, norm, precision,
                                 qual, cells, terms)
            if not weighted:
                _aggregate_row(terms, n_par, k, aggregate, out[r])
                break
            p_first = order_first[level]
            for s in range(n_par):
                row_w[s] = lw[offsets[p_first + s] // k + cells[s]]
            if _aggregate_row_weighted(terms, row_w, n_par, k, aggregate, out[r]) > 0:
                break
            if level == 0:  # naive Bayes, the single sub-model of order 0
                _aggregate_row(terms, n_par, k, aggregate, out[r])
                break
            level -= 1
