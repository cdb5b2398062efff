"""Numba kernels of the single-model structure learners: TAN, SP-TAN, KDB and HNB.

Pair statistics read the order-2 blocks of a :class:`seminaive.tables.FrequencyTable`
directly: ``pair_offsets[i, j]`` (symmetric) is the start of the block of the sorted pair
(min(i, j), max(i, j)), of shape ``(sizes[min], sizes[max], k)``.  A *family* block (an
attribute with its parents) has the child as its first, slowest axis (see
:class:`seminaive.tables.CombinationTable`); ``strides[f, t]`` is the flat stride of member t.

Estimates use the shared smoothing helpers (:func:`.smoothing.log_joint_estimate`,
:func:`.smoothing.log_conditional_estimate`; Webb et al. 2012, §2; Cerquides & López de
Màntaras 2005, eqs. 15-16).  A missing child value is left out of the product; a missing
parent value is dropped (the child falls back to P(x_i | y, remaining parents)); observed
parent values whose frequency is below ``min_count`` are not used (the child falls back to
P(x_i | y) in :func:`family_scores`; HNB drops such a parent from its mixture).
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..kernels.smoothing import log_conditional_estimate, log_joint_estimate

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


@njit(parallel=True, cache=True)
def pair_denominators(counts, pair_offsets, sizes, k, den_offsets, out):
    """``out[den_offsets[i, j] + x_j * k + y]`` = N(y, x_j, x_i observed) for child i, parent j
    (the denominator of P(x_i | y, x_j))."""
    a = sizes.size
    for i in prange(a):
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
# Classification with one parent family per attribute (TAN, SP-TAN, KDB)
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def family_sums(counts, off, members, strides, d, row, sizes, k, target, num, den):
    """Counts of the family (``members[:d]``: the child, then its parents; block at ``off``
    with member strides ``strides``) at the parent values of ``row``, parents missing in the
    row summed out (their missing slot included): ``num[y]`` = N(child = target, y, parents),
    ``den[y]`` = N(child observed, y, parents).  Returns the number of rows with those parent
    values (child missing included), or -1 when no parent is observed in ``row``."""
    n_missing = 0
    mult = 1
    first = off
    for t in range(1, d):
        p = members[t]
        xp = row[p]
        if xp == 0:
            n_missing += 1
            mult *= sizes[p]
        else:
            first += xp * strides[t]
    if n_missing >= d - 1:
        return -1.0
    for yy in range(k):
        num[yy] = 0.0
        den[yy] = 0.0
    freq = 0.0
    for q in range(mult):
        rest = q
        cell = first
        for t in range(d - 1, 0, -1):
            p = members[t]
            if row[p] == 0:
                cell += (rest % sizes[p]) * strides[t]
                rest //= sizes[p]
        for v in range(sizes[members[0]]):
            base = cell + v * strides[0]
            for yy in range(k):
                c = counts[base + yy]
                freq += c
                if v >= 1:
                    den[yy] += c
                if v == target:
                    num[yy] += c
    return freq


def score_families(X, families, pairs, m, laplace, min_count, out, skip=None,
                   missing_code=None):
    """:func:`_family_scores` of a :class:`~seminaive.structure._common.Families` bundle,
    with the class and order-1 counts of ``pairs`` (a :class:`PairArrays`); attributes
    with ``skip[i]`` (Gaussian children, whose densities are added apart) contribute only
    whether they are missing when ``missing_code[i]`` (a storage code) is their own value
    for missing (``missing="value"``)."""
    if skip is None:
        skip = np.zeros(X.shape[1], dtype=np.bool_)
    if missing_code is None:
        missing_code = np.zeros(X.shape[1], dtype=np.int64)
    _family_scores(X, families.members, families.orders, families.offsets, families.strides,
                   families.counts, pairs.sizes, pairs.k, pairs.class_counts, pairs.counts,
                   pairs.uni_offsets, pairs.den_uni, m, laplace, min_count, skip,
                   missing_code, out)


def family_scores(X, members, orders, fam_offsets, strides, fam_counts, sizes, k,
                  class_counts, uni_counts, uni_offsets, den_uni, m, laplace, min_count, out):
    """:func:`_family_scores` with every attribute a child."""
    _family_scores(X, members, orders, fam_offsets, strides, fam_counts, sizes, k,
                   class_counts, uni_counts, uni_offsets, den_uni, m, laplace, min_count,
                   np.zeros(X.shape[1], dtype=np.bool_), np.zeros(X.shape[1], dtype=np.int64),
                   out)


@njit(parallel=True, cache=True)
def _family_scores(X, members, orders, fam_offsets, strides, fam_counts, sizes, k,
                   class_counts, uni_counts, uni_offsets, den_uni, m, laplace, min_count, skip,
                   missing_code, out):
    """log P(y) + sum_i log P(x_i | y, pa_i) for every row and class.

    An attribute with ``skip[i]`` adds no term, or, when ``missing_code[i]`` > 0 is the
    storage code of its value for missing, log P(missing | y, pa_i) if the row has that code
    and log (1 - P(missing | y, pa_i)) otherwise (a Gaussian child under ``missing="value"``:
    its density is added apart).

    ``members[i, :orders[i]]`` = (i, parents of i); the family block of i (child first) starts
    at ``fam_offsets[i]`` in ``fam_counts``.  Parents whose value is missing are summed out of
    the family block (exact marginal counts, the missing slot included); if no parent is
    observed, or the observed parent values have frequency < ``min_count``, the child uses
    P(x_i | y) from ``uni_counts`` (order-1 blocks at ``uni_offsets``, denominators
    ``den_uni``).
    """
    n, a = X.shape
    n_total = 0.0
    for yy in range(k):
        n_total += class_counts[yy]
    prior = np.empty(k)
    for yy in range(k):
        prior[yy] = log_joint_estimate(class_counts[yy], n_total, k, 1.0, m, laplace)
    for r in prange(n):
        num = np.empty(k)
        den = np.empty(k)
        for yy in range(k):
            out[r, yy] = prior[yy]
        for i in range(a):
            xi = X[r, i]
            if xi == 0 or (skip[i] and missing_code[i] == 0):
                continue
            # the value whose probability is read (a skipped child: its missing code)
            target = missing_code[i] if skip[i] else xi
            s_i = sizes[i]
            d = orders[i]
            use_family = False
            if d > 1:
                freq = family_sums(fam_counts, fam_offsets[i], members[i], strides[i], d, X[r],
                                   sizes, k, target, num, den)
                use_family = freq >= 0.0 and freq >= min_count
            if not use_family:
                base = uni_offsets[i] + target * k
                for yy in range(k):
                    num[yy] = uni_counts[base + yy]
                    den[yy] = den_uni[i, yy]
            observed_gaussian = skip[i] and xi != target
            for yy in range(k):
                value = log_conditional_estimate(num[yy], den[yy], s_i - 1, m, laplace)
                if observed_gaussian:
                    value = math.log1p(-math.exp(value))
                out[r, yy] += value


@njit(parallel=True, cache=True)
def gaussian_family_terms(X, V, chain, chain_len, entry_cells, sizes, k, sums, mean, var,
                          min_count, out):
    """Add log N(x_i; mean, var) of every observed Gaussian child to ``out``.

    Child j (column j of ``V``) has the parents ``chain[j, :chain_len[j]]`` (most
    conditionally informative first); ``entry_cells[j, L]`` is the first (cell, class) index
    (``offset // 3``) of its moments given the first L of them.  A row uses the longest
    prefix whose parent values are observed and whose cell holds at least ``min_count``
    rows with the child observed (L = 0: the class alone).
    """
    n_rows = X.shape[0]
    n_num = V.shape[1]
    log_2pi = math.log(2.0 * math.pi)
    for r in prange(n_rows):
        for j in range(n_num):
            v = V[r, j]
            if math.isnan(v):
                continue
            level = 0
            cell_used = 0
            cell = 0
            for t in range(chain_len[j]):
                p = chain[j, t]
                xp = X[r, p]
                if xp == 0:
                    break
                cell = cell * sizes[p] + xp
                base = (entry_cells[j, t + 1] + cell * k) * 3
                weight = 0.0
                for yy in range(k):
                    weight += sums[base + 3 * yy]
                if weight < min_count:
                    break
                level = t + 1
                cell_used = cell
            base = entry_cells[j, level] + cell_used * k
            for yy in range(k):
                s2 = var[base + yy]
                dv = v - mean[base + yy]
                out[r, yy] -= 0.5 * (log_2pi + math.log(s2) + dv * dv / s2)


@njit(parallel=True, cache=True)
def tree_family_scores(X, chain, chain_len, tree_offsets, log_est, sizes, k, log_prior, skip,
                       missing_code, out):
    """log P(y) + sum_i log P(x_i | y, pa_i) from estimate trees (``smoothing="hdp"``).

    The tree of attribute i conditions on the class, then on ``chain[i, :chain_len[i]]`` in
    turn; its estimates (``log_est`` from ``tree_offsets[i]``: levels stacked from the root,
    ``sizes[i] - 1`` values per node, dense, absent nodes filled from their ancestors) are read
    at the deepest level whose parents are all observed in the row (a missing parent stops the
    descent).  ``skip`` / ``missing_code`` as in :func:`_family_scores` (Gaussian children).
    """
    n, a = X.shape
    for r in prange(n):
        for yy in range(k):
            out[r, yy] = log_prior[yy]
        for i in range(a):
            xi = X[r, i]
            if xi == 0 or (skip[i] and missing_code[i] == 0):
                continue
            target = missing_code[i] if skip[i] else xi
            n_values = sizes[i] - 1
            observed_gaussian = skip[i] and xi != target
            for yy in range(k):
                start = 1
                level_rows = k
                row = yy
                for t in range(chain_len[i]):
                    p = chain[i, t]
                    xp = X[r, p]
                    if xp == 0:
                        break
                    start += level_rows
                    level_rows *= sizes[p]
                    row = row * sizes[p] + xp
                value = log_est[tree_offsets[i] + (start + row) * n_values + target - 1]
                if observed_gaussian:
                    value = math.log1p(-math.exp(value))
                out[r, yy] += value


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
def _pair_log_cond(i, xi, j, xj, parent_ok, yy, rm, counts, pair_offsets, sizes, k,
                   uni_offsets, den_uni, den_pair, den_offsets, m, laplace):
    """log P(x_i | y, x_j) with ``rm`` subtracted from the counts of class yy (j < 0 or a
    parent that is not usable: log P(x_i | y))."""
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
                                      p >= 0 and ok[p], yy, rm, counts, pair_offsets, sizes, k,
                                      uni_offsets, den_uni, den_pair, den_offsets, m, laplace)
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
                            i, xi, j, xj, True, yy, 0.0, counts, pair_offsets, sizes, k,
                            uni_offsets, den_uni, den_pair, den_offsets, m, laplace)
                        held_out[base + yy] = _pair_log_cond(
                            i, xi, j, xj, True, yy, 1.0, counts, pair_offsets, sizes, k,
                            uni_offsets, den_uni, den_pair, den_offsets, m, laplace)


@njit(parallel=True, cache=True)
def sptan_pass(X, y, w, weighted, parents, eligible, pairs, m, laplace, min_count, cur_out,
               sp_out, arc_out, tab_offsets, full, held_out):
    """One SP-TAN evaluation pass (Keogh & Pazzani 1999) over training rows, leave-one-out.

    For every row (weight w, leave-one-out as in :func:`_row_removal`), adds w where the
    prediction is right to: ``cur_out[b]`` (current structure ``parents``),
    ``sp_out[b, s]`` (s made the parent of every orphan c with ``eligible[s, c]``) and
    ``arc_out[b, s, c]`` (only the arc s -> c added); b = the row block of the row.
    The arcs' terms are read from the tables of :func:`pair_log_cond_tables` (computed for
    a row of weight < 1).
    """
    (counts, pair_offsets, sizes, k, uni_offsets, den_uni, den_pair, den_offsets,
     class_counts) = pairs
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
                                                p >= 0 and ok[p], yy, rm, counts,
                                                pair_offsets, sizes, k, uni_offsets, den_uni,
                                                den_pair, den_offsets, m, laplace)
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
                            term = _pair_log_cond(c, xc, s, X[r, s], True, yy, u, counts,
                                                  pair_offsets, sizes, k, uni_offsets,
                                                  den_uni, den_pair, den_offsets, m, laplace)
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
    n_total = 0.0
    for yy in range(k):
        n_total += class_counts[yy]
    prior = np.empty(k)
    for yy in range(k):
        prior[yy] = log_joint_estimate(class_counts[yy], n_total, k, 1.0, m, laplace)
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
                        i, xi, j, X[r, j], True, yy, 0.0, counts, pair_offsets, sizes, k,
                        uni_offsets, den_uni, den_pair, den_offsets, m, laplace))
                if total_weight > 0.0:
                    acc += math.log(mixture / total_weight)
                else:
                    acc += _pair_log_cond(i, xi, -1, 0, False, yy, 0.0, counts, pair_offsets,
                                          sizes, k, uni_offsets, den_uni, den_pair,
                                          den_offsets, m, laplace)
            out[r, yy] = acc
