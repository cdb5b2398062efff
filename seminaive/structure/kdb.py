"""k-dependence Bayesian classifier, KDB(k) (Sahami 1996).

Attributes are ranked by mutual information with the class I(X_i; Y); each attribute takes
as parents the (up to) k higher-ranked attributes with the highest conditional mutual
information I(X_i; X_j | Y) (Sahami's algorithm without the optional CMI threshold, as in
the KDB of the SWAODE paper, Mathematics 2024).  k = 0 is naive Bayes.

Counting: the pair tables (``_table_order() = 2``) give MI and CMI; the families (x_i, pa_i, y)
with two or more parents are counted in a second pass over the training data
(``source.map_reduce``) into a :class:`~seminaive.tables.CombinationTable`; families with one
parent are read from the pair tables.
"""

import operator

import numpy as np

from .._docs import fill_doc
from ..base import DEFAULT_MAX_TABLE_BYTES, assign_params
from ..tables import CombinationTable, estimate_table_bytes
from ._common import PairStatistics, _FamilyLearner


def ranked_candidates(mi, cmi, k, order=None):
    """Candidate parents (a, max(k, 1)) of every attribute, most conditionally informative
    first (-1 padding), and the ranking.

    Ranking: decreasing I(X_i; Y), ties by attribute index (or ``order``, a permutation of the
    attributes, when given).  Candidates of the attribute at rank r: the min(k, r) attributes
    of rank < r by decreasing I(X_i; X_j | Y), ties by rank, so that the first j candidates
    are KDB(j)'s parents for every j <= k.
    """
    a = len(mi)
    if order is None:
        order = np.argsort(-np.asarray(mi), kind="stable")
    order = np.asarray(order, dtype=np.int64)
    candidates = np.full((a, max(k, 1)), -1, dtype=np.int64)
    for rank, i in enumerate(order):
        higher = order[:rank]
        best = higher[np.argsort(-cmi[i, higher], kind="stable")[:k]]
        candidates[i, :best.size] = best
    return candidates, order


def kdb_parents(mi, cmi, k):
    """Parents (a, max(k, 1)) of KDB(k), ascending per row, -1 padding; and the ranking
    (see :func:`ranked_candidates`)."""
    candidates, order = ranked_candidates(mi, cmi, k)
    parents = np.full_like(candidates, -1)
    for i, row in enumerate(candidates):
        chosen = np.sort(row[row >= 0])
        parents[i, :chosen.size] = chosen
    return parents, order


@fill_doc
class KDB(_FamilyLearner):
    """k-dependence Bayesian classifier: each attribute has up to k attribute parents.

    Classifies by argmax_y P(y) prod_i P(x_i | y, x_pa(i)), where pa(i) holds up to ``k``
    attributes (Sahami 1996): the attributes are ranked by decreasing I(X_i; Y), and the
    attribute at rank r takes as parents the min(k, r) higher-ranked attributes with the
    highest I(X_i; X_j | Y) (ties by rank; as in the KDB of the SWAODE paper, Mathematics
    2024, Sahami's optional threshold on I(X_i; X_j | Y) is not applied).  k = 0 is naive
    Bayes, k = 1 a one-parent tree like TAN's (but not a maximum spanning tree).  A missing
    parent value is summed out of the family's counts (P(x_i | y, observed parents)); with no
    observed parent (or observed parent values rarer than ``min_count``) the attribute uses
    P(x_i | y).

    Families with two or more parents are counted in a second pass over the data.  For
    k <= 1 :meth:`partial_fit` re-learns the structure from the pair counts, which hold every
    chunk: it equals fit on all the chunks.  For k >= 2 the families of the structure
    learnt on the first chunk are the only ones counted, so partial_fit keeps that
    structure and counts every later chunk into its families (no row is dropped); when the
    pair counts of all the chunks would give other parents, a ``UserWarning`` says that fit
    on all the rows chooses differently.

    Parameters
    ----------
    {k}
    {family_parameters}
    {numeric_structure}
    {hdp_parameters}

    Attributes
    ----------
    structure_ : ndarray of shape (n_features, max(k, 1))
        Parents of every attribute (ascending, -1 padding).
    order_ : ndarray of shape (n_features,)
        Attributes by decreasing mutual information with the class.
    {mutual_info_}
    {conditional_mutual_info_}
    {fitted_attributes}

    See Also
    --------
    TAN : one attribute parent per attribute, a maximum spanning tree.
    seminaive.AnDE : averages models with n super-parents shared by every attribute.

    References
    ----------
    {petitjean2018}

    {sahami1996}

    {webb2012}

    {cerquides2005}

    {swaode2024}

    Examples
    --------
    >>> from seminaive import KDB
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = KDB(k=2).fit(X, y)
    >>> model.structure_.shape
    (36, 2)
    >>> int(model.order_[0])  # the attribute most informative about the class
    20
    >>> int((model.structure_[model.order_[0]] >= 0).sum())  # it has no attribute parent
    0
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    def __init__(self, k=1, *, smoothing="m_estimate", m=1.0, min_count=1,
                 discretizer="mdl", n_bins=3, missing="ignore", categorical_features="auto",
                 max_table_bytes=DEFAULT_MAX_TABLE_BYTES, random_state=None,
                 numeric="discretize", n_iter=1000, burn_in=None, tying="level"):
        assign_params(self, locals())

    def _check_params(self):
        if isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)) or self.k < 0:
            raise ValueError(f"k must be a non-negative integer (0 is naive Bayes), got "
                             f"{self.k!r}")
        super()._check_params()

    def _order(self):
        return self.k

    def _supports_hdp(self):
        return True

    def _table_order(self):
        return 2 if self.k >= 1 else 1

    def _reset_learned(self):
        super()._reset_learned()
        self.__dict__.pop("_family_table", None)

    def _families_budget(self):
        if self.max_table_bytes is None:
            return None
        used = estimate_table_bytes(self.table_.sizes - 1, self.table_.n_classes,
                                    self.table_.max_order)["total"]
        return max(int(self.max_table_bytes) - used, 0)

    def _count_families(self, families, source):
        """Count the ``families`` (tuples: child, then parents) in a pass over ``source`` into
        a :class:`~seminaive.tables.CombinationTable`, kept as ``_family_table``; a family
        counted by an earlier :meth:`partial_fit` call keeps its earlier counts.  When
        ``_counted_families`` holds a table counted over the same rows with (at least) these
        families, its blocks are taken instead of a pass (used once)."""
        n_values, k = self.table_.sizes - 1, self.table_.n_classes
        extra = CombinationTable(families, n_values, k, self._families_budget())
        shared = self.__dict__.pop("_counted_families", None)
        if families and shared is not None:
            # counted already, with other learners' families, in a shared pass (ESKDB)
            index = {c: g for g, c in enumerate(shared.combinations)}
            for g, family in enumerate(extra.combinations):
                extra.block(g)[...] = shared.block(index[family])
        elif families:
            def count(codes, y, w):
                return CombinationTable(families, n_values, k).add(codes, y, w).counts

            counted = source.map_reduce(count, operator.add)
            if counted is not None:
                extra.counts += counted
            previous = getattr(self, "_family_table", None)
            if previous is not None:
                previous.grow(n_values)
                index = {c: g for g, c in enumerate(previous.combinations)}
                for g, family in enumerate(extra.combinations):
                    if family in index:
                        extra.block(g)[...] += previous.block(index[family])
        self._family_table = extra
        return extra

    def _restore_families(self, families, counts):
        """The family table of ``families`` holding ``counts`` read from a model file
        (validated: ValueError when they do not fit)."""
        counts = np.asarray(counts)
        n_values, k = self.table_.sizes - 1, self.table_.n_classes
        extra = CombinationTable(families, n_values, k, self._families_budget())
        if counts.dtype != np.float64 or counts.shape != extra.counts.shape:
            raise ValueError(f"family counts: expected {extra.counts.size} float64 values, "
                             f"got {counts.size} of {counts.dtype}")
        if not np.all(np.isfinite(counts)) or np.any(counts < 0):
            raise ValueError("family counts must be finite and non-negative")
        extra.counts[:] = counts
        self._family_table = extra
        return extra

    def _learn_from_counts(self, source):
        stats = PairStatistics(self.table_)
        parents, order = kdb_parents(stats.mi, stats.cmi, int(self.k))
        if int(self.k) >= 2 and self._keeps_choice("structure_"):
            # families of two or more parents exist only for the structure counted so far:
            # keep it, and count this chunk into the same families (no row is dropped)
            if not np.array_equal(parents, self.structure_):
                self._warn_choice_kept("structure")
            parents, order = self.structure_, self.order_
        else:
            self._chain_cmi = stats.cmi
            self._mark_choice()
        families = [(i, *[int(p) for p in row if p >= 0]) for i, row in enumerate(parents)
                    if (row >= 0).sum() >= 2]
        extra = self._count_families(families, source)
        self.mutual_info_ = stats.mi
        self.conditional_mutual_info_ = stats.cmi
        self.order_ = order
        self.structure_ = parents
        self._install(stats, parents, extra)
        self._learn_moments(source)

    def _learned_state(self):
        return {"parents": self._parents, "family_counts": self._family_table.counts,
                "chain_cmi": self._chain_scores(), **self._moment_state(),
                **self._hdp_state()}

    def _set_learned_state(self, arrays):
        arrays = dict(self._take_hdp_state(arrays))
        chain_cmi = arrays.pop("chain_cmi", None)
        a = self.table_.n_attributes
        if chain_cmi is not None:
            chain_cmi = np.asarray(chain_cmi)
            if chain_cmi.shape != (a, a) or not np.all(np.isfinite(chain_cmi)):
                raise ValueError("chain_cmi must be a finite (n_features, n_features) array")
            self._chain_cmi = chain_cmi.astype(np.float64)
        parents = self._check_loaded_parents(arrays, max_parents=int(self.k))
        if parents.shape[1] != max(int(self.k), 1) or "family_counts" not in arrays:
            raise ValueError("the KDB structure does not match k")
        families = [(i, *[int(p) for p in row if p >= 0]) for i, row in enumerate(parents)
                    if (row >= 0).sum() >= 2]
        extra = self._restore_families(families, arrays["family_counts"])
        stats = PairStatistics(self.table_)
        self._family_table = extra
        self.mutual_info_ = stats.mi
        self.conditional_mutual_info_ = stats.cmi
        self.order_ = np.argsort(-stats.mi, kind="stable")
        self.structure_ = parents
        self._install(stats, parents, extra)
        self._restore_moments(arrays)
