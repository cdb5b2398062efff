"""Why did the model predict that: additive explanations of a learner's log posterior.

Every learner predicts with any set of attributes missing (a missing value is left out, or
is a value of its own with ``missing="value"``).  The value of a *coalition* S of attributes
for class c is therefore the model's own score with the other attributes set to missing,

.. math::

    v_c(S) = \\log \\hat P(c, x_S) - \\frac{1}{K} \\sum_{c'} \\log \\hat P(c', x_S),

the joint log likelihood of :meth:`~seminaive.base.Learner.joint_log_likelihood`, centred
over the K classes (``centred=False`` keeps the raw joint).  It is exact and costs one
prediction: no background data set and no independence assumption between the attributes
are needed (the "remove by marginalising with the model itself" choice of Covert, Lundberg
& Lee 2021).  The contribution of attribute i to class c is its Shapley value (Shapley
1953) in that game,

.. math::

    \\phi_{i,c} = \\sum_{S \\subseteq N \\setminus \\{i\\}}
        \\frac{|S|! (d - |S| - 1)!}{d!} \\bigl(v_c(S \\cup \\{i\\}) - v_c(S)\\bigr),

and the base value is :math:`v_c(\\emptyset)`, the model's log prior with every attribute
missing.  Efficiency of the Shapley value gives the additivity the layout of the ``shap``
package's ``Explanation`` promises: ``base_values + values.sum(axis=1)`` equals
``predict_log_proba(X)`` up to a constant per row (the log normaliser), and its softmax is
``predict_proba(X)``.

Four schemes compute the values (``method``).  Two of them rest on the Harsanyi
dividends of the game, :math:`m(T) = \\sum_{U \\subseteq T} (-1)^{|T|-|U|} v(U)`, in which
the Shapley value is :math:`\\phi_j = \\sum_{T \\ni j} m(T) / |T|`: when the model's log
joint is a sum of terms each involving a small set of attributes, every dividend outside
the subsets of those sets vanishes, and the values need the scores of those subsets only.

``"additive"``
    When the joint log likelihood is a sum of one term per attribute (naive Bayes, with or
    without Gaussian children, whatever ``missing`` is), every coalition adds the same
    term, so :math:`\\phi_i = v(\\{i\\}) - v(\\emptyset)`: the attribute's log likelihood
    term minus its missing term, centred over the classes -- a log-likelihood ratio.
    Cost: d + 1 predictions per row.
``"structure"``
    A single Bayesian network (TAN, SP-TAN, KDB, SKDB: a learner with a ``structure_``)
    whose score with attributes missing is a sum of one term per attribute and its parents:
    the dividends vanish outside the subsets of the families {i} + parents(i), so the values
    need at most :math:`d \\, 2^{k+1}` predictions per row for k parents -- exact and
    polynomial.
``"exact"``
    Enumeration of the :math:`2^d` coalitions, every row's in one batch of predictions:
    exact for any learner.  ``"auto"`` uses it up to ``MAX_EXACT_ATTRIBUTES``
    attributes (4,096 predictions per row).
``"sampled"``
    Permutation sampling (Strumbelj & Kononenko 2014) with antithetic pairs: every
    permutation is walked together with its reverse (Mitchell, Cooper, Frank & Holmes 2022
    study this pairing), each walk costing d - 1 predictions.  Along one permutation the
    marginal contributions telescope to :math:`v(N) - v(\\emptyset)`, so every estimate is
    exactly efficient (additivity holds to rounding) and only the split between the
    attributes is estimated; ``standard_errors`` gives the standard error of every value
    from the spread of the pairs.  Deterministic for a ``random_state``.

The decomposition of ``"additive"`` and ``"structure"`` is not assumed but checked on the
rows themselves, with d + 1 more predictions per row (tried on eight rows first): the full
coalition and every coalition of all attributes but one must score the sum of the dividends
they contain, to 1e-9.  A dividend outside the families (an interaction the scheme would
miss) shows up in these large coalitions; ``"auto"`` then moves on to ``"exact"`` or
``"sampled"``, and an explicit ``method`` raises :class:`~seminaive.exceptions.InputError`.

Why AnDE is sampled rather than exact for many attributes: each of its sub-models (one per
set of n parents) is a network in which every term involves at most n + 1 attributes, so the
log of *one* sub-model is a sum of terms on at most n + 1 attributes and its Shapley values
are exact from the scores of :math:`O(d \\, 2^{n+1})` coalitions.  But AnDE averages the
sub-models' *probabilities*, and the log of that average (and the number of eligible
parents, which depends on which attributes are present) couples every attribute with every
other: the dividends of the log posterior do not vanish on large coalitions, and the
Shapley value of the average is not the average of the sub-models' values.  We know of no
polynomial exact scheme for this game, so above ``MAX_EXACT_ATTRIBUTES`` attributes
AnDE (n >= 1) and the other learners that mix sub-models (weighting, selection, ESKDB, HNB)
are sampled.

References
----------
Covert, I., Lundberg, S. & Lee, S.-I. (2021). Explaining by removing: a unified framework
for model explanation. *Journal of Machine Learning Research* 22(209), 1-90.

Lundberg, S. M. & Lee, S.-I. (2017). A unified approach to interpreting model predictions.
*Advances in Neural Information Processing Systems* 30, 4765-4774.

Mitchell, R., Cooper, J., Frank, E. & Holmes, G. (2022). Sampling permutations for Shapley
value estimation. *Journal of Machine Learning Research* 23(43), 1-46.

Shapley, L. S. (1953). A value for n-person games. In *Contributions to the Theory of
Games II*, Annals of Mathematics Studies 28, 307-317.

Strumbelj, E. & Kononenko, I. (2014). Explaining prediction models and individual
predictions with feature contributions. *Knowledge and Information Systems* 41(3), 647-665.
"""

import copy
import math
import os
from dataclasses import dataclass
from itertools import combinations
from numbers import Integral

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted

from ._atomic import atomic_path
from .exceptions import InputError
from .preprocessing.encoder import as_frame

__all__ = ["Explanation", "explain", "explain_stream", "structure_graph",
           "MAX_EXACT_ATTRIBUTES", "MAX_DECOMPOSED_SETS", "METHODS"]

#: ``method="auto"`` enumerates every coalition up to this many attributes (2**12 = 4,096
#: predictions per row); above it, the additive scheme when the model is additive, else
#: permutation sampling
MAX_EXACT_ATTRIBUTES = 12

#: ``"additive"`` and ``"structure"`` score at most this many sets of attributes per row
#: (the subsets of the families and the check); above it, ``"auto"`` samples
MAX_DECOMPOSED_SETS = 1 << 14

#: the schemes of :func:`explain`
METHODS = ("auto", "additive", "structure", "exact", "sampled")

#: rows of one batch of predictions (coalitions x rows): bounds the memory of a batch
_BATCH_ROWS = 1 << 16

#: rows on which the additivity check is tried before the others
_PROBE_ROWS = 8

#: tolerance of the additivity check, relative to the scale of the scores
_ADDITIVE_RTOL = 1e-9


# --------------------------------------------------------------------------------------------
# The explanation object
# --------------------------------------------------------------------------------------------


@dataclass
class Explanation:
    """Additive contributions of every attribute to every class's log posterior, in the
    layout of the ``shap`` package's ``Explanation`` (without depending on it).

    Parameters
    ----------
    values : ndarray of shape (n_rows, n_features, n_classes)
        Contribution of every attribute to every class (nats).
    base_values : ndarray of shape (n_rows, n_classes)
        The score of every class with every attribute missing (the same on every row).
    data : ndarray of shape (n_rows, n_features)
        The rows explained, as given.
    feature_names : list of str
        The columns' names (a DataFrame's own names; ``x0, x1...`` for arrays).
    output_names : list
        The classes, in the order of ``classes_``.
    method : str
        The scheme used: ``"additive"``, ``"structure"``, ``"exact"`` or ``"sampled"``.
    standard_errors : ndarray of shape (n_rows, n_features, n_classes) or None
        Standard error of every sampled value (None when the values are exact).
    n_permutations : int
        Permutations walked per row (0 when exact).
    centred : bool
        Whether the game was centred over the classes.
    n_predictions : int
        Rows the model scored to compute the explanation (coalitions x rows): its cost in
        predictions.

    Attributes
    ----------
    feature_importances_ : ndarray of shape (n_features,)
        Mean absolute contribution of every attribute, over the rows and the classes.

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive import AODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = AODE().fit(X.iloc[:, :6], y)
    >>> ex = model.explain(X.iloc[:3, :6])
    >>> ex.values.shape, ex.base_values.shape, ex.method
    ((3, 6, 2), (3, 2), 'exact')
    >>> bool(np.allclose(ex.log_proba(), model.predict_log_proba(X.iloc[:3, :6])))
    True
    """

    values: np.ndarray
    base_values: np.ndarray
    data: np.ndarray
    feature_names: list
    output_names: list
    method: str
    standard_errors: np.ndarray | None = None
    n_permutations: int = 0
    centred: bool = True
    n_predictions: int = 0

    def __len__(self):
        return self.values.shape[0]

    def __getitem__(self, rows):
        """The explanation of some rows (an int keeps the row axis)."""
        if isinstance(rows, Integral):
            rows = slice(rows, rows + 1 if rows != -1 else None)
        return Explanation(
            self.values[rows], self.base_values[rows], self.data[rows],
            list(self.feature_names), list(self.output_names), self.method,
            None if self.standard_errors is None else self.standard_errors[rows],
            self.n_permutations, self.centred, self.n_predictions)

    @property
    def feature_importances_(self):
        """Mean absolute contribution of every attribute over the rows and the classes
        (nats): a global summary of how much each attribute moves the scores of the rows
        explained, in the sense of scikit-learn's ``feature_importances_`` (larger is more
        important) but not normalised to sum to one, and a property of these rows, not of
        the model alone."""
        return np.abs(self.values).mean(axis=(0, 2))

    def log_proba(self):
        """``base_values + values.sum(axis=1)`` normalised: equals ``predict_log_proba``
        of the rows explained (to rounding).

        Returns
        -------
        ndarray of shape (n_rows, n_classes)
        """
        total = self.base_values + self.values.sum(axis=1)
        with np.errstate(invalid="ignore"):
            return total - logsumexp(total, axis=1, keepdims=True)

    def to_frame(self):
        """The contributions as a long DataFrame: one row per (row, attribute, class).

        Returns
        -------
        DataFrame
            Columns ``row``, ``feature``, ``class``, ``value`` (and ``standard_error``
            when sampled).
        """
        n, d, k = self.values.shape
        out = pd.DataFrame({
            "row": np.repeat(np.arange(n), d * k),
            "feature": np.tile(np.repeat(np.asarray(self.feature_names, dtype=object), k), n),
            "class": np.tile(np.asarray(self.output_names, dtype=object), n * d),
            "value": self.values.reshape(-1)})
        if self.standard_errors is not None:
            out["standard_error"] = self.standard_errors.reshape(-1)
        return out

    def to_shap(self):
        """The same explanation as a ``shap.Explanation`` (needs the ``shap`` package,
        which is not a dependency of seminaive).

        Returns
        -------
        shap.Explanation
        """
        try:
            import shap
        except ImportError as err:  # pragma: no cover - depends on the environment
            raise ImportError("to_shap needs the shap package: pip install shap (the "
                              "Explanation's values, base_values, data and feature_names "
                              "are usable without it)") from err
        return shap.Explanation(values=self.values, base_values=self.base_values,
                                data=self.data, feature_names=list(self.feature_names),
                                output_names=list(self.output_names))


# --------------------------------------------------------------------------------------------
# The value of a coalition: the model's own prediction with the other attributes missing
# --------------------------------------------------------------------------------------------


class _Coded:
    """Rows already encoded: storage of the masked codes handed to the shadow encoder."""

    def __init__(self, codes, values):
        self.codes = codes
        self.values = values
        self.shape = codes.shape


class _CodedEncoder:
    """The model's encoder, except that :class:`_Coded` rows are passed through."""

    def __init__(self, encoder):
        self._encoder = encoder

    def __getattr__(self, name):
        return getattr(self._encoder, name)

    def encode(self, X, owner):
        if isinstance(X, _Coded):
            return X.codes
        return self._encoder.encode(X, owner)

    def numeric_values(self, X, owner):
        if isinstance(X, _Coded):
            return X.values
        return self._encoder.numeric_values(X, owner)


def _missing_frame(frame, encoder):
    """One row holding a missing value in every column (None in nominal columns, NaN in
    numeric ones), with the columns of ``frame``."""
    numeric = set(np.asarray(encoder.numeric_columns_).tolist())
    return pd.DataFrame({c: pd.Series([np.nan] if j in numeric else [None],
                                      dtype=float if j in numeric else object)
                         for j, c in enumerate(frame.columns)})


class _Game:
    """The value function of a fitted model on some rows: ``game(masks, rows)`` scores
    every row with the attributes outside its masks set to missing."""

    def __init__(self, model, frame, centred):
        owner = type(model).__name__
        encoder = model.encoder_
        # row-major: a batch gathers rows
        self.codes = np.ascontiguousarray(encoder.encode(frame, owner))
        self.needs_values = bool(model.needs_values())
        self.numeric = np.asarray(encoder.numeric_columns_, dtype=np.int64)
        missing = _missing_frame(frame, encoder)
        self.missing_codes = np.asarray(encoder.encode(missing, owner))[0]
        self.values = (encoder.numeric_values(frame, owner) if self.needs_values else None)
        self.shadow = copy.copy(model)
        self.shadow.encoder_ = _CodedEncoder(encoder)
        self.centred = centred
        self.n_rows, self.n_attributes = self.codes.shape
        self.n_classes = len(model.classes_)
        self.n_predictions = 0

    def __call__(self, masks, rows):
        """Scores of ``rows`` (indices) under ``masks`` (bool, (len(rows), c, d)), shape
        (len(rows), c, n_classes)."""
        r, c, d = masks.shape
        out = np.empty((r, c, self.n_classes))
        flat = masks.reshape(r * c, d)
        row_of = np.repeat(rows, c)
        for start in range(0, r * c, _BATCH_ROWS):
            stop = min(start + _BATCH_ROWS, r * c)
            keep = flat[start:stop]
            src = row_of[start:stop]
            codes = np.where(keep, self.codes[src], self.missing_codes[None, :])
            codes = np.asfortranarray(codes, dtype=self.codes.dtype)
            values = None
            if self.needs_values:
                values = self.values[src].copy()
                values[~keep[:, self.numeric]] = np.nan
            scores = np.asarray(self.shadow.joint_log_likelihood(_Coded(codes, values)),
                                dtype=np.float64)
            if self.centred:
                scores = scores - scores.mean(axis=1, keepdims=True)
            out.reshape(r * c, self.n_classes)[start:stop] = scores
            self.n_predictions += stop - start
        return out


# --------------------------------------------------------------------------------------------
# The schemes
# --------------------------------------------------------------------------------------------


def _row_chunks(n_rows, per_row):
    """Row ranges whose batches of ``per_row`` coalitions fit about four batches."""
    step = max(1, (4 * _BATCH_ROWS) // max(per_row, 1))
    return [np.arange(s, min(s + step, n_rows)) for s in range(0, n_rows, step)]


def _ends(game, rows):
    """v(empty) and v(N) of the rows, shape (r, 2, k)."""
    d = game.n_attributes
    masks = np.zeros((rows.size, 2, d), dtype=bool)
    masks[:, 1] = True
    return game(masks, rows)


def _family_sets(families, d):
    """Every subset of every family (closed under subsets, the empty set first), as sorted
    tuples."""
    sets = {()}
    for fam in families:
        fam = sorted(set(fam))
        for r in range(1, len(fam) + 1):
            sets.update(combinations(fam, r))
    return sorted(sets, key=lambda t: (len(t), t))


def _decomposed(game, families):
    """Shapley values of a game whose Harsanyi dividends vanish outside the subsets of
    ``families`` (naive Bayes: every attribute alone; a single network: every attribute
    with its parents): phi_j = sum over T containing j of m(T) / |T|, from the values of
    those subsets only.  None unless every row's game decomposes so at the top: v(N) and
    every v(N minus i) must equal the sums of the dividends inside them (a dividend outside
    the families shows up in these large sets)."""
    n, d, k = game.n_rows, game.n_attributes, game.n_classes
    sets = _family_sets(families, d)
    index = {t: j for j, t in enumerate(sets)}
    s = len(sets)
    # Moebius inversion m(T) = sum over U in T of (-1)^(|T| - |U|) v(U), as a sparse matrix
    entries = [(t, index[sub], (-1.0) ** (len(members) - r))
               for t, members in enumerate(sets) for r in range(len(members) + 1)
               for sub in combinations(members, r)]
    t_idx, u_idx, sign = (np.array(a) for a in zip(*entries, strict=True))
    mobius = sparse.csr_matrix((sign, (t_idx, u_idx)), shape=(s, s))
    # phi_j = sum of m(T) / |T| over T containing j
    pairs = [(j, t, 1.0 / len(members)) for t, members in enumerate(sets) for j in members]
    j_idx, t_idx, weight = (np.array(a) for a in zip(*pairs, strict=True))
    share = sparse.csr_matrix((weight, (j_idx, t_idx)), shape=(d, s))
    coalitions = np.zeros((s + 1 + d, d), dtype=bool)
    for t, members in enumerate(sets):
        coalitions[t, list(members)] = True
    coalitions[s:] = True  # N, then N minus i
    coalitions[s + 1 + np.arange(d), np.arange(d)] = False
    inside = np.array([[set(members) <= set(np.flatnonzero(c).tolist()) for members in sets]
                       for c in coalitions[s:]], dtype=float)
    phi = np.empty((n, d, k))
    base = np.empty((n, k))
    # a few rows first: a model that does not decompose is found out on them, at little cost
    probe = min(n, _PROBE_ROWS)
    chunks = [np.arange(probe)] + [probe + c for c in _row_chunks(n - probe, s + 1 + d)]
    for rows in chunks:
        masks = np.broadcast_to(coalitions[None], (rows.size, *coalitions.shape))
        v = game(masks, rows)
        r = rows.size
        # every row and class at once: sets first, then (row, class)
        dividends = mobius @ v[:, :s].transpose(1, 0, 2).reshape(s, r * k)
        phi[rows] = (share @ dividends).reshape(d, r, k).transpose(1, 0, 2)
        base[rows] = v[:, 0]
        predicted = (inside @ dividends).reshape(d + 1, r, k).transpose(1, 0, 2)
        scale = max(1.0, float(np.abs(v).max()))
        if not np.all(np.abs(predicted - v[:, s:]) <= _ADDITIVE_RTOL * scale):
            return None
    return phi, base


def _parents(model):
    """The learned parents of a structure learner, (d, width) with -1 padding, or None."""
    parents = getattr(model, "structure_", None)
    if parents is None:
        return None
    parents = np.asarray(parents, dtype=np.int64)
    return parents[:, None] if parents.ndim == 1 else parents


def _shapley_weights(d):
    """w[s] = s! (d - s - 1)! / d!, the weight of a coalition of s others."""
    return np.array([math.factorial(s) * math.factorial(d - s - 1) / math.factorial(d)
                     for s in range(d)])


def _exact(game):
    """Shapley values by enumeration of the 2**d coalitions of every row."""
    n, d, k = game.n_rows, game.n_attributes, game.n_classes
    subsets = np.arange(1 << d)
    masks = ((subsets[:, None] >> np.arange(d)[None, :]) & 1).astype(bool)
    sizes = masks.sum(axis=1)
    w = _shapley_weights(d)
    phi = np.empty((n, d, k))
    base = np.empty((n, k))
    for rows in _row_chunks(n, 1 << d):
        v = game(np.broadcast_to(masks[None], (rows.size, 1 << d, d)), rows)
        base[rows] = v[:, 0]
        for i in range(d):
            off = subsets[(subsets >> i) & 1 == 0]
            gain = v[:, off | (1 << i)] - v[:, off]
            phi[rows, i] = np.einsum("s,rsk->rk", w[sizes[off]], gain)
    return phi, base


def _walks(game, rows, order, v_empty, v_full):
    """Marginal contributions of every attribute along the permutations ``order``
    (r, m, d): shape (r, m, d, k)."""
    r, m, d = order.shape
    k = game.n_classes
    rank = np.argsort(order, axis=-1)  # position of every attribute in its permutation
    steps = np.arange(1, d)  # coalitions of the first 1 .. d - 1 attributes
    masks = rank[:, :, None, :] < steps[None, None, :, None]  # (r, m, d - 1, d)
    v = game(masks.reshape(r, m * (d - 1), d), rows).reshape(r, m, d - 1, k)
    chain = np.concatenate([np.broadcast_to(v_empty[:, None, None], (r, m, 1, k)), v,
                            np.broadcast_to(v_full[:, None, None], (r, m, 1, k))], axis=2)
    gain = np.diff(chain, axis=2)  # (r, m, d, k): gain of the attribute at each position
    delta = np.empty_like(gain)
    np.put_along_axis(delta, order[..., None], gain, axis=2)
    return delta


def _sampled(game, n_pairs, rng):
    """Antithetic permutation sampling: ``n_pairs`` permutations and their reverses per
    row; every pair's estimate is exactly efficient."""
    n, d, k = game.n_rows, game.n_attributes, game.n_classes
    phi = np.empty((n, d, k))
    se = np.empty((n, d, k))
    base = np.empty((n, k))
    for rows in _row_chunks(n, 2 * n_pairs * max(d - 1, 1)):
        ends = _ends(game, rows)
        v_empty, v_full = ends[:, 0], ends[:, 1]
        # random keys drawn row after row: the same permutations whatever the chunking
        order = np.argsort(rng.random((rows.size, n_pairs, d)), axis=-1)
        if d > 1:
            pair = 0.5 * (_walks(game, rows, order, v_empty, v_full)
                          + _walks(game, rows, order[..., ::-1], v_empty, v_full))
        else:
            pair = np.broadcast_to((v_full - v_empty)[:, None, None],
                                   (rows.size, n_pairs, 1, k))
        phi[rows] = pair.mean(axis=1)
        se[rows] = (pair.std(axis=1, ddof=1) / np.sqrt(n_pairs) if n_pairs > 1
                    else np.nan)
        base[rows] = v_empty
    return phi, base, se


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


def _feature_names(model, frame):
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(c) for c in names]
    return [f"x{j}" for j in range(frame.shape[1])]


def _generator(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    return np.random.default_rng(random_state)


def _check_options(method, n_permutations):
    if method not in METHODS:
        raise InputError(f"method={method!r}: use one of {', '.join(map(repr, METHODS))}")
    if (not isinstance(n_permutations, Integral) or isinstance(n_permutations, bool)
            or n_permutations < 4 or n_permutations % 2):
        raise InputError(f"n_permutations={n_permutations!r}: give an even number of at "
                         "least 4 (the permutations are walked in antithetic pairs, and the "
                         "standard error needs two pairs)")


def explain(model, X, *, method="auto", n_permutations=32, random_state=None, centred=True):
    """Additive contributions of every attribute to every class's score (the engine of
    :meth:`seminaive.base.Learner.explain`).

    Parameters
    ----------
    model : fitted seminaive learner
        Any learner: the value of a coalition is the model's own prediction with the other
        attributes missing.
    X : DataFrame or array-like of shape (n_samples, n_features)
        Rows to explain, with the columns of the training data (missing values allowed:
        a missing attribute is in no coalition's way and gets contribution 0).
    method : {"auto", "additive", "structure", "exact", "sampled"}, default="auto"
        ``"auto"``: ``"structure"`` for a learner with a ``structure_`` and ``"additive"``
        for the others, when the model decomposes so (checked on the rows) and that is
        cheaper than enumeration (and at most ``MAX_DECOMPOSED_SETS`` sets of
        attributes per row); else ``"exact"`` up to ``MAX_EXACT_ATTRIBUTES``
        attributes, else ``"sampled"``.  ``"additive"`` or ``"structure"`` on a model that
        does not decompose so raises :class:`~seminaive.exceptions.InputError`.
    n_permutations : int, default=32
        Permutations per row of ``"sampled"`` (even: walked in antithetic pairs); cost
        ``n_permutations * (d - 1) + 2`` predictions per row, standard error shrinking as
        one over its square root.
    random_state : int, Generator or None, default=None
        Seed of the sampled permutations (the values are deterministic for a seed).
    centred : bool, default=True
        Centre every coalition's scores over the classes (an attribute that moves every
        class alike gets 0 and naive Bayes' values are log-likelihood ratios).  False
        explains the raw joint log likelihood ``log P(c, x)``.

    Returns
    -------
    Explanation

    Examples
    --------
    Naive Bayes' values are its log likelihood terms, centred over the classes:

    >>> import numpy as np
    >>> from seminaive import NaiveBayes
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = NaiveBayes().fit(X, y)
    >>> ex = explain(model, X.iloc[:100])
    >>> ex.method, ex.values.shape
    ('additive', (100, 36, 2))
    >>> bool(np.allclose(ex.log_proba(), model.predict_log_proba(X.iloc[:100]), atol=1e-9))
    True
    """
    check_is_fitted(model, "table_")
    _check_options(method, n_permutations)
    frame = as_frame(X)
    if frame.shape[0] == 0:
        raise InputError("X holds no rows: nothing to explain")
    game = _Game(model, frame, centred)
    d = game.n_attributes
    se, n_perm = None, 0
    result = None
    parents = _parents(model)
    if method == "structure" and parents is None:
        raise InputError(f"{type(model).__name__} has no learned structure (structure_): "
                         "method='structure' is for TAN, SP-TAN, KDB and SKDB")
    if method in ("additive", "structure") or method == "auto":
        used = "structure" if parents is not None and method != "additive" else "additive"
        families = ([[i, *[int(p) for p in row if p >= 0]] for i, row in enumerate(parents)]
                    if used == "structure" else [[i] for i in range(d)])
        cost = len(_family_sets(families, d)) + d + 1
        if cost > MAX_DECOMPOSED_SETS and method != "auto":
            raise InputError(f"method={method!r} would score {cost} sets of attributes per "
                             f"row (more than {MAX_DECOMPOSED_SETS}: the families are "
                             "large): use method='sampled'")
        if cost <= MAX_DECOMPOSED_SETS and (method != "auto" or cost <= (1 << d)
                                            or d > MAX_EXACT_ATTRIBUTES):
            result = _decomposed(game, families)
        if result is None and method != "auto":
            what = ("a sum of terms on every attribute and its parents" if used == "structure"
                    else "additive over its attributes")
            raise InputError(f"{type(model).__name__} is not {what} on these rows (an "
                             "attribute adds different amounts to different coalitions): "
                             "use method='exact' or 'sampled'")
    if result is None and (method == "exact" or (method == "auto"
                                                 and d <= MAX_EXACT_ATTRIBUTES)):
        result, used = _exact(game), "exact"
    if result is None:
        phi, base, se = _sampled(game, n_permutations // 2, _generator(random_state))
        result, used, n_perm = (phi, base), "sampled", n_permutations
    phi, base = result
    data = frame.to_numpy()
    return Explanation(phi, base, data, _feature_names(model, frame),
                       list(model.classes_), used, se, n_perm, centred, game.n_predictions)


def explain_stream(model, source, out, *, method="auto", n_permutations=32,
                   random_state=None, centred=True, chunk_rows=None, csv_options=None):
    """Explain data read chunk by chunk and write the contributions to a file.

    The rows are read with the readers of :mod:`seminaive.streaming` (Parquet, CSV,
    DataFrames, iterators) and explained chunk by chunk; only one chunk and its
    contributions are in memory.  The file (Parquet, or CSV when ``out`` ends in
    ``.csv``) is written beside ``out`` and renamed into place when complete.  It holds one
    row per row of the source and the columns ``base_<class>`` and ``<feature>__<class>``
    (the contribution of the feature to the class) -- with ``"sampled"``, also
    ``se_<feature>__<class>``.  The sampled permutations are drawn from one generator
    row after row, so the values do not depend on ``chunk_rows``.

    Parameters
    ----------
    model : fitted seminaive learner
    source : path, list of paths, DataFrame, list of DataFrames, callable or iterator
        As in :func:`seminaive.streaming.predict_stream`; the model's feature columns are
        read.
    out : str or path
        The file written.
    method, n_permutations, random_state, centred
        As in :func:`explain` (``"auto"`` decides on every chunk).
    chunk_rows : int, optional
        Rows per chunk (default: about 8 million values per chunk, divided by the
        predictions a row costs).
    csv_options : dict, optional
        Keyword arguments of ``pandas.read_csv``.

    Returns
    -------
    summary : dict
        ``n_rows``, ``feature_importances`` (mean absolute contribution of every attribute
        over the rows and classes, a Series) and ``methods`` (the scheme of every chunk).

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from seminaive import NaiveBayes
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = NaiveBayes().fit(X, y)
    >>> out = os.path.join(tempfile.mkdtemp(), "contributions.parquet")
    >>> explain_stream(model, X.iloc[:500], out, chunk_rows=200)["n_rows"]
    500
    >>> pd.read_parquet(out).shape
    (500, 74)
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    check_is_fitted(model, "table_")
    _check_options(method, n_permutations)
    if out is None:
        raise InputError("out is required: the path of the file to write")
    # the readers (pyarrow) are imported on use, as fit_stream imports them
    from .streaming._readers import _select, default_chunk_rows, expand_patterns, open_source

    source = expand_patterns(source)  # "data/part-*.csv": the files, sorted
    reader = open_source(source, csv_options)
    columns = getattr(model, "feature_names_in_", None)
    columns = None if columns is None else list(columns)
    d = model.n_features_in_
    if chunk_rows is None:
        chunk_rows = max(1, default_chunk_rows(d) // max(1, min(1 << d, 2 * d + 2)))
    rng = _generator(random_state)
    as_csv = os.fspath(out).lower().endswith(".csv")
    n_rows, total, methods, names = 0, None, [], None
    # the output may not be one of the files read: it would be replaced before all is read
    with atomic_path(out, inputs=source if isinstance(source, (list, tuple)) else [source]) \
            as tmp:
        writer = None
        try:
            for frame, where in reader.frames(columns, chunk_rows):
                X = frame if columns is None else _select(frame, columns, where)
                ex = explain(model, as_frame(X), method=method,
                             n_permutations=n_permutations, random_state=rng,
                             centred=centred)
                names = ex.feature_names
                methods.append(ex.method)
                part = _wide_columns(ex)
                n_rows += len(ex)
                s = np.abs(ex.values).sum(axis=(0, 2))
                total = s if total is None else total + s
                if as_csv:
                    if writer is None:
                        writer = open(tmp, "w", newline="")
                    part.to_csv(writer, header=writer.tell() == 0, index=False)
                    continue
                table = pa.Table.from_pandas(part, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(tmp, table.schema)
                writer.write_table(table)
        finally:
            if writer is not None:
                writer.close()
        if n_rows == 0:
            raise InputError("the source holds no rows: nothing to explain")
    k = len(model.classes_)
    return {"n_rows": n_rows, "methods": methods,
            "feature_importances": pd.Series(total / (n_rows * k), index=names)}


def _wide_columns(ex):
    """One column per (feature, class) and a base column per class."""
    cols = {}
    for c, label in enumerate(ex.output_names):
        cols[f"base_{label}"] = ex.base_values[:, c]
    for j, name in enumerate(ex.feature_names):
        for c, label in enumerate(ex.output_names):
            cols[f"{name}__{label}"] = ex.values[:, j, c]
    if ex.standard_errors is not None:
        for j, name in enumerate(ex.feature_names):
            for c, label in enumerate(ex.output_names):
                cols[f"se_{name}__{label}"] = ex.standard_errors[:, j, c]
    return pd.DataFrame(cols)


def structure_graph(model):
    """The learned graph of a structure learner as data: the parents of every attribute.

    Parameters
    ----------
    model : fitted learner with a ``structure_`` (TAN, SP-TAN, KDB, SKDB)

    Returns
    -------
    dict
        ``{feature name: [parent names]}``, every attribute in the model (SKDB: the
        selected ones); the class is a parent of every attribute and is not listed.

    Examples
    --------
    >>> from seminaive import TAN
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> graph = structure_graph(TAN().fit(X.iloc[:, :5], y))
    >>> sorted(graph), sum(len(p) for p in graph.values())
    (['bkblk', 'bknwy', 'bkon8', 'bkona', 'bkspr'], 4)
    """
    check_is_fitted(model, "table_")
    parents = getattr(model, "structure_", None)
    if parents is None:
        raise InputError(f"{type(model).__name__} has no learned structure (structure_): "
                         "the graph is drawn for TAN, SP-TAN, KDB and SKDB")
    parents = np.asarray(parents)
    if parents.ndim == 1:
        parents = parents[:, None]
    n = parents.shape[0]
    names = (list(map(str, model.feature_names_in_))
             if getattr(model, "feature_names_in_", None) is not None
             else [f"x{j}" for j in range(n)])
    kept = getattr(model, "selected_features_", None)
    kept = set(range(n)) if kept is None else {int(j) for j in kept}
    return {names[i]: [names[int(p)] for p in parents[i] if p >= 0]
            for i in range(n) if i in kept}
