"""Wrapper selection of parents and children for AODE: FSS and BSE (Chen et al. 2014, §2.4).

Hill climbing (as Chen et al. 2014, §2.4, review it): starting from a parent set p and a
child set c, every pass over the training data scores, by leave-one-out, all the models one
attribute move away (held-out counts subtracted analytically from the tables, never
refitted; one pass scores all the candidate moves at once) and applies the move that lowers
the loss most; the search stops when no move lowers it.  AODE with parent set p and child
set c (Chen et al. 2014, §2.4):

    P(y, x) ~ sum_{i in p, F(x_i) >= min_count} P(y, x_i) prod_{j in c, j != i}
              P(x_j | y, x_i) / |{i in p : F(x_i) >= min_count}|

with naive Bayes over c when no parent qualifies.

With ``numeric="gaussian"`` a numeric child's term is its Gaussian log density and a
numeric parent's joint is divided by its bin's width, as in :class:`seminaive.AnDE`, when
the parent is a child of the model too (then every sub-model holds its density; otherwise
no other sub-model models it and its bin keeps a probability, so that the model does not
depend on the units of a numeric column); the
leave-one-out pass removes the held-out row from the moments as from the counts and
recomputes the shrunk estimates along the whole chain (class-level, pooled and variance
floor included) and the bin widths, so every candidate's loss is that of refitting
without the row (:func:`seminaive.tables.gaussian.loo_estimates`).
"""

from typing import Literal

import numpy as np

from .._docs import fill_doc
from .._params import ArrayLike, Choices, RandomState, Transformer
from ..base import DEFAULT_MAX_TABLE_BYTES, INPUT_PARAMETERS, declare
from ..kernels.losses import argmin_first, mean_loss
from . import _structure as st
from ._base import _SelectionBase, gaussian_loo, set_structure

_BSE_MODES = ("pe", "ce", "p_and_ce", "p_or_ce")
_FSS_MODES = ("pa", "ca", "p_and_ca", "p_or_ca")

class _WrapperSelection(_SelectionBase):
    _modes = ()

    def _order(self):
        return 1

    def _start(self, a):
        raise NotImplementedError

    def _moves(self, parents, children):
        raise NotImplementedError

    def _select(self, source):
        table = self.table_
        a = table.n_attributes
        parents, children = self._start(a)
        gaussian = gaussian_loo(self, 1)
        path = []
        passes = 0
        while True:
            moves = self._moves(parents, children)
            candidates = [(-1, False, False)] + moves
            losses, total = st.wrapper_losses(table, source, parents, children, candidates,
                                              self.smoothing, self.m, self.min_count,
                                              self.loss, gaussian=gaussian)
            passes += 1
            if losses is None:
                break
            current = losses[0]
            if not path:
                path.append(current)
            best = argmin_first(losses[1:]) if moves else None
            if best is None:
                break
            tolerance = 1e-12 * max(abs(current), 1e-300)
            if not losses[1 + best] < current - tolerance:
                break
            q, as_parent, as_child = moves[best]
            parents[q], children[q] = as_parent, as_child
            path.append(losses[1 + best])
        if losses is None and hasattr(self, "n_"):
            return  # an empty chunk: keep the current selection
        total = total if losses is not None else 0.0
        self.loo_path_ = mean_loss(np.array(path, dtype=np.float64), total, self.loss)
        self.loo_loss_ = float(self.loo_path_[-1]) if path else float("nan")
        self.n_passes_ = passes
        set_structure(self, 1, np.flatnonzero(parents), np.flatnonzero(children), np.ones(a))

    def _learned_state(self):
        state = super()._learned_state()
        state["loo_path"] = self.loo_path_
        return state

    def _set_learned_state(self, arrays):
        arrays = dict(arrays)
        path = arrays.pop("loo_path", None)
        if path is None or path.ndim != 1 or path.dtype.kind != "f" or path.size == 0:
            raise ValueError("loo_path must be a non-empty 1-D float array")
        super()._set_learned_state(arrays)
        if self.n_ != 1:
            raise ValueError(f"{type(self).__name__} selects an AODE (order 1), the file "
                             f"holds order {self.n_}")
        self.loo_path_ = path
        self.loo_loss_ = float(path[-1]) if path.size else float("nan")


@fill_doc
class BSEAODE(_WrapperSelection):
    """AODE with backward sequential elimination of parents and children.

    Starts from AODE (every attribute a parent and a child) and repeatedly applies the
    elimination that most lowers the leave-one-out loss, until none lowers it, so the
    selected model's leave-one-out loss is never above AODE's (the attribute elimination
    reviewed by Chen et al. 2014, §2.4).  Every step scores all candidate moves in one pass
    over the training data, the held-out row's counts subtracted analytically.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {selection_attributes}
    {wrapper_attributes}
    {fitted_attributes}

    See Also
    --------
    FSSAODE : forward selection.
    ASAODE : selection over a nested space in one extra pass.

    Notes
    -----
    {partial_fit_kept}

    References
    ----------
    {chen2014}

    Examples
    --------
    >>> from seminaive import BSEAODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = BSEAODE().fit(X.iloc[::4, :12], y.iloc[::4])
    >>> bool(model.loo_path_[-1] <= model.loo_path_[0])
    True
    """

    _modes = _BSE_MODES
    _parameter_constraints = declare("loss", INPUT_PARAMETERS, "numeric", "density",
                                     mode=[Choices(*_modes)])
    _parameter_docs = {
        "mode": """
        mode : {"pe", "ce", "p_and_ce", "p_or_ce"}, default="ce"
            Parent elimination, child elimination (the BSE-AODE of Chen et al. 2014),
            elimination of an attribute in both roles, or the best of the three at every step.
        """,
        "loss": "loss_zero_one",
    }

    def __init__(
        self,
        mode: Literal["pe", "ce", "p_and_ce", "p_or_ce"] = "ce",
        *,
        loss: Literal["rmse", "zero_one", "log_loss"] = "zero_one",
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
        self.mode = mode
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

    def _start(self, a):
        return np.ones(a, dtype=bool), np.ones(a, dtype=bool)

    def _moves(self, parents, children):
        moves = []
        for q in range(parents.size):
            p, c = bool(parents[q]), bool(children[q])
            if self.mode in ("pe", "p_or_ce") and p:
                moves.append((q, False, c))
            if self.mode in ("ce", "p_or_ce") and c:
                moves.append((q, p, False))
            if self.mode in ("p_and_ce", "p_or_ce") and p and c:
                moves.append((q, False, False))
        return moves


@fill_doc
class FSSAODE(_WrapperSelection):
    """AODE with forward sequential selection of parents and children.

    Starts from the sets the mode searches empty (the others full) and repeatedly applies
    the addition that most lowers the leave-one-out loss, until none lowers it (the
    attribute selection reviewed by Chen et al. 2014, §2.4).  With no parent the model is
    naive Bayes over the children; with no child, the mean of the parents' P(y, x_i) (the
    class prior when both are empty).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {selection_attributes}
    {wrapper_attributes}
    {fitted_attributes}

    See Also
    --------
    BSEAODE : backward elimination.

    Notes
    -----
    {partial_fit_kept}

    References
    ----------
    {chen2014}

    Examples
    --------
    >>> from seminaive import FSSAODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = FSSAODE().fit(X.iloc[::4, :12], y.iloc[::4])
    >>> bool(set(model.children_) <= set(range(12)))
    True
    """

    _modes = _FSS_MODES
    _parameter_constraints = declare("loss", INPUT_PARAMETERS, "numeric", "density",
                                     mode=[Choices(*_modes)])
    _parameter_docs = {
        "mode": """
        mode : {"pa", "ca", "p_and_ca", "p_or_ca"}, default="p_and_ca"
            Parent addition (children: all), child addition (parents: all), addition of an
            attribute in both roles (classic forward attribute selection), or the best of the
            three at every step.
        """,
        "loss": "loss_zero_one",
    }

    def __init__(
        self,
        mode: Literal["pa", "ca", "p_and_ca", "p_or_ca"] = "p_and_ca",
        *,
        loss: Literal["rmse", "zero_one", "log_loss"] = "zero_one",
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
        self.mode = mode
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

    def _start(self, a):
        parents = np.full(a, self.mode == "ca")
        children = np.full(a, self.mode == "pa")
        return parents, children

    def _moves(self, parents, children):
        moves = []
        for q in range(parents.size):
            p, c = bool(parents[q]), bool(children[q])
            if self.mode in ("pa", "p_or_ca") and not p:
                moves.append((q, True, c))
            if self.mode in ("ca", "p_or_ca") and not c:
                moves.append((q, p, True))
            if self.mode in ("p_and_ca", "p_or_ca") and not p and not c:
                moves.append((q, True, True))
        return moves
