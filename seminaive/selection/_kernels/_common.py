"""Kernels for selecting sub-models: leave-one-out losses, selective scoring, subsumption.

Leave-one-out (Chen et al. 2014, §3.3, "incremental cross validation"): the held-out row's
contribution is subtracted from every count an estimate reads, analytically, so the estimate
is that of the tables refitted without the row; nothing is refitted.  For a row (x, y_t) of
weight w the held-out amount is h = min(w, 1) (one copy of a row of integer weight w, whose
other copies stay in the tables, exactly as for w repeated rows) and its loss counts w times.

With held-out amount h, for a parent combination s of order L and a child c not in s
(m-estimate; Laplace analogously, see :mod:`.smoothing`):

    P(y, x_s)       = (N(y, x_s) - h[y = y_t] + m / (k prod|X_s|)) / (N_obs(s) - h + m)
    P(x_c | y, x_s) = (N(y, x_s, x_c) - h[y = y_t] + m / |X_c|)
                      / (N(y, x_s, x_c observed) - h[y = y_t] + m)

and a parent value qualifies when it is observed and N(x_s) - h >= min_count.

Nested model spaces (Chen et al. 2014, §3.2, the SWAODE paper (2024), eq 6): attributes ranked by
mutual information with the class; model (L, r, s) averages, over the parent combinations of size L
drawn from the top-r attributes, P(y, x_s) prod_{c in top s, c not in s} P(x_c | y, x_s), cascading
to (L - 1, r, s) when no combination qualifies and ending at naive Bayes over the top-s children.
One pass evaluates every (L, r, s): per row, the LOO joint of each combination, prefix sums
of its children's LOO log terms along the ranking, and running log-sum-exps over the
combinations in the order of their highest rank (a snapshot at every r).  Without Gaussian
children the same pass runs in linear space (:func:`nested_loo_loss_nominal`: products and
sums of probabilities with a block exponent, no exp or log per term).
"""

import math
from typing import NamedTuple

import numpy as np

from ...kernels._jit import njit, prange
from ...kernels.smoothing import (
    cell_observed,
    log_conditional_estimate,
    log_joint_estimate,
)
from ...tables import TableLayout
from ...tables.gaussian import log_density, loo_estimates, loo_log_widths


class CountContext(NamedTuple):
    """What the leave-one-out kernels of the selection learners read of a fitted table, in
    one typed bundle (built by :class:`seminaive.selection._structure._CountContext`)."""

    table: tuple  # the fitted table's seminaive.tables.TableLayout (counts and layout)
    n_observed: np.ndarray  # N(x_s observed) per combination
    has_missing: np.ndarray  # whether each attribute is ever missing in training
    lc: np.ndarray  # the model's log conditional tables
    lc_offsets: np.ndarray


class NestedSpace(NamedTuple):
    """The nested model space a leave-one-out pass evaluates (:func:`nested_loo_loss`),
    built by :func:`seminaive.selection._structure.combination_levels`."""

    rank: np.ndarray  # rank[j]: the attribute of rank j
    combo_members: np.ndarray  # level L's parent combinations, sorted attribute indices
    level_first: np.ndarray  # level L's combinations: level_first[L]:level_first[L + 1]
    combo_maxrank: np.ndarray  # each combination's highest rank (-1: the empty one)
    combo_weight: np.ndarray  # each combination's weight (<= 0: never used)
    n_levels: int  # levels 0..n


class LooEstimate(NamedTuple):
    """How the leave-one-out estimates are smoothed and which parents qualify."""

    m: float  # the m-estimate's m (unused with Laplace)
    laplace: bool  # Laplace's estimate instead of the m-estimate
    min_count: float  # a parent value qualifies when it occurs at least this often


class Moves(NamedTuple):
    """The current structure of a wrapper search and the candidate moves it evaluates
    (:func:`wrapper_loo_loss`)."""

    parent_mask: np.ndarray  # the attributes that are parents
    child_mask: np.ndarray  # the attributes that are children
    attribute: np.ndarray  # the attribute each candidate changes (-1: no change)
    parent: np.ndarray  # whether it is then a parent
    child: np.ndarray  # whether it is then a child


class SelectedStructure(NamedTuple):
    """A selected AnDE structure as :func:`selective_scores` reads it."""

    combo_members: np.ndarray  # as in NestedSpace
    level_first: np.ndarray
    combo_weight: np.ndarray
    n_levels: int
    children: np.ndarray  # the selected children


class LogTables(NamedTuple):
    """The log estimates of a table's cells (:meth:`seminaive.tables.FrequencyTable.log_tables`)."""

    log_joint: np.ndarray  # NaN where the parent does not qualify
    log_conditional: np.ndarray
    lc_offsets: np.ndarray


class GaussianScoring(NamedTuple):
    """What scoring Gaussian children reads besides the counts (:func:`selective_scores`)."""

    gaussian: np.ndarray  # column of every attribute among the values (-1: nominal)
    missing_code: np.ndarray  # storage code of the value for missing (0: none)
    log_width: np.ndarray  # log widths of the numeric parents' bins (attribute, code)
    grid_offsets: np.ndarray  # the estimates laid out by MomentTable.grid_terms
    g_mean: np.ndarray
    g_norm: np.ndarray
    g_precision: np.ndarray
    g_shape: np.ndarray  # Student's t: (nu + 1) / 2 (see seminaive.tables.gaussian)
    student: bool  # Student's t children (density="student") rather than Gaussians

# --------------------------------------------------------------------------------------------
# Indexing helpers
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _layout(table):
    """``table`` (a :class:`~seminaive.tables.TableLayout` taken out of a
    :class:`CountContext`) rebuilt by a call, so that the ``prange`` loops of the parallel
    kernels can hand it on whole: numba's parallel lowering passes a named tuple into a
    loop only when the tuple is an argument or the result of a call."""
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = table
    return TableLayout(counts, offsets, combos, orders, sizes, k, order_first, ext_first,
                       sub_index)


@njit(cache=True, inline="always")
def _combo_cell(members, n_members, x, sizes, ext_first):
    """Global index and cell of the combination of the sorted attributes ``members[:n]``."""
    g = 0
    prev = -1
    cell = 0
    for t in range(n_members):
        e = members[t]
        g = ext_first[g] + (e - prev - 1)
        prev = e
        cell = cell * sizes[e] + x[e]
    return g, cell


@njit(cache=True, inline="always")
def _qualifying_parent(members, L, x, sizes, ext_first, offsets, counts, k, h, min_count):
    """The parent combination ``members[:L]`` in row x without the held-out row's weight h:
    ``(g, start of its cell's class counts)`` if every member is observed and (L > 0) the
    cell occurs at least ``min_count`` times, else ``(-1, -1)``."""
    for t in range(L):
        if x[members[t]] == 0:
            return -1, -1
    g, cell = _combo_cell(members, L, x, sizes, ext_first)
    base_off = offsets[g] + cell * k
    if L > 0:
        freq = -h
        for yy in range(k):
            freq += counts[base_off + yy]
        if freq < min_count:
            return -1, -1
    return g, base_off


@njit(cache=True, inline="always")
def _union_cell(members, n_members, c, x, sizes, ext_first):
    """The combination ``members[:n] + {c}`` (c not a member): its global index, its cell with
    the child's value set to 0, the stride of the child's axis (in cells) and the child's
    position among the sorted members."""
    g = 0
    prev = -1
    cell = 0
    stride = 1
    pos = -1
    t = 0
    placed = False
    for step in range(n_members + 1):
        if not placed and (t == n_members or c < members[t]):
            e = c
            placed = True
            pos = step
            cell = cell * sizes[e]
        else:
            e = members[t]
            t += 1
            cell = cell * sizes[e] + x[e]
            if placed:
                stride *= sizes[e]
        g = ext_first[g] + (e - prev - 1)
        prev = e
    return g, cell, stride, pos


@njit(cache=True, inline="always")
def _is_member(members, n_members, c):
    for t in range(n_members):
        if members[t] == c:
            return True
    return False


@njit(cache=True, inline="always")
def _lse_add(top, acc, row, values, k):
    """Running log-sum-exp: add ``values[y]`` to the state (top[row, y], acc[row, y])."""
    for yy in range(k):
        v = values[yy]
        if v == -np.inf:
            continue
        t = top[row, yy]
        if v > t:
            acc[row, yy] = acc[row, yy] * math.exp(t - v) + 1.0
            top[row, yy] = v
        else:
            acc[row, yy] += math.exp(v - t)


@njit(cache=True, inline="always")
def _loo_log_joint(counts, base_off, n_obs_loo, k, prod_values, yy, yt, h, est):
    """LOO log P(y, x_s) of the combination whose cell starts at ``base_off`` (``est``: a
    :class:`LooEstimate`)."""
    c = counts[base_off + yy]
    if yy == yt:
        c -= h
    return log_joint_estimate(max(c, 0.0), max(n_obs_loo, 0.0), k, prod_values, est.m,
                              est.laplace)


@njit(cache=True, inline="always")
def _loo_log_cond_value(counts, cell, xv, n_child_values, has_missing, yy, yt, h, k, est,
                        own):
    """LOO log P(x_c = xv | y, x_s): numerator from the union block (less the held-out row
    when ``xv`` is its own value, ``own``), denominator the parent count over rows with x_c
    observed (the parent's own count when c is never missing), less the row.  ``cell`` is
    ``(start of the parent cell's class counts, start of the union block, the union cell
    with the child's value 0, the stride of the child's values)``; ``est`` a
    :class:`LooEstimate`."""
    parent_off, off2, cell0, stride = cell
    hy = h if yy == yt else 0.0
    num = counts[off2 + (cell0 + xv * stride) * k + yy] - (hy if own else 0.0)
    if has_missing:
        den = 0.0
        for v in range(1, n_child_values + 1):
            den += counts[off2 + (cell0 + v * stride) * k + yy]
    else:
        den = counts[parent_off + yy]
    den -= hy
    return log_conditional_estimate(max(num, 0.0), max(den, 0.0), max(n_child_values, 1),
                                    est.m, est.laplace)


@njit(cache=True, inline="always")
def _loo_log_cond(counts, cell, xc, n_child_values, has_missing, yy, yt, h, k, est):
    """LOO log P(x_c | y, x_s) of the held-out row's own value ``xc`` (``cell`` as in
    :func:`_loo_log_cond_value`)."""
    return _loo_log_cond_value(counts, cell, xc, n_child_values, has_missing, yy, yt, h, k,
                               est, True)


@njit(cache=True, inline="always")
def _loo_log_cond_other(counts, cell, xv, n_child_values, has_missing, yy, yt, h, k, est):
    """LOO log P(x_c = xv | y, x_s) for a value ``xv`` the held-out row does not hold (its
    own value of c is observed): only the denominator loses the row."""
    return _loo_log_cond_value(counts, cell, xv, n_child_values, has_missing, yy, yt, h, k,
                               est, False)


@njit(cache=True, inline="always")
def _gaussian_child_loo(pre, g, jn, v, child, counts, cell, lc, lc_idx_mc, held, est,
                        moments):
    """Add a Gaussian child's leave-one-out terms to ``pre`` (one per class): the log density
    at the leave-one-out estimates ``moments = (est_mean, est_var)`` given combination g, and
    with a value for missing (``mc`` > 0, ``missing="value"``) log (1 - P(missing | y, x_s))
    (the held-out row's value observed).  ``child`` is ``(mc, the child's number of
    values, whether it is ever missing)``, ``held`` the held-out row's ``(class, amount)``,
    ``cell`` as in :func:`_loo_log_cond_value`, ``est`` a :class:`LooEstimate`."""
    k = pre.shape[0]
    mc, n_child_values, has_missing = child
    yt, h = held
    est_mean, est_var = moments
    for yy in range(k):
        pre[yy] += log_density(v, est_mean[g, jn, yy], est_var[g, jn, yy])
    if mc > 0:
        for yy in range(k):
            if yy == yt:
                lp = _loo_log_cond_other(counts, cell, mc, n_child_values, has_missing, yy,
                                         yt, h, k, est)
            else:
                lp = lc[lc_idx_mc + yy]
            pre[yy] += math.log1p(-math.exp(lp))


@njit(cache=True)
def _row_gaussian_loo(xr, Vr, yt, h, table, gl, lw_row, floor, est_mean, est_var):
    """Leave-one-out bin widths and Gaussian estimates of one held-out row (nothing without
    Gaussian children); ``table`` a :class:`~seminaive.tables.TableLayout`, ``gl`` a
    :class:`~seminaive.tables.gaussian.GaussianLoo`."""
    if Vr.size == 0:
        return
    _, _, combos, orders, sizes, k, order_first, _, sub_index = table
    gaussian, _, moment_start, sums, _, _, cuts, n_cuts, _, _ = gl
    loo_log_widths(xr, Vr, h, gaussian, n_cuts, cuts, moment_start, sums, k, lw_row)
    loo_estimates(xr, Vr, yt, h, (combos, orders, order_first, sub_index, sizes, k), gl,
                  floor, est_mean, est_var)


@njit(cache=True)
def _held_out_buffers(table, n_rows, V, gl):
    """What a leave-one-out pass over rows keeps per thread: the held-out row's codes and
    the working arrays of :func:`_row_gaussian_loo` (``table`` a
    :class:`~seminaive.tables.TableLayout`, ``V`` the rows' numeric values, ``gl`` a
    :class:`~seminaive.tables.gaussian.GaussianLoo`)."""
    _, _, _, _, sizes, k, order_first, _, _ = table
    a = sizes.shape[0]
    n_num = V.shape[1]
    n_lat = order_first[gl[8]] if n_num > 0 else 1
    return (np.empty(a, dtype=np.int64), np.zeros(a), np.empty(n_num),
            np.empty((n_lat, n_num, k)), np.empty((n_lat, n_num, k)))


@njit(cache=True, inline="always")
def _hold_out(rr, X, y, w, V, table, gl, held):
    """Hold row rr out: ``(its weight, the held-out amount min(w, 1), its class)``; when
    its weight is positive, its codes are copied into ``held[0]`` and the leave-one-out
    Gaussian estimates without it are made in the other arrays of ``held``
    (:func:`_held_out_buffers`)."""
    xr, lw_row, floor, est_mean, est_var = held
    wt = w[rr]
    h = min(wt, 1.0)
    yt = y[rr]
    if wt > 0.0:
        for i in range(xr.shape[0]):
            xr[i] = X[rr, i]
        _row_gaussian_loo(xr, V[rr], yt, h, table, gl, lw_row, floor, est_mean, est_var)
    return wt, h, yt


@njit(parallel=True, cache=True)
def observed_totals(table, g_last, out):
    """out[g] = N_obs(s): rows in which every attribute of combination g is observed
    (``table`` is a :class:`~seminaive.tables.TableLayout`)."""
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = table
    for g in prange(g_last):
        d = orders[g]
        off = offsets[g]
        n_cells = (offsets[g + 1] - off) // k
        total = 0.0
        for cell in range(n_cells):
            if cell_observed(cell, g, d, combos, sizes):
                for yy in range(k):
                    total += counts[off + cell * k + yy]
        out[g] = total
