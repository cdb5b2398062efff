"""Information-theoretic weights for the sub-models of AODE and AnDE: WAODE-MI and WAODE-KL.

* WAODE-MI (Jiang & Zhang 2006; the SWAODE paper (2024), eq 8 and §4.1; Chen et al. 2014,
  §1): the ODE with super-parent X_i gets weight I(X_i; Y).  For AnDE the parent
  combination s gets I(X_s; Y), computed from the order-n count blocks (X_s taken as one
  joint variable).
* WAODE-KL (the SWAODE paper (2024), §5 names it, with reference [21], without giving its
  formula): the sub-model with parent value x_s gets weight KL(P(Y | x_s) || P(Y)), the
  divergence of the class distribution given the parent's value from the class prior -- the
  Kullback-Leibler measure of an attribute value (Lee, Gutierrez & Dou 2011) used as an ODE
  weight, which varies with the instance's parent value.  Its expectation over x_s is I(X_s; Y).

Either way (the SWAODE paper (2024), eq 9, generalised to n):

    P(y, x) ~ sum_s w_s P(y, x_s) prod_j P(x_j | y, x_s) / sum_s w_s

over the qualifying parent combinations s (log-sum-exp in the scoring kernel).
"""

import numbers
from typing import Literal

import numpy as np

from .._docs import fill_doc
from .._params import ArrayLike, Choices, RandomState, Transformer
from ..base import (
    DEFAULT_MAX_TABLE_BYTES,
    INPUT_PARAMETERS,
    _BaseAnDE,
    declare,
)
from ..parts import GaussianChildren
from ._common import (
    _WeightedAnDE,
    cell_log_weights,
    check_saved_weights,
    check_weight_vector,
    effective_order,
    kl_cell_weights,
    mutual_information,
    n_parent_cells,
    normalise,
)

SCHEMES = ("mi", "kl")


def check_scheme(weights, what="weights"):
    """Validate a weights parameter: None, "mi", "kl" or a 1-D array-like of numbers."""
    if weights is None or (isinstance(weights, str) and weights in SCHEMES):
        return
    if isinstance(weights, str):
        raise ValueError(f"{what}={weights!r}: use None, 'mi', 'kl' or an array with one "
                         "weight per parent combination")
    arr = np.asarray(weights)
    if arr.ndim != 1 or arr.dtype.kind not in "biuf" or not all(
            isinstance(v, numbers.Real) for v in arr.tolist()):
        raise ValueError(f"{what} must be None, 'mi', 'kl' or a 1-D array of numbers, got "
                         f"{weights!r}")


def information_weights(table, n, scheme, smoothing="m_estimate", m=1.0, min_count=1):
    """Weights of the sub-models of order n and the per-cell log weights for scoring.

    Parameters
    ----------
    table : FrequencyTable
    n : int
        Parent order (clamped to the attributes).
    scheme : "mi", "kl" or array-like
        "mi": w_s = I(X_s; Y) normalised; lower orders (used by rows that cascade) also get
        their mutual information.  "kl": per parent value, see the module docstring.  An
        array: one non-negative weight per combination of order n (normalised); lower
        orders uniform.

    Returns
    -------
    weights : ndarray
        "mi" / array: one weight per combination of order n, summing to 1.  "kl": the KL
        weight of every cell of the order-n blocks (unnormalised; 0 where unusable).
    cell_log_weights : ndarray
        Log weight of every cell of orders 0..n (see :mod:`seminaive.weighting._common`).
    """
    n = effective_order(table, n)
    if isinstance(scheme, str) and scheme == "mi":
        levels = {}
        with np.errstate(divide="ignore"):
            for level in range(1, n + 1):
                levels[level] = np.log(normalise(mutual_information(table, level)))
        return np.exp(levels[n]) if n else np.ones(1), cell_log_weights(table, n, levels)
    if isinstance(scheme, str) and scheme == "kl":
        cells = kl_cell_weights(table, n, smoothing, m, min_count)
        first = n_parent_cells(table, n - 1) if n else 0
        return np.exp(cells[first:]), cells
    n_par = table.n_combinations(n)
    weights = normalise(check_weight_vector(scheme, n_par, "weights"))
    with np.errstate(divide="ignore"):
        return weights, cell_log_weights(table, n, {n: np.log(weights)})


def restore_information_weights(table, n, scheme, saved, smoothing, m, min_count, owner):
    """Per-cell log weights from weights read from a model file (validated): order n from
    the file, lower orders recomputed from the counts as :func:`information_weights` does."""
    n = effective_order(table, n)
    expected, cells = information_weights(table, n, scheme, smoothing, m, min_count)
    if isinstance(scheme, str) and scheme == "kl":
        saved = np.asarray(saved, dtype=np.float64)
        if saved.shape != expected.shape or not np.all(np.isfinite(saved)) or np.any(
                saved < 0):
            raise ValueError(f"{owner} KL weights must be {expected.shape[0]} finite "
                             "non-negative values")
        first = n_parent_cells(table, n - 1) if n else 0
        with np.errstate(divide="ignore"):
            cells[first:] = np.where(np.isneginf(cells[first:]), -np.inf, np.log(saved))
        return saved, cells
    saved = check_saved_weights(saved, expected.shape[0], f"{owner} weights")
    first = n_parent_cells(table, n - 1) if n else 0
    per_cell = [table.n_cells_of(g) for g in table.combination_range(n)]
    with np.errstate(divide="ignore"):
        cells[first:] = np.repeat(np.log(saved), per_cell)
    return saved, cells


class _InformationWeighted(_WeightedAnDE):
    """Sub-models weighted by an information measure of their parents, or uniformly.

    The one implementation of ``weights=`` for :class:`seminaive.AnDE` (any n) and
    :class:`WAODE` (n = 1): ``weights=None`` is the plain, uniformly averaged AnDE.
    """

    def _check_params(self):
        super()._check_params()
        check_scheme(self.weights)  # the entries of an array of weights

    parts = (GaussianChildren(),)

    def _learn_from_counts(self, source):
        for attr in ("weights_", "_cell_log_weights_"):
            self.__dict__.pop(attr, None)
        if self.weights is not None:
            super()._learn_from_counts(source)

    def _learn_weights(self, source):
        self.weights_, cells = information_weights(self.table_, self._order(), self.weights,
                                                   self.smoothing, self.m, self.min_count)
        return cells

    def _scores(self, X):
        if self.weights is None:
            return _BaseAnDE._scores(self, X)
        return super()._scores(X)

    def _learned_state(self):
        if self.weights is None:
            return {}
        return super()._learned_state()

    def _set_learned_state(self, arrays):
        if self.weights is None:
            return _BaseAnDE._set_learned_state(self, arrays)
        unexpected = sorted(set(arrays) - {"weights"})
        if unexpected or "weights" not in arrays:
            raise ValueError(f"expected the learned array 'weights', got {sorted(arrays)}")
        self.weights_, self._cell_log_weights_ = restore_information_weights(
            self.table_, self._order(), self.weights, arrays["weights"], self.smoothing,
            self.m, self.min_count, type(self).__name__)


@fill_doc
class WAODE(_InformationWeighted):
    """Weighted AODE: one-dependence estimators weighted by mutual information or KL.

    WAODE-MI (Jiang & Zhang 2006): the ODE with super-parent X_i has weight I(X_i; Y);
    WAODE-KL: the ODE with super-parent value x_i has weight KL(P(Y | x_i) || P(Y)) (named
    by the SWAODE paper, Mathematics 2024, §5).  The class scores are

        P(y, x) ~ sum_i w_i P(y, x_i) prod_j P(x_j | y, x_i) / sum_i w_i

    over the qualifying super-parents (SWAODE paper, eq. 9).  ``WAODE(weights)`` is an
    alias of ``AnDE(n=1, weights=weights)``: the same implementation, with ``weights``
    restricted to the two information measures.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    weights_ : ndarray
        ``"mi"``: the normalised weight of each super-parent (order of
        ``parent_combinations_``).  ``"kl"``: the KL weight of every value of every
        super-parent (cells of the order-1 blocks, index 0 of each attribute = missing,
        weight 0).
    {fitted_attributes}

    See Also
    --------
    seminaive.AnDE : ``AnDE(n, weights="mi")`` generalises WAODE-MI to any n.
    seminaive.SWAODE : weighted ODEs with leave-one-out model selection.

    References
    ----------
    {jiang2006}

    {swaode2024}

    Examples
    --------
    >>> from seminaive import WAODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = WAODE("mi").fit(X, y)
    >>> model.weights_.shape
    (36,)
    >>> round(float(model.weights_.sum()), 6)
    1.0
    """

    n = 1
    _parameter_constraints = declare(INPUT_PARAMETERS, "numeric", "density",
                                     weights=[Choices(*SCHEMES)])
    _parameter_docs = {
        "weights": """
        weights : {"mi", "kl"}, default="mi"
            The information measure that weights each super-parent (``"mi"``) or super-parent
            value (``"kl"``).
        """,
    }

    def __init__(
        self,
        weights: Literal["mi", "kl"] = "mi",
        *,
        smoothing: Literal["m_estimate", "laplace"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
        numeric: Literal["discretize", "gaussian"] = "discretize",
        density: Literal["plugin", "student"] = "student",
    ) -> None:
        self.weights = weights
        self.smoothing = smoothing
        self.m = m
        self.min_count = min_count
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.max_table_bytes = max_table_bytes
        self.random_state = random_state
        self.numeric = numeric
        self.density = density

