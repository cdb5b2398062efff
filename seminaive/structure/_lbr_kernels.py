"""Kernels of lazy Bayesian rules, LBR (Zheng & Webb 2000).

The training data is kept as storage codes ``TX`` (n, a) (0 = missing), class indices ``ty``
and optional weights ``tw``.  A *local naive Bayes* is the naive Bayes counted from a subset
of the training rows (given as an index array) using a subset of the attributes (a boolean
mask).  Its estimates use the shared smoothing helpers (Webb et al. 2012, §2; Cerquides &
López de Màntaras 2005, eqs. 15-16).

Leave-one-out: a row of weight w stands for w copies, so leaving it out removes min(w, 1) from
the counts and its result (right or wrong) counts w times; with integer weights this is the
same as repeating rows.
"""

import math
from typing import NamedTuple

import numpy as np

from ..kernels._jit import njit, prange
from ..kernels.smoothing import log_conditional_estimate, log_joint_estimate


@njit(cache=True)
def _count_subset(TX, ty, tw, weighted, rows, n_rows, uni_offsets, k, class_counts, counts,
                  den):
    """Local naive Bayes counts of rows[:n_rows]: N(y), N(y, x_i) (order-1 blocks at
    ``uni_offsets``) and N(y, x_i observed) (``den[i * k + y]``), every attribute."""
    a = TX.shape[1]
    class_counts[:] = 0.0
    counts[:] = 0.0
    den[:] = 0.0
    for q in range(n_rows):
        r = rows[q]
        wr = tw[r] if weighted else 1.0
        yr = ty[r]
        class_counts[yr] += wr
        for i in range(a):
            x = TX[r, i]
            counts[uni_offsets[i] + x * k + yr] += wr
            if x > 0:
                den[i * k + yr] += wr


class Training(NamedTuple):
    """The training data LBR keeps, and the layout of its local naive Bayes counts."""

    TX: np.ndarray  # storage codes (n, a), 0 = missing
    ty: np.ndarray  # class indices
    tw: np.ndarray  # weights (unread unless weighted)
    weighted: bool
    sizes: np.ndarray  # storage codes per attribute
    uni_offsets: np.ndarray  # start of each attribute's block of N(y, x_i)
    k: int  # classes
    n_cells: int  # cells of all the blocks


@njit(cache=True)
def _local_scores(row, rm, yr, attributes, train, nb, m, laplace, scores):
    """Per-class log scores of ``row`` by the local naive Bayes on ``attributes`` (its
    counts ``nb = (class_counts, counts, den)``, see :func:`_count_subset`), with ``rm``
    removed from the counts of class ``yr`` (leave-one-out; rm = 0: none)."""
    sizes, uni_offsets, k = train.sizes, train.uni_offsets, train.k
    class_counts, counts, den = nb
    n_total = 0.0
    for yy in range(k):
        n_total += class_counts[yy]
    removed = rm if yr >= 0 else 0.0
    for yy in range(k):
        r = rm if yy == yr else 0.0
        s = log_joint_estimate(class_counts[yy] - r, n_total - removed, k, 1.0, m, laplace)
        for i in range(row.size):
            x = row[i]
            if x == 0 or not attributes[i]:
                continue
            s += log_conditional_estimate(counts[uni_offsets[i] + x * k + yy] - r,
                                          den[i * k + yy] - r, sizes[i] - 1, m, laplace)
        scores[yy] = s


@njit(cache=True, inline="always")
def _best_class(scores):
    best = 0
    for c in range(1, scores.size):
        if scores[c] > scores[best]:
            best = c
    return best


@njit(cache=True)
def _loo_wrong(train, rows, n_rows, attributes, nb, m, laplace, wrong, lc_keep, lc_drop):
    """wrong[q]: leave-one-out misclassification of rows[q] by the local naive Bayes of
    rows[:n_rows] (counted beforehand into ``nb = (class_counts, counts, den)``).

    Rows that remove exactly one unit (weight >= 1) read precomputed log tables: the counts
    as they are (``lc_keep``, the other classes) and minus one (``lc_drop``, the row's own
    class); other rows are scored directly."""
    TX, ty, tw, weighted, sizes, uni_offsets, k, _ = train
    class_counts, counts, den = nb
    a = TX.shape[1]
    n_total = 0.0
    for yy in range(k):
        n_total += class_counts[yy]
    prior_keep = np.empty(k)
    prior_drop = np.empty(k)
    for yy in range(k):
        prior_keep[yy] = log_joint_estimate(class_counts[yy], n_total - 1.0, k, 1.0, m,
                                            laplace)
        prior_drop[yy] = log_joint_estimate(class_counts[yy] - 1.0, n_total - 1.0, k, 1.0, m,
                                            laplace)
    for i in range(a):
        if not attributes[i]:
            continue
        for x in range(1, sizes[i]):
            for yy in range(k):
                c = counts[uni_offsets[i] + x * k + yy]
                d = den[i * k + yy]
                lc_keep[uni_offsets[i] + x * k + yy] = log_conditional_estimate(
                    c, d, sizes[i] - 1, m, laplace)
                lc_drop[uni_offsets[i] + x * k + yy] = log_conditional_estimate(
                    c - 1.0, d - 1.0, sizes[i] - 1, m, laplace) if c >= 1.0 else 0.0
    scores = np.empty(k)
    for q in range(n_rows):
        r = rows[q]
        wr = tw[r] if weighted else 1.0
        yr = ty[r]
        if wr >= 1.0:
            for yy in range(k):
                scores[yy] = prior_drop[yy] if yy == yr else prior_keep[yy]
            for i in range(a):
                x = TX[r, i]
                if x == 0 or not attributes[i]:
                    continue
                cell = uni_offsets[i] + x * k
                for yy in range(k):
                    scores[yy] += lc_drop[cell + yy] if yy == yr else lc_keep[cell + yy]
        else:
            _local_scores(TX[r], wr, yr, attributes, train, nb, m, laplace, scores)
        wrong[q] = _best_class(scores) != yr


@njit(cache=True)
def sign_test_p(wins, losses):
    """One-tailed sign test: P(X >= wins) for X ~ Binomial(wins + losses, 1/2)."""
    n = wins + losses
    if n == 0:
        return 1.0
    p = 0.0
    for i in range(wins, n + 1):
        p += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                      - n * math.log(2.0))
    return min(p, 1.0)


@njit(cache=True)
def loo_naive_bayes_wrong(train, m, laplace, wrong):
    """Leave-one-out errors of naive Bayes on all training rows and attributes (the starting
    point of every LBR search; computed once; ``train``: a :class:`Training`)."""
    TX, ty, tw, weighted, sizes, uni_offsets, k, n_cells = train
    n, a = TX.shape
    rows = np.arange(n)
    class_counts = np.empty(k)
    counts = np.empty(n_cells)
    den = np.empty(a * k)
    _count_subset(TX, ty, tw, weighted, rows, n, uni_offsets, k, class_counts, counts, den)
    attributes = np.ones(a, dtype=np.bool_)
    _loo_wrong(train, rows, n, attributes, (class_counts, counts, den), m, laplace, wrong,
               np.zeros(n_cells), np.zeros(n_cells))


@njit(parallel=True, cache=True)
def lbr_scores(train, base_wrong, QX, m, laplace, alpha, out, chosen):
    """Lazy Bayesian rules for every test row of ``QX`` (Zheng & Webb 2000, Table 1).

    Starting from W = {} (all training rows D, all attributes R, errors = leave-one-out
    errors of naive Bayes on D), repeatedly try every attribute A in R whose test value v is
    observed: D' = rows of D with A = v, local naive Bayes on D' with R - {A}, errors on D'
    by leave-one-out.  TempErrors = errors of D outside D' (unchanged) + errors on D'.  The
    candidate qualifies if, on D', the rows it turns right (wins) outnumber the rows it
    turns wrong (losses) with a one-tailed sign test p <= alpha (weights rounded to whole
    rows); among qualifying candidates the one with the fewest TempErrors (lowest index on
    ties) joins W: D = D', R = R - {A}.  Stop when none qualifies.  The row is classified
    by the local naive Bayes of the final D and R: ``out[q]`` = per-class log scores,
    ``chosen[q, A]`` = A is in W.  ``train`` is a :class:`Training`.
    """
    TX, ty, tw, weighted, sizes, uni_offsets, k, n_cells = train
    n, a = TX.shape
    for q in prange(QX.shape[0]):
        row = QX[q]
        rows = np.arange(n)
        wrong = base_wrong.copy()
        n_rows = n
        attributes = np.ones(a, dtype=np.bool_)
        sub_rows = np.empty(n, dtype=np.int64)
        sub_prev = np.empty(n, dtype=np.bool_)
        sub_wrong = np.empty(n, dtype=np.bool_)
        best_rows = np.empty(n, dtype=np.int64)
        best_wrong = np.empty(n, dtype=np.bool_)
        class_counts = np.empty(k)
        counts = np.empty(n_cells)
        den = np.empty(a * k)
        scores = np.empty(k)
        lc_keep = np.zeros(n_cells)
        lc_drop = np.zeros(n_cells)
        errors = 0.0
        for p in range(n_rows):
            if wrong[p]:
                errors += tw[rows[p]] if weighted else 1.0
        while True:
            best_errors = errors
            best_attribute = -1
            best_n = np.int64(0)  # typed: a literal 0 would be typed Literal[int](0) ...
            for att in range(a):
                v = row[att]
                if not attributes[att] or v == 0:
                    continue
                n_sub = np.int64(0)  # ... and the kernels it is passed to compiled twice
                for p in range(n_rows):
                    r = rows[p]
                    if TX[r, att] == v:
                        sub_rows[n_sub] = r
                        sub_prev[n_sub] = wrong[p]
                        n_sub += 1
                if n_sub == 0:
                    continue
                attributes[att] = False
                _count_subset(TX, ty, tw, weighted, sub_rows, n_sub, uni_offsets, k,
                              class_counts, counts, den)
                _loo_wrong(train, sub_rows, n_sub, attributes, (class_counts, counts, den), m,
                           laplace, sub_wrong, lc_keep, lc_drop)
                attributes[att] = True
                wins = 0.0
                losses = 0.0
                for p in range(n_sub):
                    wr = tw[sub_rows[p]] if weighted else 1.0
                    if sub_prev[p] and not sub_wrong[p]:
                        wins += wr
                    elif sub_wrong[p] and not sub_prev[p]:
                        losses += wr
                temp_errors = errors - wins + losses
                if (wins > losses and temp_errors < best_errors
                        and sign_test_p(int(round(wins)), int(round(losses))) <= alpha):
                    best_errors = temp_errors
                    best_attribute = att
                    best_n = n_sub
                    best_rows[:n_sub] = sub_rows[:n_sub]
                    best_wrong[:n_sub] = sub_wrong[:n_sub]
            if best_attribute < 0:
                break
            attributes[best_attribute] = False
            chosen[q, best_attribute] = True
            n_rows = best_n
            rows[:n_rows] = best_rows[:n_rows]
            wrong[:n_rows] = best_wrong[:n_rows]
            errors = 0.0
            for p in range(n_rows):
                if wrong[p]:
                    errors += tw[rows[p]] if weighted else 1.0
        _count_subset(TX, ty, tw, weighted, rows, n_rows, uni_offsets, k, class_counts,
                      counts, den)
        _local_scores(row, 0.0, np.int64(-1), attributes, train, (class_counts, counts, den),
                      m, laplace, scores)
        for yy in range(k):
            out[q, yy] = scores[yy]
