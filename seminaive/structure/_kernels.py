"""Numba kernels of the single-model structure learners: TAN, SP-TAN, KDB and HNB.

Pair statistics read the order-2 blocks of a :class:`seminaive.tables.FrequencyTable`
directly: ``pair_offsets[i, j]`` (symmetric) is the start of the block of the sorted pair
(min(i, j), max(i, j)), of shape ``(sizes[min], sizes[max], k)``.  The families of TAN,
SP-TAN and KDB (an attribute with its parents) are count trees of the occurring parent
values, read by the kernels of :mod:`._sparse`.

Estimates use the shared smoothing helpers (:func:`.smoothing.log_joint_estimate`,
:func:`.smoothing.log_conditional_estimate`; Webb et al. 2012, §2; Cerquides & López de
Màntaras 2005, eqs. 15-16).  A missing child value is left out of the product; a missing
parent value is dropped (the child falls back to P(x_i | y, remaining parents)); observed
parent values whose frequency is below ``min_count`` are not used (the child falls back to
P(x_i | y) in :func:`._sparse.sparse_family_scores`; HNB drops such a parent from its mixture).
"""

import math
from typing import NamedTuple

import numpy as np

from ..kernels._jit import njit, prange
from ..kernels._threads import parallel_calls, parts
from ..kernels.smoothing import log_class_priors, log_conditional_estimate, log_joint_estimate

# --------------------------------------------------------------------------------------------
# Pair statistics (the conditional mutual information is in seminaive.kernels.statistics)
# --------------------------------------------------------------------------------------------


class PairArrays(NamedTuple):
    """The pair counts and denominators the structure kernels read, in one typed bundle
    (built by :meth:`seminaive.structure._common.PairStatistics.kernel_args`)."""

    counts: np.ndarray
    pair_offsets: np.ndarray  # (a, a) start of the block of the pair {i, j}
    sizes: np.ndarray
    k: int
    uni_offsets: np.ndarray  # start of the order-1 block of every attribute
    den_uni: np.ndarray  # N(y, x_i observed)
    den_pair: np.ndarray  # N(y, x_j, x_i observed), child i, parent j
    den_offsets: np.ndarray
    class_counts: np.ndarray


@njit(cache=True, inline="always")
def _pair_cell(off, i, xi, j, xj, sizes, k):
    """Flat index (class 0) of cell (x_i, x_j) in the block of the pair {i, j}."""
    if i < j:
        return off + (xi * sizes[j] + xj) * k
    return off + (xj * sizes[i] + xi) * k


def pair_denominators(counts, pair_offsets, sizes, k, den_offsets, out):
    """``out[den_offsets[i, j] + x_j * k + y]`` = N(y, x_j, x_i observed) for child i, parent j
    (the denominator of P(x_i | y, x_j)); the children i split over the threads
    (:func:`seminaive.kernels._threads.parallel_calls`)."""
    parallel_calls(_pair_denominators, [(counts, pair_offsets, sizes, k, den_offsets, lo, hi,
                                         out) for lo, hi in parts(sizes.size, counts.size)])


@njit(cache=True, nogil=True)
def _pair_denominators(counts, pair_offsets, sizes, k, den_offsets, i0, i1, out):
    """:func:`pair_denominators` of the children ``i0 .. i1 - 1``."""
    a = sizes.size
    for i in range(i0, i1):
        for j in range(a):
            off = pair_offsets[i, j]
            if j == i or off < 0:
                continue
            base = den_offsets[i, j]
            for xj in range(sizes[j]):
                for yy in range(k):
                    acc = 0.0
                    for v in range(1, sizes[i]):
                        acc += counts[_pair_cell(off, i, v, j, xj, sizes, k) + yy]
                    out[base + xj * k + yy] = acc


# --------------------------------------------------------------------------------------------
# Gaussian children of the learners with one parent family per attribute (TAN, SP-TAN, KDB)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Leave-one-out scores from the tables (SP-TAN): the held-out row is subtracted, never refit
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _parents_usable(row, u, counts, uni_offsets, sizes, k, min_count, ok):
    """ok[j]: attribute j is observed in ``row`` and, with the row's weight ``u`` removed,
    its value has frequency >= min_count (it can serve as a parent)."""
    for j in range(sizes.size):
        xj = row[j]
        if xj == 0:
            ok[j] = False
            continue
        base = uni_offsets[j] + xj * k
        freq = -u
        for c in range(k):
            freq += counts[base + c]
        ok[j] = freq >= min_count


@njit(cache=True, inline="always")
def _pair_log_cond(i, xi, j, xj, parent_ok, yy, rm, pairs, m, laplace):
    """log P(x_i | y, x_j) with ``rm`` subtracted from the counts of class yy (j < 0 or a
    parent that is not usable: log P(x_i | y)); ``pairs`` is a :class:`PairArrays`."""
    counts, pair_offsets, sizes, k, uni_offsets, den_uni, den_pair, den_offsets, _ = pairs
    if j >= 0 and parent_ok:
        num = counts[_pair_cell(pair_offsets[i, j], i, xi, j, xj, sizes, k) + yy] - rm
        den = den_pair[den_offsets[i, j] + xj * k + yy] - rm
    else:
        num = counts[uni_offsets[i] + xi * k + yy] - rm
        den = den_uni[i, yy] - rm
    return log_conditional_estimate(num, den, sizes[i] - 1, m, laplace)


@njit(cache=True, inline="always")
def _argmax(v):
    best = 0
    for c in range(1, v.size):
        if v[c] > v[best]:
            best = c
    return best


@njit(cache=True, inline="always")
def _row_removal(w, weighted, r):
    """(weight, removed amount) of row r: a row of weight w stands for w copies, so leaving
    one out removes min(w, 1) and its result counts w times (integer weights = repeated
    rows)."""
    wr = w[r] if weighted else 1.0
    return wr, min(wr, 1.0)


@njit(parallel=True, cache=True)
def loo_tree_scores(X, y, w, weighted, parents, pairs, m, laplace, min_count, out):
    """Leave-one-out per-class log scores of a one-parent structure (``parents[i]`` or -1):
    the scores of each training row under the model counted from all rows but itself;
    ``pairs`` is a :class:`PairArrays`."""
    (counts, pair_offsets, sizes, k, uni_offsets, den_uni, den_pair, den_offsets,
     class_counts) = pairs
    n, a = X.shape
    n_total = 0.0
    for yy in range(k):
        n_total += class_counts[yy]
    for r in prange(n):
        ok = np.empty(a, dtype=np.bool_)
        _, u = _row_removal(w, weighted, r)
        yr = y[r]
        _parents_usable(X[r], u, counts, uni_offsets, sizes, k, min_count, ok)
        for yy in range(k):
            rm = u if yy == yr else 0.0
            acc = log_joint_estimate(class_counts[yy] - rm, n_total - u, k, 1.0, m, laplace)
            for i in range(a):
                xi = X[r, i]
                if xi == 0:
                    continue
                p = parents[i]
                acc += _pair_log_cond(i, xi, p, X[r, p] if p >= 0 else 0,
                                      p >= 0 and ok[p], yy, rm, pairs, m, laplace)
            out[r, yy] = acc


@njit(parallel=True, cache=True)
def pair_log_cond_tables(pairs, m, laplace, tab_offsets, full, held_out):
    """log P(x_i | y, x_j) of every child i, parent j != i and cell, at
    ``tab_offsets[i, j] + (x_i * sizes[j] + x_j) * k + y``: from all the counts (``full``) and
    with one row of class y removed (``held_out``, the leave-one-out estimate of a row of
    weight >= 1), as :func:`_pair_log_cond` computes them (the same operations, so the same
    values), once per search instead of once per row and pass."""
    (counts, pair_offsets, sizes, k, uni_offsets, den_uni, den_pair, den_offsets,
     _) = pairs
    a = sizes.size
    for i in prange(a):
        for j in range(a):
            if j == i:
                continue
            for xi in range(1, sizes[i]):
                for xj in range(1, sizes[j]):
                    base = tab_offsets[i, j] + (xi * sizes[j] + xj) * k
                    for yy in range(k):
                        full[base + yy] = _pair_log_cond(
                            i, xi, j, xj, True, yy, 0.0, pairs, m, laplace)
                        held_out[base + yy] = _pair_log_cond(
                            i, xi, j, xj, True, yy, 1.0, pairs, m, laplace)


@njit(parallel=True, cache=True)
def sptan_pass(X, y, w, weighted, parents, eligible, pairs, m, laplace, min_count, out,
               arc_tables):
    """One SP-TAN evaluation pass (Keogh & Pazzani 1999) over training rows, leave-one-out.

    For every row (weight w, leave-one-out as in :func:`_row_removal`), adds w where the
    prediction is right to: ``cur_out[b]`` (current structure ``parents``),
    ``sp_out[b, s]`` (s made the parent of every orphan c with ``eligible[s, c]``) and
    ``arc_out[b, s, c]`` (only the arc s -> c added); b = the row block of the row.
    The arcs' terms are read from the tables of :func:`pair_log_cond_tables` (computed for
    a row of weight < 1).  ``out`` is ``(cur_out, sp_out, arc_out)``, ``arc_tables``
    ``(tab_offsets, full, held_out)``.
    """
    (counts, pair_offsets, sizes, k, uni_offsets, den_uni, den_pair, den_offsets,
     class_counts) = pairs
    cur_out, sp_out, arc_out = out
    tab_offsets, full, held_out = arc_tables
    n, a = X.shape
    n_blocks = cur_out.size
    n_total = 0.0
    for yy in range(k):
        n_total += class_counts[yy]
    for b in prange(n_blocks):
        start = b * n // n_blocks
        stop = (b + 1) * n // n_blocks
        ok = np.empty(a, dtype=np.bool_)
        cur = np.zeros((a, k))
        base = np.empty(k)
        score = np.empty(k)
        arc = np.empty(k)
        for r in range(start, stop):
            wr, u = _row_removal(w, weighted, r)
            if wr <= 0:
                continue
            yr = y[r]
            _parents_usable(X[r], u, counts, uni_offsets, sizes, k, min_count, ok)
            for yy in range(k):
                rm = u if yy == yr else 0.0
                base[yy] = log_joint_estimate(class_counts[yy] - rm, n_total - u, k, 1.0, m,
                                              laplace)
            for i in range(a):
                xi = X[r, i]
                p = parents[i]
                for yy in range(k):
                    if xi == 0:
                        cur[i, yy] = 0.0
                        continue
                    rm = u if yy == yr else 0.0
                    cur[i, yy] = _pair_log_cond(i, xi, p, X[r, p] if p >= 0 else 0,
                                                p >= 0 and ok[p], yy, rm, pairs, m, laplace)
                    base[yy] += cur[i, yy]
            base_right = _argmax(base) == yr
            if base_right:
                cur_out[b] += wr
            for s in range(a):
                for yy in range(k):
                    score[yy] = base[yy]
                for c in range(a):
                    if not eligible[s, c]:
                        continue
                    xc = X[r, c]
                    if xc == 0 or not ok[s]:
                        # the orphan keeps P(x_c | y): the arc changes nothing for this row
                        if base_right:
                            arc_out[b, s, c] += wr
                        continue
                    cell = tab_offsets[c, s] + (xc * sizes[s] + X[r, s]) * k
                    for yy in range(k):
                        if yy != yr:
                            term = full[cell + yy]
                        elif u == 1.0:
                            term = held_out[cell + yy]
                        else:
                            term = _pair_log_cond(c, xc, s, X[r, s], True, yy, u, pairs, m,
                                                  laplace)
                        diff = term - cur[c, yy]
                        score[yy] += diff
                        arc[yy] = base[yy] + diff
                    if _argmax(arc) == yr:
                        arc_out[b, s, c] += wr
                if _argmax(score) == yr:
                    sp_out[b, s] += wr


# --------------------------------------------------------------------------------------------
# Hidden naive Bayes (Jiang, Zhang & Cai 2009)
# --------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True)
def hnb_scores(X, cmi, pairs, m, laplace, min_count, out):
    """log P(y) + sum_i log sum_{j != i} W_ij P(x_i | y, x_j), W_ij = cmi[i, j] / sum_j cmi[i, j].

    Parents j that are missing in the row (or whose value has frequency < min_count) leave the
    mixture and the weights of the others are renormalised; with no weight left the child
    uses P(x_i | y), as Weka's HNB does when the CMI sum is 0.  ``pairs`` is a
    :class:`PairArrays`.
    """
    (counts, pair_offsets, sizes, k, uni_offsets, den_uni, den_pair, den_offsets,
     class_counts) = pairs
    n, a = X.shape
    prior = log_class_priors(class_counts, m, laplace)
    for r in prange(n):
        ok = np.empty(a, dtype=np.bool_)
        _parents_usable(X[r], 0.0, counts, uni_offsets, sizes, k, min_count, ok)
        for yy in range(k):
            acc = prior[yy]
            for i in range(a):
                xi = X[r, i]
                if xi == 0:
                    continue
                total_weight = 0.0
                mixture = 0.0
                for j in range(a):
                    if j == i or not ok[j] or cmi[i, j] <= 0.0:
                        continue
                    total_weight += cmi[i, j]
                    mixture += cmi[i, j] * math.exp(_pair_log_cond(
                        i, xi, j, X[r, j], True, yy, 0.0, pairs, m, laplace))
                if total_weight > 0.0:
                    acc += math.log(mixture / total_weight)
                else:
                    acc += _pair_log_cond(i, xi, -1, 0, False, yy, 0.0, pairs, m, laplace)
            out[r, yy] = acc
