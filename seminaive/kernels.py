"""Numba kernels: every hot loop of the library lives here.

Conventions shared by all kernels
---------------------------------
* ``X`` holds *storage codes*: 0 means "missing / left out", ``1 .. n_values`` are the values.
  ``sizes[i] = n_values[i] + 1`` is the extent of attribute ``i`` in a table block.
* Combinations of distinct attributes are numbered globally, order by order, each order in
  lexicographic order (see :mod:`seminaive.tables`).  ``combos[g, :d]`` are the members of
  combination ``g`` of order ``d`` (padding ``-1``), ``offsets[g]`` the start of its block in
  the flat ``counts`` array.
* A count block of order ``d`` has shape ``(sizes[c0], ..., sizes[c_{d-1}], k)`` in C order:
  the class is the fastest axis, so the ``k`` class counts of one cell are adjacent.
* A log-conditional block of order ``d`` has shape ``(cells, d, k)``: for every cell, the log
  probability of member ``p`` given the other members and the class, for every class.
"""

import math

import numpy as np
from numba import njit, prange

# --------------------------------------------------------------------------------------------
# Counting (one pass over the data; weights may be negative to remove instances)
# --------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def count_order0(y, w, offset, k, counts):
    """Class counts N(y) (serial: a single tiny block)."""
    for r in range(y.shape[0]):
        counts[offset + y[r]] += w[r]


@njit(parallel=True, cache=True, nogil=True)
def count_order1(X, y, w, offsets, sizes, k, counts):
    """N(y, x_i) for every attribute; parallel over attributes, each column read once."""
    n, a = X.shape
    for i in prange(a):
        off = offsets[i]
        for r in range(n):
            counts[off + X[r, i] * k + y[r]] += w[r]


@njit(parallel=True, cache=True, nogil=True)
def count_order2(X, y, w, combos, offsets, sizes, k, counts, block):
    """N(y, x_i, x_j) for every pair; rows in cache-sized blocks, parallel over pairs."""
    n = X.shape[0]
    n_combos = combos.shape[0]
    for start in range(0, n, block):
        stop = min(start + block, n)
        for c in prange(n_combos):
            i = combos[c, 0]
            j = combos[c, 1]
            sj = sizes[j]
            off = offsets[c]
            for r in range(start, stop):
                counts[off + (X[r, i] * sj + X[r, j]) * k + y[r]] += w[r]


@njit(parallel=True, cache=True, nogil=True)
def count_order3(X, y, w, combos, offsets, sizes, k, counts, block):
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
            off = offsets[c]
            for r in range(start, stop):
                counts[off + ((X[r, i] * sj + X[r, j]) * sl + X[r, l]) * k + y[r]] += w[r]


@njit(parallel=True, cache=True, nogil=True)
def count_order_any(X, y, w, combos, offsets, sizes, k, counts, block):
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
                counts[off + cell * k + y[r]] += w[r]


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


# --------------------------------------------------------------------------------------------
# Smoothing: counts -> log-probability tables
# --------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True)
def log_joint_tables(counts, offsets, combos, orders, sizes, k, g_first, g_last, m, laplace,
                     min_count, out):
    """log P(y, x_s) for every parent combination s and cell (seed 000 §2; seed 003 eq 15).

    m-estimate:  (N(y, x_s) + m / (k * prod|X_s|)) / (N_obs(s) + m)
    Laplace:     (N(y, x_s) + 1) / (N_obs(s) + k * prod|X_s|)

    ``N_obs(s)`` counts the rows in which every attribute of s is observed (Weka's AODE uses
    N - N(x_i missing)).  A cell with a missing parent value, or whose frequency N(x_s) is
    below ``min_count``, is marked NaN: it is not used as a super-parent.
    """
    for g in prange(g_first, g_last):
        d = orders[g]
        off = offsets[g]
        n_cells = (offsets[g + 1] - off) // k
        prod_values = 1.0
        for t in range(d):
            prod_values *= max(sizes[combos[g, t]] - 1, 1)
        n_observed = 0.0
        for cell in range(n_cells):
            rest = cell
            observed = True
            for t in range(d - 1, -1, -1):
                s = sizes[combos[g, t]]
                if rest % s == 0:
                    observed = False
                rest //= s
            if observed:
                for yy in range(k):
                    n_observed += counts[off + cell * k + yy]
        if laplace:
            log_den = math.log(n_observed + k * prod_values)
        else:
            log_den = math.log(n_observed + m)
        for cell in range(n_cells):
            rest = cell
            observed = True
            for t in range(d - 1, -1, -1):
                s = sizes[combos[g, t]]
                if rest % s == 0:
                    observed = False
                rest //= s
            freq = 0.0
            for yy in range(k):
                freq += counts[off + cell * k + yy]
            usable = observed and (d == 0 or freq >= min_count)
            for yy in range(k):
                idx = off + cell * k + yy
                if not usable:
                    out[idx] = np.nan
                elif laplace:
                    out[idx] = math.log(counts[idx] + 1.0) - log_den
                else:
                    out[idx] = math.log(counts[idx] + m / (k * prod_values)) - log_den


@njit(parallel=True, cache=True)
def log_conditional_tables(counts, offsets, combos, orders, sizes, k, g_first, g_last,
                           lc_offsets, m, laplace, out):
    """log P(x_c | y, x_rest) for every combination, member c and cell (seed 003 eq 16).

    m-estimate:  (N(y, x_rest, x_c) + m / |X_c|) / (N(y, x_rest) - N(y, x_rest, x_c missing) + m)
    Laplace:     (N(y, x_rest, x_c) + 1) / (N(y, x_rest) - N(y, x_rest, x_c missing) + |X_c|)

    A missing child value gets log 1 = 0: it is left out of the product.
    Output block layout: (cells, d, k).
    """
    for g in prange(g_first, g_last):
        d = orders[g]
        off = offsets[g]
        total = offsets[g + 1] - off
        out_off = lc_offsets[g]
        for p in range(d):
            child = combos[g, p]
            s_child = sizes[child]
            n_values = max(s_child - 1, 1)
            cell_stride = 1
            for t in range(p + 1, d):
                cell_stride *= sizes[combos[g, t]]
            stride = cell_stride * k
            n_outer = total // (s_child * stride)
            for hi in range(n_outer):
                for lo in range(stride):
                    base = hi * s_child * stride + lo
                    den = 0.0
                    for v in range(1, s_child):
                        den += counts[off + base + v * stride]
                    if laplace:
                        log_den = math.log(den + n_values)
                    else:
                        log_den = math.log(den + m)
                    yy = base % k
                    for v in range(s_child):
                        flat = base + v * stride
                        cell = flat // k
                        target = out_off + (cell * d + p) * k + yy
                        if v == 0:
                            out[target] = 0.0
                        elif laplace:
                            out[target] = math.log(counts[off + flat] + 1.0) - log_den
                        else:
                            out[target] = math.log(counts[off + flat] + m / n_values) - log_den


# --------------------------------------------------------------------------------------------
# Classification
# --------------------------------------------------------------------------------------------

AGGREGATE_JOINT = 0
AGGREGATE_POSTERIOR = 1
AGGREGATE_VOTE = 2


@njit(cache=True)
def _row_scores(x, level, combos, orders, offsets, sizes, k, order_first, lj, lc, lc_offsets,
                sub_index, terms):
    """Fill ``terms[s]`` with log P(y, x_s) + sum_i log P(x_i | y, x_s) for every parent s of
    the given order; rows of non-qualifying parents start with NaN.  Returns nothing."""
    p_first = order_first[level]
    p_last = order_first[level + 1]
    for g in range(p_first, p_last):
        cell = 0
        for t in range(level):
            att = combos[g, t]
            cell = cell * sizes[att] + x[att]
        base = offsets[g] + cell * k
        for yy in range(k):
            terms[g - p_first, yy] = lj[base + yy]
    d = level + 1
    for h in range(order_first[d], order_first[d + 1]):
        cell = 0
        for t in range(d):
            att = combos[h, t]
            cell = cell * sizes[att] + x[att]
        base = lc_offsets[h] + cell * d * k
        for p in range(d):
            if x[combos[h, p]] == 0:
                continue
            s = sub_index[h, p] - p_first
            for yy in range(k):
                terms[s, yy] += lc[base + p * k + yy]


@njit(parallel=True, cache=True)
def predict_scores(X, n, max_order, combos, orders, offsets, sizes, k, order_first, lj, lc,
                   lc_offsets, sub_index, aggregate, out):
    """Per-class scores of AnDE (seed 000 eq 11 with cascade to A(n-1)DE).

    aggregate = JOINT:      out = log( mean_s P(y, x_s) prod_i P(x_i | y, x_s) )
    aggregate = POSTERIOR:  out = log( mean_s P_s(y | x) )          (PAnDE, seed 000 §4.4)
    aggregate = VOTE:       out = log( fraction of sub-models whose argmax is y )  (FAnDE)
    Super-parents are the qualifying combinations of order n; if none qualifies the row
    cascades to order n - 1, and so on down to naive Bayes.
    """
    n_rows = X.shape[0]
    max_parents = 0
    for level in range(n + 1):
        max_parents = max(max_parents, order_first[level + 1] - order_first[level])
    chunk = 64
    n_chunks = (n_rows + chunk - 1) // chunk
    for ch in prange(n_chunks):
        terms = np.empty((max_parents, k))
        x = np.empty(X.shape[1], dtype=np.int64)
        for r in range(ch * chunk, min(n_rows, (ch + 1) * chunk)):
            for i in range(X.shape[1]):
                x[i] = X[r, i]
            for level in range(n, -1, -1):
                if level + 1 > max_order:
                    # n equals the number of attributes: only the joint, no children
                    p_first = order_first[level]
                    for g in range(p_first, order_first[level + 1]):
                        cell = 0
                        for t in range(level):
                            att = combos[g, t]
                            cell = cell * sizes[att] + x[att]
                        for yy in range(k):
                            terms[g - p_first, yy] = lj[offsets[g] + cell * k + yy]
                else:
                    _row_scores(x, level, combos, orders, offsets, sizes, k, order_first, lj,
                                lc, lc_offsets, sub_index, terms)
                n_par = order_first[level + 1] - order_first[level]
                used = 0
                for s in range(n_par):
                    if not math.isnan(terms[s, 0]):
                        used += 1
                if used == 0:
                    continue
                for yy in range(k):
                    out[r, yy] = -np.inf
                if aggregate == AGGREGATE_VOTE:
                    for yy in range(k):
                        out[r, yy] = 0.0
                    for s in range(n_par):
                        if math.isnan(terms[s, 0]):
                            continue
                        best = 0
                        for yy in range(1, k):
                            if terms[s, yy] > terms[s, best]:
                                best = yy
                        out[r, best] += 1.0
                    for yy in range(k):
                        out[r, yy] = math.log(out[r, yy] / used) if out[r, yy] > 0 else -np.inf
                    break
                if aggregate == AGGREGATE_POSTERIOR:
                    for s in range(n_par):
                        if math.isnan(terms[s, 0]):
                            continue
                        top = terms[s, 0]
                        for yy in range(1, k):
                            top = max(top, terms[s, yy])
                        acc = 0.0
                        for yy in range(k):
                            acc += math.exp(terms[s, yy] - top)
                        norm = top + math.log(acc)
                        for yy in range(k):
                            terms[s, yy] -= norm
                # log-sum-exp over the used sub-models, per class
                for yy in range(k):
                    top = -np.inf
                    for s in range(n_par):
                        if not math.isnan(terms[s, 0]) and terms[s, yy] > top:
                            top = terms[s, yy]
                    if top == -np.inf:
                        out[r, yy] = -np.inf
                        continue
                    acc = 0.0
                    for s in range(n_par):
                        if not math.isnan(terms[s, 0]):
                            acc += math.exp(terms[s, yy] - top)
                    out[r, yy] = top + math.log(acc) - math.log(used)
                break
