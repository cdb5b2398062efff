"""Leave-one-out kernels: every sub-model's log joint for a training row with that row taken
out of the counts, and the MAPLMG / MAPLMD statistics accumulated from them.

Cerquides & López de Màntaras (2005, §6, eqs. 30-32): the leave-one-out
probability of the ODE with parent u is the ODE's estimate from the counts minus the held-out
instance,

    P_loo(c, x_u)       = (N(c, x_u) + 1 - [c = x_C]) / (N + #C #A_u - 1)                (31)
    P_loo(x_v | c, x_u) = (N(c, x_u, x_v) + 1 - [c = x_C]) / (N(c, x_u) + #A_v - [c = x_C])  (32)

(Laplace, complete data).  Here the same subtraction is applied to whichever estimate the
model uses (:func:`~seminaive.kernels.smoothing.log_joint_estimate` and
:func:`~seminaive.kernels.smoothing.log_conditional_estimate`: m-estimate or Laplace, missing
values left out of every count) and to parents of any order n.  A row of weight w is removed
with weight min(w, 1): a row of integer weight w stands for w identical instances, of which
one is held out (so integer weights are equivalent to repeated rows); a fractional row is
removed entirely.  Nothing is refitted: the held-out row's own cells are read from the table
and adjusted.  For the held-out row's class and a removal of exactly 1 the conditionals are
read from a precomputed "minus one" table (:func:`loo_conditional_tables`), for the other
classes from the model's own log tables, so a row costs about as much as classifying it.

A parent combination qualifies for a row when all its attributes are observed and its
frequency without the row is >= min_count (the same rule as prediction); the terms of a
sub-model that does not qualify are NaN.
"""

import math
from typing import NamedTuple

import numpy as np

from ..kernels._jit import njit, prange
from ..kernels.smoothing import (
    log_conditional_estimate,
    log_conditional_tables,
    log_joint_estimate,
    pseudo_counts,
)
from ..tables.gaussian import log_density, loo_estimates, loo_log_widths
from ..tables.scoring import combination_cells


class LooModel(NamedTuple):
    """What the leave-one-out kernels read of a fitted model, in one typed bundle: the
    table's layout and counts, the per-parent statistics of eq. 31, the log tables and the
    estimator's settings (built by :class:`seminaive.weighting.loo.LeaveOneOut`)."""

    n: int  # parent order
    max_order: int
    combos: np.ndarray
    offsets: np.ndarray
    sizes: np.ndarray
    k: int
    order_first: np.ndarray
    sub_index: np.ndarray
    counts: np.ndarray
    n_obs: np.ndarray  # rows with every parent observed, per parent combination
    prod_values: np.ndarray  # prod |X_s| per parent combination
    lj_other: np.ndarray  # log P_loo(y, x_s) for the other classes (eq. 31)
    lj_own: np.ndarray  # ... for the held-out row's class
    lc: np.ndarray  # the model's log conditional tables
    lc_offsets: np.ndarray
    lc1: np.ndarray  # log P_loo(x_c | y, x_s) of the held-out class (eq. 32)
    m: float
    laplace: bool
    min_count: float


def loo_model(table, n, max_order, *, n_obs, prod_values, lj_other, lj_own, lc, lc_offsets,
              lc1, m, laplace, min_count):
    """A :class:`LooModel` of a table's :class:`~seminaive.tables.TableLayout`, the parent
    order ``n``, and the leave-one-out statistics and estimator's settings, named (flat:
    parallel kernels take no nested tuples)."""
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = table
    return LooModel(int(n), int(max_order), combos, offsets, sizes, int(k), order_first,
                    sub_index, counts, n_obs, prod_values, lj_other, lj_own, lc, lc_offsets,
                    lc1, float(m), bool(laplace), float(min_count))


#: rows processed together by one thread (tables stream through the cache once per block)
LOO_BLOCK_ROWS = 256


def loo_conditional_tables(table, g_first, g_last, lc_offsets, m, laplace, out):
    """log P(x_c | y, x_rest) with one instance of this cell removed (Cerquides & López de
    Màntaras 2005, eq 32).

    Same layout as :func:`~seminaive.kernels.smoothing.log_conditional_tables`, of which this
    is the ``held_out=1`` case: N(y, x_rest, x_c) - 1 over N(y, x_rest, x_c observed) - 1.
    Entries of cells that hold no instance are NaN (never read: a training row's own cell
    holds at least that row).  A missing child value gets log 1 = 0.  ``table`` is a
    :class:`~seminaive.tables.TableLayout`.
    """
    log_conditional_tables(table, g_first, g_last, lc_offsets, m, laplace, out, 1.0)


@njit(parallel=True, cache=True)
def loo_joint_tables(table, n_obs, prod_values, g_first, g_last, m, laplace, lj_other,
                     lj_own):
    """log P_loo(y, x_s) after removing one instance of cell x_s (Cerquides & López de
    Màntaras 2005, eq 31), for the combinations g_first .. g_last - 1 (one order), indexed
    from offsets[g_first]:

    lj_other: classes other than the removed instance's (only N_obs(s) loses it);
    lj_own:   its own class (N(y, x_s) loses it too); NaN where the cell holds no instance.

    ``table`` is a :class:`~seminaive.tables.TableLayout`.
    """
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = table
    base0 = offsets[g_first]
    for g in prange(g_first, g_last):
        s = g - g_first
        prior, total = pseudo_counts(k * prod_values[s], m, laplace)
        for idx in range(offsets[g], offsets[g + 1]):
            rel = idx - base0
            if n_obs[s] - 1.0 + total <= 0.0:
                lj_other[rel] = np.nan
                lj_own[rel] = np.nan
                continue
            count = counts[idx]
            lj_other[rel] = log_joint_estimate(count, n_obs[s] - 1.0, k, prod_values[s], m,
                                               laplace)
            if count - 1.0 + prior > 0.0:
                lj_own[rel] = log_joint_estimate(count - 1.0, n_obs[s] - 1.0, k,
                                                 prod_values[s], m, laplace)
            else:
                lj_own[rel] = np.nan


@njit(cache=True)
def _gaussian_block(X, y, w, weighted, r0, n_rows, model, V, gl, terms):
    """Add the Gaussian children's leave-one-out log densities to the qualifying
    sub-models' terms of rows ``r0`` to ``r0 + n_rows - 1``, and divide their joints by
    their numeric parents' bin widths, both computed from the moments with the row removed
    (:func:`seminaive.tables.gaussian.loo_estimates`,
    :func:`seminaive.tables.gaussian.loo_log_widths`); ``model`` is a :class:`LooModel`,
    ``gl`` a :class:`~seminaive.tables.gaussian.GaussianLoo`.  Its scratch arrays are
    its own (one set per block: the caller's parallel blocks share nothing)."""
    (n, max_order, combos, offsets, sizes, k, order_first, sub_index, counts, n_obs,
     prod_values, lj_other, lj_own, lc, lc_offsets, lc1, m, laplace, min_count) = model
    (gaussian, missing_code, moment_start, sums, kappa, floor_ratio, cuts, n_cuts,
     n_levels, _) = gl
    n_num = V.shape[1]
    n_lat = order_first[n_levels]
    xr = np.empty(X.shape[1], dtype=np.int64)
    lw_row = np.zeros(X.shape[1])
    floor = np.empty(n_num)
    est_mean = np.empty((n_lat, n_num, k))
    est_var = np.empty((n_lat, n_num, k))
    orders = np.zeros(order_first[n_levels], dtype=np.int64)
    for d in range(n_levels):
        for g in range(order_first[d], order_first[d + 1]):
            orders[g] = d
    a = X.shape[1]
    p_first = order_first[n]
    for r in range(n_rows):
        row = r0 + r
        removed = min(w[row], 1.0) if weighted else 1.0
        for i in range(a):
            xr[i] = X[row, i]
        loo_log_widths(xr, V[row], removed, gaussian, n_cuts, cuts, moment_start, sums, k,
                       lw_row)
        loo_estimates(xr, V[row], y[row], removed,
                      (combos, orders, order_first, sub_index, sizes, k), gl, floor,
                      est_mean, est_var)
        for g in range(p_first, order_first[n + 1]):
            s = g - p_first
            if math.isnan(terms[s, r, 0]):
                continue
            correction = 0.0
            for t in range(n):
                correction += lw_row[combos[g, t]]
            for yy in range(k):
                terms[s, r, yy] -= correction
            for i in range(a):
                jn = gaussian[i]
                if jn < 0 or moment_start[g, jn] < 0:
                    continue
                v = V[row, jn]
                if math.isnan(v) or xr[i] == 0 or xr[i] == missing_code[i]:
                    continue
                for yy in range(k):
                    terms[s, r, yy] += log_density(v, est_mean[g, jn, yy], est_var[g, jn, yy])


@njit(cache=True)
def _loo_block(X, y, w, weighted, r0, n_rows, model, xs, cells, terms, gaussian,
               missing_code):
    """terms[s, r, y] = leave-one-out log P_s(y, x_r) for rows r0 .. r0 + n_rows - 1 (NaN
    where parent combination s does not qualify without the row); ``model`` is a
    :class:`LooModel`.  A Gaussian child (``gaussian[c]`` >= 0) gets no term here (see
    :func:`_gaussian_block`) but, with a value for missing (``missing_code[c]`` > 0),
    log P(missing | y, x_s) when missing and log (1 - P(missing | y, x_s)) when observed."""
    (n, max_order, combos, offsets, sizes, k, order_first, sub_index, counts, n_obs,
     prod_values, lj_other, lj_own, lc, lc_offsets, lc1, m, laplace, min_count) = model
    a = X.shape[1]
    for r in range(n_rows):
        for i in range(a):
            xs[i, r] = X[r0 + r, i]
    p_first = order_first[n]
    # P_loo(y, x_s): the joint's numerator (held-out class only) and denominator (all
    # classes) lose the row (eq 31)
    for g in range(p_first, order_first[n + 1]):
        s = g - p_first
        off = offsets[g]
        for r in range(n_rows):
            cell = 0
            observed = True
            for t in range(n):
                att = combos[g, t]
                v = xs[att, r]
                if v == 0:
                    observed = False
                cell = cell * sizes[att] + v
            removed = min(w[r0 + r], 1.0) if weighted else 1.0
            base = off + cell * k
            freq = 0.0
            for yy in range(k):
                freq += counts[base + yy]
            if not observed or (n > 0 and freq - removed < min_count):
                for yy in range(k):
                    terms[s, r, yy] = np.nan
                continue
            c = y[r0 + r]
            if removed == 1.0:  # precomputed (see loo_joint_tables)
                rel = base - offsets[p_first]
                for yy in range(k):
                    terms[s, r, yy] = lj_other[rel + yy]
                terms[s, r, c] = lj_own[rel + c]
                continue
            for yy in range(k):
                count = counts[base + yy]
                if yy == c:
                    count -= removed
                terms[s, r, yy] = log_joint_estimate(count, n_obs[s] - removed, k,
                                                     prod_values[s], m, laplace)
    d = n + 1
    if d > max_order:
        return
    # P_loo(x_child | y, x_s) from every combination h of order n + 1 and member p (eq 32)
    for h in range(order_first[d], order_first[d + 1]):
        combination_cells(combos, h, d, sizes, xs, n_rows, cells)
        base_h = lc_offsets[h]
        for p in range(d):
            s = sub_index[h, p] - p_first
            child = combos[h, p]
            s_child = sizes[child]
            n_child = max(s_child - 1, 1)
            stride = 1
            for t in range(p + 1, d):
                stride *= sizes[combos[h, t]]
            for r in range(n_rows):
                xc = xs[child, r]
                if xc == 0 or math.isnan(terms[s, r, 0]):
                    continue  # missing child (log 1) or parent not used
                c = y[r0 + r]
                mc = missing_code[child]
                if gaussian[child] >= 0 and xc != mc:
                    if mc == 0:
                        continue  # the density only (_gaussian_block)
                    # observed: log (1 - P_loo(missing | y, x_s)); the row is not missing
                    base = base_h + ((cells[r] + (mc - xc) * stride) * d + p) * k
                    for yy in range(k):
                        if yy != c:
                            terms[s, r, yy] += math.log1p(-math.exp(lc[base + yy]))
                    removed = min(w[r0 + r], 1.0) if weighted else 1.0
                    own = offsets[h] + (cells[r] + (mc - xc) * stride) * k + c
                    first = own - mc * stride * k
                    den = 0.0
                    for v in range(1, s_child):
                        den += counts[first + v * stride * k]
                    terms[s, r, c] += math.log1p(-math.exp(log_conditional_estimate(
                        counts[own], den - removed, n_child, m, laplace)))
                    continue
                base = base_h + (cells[r] * d + p) * k
                for yy in range(k):
                    if yy != c:
                        terms[s, r, yy] += lc[base + yy]
                removed = min(w[r0 + r], 1.0) if weighted else 1.0
                if removed == 1.0:
                    terms[s, r, c] += lc1[base + c]
                else:
                    own = offsets[h] + cells[r] * k + c
                    first = own - xc * stride * k
                    den = 0.0
                    for v in range(1, s_child):
                        den += counts[first + v * stride * k]
                    terms[s, r, c] += log_conditional_estimate(counts[own] - removed,
                                                               den - removed, n_child, m,
                                                               laplace)


@njit(parallel=True, cache=True)
def loo_log_joint(X, y, w, weighted, model, out, V, gl):
    """out[r, s, y] = leave-one-out log P_s(y, x_r) of every row, parent combination of
    order n and class (NaN where s does not qualify); see the module docstring.  Gaussian
    children: ``V`` the rows' centred numeric values, ``gl`` a
    :class:`~seminaive.tables.gaussian.GaussianLoo` (see :func:`_gaussian_block`).  The
    rows are those of ``y``: ``X`` may have more (:meth:`LeaveOneOut._codes
    <seminaive.weighting.loo.LeaveOneOut._codes>` pads a one-row chunk, so that every
    chunk is typed as the fit's)."""
    (n, max_order, combos, offsets, sizes, k, order_first, sub_index, counts, n_obs,
     prod_values, lj_other, lj_own, lc, lc_offsets, lc1, m, laplace, min_count) = model
    (gaussian, missing_code, moment_start, sums, kappa, floor_ratio, cuts, n_cuts,
     n_levels, _) = gl
    n_num = V.shape[1]
    n_rows_total = y.shape[0]  # X may have more (padding rows, never read)
    a = X.shape[1]
    n_par = order_first[n + 1] - order_first[n]
    block = LOO_BLOCK_ROWS
    n_blocks = (n_rows_total + block - 1) // block
    for b in prange(n_blocks):
        r0 = b * block
        rows = min(n_rows_total, r0 + block) - r0
        xs = np.empty((a, rows), dtype=np.int64)
        cells = np.empty(rows, dtype=np.int64)
        terms = np.empty((n_par, rows, k))
        _loo_block(X, y, w, weighted, r0, rows, model, xs, cells, terms, gaussian,
                   missing_code)
        if n_num > 0:
            _gaussian_block(X, y, w, weighted, r0, rows, model, V, gl, terms)
        for r in range(rows):
            for s in range(n_par):
                for yy in range(k):
                    out[r0 + r, s, yy] = terms[s, r, yy]


# --------------------------------------------------------------------------------------------
# Per-row statistics of the two mixtures (Cerquides & López de Màntaras 2005, §3)
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _lmg_row(terms, r, c, weight, log_alpha, scratch, acc):
    """One row's term of the LMG log supervised posterior (Cerquides & López de Màntaras 2005,
    eq 10) and of its gradient (eq 13), over the qualifying sub-models Q of the row:

        acc[0]     += weight * (log sum_Q a_s P_s(c, x) - log sum_Q sum_y a_s P_s(y, x))
        acc[1 + s] += weight * a_s * d/da_s (same),  i.e.
                      a_s P_s(c, x) / sum_Q a P(c, x) - a_s P_s(x) / sum_Q a P(x)

    (the gradient times a_s, which lies in [-1, 1] whatever the scale of the joints).
    ``scratch`` (n_par, k + 1) keeps the exponentials between the two sums.
    """
    n_par = terms.shape[0]
    k = terms.shape[2]
    top_a = -np.inf
    top_b = -np.inf
    for s in range(n_par):
        if math.isnan(terms[s, r, 0]):
            continue
        top_a = max(top_a, log_alpha[s] + terms[s, r, c])
        for yy in range(k):
            top_b = max(top_b, log_alpha[s] + terms[s, r, yy])
    if top_b == -np.inf:
        return
    sum_a = 0.0
    sum_b = 0.0
    for s in range(n_par):
        if math.isnan(terms[s, r, 0]):
            continue
        e = math.exp(log_alpha[s] + terms[s, r, c] - top_a)
        scratch[s, k] = e
        sum_a += e
        for yy in range(k):
            e = math.exp(log_alpha[s] + terms[s, r, yy] - top_b)
            scratch[s, yy] = e
            sum_b += e
    acc[0] += weight * (top_a + math.log(sum_a) - top_b - math.log(sum_b))
    for s in range(n_par):
        if math.isnan(terms[s, r, 0]):
            continue
        g = 0.0
        for yy in range(k):
            g += scratch[s, yy]
        acc[1 + s] += weight * (scratch[s, k] / sum_a - g / sum_b)


@njit(cache=True)
def _lmd_row(terms, r, c, weight, log_alpha, scratch, acc):
    """One row's expectation-step statistics of the LMD (Cerquides & López de Màntaras 2005,
    eqs 1, 8), over the qualifying sub-models Q of the row, with M = sum_Q a_s P_s(c | x) and
    S = sum_Q a_s:

        acc[0]              += weight * (log M - log S)           (log-likelihood term)
        acc[1 + s]          += weight * a_s P_s(c | x) / M        (responsibility of s)
        acc[1 + n_par + s]  += weight / S                         (s in Q)
    """
    n_par = terms.shape[0]
    k = terms.shape[2]
    top_m = -np.inf
    top_s = -np.inf
    for s in range(n_par):
        if math.isnan(terms[s, r, 0]):
            continue
        top = terms[s, r, 0]
        for yy in range(1, k):
            top = max(top, terms[s, r, yy])
        norm = 0.0
        for yy in range(k):
            norm += math.exp(terms[s, r, yy] - top)
        scratch[s, 0] = log_alpha[s] + terms[s, r, c] - top - math.log(norm)  # a_s P_s(c|x)
        top_m = max(top_m, scratch[s, 0])
        top_s = max(top_s, log_alpha[s])
    if top_s == -np.inf:
        return
    sum_m = 0.0
    sum_s = 0.0
    for s in range(n_par):
        if math.isnan(terms[s, r, 0]):
            continue
        sum_m += math.exp(scratch[s, 0] - top_m)
        sum_s += math.exp(log_alpha[s] - top_s)
    log_m = top_m + math.log(sum_m)
    log_s = top_s + math.log(sum_s)
    acc[0] += weight * (log_m - log_s)
    inv_s = math.exp(-log_s)
    for s in range(n_par):
        if math.isnan(terms[s, r, 0]):
            continue
        acc[1 + s] += weight * math.exp(scratch[s, 0] - log_m)
        acc[1 + n_par + s] += weight * inv_s


STAT_LMG = 0
STAT_LMD = 1


@njit(cache=True)
def _row_statistics(kind, terms, r, c, weight, log_alpha, scratch, acc):
    if kind == STAT_LMG:
        _lmg_row(terms, r, c, weight, log_alpha, scratch, acc)
    else:
        _lmd_row(terms, r, c, weight, log_alpha, scratch, acc)


def statistics_size(kind, n_par):
    """Length of the accumulator of :func:`mixture_statistics` for ``kind``: the row
    statistics of :func:`_lmg_row` / :func:`_lmd_row`, then the total weight of the rows."""
    return (2 + n_par) if kind == STAT_LMG else 2 + 2 * n_par


@njit(cache=True, inline="always")
def _block_statistics(kind, terms, rows, r0, y, w, weighted, log_alpha, scratch, partial):
    """Add the statistics of a block of rows (their leave-one-out terms) to ``partial``;
    its last slot accumulates the total weight."""
    for r in range(rows):
        weight = w[r0 + r] if weighted else 1.0
        if weight == 0.0:
            continue
        partial[partial.shape[0] - 1] += weight
        _row_statistics(kind, terms, r, y[r0 + r], weight, log_alpha, scratch, partial)


@njit(parallel=True, cache=True)
def mixture_statistics(kind, X, y, w, weighted, model, log_alpha, out, V, gl):
    """Add the LMG (``kind`` = STAT_LMG) or LMD (STAT_LMD) statistics of a chunk of training
    rows to ``out``, computing the leave-one-out joints on the fly (memory: one block of
    LOO_BLOCK_ROWS rows per thread).  Rows of weight 0 are skipped; a row without any
    qualifying sub-model adds nothing (its mixture does not depend on the weights) but its
    weight: the last entry of ``out`` accumulates the total weight of the rows.  Gaussian
    children (``V``, ``gl``) and the rows (those of ``y``) as in :func:`loo_log_joint`."""
    (n, max_order, combos, offsets, sizes, k, order_first, sub_index, counts, n_obs,
     prod_values, lj_other, lj_own, lc, lc_offsets, lc1, m, laplace, min_count) = model
    (gaussian, missing_code, moment_start, sums, kappa, floor_ratio, cuts, n_cuts,
     n_levels, _) = gl
    n_num = V.shape[1]
    n_rows_total = y.shape[0]  # X may have more (padding rows, never read)
    a = X.shape[1]
    n_par = order_first[n + 1] - order_first[n]
    block = LOO_BLOCK_ROWS
    n_blocks = (n_rows_total + block - 1) // block
    partial = np.zeros((n_blocks, out.shape[0]))
    for b in prange(n_blocks):
        r0 = b * block
        rows = min(n_rows_total, r0 + block) - r0
        xs = np.empty((a, rows), dtype=np.int64)
        cells = np.empty(rows, dtype=np.int64)
        terms = np.empty((n_par, rows, k))
        scratch = np.empty((n_par, k + 1))
        _loo_block(X, y, w, weighted, r0, rows, model, xs, cells, terms, gaussian,
                   missing_code)
        if n_num > 0:
            _gaussian_block(X, y, w, weighted, r0, rows, model, V, gl, terms)
        _block_statistics(kind, terms, rows, r0, y, w, weighted, log_alpha, scratch,
                          partial[b])
    for b in range(n_blocks):
        for j in range(out.shape[0]):
            out[j] += partial[b, j]


@njit(parallel=True, cache=True)
def mixture_statistics_cached(kind, loo, y, w, weighted, log_alpha, out):
    """:func:`mixture_statistics` from a precomputed leave-one-out tensor ``loo`` of shape
    (rows, n_par, k) (see :func:`loo_log_joint`); ``loo`` is not modified."""
    n_rows_total, n_par, k = loo.shape
    block = LOO_BLOCK_ROWS
    n_blocks = (n_rows_total + block - 1) // block
    partial = np.zeros((n_blocks, out.shape[0]))
    for b in prange(n_blocks):
        r0 = b * block
        rows = min(n_rows_total, r0 + block) - r0
        terms = np.empty((n_par, rows, k))
        scratch = np.empty((n_par, k + 1))
        for r in range(rows):
            for s in range(n_par):
                for yy in range(k):
                    terms[s, r, yy] = loo[r0 + r, s, yy]
        _block_statistics(kind, terms, rows, r0, y, w, weighted, log_alpha, scratch,
                          partial[b])
    for b in range(n_blocks):
        for j in range(out.shape[0]):
            out[j] += partial[b, j]
