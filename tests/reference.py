"""A deliberately simple, slow, pure-Python reference implementation of AnDE.

It follows the semantics documented in ``seminaive/ande.py`` / ``seminaive/kernels.py``
(Webb et al. 2012, section 2) and shares no code with the library: every count is obtained by
scanning the raw training rows, parent sets come from ``itertools.combinations`` and all
arithmetic is exact (``fractions.Fraction``), so it cannot underflow.

Data are integer codes ``0 .. n_values[i] - 1`` with ``-1`` for a missing value.

For a test row ``x`` and parent order ``n`` (clamped to the number of attributes ``a``):

* a parent set ``s`` of size ``n`` *qualifies* if every attribute of ``s`` is observed in ``x``
  and (for ``n > 0``) its training frequency ``N(x_s) >= min_count``;
* sub-model of ``s``:  ``P(y, x_s) * prod_{i not in s, x_i observed} P(x_i | y, x_s)``;
* ``m_estimate``: ``P(y, x_s) = (N(y, x_s) + m / (k prod|X_s|)) / (N_obs(s) + m)`` and
  ``P(x_i | y, x_s) = (N(y, x_s, x_i) + m / |X_i|) / (N(y, x_s, x_i observed) + m)``;
* ``laplace``: ``(N(y, x_s) + 1) / (N_obs(s) + k prod|X_s|)`` and
  ``(N(y, x_s, x_i) + 1) / (N(y, x_s, x_i observed) + |X_i|)``;
  ``N_obs(s)`` = training rows in which every attribute of ``s`` is observed;
* ``joint``: posterior of the mean of the qualifying sub-models' joints; ``posterior``: mean
  of their normalised posteriors; ``vote``: fraction of qualifying sub-models whose argmax
  (ties -> lowest class index) is the class;
* if no parent set of size ``n`` qualifies, the row cascades to ``n - 1`` (naive Bayes, the
  empty parent set, always qualifies);
* ``parents`` (selective AnDE, Chen et al. 2017): the parent sets of size ``n`` are drawn from
  these attributes only; the cascade to ``n - 1`` and below uses every attribute.
"""

import math
from fractions import Fraction
from itertools import combinations

import numpy as np


def _as_rows(X):
    return [[int(v) for v in row] for row in np.asarray(X)]


def _sub_model_joints(rows, y, x, s, n_values, n_classes, laplace, m):
    """Exact P(y, x_s) * prod P(x_i | y, x_s) for every class (list of Fractions)."""
    a = len(n_values)
    n_obs = sum(1 for r in rows if all(r[i] >= 0 for i in s))
    prod_values = 1
    for i in s:
        prod_values *= n_values[i]
    matching = [t for t, r in enumerate(rows) if all(r[i] == x[i] for i in s)]
    joints = []
    for c in range(n_classes):
        rows_c = [rows[t] for t in matching if y[t] == c]
        n_yxs = len(rows_c)
        if laplace:
            p = Fraction(n_yxs + 1, n_obs + n_classes * prod_values)
        else:
            p = (n_yxs + m / (n_classes * prod_values)) / (n_obs + m)
        for i in range(a):
            if i in s or x[i] < 0:
                continue
            num = sum(1 for r in rows_c if r[i] == x[i])
            den = sum(1 for r in rows_c if r[i] >= 0)  # N(y,x_s) - N(y,x_s,x_i missing)
            if laplace:
                p *= Fraction(num + 1, den + n_values[i])
            else:
                p *= (num + m / n_values[i]) / (den + m)
        joints.append(p)
    return joints


def _argmax(values):
    best = 0
    for c in range(1, len(values)):
        if values[c] > values[best]:
            best = c
    return best


def reference_exact(X_train, y_train, X_test, n, n_values, n_classes, smoothing="m_estimate",
                    m=1.0, min_count=1, aggregate="joint", parents=None):
    """Exact posteriors P(y | x) as a list (rows) of lists (classes) of Fractions."""
    if smoothing not in ("m_estimate", "laplace"):
        raise ValueError(smoothing)
    if aggregate not in ("joint", "posterior", "vote"):
        raise ValueError(aggregate)
    laplace = smoothing == "laplace"
    m = Fraction(m)
    min_count = Fraction(min_count)
    rows = _as_rows(X_train)
    y = [int(v) for v in np.asarray(y_train)]
    n_values = [int(v) for v in n_values]
    a = len(n_values)
    result = []
    for x in _as_rows(X_test):
        sub_models = []
        for level in range(min(n, a), -1, -1):
            pool = range(a) if parents is None or level < min(n, a) else sorted(parents)
            for s in combinations(pool, level):
                if any(x[i] < 0 for i in s):
                    continue
                freq = sum(1 for r in rows if all(r[i] == x[i] for i in s))
                if level > 0 and freq < min_count:
                    continue
                sub_models.append(
                    _sub_model_joints(rows, y, x, s, n_values, n_classes, laplace, m))
            if sub_models:
                break
        n_sub = len(sub_models)
        if aggregate == "joint":
            mean = [sum(j[c] for j in sub_models) / n_sub for c in range(n_classes)]
            total = sum(mean)
            post = [v / total for v in mean]
        elif aggregate == "posterior":
            post = [Fraction(0)] * n_classes
            for j in sub_models:
                total = sum(j)
                for c in range(n_classes):
                    post[c] += j[c] / total / n_sub
        else:
            votes = [0] * n_classes
            for j in sub_models:
                votes[_argmax(j)] += 1
            post = [Fraction(v, n_sub) for v in votes]
        result.append(post)
    return result


def reference_proba(X_train, y_train, X_test, n, n_values, n_classes, smoothing="m_estimate",
                    m=1.0, min_count=1, aggregate="joint", parents=None):
    """P(y | x) of AnDE, float array of shape (n_test, n_classes)."""
    exact = reference_exact(X_train, y_train, X_test, n, n_values, n_classes, smoothing, m,
                            min_count, aggregate, parents)
    return np.array([[float(p) for p in row] for row in exact], dtype=np.float64)


def exact_log(q):
    """log of a positive Fraction of any size (no underflow); -inf for 0."""
    if q == 0:
        return -math.inf
    return math.log(q.numerator) - math.log(q.denominator)


def reference_log_proba(X_train, y_train, X_test, n, n_values, n_classes,
                        smoothing="m_estimate", m=1.0, min_count=1, aggregate="joint"):
    """log P(y | x), computed exactly and only then taken to log space (never underflows)."""
    exact = reference_exact(X_train, y_train, X_test, n, n_values, n_classes, smoothing, m,
                            min_count, aggregate)
    return np.array([[exact_log(p) for p in row] for row in exact], dtype=np.float64)


def sub_model_joint(X_train, y_train, x, s, n_values, n_classes, smoothing="m_estimate",
                    m=1.0):
    """Exact ``P(y, x_s) * prod_{i not in s, x_i observed} P(x_i | y, x_s)`` for every class
    (one sub-model, before averaging), as Fractions."""
    return _sub_model_joints(_as_rows(X_train), [int(v) for v in np.asarray(y_train)],
                             [int(v) for v in x], tuple(s), [int(v) for v in n_values],
                             n_classes, smoothing == "laplace", Fraction(m))
