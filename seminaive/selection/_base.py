"""Shared estimator code of the selection learners (and of ``AnDE(n="auto")``).

A fitted selection learner holds its structure in ``n_`` (parent order), ``parents_`` and
``children_`` (attribute indices) and ``parent_weights_`` (one per attribute); prediction
scores it with :func:`._structure.structure_scores`, model files store it through
:func:`structure_state` / :func:`set_structure_state`.
"""

import numpy as np

from ..base import _BaseAnDE
from ..kernels.losses import argmin_first, mean_loss
from ..parts import GaussianChildren
from . import _structure as st

_STRUCTURE_ARRAYS = ("order", "parents", "children", "parent_weights")
_NESTED_ARRAYS = ("ranking", "mutual_information", "selected", "loo_loss")


def set_structure(est, order, parents, children, weights):
    est.n_ = int(order)
    est.parents_ = np.sort(np.asarray(parents, dtype=np.int64))
    est.children_ = np.sort(np.asarray(children, dtype=np.int64))
    est.parent_weights_ = np.asarray(weights, dtype=np.float64)


def gaussian_inputs(est, X):
    """The :class:`._structure.GaussianInputs` of rows X (None without Gaussian children)."""
    if not est.needs_values():
        return None
    part = est._part(GaussianChildren)
    return st.GaussianInputs(est.encoder_.numeric_values(X, type(est).__name__),
                             part.loo(est, 0).gaussian, part.missing_codes(est),
                             part.bin_log_widths(est), part.kappa(est),
                             part.density(est) == "student")


def gaussian_loo(est, n_max):
    """The Gaussian leave-one-out context of the selection passes (None without Gaussian
    children)."""
    return est._part(GaussianChildren).loo(est, n_max) if est.needs_values() else None


def structure_scores(est, X):
    codes = est._storage_codes(X)
    return st.structure_scores(est.table_, codes, est.n_, est.parents_, est.children_,
                               est.parent_weights_, est.smoothing, est.m, est.min_count,
                               gaussian_inputs(est, X))


def structure_state(est):
    state = {"order": np.array([est.n_], dtype=np.int64), "parents": est.parents_,
             "children": est.children_, "parent_weights": est.parent_weights_}
    if hasattr(est, "ranking_"):
        state.update(ranking=est.ranking_, mutual_information=est.mutual_information_,
                     selected=np.array([est.n_, est.n_parents_, est.n_children_],
                                       dtype=np.int64),
                     loo_loss=est.loo_loss_)
    return state


def set_structure_state(est, arrays, nested_required):
    """Restore (and validate against ``est.table_``) what :func:`structure_state` wrote;
    with ``nested_required`` the nested-selection arrays (ranking, ...) must be there."""
    arrays = dict(arrays)
    missing = [name for name in _STRUCTURE_ARRAYS if name not in arrays]
    if missing:
        raise ValueError(f"learned arrays {missing} are missing")
    order, parents, children, weights = (arrays.pop(name) for name in _STRUCTURE_ARRAYS)
    st.check_structure(est.table_, order, parents, children, weights)
    nested = {name: arrays.pop(name) for name in _NESTED_ARRAYS if name in arrays}
    if arrays:
        raise ValueError(f"unexpected learned arrays {sorted(arrays)}")
    if nested or nested_required:
        if len(nested) != len(_NESTED_ARRAYS):
            raise ValueError("the nested-selection arrays are missing or incomplete")
        a = est.table_.n_attributes
        ranking, selected = nested["ranking"], nested["selected"]
        if ranking.dtype.kind not in "iu" or not np.array_equal(np.sort(ranking), np.arange(a)):
            raise ValueError("ranking is not a permutation of the attributes")
        if selected.shape != (3,) or selected.dtype.kind not in "iu":
            raise ValueError("bad selected (n, r, s)")
        n, r, s = (int(v) for v in selected)
        if (n != int(order[0]) or not 0 <= r <= a or not 0 <= s <= a
                or not np.array_equal(np.sort(ranking[:r]), np.sort(parents))
                or not np.array_equal(np.sort(ranking[:s]), np.sort(children))):
            raise ValueError("the selected (n, r, s) does not match the parents and children")
        mi, loo = nested["mutual_information"], nested["loo_loss"]
        if mi.shape != (a,) or mi.dtype.kind != "f" or not np.all(mi >= 0):
            raise ValueError("mutual_information must hold one float >= 0 per attribute")
        if (loo.ndim != 3 or loo.shape[0] < n + 1 or loo.shape[1:] != (a + 1, a + 1)
                or loo.dtype.kind != "f"):
            raise ValueError("loo_loss has the wrong shape")
        est.ranking_ = ranking.astype(np.int64)
        est.mutual_information_ = mi
        est.n_parents_, est.n_children_ = r, s
        est.loo_loss_ = loo
    set_structure(est, order[0], parents, children, weights)


def fit_nested(est, source, n_max, levels, loss, parent_weights=None, one_se_order=False):
    """Nested selection (Chen et al. 2014, §3, the SWAODE paper (2024), §3.2 / §4.2) over parent
    orders ``levels``.

    Ranks the attributes by mutual information with the class, computes in one pass over
    ``source`` the leave-one-out loss of every model (L, r, s) with L <= n_max, and keeps the
    one of lowest loss among L in ``levels`` and 1 <= s (ties: lowest L, then r, then s).
    ``parent_weights(mi)`` gives the parents' weights from the mutual information (default:
    all 1; SWAODE: the mutual information itself).

    With ``one_se_order`` the order is chosen first by the one-standard-error rule (Breiman
    et al. 1984): the lowest L whose best model's mean loss is within one standard error of
    the overall best model's (the standard error of that model's mean per-row loss); then
    (r, s) is the best model of that order.  Choosing among many more models of higher order
    otherwise favours them by chance on small samples.
    """
    table = est.table_
    a = table.n_attributes
    mi = st.mutual_information(table)
    ranking = st.rank_attributes(mi)
    weights = np.ones(a) if parent_weights is None else np.asarray(parent_weights(mi), float)
    n_max = min(n_max, a)
    losses, squared, total = st.nested_losses(table, source, ranking, n_max, weights,
                                              est.smoothing, est.m, est.min_count, loss,
                                              squares=True, gaussian=gaussian_loo(est, n_max))
    levels = sorted({min(level, a) for level in levels})
    level, r, s = levels[-1], a, a
    if losses is None:
        if hasattr(est, "n_") and hasattr(est, "ranking_"):
            return  # an empty chunk: keep the current selection
        losses = np.full((n_max + 1, a + 1, a + 1), np.nan)
    else:
        candidates = np.full_like(losses, np.inf)
        for lv in levels:
            candidates[lv, :, 1:] = losses[lv, :, 1:]
        candidates[~np.isfinite(candidates)] = np.inf
        best = argmin_first(candidates)
        if best is not None:
            level, r, s = np.unravel_index(best, candidates.shape)
            if one_se_order and total > 0:
                mean = losses[level, r, s] / total
                se = np.sqrt(max(squared[level, r, s] / total - mean ** 2, 0.0) / total)
                for lv in levels:
                    if lv < level and candidates[lv].min() / total <= mean + se:
                        r, s = np.unravel_index(argmin_first(candidates[lv]),
                                                candidates[lv].shape)
                        level = lv
                        break
    level, r, s = int(level), int(r), int(s)
    if level == 0:
        r = 0
    est.mutual_information_ = mi
    est.ranking_ = ranking
    est.loo_loss_ = mean_loss(losses, total, loss)
    est.n_parents_, est.n_children_ = r, s
    set_structure(est, level, ranking[:r], ranking[:s], weights)


class _SelectionBase(_BaseAnDE):
    """Base of learners that score a selected structure (no ``aggregate``: joint mean)."""

    aggregate = "joint"
    _nested = False  # ranking_, loo_loss_... saved with the structure

    parts = (GaussianChildren(),)

    def _learn_from_counts(self, source):
        if self._keeps_choice("parents_"):
            self._warn_choice_kept("selected parents and children")
            return
        self._select(source)
        self._mark_choice()

    def _select(self, source):
        """Choose the structure by leave-one-out over ``source`` (sets ``n_``, ``parents_``,
        ``children_``, ``parent_weights_``...)."""
        raise NotImplementedError

    def _scores(self, X):
        return structure_scores(self, X)

    def _learned_state(self):
        return structure_state(self)

    def _set_learned_state(self, arrays):
        set_structure_state(self, arrays, self._nested)
