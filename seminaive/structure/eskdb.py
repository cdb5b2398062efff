"""Ensemble of selective KDBs with hierarchical Dirichlet process estimates (ESKDB; Zhang,
Petitjean & Buntine 2020).

Every member is a :class:`~seminaive.structure.SKDB` on its own attribute order: the first
member ranks the attributes by decreasing I(X_i; Y), as SKDB does; every other member draws
its order by sampling the attributes without replacement with probability proportional to
I(X_i; Y) (an order already drawn is drawn again, up to 100 times).  Each member chooses its
candidate parents among the attributes before it in its order (by decreasing
I(X_i; X_j | Y)), selects k and the number of attributes by leave-one-out, and estimates its
tables by the HDP (``smoothing="hdp"``).  The ensemble averages the members' class
probabilities.

Passes over the data, shared by every member: one for the class, attribute and pair counts
(mutual and conditional mutual information), one for the union of the members' families
(each family counted once) and one for every member's leave-one-out losses.
"""

import operator
import warnings

import numpy as np
from scipy.special import logsumexp
from sklearn.utils import check_random_state

from .._docs import fill_doc
from ..base import DEFAULT_MAX_TABLE_BYTES, assign_params
from ..tables import CombinationTable
from ._common import PairStatistics, _StructureBase
from .skdb import SKDB

#: tries to draw an order different from those already drawn
_ORDER_TRIES = 100


def sample_orders(mi, n_orders, rng):
    """``n_orders`` attribute orders: the first by decreasing ``mi`` (ties by index), the
    others drawn without replacement with probability proportional to ``mi`` (attributes of
    zero mutual information last, in index order); distinct while that is possible."""
    mi = np.maximum(np.asarray(mi, dtype=np.float64), 0.0)
    a = mi.size
    orders = [np.argsort(-mi, kind="stable").astype(np.int64)]
    seen = {tuple(orders[0])}
    while len(orders) < n_orders:
        for _ in range(_ORDER_TRIES):
            weights = mi.copy()
            order = []
            for _ in range(a):
                total = weights.sum()
                if total <= 0:
                    break
                i = int(rng.choice(a, p=weights / total))
                order.append(i)
                weights[i] = 0.0
            order += [i for i in range(a) if i not in order]
            if tuple(order) not in seen:
                break
        seen.add(tuple(order))
        orders.append(np.asarray(order, dtype=np.int64))
    return orders


class _Member(SKDB):
    """A member of the ensemble: SKDB on a given attribute order, sharing the ensemble's
    encoder and pair counts (never fitted on its own)."""

    _order_given = None

    def _attribute_order(self, stats):
        return self._order_given

    def loo_size(self):
        """Length of the flat array its leave-one-out pass returns per chunk."""
        return (int(self.k) + 1) * (self.table_.n_attributes + 1) + 1


@fill_doc
class ESKDB(_StructureBase):
    """Ensemble of selective KDBs with hierarchical Dirichlet process estimates.

    ``n_estimators`` selective KDBs (:class:`SKDB`, k <= ``k``), each on its own attribute
    order (the first by decreasing mutual information with the class, the others drawn with
    probability proportional to it), each estimating its tables by the HDP of Petitjean et
    al. (2018); the ensemble averages their class probabilities (Zhang, Petitjean & Buntine
    2020).  The members share three passes over the data: the class, attribute and pair
    counts, the union of their families, and their leave-one-out losses.

    The members share one discretisation (the ``discretizer`` fitted once); the randomised
    discretisation Zhang et al. (2020) describe for numeric data is not reproduced (their
    public code takes discretised data).  With ``smoothing="m_estimate"`` the members are
    plain SKDBs on perturbed orders.

    :meth:`partial_fit` chooses the members' orders, candidates and models on the first
    chunk and keeps them for later chunks, whose rows every member counts into its families
    (no row is dropped; the HDP estimates are sampled again on all the counts); a warning
    says that :meth:`fit` on all the rows may choose differently.

    Parameters
    ----------
    n_estimators : int, default=5
        Number of selective KDBs (the reference implementation's default).
    k : int, default=5
        Largest number of attribute parents of every member, K.
    {loss_rmse}
    smoothing : {"hdp", "m_estimate", "laplace"}, default="hdp"
        How the members estimate their tables (see :class:`KDB`); the leave-one-out
        selection always uses m-estimates, as in Zhang et al. (2020).
    m : float, default=1.0
        The m of m-estimation (the selection, P(y), and ``smoothing="m_estimate"``).
    {structure_min_count}
    {discretizer}
    {n_bins}
    {structure_missing}
    {categorical_features}
    {max_table_bytes}
    {random_state}
    {hdp_parameters}

    Attributes
    ----------
    estimators_ : list of SKDB
        The members, sharing ``encoder_`` and ``table_``.
    orders_ : ndarray of shape (n_estimators, n_features)
        The attribute order of every member.
    {mutual_info_}
    {conditional_mutual_info_}
    {fitted_attributes}

    See Also
    --------
    SKDB : one selective KDB.

    References
    ----------
    {zhang2020}

    {petitjean2018}

    {martinez2016}

    Examples
    --------
    >>> from seminaive import ESKDB
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = ESKDB(n_estimators=3, k=2, n_iter=100, random_state=0).fit(X, y)
    >>> len(model.estimators_), model.orders_.shape
    (3, (3, 36))
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    def __init__(self, n_estimators=5, k=5, *, loss="rmse", smoothing="hdp", m=1.0,
                 min_count=1, discretizer="mdl", n_bins=3, missing="ignore",
                 categorical_features="auto", max_table_bytes=DEFAULT_MAX_TABLE_BYTES,
                 random_state=None, n_iter=1000, burn_in=None, tying="level"):
        assign_params(self, locals())

    def _supports_hdp(self):
        return True

    def _check_params(self):
        n = self.n_estimators
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n_estimators must be a positive integer, got {n!r}")
        if isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)) or self.k < 0:
            raise ValueError(f"k must be a non-negative integer, got {self.k!r}")
        super()._check_params()
        self._member(0).set_params(random_state=0)._check_params()

    def _reset_learned(self):
        super()._reset_learned()
        self.__dict__.pop("estimators_", None)

    def _member(self, seed, order=None):
        member = _Member(k=int(self.k), loss=self.loss, select="both", smoothing=self.smoothing,
                         m=self.m, min_count=self.min_count, discretizer=self.discretizer,
                         n_bins=self.n_bins, missing=self.missing,
                         categorical_features=self.categorical_features,
                         max_table_bytes=self.max_table_bytes, random_state=seed,
                         n_iter=self.n_iter, burn_in=self.burn_in, tying=self.tying)
        member._order_given = order
        return member

    def _share(self, member):
        """Give ``member`` the ensemble's encoder, counts and fitted input attributes."""
        for name in ("encoder_", "table_", "classes_", "n_features_in_", "feature_names_in_"):
            if hasattr(self, name):
                setattr(member, name, getattr(self, name))
        return member

    def _learn_from_counts(self, source):
        stats = PairStatistics(self.table_)
        self.mutual_info_ = stats.mi
        self.conditional_mutual_info_ = stats.cmi
        if self._keeps_choice("estimators_"):
            # the members keep their orders, candidates and selections; their families and
            # moments take this chunk
            self._warn_choice_kept("members' attribute orders, candidates and selections")
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", r".*partial_fit keeps", UserWarning)
                for member in self.estimators_:
                    self._share(member)._learn_from_counts(source)
            return
        rng = check_random_state(self.random_state)
        orders = sample_orders(stats.mi, int(self.n_estimators), rng)
        seeds = rng.randint(0, 2 ** 31 - 1, size=len(orders))
        members = [self._member(int(s), o) for s, o in zip(seeds, orders, strict=True)]
        for member in members:
            self._share(member)
        self._count_shared_families(members, stats, source)
        passes = [member._selection_pass(source) for member in members]
        sizes = []

        def loo(codes, y, w, values=None):
            parts = [fn(codes, y, w, values) for fn, _ in passes]
            sizes[:] = [part.size for part in parts]
            return np.concatenate(parts)

        summed = source.map_reduce(loo)
        start = 0
        for (_, finish), member in zip(passes, members, strict=True):
            if summed is None:
                finish(None)
                continue
            size = member.loo_size()
            finish(summed[start:start + size])
            start += size
        for member in members:
            member._mark_choice()
        self.estimators_ = members
        self._mark_choice()
        self.orders_ = np.array([m._order_given for m in members], dtype=np.int64)

    def _count_shared_families(self, members, stats, source):
        """Count every member's prefix families in one pass (their union, each counted
        once) and hand each member its blocks."""
        union, seen = [], set()
        for member in members:
            for family in member._plan(stats)[2]:
                if family not in seen:
                    seen.add(family)
                    union.append(family)
        if not union:
            return
        n_values, k = self.table_.sizes - 1, self.table_.n_classes
        shared = CombinationTable(union, n_values, k, members[0]._families_budget())

        def count(codes, y, w):
            return CombinationTable(union, n_values, k).add(codes, y, w).counts

        counted = source.map_reduce(count, operator.add)
        if counted is not None:
            shared.counts += counted
        for member in members:
            member._counted_families = shared

    def _scores(self, X):
        codes = self._storage_codes(X)
        log_probs = []
        for member in self.estimators_:
            s = member._scores(X, codes)
            log_probs.append(s - logsumexp(s, axis=1, keepdims=True))
        return logsumexp(np.stack(log_probs), axis=0) - np.log(len(log_probs))

    def _learned_state(self):
        state = {"orders": self.orders_}
        for j, member in enumerate(self.estimators_):
            state.update({f"m{j}_{key}": value
                          for key, value in member._learned_state().items()})
        return state

    def _set_learned_state(self, arrays):
        if "orders" not in arrays:
            raise ValueError("the members' attribute orders are missing")
        orders = np.asarray(arrays["orders"])
        a = self.table_.n_attributes
        if (orders.dtype.kind not in "iu" or orders.shape != (int(self.n_estimators), a)
                or any(sorted(row.tolist()) != list(range(a)) for row in orders)):
            raise ValueError("orders must hold one permutation of the attributes per member")
        known = {"orders"} | {key for key in arrays
                              if key.split("_", 1)[0] in {f"m{j}" for j in range(len(orders))}}
        if set(arrays) != known:
            raise ValueError(f"unexpected learned arrays {sorted(set(arrays) - known)}")
        stats = PairStatistics(self.table_)
        self.mutual_info_ = stats.mi
        self.conditional_mutual_info_ = stats.cmi
        members = []
        for j, order in enumerate(orders):
            member = self._share(self._member(0, order.astype(np.int64)))
            prefix = f"m{j}_"
            member._set_learned_state({key[len(prefix):]: value for key, value in arrays.items()
                                       if key.startswith(prefix)})
            members.append(member)
        self.estimators_ = members
        self.orders_ = orders.astype(np.int64)
