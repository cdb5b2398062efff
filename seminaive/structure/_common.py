"""Shared parts of the single-model structure learners (TAN, SP-TAN, KDB, LBR, HNB).

Their shared parameter and attribute documentation lives in :mod:`seminaive._docs`
(``{structure_parameters}`` and the ``structure_*`` fragments).

* :class:`_StructureBase` -- the estimator base: the common parameters of the AnDE learners
  (without ``aggregate``: these learners have a single model).
* :class:`PairStatistics` -- everything a learner reads from the pair tables of the shared
  :class:`~seminaive.tables.FrequencyTable`: class counts, mutual information with the class,
  conditional mutual information of every pair, leave-one-out denominators.
* :class:`_FamilyLearner` -- learners with one parent set per attribute (TAN, SP-TAN, KDB):
  family count blocks, prediction (numba kernel), persistence checks and Graphviz export.
"""

from dataclasses import dataclass

import numpy as np

from .. import statistics
from ..base import _BaseAnDE
from ..kernels.hdp import sparse_hdp_forest
from ..kernels.hls import sparse_hls_forest
from ..kernels.smoothing import log_joint_estimate
from ..parts import GaussianChildren, HierarchicalEstimates
from ..tables import binned
from . import _kernels as kernels
from . import _sparse
from ._moments import (
    FamilyGaussian,
    SparseMoments,
    check_budget,
    gaussian_family_terms,
    merge_cells,
)

_MOMENT_KEYS = ("moment_numeric", "moment_entries", "moment_codes", "moment_sums",
                "moment_lengths", "moment_grid_edges", "moment_grid_bins", "moment_bins")
#: the model-file key of the hierarchical (HDP, HLS) estimates of the families
_HDP_KEY = "hierarchical_estimates"
#: the key of files written before the estimates had a neutral name (still read)
_LEGACY_HDP_KEY = "hdp_estimates"
#: the counted trees' keys, counts and lengths in a model file
FAMILY_KEYS = ("family_keys", "family_key_counts", "family_lengths")


#: the hierarchical estimates of the family learners that take ``smoothing="hdp"`` and
#: ``"hls"`` (their estimate trees are made by :meth:`_FamilyLearner._estimate_trees`)
HIERARCHICAL_FAMILIES = HierarchicalEstimates(layout="families")
#: the Gaussian children of the family learners (moments counted per family)
GAUSSIAN_FAMILIES = GaussianChildren(layout="families")


@dataclass
class EstimateTrees:
    """Per-attribute estimate trees of ``smoothing="hdp"`` (occurring nodes only): attribute i
    conditions on the class, then on ``chain[i, :chain_len[i]]``; ``arrays`` holds the
    trees, ``estimates`` every node's ``sizes[i] - 1`` values at ``arrays.value_off``."""

    chain: np.ndarray
    chain_len: np.ndarray
    arrays: _sparse.TreeArrays
    estimates: np.ndarray
    log_estimates: np.ndarray


class _StructureBase(_BaseAnDE):
    """Base of the structure learners: AnDE's input handling, counting and persistence."""

    #: not a parameter: these learners combine no sub-models (checked by the base class)
    aggregate = "joint"
    #: the pair counts (every learner here needs them) fit with fewer attributes or values
    _table_options = ("fewer attributes, fewer values per attribute (fewer intervals per "
                      "numeric attribute: discretizer=\"equal_frequency\" with a smaller "
                      "n_bins)")
    #: the pair table's log tables are never built: its budget counts the counts, as the
    #: checks of the count trees count them besides the trees
    _table_counts_only = True

    def _order(self):
        return 1

    def _table_order(self):
        return 2

    def _laplace(self):
        return self._smoothing_spec().laplace

    def _feature_labels(self):
        if hasattr(self, "feature_names_in_"):
            return [str(c) for c in self.feature_names_in_]
        return [f"x{i}" for i in range(self.n_features_in_)]


# --------------------------------------------------------------------------------------------
# Statistics of the pair tables
# --------------------------------------------------------------------------------------------


class PairStatistics:
    """What the structure learners read from a :class:`~seminaive.tables.FrequencyTable`.

    Attributes
    ----------
    counts : ndarray
        The table's flat counts (shared, not copied).
    sizes : ndarray
        ``n_values + 1`` per attribute.
    class_counts : ndarray of shape (k,)
    uni_offsets : ndarray of shape (a,)
        Start of the order-1 block (sizes[i], k) of every attribute in ``counts``.
    den_uni : ndarray of shape (a, k)
        N(y, x_i observed).
    pair_offsets : ndarray of shape (a, a)
        Start of the block of the sorted pair {i, j} (-1 on the diagonal, or without pairs).
    den_pair, den_offsets
        N(y, x_j, x_i observed) for child i and parent j, block (sizes[j], k) at
        ``den_offsets[i, j]``.
    mi : ndarray of shape (a,)
        I(X_i; Y).
    cmi : ndarray of shape (a, a)
        I(X_i; X_j | Y) (symmetric, zero diagonal).
    """

    def __init__(self, table):
        a, k = table.n_attributes, table.n_classes
        self.counts = table.counts
        self.sizes = table.sizes
        self.n_classes = k
        self.class_counts = np.array(table.block(()), dtype=np.float64)
        self.uni_offsets = table.block_starts(1)
        self.den_uni = np.ascontiguousarray([table.marginal((i,)).sum(axis=0)
                                             for i in range(a)], dtype=np.float64).reshape(a, k)
        self.mi = statistics.mutual_information(table)
        self.pair_offsets = table.pair_block_starts()
        has = self.pair_offsets >= 0
        block = np.where(has, self.sizes[None, :] * k, 0).ravel()
        starts = np.concatenate([[0], np.cumsum(block)])
        self.den_offsets = np.where(has.ravel(), starts[:-1], -1).reshape(a, a).astype(np.int64)
        self.den_pair = np.zeros(int(starts[-1]), dtype=np.float64)
        kernels.pair_denominators(self.counts, self.pair_offsets, self.sizes, k,
                                  self.den_offsets, self.den_pair)
        self.cmi = statistics.conditional_mutual_information(table)

    @property
    def n_attributes(self):
        return int(self.sizes.size)

    def kernel_args(self):
        """The arrays the pair kernels read, as one :class:`PairArrays` bundle."""
        return kernels.PairArrays(self.counts, self.pair_offsets, self.sizes,
                                  int(self.n_classes), self.uni_offsets, self.den_uni,
                                  self.den_pair, self.den_offsets, self.class_counts)


# --------------------------------------------------------------------------------------------
# Structures: parents per attribute
# --------------------------------------------------------------------------------------------


def check_parents(parents, n_attributes, max_parents=None):
    """Validate a parent array (a, width) of int (-1 = none, padding last): indices in range,
    no attribute its own parent, no repeated parent, no directed cycle.  Raises ValueError."""
    parents = np.asarray(parents)
    if parents.ndim != 2 or parents.shape[0] != n_attributes or parents.dtype.kind not in "iu":
        raise ValueError(f"parents must be an integer array with {n_attributes} rows, got "
                         f"shape {parents.shape} and dtype {parents.dtype}")
    if parents.size and (parents.min() < -1 or parents.max() >= n_attributes):
        raise ValueError("parent indices out of range")
    graph = []
    for i, row in enumerate(parents.tolist()):
        pa = [p for p in row if p >= 0]
        if row[:len(pa)] != pa:
            raise ValueError(f"attribute {i}: parents must come before the -1 padding")
        if i in pa or len(set(pa)) != len(pa):
            raise ValueError(f"attribute {i}: invalid parents {pa}")
        if max_parents is not None and len(pa) > max_parents:
            raise ValueError(f"attribute {i} has {len(pa)} parents, at most {max_parents} "
                             "allowed")
        graph.append(pa)
    state = [0] * n_attributes  # 0 new, 1 on stack, 2 done
    for start in range(n_attributes):
        stack = [(start, iter(graph[start]))]
        if state[start]:
            continue
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state[nxt] == 1:
                raise ValueError("the parent structure has a directed cycle")
            elif state[nxt] == 0:
                state[nxt] = 1
                stack.append((nxt, iter(graph[nxt])))
    return parents.astype(np.int64)


def _dot_id(name):
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _FamilyLearner(_StructureBase):
    """A Bayesian network classifier with a fixed parent set per attribute.

    Its Gaussian children's moments are counted per family (:meth:`_learn_moments`), not in
    the shared table: learners with the ``numeric`` parameter declare
    :data:`GAUSSIAN_FAMILIES` (``layout="families"``), and those with the ``n_iter``,
    ``burn_in`` and ``tying`` parameters :data:`HIERARCHICAL_FAMILIES`."""

    def _install(self, stats, parents, counted=None):
        """Make ``parents`` (a, width) the model (called at the end of every fit);
        ``counted``: the (keys, counts) of the count trees of two or more parents counted by
        a pass, by tree (i, chain...)."""
        self._stats = stats
        self._parents = np.ascontiguousarray(parents, dtype=np.int64)
        self._counts = self._count_trees(counted or {})
        # the counted keys the trees were built from are read back from the trees when
        # needed (KDB's ``_family_counts``): the fitted model holds the trees only
        self.__dict__.pop("_family_keys", None)
        loaded = self.__dict__.pop("_hdp_loaded", None)
        self._trees = (self._estimate_trees(loaded) if self._smoothing_spec().hierarchical
                       else None)

    # -------------------------------------------------------------- count trees
    def _tree_chain(self, i):
        """The chain of attribute i's count tree: its parents, most conditionally
        informative first (SKDB: every candidate, so that the tree holds every k)."""
        return self._chain(i)

    def _count_trees(self, counted):
        """The count trees of every attribute (:func:`._sparse.build_count_trees`)."""
        a = self.table_.n_attributes
        chains = [self._tree_chain(i) for i in range(a)]
        return _sparse.build_count_trees(self.table_, chains, self._parents, counted,
                                         self._budget_left())

    def _budget_left(self):
        """``max_table_bytes`` less what is held elsewhere for the same fit (an ensemble's
        other members and tables: ESKDB sets ``_held_elsewhere`` before each step that
        allocates); None: no budget."""
        if self.max_table_bytes is None:
            return None
        return int(self.max_table_bytes) - int(getattr(self, "_held_elsewhere", 0))

    def _held_bytes(self):
        """Bytes of what this learner keeps beyond the shared pair table: its count trees,
        HDP estimates (with their logarithms and trees) and Gaussian moments."""
        held = 0
        counts = getattr(self, "_counts", None)
        if counts is not None:
            held += counts.arrays.nbytes
        trees = getattr(self, "_trees", None)
        if trees is not None:
            held += trees.arrays.nbytes + trees.log_estimates.nbytes
        moments = getattr(self, "_moments", None)
        if moments is not None:
            held += int(getattr(moments, "nbytes", 0))
        return held

    # -------------------------------------------------------------- smoothing="hdp"
    def _hdp_levels(self):
        """Every attribute's HDP tree (levels of occurring nodes, :func:`._sparse.hdp_levels`):
        its count tree cut below its parents."""
        counts = self._counts
        return [_sparse.hdp_levels(levels, 1 + int(d))
                for levels, d in zip(counts.levels, counts.depth, strict=True)]

    def _hdp_tree_counts(self):
        """(counts, dims) of every attribute's HDP tree given densely (every node: for
        tests and :func:`~seminaive.kernels.hdp.hdp_forest`), and the chains."""
        sizes, k = self.table_.sizes, self.table_.n_classes
        counts = self._counts
        trees = []
        for i, levels in enumerate(self._hdp_levels()):
            chain = [int(p) for p in counts.chain[i, :int(counts.depth[i])]]
            dims = [k] + [int(sizes[p]) for p in chain]
            dense = np.zeros((int(np.prod(dims)), int(sizes[i]) - 1))
            dense[levels[-1][0]] = levels[-1][2]
            trees.append((dense, dims))
        return trees, counts.chain, counts.depth

    def _hdp_sampler_trees(self):
        """The HDP trees of occurring nodes as :class:`._sparse.TreeArrays` (no values yet:
        the estimates fill them in) and as the sampler's input (parent, level_start,
        leaf_counts), one per attribute."""
        levels = self._hdp_levels()
        sizes = self.table_.sizes
        widths = [int(sizes[i]) - 1 for i in range(len(levels))]
        arrays = _sparse.assemble_trees(levels, widths, with_values=False)
        trees = [(*arrays.local(i), tree[-1][2]) for i, tree in enumerate(levels)]
        return arrays, trees, widths

    def _estimate_trees(self, loaded=None):
        """Run the HDP sampler (or the HLS fit) on every attribute's tree of occurring nodes
        (or take the estimates read from a model file, validated)."""
        arrays, trees, widths = self._hdp_sampler_trees()
        size = int(sum(np.size(p) * w for (p, _, _), w in zip(trees, widths, strict=True)))
        if loaded is None:
            budget = None
            if self.max_table_bytes is not None:
                budget = (self._budget_left() - self.table_.counts.nbytes
                          - self._counts.arrays.nbytes)
            if self.smoothing == "hls":
                estimates = sparse_hls_forest(trees, max_bytes=budget)
            else:
                part = self._part(HierarchicalEstimates)
                estimates = sparse_hdp_forest(trees, n_iter=int(self.n_iter),
                                              burn_in=part.burn_in(self), tying=self.tying,
                                              seeds=part.seeds(self, len(trees)),
                                              max_bytes=budget)
            flat = np.concatenate([e.ravel() for e in estimates]) if estimates else np.zeros(0)
        else:
            key = self.__dict__.pop("_hdp_loaded_key", _HDP_KEY)  # the file's name for them
            flat = np.asarray(loaded)
            if flat.dtype != np.float64 or flat.shape != (size,):
                raise ValueError(f"{key}: expected {size} float64 values, got "
                                 f"{flat.size} of {flat.dtype}")
            if not np.all((flat > 0) & (flat <= 1)):
                raise ValueError(f"{key} must be probabilities in (0, 1]")
            for i, w in enumerate(widths):
                lo = arrays.value_off[arrays.root[i]]
                hi = lo + w * (arrays.level_start[i, -1] - arrays.root[i])
                if not np.allclose(flat[lo:hi].reshape(-1, w).sum(axis=1), 1.0, atol=1e-9):
                    raise ValueError(f"{key}: a distribution does not sum to 1")
            flat = flat.copy()
        arrays.values = flat
        return EstimateTrees(self._counts.chain, self._counts.depth, arrays, flat,
                             np.log(flat))

    def _hdp_state(self):
        trees = getattr(self, "_trees", None)
        return {} if trees is None else {_HDP_KEY: trees.estimates}

    def _take_hdp_state(self, arrays):
        """Keep the estimates of a model file for :meth:`_install` (ValueError when they do
        not match ``smoothing``); files of earlier versions hold them under
        ``_LEGACY_HDP_KEY``."""
        found = [key for key in (_HDP_KEY, _LEGACY_HDP_KEY) if key in arrays]
        if len(found) > 1 or bool(found) != self._smoothing_spec().hierarchical:
            raise ValueError(f"{_HDP_KEY} must be in the model file exactly when "
                             "smoothing='hdp' or 'hls'")
        self._hdp_loaded = arrays[found[0]] if found else None
        if found:
            self._hdp_loaded_key = found[0]
        return {key: value for key, value in arrays.items() if key not in found}

    def _family_codes(self, X, codes=None):
        """Storage codes of the rows to score (attributes coded 0 are left out); ``codes``:
        the rows' storage codes when already computed."""
        return np.ascontiguousarray(self._storage_codes(X) if codes is None else codes)

    def _scores(self, X, codes=None):
        codes = self._family_codes(X, codes)
        stats, tc = self._stats, self._counts
        out = np.empty((codes.shape[0], stats.n_classes), dtype=np.float64)
        moments = getattr(self, "_moments", None)
        skip = np.zeros(codes.shape[1], dtype=np.bool_)
        if moments is not None:
            skip[moments.numeric] = True
        trees = getattr(self, "_trees", None)
        if codes.shape[0] and trees is not None:
            _sparse.sparse_tree_scores(
                codes, _sparse.tree_bundle(trees.arrays, trees.log_estimates), trees.chain,
                trees.chain_len, self.table_.sizes, stats.n_classes, self._log_prior(),
                (skip, GAUSSIAN_FAMILIES.missing_codes(self)), out)
        elif codes.shape[0]:
            _sparse.score_counts(codes, tc, stats.kernel_args(), float(self.m),
                                 self._laplace(), float(self.min_count), out, skip,
                                 GAUSSIAN_FAMILIES.missing_codes(self))
        if codes.shape[0] and moments is not None:
            # Gaussian children: their densities from the moments, whatever the smoothing
            # of the discrete families (the HDP estimates only the discrete tables)
            values = self.encoder_.numeric_values(X, type(self).__name__)
            values[:, ~self._gaussian_active()] = np.nan
            model = self._gaussian_arrays()
            if model.kde:  # the binned children read the values' grid bins
                values = binned.bin_of(values, moments.grid_edges, moments.grid_bins)
            gaussian_family_terms(codes, values, model, out)
        return out

    def _log_prior(self):
        """log P(y), m-estimated (as :func:`._sparse.sparse_family_scores`)."""
        counts = self._stats.class_counts
        k, total = counts.size, float(counts.sum())
        return np.array([log_joint_estimate(float(c), total, k, 1.0, float(self.m),
                                            self._laplace()) for c in counts])

    # -------------------------------------------------------------- Gaussian children
    def _gaussian_active(self):
        """Which numeric attributes are children of the model (all, unless selected)."""
        active = getattr(self, "_active", None)
        numeric = GAUSSIAN_FAMILIES.attributes(self)
        return np.ones(numeric.size, dtype=bool) if active is None else active[numeric]

    def _chain_scores(self):
        """I(X_i; X_j | Y) that orders the parents' chains: those of the counts the
        structure was chosen on (kept by partial_fit with the structure), else the current
        ones."""
        kept = getattr(self, "_chain_cmi", None)
        return self._stats.cmi if kept is None else kept

    def _chain(self, i):
        """Parents of attribute i, most conditionally informative first (ties: index)."""
        parents = [int(p) for p in self._parents[i] if p >= 0]
        cmi = self._chain_scores()
        return sorted(parents, key=lambda p: (-float(cmi[i, p]), p))

    def _moment_chains(self):
        """The parent chain of every Gaussian child whose prefixes the moments hold."""
        return [self._chain(i) for i in GAUSSIAN_FAMILIES.attributes(self).tolist()]

    def _moment_entries(self):
        """(parent prefix, child) of every Gaussian child and every prefix of its chain."""
        entries = []
        numeric = GAUSSIAN_FAMILIES.attributes(self).tolist()
        for i, chain in zip(numeric, self._moment_chains(), strict=True):
            entries += [(tuple(chain[:length]), i) for length in range(len(chain) + 1)]
        return entries

    def _learn_moments(self, source):
        """Count the Gaussian children's moments given every prefix of their parents, for
        the cells the rows reach (one more pass over ``source``, :mod:`._moments`); after
        partial_fit, entries whose parents are unchanged keep their earlier sums.  Refused
        (:class:`~seminaive.exceptions.TableTooLargeError`) when the cells, the pair counts
        and the count trees exceed ``max_table_bytes``."""
        self.__dict__.pop("_gaussian_cache", None)
        if not self.needs_values():
            self.__dict__.pop("_moments", None)
            return
        sizes, k = self.table_.sizes, self.table_.n_classes
        moments = SparseMoments(GAUSSIAN_FAMILIES.attributes(self),
                                self._moment_chains(), sizes, k)
        moments.check_keys()
        previous = getattr(self, "_moments", None)
        if GAUSSIAN_FAMILIES.density(self) == "kde":
            # the grid of the first chunk: the earlier moments' (kept by model files), else
            # the encoder's
            encoder = self.encoder_
            quantiles = getattr(encoder, "numeric_grid_", None)
            if previous is not None and previous.bins is not None:
                moments.attach_grid(previous.grid_edges, previous.grid_bins)
            elif quantiles is None:
                raise ValueError("density='kde' needs an encoder fitted with it "
                                 "(numeric_grid_): fit the model again")
            else:
                moments.attach_grid(*binned.grid_edges(quantiles, encoder.numeric_center_))

        def count(codes, y, w, values):
            return moments.count(codes, y, w, values)

        counted = source.map_reduce(count, merge_cells, values=True)
        if counted is None:
            counted = moments.empty_counted()
        if previous is not None:
            counted = moments.add_previous(counted, previous)
        trees = getattr(self, "_counts", None)
        other = self.table_.counts.nbytes + (0 if trees is None else trees.arrays.nbytes)
        cells = sum(k if not parents else keys.size
                    for (parents, _), (keys, _) in zip(moments.entries, counted, strict=True))
        check_budget(cells, other, self._budget_left(), moments.n_grid)
        self._moments = moments.set_cells(counted)

    def _gaussian_arrays(self):
        """The :class:`._moments.FamilyGaussian` that :func:`._moments.gaussian_family_terms`
        reads (its estimates cached)."""
        cache = getattr(self, "_gaussian_cache", None)
        kappa = self._smoothing_spec().kappa
        density = GAUSSIAN_FAMILIES.density(self)
        if cache is not None and cache[-1] != (kappa, density):
            cache = None  # set_params changed m, smoothing or density since it was made
        if cache is None:
            moments = self._moments
            mean, var, floors = moments.estimates(kappa, class_prior=density == "student")
            kde = moments.kde_estimates() if density == "kde" else None
            chains = [self._chain(i) for i in moments.numeric.tolist()]
            width = max((len(c) for c in chains), default=0)
            chain = np.full((len(chains), max(width, 1)), -1, dtype=np.int64)
            chain_len = np.array([len(c) for c in chains], dtype=np.int64)
            for j, full in enumerate(chains):
                chain[j, :len(full)] = full
            cache = self._gaussian_cache = (chain, chain_len, moments.level_starts(chains),
                                            mean, var, floors, kde, kappa, (kappa, density))
        chain, chain_len, starts, mean, var, floors, kde, kappa, _ = cache
        moments = self._moments
        return FamilyGaussian(chain, chain_len, starts, moments.codes, moments.sums, mean, var,
                              floors, self.table_.sizes, int(self.table_.n_classes),
                              float(kappa), float(self.min_count), density == "student",
                              kde is not None,
                              np.zeros((0, 1)) if kde is None else kde.log_density)

    def _kde_estimates(self):
        """The binned children's estimates (:meth:`._moments.SparseMoments.kde_estimates`)
        of the cached Gaussian children (``density="kde"``)."""
        self._gaussian_arrays()
        return self._gaussian_cache[6]

    def _moment_state(self):
        moments = getattr(self, "_moments", None)
        if moments is None:
            return {}
        return {f"moment_{k}": v for k, v in moments.state().items()}

    def _restore_moments(self, arrays):
        """Rebuild the moments from a model file (ValueError when they do not fit; a file
        of the dense layout of earlier versions is refused)."""
        self.__dict__.pop("_gaussian_cache", None)
        present = [k for k in _MOMENT_KEYS if k in arrays]
        if not self.needs_values():
            if present:
                raise ValueError("moments in a model without Gaussian children")
            self.__dict__.pop("_moments", None)
            return
        if not present:
            raise ValueError("the Gaussian children's moments are missing")
        self._moments = SparseMoments.from_state(
            {k[len("moment_"):]: arrays[k] for k in present}, self._moment_chains(),
            self.table_.sizes, self.table_.n_classes)
        if GAUSSIAN_FAMILIES.density(self) == "kde" and self._moments.bins is None:
            raise ValueError("density='kde' needs the binned counts of the Gaussian "
                             "children (moment_bins), missing from the model file")

    def to_dot(self, class_name="class"):
        """The network as Graphviz DOT text: the class node points to every attribute, each
        parent to its children; nodes carry the feature names."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "table_")
        names = self._feature_labels()
        if class_name in names:
            raise ValueError(f"a feature is named {class_name!r}: pass another class_name")
        lines = [f"digraph {type(self).__name__} {{",
                 f"  {_dot_id(class_name)} [shape=doublecircle];"]
        lines += [f"  {_dot_id(name)};" for name in names]
        lines += [f"  {_dot_id(class_name)} -> {_dot_id(name)};" for name in names]
        active = getattr(self, "_active", np.ones(len(names), dtype=bool))
        lines = [line for line, keep in zip(lines, [True, True] + list(active) + list(active),
                                             strict=True) if keep]
        for i, row in enumerate(self._parents):
            lines += [f"  {_dot_id(names[p])} -> {_dot_id(names[i])};" for p in row if p >= 0]
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _check_loaded_parents(self, arrays, max_parents):
        if (set(arrays) - {"parents", *FAMILY_KEYS, "chain_cmi", _HDP_KEY, _LEGACY_HDP_KEY,
                           *_MOMENT_KEYS}
                or "parents" not in arrays):
            raise ValueError(f"unexpected learned arrays {sorted(arrays)}")
        return check_parents(arrays["parents"], self.table_.n_attributes, max_parents)
