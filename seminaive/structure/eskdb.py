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

import warnings
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral, Real
from typing import Literal

import numpy as np
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .._docs import fill_doc
from .._params import ArrayLike, Choices, Interval, RandomState, Transformer
from ..base import (
    DEFAULT_MAX_TABLE_BYTES,
    HDP_PARAMETERS,
    HDP_SMOOTHING,
    INPUT_PARAMETERS,
    declare,
)
from ..exceptions import TableTooLargeError, warn_user
from ..kernels._jit import get_num_threads
from ..kernels.hdp import sparse_hdp_forest
from ..kernels.hls import sparse_hls_forest
from ..parts import HierarchicalEstimates
from ..preprocessing import AttributeEncoder, RandomizedMDLDiscretizer
from ..tables import FrequencyTable, estimate_table_bytes
from . import _skdb_kernels, _sparse
from ._common import HIERARCHICAL_FAMILIES, EstimateTrees, PairStatistics, _StructureBase
from .skdb import SKDB

#: tries to draw an order different from those already drawn
_ORDER_TRIES = 100

_DISCRETIZATION = ("per_member", "shared")


def sample_orders(mi, n_orders, rng):
    """``n_orders`` attribute orders: the first by decreasing ``mi`` (ties by index), the
    others drawn without replacement with probability proportional to ``mi`` (attributes of
    zero mutual information last, in index order); distinct while that is possible."""
    mi = np.maximum(np.asarray(mi, dtype=np.float64), 0.0)
    orders = [np.argsort(-mi, kind="stable").astype(np.int64)]
    seen = {tuple(orders[0])}
    while len(orders) < n_orders:
        for _ in range(_ORDER_TRIES):
            order = _draw_order(mi, rng)
            if tuple(order) not in seen:
                break
        seen.add(tuple(order))
        orders.append(np.asarray(order, dtype=np.int64))
    return orders


def _draw_order(mi, rng):
    """An attribute order drawn without replacement with probability proportional to the
    (non-negative) ``mi``, the attributes of zero weight last in index order."""
    a = mi.size
    weights = mi.copy()
    order = []
    for _ in range(a):
        total = weights.sum()
        if total <= 0:
            break
        i = int(rng.choice(a, p=weights / total))
        order.append(i)
        weights[i] = 0.0
    return order + [i for i in range(a) if i not in order]


def member_orders(mis, rng):
    """Per-member discretisation: member j's order from its own mutual information
    ``mis[j]``; the first by decreasing mutual information, the others drawn."""
    mis = [np.maximum(np.asarray(mi, dtype=np.float64), 0.0) for mi in mis]
    orders = [np.argsort(-mis[0], kind="stable").astype(np.int64)]
    orders += [np.asarray(_draw_order(mi, rng), dtype=np.int64) for mi in mis[1:]]
    return orders


def value_maps(encoder, masks):
    """Storage-code maps of every member: ``maps[j][c, v]`` is member j's storage code of
    the ensemble's storage code ``v`` of attribute ``c`` (nominal attributes: the identity;
    numeric ones: the bin of the union of cut points to the member's bin, which contains
    it).  ``masks[j][t]``: which cut points of the t-th numeric column member j keeps."""
    n_values = encoder.n_values_
    width = int(n_values.max()) + 1
    numeric = encoder.numeric_columns_.tolist()
    maps = []
    for mask in masks:
        lut = np.tile(np.arange(width, dtype=np.int64), (n_values.size, 1))
        for t, c in enumerate(numeric):
            kept = np.asarray(mask[t], dtype=bool)
            # bin v of the union (0-based) lies in member bin sum(kept[:v])
            bins = np.concatenate([[0], np.cumsum(kept)])
            lut[c, 1:bins.size + 1] = bins + 1
            if n_values[c] > bins.size:  # missing="value": the value for missing comes last
                lut[c, bins.size + 1:] = int(kept.sum()) + 2
        maps.append(lut)
    return maps


def remap_codes(codes, lut, sizes):
    """Storage codes through a member's value map (storage dtype of its ``sizes``)."""
    out = np.empty(codes.shape, dtype=np.uint8 if sizes.max() <= 255 else np.int32,
                   order="F")
    for c in range(codes.shape[1]):
        np.take(lut[c], codes[:, c], out=out[:, c], mode="clip")
    return out


def aggregate_table(table, lut, n_values, max_table_bytes=None):
    """A member's :class:`~seminaive.tables.FrequencyTable` of the same combinations as
    ``table`` over its own values: every cell of ``table`` added to the cell its value map
    sends it to."""
    return table.remapped(lut, n_values, max_table_bytes)


def _families_bytes(families, k, room):
    """Bytes of the count trees ``families`` (``(tree, keys, sizes)``), exactly
    (:func:`._sparse.tree_bytes`) unless a bound shows that they fit in ``room``: every
    level of a tree has at most as many occurring nodes as its keys, so the bound is
    returned when it fits, and the exact bytes only when they may not."""
    bound = sum((1 + len(tree) * int(np.size(keys))) * (_sparse.NODE_BYTES
                                                        + 8 * int(sizes[tree[0]]))
                for tree, keys, sizes in families)
    if bound <= room:
        return bound
    return sum(_sparse.tree_bytes(tree, keys, sizes, k) for tree, keys, sizes in families)


class _KeysOverBudget(Exception):
    """A counting pass over several members stopped: their counted keys (its argument,
    bytes) exceeded what ``max_table_bytes`` leaves them."""


def _keys_bytes(parts):
    """Bytes of counted keys ``parts`` ((keys, counts) each, :func:`._sparse.count_keys`:
    an int64 key and a float64 count per occurring key)."""
    return sum(int(np.asarray(keys).nbytes) + int(np.asarray(counts).nbytes)
               for keys, counts in parts)


def _keys_bound(trees, sizes, k, n_rows):
    """An upper bound on the bytes of the counted keys of the count trees ``trees``
    (i, chain...) before they are counted: 16 bytes per key, at most min(rows, possible
    keys) of them per tree (``n_rows`` None: unknown)."""
    total = 0
    for tree in trees:
        span = _sparse.key_span(tree, sizes, k)
        total += 16 * (span if n_rows is None else min(span, int(n_rows)))
    return total


def _short_trees_bytes(candidates, sizes, k):
    """A bound on the bytes of the count trees of the attributes of fewer than two
    candidates (read from the pair table): every cell occurring."""
    total = 0
    for i, row in enumerate(candidates):
        chain = [int(p) for p in row if p >= 0]
        if len(chain) < 2:
            nodes = 1 + k * (1 + (int(sizes[chain[0]]) if chain else 0))
            total += nodes * (_sparse.NODE_BYTES + 8 * int(sizes[i]))
    return total


def whole_counts(table):
    """Whether the counts of ``table`` are whole numbers whose sums stay exact in float64
    (:meth:`~seminaive.tables.FrequencyTable.has_whole_counts`)."""
    return table.has_whole_counts()


def aggregate_blocks(table, luts, members):
    """Fill the empty tables ``members`` with the counts of ``table`` through each value
    map of ``luts``, every block cumulated once
    (:meth:`~seminaive.tables.FrequencyTable.remapped_into`); False (nothing filled) when
    some map is not runs of consecutive values."""
    return table.remapped_into(luts, members)


def _in_member_order(fn, n_members):
    """``[fn(0), ..., fn(n_members - 1)]``, the calls on up to :func:`numba.get_num_threads`
    threads (each member's leave-one-out pass: its sort, class index and packing run on
    one thread, its walk on all of them); the first error in member order is raised as
    it was.  The warning filters are restored when every call has ended: the calls' own
    ``warnings.catch_warnings`` blocks (which save and restore the process's filters) may
    overlap on the threads and leave another's filter behind."""
    threads = min(get_num_threads(), n_members)
    if threads <= 1:
        return [fn(j) for j in range(n_members)]
    with warnings.catch_warnings(), ThreadPoolExecutor(
            threads, thread_name_prefix="seminaive-eskdb") as pool:
        return list(pool.map(fn, range(n_members)))


def _members_loo(passes, maps=None):
    """The function of a chunk ``(codes, y, w, values)`` that runs every member's
    leave-one-out pass on it (:func:`_in_member_order`; ``maps``: each member's
    ``(lut, sizes)`` when the members have their own cut points, its codes then
    :func:`remap_codes` of the chunk's), the passes of one thread sharing one set of scratch
    arrays (``_skdb_kernels.BufferPool``), and returns the members'
    losses one after another."""

    def loo(codes, y, w, values=None):
        pool = _skdb_kernels.BufferPool()

        def one(j):
            with pool.in_use():
                own = codes if maps is None else remap_codes(codes, *maps[j])
                return passes[j][0](own, y, w, values)

        return np.concatenate(_in_member_order(one, len(passes)))

    return loo


class _RemappedSource:
    """A source whose chunks reach the learner with their codes through a member's value
    map (a :class:`seminaive.protocol.Source` over another one)."""

    def __init__(self, source, lut, sizes):
        self.source, self.lut, self.sizes = source, lut, sizes

    @property
    def n_rows(self):
        return self.source.n_rows

    @property
    def sample_weight(self):
        return self.source.sample_weight

    def chunks(self, values=False):
        for codes, *rest in self.source.chunks(values=values):
            yield (remap_codes(codes, self.lut, self.sizes), *rest)

    def map_reduce(self, fn, *args, **kwargs):
        lut, sizes = self.lut, self.sizes

        def mapped(codes, y, w, *rest):
            return fn(remap_codes(codes, lut, sizes), y, w, *rest)

        return self.source.map_reduce(mapped, *args, **kwargs)


class _Member(SKDB):
    """A member of the ensemble: SKDB on a given attribute order, sharing the ensemble's
    encoder and pair counts (never fitted on its own)."""

    _order_given = None
    #: the order is the ensemble's choice, given before the member learns
    _kept_by_reset = (*SKDB._kept_by_reset, "_order_given", "_cuts_trees")
    #: whether the member keeps, after its selection, only the count trees of its selected
    #: model (:meth:`_cut_trees`; False: over every candidate, the model being the same;
    #: the ensemble's ``candidate_trees``)
    _cuts_trees = False

    def _attribute_order(self, stats):
        return self._order_given

    def _selection_pass(self, source):
        """SKDB's selection pass, whose count trees (over every candidate) the selected
        model then keeps with its own number of parents instead of building them again
        (:meth:`_count_trees`)."""
        loo, finish = super()._selection_pass(source)
        built = self._counts

        def finish_keeping(summed):
            self._selection_trees = built
            try:
                finish(summed)
            finally:
                self.__dict__.pop("_selection_trees", None)

        return loo, finish_keeping

    def _count_trees(self, counted):
        """The selection pass's count trees cut back to the selected model
        (:meth:`_cut_trees`; the trees of an SKDB are over every candidate whatever k),
        else counted afresh (over the cut chains once the member is cut)."""
        built = self.__dict__.get("_selection_trees")
        if built is None:
            return super()._count_trees(counted)
        chains = [[int(p) for p in row if p >= 0] for row in built.chain]
        if chains != [super(_Member, self)._tree_chain(i)
                      for i in range(self.table_.n_attributes)]:
            return super()._count_trees(counted)
        if not self._cuts_trees:
            return _sparse.with_depths(built, self.table_, self._parents, self._budget_left())
        return self._cut_trees(built, counted)

    def _cut_trees(self, built, counted):
        """Keep of the count trees ``built`` over every candidate (the selection pass's) only
        the selected model's: every selected attribute's tree over its first ``k_``
        candidates (its parents), every other attribute's over none (its class counts),
        with the same nodes and counts on the levels kept, bit for bit
        (:func:`._sparse.cut_keys`).  The trees of one or no parent that the whole trees
        read from their counted keys (or, with one candidate, from the pair table) are
        counted trees too, so that their counts stay the whole trees' sums; the cut trees
        become the member's counted families (``_family_counts``, what model files store
        and :meth:`partial_fit` adds to)."""
        sizes = self.table_.sizes
        cut = self._cut_chains_of(self._parents)
        family = {}
        for i, (full, chain) in enumerate(zip(built.chain, cut, strict=True)):
            full = [int(p) for p in full if p >= 0]
            if len(full) < 2 and len(chain) == len(full):
                continue  # read from the pair table, as before the cut
            keys = counted.get((i, *full), (None,))[0] if len(full) >= 2 else None
            family[(i, *chain)] = _sparse.cut_keys(built.levels[i], keys, (i, *full),
                                                   len(chain), sizes)
        self._cut_chains = cut
        self._cut_families = [tree for tree in family]
        self._family_counts = family
        self._family_sizes = np.array(sizes, dtype=np.int64)
        return _sparse.build_count_trees(self.table_, cut, self._parents, family,
                                         self._budget_left())

    def _cut_chains_of(self, parents):
        """Every attribute's chain once cut: its parents (the first of its candidates)."""
        return [[int(p) for p in row if p >= 0] for row in parents]

    def _tree_chain(self, i):
        cut = self.__dict__.get("_cut_chains")
        return super()._tree_chain(i) if cut is None else cut[i]

    def _counted_trees(self):
        """The counted trees: over every candidate (:class:`SKDB`) until the member is cut,
        then those :meth:`_cut_trees` kept."""
        cut = self.__dict__.get("_cut_families")
        return super()._counted_trees() if cut is None else list(cut)

    def _learned_state(self):
        state = super()._learned_state()
        if self.__dict__.get("_cut_chains") is not None:
            state["trees_cut"] = np.ones(1, dtype=np.int64)
        return state

    def _set_learned_state(self, arrays):
        """A model file's member; with ``trees_cut`` its counted trees are those of its
        selected model (:meth:`_cut_trees`), else over every candidate (files written
        before the members were cut)."""
        arrays = dict(arrays)
        flag = arrays.pop("trees_cut", None)
        self.__dict__.pop("_cut_chains", None)
        self.__dict__.pop("_cut_families", None)
        if flag is not None:
            flag = np.asarray(flag)
            if flag.shape != (1,) or flag.dtype.kind not in "iu" or int(flag[0]) != 1:
                raise ValueError("trees_cut must be the array [1]")
            candidates = np.asarray(arrays.get("candidates"))
            selected = np.asarray(arrays.get("selected"))
            a = self.table_.n_attributes
            if (candidates.ndim != 2 or candidates.shape[0] != a
                    or candidates.dtype.kind not in "iu" or selected.shape != (2,)
                    or selected.dtype.kind not in "iu"
                    or not (0 <= selected[0] <= candidates.shape[1] and 0 <= selected[1] <= a)):
                raise ValueError("bad candidates or selected (k, number of attributes)")
            k_sel, s_sel = int(selected[0]), int(selected[1])
            chosen = set(np.asarray(self._order_given)[:s_sel].tolist())
            full = [[int(p) for p in row if p >= 0] for row in candidates]
            cut = [row[:k_sel] if i in chosen else [] for i, row in enumerate(full)]
            self._cut_chains = cut
            self._cut_families = [(i, *chain) for i, chain in enumerate(cut)
                                  if len(full[i]) >= 2 or len(chain) < len(full[i])]
        super()._set_learned_state(arrays)

    def loo_size(self):
        """Length of the flat array its leave-one-out pass returns per chunk."""
        return (int(self.k) + 1) * (self.table_.n_attributes + 1) + 1

    def _estimate_trees(self, loaded=None):
        """While the ensemble gathers its members' HDP (or HLS) trees (``_batch``, a list),
        hand them over instead of estimating them; the ensemble estimates every member's
        trees in one forest and installs the estimates (:meth:`ESKDB._sample_members`)."""
        batch = self.__dict__.get("_batch")
        if loaded is not None or batch is None or self.smoothing not in ("hdp", "hls"):
            return super()._estimate_trees(loaded)
        arrays, trees, _ = self._hdp_sampler_trees()
        batch.append((self, arrays, trees))
        return None


@fill_doc
class ESKDB(_StructureBase):
    """Ensemble of selective KDBs with hierarchical Dirichlet process estimates.

    ``n_estimators`` selective KDBs (:class:`SKDB`, k <= ``k``), each on its own attribute
    order (the first by decreasing mutual information with the class, the others drawn with
    probability proportional to it), each estimating its tables by the HDP of Petitjean et
    al. (2018); the ensemble averages their class probabilities (Zhang, Petitjean & Buntine
    2020).  The members share three passes over the data: the class, attribute and pair
    counts, the union of their families, and their leave-one-out losses.

    Numeric attributes (``discretizer="mdl"``, ``discretization="per_member"``): every
    member has its own randomised MDL discretisation, as in Zhang et al. (2020): a
    :class:`~seminaive.preprocessing.RandomizedMDLDiscretizer` draws one set of cut points
    per member (each cut drawn in proportion to its MDL margin), the ensemble counts its
    pair table once on the union of the members' cut points, and every member aggregates it
    to its own bins, ranks and samples its attribute order by its own mutual information,
    and counts its own families (the members' families and leave-one-out losses still take
    one pass each for all members).  When the pair table over the union and the members'
    would exceed ``max_table_bytes`` (estimated before anything is allocated; the union of
    20 members' cut points has about 1,200 values per attribute on 100,000 rows of
    RandomRBF), the ensemble counts only the class and attribute counts over the union
    and every member counts its own pair table from its own codes in one more pass: the
    same counts and model, ``mutual_info_`` and ``conditional_mutual_info_`` of the
    ensemble are then None, and its model file holds every member's pair table.  The
    union route is chosen only when the pair tables fit with the bytes of their log tables
    as room for what comes later; when it is still refused later (the members' count trees
    or estimates do not fit besides the union's table), :meth:`fit` goes on by the other
    route, the union's table cut to its class and attribute counts (the same model, at the
    cost of the passes done again), instead of refusing.  On
    10,000 rows of RandomRBF (10 numeric attributes) with HLS that route peaked at 990 MiB
    of resident memory against 1,210 MiB for the union route (a 219 MiB pair table) and
    took 0.69 of its fit CPU seconds (best of three fresh processes each, alternated with
    a4fa64f, load 3.5-4.5 on 2 cores); on waveform (40 attributes, a 97 MiB union table)
    1,015 MiB against 1,115 MiB and the same CPU seconds.

    Every member selects its model by leave-one-out on count trees over all its K candidate
    parents and keeps them (``candidate_trees="keep"``, the default); with
    ``candidate_trees="cut"`` it keeps only the trees of its selected model: each selected
    attribute's tree over its first ``k_`` candidates, each other attribute's over none,
    with the same nodes and counts on the levels kept (the same model, bit for bit, and the
    same estimates); its model file and :meth:`partial_fit` read these cut trees. With
    per-member discretisations and ``candidate_trees="cut"``, when the members' trees over
    all K candidates do not fit ``max_table_bytes`` at once (their bytes are counted from
    the occurring keys before any tree is built: 20 members with K = 5 would need 13 GiB on
    100,000 rows of RandomRBF and 7.9 GiB on waveform), the members are selected one at a
    time, each member's trees built, its leave-one-out pass run (one pass over the data per
    member) and its trees cut before the next member's are built, the same model; the fit is
    refused, naming ``max_table_bytes``, only when one member's trees over all K candidates
    do not fit besides the pair tables and the cut trees of the members before it.  That
    refusal, made before the member's trees are allocated, names the budget the member
    needs (the least ``max_table_bytes`` that fits when no member after it needs more) and
    the largest k whose trees over the member's first k candidates fit (their bytes
    counted from its counted keys).  A member's trees are not built in stages: its
    leave-one-out pass scores every k <= K of a row in one walk down each attribute's tree
    over all K candidates, so those trees are held together for its pass.  The
    members' counted keys (an int64 key and a float64 count per occurring key, held from
    the pass that counts them until each member's trees are built; 0.46 GiB for the 19
    members after the first on 100,000 rows of waveform) count in that plan too: when they
    do not fit besides the pair tables the counting pass over every member stops, and when
    the keys of the members after the one being selected do not fit besides its trees they
    are dropped; those members then count their own keys, each in a pass of its own just
    before its selection (the same keys, the same model).  On those waveform rows with HLS
    and ``max_table_bytes`` = 0.7 GiB the fit now holds at most 0.46 GiB by the library's
    accounting (each member counting its own keys; 72 CPU seconds, a peak of 2.03 GiB of
    resident memory), where the version before held 0.85 GiB, over the budget (79.5 CPU
    seconds, 2.20 GiB; one fit each at a load of 5-10, not alternated).  On
    100,000 rows with ``smoothing="hls"`` the fit then took 53 CPU seconds and a peak of 2.0
    GiB of resident memory on RandomRBF, 79 CPU seconds and 2.3 GiB on waveform (one thread,
    at a load of 12-18; refused before). With ``discretization="shared"``, another
    ``discretizer``, or nominal attributes only, the members share one discretisation and
    the union of their families is counted once (its keys held until every member's trees
    are built); with ``candidate_trees="cut"`` the members are then selected one at a time
    likewise when their own trees over all K candidates do not fit at once besides the pair
    table and those keys (the same model). With ``smoothing="m_estimate"`` the members
    are plain SKDBs on perturbed orders.

    The defaults are the settings of Zhang et al.'s experiments (their public code's run
    settings): 20 members, K = 5, 1000 Gibbs iterations of which the first 100 are burn-in
    (Petitjean et al.'s min(1000, iterations / 10)), concentrations tied per tree level,
    leave-one-out selection by RMSE on m-estimates.  What still departs from them:

    * Order of the first member: ranked by decreasing mutual information (as their code for
      nominal data does); their code for numeric data draws every member's order.
    * Attributes of zero mutual information: placed last in a drawn order, in index order,
      and left to the leave-one-out selection; their code for numeric data leaves them out
      of the order.
    * Repeated orders: with the shared discretisation a drawn order equal to one already
      drawn is drawn again, up to 100 times (their code for nominal data until it differs);
      with per-member discretisations repeats are kept, as in their code for numeric data.
    * Cut points: the MDL threshold counts ``N - 1`` candidate cuts (Fayyad & Irani 1993),
      where their code counts only the boundaries between distinct values; the cut points
      are drawn from a sample of at most 100,000 rows (their code uses every row).
    * One ensemble, not independent models: the members share the passes over the data
      (counts, families, leave-one-out losses); each member still has its own tables,
      estimates and random stream, so the model is the same as independent fits would give
      with the same draws.

    Fit time: the HDP sampler (1000 iterations on every member's trees) and the members'
    leave-one-out pass take most of it.  The members' trees are sampled together, as one
    forest spread over the threads (each tree with its own random stream: the estimates
    do not depend on the threads).  ``tol`` > 0 stops each tree's sampler once its averaged
    estimates settle (a departure from the fixed count of Zhang et al.; ``n_iter_`` says
    how many iterations ran), and ``smoothing="hls"`` replaces the sampler by hierarchical
    linear smoothing (Cooper, Webb & Schmidt 2025); ``benchmarks/bench_eskdb.py`` measures
    both against the fixed count and against random forests.  Without the sampler
    (``smoothing="hls"``, magic, 9,510 training rows; one profiled run on a loaded shared
    machine, before the leave-one-out pass visited the rows sorted) the members'
    leave-one-out pass took about 65% of the fit (each row's class
    scores are kept as products of the estimates, not sums of logarithms), the members'
    count trees 8% (built once per member, in its selection pass), HLS 5% (every member's
    trees fitted as one forest, as the HDP trees are sampled), the per-member
    discretisations 5% (20% before their randomised MDL recursion was compiled, in the same
    run), the members' pair tables 4% (every block of the ensemble's table cumulated once
    and read off at each member's bins) and the members' families 3% (12% when their
    bytes were counted exactly every time, not only when a bound does not fit the budget).
    In CPU seconds, best of three fresh processes alternated with the version before these
    changes (load 9-15 on 2 cores, so the wall times say nothing): 0.91 of its fit on
    magic and 0.92 on penbased with HLS, 0.97 and 0.94 with the sampler (without the
    pair-table change), the same model bit for bit.  The leave-one-out pass now visits
    each member's rows sorted by their codes (:class:`SKDB`), so that a row reuses the
    tree walks and counts of the rows before it that share an attribute's value and
    leading candidates' values: the pass takes 0.2 (magic) and 0.35 (penbased) of the
    CPU seconds of the row-by-row pass on the same members, and the whole fit with HLS
    0.38 (magic), 0.59 (penbased), 0.45 (letter) and 0.19 (LED7, 20,000 rows) of the CPU
    seconds of the version before (f770198; best of three fresh processes each,
    alternated, load 7-9), the same model bit for bit; on penbased the pass is still about
    a third of the fit (its rows share few prefixes: 16 attributes of about ten values,
    ten classes), HLS about a fifth (one profiled run).  The members' count trees (every
    level of a tree, then the flat arrays of its nodes) and their pair tables (read off the
    cumulated blocks, one member per thread) are now built by compiled kernels: the fit
    with HLS took 0.88 (penbased), 0.92 (letter) and 0.91 (LED7) of the CPU seconds of the
    version before (453c4d7; best of three fresh processes each, alternated, load 6-9),
    the same model bit for bit.  In one single-thread profile of letter (6.5 CPU-s) the
    leave-one-out pass took 4.3 s, HLS 1.6 s (about 40% of it the final Newton fit with
    conjugate gradients, after the penalties are chosen) and everything else 0.65 s.
    The leave-one-out pass then walked the count trees merged over the classes (one search
    per candidate for every class, :class:`SKDB`): with it the fit with HLS took 0.92
    (magic), 0.80 (penbased), 0.69 (letter) and 0.65 (LED7) of the CPU seconds of 453c4d7
    (best of three fresh processes each, alternated, nothing else running), the same model
    bit for bit, and 0.42, 3.7, 5.2 and 1.0 times as long as the forest in wall seconds
    (5 members with HLS: 0.10, 0.79, 1.3 and 0.29 times).  The members' selection passes
    now read the pair statistics the ensemble computed on their tables (each member
    computed them again), and the ensemble's table is cumulated a run of blocks at a time
    into a buffer of at most 4 MB (before: one cumulated copy of the whole table, 60 MB on
    penbased, whose fresh pages cost more than the cumulation): the first fit of a process
    with HLS took 0.80 (penbased) and 0.95 (letter) of the CPU seconds of 6739c38 (one
    thread, best of three fresh processes each, alternated, load 10-12), the same model
    bit for bit.  HLS was left as it is: a Newton step fused into fewer passes over the
    nodes, the same numbers, took the same time (the passes are bound by their arithmetic,
    not by memory).  HLS's last Newton fit now stops on a bound of its distance to the
    optimum and no longer halves its steps on the objective's rounding
    (:mod:`seminaive.kernels.hls`): the HLS fit of letter's and penbased's members took
    0.84 and 0.83 of the CPU seconds of cbe3c48 (one thread, best of three fresh processes
    each, alternated, load 12), and the probabilities moved by at most 9e-9 (the fit
    before stopped up to ~1e-8 short of the optimum); the whole fit 0.98 of the CPU
    seconds on both (load 13).
    The members' selection passes (their count trees over every candidate, about an
    eighth of letter's CPU seconds with HLS) run one member per thread, the budget checked
    afterwards member by member as one after another (the same trees and refusals).
    No configuration fits within the time of a random forest of 100 trees on every set of
    10,000 rows or more.  In an earlier run, ``smoothing="hls"`` took 0.34 (magic), 5.2
    (penbased), 8.0 (letter) and 1.5 times (LED7) as long as the forest in wall seconds
    (the version before: 0.82, 9.8, 21 and 6.8 in the same processes), and 5 members with
    HLS, the fastest configuration, 0.07, 1.1, 2.6 and 0.38 times (0.20, 2.3, 4.8 and
    1.3 before); in one fit each at load 6-9, HLS took 0.93 (magic) and 9.6 times
    (penbased), 5 members 0.25 and 2.1 times (the ratios move with the machine's load:
    1.8 and 4.2, 0.60 and 1.00 in an earlier run of the version before).  Waveform with 40
    attributes (20,000 rows) was not measured again: 8.2 times with HLS and 1.25 times
    with 5 members before these changes.  The zero-one loss stays higher than the
    forest's (magic: 0.148 against 0.124; letter: 0.086 against 0.047) (results: ESKDB
    against random forest and gradient boosting at 10,000 rows and more; ESKDB's fit
    against an earlier version of the library).

    :meth:`partial_fit` chooses the members' orders, candidates, models and cut points on
    the first chunk and keeps them for later chunks, whose rows every member counts into
    the count trees of its selected model (no row is dropped; the HDP estimates are
    sampled again on all the counts); a warning says that :meth:`fit` on all the rows may
    choose differently.  As the members' k and attributes are not selected again, their
    trees over the candidates they did not select are not kept: the model after
    :meth:`partial_fit` is the one the trees over every candidate would give.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    estimators_ : list of SKDB
        The members, sharing ``encoder_`` and ``table_``.
    orders_ : ndarray of shape (n_estimators, n_features)
        The attribute order of every member.
    member_cut_points_ : list of list of ndarray, or None
        Per-member discretisation: ``member_cut_points_[j][t]``, the cut points of member
        j on the t-th numeric attribute (None when the members share one discretisation).
    n_iter_ : ndarray of shape (n_estimators,)
        The Gibbs iterations of every member's longest-running HDP tree (``n_iter`` unless
        ``tol`` stopped them early; 0 without ``smoothing="hdp"``).
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

    parts = (HIERARCHICAL_FAMILIES,)
    #: the ensemble's and members' pair tables are checked by their counts, as the other
    #: structure learners' (their log tables are never built); only the choice between the
    #: union's table and the members' own (:meth:`_new_table`) keeps the log tables' bytes,
    #: as the margin the members' count trees and estimates need later
    _table_counts_only = True

    @property
    def _table_options(self):
        """What would make the ensemble's pair table fit: with per-member discretisations
        it counts the union of every member's cut points."""
        shared = ("discretization=\"shared\" (the pair table counts the union of every "
                  "member's cut points), " if self._draws_cuts() else "")
        return shared + _StructureBase._table_options
    _parameter_constraints = declare(
        "k", "loss", INPUT_PARAMETERS, HDP_PARAMETERS,
        n_estimators=[Interval(Integral, 1, None, closed="left")], smoothing=HDP_SMOOTHING,
        discretization=[Choices(*_DISCRETIZATION)],
        tol=[Interval(Real, 0, None, closed="left")],
        candidate_trees=[Choices("keep", "cut")])
    _parameter_docs = {
        "n_estimators": """
        n_estimators : int, default=20
            Number of selective KDBs (the ensemble size of Zhang et al.'s experiments).
        """,
        "k": """
        k : int, default=5
            Largest number of attribute parents of every member, K.
        """,
        "smoothing": """
        smoothing : {"hdp", "m_estimate", "laplace", "hls"}, default="hdp"
            How the members estimate their tables (see :class:`KDB`); the leave-one-out
            selection always uses m-estimates, as in Zhang et al. (2020).
        """,
        "m": """
        m : float, default=1.0
            The m of m-estimation (the selection, P(y), and ``smoothing="m_estimate"``).
        """,
        "min_count": "structure_min_count",
        "missing": "structure_missing",
        "discretization": "eskdb_discretization",
        "candidate_trees": """
        candidate_trees : {"keep", "cut"}, default="keep"
            What every member keeps of its count trees over all K candidate parents after
            its leave-one-out selection.  "keep": all of them (the model holds what its
            selection passes needed).  "cut": only those of its selected model, its k and
            attributes: the same model bit for bit, in less memory, and the same after
            :meth:`partial_fit` (which keeps the members' choices and counts later chunks
            into these trees); when the members' trees over every candidate do not fit
            ``max_table_bytes`` together (with either ``discretization``), the members are
            then selected one at a time, so that the peak is one member's trees over every
            candidate besides the others' cut trees.  For data whose count trees are large
            (numeric attributes at 10^5 rows and more).
        """,
        "tol": """
        tol : float, default=0.0
            0: every HDP tree runs ``n_iter`` Gibbs iterations (Zhang et al. 2020).  Above 0:
            a tree stops early once its averaged estimates move by less than ``tol``
            between two checks 50 kept iterations apart, within ``n_iter`` iterations (a
            ``ConvergenceWarning`` names the trees that reach ``n_iter`` first); a departure
            from the paper that trades a little of the estimates' precision for fit time
            (``tol=0.01`` halves the fit on the sets of ``benchmarks/bench_eskdb.py`` with
            the same zero-one loss and log loss, within 0.0004).
        """,
    }

    def __init__(
        self,
        n_estimators: int = 20,
        k: int = 5,
        *,
        loss: Literal["rmse", "zero_one", "log_loss"] = "rmse",
        smoothing: Literal["m_estimate", "laplace", "hdp", "hls"] = "hdp",
        m: float = 1.0,
        min_count: float = 1,
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
        n_iter: int = 1000,
        burn_in: int | None = None,
        tying: Literal["none", "parent", "level", "single"] = "level",
        discretization: Literal["per_member", "shared"] = "per_member",
        tol: float = 0.0,
        candidate_trees: Literal["keep", "cut"] = "keep",
    ) -> None:
        self.n_estimators = n_estimators
        self.k = k
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
        self.n_iter = n_iter
        self.burn_in = burn_in
        self.tying = tying
        self.discretization = discretization
        self.tol = tol
        self.candidate_trees = candidate_trees

    def _check_params(self):
        super()._check_params()
        # the rules of the members (SKDB with this ensemble's parameters)
        self._member(0).set_params(random_state=0)._check_params()

    def _draws_cuts(self):
        """Whether each member draws its own cut points (randomised MDL)."""
        return self.discretization == "per_member" and isinstance(self.discretizer, str) \
            and self.discretizer == "mdl"

    def _make_encoder(self):
        if not self._draws_cuts():
            return super()._make_encoder()
        disc = RandomizedMDLDiscretizer(n_draws=int(self.n_estimators),
                                        random_state=self.random_state)
        return AttributeEncoder(discretizer=disc, n_bins=self.n_bins, missing=self.missing,
                                categorical_features=self.categorical_features,
                                random_state=self.random_state)

    def _planned_member_values(self, encoder):
        """The value counts of every member's attributes (per-member cut points drawn by
        ``encoder``), or None when the members share one discretisation."""
        disc = getattr(encoder, "discretizer_", None)
        if (encoder is None or not self._draws_cuts() or encoder.numeric_columns_.size == 0
                or not isinstance(disc, RandomizedMDLDiscretizer)):
            return None
        union = encoder.cut_points()
        sizes = []
        for cuts in disc.draw_cut_points_:
            n_values = encoder.n_values_.copy()
            for t, c in enumerate(encoder.numeric_columns_.tolist()):
                n_values[c] -= int(union[t].size - np.intersect1d(union[t], cuts[t]).size)
            sizes.append(n_values)
        return sizes

    def _new_table(self, n_values, n_classes, encoder=None):
        """The ensemble's table, planned with the members' pair tables within
        ``max_table_bytes`` (estimated before anything is allocated).  With per-member cut
        points the ensemble counts its pair table over the union of the members' cut points
        and aggregates every member's from it (:meth:`_member_tables`) when both fit; when
        they do not, the ensemble counts only the class and attribute counts over the union
        and every member counts its own pair table from its own codes in an extra pass
        (:meth:`_counted_member_tables`), the same counts.

        The tables are checked by their counts (``_table_counts_only``): the members' own
        are refused only when their counts and the ensemble's attribute counts exceed
        ``max_table_bytes``.  The union route is taken only when the tables fit with the
        bytes of their log tables (about twice the counts), which the structure learners
        never build: the union's table stays held for the whole fit, and chosen by its
        counts alone it would leave no room for the members' count trees and estimates at
        budgets under which the members' own tables leave it (the fit then refused at
        their estimates, not counted before this choice).  Should the union route still be
        refused later, the fit goes on by the members' own tables
        (:meth:`_learn_from_counts`)."""
        sizes = self._planned_member_values(encoder)  # (the members' cut points)
        if sizes is None or self.max_table_bytes is None:
            return super()._new_table(n_values, n_classes, encoder)
        budget = int(self.max_table_bytes)
        planned = [estimate_table_bytes(s, n_classes, 2) for s in sizes]
        members = sum(p["total"] for p in planned)
        union = estimate_table_bytes(n_values, n_classes, 2)
        if union["total"] + members <= budget:
            return super()._new_table(n_values, n_classes, encoder)
        members, union = sum(p["counts"] for p in planned), union["counts"]
        single = estimate_table_bytes(n_values, n_classes, 1)["counts"]
        if single + members > budget:
            raise TableTooLargeError(
                f"the pair tables of the {len(sizes)} members, each on its own "
                f"discretisation, would need {_sparse.gib(members)} even when each member "
                f"counts its own (over the union of their cut points: {_sparse.gib(union)}"
                f" more), more than max_table_bytes={_sparse.gib(budget)}: use fewer "
                "members, discretization=\"shared\", or raise max_table_bytes")
        return FrequencyTable(n_values, n_classes, 1, self.max_table_bytes,
                              counts_only=self._table_counts_only)

    def _attribute_table(self):
        """The ensemble's table of the union's class and attribute counts only (those of
        its table over the pairs, the blocks of order 0 and 1 coming first), the route of
        :meth:`_new_table` where every member counts its own pair table."""
        union = self.table_
        return FrequencyTable.from_state(
            {"sizes": union.sizes, "counts": union.counts[:union.cell_start(2)
                                                          * union.n_classes],
             "meta": np.array([union.n_classes, 1], dtype=np.int64),
             "n_rows": np.array([union.n_rows])},
            self.max_table_bytes, counts_only=self._table_counts_only)

    def _pairs_apart(self):
        """Whether the members count their own pair tables (the ensemble's table holds no
        pairs: :meth:`_new_table`)."""
        return self._per_member() and not self._table_holds_pairs()

    def _table_holds_pairs(self):
        """Whether the ensemble's table holds the pair counts (not when its members count
        their own, :meth:`_new_table`; with a single attribute there are none to hold)."""
        return self.table_.max_order >= min(2, self.table_.sizes.size)

    def _member_sizes(self):
        """Every member's numbers of values of the attributes (its cut points a subset of
        the union's: ``_member_masks``)."""
        sizes = []
        for masks in self._member_masks:
            n_values = self.encoder_.n_values_.copy()
            for t, c in enumerate(self.encoder_.numeric_columns_.tolist()):
                n_values[c] -= int((~masks[t]).sum())
            sizes.append(n_values)
        return sizes

    def _counted_member_tables(self, source, previous=None):
        """Every member's pair table counted from its own codes in one pass over
        ``source`` (``previous``: the members' tables of earlier ``partial_fit`` chunks,
        added), within ``max_table_bytes`` with the ensemble's table."""
        sizes = self._member_sizes()
        k = self.table_.n_classes
        maps = self._member_maps

        def new_tables():
            tables = []
            for n_values in sizes:
                budget = None
                if self.max_table_bytes is not None:
                    budget = int(self.max_table_bytes) - self.table_.nbytes - sum(
                        t.nbytes for t in tables)
                tables.append(FrequencyTable(n_values, k, 2, budget,
                                             counts_only=self._table_counts_only))
            return tables

        def count(codes, y, w):
            tables = new_tables()
            for table, lut in zip(tables, maps, strict=True):
                table.add(remap_codes(codes, lut, table.sizes), y, w)
            return tables

        def combine(tables, more):
            for table, other in zip(tables, more, strict=True):
                table.merge(other)
            return tables

        tables = source.map_reduce(count, combine)
        if tables is None:
            tables = new_tables()
        if previous is not None:
            tables = combine(tables, previous)
        return tables

    def _table_orders(self, encoder):
        """With per-member cut points the ensemble's table may hold the attribute counts
        only, its members then holding their own pair tables (:meth:`_new_table`)."""
        order = int(self._table_order())
        return (1, order) if self._draws_cuts() and order >= 2 else None

    def _per_member(self):
        """Whether the fitted members have their own discretisations."""
        return getattr(self, "member_cut_points_", None) is not None

    def _set_member_cuts(self, cuts):
        """Install the members' cut points (list per member of list per numeric column)
        and their value maps into the ensemble's codes; None: shared discretisation."""
        self.member_cut_points_ = cuts
        if cuts is None:
            self.__dict__.pop("_member_maps", None)
            return
        union = self.encoder_.cut_points()
        masks = [[np.isin(u, c) for u, c in zip(union, member, strict=True)]
                 for member in cuts]
        self._member_masks = masks
        self._member_maps = value_maps(self.encoder_, masks)

    def _member_tables(self):
        """Every member's pair table, aggregated from the ensemble's; all of them and the
        ensemble's within ``max_table_bytes`` (each checked before it is allocated).

        With whole counts (no fractional weights) every block of the ensemble's table is
        cumulated along its axes once, and every member's block read off the cumulated
        block at its bins' ends (:func:`aggregate_blocks`: exact sums of whole numbers, the
        same counts as :func:`aggregate_table`'s sums along the axes, bit for bit), so the
        ensemble's table is read once rather than once per member."""
        sizes = self._member_sizes()
        budget = self.max_table_bytes
        if whole_counts(self.table_):
            tables = []
            for n_values in sizes:
                if budget is not None:
                    budget = int(self.max_table_bytes) - self.table_.nbytes - sum(
                        t.nbytes for t in tables)
                tables.append(FrequencyTable(n_values, self.table_.n_classes,
                                             self.table_.max_order, budget,
                                             counts_only=self._table_counts_only))
            if aggregate_blocks(self.table_, self._member_maps, tables):
                return tables
        tables = []
        for lut, n_values in zip(self._member_maps, sizes, strict=True):
            if budget is not None:
                budget = int(self.max_table_bytes) - self.table_.nbytes - sum(
                    t.nbytes for t in tables)
            tables.append(aggregate_table(self.table_, lut, n_values, budget))
        return tables

    def _held_apart_from(self, member, members):
        """Bytes the fit holds outside ``member``'s own structures and its pair table: the
        ensemble's table (when the members have their own) and the other members' tables,
        count trees, HDP estimates and moments."""
        held = 0 if member.table_ is self.table_ else self.table_.nbytes
        for other in members:
            if other is not member:
                held += other._held_bytes()
                if other.table_ is not self.table_:
                    held += other.table_.nbytes
        return held

    def _member_passes(self, members, sources, everyone=None):
        """Every member's selection pass (its count trees over every candidate), each
        within what the others (of ``everyone``, by default ``members``) already hold of
        ``max_table_bytes``.

        The passes run on up to :func:`numba.get_num_threads` threads
        (:func:`_in_member_order`; each member builds its own trees from its own counts,
        so the trees are those of the passes one after another), and the budget is then
        checked member by member as the passes one after another check it: member j's
        trees within what the tables and the members before it hold
        (:meth:`_check_member_trees`), the same refusal with the same message.  A pass
        refused on a thread (its budget there counts no other member's trees, so the
        passes one after another would refuse too, maybe an earlier member) runs the
        passes again one after another, from what they were given, for the error those
        raise."""
        given = [{key: member.__dict__[key] for key in ("_stats_given", "_counted_families")
                  if key in member.__dict__} for member in members]
        if min(get_num_threads(), len(members)) > 1:
            for member in members:  # (no member holds trees yet: the tables)
                member._held_elsewhere = self._held_apart_from(member, everyone or members)
            try:
                passes = _in_member_order(
                    lambda j: members[j]._selection_pass(sources[j]), len(members))
            except TableTooLargeError:
                for member, kept in zip(members, given, strict=True):
                    for key in ("_counts", "_moments"):
                        member.__dict__.pop(key, None)
                    member.__dict__.update(kept)
            else:
                self._check_member_trees(members, everyone)
                return passes
        passes = []
        for member, source in zip(members, sources, strict=True):
            member._held_elsewhere = self._held_apart_from(member, everyone or members)
            passes.append(member._selection_pass(source))
        return passes

    def _check_member_trees(self, members, everyone=None):
        """Refuse (:class:`TableTooLargeError`) the members' count trees as their selection
        passes one after another would: member j's within ``max_table_bytes`` less the
        tables and the members before it (of ``everyone``, by default ``members``;
        ``_held_elsewhere`` left as those passes leave it)."""
        after = sum(m._held_bytes() for m in members)
        for member in members:
            after -= member._held_bytes()  # (the members after this one: none held yet)
            member._held_elsewhere = self._held_apart_from(member, everyone or members) - after
            if self.max_table_bytes is not None:
                arrays = member._counts.arrays
                _sparse.check_tree_bytes(arrays.code.size, arrays.values.size,
                                         member.table_, member._budget_left())

    def _member(self, seed, order=None):
        member = _Member(k=int(self.k), loss=self.loss, select="both", smoothing=self.smoothing,
                         m=self.m, min_count=self.min_count, discretizer=self.discretizer,
                         n_bins=self.n_bins, missing=self.missing,
                         categorical_features=self.categorical_features,
                         max_table_bytes=self.max_table_bytes, random_state=seed,
                         n_iter=self.n_iter, burn_in=self.burn_in, tying=self.tying)
        member._order_given = order
        member._cuts_trees = self.candidate_trees == "cut"
        return member

    def _share(self, member):
        """Give ``member`` the ensemble's encoder, counts and fitted input attributes."""
        for name in ("encoder_", "table_", "classes_", "n_features_in_", "feature_names_in_"):
            if hasattr(self, name):
                setattr(member, name, getattr(self, name))
        return member

    def _learn_from_counts(self, source):
        if self._table_holds_pairs():
            stats = PairStatistics(self.table_)
            self.mutual_info_ = stats.mi
            self.conditional_mutual_info_ = stats.cmi
        else:  # no pairs over the union: the members count their own (:meth:`_new_table`)
            stats = None
            self.mutual_info_ = self.conditional_mutual_info_ = None
        kept = self._keeps_choice("estimators_")
        if not kept:
            numeric = self.encoder_.numeric_columns_.size > 0
            disc = getattr(self.encoder_, "discretizer_", None)
            self._set_member_cuts(disc.draw_cut_points_ if numeric and isinstance(
                disc, RandomizedMDLDiscretizer) else None)
        if self._per_member():
            if kept or not self._table_holds_pairs() or self.max_table_bytes is None \
                    or self.table_.moments is not None:
                self._learn_per_member(source, kept)
                return
            stats = None  # (it reads the union's table)
            try:
                self._learn_per_member(source, kept)
                return
            except TableTooLargeError:
                pass  # (the failed route's tables and trees go with the traceback)
            # the union's pair table left no room for the members' trees or estimates: the
            # members count their own pair tables instead (:meth:`_new_table`)
            self.table_ = self._attribute_table()
            self.mutual_info_ = self.conditional_mutual_info_ = None
            self._learn_per_member(source, kept)
            return
        if kept:
            # the members keep their orders, candidates and selections; their families and
            # moments take this chunk
            self._warn_choice_kept("members' attribute orders, candidates and selections")
            def install():
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", r".*partial_fit keeps", UserWarning)
                    for member in self.estimators_:
                        member._held_elsewhere = self._held_apart_from(member,
                                                                       self.estimators_)
                        self._share(member)._learn_from_counts(source)

            self._sampling_together(self.estimators_, install)
            return
        rng = check_random_state(self.random_state)
        orders = sample_orders(stats.mi, int(self.n_estimators), rng)
        seeds = rng.randint(0, 2 ** 31 - 1, size=len(orders))
        members = [self._member(int(s), o) for s, o in zip(seeds, orders, strict=True)]
        for member in members:
            self._share(member)
        needs, keys = self._count_shared_families(members, stats, source)
        for member in members:  # their selection passes read the ensemble's statistics
            member._stats_given = stats
        sources = [source] * len(members)
        if needs is None:  # every member's trees over all K candidates fit at once
            passes = self._member_passes(members, sources)
            self._finish_members(members, passes, source.map_reduce(_members_loo(passes)))
            return
        self._one_at_a_time(members, sources, None, needs, source, shared_keys=keys)

    def _learn_per_member(self, source, kept):
        """Fit with per-member discretisations: each member on its own aggregated pair
        table and remapped codes; one pass for all the members' families, one for all
        their leave-one-out losses."""
        if self._pairs_apart():
            tables = self._counted_member_tables(
                source, [m.table_ for m in self.estimators_] if kept else None)
        else:
            tables = self._member_tables()
        if kept:
            self._warn_choice_kept("members' attribute orders, candidates, selections and cut "
                                   "points")
            def install():
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", r".*partial_fit keeps", UserWarning)
                    for member, table, lut in zip(self.estimators_, tables,
                                                  self._member_maps, strict=True):
                        self._share(member).table_ = table
                        member._held_elsewhere = self._held_apart_from(member,
                                                                       self.estimators_)
                        member._learn_from_counts(_RemappedSource(source, lut, table.sizes))

            self._sampling_together(self.estimators_, install)
            return
        rng = check_random_state(self.random_state)
        stats = [PairStatistics(t) for t in tables]
        orders = member_orders([st.mi for st in stats], rng)
        seeds = rng.randint(0, 2 ** 31 - 1, size=len(orders))
        members = [self._member(int(s), o) for s, o in zip(seeds, orders, strict=True)]
        for member, table in zip(members, tables, strict=True):
            self._share(member).table_ = table
        sources = [_RemappedSource(source, lut, t.sizes)
                   for lut, t in zip(self._member_maps, tables, strict=True)]
        needs, keys = self._count_member_families(members, stats, source)
        for member, st in zip(members, stats, strict=True):  # computed on its table already
            member._stats_given = st
        maps = [(lut, t.sizes) for lut, t in zip(self._member_maps, tables, strict=True)]
        if needs is None:  # every member's trees over all K candidates fit at once
            passes = self._member_passes(members, sources)
            self._finish_members(members, passes,
                                 source.map_reduce(_members_loo(passes, maps)))
            return

        self._one_at_a_time(members, sources, maps, needs, source,
                            lambda start: self._plan_keys(members, stats, source, start,
                                                          needs, keys))

    def _one_at_a_time(self, members, sources, maps, needs, source, plan=None,
                       shared_keys=0):
        """Select the members one at a time (:meth:`_next_group`; ``needs``: the bytes of
        every member's trees over all K candidates), each member's trees built, its
        leave-one-out pass run and its trees cut before the next member's are built
        (``maps``: the members' value maps, None when they share the ensemble's codes;
        ``plan(start)``: called before the member at ``start`` is selected;
        ``shared_keys``: the bytes of the counted keys the members share, held meanwhile)."""

        def install():
            start = 0
            while start < len(members):
                if plan is not None:
                    plan(start)
                stop = self._next_group(members, start, needs, shared_keys)
                group = members[start:stop]
                passes = self._member_passes(group, sources[start:stop], members)
                summed = source.map_reduce(_members_loo(
                    passes, None if maps is None else maps[start:stop]))
                self._finish_group(group, passes, summed, members)
                del passes, summed  # the group's trees over all K candidates
                start = stop

        self._sampling_together(members, install)
        self._members_chosen(members)

    def _held_before(self, members, start, shared_keys=0):
        """Bytes held when the member at ``start`` is selected one at a time: the pair
        tables (each once: the members may share the ensemble's), the counted keys the
        members share (``shared_keys``, bytes, with one discretisation) and the cut trees of
        the members before it."""
        tables = {id(t): t.nbytes for t in [self.table_, *(m.table_ for m in members)]}
        return sum(tables.values()) + int(shared_keys) + sum(
            m._held_bytes() for m in members[:start])

    def _plan_keys(self, members, stats, source, start, needs, keys):
        """Before the member at ``start`` is selected (one at a time): its counted keys, and
        those of the members after it that are held, within ``max_table_bytes`` with its
        trees (``needs[start]``) and what :meth:`_held_before` it.  The counted keys of the
        members after it are dropped when they do not fit (each member then counts its
        own, alone, in a pass of its own just before its selection: the same keys, the
        same model); the member's own keys, when they were dropped or never counted
        (the pass over every member stopped, :class:`_KeysOverBudget`), are counted here
        (``needs`` and ``keys`` updated in place).  The member's own keys are not counted
        against its trees, as a KDB's are not."""
        if keys[start] is None:
            own, counted = self._count_member_families(members, stats, source, [start])
            needs[start], keys[start] = own[start], counted[start]
            return
        later = [j for j in range(start + 1, len(members)) if keys[j] is not None]
        pending = sum(keys[j] for j in later)
        if pending and (self._held_before(members, start) + pending + needs[start]
                        > int(self.max_table_bytes)):
            for j in later:
                members[j].__dict__.pop("_counted_families", None)
                keys[j] = None

    def _next_group(self, members, start, needs, shared_keys=0):
        """The end of the next group of members whose selection passes run together when
        their count trees over all K candidates do not fit ``max_table_bytes`` at once:
        the member at ``start`` alone (the peak is then one member's trees over all K
        candidates besides the pair tables and the cut trees of the members before it,
        :meth:`_Member._cut_trees`; its leave-one-out pass costs what it costs among the
        others), once its trees (``needs[start]``, bytes) are known to fit; refused
        (:class:`TableTooLargeError`) when they do not; ``shared_keys``: see
        :meth:`_held_before`."""
        held = self._held_before(members, start, shared_keys)
        room = int(self.max_table_bytes) - held
        if needs[start] > room:
            fits = self._member_k_fitting(members[start], room)
            smaller = ("a smaller k" if fits is None else
                       f"k <= {fits} (its trees over its first {fits} candidates fit)")
            raise TableTooLargeError(
                f"member {start} of {len(members)}: its count trees over all "
                f"K={int(self.k)} candidates would need {_sparse.gib(needs[start])} besides "
                f"{_sparse.gib(held)} of pair tables, counted keys and the cut trees of the "
                f"members before it, more than max_table_bytes="
                f"{_sparse.gib(self.max_table_bytes)}: raise max_table_bytes to at least "
                f"{held + needs[start]:,} (what this member needs; a member after it may "
                f"need more), use {smaller}, or fewer members")
        return start + 1

    def _member_k_fitting(self, member, room):
        """The largest k < K whose count trees of ``member`` (its trees over its first k
        candidates, cut from its counted keys: :func:`._sparse.tree_bytes` of the cut keys,
        the trees of fewer than two parents bounded as :func:`_short_trees_bytes` bounds
        them) fit ``room`` bytes, or None (none does, or the keys are not held)."""
        stats = member.__dict__.get("_stats_given")
        counted = member.__dict__.get("_counted_families")
        if stats is None or counted is None:
            return None
        candidates, _, trees = member._plan(stats)
        sizes, k = member.table_.sizes, self.table_.n_classes
        if any(t not in counted for t in trees):
            return None
        for fits in range(int(self.k) - 1, -1, -1):
            need = _short_trees_bytes(candidates[:, :max(fits, 1)] if fits else
                                      np.full((len(candidates), 1), -1), sizes, k)
            for tree in trees:
                cut = tree[:1 + fits]
                if len(cut) < 3:
                    continue
                keys = np.asarray(counted[tree][0], dtype=np.int64)
                V, drop = int(sizes[tree[0]]), 1
                for p in tree[1 + fits:]:
                    drop *= int(sizes[p])
                need += _sparse.tree_bytes(cut, np.unique(keys // V // drop * V + keys % V),
                                           sizes, k)
            if need <= room:
                return fits
        return None

    def _sampling_together(self, members, install):
        """Run ``install()`` (which installs the members' models) with the members handing
        their HDP trees over instead of sampling them, then sample every member's trees
        in one forest (:meth:`_sample_members`)."""
        batch = []
        for member in members:
            member._batch = batch
        try:
            install()
        finally:
            for member in members:
                member.__dict__.pop("_batch", None)
        self._sample_members(members, batch)

    def _sample_members(self, members, batch):
        """Sample the HDP trees of every member in ``batch`` (``(member, arrays, trees)``)
        as one forest: the trees go to the threads largest first whichever member they
        belong to, each with the seed it has when its member samples alone (the estimates
        are the same); install them and ``n_iter_``.  With ``smoothing="hls"``, fit the HLS
        estimates of every member's trees as one forest likewise (every tree is fitted on
        its own: the same estimates as member by member, where a member's few small trees
        would run on one thread).  Within ``max_table_bytes`` less the pair tables and every
        member's count trees."""
        self.n_iter_ = np.zeros(len(members), dtype=np.int64)
        if not batch:
            return
        part = batch[0][0]._part(HierarchicalEstimates)
        trees = [tree for _, _, own in batch for tree in own]
        budget = None
        if self.max_table_bytes is not None:
            tables = {id(t): t.nbytes for t in [self.table_, *(m.table_ for m in members)]}
            budget = (int(self.max_table_bytes) - sum(tables.values())
                      - sum(m._held_bytes() for m in members))
        ran = np.zeros(len(trees), dtype=np.int64)
        if self.smoothing == "hls":
            estimates = sparse_hls_forest(trees, max_bytes=budget)
        else:
            seeds = np.concatenate([np.zeros(0, np.uint64)] + [
                part.seeds(member, len(own)) for member, _, own in batch])
            estimates = sparse_hdp_forest(trees, n_iter=int(self.n_iter),
                                          burn_in=part.burn_in(self), tying=self.tying,
                                          seeds=seeds, max_bytes=budget, tol=float(self.tol),
                                          iterations=ran)
        start = 0
        index = {id(m): j for j, m in enumerate(members)}
        for member, arrays, own in batch:
            stop = start + len(own)
            flat = (np.concatenate([e.ravel() for e in estimates[start:stop]]) if own
                    else np.zeros(0))
            arrays.values = flat
            member._trees = EstimateTrees(member._counts.chain, member._counts.depth, arrays,
                                          flat, np.log(flat))
            if own and self.smoothing == "hdp":
                self.n_iter_[index[id(member)]] = int(np.abs(ran[start:stop]).max())
            start = stop
        short = int(np.count_nonzero(ran < 0))
        if short:
            warn_user(f"the HDP sampler of {short} of {len(trees)} trees reached n_iter="
                      f"{int(self.n_iter)} before its averaged estimates moved by less than "
                      f"tol={self.tol}: raise n_iter or tol", ConvergenceWarning)

    def _finish_members(self, members, passes, summed):
        self._sampling_together(members,
                                lambda: self._finish_group(members, passes, summed, members))
        self._members_chosen(members)

    def _finish_group(self, group, passes, summed, everyone):
        """Select and install the models of the members of ``group`` from their summed
        leave-one-out losses ``summed`` (each member's structure within what the others
        of ``everyone`` hold), which cuts their count trees back to their selected
        models (:meth:`_Member._cut_trees`)."""
        start = 0
        for (_, finish), member in zip(passes, group, strict=True):
            member._held_elsewhere = self._held_apart_from(member, everyone)
            if summed is None:
                finish(None)
                continue
            size = member.loo_size()
            finish(summed[start:start + size])
            start += size

    def _members_chosen(self, members):
        for member in members:
            member._mark_choice()
        self.estimators_ = members
        self._mark_choice()
        self.orders_ = np.array([m._order_given for m in members], dtype=np.int64)

    def _count_member_families(self, members, stats, source, group=None):
        """Count the count trees of the members of ``group`` (indices into ``members``;
        None: every member) on their own codes, all in one pass; the members' trees, their
        counted keys and the pair tables within ``max_table_bytes``.

        Returns ``(needs, keys)``: ``needs`` is None when every member's trees over all K
        candidates fit at once besides the pair tables and every member's counted keys
        (they are all held while the trees are built), else the bytes of every counted
        member's trees (None for a member not counted here); ``keys`` the bytes of every
        counted member's keys (:func:`_keys_bytes`; None: not counted).  With
        ``candidate_trees="cut"`` the pass over several members stops as soon as their
        keys exceed what the budget leaves them besides the pair tables (checked on every
        chunk and merge when their upper bound, :func:`_keys_bound`, does not fit): no
        member is counted then, each member counting its own before its selection
        (:meth:`_plan_keys`); with ``candidate_trees="keep"`` that is refused."""
        group = list(range(len(members))) if group is None else list(group)
        whole = len(group) == len(members)
        k = self.table_.n_classes
        plans = []
        for j in group:
            candidates, _, trees = members[j]._plan(stats[j])
            sizes = members[j].table_.sizes
            for t in trees:
                _sparse.check_key_range(t[0], t[1:], sizes, k)
            plans.append((trees, sizes, _short_trees_bytes(candidates, sizes, k)))
        luts = [self._member_maps[j] for j in group]
        n_rows = getattr(source, "n_rows", None)
        fixed = self.table_.nbytes + sum(m.table_.nbytes for m in members)
        whose = f"the {len(members)} members, each on its own discretisation"
        shared = "discretization=\"shared\" (one discretisation for every member), "
        if self.candidate_trees == "keep":  # every member's trees at once
            guards = [self._families_guard(
                [(_sparse.TreeBounds(members[j].table_, n_rows), trees)
                 for j, (trees, _, _) in zip(group, plans, strict=True)], fixed,
                [(t, sizes) for trees, sizes, _ in plans for t in trees], source, whose,
                "candidate_trees=\"cut\" (the members selected one at a time), " + shared)]
            plans_checked = [([t for trees, _, _ in plans for t in trees], None, None)]
        else:  # the members whose trees do not fit together are selected one at a time
            # (:meth:`_next_group`): each member's trees alone must fit besides the pair
            # tables
            guards = [self._families_guard(
                [(_sparse.TreeBounds(members[j].table_, n_rows), trees)], fixed,
                [(t, sizes) for t in trees], source, f"{whose}, even one member's at a time",
                shared) for j, (trees, sizes, _) in zip(group, plans, strict=True)]
            plans_checked = plans
        keys_room = None  # the keys of several members held at once: checked in the pass
        if self.max_table_bytes is not None and len(group) > 1:
            room = int(self.max_table_bytes) - fixed
            if sum(_keys_bound(trees, sizes, k, n_rows) for trees, sizes, _ in plans) > room:
                keys_room = room

        def guard(parts):
            if parts is not None:
                start = 0
                for check, (trees, _, _) in zip(guards, plans_checked, strict=True):
                    check(parts[start:start + len(trees)])
                    start += len(trees)
                if keys_room is not None and _keys_bytes(parts) > keys_room:
                    raise _KeysOverBudget(_keys_bytes(parts))
            return parts

        def count(codes, y, w):
            parts = []
            for (trees, sizes, _), lut in zip(plans, luts, strict=True):
                if trees:
                    parts += _sparse.count_keys(remap_codes(codes, lut, sizes), y, w, trees,
                                                sizes)
            return guard(parts)

        def merge(a, b):
            return guard(_sparse.merge_keys(a, b))

        try:
            counted = source.map_reduce(count, merge)
        except _KeysOverBudget as over:
            if self.candidate_trees == "keep":
                raise TableTooLargeError(
                    f"the counted keys of the families of {whose} (16 bytes per occurring "
                    f"key, every member's held until the trees are built) already need "
                    f"{_sparse.gib(over.args[0])} in the rows counted so far besides "
                    f"{_sparse.gib(fixed)} of pair tables, more than max_table_bytes="
                    f"{_sparse.gib(self.max_table_bytes)} (the counting pass was stopped "
                    "there): use candidate_trees=\"cut\" (the members counted and selected "
                    "one at a time), fewer members, a smaller k, or raise max_table_bytes"
                    ) from None
            return [None] * len(members), [None] * len(members)
        start = 0
        results = []
        for trees, _, _ in plans:
            part = ([(np.zeros(0, np.int64), np.zeros(0))] * len(trees) if counted is None
                    else counted[start:start + len(trees)])
            start += len(trees)
            results.append(dict(zip(trees, part, strict=True)))
        keys = [None] * len(members)
        for j, result in zip(group, results, strict=True):
            keys[j] = _keys_bytes(result.values())
        needs = None
        if self.max_table_bytes is not None:
            used = fixed
            room = int(self.max_table_bytes) - used
            # and the trees of fewer than two candidates, read from the pair tables (at
            # most every cell occurring)
            room -= sum(short for _, _, short in plans)
            held = sum(keys[j] for j in group)  # every member's keys, held meanwhile
            families = [[(tree, kk, sizes) for tree, (kk, _) in result.items()]
                        for (_, sizes, _), result in zip(plans, results, strict=True)]
            need = _families_bytes([f for own in families for f in own], k, room - held)
            if need + held > room and self.candidate_trees == "keep":
                raise TableTooLargeError(
                    f"the families of the {len(members)} members, each on its own "
                    f"discretisation, would need {_sparse.gib(need)} (occurring nodes) "
                    f"and {_sparse.gib(held)} of counted keys besides {_sparse.gib(used)} "
                    f"of pair tables, more than max_table_bytes="
                    f"{_sparse.gib(self.max_table_bytes)}: use a smaller k, fewer members, "
                    "candidate_trees=\"cut\" (the members selected one at a time, each "
                    "keeping the trees of its selected model), or raise max_table_bytes")
            if need + held > room or not whole:
                # not all at once: one member at a time (:meth:`_next_group`)
                room += sum(short for _, _, short in plans)
                needs = [None] * len(members)
                for j, own, (_, _, short) in zip(group, families, plans, strict=True):
                    needs[j] = _families_bytes(own, k, 0) + short
                if max(needs[j] for j in group) > room:
                    raise TableTooLargeError(
                        f"the families of the {len(members)} members, each on its own "
                        f"discretisation, would need {_sparse.gib(need)} (occurring "
                        f"nodes over all K={int(self.k)} candidates) besides "
                        f"{_sparse.gib(used)} of pair tables, and even one member's at "
                        f"a time (its trees are cut back to its selected model after its "
                        f"leave-one-out selection) "
                        f"{_sparse.gib(max(needs[j] for j in group))}, more than "
                        f"max_table_bytes={_sparse.gib(self.max_table_bytes)}: use a "
                        "smaller k, or raise max_table_bytes")
        for j, result in zip(group, results, strict=True):
            if result:
                members[j]._counted_families = result
        return needs, keys

    def _families_guard(self, plans, fixed, trees, source, whose, other_options):
        """Check the members' count trees (``plans``: (:class:`._sparse.TreeBounds`,
        trees) per table) with ``fixed`` bytes of pair tables against ``max_table_bytes``
        before the pass that counts them: refused
        (:class:`~seminaive.exceptions.TableTooLargeError`) when even their lower bound
        does not fit; returns the check of the pass's partial counts (``trees``: (tree,
        sizes) in the order of the pass's results; :class:`._sparse.PassGuard`, none when
        the upper bound fits).  The exact check follows the pass."""
        budget = self.max_table_bytes
        if budget is None:
            return _sparse.PassGuard([], 0, None, "", "")
        budget = int(budget)
        lower = upper = 0
        for bounds, own in plans:
            lo, hi = bounds.bytes(own)
            lower, upper = lower + lo, upper + hi
        if fixed + upper <= budget:  # (then the lower bound fits too: nothing to advise)
            return _sparse.PassGuard([], 0, None, "", "")
        n_rows = getattr(source, "n_rows", None)
        what = (f"ESKDB(n_estimators={int(self.n_estimators)}, k={int(self.k)}) on "
                f"{_sparse.describe_data(self.table_, n_rows)}, the families of {whose}")
        sure, maybe = _sparse.fitting_k(plans, fixed, budget, int(self.k), counted_only=True)
        options = (f"{_sparse.k_advice(sure, maybe)}, fewer members (n_estimators), "
                   f"{other_options}")
        if self.encoder_.numeric_columns_.size:
            options += ("fewer intervals per numeric attribute (discretizer="
                        "\"equal_frequency\" with a smaller n_bins), ")
        options = options.rstrip(", ")
        _sparse.refuse_before_counting(lower, upper, fixed, budget, what, options)
        return _sparse.PassGuard(trees, fixed, budget, what, options)

    def _count_shared_families(self, members, stats, source):
        """Count every member's count trees in one pass (their union, each counted once) and
        hand each member its trees.

        Returns ``(needs, keys)``: ``needs`` is None when every member's trees over all K
        candidates (each member builds its own) fit ``max_table_bytes`` at once besides the
        pair table and the counted keys, else (``candidate_trees="cut"``) the bytes of every
        member's trees, for the members' selection one at a time (:meth:`_one_at_a_time`),
        and ``keys`` the bytes of the counted keys then held meanwhile (0 with ``needs``
        None); refused
        (:class:`~seminaive.exceptions.TableTooLargeError`) when even one member's do not
        fit besides the pair table and the keys."""
        union, seen, plans = [], set(), []
        sizes, k = self.table_.sizes, self.table_.n_classes
        for member in members:
            candidates, _, trees = member._plan(stats)
            plans.append((trees, _short_trees_bytes(candidates, sizes, k)))
            for tree in trees:
                if tree not in seen:
                    seen.add(tree)
                    union.append(tree)
        if not union:
            return None, 0
        for t in union:
            _sparse.check_key_range(t[0], t[1:], sizes, k)
        n_rows = getattr(source, "n_rows", None)
        bounds = _sparse.TreeBounds(self.table_, n_rows)
        if self.candidate_trees == "keep":  # every member's trees at once: their union
            checks = [(self._families_guard(
                [(bounds, union)], self.table_.nbytes, [(t, sizes) for t in union], source,
                f"the {len(members)} members", "candidate_trees=\"cut\" (the members "
                "selected one at a time), "), list(range(len(union))))]
        else:  # one member's at a time (:meth:`_one_at_a_time`) must fit
            at = {t: i for i, t in enumerate(union)}
            checks = [(self._families_guard(
                [(bounds, trees)], self.table_.nbytes, [(t, sizes) for t in trees], source,
                f"the {len(members)} members, even one member's at a time", ""),
                [at[t] for t in trees]) for trees in {tuple(trees): None
                                                      for trees, _ in plans}]
        keys_room = None  # the keys of the union, held until every member's trees are built
        if self.max_table_bytes is not None:
            room = int(self.max_table_bytes) - self.table_.nbytes
            if _keys_bound(union, sizes, k, n_rows) > room:
                keys_room = room

        def guard(parts):
            if parts is not None:
                for check, index in checks:
                    check([parts[i] for i in index])
                if keys_room is not None and _keys_bytes(parts) > keys_room:
                    raise TableTooLargeError(
                        f"the counted keys of the families of the {len(members)} members "
                        f"(16 bytes per occurring key, held until every member's trees are "
                        f"built) already need {_sparse.gib(_keys_bytes(parts))} in the rows "
                        f"counted so far besides {_sparse.gib(self.table_.nbytes)} of pair "
                        f"table, more than max_table_bytes="
                        f"{_sparse.gib(self.max_table_bytes)} (the counting pass was stopped "
                        "there): use a smaller k, fewer members, or raise max_table_bytes")
            return parts

        def count(codes, y, w):
            return guard(_sparse.count_keys(codes, y, w, union, sizes))

        def merge(a, b):
            return guard(_sparse.merge_keys(a, b))

        counted = source.map_reduce(count, merge)
        if counted is None:
            counted = [(np.zeros(0, np.int64), np.zeros(0))] * len(union)
        shared = dict(zip(union, counted, strict=True))
        needs = None
        if self.max_table_bytes is not None:
            budget = int(self.max_table_bytes)
            keys = _keys_bytes(shared.values())  # held until every member's trees are built
            room = budget - self.table_.nbytes - keys
            need = _families_bytes([(tree, kk, sizes) for tree, (kk, _) in shared.items()],
                                   k, room)
            if need > room and self.candidate_trees == "keep":
                raise TableTooLargeError(
                    f"the families of the {len(members)} members would need "
                    f"{_sparse.gib(need)} (occurring nodes) and {_sparse.gib(keys)} of "
                    f"counted keys besides the pair table, more than max_table_bytes="
                    f"{_sparse.gib(self.max_table_bytes)}: use a smaller k, fewer members, "
                    "candidate_trees=\"cut\" (the members selected one at a time, each "
                    "keeping the trees of its selected model), or raise max_table_bytes")
            if self.candidate_trees == "cut":
                needs = self._shared_needs(plans, shared, room)
        for member in members:
            member._counted_families = shared
        return needs, (keys if needs is not None else 0)

    def _shared_needs(self, plans, shared, room):
        """With one discretisation and ``candidate_trees="cut"``: None when every member's
        own trees (``plans``: its trees and the bound of those read from the pair table)
        fit ``room`` at once, else the bytes of every member's, exact (each tree of
        ``shared`` counted once, :func:`._sparse.tree_bytes`); refused when the largest
        does not fit ``room``."""
        sizes, k = self.table_.sizes, self.table_.n_classes
        bound = sum(_families_bytes([(t, shared[t][0], sizes) for t in trees], k, np.inf)
                    + short for trees, short in plans)
        if bound <= room:
            return None
        exact = {t: _sparse.tree_bytes(t, kk, sizes, k) for t, (kk, _) in shared.items()}
        needs = [sum(exact[t] for t in trees) + short for trees, short in plans]
        if sum(needs) <= room:
            return None
        if max(needs) > room:
            raise TableTooLargeError(
                f"the families of the {len(plans)} members would need "
                f"{_sparse.gib(sum(needs))} (occurring nodes over all K={int(self.k)} "
                f"candidates, each member's own trees) besides the pair table and the "
                f"counted keys ({_sparse.gib(int(self.max_table_bytes) - room)}), and even "
                f"one member's at a time (its trees are cut back to its selected model "
                f"after its leave-one-out selection) {_sparse.gib(max(needs))}, more than "
                f"max_table_bytes={_sparse.gib(self.max_table_bytes)}: use a smaller k, or "
                "raise max_table_bytes")
        return needs

    def _scores(self, X):
        codes = self._storage_codes(X)
        log_probs = []
        maps = getattr(self, "_member_maps", None) if self._per_member() else None
        for j, member in enumerate(self.estimators_):
            own = codes if maps is None else remap_codes(codes, maps[j], member.table_.sizes)
            s = member._scores(X, own)
            log_probs.append(s - logsumexp(s, axis=1, keepdims=True))
        return logsumexp(np.stack(log_probs), axis=0) - np.log(len(log_probs))

    def _learned_state(self):
        state = {"orders": self.orders_, "n_iter": np.asarray(self.n_iter_, dtype=np.int64)}
        if self._pairs_apart():  # the members' own pair tables (not derived from the union)
            state.update({f"m{j}_pair_counts": member.table_.counts
                          for j, member in enumerate(self.estimators_)})
        if self._per_member():
            state["cut_masks"] = np.array(
                [np.concatenate([np.zeros(0, bool), *masks]) for masks in self._member_masks],
                dtype=np.uint8).reshape(len(self._member_masks), -1)
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
        known = {"orders", "cut_masks", "n_iter"} & set(arrays) | {key for key in arrays
                              if key.split("_", 1)[0] in {f"m{j}" for j in range(len(orders))}}
        if set(arrays) != known:
            raise ValueError(f"unexpected learned arrays {sorted(set(arrays) - known)}")
        self.mutual_info_ = self.conditional_mutual_info_ = None
        if self._table_holds_pairs():
            stats = PairStatistics(self.table_)
            self.mutual_info_ = stats.mi
            self.conditional_mutual_info_ = stats.cmi
        pairs = [arrays.get(f"m{j}_pair_counts") for j in range(len(orders))]
        apart = not self._table_holds_pairs()
        if (any(p is not None for p in pairs) if not apart else
                any(p is None for p in pairs) or "cut_masks" not in arrays):
            raise ValueError("the members' pair counts must be in the model file exactly when "
                             "the ensemble's table holds no pairs (per-member cut points)")
        tables = self._restore_member_cuts(arrays.get("cut_masks"), len(orders), pairs)
        members = []
        for j, order in enumerate(orders):
            member = self._share(self._member(0, order.astype(np.int64)))
            if tables is not None:
                member.table_ = tables[j]
            prefix = f"m{j}_"
            member._set_learned_state({key[len(prefix):]: value for key, value in arrays.items()
                                       if key.startswith(prefix)
                                       and key != f"{prefix}pair_counts"})
            members.append(member)
        self.estimators_ = members
        self.orders_ = orders.astype(np.int64)
        n_iter = np.asarray(arrays.get("n_iter", np.zeros(len(orders), np.int64)))
        if n_iter.shape != (len(orders),) or n_iter.dtype.kind not in "iu":
            raise ValueError("n_iter must hold one iteration count per member")
        self.n_iter_ = n_iter.astype(np.int64)

    def _restore_member_cuts(self, cut_masks, n_members, pairs=None):
        """The members' cut points from a model file (None: shared discretisation) and their
        tables: aggregated from the ensemble's, or, when the ensemble's holds no pairs,
        read from the file's ``pairs`` (every member's pair counts, validated)."""
        if cut_masks is None:
            self._set_member_cuts(None)
            return None
        union = self.encoder_.cut_points()
        cut_masks = np.asarray(cut_masks)
        total = sum(u.size for u in union)
        if (cut_masks.dtype.kind not in "iub" or cut_masks.shape != (n_members, total)
                or not np.isin(cut_masks, (0, 1)).all() or not union):
            raise ValueError("cut_masks must hold one 0/1 flag per cut point and member")
        bounds = np.cumsum([0] + [u.size for u in union])
        self._set_member_cuts([[u[row[bounds[t]:bounds[t + 1]].astype(bool)]
                                for t, u in enumerate(union)] for row in cut_masks])
        if self._table_holds_pairs():
            return self._member_tables()
        return self._read_member_tables(pairs)

    def _read_member_tables(self, pairs):
        """The members' own pair tables from a model file's counts ``pairs`` (one flat
        array per member, the layout of its :class:`~seminaive.tables.FrequencyTable`),
        validated (ValueError: not float64 of the layout's size, not finite, negative, or
        above the number of rows) and within ``max_table_bytes`` with the ensemble's."""
        k, n_rows = self.table_.n_classes, float(self.table_.n_rows)
        ceiling = n_rows * (1 + 1e-9) + 1e-6
        tables = []
        for j, (masks, counts) in enumerate(zip(self._member_masks, pairs, strict=True)):
            n_values = self.encoder_.n_values_.copy()
            for t, c in enumerate(self.encoder_.numeric_columns_.tolist()):
                n_values[c] -= int((~masks[t]).sum())
            counts = np.asarray(counts)
            if counts.dtype != np.float64 or counts.ndim != 1:
                raise ValueError(f"the pair counts of member {j} are not a float64 vector")
            if not np.all(np.isfinite(counts)) or np.any(counts < 0) or np.any(
                    counts > ceiling):
                raise ValueError(f"the pair counts of member {j} are not finite counts "
                                 "within the number of rows")
            budget = None
            if self.max_table_bytes is not None:
                budget = int(self.max_table_bytes) - self.table_.nbytes - sum(
                    t.nbytes for t in tables)
            tables.append(FrequencyTable.from_state(
                {"sizes": n_values + 1, "counts": counts,
                 "meta": np.array([k, 2], dtype=np.int64), "n_rows": np.array([n_rows])},
                budget, counts_only=self._table_counts_only))
        return tables
