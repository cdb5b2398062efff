"""Discretisation of numeric attributes into ordinal bins.

Two scikit-learn transformers share one base class:

* :class:`MDLDiscretizer`: supervised, recursive minimum-entropy splitting with the
  MDL stopping rule of Fayyad & Irani (1993), "Multi-interval discretization of
  continuous-valued attributes for classification learning", IJCAI, pp. 1022-1027.
  It reproduces Weka's ``weka.filters.supervised.attribute.Discretize`` (default options).
* :class:`EqualFrequencyDiscretizer`: unsupervised equal-frequency (quantile) binning.

Bin convention (Weka's): with sorted cut points ``c_0 < c_1 < ... < c_{m-1}`` the bins are
``(-inf, c_0], (c_0, c_1], ..., (c_{m-1}, +inf)``; a value equal to a cut point goes to the
*lower* bin (``np.searchsorted(cuts, x, side="left")``). Missing values (NaN) map to -1.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ..exceptions import InputError

__all__ = ["MDLDiscretizer", "EqualFrequencyDiscretizer"]

_LN2 = math.log(2.0)  # Weka: ContingencyTables.log2 = Math.log(2)


class _BaseDiscretizer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Common machinery: validation, row sampling, ``transform``.

    Subclasses implement ``_column_cuts(x, y_codes, n_classes)`` returning the sorted cut
    points of one column ``x`` (NaN already removed).
    """

    def _fit(self, X, y):
        if y is None:
            X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan")
            codes, n_classes = None, 0
        else:
            X, y = validate_data(
                self, X, y, dtype=np.float64, ensure_all_finite="allow-nan", y_numeric=False
            )
            classes, codes = np.unique(y, return_inverse=True)
            codes = codes.astype(np.intp, copy=False)
            n_classes = classes.size
        max_rows = self.max_sample_rows
        if max_rows is not None:
            if int(max_rows) < 1:
                raise InputError(
                    f"max_sample_rows must be a positive int or None, got {max_rows!r}"
                )
            if X.shape[0] > max_rows:
                rng = check_random_state(self.random_state)
                rows = rng.choice(X.shape[0], size=int(max_rows), replace=False)
                X = X[rows]
                if codes is not None:
                    codes = codes[rows]
        self._prepare(X.shape[0])
        cuts = []
        for j in range(X.shape[1]):
            x = X[:, j]
            keep = ~np.isnan(x)
            xj = x[keep]
            cj = None if codes is None else codes[keep]
            if xj.size < 2:
                cuts.append(np.empty(0, dtype=np.float64))
                continue
            cuts.append(np.asarray(self._column_cuts(xj, cj, n_classes), dtype=np.float64))
        self.cut_points_ = cuts
        self.n_bins_ = np.array([c.size + 1 for c in cuts], dtype=np.intp)
        return self

    def _prepare(self, n_rows):
        """Hook called once per fit with the number of (sampled) rows."""

    def transform(self, X):
        """Map each value to its bin index.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features_in_)
            Numeric data; NaN allowed.

        Returns
        -------
        Xt : ndarray of shape (n_rows, n_features_in_), dtype int32
            Bin of each value, ``searchsorted(cut_points_[j], x, side="left")``, i.e. bin
            ``i`` holds ``c_{i-1} < x <= c_i`` (Weka's convention); NaN gives -1.
        """
        check_is_fitted(self, "cut_points_")
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False)
        out = np.empty(X.shape, dtype=np.int32)
        for j, cuts in enumerate(self.cut_points_):
            x = X[:, j]
            col = np.searchsorted(cuts, x, side="left").astype(np.int32)
            col[np.isnan(x)] = -1
            out[:, j] = col
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = []  # output is int32 bin indices
        return tags


class MDLDiscretizer(_BaseDiscretizer):
    """Supervised Fayyad & Irani (1993) MDL discretisation.

    Each column is split recursively at the candidate cut point minimising the class
    entropy of the binary partition; a split of a set ``S`` of ``N`` rows at ``T`` is
    accepted iff ``Gain(A, T; S) > (log2(N - 1) + Delta(A, T; S)) / N`` with
    ``Delta = log2(3^k - 2) - [k Ent(S) - k1 Ent(S1) - k2 Ent(S2)]`` (``k, k1, k2`` the
    numbers of classes present in ``S, S1, S2``; entropies in bits). Candidate cut points
    are midpoints ``(a + b) / 2`` between consecutive distinct values; among equally good
    candidates the lowest wins. This is exactly Weka's supervised ``Discretize`` with its
    default options (no better encoding, no Kononenko), including its floating-point
    evaluation order.

    Parameters
    ----------
    max_sample_rows : int or None, default=100_000
        If the data has more rows, cut points are computed on a random sample of this many
        rows drawn without replacement. ``None`` disables sampling.
    random_state : int, RandomState instance or None, default=None
        Seed of the row sample.

    Attributes
    ----------
    cut_points_ : list of ndarray of float64
        Sorted cut points of each column (empty: one bin).
    n_bins_ : ndarray of int
        ``len(cut_points_[j]) + 1`` for each column.
    n_features_in_ : int
        Number of columns seen in ``fit``.

    References
    ----------
    Fayyad, U. M. & Irani, K. B. (1993). Multi-interval discretization of continuous-valued
    attributes for classification learning. *IJCAI 1993*, 1022-1027.

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive.preprocessing import MDLDiscretizer
    >>> x = np.array([[1.0], [2.0], [3.0], [4.0], [11.0], [12.0], [13.0], [14.0]])
    >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> disc = MDLDiscretizer().fit(x, y)
    >>> disc.cut_points_[0].tolist()
    [7.5]
    >>> disc.transform([[0.0], [8.0], [np.nan]]).ravel().tolist()
    [0, 1, -1]
    """

    def __init__(self, max_sample_rows=100_000, random_state=None):
        self.max_sample_rows = max_sample_rows
        self.random_state = random_state

    def fit(self, X, y):
        """Compute the MDL cut points of every column.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
            Numeric data; NaN values are ignored.
        y : array-like of shape (n_rows,)
            Class labels (any type).

        Returns
        -------
        self : MDLDiscretizer
        """
        if y is None:
            raise InputError(
                "MDLDiscretizer requires y to be passed, but the target y is None: "
                "it is supervised, pass the class labels as fit(X, y)"
            )
        return self._fit(X, y)

    def _prepare(self, n_rows):
        # nlogn[n] = n * ln(n) (0 for n = 0): Weka's ContingencyTables.lnFunc on integer counts.
        n = np.arange(n_rows + 1, dtype=np.float64)
        self._nlogn = n * np.log(np.maximum(n, 1.0))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def _column_cuts(self, x, codes, n_classes):
        nlogn = self._nlogn
        order = np.argsort(x, kind="stable")
        xs = x[order]
        first = np.empty(xs.size, dtype=bool)
        first[0] = True
        np.not_equal(xs[1:], xs[:-1], out=first[1:])
        values = xs[first]
        g = values.size
        if g < 2:
            return np.empty(0)
        group = np.cumsum(first) - 1
        counts = np.bincount(codes[order] * g + group, minlength=g * n_classes)
        # cum[c, t] = rows of class c among the first t distinct values (class-major layout,
        # so that every per-class slice below is contiguous)
        cum = np.zeros((n_classes, g + 1), dtype=np.intp)
        np.cumsum(counts.reshape(n_classes, g), axis=1, out=cum[:, 1:])
        cum_rows = np.zeros(g + 1, dtype=np.intp)
        np.cumsum(np.diff(np.flatnonzero(np.r_[first, True])), out=cum_rows[1:])

        cuts = []
        stack = [(0, g)]  # half-open ranges of distinct-value groups
        while stack:
            a, b = stack.pop()
            if b - a < 2:
                continue
            prior = cum[:, b] - cum[:, a]
            n_rows = int(cum_rows[b] - cum_rows[a])
            prior_ent = _entropy(prior, nlogn)
            # candidate t (a <= t < b - 1) splits after group t; Weka's
            # ContingencyTables.entropyConditionedOnRows with the same summation order
            mid = slice(a + 1, b)
            n_left = cum_rows[mid] - cum_rows[a]
            rv = np.zeros(b - a - 1)
            for c in range(n_classes):
                rv += nlogn[cum[c, mid] - cum[c, a]]
            rv -= nlogn[n_left]
            for c in range(n_classes):
                rv += nlogn[cum[c, b] - cum[c, mid]]
            rv -= nlogn[n_rows - n_left]
            ent = -rv / (n_rows * _LN2)
            best = int(np.argmin(ent))  # first minimum, as Weka's strict '<' scan
            if not prior_ent - float(ent[best]) > 0:
                continue
            t = a + best
            left = cum[:, t + 1] - cum[:, a]
            if _fayyad_irani_accepts(prior, left, prior - left, n_rows, nlogn):
                cuts.append((values[t] + values[t + 1]) / 2.0)
                stack.append((t + 1, b))
                stack.append((a, t + 1))
        return np.sort(np.array(cuts, dtype=np.float64))


def _entropy(counts, nlogn):
    """Entropy in bits of a count vector, in Weka's ``ContingencyTables.entropy`` order."""
    rv = 0.0
    for v in counts:
        rv -= nlogn[v]
    total = int(counts.sum())
    if total == 0:
        return 0.0
    return float((rv + nlogn[total]) / (total * _LN2))


def _conditional_entropy(left, right, nlogn):
    """Weka's ``ContingencyTables.entropyConditionedOnRows`` for two rows."""
    rv = 0.0
    total = 0
    for row in (left, right):
        for v in row:
            rv = rv + nlogn[v]
        s = int(row.sum())
        rv = rv - nlogn[s]
        total += s
    if total == 0:
        return 0.0
    return float(-rv / (total * _LN2))


def _log2(v):
    return math.log(v) / _LN2  # Weka's Utils.log2


def _fayyad_irani_accepts(prior, left, right, n_rows, nlogn):
    """Weka's ``Discretize.FayyadAndIranisMDL`` (numCutPoints = N - 1)."""
    prior_ent = _entropy(prior, nlogn)
    gain = prior_ent - _conditional_entropy(left, right, nlogn)
    k = int(np.count_nonzero(prior))
    k_left = int(np.count_nonzero(left))
    k_right = int(np.count_nonzero(right))
    ent_left = _entropy(left, nlogn)
    ent_right = _entropy(right, nlogn)
    delta = _log2(3.0**k - 2) - (k * prior_ent - k_right * ent_right - k_left * ent_left)
    return gain > (_log2(n_rows - 1) + delta) / n_rows


class EqualFrequencyDiscretizer(_BaseDiscretizer):
    """Unsupervised equal-frequency (quantile) discretisation.

    Rule, per column with ``n`` non-NaN values and distinct sorted values
    ``u_0 < ... < u_{g-1}``: the admissible boundaries are the ``g - 1`` gaps between
    consecutive distinct values, the gap after ``u_m`` having ``c_m`` values below it. For
    each ``j = 1, ..., n_bins - 1`` the gap whose ``c_m`` is closest to ``j * n / n_bins``
    is chosen (ties: the lower gap) and the cut point is its midpoint ``(u_m + u_{m+1}) / 2``.
    Duplicate cut points are removed, so heavily tied columns get fewer than ``n_bins``
    bins. (Weka's ``Discretize -F`` uses a different rule.)

    Parameters
    ----------
    n_bins : int, default=3
        Requested number of bins (at least 1).
    max_sample_rows : int or None, default=100_000
        If the data has more rows, cut points are computed on a random sample of this many
        rows drawn without replacement. ``None`` disables sampling.
    random_state : int, RandomState instance or None, default=None
        Seed of the row sample.

    Attributes
    ----------
    cut_points_ : list of ndarray of float64
        Sorted cut points of each column (empty: one bin).
    n_bins_ : ndarray of int
        ``len(cut_points_[j]) + 1`` for each column.
    n_features_in_ : int
        Number of columns seen in ``fit``.

    References
    ----------
    Webb, G. I., Boughton, J. R., Zheng, F., Ting, K. M. & Salem, H. (2012). Learning by
    extrapolation from marginal to full-multivariate probability distributions: decreasingly
    naive Bayesian classification. *Machine Learning* 86(2), 233-272 (three equal-frequency
    bins in their experiments).

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive.preprocessing import EqualFrequencyDiscretizer
    >>> x = np.arange(1.0, 10.0).reshape(-1, 1)
    >>> disc = EqualFrequencyDiscretizer(n_bins=3).fit(x)
    >>> disc.cut_points_[0].tolist()
    [3.5, 6.5]
    >>> disc.transform([[1.0], [5.0], [9.0]]).ravel().tolist()
    [0, 1, 2]
    """

    def __init__(self, n_bins=3, max_sample_rows=100_000, random_state=None):
        self.n_bins = n_bins
        self.max_sample_rows = max_sample_rows
        self.random_state = random_state

    def fit(self, X, y=None):
        """Compute the equal-frequency cut points of every column.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
            Numeric data; NaN values are ignored.
        y : ignored

        Returns
        -------
        self : EqualFrequencyDiscretizer
        """
        if isinstance(self.n_bins, bool) or not isinstance(self.n_bins, int | np.integer):
            raise InputError(f"n_bins must be an int >= 1, got {self.n_bins!r}")
        if self.n_bins < 1:
            raise InputError(f"n_bins must be an int >= 1, got {self.n_bins!r}")
        return self._fit(X, None)

    def _column_cuts(self, x, codes, n_classes):
        n_bins = int(self.n_bins)
        xs = np.sort(x)
        n = xs.size
        gap = np.flatnonzero(xs[1:] != xs[:-1])  # gap after sorted position gap[i]
        if n_bins < 2 or gap.size == 0:
            return np.empty(0)
        below = (gap + 1).astype(np.int64) * n_bins  # c_m * n_bins (exact integers)
        target = np.arange(1, n_bins, dtype=np.int64) * n  # (j * n / n_bins) * n_bins
        hi = np.searchsorted(below, target, side="left").clip(0, below.size - 1)
        lo = (hi - 1).clip(0, below.size - 1)
        pick = np.where(below[hi] - target < target - below[lo], hi, lo)
        pos = gap[pick]
        return np.unique((xs[pos] + xs[pos + 1]) / 2.0)
