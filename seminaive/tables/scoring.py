"""Classification kernels: AnDE scores from the log tables, with the cascade."""

import math
from typing import NamedTuple

import numpy as np

from ..kernels._jit import njit, prange
from ..kernels.smoothing import pseudo_counts

# --------------------------------------------------------------------------------------------
# Classification
# --------------------------------------------------------------------------------------------

AGGREGATE_JOINT = 0
AGGREGATE_POSTERIOR = 1
AGGREGATE_VOTE = 2


class ScoringTables(NamedTuple):
    """What the scoring kernels read of a fitted table, in one typed bundle (built by
    :meth:`seminaive.tables.FrequencyTable.scores`).  The kernels only read it; what they
    write (the scores, scratch rows) is passed apart.

    A kernel takes the bundle apart by position, in the order of the fields::

        combos, offsets, sizes, k, order_first, max_order, lj, lc, lc_offsets, sub_index = tables
    """

    combos: np.ndarray  # members of each combination, padded with -1
    offsets: np.ndarray  # start of each parent combination's log joints in lj
    sizes: np.ndarray  # n_values + 1 per attribute (code 0: missing)
    k: int  # number of classes
    order_first: np.ndarray  # combinations of order d: order_first[d]:order_first[d + 1]
    max_order: int  # highest order held (children of parents of order max_order - 1)
    lj: np.ndarray  # log P(y, x_s), NaN where the parent does not qualify
    lc: np.ndarray  # log P(x_c | y, x_s) in the layout of lc_offsets
    lc_offsets: np.ndarray
    sub_index: np.ndarray  # sub_index[h, p]: the sub-model of h without member p (-1: none)


@njit(cache=True, inline="always")
def combination_cells(combos, h, d, sizes, xs, n_rows, cells):
    """``cells[r]``: the row-major cell of rows ``r < n_rows`` (storage codes ``xs``, one row
    per attribute) in the table of the ``d``-attribute combination ``combos[h, :d]``."""
    for r in range(n_rows):
        cells[r] = 0
    for t in range(d):
        att = combos[h, t]
        s_att = sizes[att]
        for r in range(n_rows):
            cells[r] = cells[r] * s_att + xs[att, r]


@njit(cache=True, inline="always")
def _normalise_sub_model(terms, s, k):
    """Turn sub-model s's log joint scores into its log posterior (log-sum-exp over y)."""
    top = terms[s, 0]
    for yy in range(1, k):
        top = max(top, terms[s, yy])
    acc = 0.0
    for yy in range(k):
        acc += math.exp(terms[s, yy] - top)
    norm = top + math.log(acc)
    for yy in range(k):
        terms[s, yy] -= norm


#: scores within this relative distance of each other are a tie in a sub-model's vote
VOTE_TIE_TOLERANCE = 1e-12


@njit(cache=True, inline="always")
def vote_winner(terms, s, k):
    """The class sub-model ``s`` votes for: the highest score, where scores within
    ``VOTE_TIE_TOLERANCE`` of each other relative to their magnitude are a tie, won by the
    lowest class index (so that a mathematical tie does not go to whichever class rounding
    favoured)."""
    best = 0
    for yy in range(1, k):
        margin = VOTE_TIE_TOLERANCE * max(1.0, abs(terms[s, best]))
        if terms[s, yy] > terms[s, best] + margin:
            best = yy
    return best


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
            out_row[vote_winner(terms, s, k)] += 1.0
        for yy in range(k):
            out_row[yy] = math.log(out_row[yy] / used) if out_row[yy] > 0 else -np.inf
        return used
    if aggregate == AGGREGATE_POSTERIOR:
        for s in range(n_par):
            if math.isnan(terms[s, 0]):
                continue
            _normalise_sub_model(terms, s, k)
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
def _aggregate_row_weighted(terms, log_w, n_par, k, aggregate, out_row):
    """Weighted combination of the sub-model scores of one row.

    Sub-model s enters with weight w_s = exp(log_w[s]); it is used when it qualifies (its
    terms are not NaN) and w_s > 0.  With W = sum of the used weights:

    JOINT:      out = log( sum_s w_s P_s(y, x) / W )     (weighted AnDE, WAODE, MAPLMG)
    POSTERIOR:  out = log( sum_s w_s P_s(y | x) / W )    (linear opinion pool, MAPLMD)
    VOTE:       out = log( weight of the sub-models whose argmax is y / W )

    Returns the number of sub-models used (0: the caller cascades to a lower order).
    """
    used = 0
    top_w = -np.inf
    for s in range(n_par):
        if not math.isnan(terms[s, 0]) and log_w[s] > -np.inf:
            used += 1
            if log_w[s] > top_w:
                top_w = log_w[s]
    if used == 0:
        return 0
    acc = 0.0
    for s in range(n_par):
        if not math.isnan(terms[s, 0]) and log_w[s] > -np.inf:
            acc += math.exp(log_w[s] - top_w)
    log_total = top_w + math.log(acc)
    if aggregate == AGGREGATE_VOTE:
        for yy in range(k):
            out_row[yy] = 0.0
        for s in range(n_par):
            if math.isnan(terms[s, 0]) or log_w[s] == -np.inf:
                continue
            out_row[vote_winner(terms, s, k)] += math.exp(log_w[s] - log_total)
        for yy in range(k):
            out_row[yy] = math.log(out_row[yy]) if out_row[yy] > 0 else -np.inf
        return used
    if aggregate == AGGREGATE_POSTERIOR:
        for s in range(n_par):
            if math.isnan(terms[s, 0]) or log_w[s] == -np.inf:
                continue
            _normalise_sub_model(terms, s, k)
    for yy in range(k):
        top = -np.inf
        for s in range(n_par):
            if not math.isnan(terms[s, 0]) and log_w[s] > -np.inf:
                top = max(top, terms[s, yy] + log_w[s])
        if top == -np.inf:
            out_row[yy] = -np.inf
            continue
        acc = 0.0
        for s in range(n_par):
            if not math.isnan(terms[s, 0]) and log_w[s] > -np.inf:
                acc += math.exp(terms[s, yy] + log_w[s] - top)
        out_row[yy] = top + math.log(acc) - log_total
    return used


@njit(cache=True, inline="always")
def row_cell(x, g, d, combos, sizes):
    """The cell of row ``x`` (storage codes) in the block of the ``d``-attribute combination
    ``combos[g, :d]``."""
    cell = 0
    for t in range(d):
        att = combos[g, t]
        cell = cell * sizes[att] + x[att]
    return cell


@njit(cache=True, inline="always")
def widest_order(order_first, n):
    """The largest number of parent combinations of one order, over orders 0..n."""
    widest = 0
    for level in range(n + 1):
        widest = max(widest, order_first[level + 1] - order_first[level])
    return widest


@njit(cache=True, inline="always")
def qualifying_parents(x, level, combos, offsets, sizes, k, order_first, lj, qual, cells):
    """The cells (``cells``) of the parent combinations of one order in row x and which
    qualify (``qual``: their log joint is not NaN, i.e. every parent observed and frequent
    enough); returns how many qualify."""
    p_first = order_first[level]
    used = 0
    for g in range(p_first, order_first[level + 1]):
        cell = row_cell(x, g, level, combos, sizes)
        cells[g - p_first] = cell
        ok = not math.isnan(lj[offsets[g] + cell * k])
        qual[g - p_first] = ok
        if ok:
            used += 1
    return used


@njit(cache=True)
def _parent_terms(xs, level, combos, offsets, sizes, k, order_first, lj, terms, weighted, lw,
                  log_w):
    """terms[s, y] = log P(y, x_s) for every parent combination s of one order (NaN if
    unusable); with ``weighted``, also log_w[s] = the log weight of the same cell x_s
    (``lw`` holds one entry per cell of the count layout: index offsets[g] // k + cell),
    the cell computed once for both."""
    p_first = order_first[level]
    for g in range(p_first, order_first[level + 1]):
        cell = 0
        for t in range(level):
            att = combos[g, t]
            cell = cell * sizes[att] + xs[att]
        base = offsets[g] + cell * k
        for yy in range(k):
            terms[g - p_first, yy] = lj[base + yy]
        if weighted:
            log_w[g - p_first] = lw[offsets[g] // k + cell]


@njit(cache=True)
def _row_scores(x, level, tables, terms, weighted, lw, log_w):
    """Sub-model scores of one row at one order (used for rows that cascade), and with
    ``weighted`` their log weights ``log_w`` (:func:`_parent_terms`); ``tables``: a
    :class:`ScoringTables`."""
    combos, offsets, sizes, k, order_first, max_order, lj, lc, lc_offsets, sub_index = tables
    _parent_terms(x, level, combos, offsets, sizes, k, order_first, lj, terms, weighted, lw,
                  log_w)
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
            if x[combos[h, p]] == 0 or sub_index[h, p] < 0:  # -1: no such sub-model
                continue
            s = sub_index[h, p] - p_first
            for yy in range(k):
                terms[s, yy] += lc[base + p * k + yy]


PREDICT_CHUNK_ROWS = 256


def predict_scores(X, n, tables, aggregate, out):
    """Per-class scores of AnDE (Webb et al. 2012, eq. 11, with the cascade to A(n-1)DE); see
    :func:`_predict_scores` (unweighted: every qualifying sub-model has the same weight).
    ``tables``: a :class:`ScoringTables`."""
    _predict_scores(X, n, tables, aggregate, False, _NO_WEIGHTS, out)


def predict_scores_weighted(X, n, tables, aggregate, lw, out):
    """Per-class scores of a weighted AnDE: sub-model s with parent cell x_s has weight
    exp(lw[offsets[s] // k + cell(x_s)]) (one log weight per cell of orders 0..n; -inf leaves
    the sub-model out); see :func:`_aggregate_row_weighted` and :func:`_predict_scores`."""
    _predict_scores(X, n, tables, aggregate, True, lw, out)


_NO_WEIGHTS = np.zeros(1, dtype=np.float64)


@njit(parallel=True, cache=True)
def _predict_scores(X, n, tables, aggregate, weighted, lw, out):
    """Per-class scores of AnDE (Webb et al. 2012, eq. 11, with the cascade to A(n-1)DE).

    aggregate = JOINT:      out = log( mean_s P(y, x_s) prod_i P(x_i | y, x_s) )
    aggregate = POSTERIOR:  out = log( mean_s P_s(y | x) )          (PAnDE, Webb et al. 2012, §4.4)
    aggregate = VOTE:       out = log( fraction of sub-models whose argmax is y )  (FAnDE)

    Rows are processed in chunks: every table block is visited once per chunk, so the tables
    stream through the cache and per-combination constants are loaded once per chunk.
    Super-parents are the qualifying combinations of order n; a row in which none qualifies
    cascades to order n - 1, and so on down to naive Bayes.

    ``weighted``: the sub-models are combined with the per-cell weights ``lw`` (log weights,
    layout of :func:`predict_scores_weighted`) by :func:`_aggregate_row_weighted`; a row in
    which no qualifying sub-model has a positive weight cascades.  The unweighted path runs
    exactly the arithmetic of the plain average.

    ``tables`` (a :class:`ScoringTables`, an argument: the ``prange`` loop may hand it on
    whole) is taken apart here, so that the loop reads the same arrays as before it was
    bundled.
    """
    combos, offsets, sizes, k, order_first, max_order, lj, lc, lc_offsets, sub_index = tables
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
        chunk_w = np.empty((n_par if weighted else 0, m))
        if weighted:
            for g in range(p_first, order_first[n + 1]):
                cell_first = offsets[g] // k
                for r in range(m):
                    cell = 0
                    for t in range(n):
                        att = combos[g, t]
                        cell = cell * sizes[att] + xs[att, r]
                    chunk_w[g - p_first, r] = lw[cell_first + cell]
        if d <= max_order:
            cells = np.empty(m, dtype=np.int64)
            for h in range(order_first[d], order_first[d + 1]):
                combination_cells(combos, h, d, sizes, xs, m, cells)
                base_h = lc_offsets[h]
                for p in range(d):
                    if sub_index[h, p] < 0:  # a selective table: no sub-model h - {p}
                        continue
                    s = sub_index[h, p] - p_first
                    # a missing child reads the 0.0 of its missing slot: no branch needed
                    for r in range(m):
                        base = base_h + (cells[r] * d + p) * k
                        for yy in range(k):
                            terms[s, r, yy] += lc[base + yy]
        row_terms = np.empty((max_parents, k))
        row_w = np.empty(max_parents if weighted else 0)
        x = np.empty(a, dtype=np.int64)
        for r in range(m):
            for s in range(n_par):
                for yy in range(k):
                    row_terms[s, yy] = terms[s, r, yy]
            if weighted:
                for s in range(n_par):
                    row_w[s] = chunk_w[s, r]
                if _aggregate_row_weighted(row_terms, row_w, n_par, k, aggregate,
                                           out[r0 + r]) > 0:
                    continue
            elif _aggregate_row(row_terms, n_par, k, aggregate, out[r0 + r]) > 0:
                continue
            # cascade: no parent of order n qualifies in this row
            for i in range(a):
                x[i] = xs[i, r]
            cascade_row(x, n, tables, aggregate, weighted, lw, row_terms, row_w,
                        out[r0 + r])


@njit(cache=True)
def cascade_row(x, n, tables, aggregate, weighted, lw, row_terms, row_w, out_row):
    """Scores of a row (storage codes ``x``) in which no parent combination of order n
    qualifies: A(n-1)DE, and so on down to naive Bayes (``row_terms``, ``row_w``: scratch
    of the widest order).  With n = 0 the row reaches here only when naive Bayes, the
    single sub-model of order 0, has no weight (log weight -inf): it is scored unweighted
    rather than left unset.  ``tables``: a :class:`ScoringTables`."""
    k, order_first = tables.k, tables.order_first
    if n == 0:
        _row_scores(x, 0, tables, row_terms, False, lw, row_w)
        _aggregate_row(row_terms, 1, k, aggregate, out_row)
        return
    for level in range(n - 1, -1, -1):
        _row_scores(x, level, tables, row_terms, weighted, lw, row_w)
        n_low = order_first[level + 1] - order_first[level]
        if weighted:
            if _aggregate_row_weighted(row_terms, row_w, n_low, k, aggregate, out_row) > 0:
                break
            if level == 0:  # naive Bayes, the single sub-model of order 0
                _aggregate_row(row_terms, n_low, k, aggregate, out_row)
        elif _aggregate_row(row_terms, n_low, k, aggregate, out_row) > 0:
            break


@njit(cache=True)
def _row_scores_from_counts(x, level, tables, counts, offsets, m, laplace, terms):
    """:func:`_row_scores` at ``level`` with the log conditionals of the combinations of
    order level + 1 computed from their counts (``counts``, ``offsets``) rather than read
    from log tables: the same sums in the same order as
    :func:`.smoothing.log_conditional_tables`, so the same numbers.  ``tables``: a
    :class:`ScoringTables` (its ``offsets`` locate the log joints)."""
    combos, lj_offsets, sizes, k, order_first, _, lj, _, _, sub_index = tables
    _parent_terms(x, level, combos, lj_offsets, sizes, k, order_first, lj, terms, False, lj,
                  terms[0])
    d = level + 1
    p_first = order_first[level]
    for h in range(order_first[d], order_first[d + 1]):
        cell = 0
        for t in range(d):
            att = combos[h, t]
            cell = cell * sizes[att] + x[att]
        off = offsets[h]
        for p in range(d):
            child = combos[h, p]
            digit = x[child]
            if digit == 0 or sub_index[h, p] < 0:
                continue
            s = sub_index[h, p] - p_first
            s_child = sizes[child]
            n_values = max(s_child - 1, 1)
            stride = k
            for t in range(p + 1, d):
                stride *= sizes[combos[h, t]]
            prior, pseudo_total = pseudo_counts(n_values, m, laplace)
            first = off + cell * k - digit * stride  # the cell with the child's code 0
            for yy in range(k):
                den = 0.0
                for v in range(1, s_child):
                    den += counts[first + v * stride + yy]
                den -= 0.0
                log_den = math.log(den + pseudo_total)
                count = counts[first + digit * stride + yy] - 0.0
                if count + prior > 0.0:
                    terms[s, yy] += math.log(count + prior) - log_den
                else:
                    terms[s, yy] += np.nan


@njit(parallel=True, cache=True)
def cascade_from_counts(X, rows, n, tables, counts, offsets, m, laplace, aggregate, out):
    """Scores of the ``rows`` of ``X`` in which no parent combination of order n qualifies,
    for tables that hold no log conditionals of order n (a compact selective table): order
    n - 1 from the counts of order n (:func:`_row_scores_from_counts`), and below it the
    cascade of :func:`cascade_row`.  Unweighted.  ``tables``: a :class:`ScoringTables` (its
    ``offsets`` locate the log joints; ``counts`` and ``offsets`` are the table's counts and
    their layout)."""
    k, order_first = tables.k, tables.order_first
    a = X.shape[1]
    widest = widest_order(order_first, n)
    no_weights = np.zeros(1)
    for q in prange(rows.size):
        r = rows[q]
        x = np.empty(a, dtype=np.int64)
        for i in range(a):
            x[i] = X[r, i]
        terms = np.empty((widest, k))
        row_w = np.empty(0)
        if n == 0:
            cascade_row(x, 0, tables, aggregate, False, no_weights, terms, row_w, out[r])
            continue
        _row_scores_from_counts(x, n - 1, tables, counts, offsets, m, laplace, terms)
        n_low = order_first[n] - order_first[n - 1]
        if _aggregate_row(terms, n_low, k, aggregate, out[r]) > 0:
            continue
        cascade_row(x, n - 1, tables, aggregate, False, no_weights, terms, row_w, out[r])
