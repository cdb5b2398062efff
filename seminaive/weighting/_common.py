"""Shared machinery of the weighted ensembles: weights per parent combination or per parent
cell, information-theoretic weights from the count blocks, validation, and the estimator
base class that scores with the weighted kernel path.

Weights reach the scoring kernel (:func:`seminaive.tables.scoring.predict_scores_weighted`)
as one log weight per *cell* of the count blocks of orders 0..n (``lw[offsets[g] // k +
cell]``): a weight per parent combination is repeated over its cells, a weight per parent
value (WAODE-KL) varies across them.  Order-n cells weight the sub-models; lower orders
weight the sub-models a row cascades to when no order-n parent qualifies.
"""

import numpy as np
from scipy.special import logsumexp

from .. import statistics
from ..base import _BaseAnDE
from ..parts import GaussianChildren

#: tolerance on the sum of saved weights (they are normalised in float64 before saving)
SUM_TOLERANCE = 1e-9
#: the log of a sum below which :func:`log_sum_text` writes the sum itself: its terms and
#: their sum are then floats (the largest float is exp(709.78...))
_LARGEST_LOG_SUM = 709.0


def effective_order(table, n):
    """Parent order actually used with this table (n is clamped to the attributes)."""
    return min(int(n), table.n_attributes)


def parent_slice(table, level):
    """Global indices of the combinations of order ``level``."""
    r = table.combination_range(level)
    return slice(r.start, r.stop)


def parent_combinations(table, level):
    """Attribute indices of every combination of order ``level``, shape (n_combos, level)."""
    return table.combinations(level)


def n_parent_cells(table, n):
    """Number of cells of the blocks of orders 0..n (length of a per-cell weight array)."""
    return table.cell_start(n + 1)


def cell_log_weights(table, n, level_log_weights):
    """Per-cell log weights (orders 0..n) from per-combination log weights.

    ``level_log_weights`` maps an order to an array with one log weight per combination of
    that order; orders not given get weight 1 (log 0).
    """
    cells = table.cells_per_combination(n)
    per_combo = np.zeros(cells.size)
    for level, values in level_log_weights.items():
        per_combo[parent_slice(table, level)] = values
    return np.repeat(per_combo, cells)


def mutual_information(table, level):
    """I(X_s; Y) for every combination s of order ``level`` (natural log), as Weka's WAODE
    (Jiang & Zhang 2006) computes it for single attributes; see
    :func:`seminaive.statistics.combination_mutual_information`."""
    return statistics.combination_mutual_information(table, level)


def kl_cell_weights(table, n, smoothing, m, min_count):
    """Per-cell log weights log KL(P(Y | x_s) || P(Y)) for every cell of orders 1..n.

    The weight of the sub-model with parent value x_s is the Kullback-Leibler divergence of
    the class distribution given x_s from the class prior (the KL measure of attribute
    values, Lee, Gutierrez & Dou 2011, as used for WAODE-KL, the SWAODE paper (2024) ref. [21]);
    both distributions are the model's own smoothed estimates (P(Y | x_s) normalises P(y, x_s)).
    Order 0 (naive Bayes, one sub-model) gets weight 1; unusable cells get -inf.
    """
    tables = table.log_tables(n, smoothing, m, min_count)
    k = table.n_classes
    lj = tables.log_joint
    log_prior = lj[:k] - logsumexp(lj[:k])
    out = np.zeros(n_parent_cells(table, n))
    start, stop = table.cell_start(1) * k, table.cell_start(n + 1) * k
    cells = lj[start:stop].reshape(-1, k)
    usable = ~np.isnan(cells[:, 0])
    log_post = np.full(cells.shape, np.nan)
    log_post[usable] = cells[usable] - logsumexp(cells[usable], axis=1, keepdims=True)
    kl = np.full(cells.shape[0], 0.0)
    kl[usable] = np.maximum(np.sum(np.exp(log_post[usable]) * (log_post[usable] - log_prior),
                                   axis=1), 0.0)
    with np.errstate(divide="ignore"):
        out[start // k:] = np.log(kl)
    out[start // k:][~usable] = -np.inf
    return out


def normalise(weights, what="weights"):
    """Weights scaled to sum to 1 (uniform if they are all 0).  Finite weights whose sum
    overflows are scaled by their largest first."""
    weights = np.asarray(weights, dtype=np.float64)
    with np.errstate(over="ignore"):
        total = weights.sum()
    if total == np.inf and np.all(np.isfinite(weights)):
        weights = weights / weights.max()
        total = weights.sum()
    if total <= 0:
        return np.full(weights.shape, 1.0 / max(weights.size, 1))
    return weights / total


def sum_text(weights):
    """The exact sum of the finite ``weights``, rounded once to 17 significant digits, as
    text: the float nearest to it, or where it exceeds the largest float, in decimal
    scientific notation (never ``inf``, without a warning).

    Examples
    --------
    >>> sum_text(np.array([0.1, 0.2])), sum_text(np.array([1e308, 1e308]))
    ('0.30000000000000004', '2.0000000000000000E+308')
    """
    # imported here, for an error message only: ``import seminaive`` imports no package
    # beyond its base's (tests/test_import_cost.py)
    from decimal import Decimal, localcontext
    from fractions import Fraction

    total = sum(map(Fraction, np.asarray(weights, dtype=np.float64).ravel().tolist()),
                Fraction(0))
    try:
        return repr(float(total))
    except OverflowError:
        with localcontext() as context:
            context.prec = 17
            return str(Decimal(total.numerator) / Decimal(total.denominator))


def log_sum_text(log_weights):
    """The sum of the weights ``exp(log_weights)`` (log weights below +inf) as text, finite
    and without a warning: :func:`sum_text` of the weights where their sum is below
    ``exp(709)``, else ``exp(L)`` with ``L`` the log of the sum (``logsumexp``)."""
    log_weights = np.asarray(log_weights, dtype=np.float64)
    log_sum = float(logsumexp(log_weights)) if log_weights.size else -np.inf
    if log_sum < _LARGEST_LOG_SUM:
        return sum_text(np.exp(log_weights))
    return f"exp({log_sum!r})"


def check_weight_vector(weights, n_expected, what, strictly_positive=False):
    """Validate user-given or loaded weights: shape, finite, >= 0 (or > 0), not all 0."""
    arr = np.asarray(weights, dtype=np.float64) if not isinstance(weights, str) else None
    if arr is None or arr.ndim != 1 or arr.shape[0] != n_expected:
        shape = None if arr is None else arr.shape
        raise ValueError(f"{what} must be a 1-D array with one weight per parent combination "
                         f"({n_expected}), got shape {shape}")
    if np.any(np.isnan(arr)):
        raise ValueError(f"{what} contains NaN")
    if np.any(np.isinf(arr)):
        raise ValueError(f"{what} contains infinite values")
    if np.any(arr < 0) or (strictly_positive and np.any(arr <= 0)):
        raise ValueError(f"{what} must be {'positive' if strictly_positive else 'non-negative'}")
    if not arr.any():  # non-negative: not all zero (a sum could overflow)
        raise ValueError(f"{what} are all zero: at least one weight must be positive")
    return arr


def check_saved_weights(weights, n_expected, what, strictly_positive=False):
    """Validate weights read from a model file: also they must sum to 1."""
    arr = check_weight_vector(weights, n_expected, what, strictly_positive)
    with np.errstate(over="ignore"):  # finite weights whose sum overflows: inf, refused
        total = arr.sum()
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"{what} sum to {sum_text(arr)}, not 1")
    return arr


class _WeightedAnDE(_BaseAnDE):
    """An AnDE whose sub-models are combined with learnt weights.

    Subclasses implement :meth:`_learn_weights` (set ``weights_`` and return the per-cell log
    weights); scoring goes through the weighted kernel path with ``aggregate``.
    """

    aggregate = "joint"

    def _order(self):
        return self.n if hasattr(self, "n") else 1

    def _effective_order(self):
        return effective_order(self.table_, self._order())

    def _learn_from_counts(self, source):
        self._cell_log_weights_ = self._learn_weights(source)

    def _learn_weights(self, source):
        raise NotImplementedError

    def _scores(self, X):
        codes = self._storage_codes(X)
        if self.needs_values():
            return self._part(GaussianChildren).scores(
                self, X, codes, log_weights=self._cell_log_weights_)
        return self.table_.scores(codes, self._order(), self.smoothing, self.m, self.min_count,
                                  self.aggregate, log_weights=self._cell_log_weights_,
                                  dtype=getattr(self, "dtype", "float64"))

    @property
    def parent_combinations_(self):
        """Attribute indices of the parent combination of each entry of ``weights_``."""
        return parent_combinations(self.table_, self._effective_order())

    def _n_parents(self):
        t = self.table_
        n = self._effective_order()
        return t.n_combinations(n)

    def _learned_state(self):
        return {"weights": np.asarray(self.weights_, dtype=np.float64)}

    def _set_learned_state(self, arrays):
        unexpected = sorted(set(arrays) - {"weights"})
        if unexpected or "weights" not in arrays:
            raise ValueError(f"expected the learned array 'weights', got {sorted(arrays)}")
        self.weights_ = check_saved_weights(arrays["weights"], self._n_parents(),
                                            f"{type(self).__name__} weights")
        self._cell_log_weights_ = self._cells_from_weights(self.weights_)

    def _cells_from_weights(self, weights):
        n = self._effective_order()
        with np.errstate(divide="ignore"):
            return cell_log_weights(self.table_, n, {n: np.log(weights)})
