"""A selected sub-model structure, its leave-one-out passes and its scoring.

A *selected structure* is the AnDE model restricted to a set of parent attributes P and a set
of child attributes C, with an optional weight per parent (Chen et al. 2014, §2.4 and §3.2, the
SWAODE paper (2024) eqs 6 and 9), generalised to parent order n:

    P(y, x) ~ sum_{s in A^n(P), qualifying} w_s P(y, x_s) prod_{c in C \\ s} P(x_c | y, x_s)
              / sum_{s qualifying} w_s

where A^n(P) are the n-subsets of P, w_s is the product of the weights of the members of s and
a combination qualifies when its values are observed and N(x_s) >= min_count (Webb et al. 2012, eq
11). When none qualifies the row cascades to order n - 1 over the same P and C, down to naive Bayes
over C (order 0).  This module holds the helpers the learners share: ranking by mutual
information, the leave-one-out passes over a source (kernels in
:mod:`seminaive.selection._kernels`) and the scoring of a structure.
"""

from itertools import combinations
from typing import NamedTuple

import numpy as np

from .. import statistics
from ..kernels import losses as loss_kernels
from ..kernels._jit import get_num_threads
from ..kernels.smoothing import Smoothing
from ..tables import counting as counting_kernels
from ..tables import gaussian as gaussian_kernels
from . import _kernels as kernels


def mutual_information(table):
    """I(X_i; Y) of every attribute from the order-1 counts, over the rows where X_i is
    observed (the SWAODE paper, eq. 8; Chen et al. 2014, §3.1)."""
    return statistics.mutual_information(table)


def rank_attributes(mi):
    """Attribute indices by decreasing mutual information (ties: lower index first)."""
    return np.lexsort((np.arange(mi.size), -mi)).astype(np.int64)


def combination_levels(attributes, n, weights=None):
    """Parent combinations of sizes 0..n drawn from ``attributes`` (in the given order).

    Returns ``members`` (n_total, max(n, 1)) sorted attribute indices, ``level_first``
    (n + 2,), ``max_rank`` (position in ``attributes`` of each combination's last member; -1
    for the empty one) and ``weight`` (product of the members' weights).  Within a level the
    combinations are ordered by their highest position, so those drawn from the first r
    attributes form a prefix (the nesting of Chen et al. 2014, §3.2).
    """
    attributes = np.asarray(attributes, dtype=np.int64)
    if weights is None:
        weights = np.ones(int(attributes.max()) + 1 if attributes.size else 0)
    width = max(n, 1)
    rows, max_rank, weight = [np.full((1, width), -1, np.int64)], [np.full(1, -1)], [np.ones(1)]
    level_first = [0, 1]
    for level in range(1, n + 1):
        positions = np.array([(*rest, last) for last in range(attributes.size)
                              for rest in combinations(range(last), level - 1)],
                             dtype=np.int64).reshape(-1, level)
        members = np.sort(attributes[positions], axis=1)
        block = np.full((len(positions), width), -1, dtype=np.int64)
        block[:, :level] = members
        rows.append(block)
        max_rank.append(positions[:, -1])
        weight.append(np.prod(np.asarray(weights, dtype=np.float64)[members], axis=1))
        level_first.append(level_first[-1] + len(positions))
    return (np.concatenate(rows), np.array(level_first, dtype=np.int64),
            np.concatenate(max_rank).astype(np.int64),
            np.concatenate(weight).astype(np.float64))


class _CountContext:
    """Arrays of a table that the leave-one-out kernels read, computed once per pass."""

    def __init__(self, table, n_max, smoothing, m, min_count, conditionals=True):
        self.table = table
        self.layout = lay = table.layout()
        n_max = min(n_max, table.max_order)
        if conditionals:
            # the held-out row leaves the other classes' conditional estimates unchanged
            tables = table.log_tables(max(n_max - 1, 0), smoothing, m, min_count)
            self.lc, self.lc_offsets = tables.log_conditional, tables.lc_offsets
        else:  # the linear-space kernels compute every estimate from the counts
            self.lc, self.lc_offsets = np.zeros(1), np.zeros(1, dtype=np.int64)
        # N_obs of the parent combinations (orders below n_max)
        g_last = table.combination_range(max(n_max - 1, 0)).stop
        self.n_observed = np.zeros(table.n_combinations(), dtype=np.float64)
        kernels.observed_totals(lay, g_last, self.n_observed)
        # an attribute never missing in training: N(y, x_s, x_c observed) = N(y, x_s)
        a = table.n_attributes
        self.has_missing = np.array(
            [table.block([i])[0].sum() > 0 for i in range(a)], dtype=np.bool_)
        self.bundle = kernels.CountContext(lay, self.n_observed, self.has_missing, self.lc,
                                           self.lc_offsets)


#: largest count array (bytes, float64) of which the linear-space nested pass makes a float32
#: copy (:func:`compact_bundle`); the copy takes half as much again while the pass runs.
#: Above 64 MB making the copy cost more than reading it saved: ``AnDE(n="auto")`` on
#: 1,600 x 60 random nominal attributes fitted in 15-23% less CPU time without it at 4
#: values and 5 classes (87 MB) and at 8 values (280-700 MB), the same within noise at 4
#: values and 2-3 classes (35-52 MB) and at 2 values (loaded machine, load 10-15)
COMPACT_MAX_BYTES = 1 << 26


def compact_bundle(bundle):
    """``bundle`` (a :class:`~seminaive.selection._kernels.CountContext`) with its counts as
    a float32 copy when every count is exactly a float32 (integer counts below 2 ** 24, as
    unweighted tables of fewer rows have) and the counts take at most
    ``COMPACT_MAX_BYTES``; else ``bundle`` itself.  A kernel then reads the same values
    (so computes the same results) from half the bytes: the nested pass streams each
    combination's union blocks through the cache once per tile of rows."""
    counts = bundle.table.counts
    if counts.dtype != np.float64 or counts.nbytes > COMPACT_MAX_BYTES:
        return bundle
    compact = np.empty(counts.shape, dtype=np.float32)
    if not counting_kernels.float32_copy(counts, compact, 4 * get_num_threads()):
        return bundle
    return bundle._replace(table=bundle.table._replace(counts=compact))


def _chunk_weights(y, w):
    if w is None:
        return np.ones(len(y), dtype=np.float64)
    return np.ascontiguousarray(w, dtype=np.float64)


def _gaussian_context(table, gaussian):
    """The Gaussian leave-one-out context (an empty one when ``gaussian`` is None) and
    whether the passes need the numeric values."""
    if gaussian is None:
        return gaussian_kernels.no_gaussian_loo(table.n_attributes), False
    return gaussian, gaussian.moment_start.shape[1] > 0


def _chunk_values(values, n_rows, gaussian, needs):
    if not needs:
        return np.zeros((n_rows, 0))
    return np.ascontiguousarray(values, dtype=np.float64)


def nested_losses(table, source, ranking, n, weights, smoothing, m, min_count, loss, *,
                  squares=False, gaussian=None, linear=True, n_blocks=None, tile_rows=None,
                  scales=None, prefetch_bytes=None):
    """Weighted LOO loss sums of every nested model (L, r, s), L <= n, and the total weight.

    Returns ``(losses, total_weight)`` (with ``squares``: ``(losses, squared, total)``, the
    weighted sums of the squared per-row losses in the middle); ``losses[L, r, s]`` is
    defined for L >= 1 and L <= r <= a, for L = 0 at r = 0 (NaN elsewhere), s = 0..a.
    ``gaussian``: the :class:`~seminaive.tables.gaussian.GaussianLoo` of Gaussian children
    (the source then replays the numeric values too).  Without Gaussian children the pass
    runs in linear space (:func:`~seminaive.selection._kernels.nested_loo_loss_nominal`)
    unless ``linear`` is False (the log-space kernel, kept as its reference).  ``n_blocks``
    (row blocks per chunk; default one per thread for the linear-space kernel, else
    :func:`~seminaive.kernels.losses.row_blocks`) and
    ``tile_rows`` (rows per tile of the linear-space kernel) change only the order of the
    operations, and ``scales`` (powers of 2, one per child rank; default
    :func:`~seminaive.selection._kernels.child_scales`) only the powers of 2 by which the
    linear-space kernel's products are kept, and ``prefetch_bytes`` (default
    :data:`~seminaive.selection._kernels.nested.PREFETCH_BYTES`) only which union blocks
    the linear-space kernel streams into the cache together (for tests).  The table must
    hold the counts of order n + 1 (the children of the order-n combinations; ValueError
    otherwise).
    """
    a = table.n_attributes
    n = min(n, a)
    if table.max_order < min(n + 1, a):
        # the children of an order-n combination are read from the order-(n + 1) counts:
        # the kernels do not check (they would read other combinations' counts)
        raise ValueError(f"nested losses of order {n} need a table of order "
                         f"{min(n + 1, a)}, not {table.max_order}")
    members, level_first, max_rank, combo_weight = combination_levels(ranking, n, weights)
    space = kernels.NestedSpace(ranking, members, level_first, max_rank, combo_weight, n + 1)
    est = kernels.LooEstimate(float(m), Smoothing.from_params(smoothing, m).laplace,
                              float(min_count))
    kind = loss_kernels.LOSSES[loss]
    gl, needs = _gaussian_context(table, gaussian)
    # without Gaussian children: the linear-space kernel, which reads no log tables
    linear = linear and not needs
    ctx = _CountContext(table, n + 1, smoothing, m, min_count, conditionals=not linear)
    bundle = compact_bundle(ctx.bundle) if linear else ctx.bundle
    if scales is None:
        scales = kernels.child_scales(table.sizes[ranking] - 1, kind)
    scales = np.ascontiguousarray(scales, dtype=np.float64)
    prefetch = kernels.PREFETCH_BYTES if prefetch_bytes is None else int(prefetch_bytes)

    def one_chunk(codes, y, w, values=None):
        w = _chunk_weights(y, w)
        out = np.zeros((n + 1, a + 1, a + 1))
        out_sq = np.zeros_like(out)
        X = np.ascontiguousarray(codes)
        if n_blocks is not None:
            blocks = n_blocks
        elif linear:  # one block per thread: each block's tiles read the whole table
            blocks = max(1, min(get_num_threads(), (X.shape[0] + 15) // 16))
        else:
            blocks = loss_kernels.row_blocks(X.shape[0])
        if X.shape[0] and linear:
            kernels.nested_loo_loss_nominal(
                X, np.ascontiguousarray(y, dtype=np.int64), w, bundle, space, est, kind,
                blocks, out, out_sq,
                (kernels.tile_size(a, table.n_classes, tile_rows,
                                   table_bytes=bundle.table.counts.nbytes,
                                   block_rows=-(-X.shape[0] // blocks)), prefetch),
                scales)
        elif X.shape[0]:
            kernels.nested_loo_loss(
                X, np.ascontiguousarray(y, dtype=np.int64), w, ctx.bundle, space, est, kind,
                blocks, out, out_sq, _chunk_values(values, X.shape[0], gl, needs), gl)
        return out, out_sq, float(w.sum())

    result = source.map_reduce(
        one_chunk, combine=lambda u, v: (u[0] + v[0], u[1] + v[1], u[2] + v[2]),
        values=needs)
    if result is None:
        return (None, None, 0.0) if squares else (None, 0.0)
    losses, squared, total = result
    valid = np.zeros_like(losses, dtype=bool)
    valid[0, 0, :] = True
    for level in range(1, n + 1):
        valid[level, level:, :] = True
    losses[~valid] = np.nan
    squared[~valid] = np.nan
    return (losses, squared, total) if squares else (losses, total)


def wrapper_losses(table, source, parent_mask, child_mask, candidates, smoothing, m,
                   min_count, loss, gaussian=None):
    """Weighted LOO loss sums of AODE(P, C) changed by each candidate move.

    ``candidates``: list of (attribute, is_parent, is_child) with attribute -1 for "no
    change"; ``gaussian``: as in :func:`nested_losses`.  Returns (losses, total weight).
    """
    gl, needs = _gaussian_context(table, gaussian)
    ctx = _CountContext(table, 2, smoothing, m, min_count)
    est = kernels.LooEstimate(float(m), Smoothing.from_params(smoothing, m).laplace,
                              float(min_count))
    kind = loss_kernels.LOSSES[loss]
    moves = kernels.Moves(np.ascontiguousarray(parent_mask, dtype=np.bool_),
                          np.ascontiguousarray(child_mask, dtype=np.bool_),
                          np.array([c[0] for c in candidates], dtype=np.int64),
                          np.array([c[1] for c in candidates], dtype=np.bool_),
                          np.array([c[2] for c in candidates], dtype=np.bool_))

    def one_chunk(codes, y, w, values=None):
        w = _chunk_weights(y, w)
        out = np.zeros(len(candidates))
        X = np.ascontiguousarray(codes)
        if X.shape[0]:
            kernels.wrapper_loo_loss(
                X, np.ascontiguousarray(y, dtype=np.int64), w, ctx.bundle, moves, est, kind,
                loss_kernels.row_blocks(X.shape[0]), out,
                _chunk_values(values, X.shape[0], gl, needs), gl)
        return out, float(w.sum())

    result = source.map_reduce(one_chunk, combine=lambda u, v: (u[0] + v[0], u[1] + v[1]),
                               values=needs)
    if result is None:
        return None, 0.0
    return result


class GaussianInputs(NamedTuple):
    """What scoring a structure with Gaussian children reads besides the counts."""

    values: np.ndarray  # the rows' centred numeric values
    gaussian: np.ndarray  # column of every attribute among the values (-1: nominal)
    missing_code: np.ndarray  # storage code of the value for missing (0: none)
    log_width: np.ndarray  # log widths of the numeric parents' bins (attribute, code)
    kappa: float  # pseudo-rows of the estimates' shrinkage
    student: bool = False  # Student's t children (density="student")


def structure_scores(table, codes, order, parents, children, weights, smoothing, m,
                     min_count, gaussian=None):
    """Per-class log scores of the selected structure (see the module docstring);
    ``gaussian``: the :class:`GaussianInputs` of Gaussian children."""
    n = min(int(order), table.max_order)
    members, level_first, _, combo_weight = combination_levels(
        np.asarray(parents, dtype=np.int64), n, weights)
    tables = table.log_tables(n, smoothing, m, min_count)
    lay = table.layout()
    X = np.ascontiguousarray(codes)
    a = table.n_attributes
    if gaussian is None:
        values = np.zeros((X.shape[0], 0))
        numeric, missing_code = np.full(a, -1, np.int64), np.zeros(a, np.int64)
        log_width = np.zeros((a, int(table.sizes.max(initial=1))))
        grid = (np.zeros(1, np.int64), np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1))
        student = False
    else:
        values = np.ascontiguousarray(gaussian.values, dtype=np.float64)
        numeric = np.ascontiguousarray(gaussian.gaussian, dtype=np.int64)
        missing_code = np.ascontiguousarray(gaussian.missing_code, dtype=np.int64)
        log_width = np.ascontiguousarray(gaussian.log_width, dtype=np.float64)
        student = bool(gaussian.student)
        grid = (table.student_grid(gaussian.kappa) if student
                else (*table.gaussian_grid(gaussian.kappa), np.zeros(1)))
    out = np.empty((X.shape[0], lay.n_classes), dtype=np.float64)
    if X.shape[0]:
        kernels.selective_scores(
            X, lay,
            kernels.LogTables(tables.log_joint, tables.log_conditional, tables.lc_offsets),
            kernels.SelectedStructure(members, level_first, combo_weight, n + 1,
                                      np.ascontiguousarray(children, dtype=np.int64)),
            out, values,
            kernels.GaussianScoring(numeric, missing_code, log_width, *grid, student))
    return out


def check_structure(table, order, parents, children, weights):
    """Validate a structure read from a model file against the tables (ValueError)."""
    a = table.n_attributes
    order = np.asarray(order)
    if order.shape != (1,) or order.dtype.kind not in "iu":
        raise ValueError("the selected order must be one integer")
    n = int(order[0])
    # children of an order-n parent are read from combinations of order n + 1
    if not (0 <= n <= a and (n + 1 <= table.max_order or n == table.max_order == a)):
        raise ValueError(f"the selected order {n} does not fit tables of order "
                         f"{table.max_order} over {a} attributes")
    for name, idx in (("parents", parents), ("children", children)):
        idx = np.asarray(idx)
        if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
            raise ValueError(f"{name} must be a 1-D integer array")
        if idx.size and (idx.min() < 0 or idx.max() >= a or np.unique(idx).size != idx.size):
            raise ValueError(f"{name} must be distinct attribute indices in [0, {a})")
    weights = np.asarray(weights)
    if weights.shape != (a,) or weights.dtype.kind != "f" or not np.all(np.isfinite(weights)) \
            or np.any(weights < 0):
        raise ValueError("parent weights must be finite, non-negative, one per attribute")
