"""Memory-constrained selective AnDE: ``AnDE(memory="select")`` (Chen et al. 2017).

When the tables of AnDE for n would exceed ``max_table_bytes``, Chen, Martínez, Webb & Wang
(2017) keep the low bias of order n within the memory available by drawing the super-parents
only from a selected subset of the attributes, in two passes over the training data: the
first ranks the attributes and chooses how many can be parents in the memory available, the
second counts the AnDE whose parent combinations are the combinations of n selected
attributes (every attribute is still a child).

Here:

* **pass 1** counts every combination of up to n attributes (the tables of A(n-1)DE, which
  the model keeps: the joints of the parents, and the cascade of a row in which no parent
  combination qualifies).  The attributes are ranked by their mutual information with the
  class, I(X_i; Y), from these counts (ties: lower column index first), as in the
  attribute selection of Chen et al. (2014) and the selective AnDE of this package;
* **the number of parents** m is the largest for which the exact size of the selective
  tables (counts, log tables and index; :func:`seminaive.estimate_table_bytes` with
  ``parents=``) is within ``max_table_bytes``.  The abstract of Chen et al. (2017) says the
  first pass selects "according to available memory"; the paper's exact rule could not be
  checked here, so the budget the user gives is the rule (a demanding user's expectation:
  as many parents as fit);
* **pass 2** counts the combinations of order n + 1 with at least n members among the
  selected attributes (``FrequencyTable(..., parents=...)``): the children of every parent
  combination.  Where the full AnDE fits, it is learnt unchanged (every attribute a parent).
  In the compact layout each set of n + 1 parents is counted once and its counts handed to
  the n + 1 parent combinations that hold it (``seminaive.tables.counting.count_parent_sets``:
  the same counts as counting every parent combination's children).

**Sparse storage.**  A sub-model is read only where its parent cell qualifies (frequency >=
``min_count``), so the children of a parent cell that no training row holds are never read
when ``min_count > 0`` (with ``min_count = 0`` they are estimated from zero counts, the same
numbers for every such cell).  Pass 1 has counted every combination of n attributes, so the
parent cells that occur -- and the exact size of the *compact* layout that stores the
children of those cells only, parent-major (``FrequencyTable(..., occupied=...)``) -- are
known before pass 2 allocates.  ``memory="select"`` sizes every candidate number of parents
with the smaller of the dense and the compact layouts (the compact one pays an index and one
region per parent combination, and a cell's children are stored once per parent
combination it belongs to), takes as many parents as fit, and stores them in the smaller
layout; ``memory="select_dense"`` always uses the dense one.  The predictions of the two
layouts are the same numbers.  ``partial_fit`` adds a stored cell for every new parent cell
of its rows (refused, before any count changes, if that would exceed the budget).

The fitted model exposes ``parents_``, ``mutual_information_``, ``ranking_`` and
``table_bytes_``.  ``partial_fit`` selects on its first chunk and keeps the choice.
"""

import functools
import operator

import numpy as np

from ..exceptions import TableTooLargeError
from ..statistics import mutual_information
from ..tables import (
    CombinationTable,
    FrequencyTable,
    _format_bytes,
    estimate_table_bytes,
)

#: values of ``AnDE(memory=...)``
MEMORY = ("refuse", "select", "select_dense")

_STATE = ("memory_mutual_information", "memory_ranking")


def check_params(est):
    """Validate what ``memory`` (declared in ``AnDE._parameter_constraints``) can be
    combined with."""
    memory = est.memory
    if memory == "refuse":
        return
    if isinstance(est.n, str):
        raise ValueError("memory='select' needs a fixed order n (an integer), not "
                         f"n={est.n!r}")
    if getattr(est, "weights", None) is not None:
        raise ValueError("memory='select' averages its sub-models uniformly: leave "
                         "weights=None")
    if getattr(est, "numeric", "discretize") != "discretize":
        raise ValueError("memory='select' needs numeric='discretize' (the Gaussian moments "
                         "of every parent combination are not selected)")
    if est.smoothing in ("hdp", "hls"):
        raise ValueError("memory='select' takes smoothing='m_estimate' or 'laplace'")


def selecting(est):
    """Whether ``est`` is an ``AnDE(memory="select")``."""
    return getattr(est, "memory", "refuse") in ("select", "select_dense")


def new_table(est, n_values, n_classes):
    """The table of the first pass: the full AnDE table when it fits the budget (nothing to
    select), else every combination of up to n attributes (``parents=[]``); a budget too
    small even for that is refused before allocating."""
    n, budget = int(est.n), est.max_table_bytes
    full = estimate_table_bytes(n_values, n_classes, n + 1)["total"]
    if budget is None or n == 0 or n >= len(n_values) or full <= budget:
        return FrequencyTable(n_values, n_classes, n + 1, budget)
    lower = estimate_table_bytes(n_values, n_classes, n + 1, parents=[])["total"]
    if lower > budget:
        raise TableTooLargeError(
            f"memory='select': even the tables of A{n - 1}DE that selective A{n}DE keeps "
            f"(every combination of up to {n} attributes, for the parents' joints and the "
            f"cascade) would need {_format_bytes(lower)} ({lower} bytes), more than "
            f"max_table_bytes={_format_bytes(budget)}; A{n}DE would need "
            f"{_format_bytes(full)}. Use a smaller n, fewer attributes or values, or raise "
            "max_table_bytes.")
    return FrequencyTable(n_values, n_classes, n + 1, budget, parents=[])


def rank(table):
    """I(X_i; Y) of every attribute and the attributes by decreasing information (ties:
    lower index first)."""
    mi = mutual_information(table)
    return mi, np.lexsort((np.arange(mi.size), -mi)).astype(np.int64)


def occupancy(table, n):
    """Which cells of every combination of n attributes of ``table`` occur (every member
    observed, a non-zero count): a boolean array over the cells of the combinations of
    order n, in their order, and the number of occurring cells of each combination."""
    return table.occupied_cells(n)


def layout_bytes(n_values, n_classes, n, parents, combos, per_combination, compact=True):
    """Bytes of the dense and (``compact``) the compact selective tables with ``parents``
    (``combos``: the members of every combination of n attributes; ``per_combination``:
    their occurring cells, :func:`occupancy`); None for a layout not considered."""
    dense = estimate_table_bytes(n_values, n_classes, n + 1, parents=parents)["total"]
    if not compact or len(parents) >= len(n_values):
        return dense, None
    inside = np.isin(combos, parents).all(axis=1)
    held = int(per_combination[inside].sum())
    return dense, estimate_table_bytes(n_values, n_classes, n + 1, parents=parents,
                                       occupied=held)["total"]


def n_selected(ranking, n_values, n_classes, n, budget, combos=None, per_combination=None):
    """The largest m such that the selective tables with parents ``ranking[:m]`` fit
    ``budget`` (n - 1 when not even n parents fit), in the dense layout or, given the
    occurring cells of every combination of n attributes (``combos``, ``per_combination``,
    :func:`occupancy`), in the smaller of the dense and compact layouts."""
    compact = per_combination is not None
    m = n - 1
    while m < len(ranking) and min(b for b in layout_bytes(
            n_values, n_classes, n, ranking[:m + 1], combos, per_combination, compact)
            if b is not None) <= budget:
        m += 1
    return m


def _count_top(combinations, n_values, n_classes, codes, y, w):
    """Counts of ``combinations`` in one chunk (the second pass; module level, so that it is
    sent to the workers of a cluster)."""
    return CombinationTable(combinations, n_values, n_classes).add(codes, y, w).counts


def learn(est, source):
    """Select the parents from the first pass's counts and count the second pass (sets
    ``parents_``, ``mutual_information_``, ``ranking_`` and ``table_bytes_``)."""
    table = est.table_
    if est._keeps_choice("parents_"):
        if table.parents is not None:
            est._warn_choice_kept("parent attributes selected for memory")
        return
    n, k = int(est.n), table.n_classes
    n_values = table.sizes - 1
    est.mutual_information_, est.ranking_ = rank(table)
    if table.parents is not None:  # the first pass: select, then count the children
        sparse = est.memory == "select"
        combos = table.combinations(n)
        mask, first, per_combination = occupancy(table, n) if sparse else (None, None, None)
        m = n_selected(est.ranking_, n_values, k, n, est.max_table_bytes, combos,
                       per_combination)
        if m < n:
            need = estimate_table_bytes(n_values, k, n + 1, parents=est.ranking_[:n])
            est.reset()
            raise TableTooLargeError(
                f"memory='select': max_table_bytes={_format_bytes(est.max_table_bytes)} "
                f"holds the tables of A{n - 1}DE but not those of one combination of {n} "
                f"parents ({_format_bytes(need['total'])}, {need['total']} bytes, with the "
                f"{n} most informative attributes). Use a smaller n or raise "
                "max_table_bytes.")
        parents = np.sort(est.ranking_[:m])
        occupied = None
        if sparse:
            dense, compact = layout_bytes(n_values, k, n, parents, combos, per_combination)
            if compact is not None and compact < dense:
                inside = np.flatnonzero(np.isin(combos, parents).all(axis=1))
                occupied = np.concatenate([mask[first[g]:first[g + 1]] for g in inside])
        del mask
        try:
            table = _second_pass(table, parents, n, est.max_table_bytes, source, occupied)
        except BaseException:
            est.reset()  # no half-learnt model (only the first pass counted)
            raise
        est.table_ = table
    _set_fitted(est)
    est._mark_choice()


def _second_pass(first, parents, n, budget, source, occupied=None):
    """The selective table with ``parents`` (compact with the stored cells ``occupied``):
    the first pass's counts (every combination of up to n attributes, the same layout) and
    the children of order n + 1 counted from ``source``."""
    n_values, k = first.sizes - 1, first.n_classes
    table = FrequencyTable(n_values, k, n + 1, budget, parents=parents, occupied=occupied)
    prefix = first.count_start(n + 1)
    if table.counts.size == prefix == first.counts.size:
        # a compact table: the first pass's array, not a copy
        table.install_counts(first.counts, n_rows=first.n_rows, copy=False)
    else:
        table.install_counts(first.counts[:prefix], n_rows=first.n_rows)
    if table.compact:
        if table.n_slots:
            counted = source.map_reduce(table.compact_counter(), operator.add)
            if counted is not None:  # the table's compact counts are still zeros
                table.install_compact_counts(counted)
        return table
    top = table.combinations(n + 1)
    if top.shape[0]:
        counted = source.map_reduce(
            functools.partial(_count_top, [tuple(int(v) for v in c) for c in top],
                              n_values, k), operator.add)
        if counted is not None:
            table.add_counts(counted, prefix)
    return table


def _set_fitted(est):
    table = est.table_
    est.parents_ = (np.arange(table.n_attributes, dtype=np.int64) if table.parents is None
                    else table.parents.copy())
    est.table_bytes_ = estimate_table_bytes(
        table.sizes - 1, table.n_classes, table.max_order, parents=table.parents,
        occupied=table.n_slots if table.compact else None)["total"]


def learned_state(est):
    return {"memory_mutual_information": est.mutual_information_,
            "memory_ranking": est.ranking_}


def set_learned_state(est, arrays):
    """Restore the ranking from a model file (validated); ``parents_`` are the table's."""
    arrays = dict(arrays)
    if any(key not in arrays for key in _STATE):
        raise ValueError(f"memory='select' needs the learned arrays {list(_STATE)}")
    a = est.table_.n_attributes
    mi = np.asarray(arrays.pop("memory_mutual_information"))
    ranking = np.asarray(arrays.pop("memory_ranking"))
    if mi.shape != (a,) or mi.dtype != np.float64 or not np.all(np.isfinite(mi)):
        raise ValueError(f"memory_mutual_information must hold {a} finite float64 values")
    if ranking.shape != (a,) or ranking.dtype.kind not in "iu" or not np.array_equal(
            np.sort(ranking), np.arange(a)):
        raise ValueError(f"memory_ranking must be a permutation of 0..{a - 1}")
    parents = est.table_.parents
    if parents is not None and not np.array_equal(np.sort(ranking[:parents.size]), parents):
        raise ValueError("the table's parents are not the top of memory_ranking")
    est.mutual_information_, est.ranking_ = mi.copy(), ranking.astype(np.int64)
    _set_fitted(est)
    return arrays
