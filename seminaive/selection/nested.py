"""Nested-space selection: ASAODE (seed 002), SAODE / SWAODE (seed 004), selective AnDE.

The attributes are ranked by mutual information with the class; model (r, s) uses the top-r
attributes as parents (for order n: every n-subset of them) and the top-s as children.  The
models are nested, so one extra pass over the training data, with the held-out row's counts
subtracted analytically (incremental leave-one-out), scores all of them; the model of lowest
leave-one-out loss is kept (seed 002 Algorithm 1, seed 004 Algorithm 2).
"""

import numbers

import numpy as np

from ..base import _COMMON_DOC, DEFAULT_MAX_TABLE_BYTES, assign_params
from ._base import (
    _NESTED_ATTRIBUTES_DOC,
    _STRUCTURE_ATTRIBUTES_DOC,
    _SelectionBase,
    fit_nested,
    loss_doc,
)

_COMMON = _COMMON_DOC.replace("""    aggregate : {"joint", "posterior", "vote"}, default="joint"
        Mean of the sub-models' joint estimates (AnDE), of their posteriors (PAnDE), or the
        fraction of sub-models voting for each class (FAnDE, Feating; seed 000 §4.4).
""", "")


class _NestedSelection(_SelectionBase):
    _nested = True

    def _order(self):
        return 1

    def _parent_weights(self, mutual_information):
        """Weight of every attribute as a parent (uniform)."""
        return np.ones_like(mutual_information)

    def _learn_from_counts(self, source):
        n = self._order()
        fit_nested(self, source, n, [n], self.loss, self._parent_weights)


class SelectiveAnDE(_NestedSelection):
    __doc__ = """Selective AnDE: nested parent-combination x child selection for any order n.

    Extends ASAODE (seed 002 §3) to parent order n: model (r, s) averages, over the n-subsets
    of the top-r attributes (ranked by mutual information with the class), the sub-models
    P(y, x_s) prod_{c in top s, c not in s} P(x_c | y, x_s); a row in which no n-subset
    qualifies cascades to order n - 1 over the same r and s, down to naive Bayes over the
    top-s children.  Combinations are visited in the order of their lowest-ranked member, so
    the (r, s) models are nested and one extra pass evaluates them all (per row:
    O(k C(a, n) a)).  ``SelectiveAnDE(n=1)`` is :class:`ASAODE`.

    Parameters
    ----------
    n : int, default=2
        Parent order (clamped to the number of attributes).""" + \
        loss_doc("rmse") + _COMMON + """
    Attributes
    ----------""" + _STRUCTURE_ATTRIBUTES_DOC + _NESTED_ATTRIBUTES_DOC

    def __init__(self, n=2, *, loss="rmse", smoothing="m_estimate", m=1.0, min_count=1,
                 discretizer="mdl", n_bins=3, missing="ignore", categorical_features="auto",
                 max_table_bytes=DEFAULT_MAX_TABLE_BYTES, random_state=None):
        assign_params(self, locals())

    def _order(self):
        return self.n

    def _check_params(self):
        if not isinstance(self.n, numbers.Integral) or isinstance(self.n, bool) or self.n < 0:
            raise ValueError(f"n must be a non-negative integer, got {self.n!r}")
        super()._check_params()


class ASAODE(_NestedSelection):
    __doc__ = """Attribute-selective AODE (Chen, Martinez, Webb & Wang 2014; seed 002 §3).

    Attributes ranked by mutual information with the class (§3.1); the a^2 models with the
    top-r attributes as parents and the top-s as children (§3.2),

        P(y, x) ~ sum_{i <= r, F(x_i) >= min_count} P(y, x_i) prod_{j <= s, j != i}
                  P(x_j | y, x_i) / |{i <= r : F(x_i) >= min_count}|

    (naive Bayes over the top-s children when no parent qualifies), all scored by
    incremental leave-one-out in one extra pass (§3.3, Algorithm 1, O(t k a^2)); the model of
    lowest leave-one-out loss is kept.

    Parameters
    ----------""" + loss_doc("rmse") + \
        _COMMON + """
    Attributes
    ----------""" + _STRUCTURE_ATTRIBUTES_DOC + _NESTED_ATTRIBUTES_DOC

    def __init__(self, *, loss="rmse", smoothing="m_estimate", m=1.0, min_count=1,
                 discretizer="mdl", n_bins=3, missing="ignore", categorical_features="auto",
                 max_table_bytes=DEFAULT_MAX_TABLE_BYTES, random_state=None):
        assign_params(self, locals())


class SAODE(ASAODE):
    __doc__ = """Model-selection-based AODE (seed 004 §3.2).

    The same procedure as :class:`ASAODE` in seed 004's formulation (eq 6): top-r parents
    by mutual information (eq 8), top-s children, a super-parent value used only when its
    training frequency reaches the threshold (``min_count``), leave-one-out RMSE selection.
    It is kept as its own class for the experiments that compare SAODE and SWAODE.

    Parameters
    ----------""" + loss_doc("rmse") + \
        _COMMON.replace("min_count : float, default=1\n",
                        "min_count : float, default=1\n        The super-parent frequency "
                        "threshold of seed 004 eq 6.\n", 1) + """
    Attributes
    ----------""" + _STRUCTURE_ATTRIBUTES_DOC + _NESTED_ATTRIBUTES_DOC


class SWAODE(ASAODE):
    __doc__ = """Model-selection-based weighted AODE (seed 004 §4, Algorithm 2).

    Every one-dependence estimator is weighted by the mutual information of its super-parent
    with the class (eq 8), the nested space of the top-r parents x top-s children is scored
    by leave-one-out (eq 9: P(y, x) ~ sum_i W_i P(y, x_i) prod_j P(x_j | y, x_i) / sum_i W_i
    over the qualifying parents among the top r), and the model of lowest loss is kept.  The
    weights and the ranking come from all the training data (Algorithm 2, steps 2-3) and are
    not recomputed per held-out row.  A parent of weight 0 never contributes; a row whose
    qualifying parents all weigh 0 falls back to naive Bayes over the top-s children.

    Parameters
    ----------""" + loss_doc("rmse") + \
        _COMMON + """
    Attributes
    ----------""" + _STRUCTURE_ATTRIBUTES_DOC + _NESTED_ATTRIBUTES_DOC

    def _parent_weights(self, mutual_information):
        """W_i = I(X_i; Y) (seed 004 eq 8)."""
        return mutual_information.copy()
