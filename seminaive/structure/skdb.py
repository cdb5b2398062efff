"""Selective KDB (Martínez, Webb, Chen & Zaidi 2016): KDB(K) and, in one extra pass, the
leave-one-out loss of every model (k, s) with k <= K parents and the top-s attributes.

Passes over the training data: the pair counts (mutual information, conditional mutual
information), the prefix families of every attribute (x_i, first j candidate parents, y; the
levels of its count tree, :mod:`._sparse`) for
j = 1..K, and the leave-one-out pass (:mod:`._skdb_kernels`).  Every pass reads the data
chunk by chunk (``source.map_reduce``), so the learner runs out of core and on Dask.
"""

from typing import Literal

import numpy as np

from .._docs import fill_doc
from .._params import ArrayLike, Choices, RandomState, Transformer
from ..base import DEFAULT_MAX_TABLE_BYTES, declare
from ..kernels.losses import LOSSES, argmin_first, mean_loss, row_blocks
from ..tables import FLOOR_RATIO
from . import _skdb_kernels, _sparse
from ._common import FAMILY_KEYS, GAUSSIAN_FAMILIES, PairStatistics, check_parents
from .kdb import KDB, ranked_candidates

_SELECT = ("both", "attributes", "k", "none")


def _kde_loo_arrays(kde, moments, values):
    """The ``kde`` item of the leave-one-out kernel's Gaussian children
    (:func:`._skdb_kernels._kde_loo`): ``(True, grid bins of the chunk's values, smoothed
    counts, pseudo-rows, kernel diagonals, pooled smoothed counts and weights, log widths)``
    of the :class:`._moments.KdeEstimates` ``kde``, or empty arrays of the same kinds
    (None: the children are not binned)."""
    if kde is None or values is None:
        empty = np.zeros((0, 0))
        return (False, empty, empty, empty, empty, empty, np.zeros(0), empty)
    return (True, np.ascontiguousarray(moments.bin_codes(values)), kde.smooth, kde.mixtures,
            kde.own, kde.pooled, kde.pooled_n, kde.log_width)


@fill_doc
class SKDB(KDB):
    """Selective KDB: the best KDB(k), k <= K, over the top-s attributes, by leave-one-out.

    Martínez, Webb, Chen & Zaidi (2016) learn KDB(K) (Sahami 1996; see :class:`KDB`) out of
    core and select, in one extra pass over the data, the model of lowest leave-one-out loss
    in a two-dimensional nested space: model (k, s) keeps the s attributes of highest mutual
    information with the class, each with its first min(k, rank) parents among the K chosen
    by conditional mutual information (so KDB(k)'s parents for every k <= K).  The held-out
    row's counts are subtracted from the tables (incremental leave-one-out, as in Chen et al.
    2014, §3.3; the structure is the one learnt from all rows); the (K + 1) x (a + 1) losses
    of one row cost O(a K k) estimates; without Gaussian children the pass visits the rows
    sorted by their codes, so that rows sharing an attribute's value and its leading
    candidates' values share its tree walk and counts (the same losses bit for bit, in a
    fraction of the time when rows share prefixes).  Ties go to the smaller k, then the
    fewer attributes.
    Attributes left out are ignored at prediction; estimates, missing values and
    ``min_count`` are KDB's.  With ``numeric="gaussian"`` the moments of every prefix of a
    numeric child's candidates are counted (for the (class, candidate values) cells that
    rows with the child observed reach, as KDB stores them), and the leave-one-out pass
    removes the row from them and recomputes the shrunk estimates along the chain; with
    ``density="kde"`` (the default) it scores the binned densities along the chain with
    the row removed from every cell's weight and smoothed counts (the grid, bandwidth and
    mixture weights stay those chosen on all the rows), so the search scores the density
    the model predicts with.

    The prefix families of every attribute (the child, its first j candidates and the class,
    j = 1..K) are the levels of one count tree per attribute holding only the prefixes the
    rows have (as the HDP trees of Petitjean et al. 2018), so memory grows with the rows, not
    with the product of the candidates' value counts.  :meth:`partial_fit` chooses the
    candidates and the model on the first chunk and keeps them for later chunks, whose rows
    are counted into the same families (no row is dropped); it warns that :meth:`fit` on all
    the rows may choose differently.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    k_ : int
        Selected number of parents.
    n_selected_features_ : int
        Selected number of attributes, the first of ``order_``.
    selected_features_ : ndarray of shape (n_selected_features_,)
        Indices of the selected attributes, by decreasing mutual information with the class.
    candidates_ : ndarray of shape (n_features, max(k, 1))
        Candidate parents of every attribute, by decreasing conditional mutual information
        (-1 padding); the model with k parents uses the first k.
    loo_loss_ : ndarray of shape (k + 1, n_features + 1)
        Mean leave-one-out loss of model (j, s) (the root of the mean for RMSE; column 0: the
        class prior alone).
    structure_ : ndarray of shape (n_features, max(k, 1))
        Parents of every attribute in the selected model (ascending, -1 padding; none for
        attributes left out).
    order_ : ndarray of shape (n_features,)
        Attributes by decreasing mutual information with the class.
    {mutual_info_}
    {conditional_mutual_info_}
    {fitted_attributes}

    See Also
    --------
    KDB : the model this learner selects from, without selection.
    seminaive.SelectiveAnDE : the same kind of nested selection for AnDE.

    References
    ----------
    {petitjean2018}

    {martinez2016}

    {sahami1996}

    {chen2014}

    Examples
    --------
    >>> from seminaive import SKDB
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = SKDB(k=3).fit(X, y)
    >>> model.loo_loss_.shape
    (4, 37)
    >>> bool(model.k_ <= 3 and 1 <= model.n_selected_features_ <= 36)
    True
    >>> best = model.loo_loss_[model.k_, model.n_selected_features_]
    >>> bool(best <= model.loo_loss_[:, 1:].min() + 1e-12)
    True
    """

    _parameter_constraints = declare("loss", select=[Choices(*_SELECT)],
                                     **KDB._parameter_constraints)
    _parameter_docs = {
        "k": """
        k : int, default=3
            Largest number of attribute parents, K (0 selects among naive Bayes models on the top
            attributes).  Martínez et al. (2016) use K = 5 on large data; the count trees hold
            at most (K + 2) nodes per training row and attribute, within ``max_table_bytes``.
        """,
        "select": """
        select : {"both", "attributes", "k", "none"}, default="both"
            What is selected: both k and the number of attributes; only the number of attributes
            (k = K); only k (every attribute); nothing (exactly KDB(K)).
        """,
        "smoothing": "family_smoothing",
        "min_count": "structure_min_count",
        "missing": "structure_missing",
        "numeric": "numeric_structure",
        "density": "density_kde_default",
    }

    def __init__(
        self,
        k: int = 3,
        *,
        loss: Literal["rmse", "zero_one", "log_loss"] = "rmse",
        select: Literal["both", "attributes", "k", "none"] = "both",
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
        self.loss = loss
        self.select = select
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

    def _learn_from_counts(self, source):
        if self._keeps_choice("k_"):
            self._warn_choice_kept("selected model (k, attributes) and candidate parents")
            self._count_kept(source)
            return
        loo, finish = self._selection_pass(source)
        finish(source.map_reduce(loo, values=self.needs_values()))
        self._mark_choice()

    def _count_kept(self, source):
        """partial_fit after the first chunk: count the chunk into the kept candidates'
        prefix families (and moments) and install the kept selection on all the counts."""
        stats = PairStatistics(self.table_)
        extra = self._count_families(self._counted_trees(), source)
        self._stats = stats
        self.mutual_info_ = stats.mi
        self.conditional_mutual_info_ = stats.cmi
        k_sel, s_sel = int(self.k_), int(self.n_selected_features_)
        self.__dict__.pop("k_", None)  # moments: every prefix of the candidates
        self._learn_moments(source)
        self._install_selection(stats, k_sel, s_sel, extra)

    def _plan(self, stats):
        """Candidate parents, ranking and the count trees (i, candidates...) a pass counts,
        from the pair statistics."""
        candidates, order = ranked_candidates(stats.mi, stats.cmi, int(self.k),
                                              self._attribute_order(stats))
        trees = [(i, *[int(p) for p in row if p >= 0]) for i, row in enumerate(candidates)
                 if (row >= 0).sum() >= 2]
        return candidates, order, trees

    def _selection_pass(self, source):
        """Count the prefix families (and the Gaussian children's moments), and return the
        leave-one-out pass as ``(loo, finish)``: ``loo(codes, y, w, values)`` maps a chunk to
        its summed losses (a flat array, the weight of the chunk last), ``finish`` takes the
        sum over every chunk (None: no rows) and selects and installs the model.  ESKDB
        runs the passes of all its members together."""
        self.__dict__.pop("k_", None)  # the chains are every candidate until selected
        # the statistics of this table that ESKDB computed already (its members), if any
        stats = self.__dict__.pop("_stats_given", None)
        if stats is None or stats.counts is not self.table_.counts:
            stats = PairStatistics(self.table_)
        big_k = int(self.k)
        candidates, order, _ = self._plan(stats)
        n_cand = (candidates >= 0).sum(axis=1).astype(np.int64)
        self.candidates_ = candidates
        self._stats = stats
        extra = self._count_families(self._counted_trees(), source)
        self._parents = candidates  # the count trees over every candidate
        counts = self._count_trees(extra)
        trees = _sparse.tree_bundle(counts.arrays)
        n_stack = _sparse.stack_size(self.table_.sizes, candidates.shape[1])
        self._counts = counts  # the moments' budget counts the trees
        self._learn_moments(source)
        gaussian, missing_code, level_starts, moment_codes, sums = \
            self._gaussian_loo_arrays()
        kde = (self._kde_estimates() if getattr(self, "_moments", None) is not None
               and GAUSSIAN_FAMILIES.density(self) == "kde" else None)
        kappa = self._smoothing_spec().kappa
        a = stats.n_attributes
        kind = LOSSES[self.loss]
        ranking = np.ascontiguousarray(order, dtype=np.int64)
        laplace = self._laplace()

        def loo(codes, y, w, values=None):
            n = codes.shape[0]
            blocks = row_blocks(n)
            out = np.zeros((blocks, big_k + 1, a + 1))
            weighted = w is not None
            if n:
                _skdb_kernels.nested_kdb_loo(
                    (np.ascontiguousarray(codes), np.ascontiguousarray(y, dtype=np.int64),
                     np.ascontiguousarray(w, dtype=np.float64) if weighted else np.zeros(1),
                     weighted),
                    (ranking, n_cand, candidates, n_stack), trees, stats.kernel_args(),
                    (float(self.m), laplace, float(self.min_count)), kind,
                    (gaussian, missing_code, level_starts, moment_codes, sums, kappa,
                     FLOOR_RATIO, GAUSSIAN_FAMILIES.density(self) == "student",
                     _kde_loo_arrays(kde, getattr(self, "_moments", None), values)),
                    np.zeros((n, 0)) if values is None else np.ascontiguousarray(values),
                    blocks, out)
            total = float(n if w is None else np.sum(w))
            return np.concatenate([out.sum(axis=0).ravel(), [total]])

        def finish(summed):
            if summed is None:
                losses, total = np.full((big_k + 1, a + 1), np.nan), 0.0
            else:
                losses, total = summed[:-1].reshape(big_k + 1, a + 1), summed[-1]
            self.loo_loss_ = mean_loss(losses, total, self.loss)
            self.candidates_ = candidates
            self.mutual_info_ = stats.mi
            self.conditional_mutual_info_ = stats.cmi
            self.order_ = order
            self._select(stats, losses, extra)

        return loo, finish

    def _tree_chain(self, i):
        """Every candidate of attribute i: its count tree holds the families of every k."""
        return [int(p) for p in self.candidates_[i] if p >= 0]

    def _counted_trees(self):
        return [(i, *chain) for i in range(self.table_.n_attributes)
                for chain in [self._tree_chain(i)] if len(chain) >= 2]

    def _attribute_order(self, stats):
        """The ranking of the attributes (None: by decreasing I(X_i; Y)); ESKDB's members
        override it."""
        return None

    # -------------------------------------------------------------- Gaussian children
    def _chain(self, i):
        """The candidates of attribute i the model uses (the first ``k_``), or, while the
        model is selected, every candidate: a prefix of the candidate list."""
        row = self.candidates_[i, :getattr(self, "k_", self.candidates_.shape[1])]
        return [int(p) for p in row if p >= 0]

    def _moment_chains(self):
        """Every candidate of every Gaussian child: the moments hold the models of any k."""
        return [[int(p) for p in self.candidates_[i] if p >= 0]
                for i in GAUSSIAN_FAMILIES.attributes(self).tolist()]

    def _gaussian_loo_arrays(self):
        """What the leave-one-out kernel reads of the Gaussian children: the column of
        every attribute (-1: not Gaussian), the codes of the missing values, and the
        moments' level starts (over every candidate), codes and sums."""
        a = self.table_.n_attributes
        gaussian = np.full(a, -1, dtype=np.int64)
        moments = getattr(self, "_moments", None)
        width = self.candidates_.shape[1] + 2
        if moments is None:
            return gaussian, np.zeros(a, dtype=np.int64), np.zeros((0, width), np.int64), \
                np.zeros(0, np.int64), np.zeros(0)
        numeric = moments.numeric.tolist()
        gaussian[numeric] = np.arange(len(numeric))
        starts = np.zeros((len(numeric), width), dtype=np.int64)
        own = moments.level_starts(self._moment_chains())
        starts[:, :own.shape[1]] = own
        starts[:, own.shape[1]:] = own[:, -1:]
        return gaussian, GAUSSIAN_FAMILIES.missing_codes(self), starts, moments.codes, moments.sums

    def _select(self, stats, losses, extra):
        """Keep the model of lowest loss in the space ``select`` allows (ties: smaller k, then
        fewer attributes) and install it."""
        big_k, a = int(self.k), stats.n_attributes
        allowed = np.full(losses.shape, np.inf)
        ks = {"both": slice(None), "attributes": big_k, "k": slice(None), "none": big_k}
        ss = {"both": slice(1, None), "attributes": slice(1, None), "k": a, "none": a}
        allowed[ks[self.select], ss[self.select]] = losses[ks[self.select], ss[self.select]]
        best = argmin_first(allowed)
        k_sel, s_sel = (big_k, a) if best is None else np.unravel_index(best, allowed.shape)
        self._install_selection(stats, int(k_sel), int(s_sel), extra)

    def _install_selection(self, stats, k_sel, s_sel, extra):
        self.__dict__.pop("_gaussian_cache", None)
        a = stats.n_attributes
        chosen = self.order_[:s_sel]
        parents = np.full_like(self.candidates_, -1)
        for i in chosen:
            row = self.candidates_[i, :k_sel]
            row = row[row >= 0]
            parents[i, :row.size] = row
        self.k_, self.n_selected_features_ = k_sel, s_sel
        self.selected_features_ = np.asarray(chosen, dtype=np.int64)
        self._active = np.zeros(a, dtype=bool)
        self._active[chosen] = True
        self.structure_ = np.full_like(parents, -1)
        for i, row in enumerate(parents):
            sorted_row = np.sort(row[row >= 0])
            self.structure_[i, :sorted_row.size] = sorted_row
        self._install(stats, parents, extra)

    def _family_codes(self, X, codes=None):
        codes = np.array(self._storage_codes(X) if codes is None else codes, order="C",
                         copy=True)
        codes[:, ~self._active] = 0  # attributes left out (never parents of those kept)
        return codes

    def _learned_state(self):
        return {"candidates": self.candidates_, **self._family_state(),
                "selected": np.array([self.k_, self.n_selected_features_], dtype=np.int64),
                "loo_loss": self.loo_loss_, **self._moment_state(), **self._hdp_state()}

    def _set_learned_state(self, arrays):
        arrays = self._take_hdp_state(arrays)
        if "family_counts" in arrays:
            _sparse.unpack_counted(arrays, [], self.table_.sizes, self.table_.n_classes)
        expected = {"candidates", *FAMILY_KEYS, "selected", "loo_loss"}
        moment_keys = {k for k in arrays if k.startswith("moment_")}
        if set(arrays) - moment_keys != expected:
            raise ValueError(f"expected learned arrays {sorted(expected)}, got {sorted(arrays)}")
        big_k, a = int(self.k), self.table_.n_attributes
        candidates = check_parents(arrays["candidates"], a, big_k)
        if candidates.shape[1] != max(big_k, 1):
            raise ValueError("the candidate parents do not match k")
        selected, loo = np.asarray(arrays["selected"]), np.asarray(arrays["loo_loss"])
        if (selected.shape != (2,) or selected.dtype.kind not in "iu"
                or not (0 <= selected[0] <= big_k and 0 <= selected[1] <= a)):
            raise ValueError("bad selected (k, number of attributes)")
        if loo.shape != (big_k + 1, a + 1) or loo.dtype.kind != "f":
            raise ValueError("loo_loss has the wrong shape")
        self.candidates_ = candidates
        extra = self._restore_families(self._counted_trees(), arrays)
        stats = PairStatistics(self.table_)
        self.loo_loss_ = loo
        self.mutual_info_ = stats.mi
        self.conditional_mutual_info_ = stats.cmi
        order = self._attribute_order(stats)
        self.order_ = np.argsort(-stats.mi, kind="stable") if order is None else order
        self.__dict__.pop("k_", None)
        self._restore_moments(arrays)
        self._install_selection(stats, int(selected[0]), int(selected[1]), extra)
