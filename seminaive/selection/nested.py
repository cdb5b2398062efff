"""Nested-space selection: selective AnDE, ASAODE (Chen et al. 2014), SAODE and SWAODE (the
SWAODE paper, 2024).

The attributes are ranked by mutual information with the class; model (r, s) uses the top-r
attributes as parents (for order n: every n-subset of them) and the top-s as children.  The
models are nested, so one extra pass over the training data, with the held-out row's counts
subtracted analytically (incremental leave-one-out), scores all of them; the model of lowest
leave-one-out loss is kept (Chen et al. 2014, Algorithm 1; the SWAODE paper, Algorithm 2).

With ``numeric="gaussian"`` a numeric child's term is its Gaussian log density and a
numeric parent's joint is divided by its bin's width, as in :class:`seminaive.AnDE`, when
the parent is a child of the model too (then every sub-model holds its density; otherwise
no other sub-model models it and its bin keeps a probability, so that the model does not
depend on the units of a numeric column); the
leave-one-out pass removes the held-out row from the moments as from the counts and
recomputes the shrunk estimates along the whole chain (class-level, pooled and variance
floor included) and the bin widths, so every candidate's loss is that of refitting
without the row (:func:`seminaive.tables.gaussian.loo_estimates`).

One implementation serves all four classes: :class:`ASAODE` is ``SelectiveAnDE(n=1)``,
:class:`SAODE` is ASAODE under the name the SWAODE paper gives it, and :class:`SWAODE` adds
the mutual-information weight of every super-parent.
"""

import numbers
from typing import Literal

import numpy as np

from .._docs import fill_doc
from .._params import ArrayLike, Interval, RandomState, Transformer
from ..base import DEFAULT_MAX_TABLE_BYTES, INPUT_PARAMETERS, declare
from ._base import _SelectionBase, fit_nested


@fill_doc
class SelectiveAnDE(_SelectionBase):
    """Selective AnDE: nested parent-combination x child selection for any order n.

    Extends ASAODE (Chen et al. 2014, §3) to parent order n: model (r, s) averages, over the
    n-subsets s of the top-r attributes (ranked by mutual information with the class), the
    sub-models P(y, x_s) prod_{c in top s, c not in s} P(x_c | y, x_s); a row in which no
    n-subset qualifies cascades to order n - 1 over the same r and s, down to naive Bayes
    over the top-s children.  Combinations are visited in the order of their lowest-ranked
    member, so the (r, s) models are nested and one extra pass evaluates them all by
    incremental leave-one-out (per row: O(k C(a, n) a)).  ``SelectiveAnDE(n=1)`` is
    :class:`ASAODE`.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {selection_attributes}
    {nested_attributes}
    {fitted_attributes}

    See Also
    --------
    ASAODE : the same with n = 1.
    seminaive.AnDE : ``AnDE(n="auto")`` chooses n as well, over one nested space.

    Notes
    -----
    {partial_fit_kept}

    References
    ----------
    {chen2014}

    {webb2012}

    Examples
    --------
    >>> from seminaive import SelectiveAnDE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = SelectiveAnDE(n=2).fit(X.iloc[::4, :12], y.iloc[::4])
    >>> model.n_
    2
    >>> bool(0 < model.n_children_ <= 12)
    True
    """

    _nested = True
    _parameter_constraints = declare(
        "loss", INPUT_PARAMETERS, "numeric", "density",
        n=[Interval(numbers.Integral, 0, None, closed="left")])
    _parameter_docs = {
        "n": """
        n : int, default=2
            Parent order (clamped to the number of attributes).
        """,
    }

    def __init__(
        self,
        n: int = 2,
        *,
        loss: Literal["rmse", "zero_one", "log_loss"] = "rmse",
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
        self.n = n
        self.loss = loss
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

    def _order(self):
        return self.n

    def _parent_weights(self, mutual_information):
        """Weight of every attribute as a parent (uniform)."""
        return np.ones_like(mutual_information)

    def _select(self, source):
        n = self._order()
        fit_nested(self, source, n, [n], self.loss, self._parent_weights)


@fill_doc
class ASAODE(SelectiveAnDE):
    """Attribute-selective AODE: ``SelectiveAnDE(n=1)`` under its published name.

    Attributes are ranked by mutual information with the class (Chen et al. 2014, §3.1);
    the a^2 models with the top-r attributes as parents and the top-s as children (§3.2),

        P(y, x) ~ sum_{i <= r, F(x_i) >= min_count} P(y, x_i) prod_{j <= s, j != i}
                  P(x_j | y, x_i) / #{i <= r : F(x_i) >= min_count}

    (naive Bayes over the top-s children when no parent qualifies), are all scored by
    incremental leave-one-out in one extra pass (§3.3, Algorithm 1, O(t k a^2)); the model
    of lowest leave-one-out loss is kept.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {selection_attributes}
    {nested_attributes}
    {fitted_attributes}

    See Also
    --------
    SelectiveAnDE : the same for any parent order n.
    SAODE : an alias of ASAODE.

    Notes
    -----
    {partial_fit_kept}

    References
    ----------
    {chen2014}

    Examples
    --------
    >>> from seminaive import ASAODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = ASAODE().fit(X.iloc[::2], y.iloc[::2])
    >>> model.n_
    1
    >>> bool(model.loo_loss_[1, model.n_parents_, model.n_children_] > 0)
    True
    """

    n = 1
    _parameter_constraints = declare("loss", INPUT_PARAMETERS, "numeric", "density")

    def __init__(
        self,
        *,
        loss: Literal["rmse", "zero_one", "log_loss"] = "rmse",
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
        self.loss = loss
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


@fill_doc
class SAODE(ASAODE):
    """Model-selection-based AODE: an alias of :class:`ASAODE`.

    SAODE is ASAODE under the name the SWAODE paper gives it; ``min_count`` is that paper's
    super-parent frequency threshold.  The SWAODE paper (2024, §3.2, eq. 6) describes the
    procedure of ASAODE again: top-r parents by mutual information (its eq. 8), top-s
    children, a super-parent value used only when its training frequency reaches the
    threshold, and leave-one-out selection.  ``SAODE`` adds no code of its own (the class
    only carries the name, kept for the experiments that compare SAODE and SWAODE and for
    model files); fitting it and fitting ASAODE with the same parameters give the same
    model.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {selection_attributes}
    {nested_attributes}
    {fitted_attributes}

    See Also
    --------
    ASAODE : the same learner.
    SWAODE : adds mutual-information weights to the super-parents.

    Notes
    -----
    {partial_fit_kept}

    References
    ----------
    {swaode2024}

    {chen2014}

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive import ASAODE, SAODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> X, y = X.iloc[::4], y.iloc[::4]
    >>> same = SAODE().fit(X, y).predict_proba(X) == ASAODE().fit(X, y).predict_proba(X)
    >>> bool(np.all(same))
    True
    """


@fill_doc
class SWAODE(ASAODE):
    """Model-selection-based weighted AODE.

    Every one-dependence estimator is weighted by the mutual information of its super-parent
    with the class (the SWAODE paper, 2024, eq. 8); the nested space of the top-r parents x
    top-s children is scored by leave-one-out (eq. 9:
    P(y, x) ~ sum_i W_i P(y, x_i) prod_j P(x_j | y, x_i) / sum_i W_i over the qualifying
    parents among the top r), and the model of lowest loss is kept (Algorithm 2).  The
    weights and the ranking come from all the training data (Algorithm 2, steps 2-3) and
    are not recomputed per held-out row.  A parent of weight 0 never contributes; a row
    whose qualifying parents all weigh 0 falls back to naive Bayes over the top-s children.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {selection_attributes}
    {nested_attributes}
    {fitted_attributes}

    See Also
    --------
    ASAODE : the same selection without weights.
    seminaive.WAODE : the same weights without selection.

    Notes
    -----
    {partial_fit_kept}

    References
    ----------
    {swaode2024}

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive import SWAODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = SWAODE().fit(X.iloc[::2], y.iloc[::2])
    >>> bool(np.allclose(model.parent_weights_, model.mutual_information_))
    True
    """

    def _parent_weights(self, mutual_information):
        """W_i = I(X_i; Y) (the SWAODE paper, eq. 8)."""
        return mutual_information.copy()
