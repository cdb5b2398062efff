"""The AnDE family: NaiveBayes (A0DE), AODE (A1DE), A2DE, A3DE and AnDE(n) for any n.

Webb, Boughton, Zheng, Ting & Salem (2012, eq. 11): for every class,

    P(y, x) ~ mean over qualifying parent sets s of size n of
              P(y, x_s) * prod_{i not in s, x_i observed} P(x_i | y, x_s)

cascading to A(n-1)DE for a row in which no parent set qualifies.  All the counting and
arithmetic is done by :class:`seminaive.tables.FrequencyTable`; the estimator machinery is
:class:`seminaive.base._BaseAnDE`.  ``AnDE(weights=...)`` is the information-weighted
implementation of :mod:`seminaive.weighting.information`, and ``AnDE(n="auto")`` the
nested selection of :mod:`seminaive.selection.auto`.
"""

from numbers import Integral
from typing import Literal

from ._docs import fill_doc
from ._params import ArrayLike, Choices, Interval, RandomState, Transformer
from .base import (
    DEFAULT_MAX_TABLE_BYTES,
    ENGINE_PARAMETERS,
    HDP_PARAMETERS,
    HDP_SMOOTHING,
    KDE_DENSITY,
    _BaseAnDE,
    declare,
)
from .parts import GaussianChildren, HierarchicalEstimates
from .selection import auto, memory
from .weighting.information import SCHEMES, _InformationWeighted


def _is_auto(estimator):
    return isinstance(estimator.n, str) and estimator.n == "auto"


def _hierarchical_available(estimator):
    """Hierarchical estimates need a fixed n and discretised numeric attributes."""
    return not _is_auto(estimator) and estimator.numeric == "discretize"


@fill_doc
class AnDE(_InformationWeighted):
    """Averaged n-Dependence Estimators, for any n.

    Averages, over every combination s of n parent attributes whose values occur at least
    ``min_count`` times in training, the sub-model P(y, x_s) prod_i P(x_i | y, x_s)
    (Webb et al. 2012, eq. 11).  A row in which no parent combination qualifies cascades to
    A(n-1)DE.  n = 0 is naive Bayes, n = 1 AODE.  A larger n lowers bias and raises
    variance: it pays off with more training data.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {fitted_attributes}
    weights_ : ndarray
        The learnt sub-model weights (only when ``weights`` is given).
    n_ : int
        The chosen parent order (only with ``n="auto"``).
    {memory_attributes}

    See Also
    --------
    NaiveBayes, AODE, A2DE, A3DE : the same learner with n fixed.
    seminaive.WAODE : ``AnDE(n=1, weights=...)`` under its published name.

    References
    ----------
    {webb2012}

    {petitjean2018}

    {chen2017}

    Examples
    --------
    >>> from seminaive import AnDE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = AnDE(n=2).fit(X, y)
    >>> model.predict_proba(X.iloc[:3]).shape
    (3, 2)
    >>> float(model.score(X, y)) > 0.9
    True
    """

    _parameter_constraints = declare(
        ENGINE_PARAMETERS, "numeric", "density", HDP_PARAMETERS, "dtype", density=KDE_DENSITY,
        n=[Interval(Integral, 0, None, closed="left"), Choices("auto")],
        smoothing=HDP_SMOOTHING, weights=[None, Choices(*SCHEMES), "array-like"],
        memory=[Choices(*memory.MEMORY)])
    _parameter_docs = {
        "smoothing": "ande_smoothing",
        "density": "density_kde",
    }
    parts = (GaussianChildren(),
             HierarchicalEstimates(when=_hierarchical_available,
                                   owner="AnDE with n='auto' or numeric='gaussian'"))

    def __init__(
        self,
        n: int | Literal["auto"] = 1,
        *,
        smoothing: Literal["m_estimate", "laplace", "hdp", "hls"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        aggregate: Literal["joint", "posterior", "vote"] = "joint",
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
        weights: Literal["mi", "kl"] | ArrayLike | None = None,
        numeric: Literal["discretize", "gaussian"] = "discretize",
        density: Literal["plugin", "student", "kde"] = "student",
        n_iter: int = 1000,
        burn_in: int | None = None,
        tying: Literal["none", "parent", "level", "single"] = "level",
        memory: Literal["refuse", "select", "select_dense"] = "refuse",
        dtype: Literal["float64", "float32"] = "float64",
    ) -> None:
        self.n = n
        self.smoothing = smoothing
        self.m = m
        self.min_count = min_count
        self.aggregate = aggregate
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.max_table_bytes = max_table_bytes
        self.random_state = random_state
        self.weights = weights
        self.numeric = numeric
        self.density = density
        self.n_iter = n_iter
        self.burn_in = burn_in
        self.tying = tying
        self.memory = memory
        self.dtype = dtype

    def _check_params(self):
        super()._check_params()
        if _is_auto(self):
            auto.check_params(self)
        memory.check_params(self)

    def _new_table(self, n_values, n_classes, encoder=None):
        if memory.selecting(self):
            return memory.new_table(self, n_values, n_classes)
        return super()._new_table(n_values, n_classes, encoder)

    def _prepare_tables(self, source):
        if not _is_auto(self) and memory.selecting(self):
            memory.learn(self, source)

    def _learn_from_counts(self, source):
        if _is_auto(self):
            if self._keeps_choice("parents_"):
                self._warn_choice_kept("order n, parents and children")
                return
            auto.learn(self, source)
            self._mark_choice()
        else:
            super()._learn_from_counts(source)

    def _scores(self, X):
        if _is_auto(self):
            return auto.scores(self, X)
        return super()._scores(X)

    def _learned_state(self):
        if _is_auto(self):
            return auto.learned_state(self)
        state = super()._learned_state()
        if memory.selecting(self):
            state.update(memory.learned_state(self))
        return state

    def _set_learned_state(self, arrays):
        if _is_auto(self):
            return auto.set_learned_state(self, arrays)
        if memory.selecting(self):
            arrays = memory.set_learned_state(self, arrays)
        elif self.table_.parents is not None:
            raise ValueError("a selective table (parents) needs memory='select'")
        return super()._set_learned_state(arrays)

    def _order(self):
        if _is_auto(self):
            return auto.MAX_N  # tables for parent orders up to 2
        return self.n


class _FixedOrder(_BaseAnDE):
    _n = None
    _parameter_constraints = declare(ENGINE_PARAMETERS, "numeric", "density", "dtype",
                                     density=KDE_DENSITY)
    _parameter_docs = {"density": "density_kde_default"}
    parts = (GaussianChildren(),)

    def __init__(
        self,
        *,
        smoothing: Literal["m_estimate", "laplace"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        aggregate: Literal["joint", "posterior", "vote"] = "joint",
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
        numeric: Literal["discretize", "gaussian"] = "discretize",
        density: Literal["plugin", "student", "kde"] = "kde",
        dtype: Literal["float64", "float32"] = "float64",
    ) -> None:
        self.smoothing = smoothing
        self.m = m
        self.min_count = min_count
        self.aggregate = aggregate
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.max_table_bytes = max_table_bytes
        self.random_state = random_state
        self.numeric = numeric
        self.density = density
        self.dtype = dtype

    def _order(self):
        return self._n


def _discretized(estimator):
    """Hierarchical estimates need discretised numeric attributes."""
    return estimator.numeric == "discretize"


class _HierarchicalOrder(_FixedOrder):
    """A fixed order n >= 1 that also takes hierarchical estimates (``smoothing="hdp"`` or
    ``"hls"``, with ``n_iter``, ``burn_in`` and ``tying``), exactly as ``AnDE(n=n)``."""

    _parameter_constraints = declare(ENGINE_PARAMETERS, "numeric", "density", HDP_PARAMETERS,
                                     "dtype", smoothing=HDP_SMOOTHING, density=KDE_DENSITY)
    _parameter_docs = {
        "smoothing": "ande_smoothing",
        "density": "density_kde_default",
    }
    parts = (GaussianChildren(),
             HierarchicalEstimates(when=_discretized, owner="numeric='gaussian'"))

    def __init__(
        self,
        *,
        smoothing: Literal["m_estimate", "laplace", "hdp", "hls"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        aggregate: Literal["joint", "posterior", "vote"] = "joint",
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
        numeric: Literal["discretize", "gaussian"] = "discretize",
        density: Literal["plugin", "student", "kde"] = "kde",
        n_iter: int = 1000,
        burn_in: int | None = None,
        tying: Literal["none", "parent", "level", "single"] = "level",
        dtype: Literal["float64", "float32"] = "float64",
    ) -> None:
        super().__init__(smoothing=smoothing, m=m, min_count=min_count, aggregate=aggregate,
                         discretizer=discretizer, n_bins=n_bins, missing=missing,
                         categorical_features=categorical_features,
                         max_table_bytes=max_table_bytes, random_state=random_state,
                         numeric=numeric, density=density, dtype=dtype)
        self.n_iter = n_iter
        self.burn_in = burn_in
        self.tying = tying


@fill_doc
class NaiveBayes(_FixedOrder):
    """Naive Bayes: A0DE, P(y, x) ~ P(y) prod_i P(x_i | y).

    Attributes are assumed independent given the class (Webb et al. 2012, eq. 5): the
    lowest-variance, highest-bias member of the AnDE family.  The same as ``AnDE(n=0)``.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {fitted_attributes}

    See Also
    --------
    AODE : relaxes the independence assumption with one super-parent.

    References
    ----------
    {webb2012}

    Examples
    --------
    >>> from seminaive import NaiveBayes
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = NaiveBayes().fit(X, y)
    >>> model.classes_.tolist()
    ['nowin', 'won']
    >>> model.predict_proba(X.iloc[:2]).sum(axis=1).round(6).tolist()
    [1.0, 1.0]
    """

    _n = 0


@fill_doc
class AODE(_HierarchicalOrder):
    """Averaged One-Dependence Estimators (A1DE).

    Averages the one-dependence estimators P(y, x_i) prod_j P(x_j | y, x_i) of every
    super-parent x_i that occurs at least ``min_count`` times (Webb, Boughton & Wang 2005;
    Webb et al. 2012, eq. 9).  The same as ``AnDE(n=1)``.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {fitted_attributes}

    See Also
    --------
    A2DE : two parents per sub-model, lower bias.
    seminaive.WAODE : weighted super-parents.

    References
    ----------
    {webb2005}

    {webb2012}

    Examples
    --------
    >>> from seminaive import AODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = AODE().fit(X.iloc[:2000], y.iloc[:2000])
    >>> model.predict(X.iloc[:3]).tolist()
    ['won', 'won', 'won']
    """

    _n = 1


@fill_doc
class A2DE(_HierarchicalOrder):
    """Averaged 2-Dependence Estimators: every pair of attributes as parents.

    Webb et al. (2012, eq. 11 with n = 2): lower bias than AODE, more variance; the paper
    finds it more accurate than AODE on large data.  The same as ``AnDE(n=2)``.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {fitted_attributes}

    See Also
    --------
    AODE, A3DE, AnDE

    References
    ----------
    {webb2012}

    Examples
    --------
    >>> from seminaive import A2DE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = A2DE().fit(X, y)
    >>> model.table_.max_order
    3
    """

    _n = 2


@fill_doc
class A3DE(_HierarchicalOrder):
    """Averaged 3-Dependence Estimators: every triple of attributes as parents.

    Webb et al. (2012, eq. 11 with n = 3).  Its tables grow with the fourth power of the
    number of attributes: ``max_table_bytes`` refuses a model that would not fit before
    allocating, and ``memory="select"`` draws the parents from the attributes most
    informative about the class instead, so that the tables fit (Chen et al. 2017).  The
    same as ``AnDE(n=3)`` (with the same ``memory``).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {fitted_attributes}
    {memory_attributes}

    See Also
    --------
    A2DE, AnDE

    References
    ----------
    {webb2012}

    Examples
    --------
    >>> from seminaive import A3DE
    >>> from seminaive.datasets import make_led
    >>> X, y = make_led(500, random_state=0)
    >>> model = A3DE().fit(X, y)
    >>> model.predict_proba(X[:2]).shape
    (2, 10)
    >>> small = A3DE(memory="select", max_table_bytes=20_000_000).fit(X, y)
    >>> len(small.parents_) < X.shape[1]
    True
    """

    _n = 3
    _parameter_constraints = declare(ENGINE_PARAMETERS, "numeric", "density", HDP_PARAMETERS,
                                     "dtype", smoothing=HDP_SMOOTHING, density=KDE_DENSITY,
                                     memory=[Choices(*memory.MEMORY)])

    def __init__(
        self,
        *,
        smoothing: Literal["m_estimate", "laplace", "hdp", "hls"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        aggregate: Literal["joint", "posterior", "vote"] = "joint",
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
        numeric: Literal["discretize", "gaussian"] = "discretize",
        memory: Literal["refuse", "select", "select_dense"] = "refuse",
        density: Literal["plugin", "student", "kde"] = "kde",
        n_iter: int = 1000,
        burn_in: int | None = None,
        tying: Literal["none", "parent", "level", "single"] = "level",
        dtype: Literal["float64", "float32"] = "float64",
    ) -> None:
        super().__init__(smoothing=smoothing, m=m, min_count=min_count, aggregate=aggregate,
                         discretizer=discretizer, n_bins=n_bins, missing=missing,
                         categorical_features=categorical_features,
                         max_table_bytes=max_table_bytes, random_state=random_state,
                         numeric=numeric, density=density, n_iter=n_iter, burn_in=burn_in,
                         tying=tying, dtype=dtype)
        self.memory = memory

    @property
    def n(self):
        """The parent order, 3 (what ``memory="select"`` reads, as from ``AnDE``)."""
        return self._n

    def _check_params(self):
        super()._check_params()
        memory.check_params(self)

    def _new_table(self, n_values, n_classes, encoder=None):
        if memory.selecting(self):
            return memory.new_table(self, n_values, n_classes)
        return super()._new_table(n_values, n_classes, encoder)

    def _prepare_tables(self, source):
        if memory.selecting(self):
            memory.learn(self, source)

    def _learned_state(self):
        state = super()._learned_state()
        if memory.selecting(self):
            state.update(memory.learned_state(self))
        return state

    def _set_learned_state(self, arrays):
        if memory.selecting(self):
            arrays = memory.set_learned_state(self, arrays)
        elif self.table_.parents is not None:
            raise ValueError("a selective table (parents) needs memory='select'")
        return super()._set_learned_state(arrays)
