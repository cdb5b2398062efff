"""k-dependence Bayesian classifier, KDB(k) (Sahami 1996).

Attributes are ranked by mutual information with the class I(X_i; Y); each attribute takes
as parents the (up to) k higher-ranked attributes with the highest conditional mutual
information I(X_i; X_j | Y) (Sahami's algorithm without the optional CMI threshold, as in
the KDB of the SWAODE paper, Mathematics 2024).  k = 0 is naive Bayes.

Counting: the pair tables (``_table_order() = 2``) give MI and CMI; the families (x_i, pa_i, y)
with two or more parents are counted in a second pass over the training data
(``source.map_reduce``) into count trees that hold only the parent values the rows have
(:mod:`._sparse`, as the HDP trees of Petitjean et al. 2018); families with one parent are
read from the pair tables.  Gaussian children's moments are counted in one more pass, for
the occurring cells only (:mod:`._moments`).
"""

from typing import Literal

import numpy as np

from .._docs import fill_doc
from .._params import ArrayLike, RandomState, Transformer
from ..base import (
    DEFAULT_MAX_TABLE_BYTES,
    HDP_PARAMETERS,
    HDP_SMOOTHING,
    INPUT_PARAMETERS,
    KDE_DENSITY,
    declare,
)
from . import _sparse
from ._common import (
    GAUSSIAN_FAMILIES,
    HIERARCHICAL_FAMILIES,
    PairStatistics,
    _FamilyLearner,
)


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

    Families with two or more parents are counted in a second pass over the data, each as a
    tree of the (class, parent values) that occur in it (class, then the parents by
    decreasing I(X_i; X_j | Y)), as Petitjean et al. (2018) store their HDP trees: memory
    grows with the rows, not with the product of the parents' value counts.  With
    ``numeric="gaussian"`` the moments of every Gaussian child given every prefix of its
    parent chain are likewise stored only for the (class, parent values) cells that rows
    with the child observed reach, checked against ``max_table_bytes`` (with the pair
    counts and the count trees) before their estimates are computed; with
    ``density="kde"`` (the default) so are the child's counts on the grid of the binned
    children, each cell mixed towards the cell of the chain one parent shorter.  For
    k <= 1 :meth:`partial_fit` re-learns the structure from the pair counts, which hold every
    chunk: it equals fit on all the chunks.  For k >= 2 the families of the structure
    learnt on the first chunk are the only ones counted, so partial_fit keeps that
    structure and counts every later chunk into its families (no row is dropped); when the
    pair counts of all the chunks would give other parents, a ``UserWarning`` says that fit
    on all the rows chooses differently.

    Parameters
    ----------
    {parameters}

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

    parts = (GAUSSIAN_FAMILIES, HIERARCHICAL_FAMILIES)
    _parameter_constraints = declare("k", INPUT_PARAMETERS, "numeric", HDP_PARAMETERS, "density",
                                     smoothing=HDP_SMOOTHING, density=KDE_DENSITY)
    _parameter_docs = {
        "smoothing": "family_smoothing",
        "min_count": "structure_min_count",
        "missing": "structure_missing",
        "numeric": "numeric_structure",
        "density": "density_kde_default",
    }

    def __init__(
        self,
        k: int = 1,
        *,
        smoothing: Literal["m_estimate", "laplace", "hdp", "hls"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
        numeric: Literal["discretize", "gaussian"] = "discretize",
        n_iter: int = 1000,
        burn_in: int | None = None,
        tying: Literal["none", "parent", "level", "single"] = "level",
        density: Literal["plugin", "student", "kde"] = "kde",
    ) -> None:
        self.k = k
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
        self.n_iter = n_iter
        self.burn_in = burn_in
        self.tying = tying
        self.density = density

    def _order(self):
        return self.k

    def _table_order(self):
        return 2 if self.k >= 1 else 1

    def _counted_trees(self):
        """The count trees (i, chain...) a pass counts: those of two or more parents (the
        others are read from the pair table)."""
        trees = []
        for i in range(self.table_.n_attributes):
            chain = self._tree_chain(i)
            if len(chain) >= 2:
                trees.append((i, *chain))
        return trees

    @property
    def _family_counts(self):
        """The counted trees' (keys, counts) ({(i, chain...): (keys, counts)}; None before
        any is counted): held from the pass that counts them until the count trees are
        built from them (:meth:`_install`), then read back from the trees
        (:func:`._sparse.keys_from_trees`, the same trees bit for bit) when a model file or
        :meth:`partial_fit` needs them, so that the fitted model holds its trees and no keys
        besides them (the bytes ``max_table_bytes`` counts for it)."""
        held = self.__dict__.get("_family_keys")
        if held is not None:
            return held
        trees, sizes = self.__dict__.get("_counts"), self.__dict__.get("_family_sizes")
        if trees is None or sizes is None:
            return None
        return _sparse.keys_from_trees(trees, self._counted_trees(), sizes)

    @_family_counts.setter
    def _family_counts(self, counted):
        self.__dict__["_family_keys"] = counted

    def _holds_family_counts(self):
        """Whether counted trees of earlier rows are held (``_family_counts`` not empty),
        without reading their keys back."""
        held = self.__dict__.get("_family_keys")
        if held is not None:
            return bool(held)
        trees = self.__dict__.get("_counts")
        if trees is None or self.__dict__.get("_family_sizes") is None:
            return False
        return any([int(p) for p in trees.chain[t[0]] if p >= 0] == list(t[1:])
                   for t in self._counted_trees())

    def _count_families(self, trees, source):
        """Count the trees ``trees`` ((i, chain...): keys of occurring prefixes, :mod:`._sparse`)
        in a pass over ``source``, kept as ``_family_counts``; a tree counted by an earlier
        :meth:`partial_fit` call adds its earlier counts.  When ``_counted_families`` holds
        trees counted over the same rows (ESKDB's shared pass), they are taken instead of a
        pass (used once)."""
        sizes, k = self.table_.sizes, self.table_.n_classes
        shared = self.__dict__.pop("_counted_families", None)
        if trees and shared is not None:
            counted = {t: shared[t] for t in trees}
        elif trees:
            for t in trees:
                _sparse.check_key_range(t[0], t[1:], sizes, k)
            guard = self._family_budget(trees, source)

            def count(codes, y, w):
                return guard(_sparse.count_keys(codes, y, w, trees, sizes))

            def merge(a, b):
                return guard(_sparse.merge_keys(a, b))

            result = source.map_reduce(count, merge)
            if result is None:
                result = [(np.zeros(0, np.int64), np.zeros(0))] * len(trees)
            counted = dict(zip(trees, result, strict=True))
            previous = getattr(self, "_family_counts", None)
            if previous:
                old_sizes = self._family_sizes
                for t in trees:
                    if t in previous:
                        keys, counts = previous[t]
                        if not np.array_equal(old_sizes, sizes):
                            keys = _sparse.recode_keys(keys, t, old_sizes, sizes)
                        counted[t] = _sparse.merge_keys([counted[t]], [(keys, counts)])[0]
        else:
            counted = {}
        self._family_counts = counted
        self._family_sizes = np.array(sizes, dtype=np.int64)
        return counted

    def _family_budget(self, trees, source):
        """Check the count trees of every attribute against ``max_table_bytes`` (less what
        is held elsewhere) before the pass that counts ``trees``: refused
        (:class:`~seminaive.exceptions.TableTooLargeError`) when even their lower bound
        (:class:`._sparse.TreeBounds`) does not fit; returns the check of the pass's
        partial counts (:class:`._sparse.PassGuard`; none when the upper bound fits).  The
        exact check follows the pass (:meth:`_count_trees`).

        The pass's counted keys (16 bytes a key, at most min(rows, possible keys) per
        tree) are not counted against the trees: they live from the pass until the trees
        are built from them (:meth:`_install` drops them; ``_family_counts`` reads them
        back from the trees), and the budget is that of the model the fit keeps, its pair
        counts and trees, exactly (a fit at those bytes is accepted, one byte less
        refused: tests/structure/test_budget_before_counting.py and
        test_pair_table_budget.py).  ESKDB counts its members' keys in its own plan."""
        budget = self._budget_left()
        if budget is None:
            return _sparse.PassGuard([], 0, None, "", "")
        table = self.table_
        # after partial_fit the trees hold earlier rows too: no bound by the rows
        n_rows = None if self._holds_family_counts() else getattr(source, "n_rows", None)
        bounds = _sparse.TreeBounds(table, n_rows)
        every = [(i, *self._tree_chain(i)) for i in range(table.n_attributes)]
        lower, upper = bounds.bytes(every)
        fixed = table.counts.nbytes
        what = (f"{type(self).__name__}(k={int(self.k)}) on "
                f"{_sparse.describe_data(table, n_rows)}")
        if fixed + upper <= budget:  # (then the lower bound fits too: nothing to advise)
            return _sparse.PassGuard([], 0, None, "", "")
        options = self._fit_options(bounds, every, fixed, budget)
        _sparse.refuse_before_counting(lower, upper, fixed, budget, what, options)
        counted = set(trees)
        read = bounds.bytes([t for t in every if t not in counted])[0]  # exact
        return _sparse.PassGuard([(t, table.sizes) for t in trees], fixed + read, budget,
                                 what, options)

    def _fit_options(self, bounds, every, fixed, budget):
        """What would make the count trees ``every`` fit: fewer parents (the k that fit by
        the bounds), coarser discretisation when there are numeric attributes."""
        sure, maybe = _sparse.fitting_k([(bounds, every)], fixed, budget, int(self.k))
        options = _sparse.k_advice(sure, maybe)
        encoder = getattr(self, "encoder_", None)
        if encoder is not None and getattr(encoder, "numeric_columns_", np.zeros(0)).size:
            options += (", fewer intervals per numeric attribute (discretizer="
                        "\"equal_frequency\" with a smaller n_bins)")
        return options

    def _restore_families(self, trees, arrays):
        """The counted trees read from a model file (validated: ValueError when they do not
        fit)."""
        counted = _sparse.unpack_counted(arrays, trees, self.table_.sizes,
                                         self.table_.n_classes)
        self._family_counts = counted
        self._family_sizes = np.array(self.table_.sizes, dtype=np.int64)
        return counted

    def _family_state(self):
        return _sparse.pack_counted(self._family_counts, self._counted_trees())

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
        self._stats = stats
        self._parents = np.ascontiguousarray(parents, dtype=np.int64)
        extra = self._count_families(self._counted_trees(), source)
        self.mutual_info_ = stats.mi
        self.conditional_mutual_info_ = stats.cmi
        self.order_ = order
        self.structure_ = parents
        self._install(stats, parents, extra)
        self._learn_moments(source)

    def _learned_state(self):
        return {"parents": self._parents, **self._family_state(),
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
        if "family_counts" in arrays:
            _sparse.unpack_counted(arrays, [], self.table_.sizes, self.table_.n_classes)
        parents = self._check_loaded_parents(arrays, max_parents=int(self.k))
        if parents.shape[1] != max(int(self.k), 1):
            raise ValueError("the KDB structure does not match k")
        stats = PairStatistics(self.table_)
        self._stats = stats
        self._parents = parents
        extra = self._restore_families(self._counted_trees(), arrays)
        self.mutual_info_ = stats.mi
        self.conditional_mutual_info_ = stats.cmi
        self.order_ = np.argsort(-stats.mi, kind="stable")
        self.structure_ = parents
        self._install(stats, parents, extra)
        self._restore_moments(arrays)
