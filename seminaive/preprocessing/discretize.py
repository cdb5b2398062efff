"""Discretisation of numeric attributes into ordinal bins.

Three scikit-learn transformers share one base class:

* :class:`MDLDiscretizer`: supervised, recursive minimum-entropy splitting with the
  MDL stopping rule of Fayyad & Irani (1993), "Multi-interval discretization of
  continuous-valued attributes for classification learning", IJCAI, pp. 1022-1027.
  It reproduces Weka's ``weka.filters.supervised.attribute.Discretize`` (default options).
* :class:`RandomizedMDLDiscretizer`: the same splitting with each cut drawn in proportion to
  its MDL margin (Zhang, Petitjean & Buntine 2020), for ESKDB's members.
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

from .._docs import fill_doc
from ..exceptions import InputError
from ..kernels.discretize import randomized_mdl_draws

__all__ = ["MDLDiscretizer", "RandomizedMDLDiscretizer", "EqualFrequencyDiscretizer"]

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
                cuts.append(self._no_cuts())
                continue
            cuts.append(np.asarray(self._column_cuts(xj, cj, n_classes), dtype=np.float64))
        self.cut_points_ = cuts
        self.n_bins_ = np.array([c.size + 1 for c in cuts], dtype=np.intp)
        return self

    def _prepare(self, n_rows):
        """Hook called once per fit with the number of (sampled) rows."""

    def _no_cuts(self):
        """The cut points of a column of fewer than two observed values."""
        return np.empty(0, dtype=np.float64)

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


@fill_doc
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
    {max_sample_rows}
    {sample_random_state}

    Attributes
    ----------
    {cut_points_}
    {n_bins_}
    {discretizer_n_features_in_}

    References
    ----------
    {fayyad1993}

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

    @fill_doc
    def fit(self, X, y):
        """Compute the MDL cut points of every column.

        Parameters
        ----------
        {discretizer_X}
        {discretizer_y}

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
        groups = _sorted_groups(x, codes, n_classes)
        if groups is None:
            return np.empty(0)
        return self._split(groups, self._best_cut)

    def _split(self, groups, choose):
        """Recursive binary splitting of one column: ``choose(groups, a, b, top)`` gives
        ``(t, further)``, the group after which the range ``[a, b)`` of distinct values is
        cut and whether its two sides are split in turn (None: no cut)."""
        values = groups[0]
        cuts = []
        stack = [(0, values.size, True)]  # half-open ranges of distinct-value groups
        while stack:
            a, b, top = stack.pop()
            if b - a < 2:
                continue
            chosen = choose(groups, a, b, top)
            if chosen is None:
                continue
            t, further = chosen
            cuts.append((values[t] + values[t + 1]) / 2.0)
            if further:
                stack.append((t + 1, b, False))
                stack.append((a, t + 1, False))
        return np.sort(np.array(cuts, dtype=np.float64))

    def _best_cut(self, groups, a, b, top):
        """Fayyad & Irani: the cut of least class entropy, if the MDL rule accepts it."""
        nlogn = self._nlogn
        _, cum, cum_rows = groups
        prior = cum[:, b] - cum[:, a]
        n_rows = int(cum_rows[b] - cum_rows[a])
        prior_ent = _entropy(prior, nlogn)
        # candidate t (a <= t < b - 1) splits after group t; Weka's
        # ContingencyTables.entropyConditionedOnRows with the same summation order
        if isinstance(cum, _LazyCum):
            ent = np.concatenate([-_split_sums(left, prior[prior > 0], n_left, n_rows, nlogn)
                                  / (n_rows * _LN2)
                                  for left, n_left in cum.blocks(a, b, prior)])
        else:
            # the classes absent from the range add exact zeros: leaving them out keeps the
            # sums bit for bit
            present = np.flatnonzero(prior)
            mid = slice(a + 1, b)
            n_left = cum_rows[mid] - cum_rows[a]
            rv = np.zeros(b - a - 1)
            for c in present:
                rv += nlogn[cum[c, mid] - cum[c, a]]
            rv -= nlogn[n_left]
            for c in present:
                rv += nlogn[cum[c, b] - cum[c, mid]]
            rv -= nlogn[n_rows - n_left]
            ent = -rv / (n_rows * _LN2)
        best = int(np.argmin(ent))  # first minimum, as Weka's strict '<' scan
        if not prior_ent - float(ent[best]) > 0:
            return None
        t = a + best
        left = cum[:, t + 1] - cum[:, a]
        if _fayyad_irani_accepts(prior, left, prior - left, n_rows, nlogn):
            return t, True
        return None


def _split_sums(left, prior, n_left, n_rows, nlogn):
    """Weka's summation of ``entropyConditionedOnRows`` (times ``-N ln 2``) for a block of
    candidates whose left class counts are the rows of ``left`` (the classes of ``prior``
    in the same order, absent classes left out: their terms are exact zeros)."""
    rv = _class_sum(nlogn[left]) - nlogn[n_left]
    return rv + _class_sum(nlogn[prior[:, None] - left]) - nlogn[n_rows - n_left]


def _class_sum(terms):
    """Column sums of ``terms`` added class by class from zero, the dense loop's order
    (numpy's sum over a long first axis of a narrow block may sum pairwise instead)."""
    if terms.shape[0] <= 64 or terms.shape[1] < 8:
        rv = np.zeros(terms.shape[1])
        for row in terms:
            rv += row
        return rv
    return terms.sum(axis=0)


#: above this many cells (classes x distinct values), the cumulated class counts of a
#: column are not stored but computed block by block (:class:`_LazyCum`): a column of
#: 10,000 classes and 100,000 distinct values would otherwise need 8 GB
_DENSE_CELLS = 1 << 22
#: cells of one block of candidate cuts in the lazy computation
_BLOCK_CELLS = 1 << 19


class _LazyCum:
    """The cumulated class counts ``cum[c, t]`` (rows of class c among the first t distinct
    values) of a column with too many classes and values to store them, computed on demand
    from the sorted class codes: ``cum[:, t]`` is one column, and :meth:`blocks` gives the
    left counts of the candidate cuts of a range, block by block, for the classes present
    in it.  Memory: the sorted codes plus one block."""

    def __init__(self, sorted_codes, group, cum_rows, n_classes):
        self.codes = sorted_codes
        self.group = group
        self.cum_rows = cum_rows
        self.shape = (n_classes, cum_rows.size)

    def __getitem__(self, key):
        rows, t = key
        if rows != slice(None) or not isinstance(t, (int, np.integer)):
            raise TypeError("a lazily cumulated count table gives one column cum[:, t]")
        return np.bincount(self.codes[:self.cum_rows[t]],
                           minlength=self.shape[0]).astype(np.intp)

    def blocks(self, a, b, prior):
        """``(left, n_left)`` for the candidates after groups a .. b - 2, in blocks:
        ``left[i, j]`` the rows of the i-th class present in ``prior`` among groups
        ``a .. a + j'`` (j' the candidate's index), ``n_left`` all rows among them."""
        present = np.flatnonzero(prior)
        where = np.full(self.shape[0], -1, dtype=np.intp)
        where[present] = np.arange(present.size)
        width = max(8, _BLOCK_CELLS // max(1, present.size))
        base = self.cum_rows[a]
        running = np.zeros(present.size, dtype=np.intp)
        for t0 in range(a + 1, b, width):
            t1 = min(b, t0 + width)  # candidates whose left side ends at groups t0 .. t1 - 1
            lo, hi = self.cum_rows[t0 - 1], self.cum_rows[t1 - 1]
            cls = where[self.codes[lo:hi]]
            col = self.group[lo:hi] - (t0 - 1)  # the row joins the left side at t0 + col
            step = np.bincount(cls * (t1 - t0) + col,
                               minlength=present.size * (t1 - t0)).reshape(present.size, -1)
            left = np.cumsum(step, axis=1)
            left += running[:, None]
            running = left[:, -1].copy()
            yield left, self.cum_rows[t0:t1] - base


def _sorted_groups(x, codes, n_classes):
    """The distinct values of a column and the cumulated class counts over them:
    ``(values, cum, cum_rows)`` with ``cum[c, t]`` the rows of class c among the first t
    distinct values and ``cum_rows[t]`` all rows among them (None: fewer than 2 values)."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    first = np.empty(xs.size, dtype=bool)
    first[0] = True
    np.not_equal(xs[1:], xs[:-1], out=first[1:])
    values = xs[first]
    g = values.size
    if g < 2:
        return None
    group = np.cumsum(first) - 1
    cum_rows = np.zeros(g + 1, dtype=np.intp)
    np.cumsum(np.diff(np.flatnonzero(np.r_[first, True])), out=cum_rows[1:])
    if n_classes * (g + 1) > _DENSE_CELLS:
        return values, _LazyCum(codes[order], group, cum_rows, n_classes), cum_rows
    counts = np.bincount(codes[order] * g + group, minlength=g * n_classes)
    # class-major layout, so that every per-class slice is contiguous
    cum = np.zeros((n_classes, g + 1), dtype=np.intp)
    np.cumsum(counts.reshape(n_classes, g), axis=1, out=cum[:, 1:])
    return values, cum, cum_rows


def mdl_margins(cum, cum_rows, a, b, nlogn):
    """Information gain and Fayyad & Irani MDL margin of every candidate cut of the range
    ``[a, b)`` of distinct values (vectorised over the candidates).

    Candidate ``i`` cuts after group ``a + i``.  The margin is
    ``Gain - (log2(N - 1) + Delta) / N``, the quantity the MDL rule of
    :class:`MDLDiscretizer` requires to be positive (entropies in bits).

    Parameters
    ----------
    cum : ndarray of shape (n_classes, n_groups + 1)
        Cumulated class counts over the sorted distinct values.
    cum_rows : ndarray of shape (n_groups + 1,)
        Cumulated row counts.
    a, b : int
        The range of groups (``b - a >= 2``).
    nlogn : ndarray
        ``n ln n`` for n = 0 .. number of rows.

    Returns
    -------
    gain, margin : ndarray of shape (b - a - 1,)
    """
    prior = cum[:, b] - cum[:, a]
    n_rows = int(cum_rows[b] - cum_rows[a])
    if isinstance(cum, _LazyCum):
        parts = [_margins(left, prior[prior > 0], n_left, n_rows, nlogn)
                 for left, n_left in cum.blocks(a, b, prior)]
        return (np.concatenate([p[0] for p in parts]),
                np.concatenate([p[1] for p in parts]))
    left = cum[:, a + 1:b] - cum[:, a:a + 1]
    n_left = cum_rows[a + 1:b] - cum_rows[a]
    return _margins(left, prior, n_left, n_rows, nlogn)


def _margins(left, prior, n_left, n_rows, nlogn):
    """:func:`mdl_margins` of the candidates whose left class counts are ``left``."""
    right = prior[:, None] - left
    n_right = n_rows - n_left
    s_left = nlogn[left].sum(axis=0)
    s_right = nlogn[right].sum(axis=0)
    prior_ent = (nlogn[n_rows] - nlogn[prior].sum()) / (n_rows * _LN2)
    cond_ent = -(s_left - nlogn[n_left] + s_right - nlogn[n_right]) / (n_rows * _LN2)
    gain = prior_ent - cond_ent
    ent_left = (nlogn[n_left] - s_left) / (n_left * _LN2)
    ent_right = (nlogn[n_right] - s_right) / (n_right * _LN2)
    k = int(np.count_nonzero(prior))
    k_left = np.count_nonzero(left, axis=0)
    k_right = np.count_nonzero(right, axis=0)
    delta = _log2_3k_minus_2(k) - (k * prior_ent - k_right * ent_right - k_left * ent_left)
    return gain, gain - (_log2(n_rows - 1) + delta) / n_rows


def draw_index(weights, u):
    """Index drawn with probability proportional to the non-negative ``weights`` for the
    uniform number ``u`` in [0, 1) (inverse of the cumulated distribution)."""
    cdf = np.cumsum(weights)
    return min(int(np.searchsorted(cdf, u * cdf[-1], side="right")), weights.size - 1)


@fill_doc
class RandomizedMDLDiscretizer(MDLDiscretizer):
    """Randomised MDL discretisation (Zhang, Petitjean & Buntine 2020).

    The recursive splitting of :class:`MDLDiscretizer`, except that each split draws its
    cut at random instead of taking the one of least class entropy: among the candidate
    cuts whose Fayyad & Irani MDL margin ``Gain - (log2(N - 1) + Delta) / N`` is positive,
    a cut is drawn with probability proportional to its margin.  When no cut passes, the
    range is not split, except for the whole column: there one cut is drawn with
    probability proportional to its information gain and the column is not split further,
    so that every numeric column whose values carry any class information gets at least
    one cut.  Each of ``n_draws`` independent draws
    gives a discretisation of every column (``draw_cut_points_``); ``cut_points_`` holds
    their union, so that the bins of every draw are unions of the bins of
    :meth:`transform`.  ESKDB gives each member its own draw.

    Unlike Zhang et al.'s code, the MDL threshold is the one of Fayyad & Irani (1993) with
    ``N - 1`` candidate cuts, as in :class:`MDLDiscretizer`.

    Parameters
    ----------
    n_draws : int, default=1
        Number of independent discretisations drawn.
    {max_sample_rows}
    random_state : int, RandomState instance or None, default=None
        Seed of the row sample and of the cut draws (the same seed gives the same cuts).

    Attributes
    ----------
    cut_points_ : list of ndarray of float64
        Sorted union of the draws' cut points of each column.
    draw_cut_points_ : list of list of ndarray of float64
        ``draw_cut_points_[d][j]``: the sorted cut points of column j in draw d.
    {n_bins_}
    {discretizer_n_features_in_}

    References
    ----------
    {zhang2020}

    {fayyad1993}

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive.preprocessing import RandomizedMDLDiscretizer
    >>> x = np.array([[1.0], [2.0], [3.0], [4.0], [11.0], [12.0], [13.0], [14.0]])
    >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> RandomizedMDLDiscretizer(random_state=0).fit(x, y).cut_points_[0].tolist()
    [7.5]
    """

    def __init__(self, n_draws=1, max_sample_rows=100_000, random_state=None):
        self.n_draws = n_draws
        self.max_sample_rows = max_sample_rows
        self.random_state = random_state

    @fill_doc
    def fit(self, X, y):
        """Draw ``n_draws`` randomised MDL discretisations of every column.

        Parameters
        ----------
        {discretizer_X}
        {discretizer_y}

        Returns
        -------
        self : RandomizedMDLDiscretizer
        """
        n = self.n_draws
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise InputError(f"n_draws must be a positive integer, got {n!r}")
        self._draws = []
        super().fit(X, y)
        self.draw_cut_points_ = [[column[d] for column in self._draws]
                                 for d in range(int(n))]
        del self._draws
        return self

    #: draw the cuts by the compiled recursion (:func:`seminaive.kernels.discretize.
    #: randomized_mdl_draws`, the same cuts); False: by :meth:`_split` over
    #: :meth:`_drawn_cut` in Python (always so for lazily cumulated counts and for a
    #: random stream of a subclass of ``RandomState``)
    _compiled = True

    def _prepare(self, n_rows):
        super()._prepare(n_rows)
        self._rng = check_random_state(self.random_state)
        self._tables = None

    def _no_cuts(self):
        self._draws.append([np.empty(0, dtype=np.float64)] * int(self.n_draws))
        return super()._no_cuts()

    def _column_cuts(self, x, codes, n_classes):
        groups = _sorted_groups(x, codes, n_classes)
        n_draws = int(self.n_draws)
        if groups is None:
            draws = [np.empty(0)] * n_draws
        elif (self._compiled and not isinstance(groups[1], _LazyCum)
              and type(self._rng) is np.random.RandomState):  # a subclass may draw otherwise
            draws = self._compiled_draws(groups, n_draws, n_classes)
        else:
            draws = [self._split(groups, self._drawn_cut) for _ in range(n_draws)]
        self._draws.append(draws)
        return np.unique(np.concatenate(draws))

    def _kernel_tables(self, n_classes):
        """``(nlogn, log2(n - 1), log2(3**k - 2))`` for the kernel, each value computed
        as the Python path computes it (``math.log``, not numpy's own logarithm)."""
        if self._tables is None or self._tables[2].size < n_classes + 1:
            nlogn = self._nlogn
            minus_1 = np.zeros(nlogn.size)
            minus_1[2:] = [_log2(v) for v in range(1, nlogn.size - 1)]
            power = np.zeros(n_classes + 1)
            power[1:] = [_log2_3k_minus_2(k) for k in range(1, n_classes + 1)]
            self._tables = (nlogn, minus_1, power)
        return self._tables

    def _compiled_draws(self, groups, n_draws, n_classes):
        """The ``n_draws`` draws of one column by the compiled recursion, with the uniform
        numbers the Python path would take from the random stream, in the same order; the
        stream is left where the Python path leaves it."""
        values, cum, cum_rows = groups
        tables = self._kernel_tables(n_classes)
        rng = self._rng
        bound = n_draws * (values.size - 1)  # every draw cuts at most between every value
        size = min(bound, 32 * n_draws)
        state = rng.get_state()
        ends = np.empty(n_draws, dtype=np.int64)
        while True:
            uniforms = rng.random_sample(size)
            cuts = np.empty(size, dtype=np.int64)
            used = randomized_mdl_draws(cum, cum_rows, tables, uniforms, n_draws, cuts, ends)
            if used >= 0:
                break
            rng.set_state(state)  # too few numbers drawn: again with more
            size = min(bound, 4 * size)
        if used < size:
            rng.set_state(state)
            rng.random_sample(used)
        mid = (values[cuts[:used]] + values[cuts[:used] + 1]) / 2.0
        starts = np.r_[0, ends[:-1]]
        return [np.sort(mid[lo:hi]) for lo, hi in zip(starts, ends, strict=True)]

    def _drawn_cut(self, groups, a, b, top):
        """A cut drawn in proportion to its MDL margin, its sides split in turn; at the top
        level, when no cut passes, one cut drawn in proportion to its information gain, the
        only one; else None."""
        _, cum, cum_rows = groups
        gain, margin = mdl_margins(cum, cum_rows, a, b, self._nlogn)
        weights = np.where(margin > 0, margin, 0.0)
        further = True
        if not weights.sum() > 0:
            if not top:
                return None
            weights = np.where(gain > 0, gain, 0.0)
            if not weights.sum() > 0:
                return None
            further = False
        return a + draw_index(weights, self._rng.random_sample()), further


def _entropy(counts, nlogn):
    """Entropy in bits of a count vector, in Weka's ``ContingencyTables.entropy`` order."""
    rv = 0.0
    for v in counts[counts > 0]:  # absent classes add exact zeros
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
        for v in row[row > 0]:  # absent classes add exact zeros
            rv = rv + nlogn[v]
        s = int(row.sum())
        rv = rv - nlogn[s]
        total += s
    if total == 0:
        return 0.0
    return float(-rv / (total * _LN2))


def _log2(v):
    return math.log(v) / _LN2  # Weka's Utils.log2


#: up to this many classes ``log2(3**k - 2)`` is computed as Weka does (3**k is a finite
#: double up to k = 646); beyond, in log space
_POWER_CLASSES = 600


def _log2_3k_minus_2(k):
    """``log2(3**k - 2)`` for any number of classes ``k``: Weka's expression while ``3**k``
    is a double far from overflow, else ``k log2(3) + log2(1 - 2 / 3**k)`` (the second term
    is below 1e-280 there, and is kept for form's sake)."""
    if k <= _POWER_CLASSES:
        return _log2(3.0**k - 2)
    return (k * math.log(3.0) + math.log1p(-2.0 * math.exp(-k * math.log(3.0)))) / _LN2


def _fayyad_irani_accepts(prior, left, right, n_rows, nlogn):
    """Weka's ``Discretize.FayyadAndIranisMDL`` (numCutPoints = N - 1)."""
    prior_ent = _entropy(prior, nlogn)
    gain = prior_ent - _conditional_entropy(left, right, nlogn)
    k = int(np.count_nonzero(prior))
    k_left = int(np.count_nonzero(left))
    k_right = int(np.count_nonzero(right))
    ent_left = _entropy(left, nlogn)
    ent_right = _entropy(right, nlogn)
    delta = _log2_3k_minus_2(k) - (k * prior_ent - k_right * ent_right - k_left * ent_left)
    return gain > (_log2(n_rows - 1) + delta) / n_rows


@fill_doc
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
    {max_sample_rows}
    {sample_random_state}

    Attributes
    ----------
    {cut_points_}
    {n_bins_}
    {discretizer_n_features_in_}

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

    @fill_doc
    def fit(self, X, y=None):
        """Compute the equal-frequency cut points of every column.

        Parameters
        ----------
        {discretizer_X}
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
