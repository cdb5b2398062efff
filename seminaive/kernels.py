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
def _aggregate_row(terms, n_par, k, aggregate, out_row):
    """Combine the sub-model scores of one row (rows of non-qualifying parents are NaN).

    Returns the number of sub-models used (0: the caller cascades to a lower order)."""
    used = 0
    for s in range(n_par):
        if not math.isnan(terms[s, 0]):
            used += 1
    if used == 0:
        return 0
    if aggregate == AGGREGATE_VOTE:
        for yy in range(k):
            out_row[yy] = 0.0
        for s in range(n_par):
            if math.isnan(terms[s, 0]):
                continue
            best = 0
            for yy in range(1, k):
                if terms[s, yy] > terms[s, best]:
                    best = yy
            out_row[best] += 1.0
        for yy in range(k):
            out_row[yy] = math.log(out_row[yy] / used) if out_row[yy] > 0 else -np.inf
        return used
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
            out_row[yy] = -np.inf
            continue
        acc = 0.0
        for s in range(n_par):
            if not math.isnan(terms[s, 0]):
                acc += math.exp(terms[s, yy] - top)
        out_row[yy] = top + math.log(acc) - math.log(used)
    return used


@njit(cache=True)
def _parent_terms(xs, level, combos, offsets, sizes, k, order_first, lj, terms):
    """terms[s, y] = log P(y, x_s) for every parent combination s (NaN if unusable)."""
    p_first = order_first[level]
    for g in range(p_first, order_first[level + 1]):
        cell = 0
        for t in range(level):
            att = combos[g, t]
            cell = cell * sizes[att] + xs[att]
        base = offsets[g] + cell * k
        for yy in range(k):
            terms[g - p_first, yy] = lj[base + yy]


@njit(cache=True)
def _row_scores(x, level, max_order, combos, offsets, sizes, k, order_first, lj, lc,
                lc_offsets, sub_index, terms):
    """Sub-model scores of one row at one order (used for rows that cascade)."""
    _parent_terms(x, level, combos, offsets, sizes, k, order_first, lj, terms)
    d = level + 1
    if d > max_order:
        return
    p_first = order_first[level]
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


PREDICT_CHUNK_ROWS = 256


@njit(parallel=True, cache=True)
def predict_scores(X, n, max_order, combos, orders, offsets, sizes, k, order_first, lj, lc,
                   lc_offsets, sub_index, aggregate, out):
    """Per-class scores of AnDE (seed 000 eq 11, with the cascade to A(n-1)DE).

    aggregate = JOINT:      out = log( mean_s P(y, x_s) prod_i P(x_i | y, x_s) )
    aggregate = POSTERIOR:  out = log( mean_s P_s(y | x) )          (PAnDE, seed 000 §4.4)
    aggregate = VOTE:       out = log( fraction of sub-models whose argmax is y )  (FAnDE)

    Rows are processed in chunks: every table block is visited once per chunk, so the tables
    stream through the cache and per-combination constants are loaded once per chunk.
    Super-parents are the qualifying combinations of order n; a row in which none qualifies
    cascades to order n - 1, and so on down to naive Bayes.
    """
    n_rows, a = X.shape
    max_parents = 0
    for level in range(n + 1):
        max_parents = max(max_parents, order_first[level + 1] - order_first[level])
    chunk = PREDICT_CHUNK_ROWS
    n_chunks = (n_rows + chunk - 1) // chunk
    p_first = order_first[n]
    n_par = order_first[n + 1] - p_first
    d = n + 1
    for ch in prange(n_chunks):
        r0 = ch * chunk
        r1 = min(n_rows, r0 + chunk)
        m = r1 - r0
        xs = np.empty((a, m), dtype=np.int64)
        for r in range(m):
            for i in range(a):
                xs[i, r] = X[r0 + r, i]
        # terms[s, r, y]: rows contiguous for a fixed sub-model
        terms = np.empty((n_par, m, k))
        for g in range(p_first, order_first[n + 1]):
            off = offsets[g]
            for r in range(m):
                cell = 0
                for t in range(n):
                    att = combos[g, t]
                    cell = cell * sizes[att] + xs[att, r]
                for yy in range(k):
                    terms[g - p_first, r, yy] = lj[off + cell * k + yy]
        if d <= max_order:
            cells = np.empty(m, dtype=np.int64)
            for h in range(order_first[d], order_first[d + 1]):
                for r in range(m):
                    cells[r] = 0
                for t in range(d):
                    att = combos[h, t]
                    s_att = sizes[att]
                    for r in range(m):
                        cells[r] = cells[r] * s_att + xs[att, r]
                base_h = lc_offsets[h]
                for p in range(d):
                    s = sub_index[h, p] - p_first
                    # a missing child reads the 0.0 of its missing slot: no branch needed
                    for r in range(m):
                        base = base_h + (cells[r] * d + p) * k
                        for yy in range(k):
                            terms[s, r, yy] += lc[base + yy]
        row_terms = np.empty((max_parents, k))
        x = np.empty(a, dtype=np.int64)
        for r in range(m):
            for s in range(n_par):
                for yy in range(k):
                    row_terms[s, yy] = terms[s, r, yy]
            if _aggregate_row(row_terms, n_par, k, aggregate, out[r0 + r]) > 0:
                continue
            # cascade: no parent of order n qualifies in this row
            for i in range(a):
                x[i] = xs[i, r]
            for level in range(n - 1, -1, -1):
                _row_scores(x, level, max_order, combos, offsets, sizes, k, order_first, lj,
                            lc, lc_offsets, sub_index, row_terms)
                n_low = order_first[level + 1] - order_first[level]
                if _aggregate_row(row_terms, n_low, k, aggregate, out[r0 + r]) > 0:
                    break


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
