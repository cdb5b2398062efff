"""The frequency-table engine that every learner stands on.

A :class:`FrequencyTable` holds the joint counts of the class with every combination of up to
``max_order`` distinct attributes, one dense block per combination (in the spirit of Petal's
yDist / xyDist / xxyDist, generalised to any order).  It counts in one pass (numba kernels on
all cores), adds and removes instances, merges with another table, grows when new attribute
values appear, estimates its memory exactly before allocating, and turns its counts into
smoothed log-probability tables for classification.

Every attribute block has one extra slot, index 0, for "missing": rows whose value is missing
are still counted there.  Lower-order counts are therefore exact marginals of higher-order
ones, and the counts needed to leave missing values out of a denominator (Weka's AODE) are at
hand.
"""

import math
from dataclasses import dataclass
from math import comb
from typing import NamedTuple

import numpy as np

from . import kernels
from .exceptions import TableTooLargeError
from .kernels import gaussian as gaussian_kernels
from .kernels import wide as wide_kernels
from .kernels.hdp import hdp_forest

#: the variance of a Gaussian child is floored at (FLOOR_RATIO x its overall sd)^2
FLOOR_RATIO = 0.01

#: rows per block in the counting kernels: a block's prefix codes (int64) stay in L2 while
#: each combination's histogram stays in L1
COUNT_BLOCK_ROWS = 16_384


def storage_codes(codes, sizes):
    """Encoder codes (-1 = missing) as table storage codes (0 = missing), compact dtype.

    Parameters
    ----------
    codes : ndarray of int, shape (n_rows, n_attributes)
        Codes of :meth:`seminaive.AttributeEncoder.transform` (-1 marks a missing value).
    sizes : ndarray of int
        Extents of the attributes in the table (values + 1).

    Returns
    -------
    ndarray of uint8 or int32, Fortran order

    Examples
    --------
    >>> import numpy as np
    >>> storage_codes(np.array([[0, -1], [2, 1]]), np.array([4, 3]))
    array([[1, 0],
           [3, 2]], dtype=uint8)
    """
    dtype = np.uint8 if sizes.max() <= 255 else np.int32
    out = np.empty(codes.shape, dtype=dtype, order="F")
    np.add(codes, 1, out=out, casting="unsafe")
    return out


def _combinations_by_order(n_attributes, max_order):
    """Lexicographically ordered combinations of each order 0..max_order, and for every
    combination the global index of its first one-element extension."""
    by_order = [np.zeros((1, 0), dtype=np.int64)]
    for _ in range(max_order):
        prev = by_order[-1]
        last = prev[:, -1] if prev.shape[1] else np.full(prev.shape[0], -1)
        n_ext = n_attributes - 1 - last
        parent = np.repeat(np.arange(prev.shape[0]), n_ext)
        start = np.repeat(np.cumsum(n_ext) - n_ext, n_ext)
        new_member = last[parent] + 1 + (np.arange(parent.size) - start)
        by_order.append(np.column_stack([prev[parent], new_member]).astype(np.int64))
    return by_order


def _elementary(sizes, max_order):
    """e_d = sum over the combinations of order d of the product of their sizes (the
    elementary symmetric polynomials), d = 0..max_order, as floats."""
    elem = np.zeros(max_order + 1)
    elem[0] = 1.0
    for s in np.asarray(sizes, dtype=np.float64):
        elem[1:] = elem[1:] + elem[:-1] * s
    return elem


def check_parents(parents, n_attributes):
    """The selected parent attributes as a sorted int64 array (ValueError if they are not
    distinct attribute indices)."""
    parents = np.asarray(parents)
    if parents.ndim != 1 or (parents.size and parents.dtype.kind not in "iu"):
        raise ValueError("parents must be a one-dimensional array of attribute indices")
    parents = parents.astype(np.int64)
    if parents.size and (parents.min() < 0 or parents.max() >= n_attributes
                         or np.unique(parents).size != parents.size):
        raise ValueError(f"parents must be distinct attribute indices in 0..{n_attributes - 1}")
    return np.sort(parents)


def estimate_table_bytes(n_values, n_classes, max_order, n_parent_order=None, parents=None,
                         occupied=None):
    """Exact bytes of the count and log-probability tables, computed without allocating.

    Parameters
    ----------
    n_values : array-like of int
        Number of values of each attribute (the missing slot is added here).
    n_classes : int
        Number of classes.
    max_order : int
        Highest order of attribute combinations counted (n + 1 for AnDE).
    n_parent_order : int, optional
        Highest parent order (n); defaults to ``max_order - 1``.
    parents : array-like of int, optional
        The selected parent attributes of a selective table (``FrequencyTable(...,
        parents=...)``, Chen et al. 2017): every combination of order <= n is kept, of order
        n + 1 only those with at least n members among ``parents``, and the log joints of
        order n only for the combinations of ``parents`` (plus one shared block of NaN for
        the others).  ``n_parent_order`` is then ``max_order - 1``.
    occupied : int, optional
        With ``parents``: the size of the *compact* layout (``FrequencyTable(...,
        occupied=...)``) that stores the order n + 1 counts and log tables only for this
        many parent cells (those that occur in the data), parent-major, and no log
        conditionals of order n (rows that cascade compute them from the counts).

    Returns
    -------
    dict
        ``counts``, ``log_tables``, ``index`` and ``total``, in bytes.

    Examples
    --------
    >>> from seminaive import estimate_table_bytes
    >>> est = estimate_table_bytes([3] * 20, n_classes=2, max_order=3)  # A2DE, 20 attributes
    >>> est["counts"] == 8 * 2 * sum(comb * 4**d for d, comb in enumerate([1, 20, 190, 1140]))
    True
    >>> round(est["total"] / 2**20, 1)
    4.7
    >>> sel = estimate_table_bytes([3] * 20, 2, 3, parents=range(5))  # pairs of 5 parents
    >>> sel["counts"] == 8 * 2 * (1 + 20 * 4 + 190 * 4**2 + (10 + 10 * 15) * 4**3)
    True
    """
    sizes = np.asarray(n_values, dtype=np.float64) + 1.0
    a = sizes.size
    max_order = min(max_order, a)
    if parents is not None and 1 <= max_order:
        parents = check_parents(parents, a)
        if occupied is not None and parents.size < a:
            return _estimate_compact_bytes(sizes, n_classes, max_order, parents, occupied)
        return _estimate_selective_bytes(sizes, n_classes, max_order, parents)
    if n_parent_order is None:
        n_parent_order = max_order - 1
    elem = _elementary(sizes, max_order)
    cells = n_classes * elem
    counts = 8.0 * cells.sum()
    log_joint = 8.0 * cells[: n_parent_order + 1].sum()
    log_cond = 8.0 * sum(d * cells[d] for d in range(1, max_order + 1))
    n_combos = sum(comb(a, d) for d in range(max_order + 1))
    index = 8.0 * n_combos * (2 * max_order + 4)
    return {
        "counts": int(counts),
        "log_tables": int(log_joint + log_cond),
        "index": int(index),
        "total": int(counts + log_joint + log_cond + index),
    }


def _estimate_selective_bytes(sizes, n_classes, max_order, parents):
    """:func:`estimate_table_bytes` of the layout of ``FrequencyTable(..., parents=...)``."""
    a, n, k = sizes.size, max_order - 1, n_classes
    if parents.size == a:
        return estimate_table_bytes(sizes - 1, n_classes, max_order)
    inside = np.zeros(a, dtype=bool)
    inside[parents] = True
    elem = _elementary(sizes, n)  # every combination of order <= n
    elem_s = _elementary(sizes[inside], max_order)
    rest = float(sizes[~inside].sum())
    top = elem_s[n + 1] + elem_s[n] * rest  # order n + 1, at least n members in parents
    counts = 8.0 * k * (elem.sum() + top)
    log_joint = 8.0 * k * (elem[:n].sum() + elem_s[n] + _nan_block_cells(sizes, n))
    log_cond = 8.0 * k * (sum(d * elem[d] for d in range(1, n + 1)) + max_order * top)
    m = parents.size
    n_combos = sum(comb(a, d) for d in range(n + 1)) + comb(m, n + 1) + comb(m, n) * (a - m)
    index = 8.0 * n_combos * (2 * max_order + 4) + 8.0 * (n_combos + 1)  # + log joint offsets
    return {
        "counts": int(counts),
        "log_tables": int(log_joint + log_cond),
        "index": int(index),
        "total": int(counts + log_joint + log_cond + index),
    }


def _estimate_compact_bytes(sizes, n_classes, max_order, parents, occupied):
    """:func:`estimate_table_bytes` of the compact selective layout with ``occupied``
    stored parent cells: the dense counts of orders <= n and log tables of orders < n (the
    rows that cascade compute order n from the counts), and per stored parent cell one
    region of counts (k per attribute value, missing code included) and one of log tables
    (k log joints and the log conditionals of every attribute value), plus one region of
    log tables per parent combination for the cells that hold no rows."""
    a, n, k = sizes.size, max_order - 1, n_classes
    inside = np.zeros(a, dtype=bool)
    inside[parents] = True
    elem = _elementary(sizes, n)
    elem_s = _elementary(sizes[inside], n)
    n_par = comb(parents.size, n)
    region = k * float(sizes.sum())
    counts = 8.0 * (k * elem.sum() + float(occupied) * region)
    log_joint = 8.0 * k * (elem[:n].sum() + elem_s[n] + _nan_block_cells(sizes, n))
    log_cond = 8.0 * (k * sum(d * elem[d] for d in range(1, n))  # order n: none
                      + (float(occupied) + n_par) * (k + region))
    n_combos = sum(comb(a, d) for d in range(n + 1))
    index = (8.0 * n_combos * (2 * max_order + 4) + 8.0 * (n_combos + 1)
             + 16.0 * elem_s[n] + 8.0 * (n_par + 1))  # + slots and regions of the cells
    return {
        "counts": int(counts),
        "log_tables": int(log_joint + log_cond),
        "index": int(index),
        "total": int(counts + log_joint + log_cond + index),
    }


def _nan_block_cells(sizes, n):
    """Cells of the one NaN block that stands for the log joints of the combinations of
    order n that are not parents: the largest block of n attributes."""
    return float(np.prod(np.sort(np.asarray(sizes, dtype=np.float64))[::-1][:n])) if n else 0.0


def _selective_top_combinations(n_attributes, n, parents):
    """The combinations of order n + 1 with at least n members among ``parents`` (sorted
    members, lexicographic order)."""
    m = parents.size
    rest = np.setdiff1d(np.arange(n_attributes), parents)
    within = parents[_combinations_by_order(m, n + 1)[n + 1]] if m > n else np.zeros(
        (0, n + 1), dtype=np.int64)
    if m >= n and rest.size:
        base = parents[_combinations_by_order(m, n)[n]]
        mixed = np.column_stack([np.repeat(base, rest.size, axis=0),
                                 np.tile(rest, base.shape[0])])
        mixed.sort(axis=1)
    else:
        mixed = np.zeros((0, n + 1), dtype=np.int64)
    top = np.concatenate([within, mixed]).astype(np.int64)
    if top.shape[0]:
        top = top[np.lexsort(top.T[::-1])]
    return top


def _format_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"


def check_table_budget(n_values, n_classes, max_order, max_table_bytes, what="this model",
                       parents=None, occupied=None):
    """Raise :class:`TableTooLargeError` if the tables would exceed the budget."""
    estimate = estimate_table_bytes(n_values, n_classes, max_order, parents=parents,
                                    occupied=occupied)
    if max_table_bytes is not None and estimate["total"] > max_table_bytes:
        a = len(n_values)
        raise TableTooLargeError(
            f"The frequency tables of {what} would need {_format_bytes(estimate['total'])} "
            f"({a} attributes, {n_classes} classes, combinations of up to {max_order} "
            f"attributes, mean {np.mean(n_values):.1f} values per attribute), more than "
            f"max_table_bytes={_format_bytes(max_table_bytes)}. Use a smaller n, select "
            f"fewer attributes, discretise into fewer bins, or raise max_table_bytes if the "
            f"machine has the memory."
        )
    return estimate


@dataclass
class LogTables:
    """Smoothed log-probability tables derived from a :class:`FrequencyTable`."""

    log_joint: np.ndarray  # layout of the counts, orders 0..n; NaN where a parent is unusable
    log_conditional: np.ndarray  # blocks (cells, d, k) for orders 1..max_order
    lc_offsets: np.ndarray  # start of each combination's block in ``log_conditional``
    n: int
    # start of each combination's block in ``log_joint`` when it is not the layout of the
    # counts (a selective table: only the parents' blocks of order n, see FrequencyTable)
    lj_offsets: np.ndarray | None = None


#: the precisions of the prediction tables (``dtype`` of :meth:`FrequencyTable.scores`)
TABLE_DTYPES = ("float64", "float32")


@dataclass
class ParentMajorTables:
    """The log tables rearranged parent-major for :mod:`seminaive.kernels.wide`: one region
    per (parent combination, parent cell) holding its log joints then the log conditional of
    every attribute value and class (0.0 for the parents themselves and the missing code)."""

    parents: np.ndarray  # global indices of the parent combinations of order n laid out
    offsets: np.ndarray  # start of each parent combination's regions in ``values``
    att_off: np.ndarray  # start of each attribute in a region, after the k log joints
    region: int  # entries per parent cell
    values: np.ndarray  # float64 or float32


class TableLayout(NamedTuple):
    """The arrays that locate every count of a table, bundled for the numba kernels.

    Learners pass ``table.layout()`` (or its fields) to their kernels rather than reading
    the table's attributes one by one.  ``order_first``, ``ext_first`` and ``sub_index`` are
    None for a :class:`CombinationTable`.
    """

    counts: np.ndarray  # flat counts, every block (sizes..., k) in C order
    offsets: np.ndarray  # start of each combination's block; one more entry at the end
    combos: np.ndarray  # (n_combinations, width) attribute indices, padded with -1
    orders: np.ndarray  # number of members of each combination
    sizes: np.ndarray  # n_values + 1 per attribute (index 0: missing)
    n_classes: int
    order_first: np.ndarray | None  # global index of the first combination of each order
    ext_first: np.ndarray | None  # global index of each combination's first extension
    sub_index: np.ndarray | None  # global index of each combination minus one member


class _CountTable:
    """What every count table shares: the block layout, counting, growing and the queries.

    A subclass decides which combinations it holds (``combos``, ``orders``), how its memory
    is checked (:meth:`_check_budget`) and how rows are counted (:meth:`_count`).
    """

    def _layout_offsets(self):
        block = np.full(self.orders.size, self.n_classes, dtype=np.int64)
        for t in range(self.combos.shape[1]):
            member = self.combos[:, t]
            has = member >= 0
            block[has] *= self.sizes[member[has]]
        self.offsets = np.concatenate([[0], np.cumsum(block)]).astype(np.int64)

    def _check_budget(self, n_values):
        raise NotImplementedError

    def _count(self, X, y, w, weighted):
        raise NotImplementedError

    def _changed(self):
        """Called after the counts change (derived caches are dropped)."""

    @property
    def n_attributes(self):
        """Number of attributes."""
        return int(self.sizes.size)

    @property
    def n_values(self):
        """Number of values of each attribute (without the missing slot)."""
        return self.sizes - 1

    # --------------------------------------------------------------------------- queries
    def members(self, g):
        """Attribute indices of combination number ``g`` (a tuple)."""
        return tuple(int(m) for m in self.combos[g, :int(self.orders[g])])

    def block_at(self, g):
        """Count block of combination number ``g``, shape (sizes of its members..., k), a
        view: index 0 of an attribute axis counts the rows where it is missing."""
        shape = [int(self.sizes[m]) for m in self.members(g)] + [self.n_classes]
        return self.counts[self.offsets[g]: self.offsets[g + 1]].reshape(shape)

    def observed_block_at(self, g):
        """:meth:`block_at` without the missing slots: the counts N(y, x_s) of the rows in
        which every member of combination ``g`` is observed, shape (values..., k)."""
        block = self.block_at(g)
        return block[(slice(1, None),) * (block.ndim - 1)]

    def n_cells_of(self, g):
        """Number of cells (value combinations, missing slots included) of combination
        ``g``: its block holds that many times k counts."""
        return int(self.offsets[g + 1] - self.offsets[g]) // self.n_classes

    def layout(self):
        """The arrays of the table bundled for kernels (:class:`TableLayout`)."""
        return TableLayout(self.counts, self.offsets, self.combos, self.orders, self.sizes,
                           self.n_classes, getattr(self, "order_first", None),
                           getattr(self, "ext_first", None), getattr(self, "sub_index", None))

    # ---------------------------------------------------------------------------- counting
    def add(self, X, y, sample_weight=None, values=None):
        """Count rows (storage codes ``X`` (n, a), class indices ``y``) into the tables.

        Negative weights remove rows (see :meth:`remove`).  ``values``: the centred values of
        the numeric attributes, for a table with moments (:meth:`FrequencyTable.attach_moments`).
        """
        X = np.asfortranarray(X)
        y = np.ascontiguousarray(y, dtype=np.int32)
        if X.shape[1] != self.n_attributes:
            raise ValueError(f"expected {self.n_attributes} attributes, got {X.shape[1]}")
        weighted = sample_weight is not None
        if weighted:
            w = np.ascontiguousarray(sample_weight, dtype=np.float64)
        else:
            w = np.zeros(1, dtype=np.float64)  # unused
        if X.shape[0] == 0:
            return self
        self._count(X, y, w, weighted)
        moments = getattr(self, "moments", None)
        if moments is not None:
            if values is None or np.shape(values) != (X.shape[0], moments.numeric.size):
                raise ValueError(f"this table keeps the moments of {moments.numeric.size} "
                                 "numeric attributes: pass their values")
            moments.add(X, y, w if weighted else None, values)
        self.n_rows += float(w.sum()) if weighted else float(X.shape[0])
        self._changed()
        return self

    def remove(self, X, y, sample_weight=None, values=None):
        """Subtract rows previously added (incremental unlearning, leave-one-out)."""
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        return self.add(X, y, -w, values)

    def grow(self, n_values):
        """Enlarge attribute extents to ``n_values`` (new values appended); counts kept."""
        n_values = np.asarray(n_values, dtype=np.int64)
        if n_values.shape != self.sizes.shape or np.any(n_values + 1 < self.sizes):
            raise ValueError("grow() only enlarges the value sets of the same attributes")
        if np.array_equal(n_values + 1, self.sizes):
            return self
        self._check_budget(n_values)
        old_sizes, old_offsets, old_counts = self.sizes, self.offsets, self.counts
        self.sizes = n_values + 1
        self._layout_offsets()
        self.counts = np.zeros(int(self.offsets[-1]), dtype=np.float64)
        kernels.regrid(old_counts, old_offsets, old_sizes, self.counts, self.offsets,
                       self.sizes, self.combos, self.orders, self.n_classes)
        if getattr(self, "compact", False):
            self._grow_compact(old_sizes)
        if getattr(self, "moments", None) is not None:
            self.moments.grow(self.sizes)
        self._changed()
        return self


class FrequencyTable(_CountTable):
    """Joint counts N(y, x_s) for every combination s of up to ``max_order`` attributes.

    Parameters
    ----------
    n_values : array-like of int
        Number of values of each attribute (codes 1..n_values; code 0 is missing).
    n_classes : int
    max_order : int
        Highest combination order counted; AnDE needs ``n + 1``.  Clamped to the number of
        attributes.
    max_table_bytes : int or None
        Refuse (before allocating) if the tables would exceed this many bytes.
    parents : array-like of int, optional
        A *selective* table (Chen et al. 2017): the parent attributes of order-n sub-models,
        n = ``max_order - 1``.  Every combination of order <= n is counted (the joints of the
        parents and the cascade to A(n-1)DE), but of order n + 1 only those with at least n
        members among ``parents``; ``sub_index[h, p]`` is -1 where combination h without
        member p is not a combination of ``parents`` (that child term belongs to no
        sub-model), and the log joints of order n are kept for the combinations of
        ``parents`` only (NaN for the others: they never act as parents).  None, or every
        attribute: the full table.
    occupied : array-like of bool, optional
        With ``parents``: the *compact* selective layout.  A sub-model is read only where
        its parent cell qualifies (frequency >= ``min_count``), so the children of a parent
        cell that holds no rows are never read when ``min_count > 0``.  ``occupied`` marks,
        for every parent combination of order n (the combinations of ``parents``, in
        lexicographic order) and every cell of it, whether its children are stored; the
        order n + 1 counts are then kept parent-major, one region per stored cell
        (``compact_counts``, see :meth:`compact_region`), instead of one dense block per
        combination of order n + 1, and scored with regions of log tables laid out the same
        way (:meth:`compact_tables`; the cells that hold no rows share one region of
        estimates from zero counts).  Rows whose parent cell is not stored (and has every
        member observed) add a stored cell when counted (:meth:`add`).  The log tables of
        such a table hold no log conditionals of order n: a row in which no parent
        combination qualifies computes them from the counts
        (:func:`seminaive.kernels.scoring.cascade_from_counts`).  The scores are those of
        the dense selective table's parent-major kernel, bit for bit.

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive import FrequencyTable
    >>> table = FrequencyTable([2, 3], n_classes=2, max_order=2)
    >>> codes = np.array([[1, 1], [1, 2], [2, 3]])  # storage codes: 0 = missing
    >>> _ = table.add(codes, np.array([0, 0, 1]))
    >>> table.block([0]).tolist()  # N(x_0, y): missing slot, value 1, value 2
    [[0.0, 0.0], [2.0, 0.0], [0.0, 1.0]]
    >>> table.combinations(2).tolist()
    [[0, 1]]
    >>> table.marginal([0, 1]).sum(axis=(0, 1)).tolist()  # rows with both observed, by class
    [2.0, 1.0]
    """

    def __init__(self, n_values, n_classes, max_order, max_table_bytes=None, parents=None,
                 occupied=None):
        n_values = np.asarray(n_values, dtype=np.int64)
        if n_values.ndim != 1:
            raise ValueError("n_values must be one-dimensional")
        self.n_classes = int(n_classes)
        self.max_order = int(min(max_order, n_values.size))
        self.max_table_bytes = max_table_bytes
        if parents is not None:
            parents = check_parents(parents, n_values.size)
            if parents.size == n_values.size or self.max_order < 1:
                parents = None
        self.parents = parents
        self.compact = parents is not None and occupied is not None
        if self.compact:
            occupied = np.asarray(occupied, dtype=bool)
            if occupied.ndim != 1:
                raise ValueError("occupied must be a one-dimensional array of booleans")
        check_table_budget(n_values, self.n_classes, self.max_order, max_table_bytes,
                           parents=parents,
                           occupied=int(occupied.sum()) if self.compact else None)
        self.sizes = n_values + 1
        self._build_index()
        if self.compact:
            self._compact_layout(occupied)
        self.counts = np.zeros(int(self.offsets[-1]), dtype=np.float64)
        self.n_rows = 0.0
        self._log_tables = None
        self._parent_major = None
        self._compact_tables = None
        self.moments = None
        self.hdp_conditional = None

    def attach_moments(self, numeric, max_parents):
        """Also keep the moments of the ``numeric`` attributes as Gaussian children of every
        parent combination of order <= ``max_parents`` (:meth:`MomentTable.for_table`);
        refused before allocating if counts and moments would exceed ``max_table_bytes``."""
        if self.parents is not None:
            raise ValueError("a selective table (parents=...) keeps no Gaussian moments")
        n_comb = int(self.order_first[min(max_parents, self.max_order) + 1])
        entries = [(self.members(g), int(c)) for g in range(n_comb) for c in numeric
                   if int(c) not in self.members(g)]
        need = MomentTable.estimate_bytes(entries, self.sizes, self.n_classes)
        if self.max_table_bytes is not None and need + self.counts.nbytes > self.max_table_bytes:
            raise TableTooLargeError(
                f"The counts ({_format_bytes(self.counts.nbytes)}) and the moments of "
                f"{len(numeric)} Gaussian attributes ({_format_bytes(need)}) would exceed "
                f"max_table_bytes={_format_bytes(self.max_table_bytes)}: use a lower order, "
                "numeric='discretize', or raise max_table_bytes if the machine has the "
                "memory.")
        self.moments = MomentTable(entries, self.sizes, self.n_classes, numeric)
        self.moment_parents = int(min(max_parents, self.max_order))
        return self

    # ----------------------------------------------------------------------------- layout
    def _build_index(self):
        selective = self.parents is not None
        if selective:
            by_order = _combinations_by_order(self.sizes.size, self.max_order - 1)
            by_order.append(np.zeros((0, self.max_order), dtype=np.int64) if self.compact
                            else _selective_top_combinations(self.sizes.size,
                                                             self.max_order - 1, self.parents))
        else:
            by_order = _combinations_by_order(self.sizes.size, self.max_order)
        n_per_order = np.array([c.shape[0] for c in by_order], dtype=np.int64)
        self.order_first = np.concatenate([[0], np.cumsum(n_per_order)]).astype(np.int64)
        total = int(self.order_first[-1])
        self.combos = np.full((total, max(self.max_order, 1)), -1, dtype=np.int64)
        self.orders = np.zeros(total, dtype=np.int64)
        for d, c in enumerate(by_order):
            lo, hi = self.order_first[d], self.order_first[d + 1]
            self.combos[lo:hi, :d] = c
            self.orders[lo:hi] = d
        # global index of the first extension (combination + (last member + 1))
        self.ext_first = np.zeros(total, dtype=np.int64)
        for d in range(self.max_order):
            c = by_order[d]
            last = c[:, -1] if d else np.full(c.shape[0], -1)
            n_ext = self.sizes.size - 1 - last
            first = np.cumsum(n_ext) - n_ext
            self.ext_first[self.order_first[d]: self.order_first[d + 1]] = (
                self.order_first[d + 1] + first)
        self._layout_offsets()
        self.sub_index = np.full((total, max(self.max_order, 1)), -1, dtype=np.int64)
        if selective:
            # the combinations of order n + 1 are not every extension: found by members
            n = self.max_order - 1
            self.ext_first[self.order_first[n]: self.order_first[n + 1]] = -1
            top = self.combos[self.order_first[n + 1]:self.order_first[n + 2], :n + 1]
            self._top_index = {tuple(int(v) for v in row): int(self.order_first[n + 1]) + h
                               for h, row in enumerate(top)}
        kernels.sub_combination_index(self.combos, self.orders, self.ext_first,
                                      self.order_first, self.max_order, self.sub_index)
        if selective:
            inside = np.isin(top, self.parents)
            others_inside = inside.sum(axis=1, keepdims=True) - inside
            self.sub_index[self.order_first[n + 1]:, :n + 1][others_inside < n] = -1
            of_n = self.combos[self.order_first[n]:self.order_first[n + 1], :n]
            self.parent_mask = np.isin(of_n, self.parents).all(axis=1)
        else:
            self.parent_mask = None

    def _check_budget(self, n_values):
        check_table_budget(n_values, self.n_classes, self.max_order, self.max_table_bytes,
                           parents=self.parents,
                           occupied=self.n_slots if self.compact else None)

    # ------------------------------------------------------------------ the compact layout
    def _compact_layout(self, occupied):
        """The parent combinations, their cells' slots and the region layout of a compact
        selective table with the stored cells ``occupied`` (see the class docstring)."""
        n, k = self.max_order - 1, self.n_classes
        self.compact_parents = (np.flatnonzero(self.parent_mask)
                                + int(self.order_first[n])).astype(np.int64)
        self.compact_combos = np.ascontiguousarray(self.combos[self.compact_parents, :n])
        cells = np.diff(self.offsets)[self.compact_parents] // k
        self.cell_first = np.concatenate([[0], np.cumsum(cells)]).astype(np.int64)
        if occupied.shape != (int(self.cell_first[-1]),):
            raise ValueError(f"occupied must hold one entry per cell of the "
                             f"{self.compact_parents.size} parent combinations "
                             f"({int(self.cell_first[-1])}), got {occupied.size}")
        self.slot_of = np.where(occupied, np.cumsum(occupied) - 1, -1).astype(np.int64)
        self.n_slots = int(occupied.sum())
        self.att_off = np.zeros(self.sizes.size, dtype=np.int64)
        self.att_off[1:] = k * np.cumsum(self.sizes)[:-1]
        self.count_region = int(k * int(self.sizes.sum()))
        self.compact_counts = np.zeros(self.n_slots * self.count_region, dtype=np.float64)
        self._compact_tables = None

    @property
    def occupied(self):
        """Whether each parent cell's children are stored (compact layout), in the order of
        ``cell_first``."""
        return self.slot_of >= 0

    def compact_region(self, j, cell):
        """The stored counts of cell ``cell`` of the j-th parent combination of a compact
        table as an array (attribute i, storage code v, class y) at
        ``[att_off[i] + v * k + y]`` (a view; None if the cell is not stored).  For a child
        i, ``region[att_off[i]:att_off[i] + sizes[i] * k]`` equals the block of the parents
        and i (:meth:`block` of the dense table) at the parent cell."""
        slot = int(self.slot_of[self.cell_first[j] + cell])
        if slot < 0:
            return None
        return self.compact_counts[slot * self.count_region:(slot + 1) * self.count_region]

    def _count_compact(self, X, y, w, weighted):
        kernels.counting.count_parent_cells(
            X, y, w, weighted, self.compact_combos, self.cell_first, self.slot_of,
            self.sizes, self.n_classes, self.att_off, self.count_region, self.compact_counts)

    def _store_cells(self, X, w, weighted):
        """Give a slot to the parent cells of rows (non-zero weight, parents observed) that
        have none, keeping slots in (combination, cell) order; refused before changing
        anything if the table would exceed ``max_table_bytes``."""
        mark = np.zeros(self.slot_of.size, dtype=np.bool_)
        kernels.counting.mark_parent_cells(X, w, weighted, self.compact_combos,
                                           self.cell_first, self.sizes, mark)
        held = self.slot_of >= 0
        new = mark & ~held
        if not new.any():
            return
        occupied = held | new
        n_slots = int(occupied.sum())
        need = estimate_table_bytes(self.sizes - 1, self.n_classes, self.max_order,
                                    parents=self.parents, occupied=n_slots)["total"]
        if self.max_table_bytes is not None and need > self.max_table_bytes:
            raise TableTooLargeError(
                f"These rows bring {int(new.sum())} parent cells not seen before: the compact "
                f"selective tables would need {_format_bytes(need)}, more than "
                f"max_table_bytes={_format_bytes(self.max_table_bytes)}. Fit on all the rows "
                "(fit or fit_stream) to choose the parents for them, or raise "
                "max_table_bytes.")
        slot_of = np.where(occupied, np.cumsum(occupied) - 1, -1).astype(np.int64)
        counts = np.zeros(n_slots * self.count_region, dtype=np.float64)
        old = np.flatnonzero(held)
        if old.size:
            counts.reshape(n_slots, self.count_region)[slot_of[old]] = (
                self.compact_counts.reshape(-1, self.count_region)[self.slot_of[old]])
        self.slot_of, self.n_slots, self.compact_counts = slot_of, n_slots, counts

    def _grow_compact(self, old_sizes):
        """Re-lay the compact store after ``sizes`` grew from ``old_sizes`` (new values
        appended): the same cells and slots, each cell and region entry moved."""
        k, n = self.n_classes, self.max_order - 1
        old_first, old_att_off, old_region = self.cell_first, self.att_off, self.count_region
        old_slot_of, old_counts = self.slot_of, self.compact_counts
        cells = np.diff(self.offsets)[self.compact_parents] // k
        self.cell_first = np.concatenate([[0], np.cumsum(cells)]).astype(np.int64)
        occupied = np.zeros(int(self.cell_first[-1]), dtype=bool)
        for j in range(self.compact_parents.size):
            members = self.compact_combos[j]
            held = np.flatnonzero(old_slot_of[old_first[j]:old_first[j + 1]] >= 0)
            digits = np.unravel_index(held, [int(old_sizes[m]) for m in members])
            new = np.ravel_multi_index(digits, [int(self.sizes[m]) for m in members]) \
                if n else held
            occupied[self.cell_first[j] + new] = True
        self.slot_of = np.where(occupied, np.cumsum(occupied) - 1, -1).astype(np.int64)
        self.att_off = np.zeros(self.sizes.size, dtype=np.int64)
        self.att_off[1:] = k * np.cumsum(self.sizes)[:-1]
        self.count_region = int(k * int(self.sizes.sum()))
        old = old_counts.reshape(self.n_slots, old_region)
        new = np.zeros((self.n_slots, self.count_region))
        for i in range(self.sizes.size):
            width = int(old_sizes[i]) * k
            new[:, self.att_off[i]:self.att_off[i] + width] = old[
                :, old_att_off[i]:old_att_off[i] + width]
        self.compact_counts = new.reshape(-1)

    def compact_tables(self, n, smoothing="m_estimate", m=1.0, min_count=1, dtype="float64"):
        """The log tables of a compact table's sub-models, parent-major (cached, like the
        log tables): ``(ridx, values)`` of :func:`seminaive.kernels.wide.build_compact_regions`
        (one region of k + ``count_region`` entries per stored cell, then one per parent
        combination for the cells that hold no rows), in ``dtype``."""
        if dtype not in TABLE_DTYPES:
            raise ValueError(f"dtype={dtype!r}: use one of {TABLE_DTYPES}")
        tables = self.log_tables(n, smoothing, m, min_count)
        key = (self._log_tables_key, dtype)
        if self._compact_tables is not None and self._compact_tables[0] == key:
            return self._compact_tables[1]
        self._compact_tables = None
        k = self.n_classes
        region = k + self.count_region
        values = np.zeros((self.n_slots + self.compact_parents.size) * region, dtype=dtype)
        ridx = np.empty(self.slot_of.size, dtype=np.int64)
        wide_kernels.build_compact_regions(
            self.compact_parents, self.compact_combos, self.cell_first, self.slot_of,
            self.sizes, k, tables.log_joint, tables.lj_offsets, self.compact_counts,
            self.att_off, self.count_region, float(m), smoothing == "laplace", self.n_slots,
            ridx, values)
        self._compact_tables = (key, (ridx, values))
        return ridx, values

    def _changed(self):
        self._log_tables = None
        self._parent_major = None
        self._compact_tables = None
        self._gaussian_key = None
        self.hdp_conditional = None  # estimated from the old counts

    def combination_index(self, members):
        """Global index of the combination with these (distinct) attribute indices."""
        members = sorted(int(m) for m in members)
        if self.parents is not None and len(members) == self.max_order:
            h = self._top_index.get(tuple(members))
            if h is None:
                raise KeyError(f"the selective table does not count the combination "
                               f"{tuple(members)}")
            return h
        h, prev = 0, -1
        for e in members:
            h = int(self.ext_first[h]) + (e - prev - 1)
            prev = e
        return h

    def block(self, members):
        """Count block of a combination as an array of shape (sizes..., k) (a view)."""
        members = sorted(int(m) for m in members)
        g = self.combination_index(members)
        shape = [int(self.sizes[m]) for m in members] + [self.n_classes]
        return self.counts[self.offsets[g]: self.offsets[g + 1]].reshape(shape)

    def marginal(self, members):
        """Counts N(y, x_s) of a combination over the rows in which all its members are
        observed: :meth:`block` without the missing slots, shape (n_values..., k)."""
        block = self.block(members)
        return block[(slice(1, None),) * (block.ndim - 1)]

    def n_combinations(self, order=None):
        """Number of combinations of ``order`` attributes the table counts (of every order
        when ``order`` is None)."""
        if order is None:
            return int(self.order_first[-1])
        return int(self.order_first[order + 1] - self.order_first[order])

    def combination_range(self, order):
        """Global numbers ``g`` of the combinations of ``order`` attributes (a range), in
        lexicographic order of their members."""
        return range(int(self.order_first[order]), int(self.order_first[order + 1]))

    def combinations(self, order):
        """Members of every combination of ``order`` attributes, shape
        (n_combinations(order), order), in the order of :meth:`combination_range` (that of
        ``itertools.combinations(range(n_attributes), order)``)."""
        return self.combos[self.order_first[order]:self.order_first[order + 1], :order].copy()

    def block_starts(self, order):
        """Start, in ``counts``, of the block of every combination of ``order`` attributes
        (int64, in the order of :meth:`combinations`), for kernels that read the blocks."""
        r = self.combination_range(order)
        return np.ascontiguousarray(self.offsets[r.start:r.stop], dtype=np.int64)

    def cell_start(self, order):
        """Index of the first cell of the blocks of ``order`` attributes when the cells of
        all blocks are numbered consecutively (offset / k): arrays with one entry per cell
        of orders 0..n have ``cell_start(n + 1)`` entries."""
        return int(self.offsets[self.order_first[order]]) // self.n_classes

    def cells_per_combination(self, max_order):
        """Number of cells of every combination of orders 0..``max_order``, in global
        order."""
        last = int(self.order_first[max_order + 1])
        return np.diff(self.offsets[: last + 1]) // self.n_classes

    def pair_block_starts(self):
        """(a, a) matrix of the start, in ``counts``, of the block of the pair {i, j} (the
        same for (i, j) and (j, i)); -1 on the diagonal and when pairs are not counted."""
        a = self.n_attributes
        starts = np.full((a, a), -1, dtype=np.int64)
        if self.max_order >= 2:
            pairs = self.combinations(2)
            first = self.offsets[self.combination_range(2).start:
                                 self.combination_range(2).stop]
            starts[pairs[:, 0], pairs[:, 1]] = first
            starts[pairs[:, 1], pairs[:, 0]] = first
        return starts

    @property
    def nbytes(self):
        extra = 0
        if self._log_tables is not None:
            extra = self._log_tables.log_joint.nbytes + self._log_tables.log_conditional.nbytes
        if getattr(self, "_parent_major", None) is not None:
            extra += self._parent_major[1].values.nbytes
        if getattr(self, "compact", False):
            extra += self.compact_counts.nbytes
            if self._compact_tables is not None:
                extra += sum(v.nbytes for v in self._compact_tables[1])
        return self.counts.nbytes + extra

    # ---------------------------------------------------------------------------- counting
    def _count(self, X, y, w, weighted):
        k = self.n_classes
        if self.compact:
            self._store_cells(X, w, weighted)  # before any count changes
        kernels.count_order0(y, w, weighted, self.offsets[0], k, self.counts)
        lo, hi = self.order_first[1], self.order_first[self.max_order + 1]
        if hi > lo:  # orders 1..max_order in one parallel region, prefixes shared
            kernels.count_combinations(X, y, w, weighted, self.combos[lo:hi], self.orders[lo:hi],
                                       self.offsets[lo:hi], self.sizes, k, self.counts,
                                       COUNT_BLOCK_ROWS)
        if self.compact:
            self._count_compact(X, y, w, weighted)

    def merge(self, other):
        """Add the counts of another table over the same attributes and classes (in place)."""
        if (other.n_attributes != self.n_attributes or other.n_classes != self.n_classes
                or other.max_order != self.max_order
                or (self.parents is None) != (other.parents is None)
                or (self.parents is not None
                    and not np.array_equal(self.parents, other.parents))
                or self.compact != other.compact):
            raise ValueError(
                "can only merge tables over the same attributes, classes, order and parents; "
                "got "
                f"{other.n_attributes}/{other.n_classes}/{other.max_order} vs "
                f"{self.n_attributes}/{self.n_classes}/{self.max_order}")
        target = np.maximum(self.sizes, other.sizes) - 1
        self.grow(target)
        if not np.array_equal(other.sizes - 1, target):
            other = other.copy().grow(target)
        if (self.moments is None) != (other.moments is None) or (
                self.moments is not None and not np.array_equal(self.moments.numeric,
                                                                other.moments.numeric)):
            raise ValueError("can only merge tables that keep the moments of the same numeric "
                             "attributes")
        if self.compact and not np.array_equal(self.slot_of, other.slot_of):
            if np.any(other.occupied & ~self.occupied):
                raise ValueError("can only merge compact tables whose stored parent cells "
                                 "are a subset of this table's")
            theirs = np.flatnonzero(other.occupied)
            mine = self.compact_counts.reshape(-1, self.count_region)
            mine[self.slot_of[theirs]] += other.compact_counts.reshape(
                -1, self.count_region)[other.slot_of[theirs]]
        elif self.compact:
            self.compact_counts += other.compact_counts
        self.counts += other.counts
        if self.moments is not None:
            self.moments.sums += other.moments.sums
        self.n_rows += other.n_rows
        self._changed()
        return self

    def __getstate__(self):
        # the parent-major prediction tables are rebuilt when needed, not pickled
        state = dict(self.__dict__)
        state["_parent_major"] = None
        state["_compact_tables"] = None
        return state

    def __setstate__(self, state):
        state.setdefault("compact", False)  # pickled before the compact layout existed
        self.__dict__.update(state)

    def copy(self):
        new = object.__new__(FrequencyTable)
        new.__dict__.update(self.__dict__)
        new.counts = self.counts.copy()
        new._log_tables = None
        new._parent_major = None
        new._gaussian_key = None
        if self.compact:
            new.compact_counts = self.compact_counts.copy()
            new.slot_of = self.slot_of.copy()
            new._compact_tables = None
        if self.moments is not None:
            new.moments = self.moments.copy()
        return new

    # --------------------------------------------------------------------------- smoothing
    def hdp_tables(self, n_iter, burn_in, tying, seeds, max_order=None):
        """Hierarchical Dirichlet process estimates of every conditional P(x_c | y, x_rest)
        of the combinations of order 1 .. ``max_order`` (default: all), as a log-conditional
        array (the layout of :meth:`log_tables`; Petitjean et al. 2018).

        The tree of child c in combination g conditions on the class, then on the other
        members in increasing index order (a missing value of theirs is a branch of its own);
        its leaves give the entries, a node the data never reached takes its nearest
        ancestor's estimate (see :mod:`seminaive.kernels.hdp`).  ``seeds``: one per tree,
        trees numbered by combination then member.  Install the result with
        ``table.hdp_conditional = ...`` to score with ``smoothing="hdp"``.
        """
        max_order = self.max_order if max_order is None else min(max_order, self.max_order)
        of, k = self.order_first, self.n_classes
        block = np.diff(self.offsets) * self.orders
        lc_offsets = np.concatenate([[0], np.cumsum(block)]).astype(np.int64)
        out = np.zeros(int(lc_offsets[-1]), dtype=np.float64)
        trees, where = [], []
        for g in range(int(of[1]), int(of[max_order + 1])):
            d = int(self.orders[g])
            members = self.members(g)
            counts = self.block_at(g)
            for p in range(d):
                rest = [t for t in range(d) if t != p]
                arranged = np.transpose(counts, [d] + rest + [p])[..., 1:]
                trees.append((arranged.reshape(-1, int(self.sizes[members[p]]) - 1),
                              [k] + [int(self.sizes[members[t]]) for t in rest]))
                where.append((g, p, rest))
        if len(seeds) != len(trees):
            raise ValueError(f"{len(trees)} seeds needed, got {len(seeds)}")
        budget = None if self.max_table_bytes is None else (
            int(self.max_table_bytes) - self.counts.nbytes)
        estimates = hdp_forest(trees, n_iter=n_iter, burn_in=burn_in, tying=tying, seeds=seeds,
                               max_bytes=budget)
        for (g, p, rest), est, (_, dims) in zip(where, estimates, trees, strict=True):
            d = int(self.orders[g])
            members = self.members(g)
            leaf = est[-int(np.prod(dims)):]  # the deepest level
            shape = [int(x) for x in dims] + [leaf.shape[1]]
            log_leaf = np.log(leaf).reshape(shape)
            pad = np.zeros(shape[:-1] + [1])
            full = np.concatenate([pad, log_leaf], axis=-1)  # (k, rest..., s_p)
            # axes of ``full``: class, rest members, child -> members in order, class
            source_axis = {t: 1 + i for i, t in enumerate(rest)}
            source_axis[p] = d
            arranged = np.transpose(full, [source_axis[t] for t in range(d)] + [0])
            n_cells = int(np.prod([int(self.sizes[m]) for m in members]))
            view = out[lc_offsets[g]:lc_offsets[g + 1]].reshape(n_cells, d, k)
            view[:, p, :] = arranged.reshape(n_cells, k)
        return out

    def _selective_log_joint(self, n, m, laplace, min_count):
        """Log joints of a selective table: orders < n laid out as the counts, then the blocks
        of the parent combinations of order n, then one block of NaN that every other
        combination of order n points to (they are never parents).  Returns the array and
        the offsets of every combination's block in it."""
        of, k = self.order_first, self.n_classes
        prefix = int(self.offsets[of[n]])
        parents = np.flatnonzero(self.parent_mask) + int(of[n])
        starts = self.offsets[parents]
        cells = self.offsets[parents + 1] - starts
        sub_offsets = np.concatenate([[0], np.cumsum(cells)]).astype(np.int64)
        nan_cells = int(_nan_block_cells(self.sizes, n)) * k
        out = np.empty(prefix + int(sub_offsets[-1]) + nan_cells, dtype=np.float64)
        kernels.log_joint_tables(self.counts, self.offsets, self.combos, self.orders,
                                 self.sizes, k, 0, int(of[n]), float(m), laplace,
                                 float(min_count), out)
        if parents.size:
            sub_counts = np.concatenate([self.counts[a:b] for a, b in
                                         zip(starts, starts + cells, strict=True)])
            kernels.log_joint_tables(sub_counts, sub_offsets,
                                     np.ascontiguousarray(self.combos[parents]),
                                     np.ascontiguousarray(self.orders[parents]), self.sizes,
                                     k, 0, parents.size, float(m), laplace, float(min_count),
                                     out[prefix:prefix + int(sub_offsets[-1])])
        out[prefix + int(sub_offsets[-1]):] = np.nan
        lj_offsets = self.offsets.copy()
        lj_offsets[of[n]:of[n + 1]] = prefix + int(sub_offsets[-1])  # the NaN block
        lj_offsets[parents] = prefix + sub_offsets[:-1]
        return out, lj_offsets

    def log_tables(self, n, smoothing="m_estimate", m=1.0, min_count=1):
        """Smoothed log-probability tables for parents of order ``n`` (cached).

        See :func:`seminaive.kernels.log_joint_tables` and
        :func:`seminaive.kernels.log_conditional_tables` for the formulas.  With
        ``smoothing="hdp"`` the conditionals are ``hdp_conditional`` (set from
        :meth:`hdp_tables`) and the joints of the parents are m-estimated.
        """
        key = (n, smoothing, float(m), float(min_count), id(self.hdp_conditional))
        if self._log_tables is not None and self._log_tables_key == key:
            return self._log_tables
        if smoothing == "hdp" and self.hdp_conditional is None:
            raise ValueError("smoothing='hdp' needs the HDP estimates: set hdp_conditional "
                             "from hdp_tables() after counting")
        laplace = smoothing == "laplace"
        n = min(n, self.max_order)
        of = self.order_first
        selective = self.parents is not None and n == self.max_order - 1
        if selective:
            log_joint, lj_offsets = self._selective_log_joint(n, m, laplace, min_count)
        else:
            lj_offsets = None
            log_joint = np.empty(int(self.offsets[of[n + 1]]), dtype=np.float64)
            kernels.log_joint_tables(self.counts, self.offsets, self.combos, self.orders,
                                     self.sizes, self.n_classes, 0, int(of[n + 1]), float(m),
                                     laplace, float(min_count), log_joint)
        # log-conditional blocks are d times the count block of order d, same order
        block = np.diff(self.offsets) * self.orders
        # a compact table scores its sub-models from its own regions, and the rare rows that
        # cascade read the counts of order n (scores): no log conditionals of order >= n
        lc_last = int(of[n]) if selective and self.compact else int(of[self.max_order + 1])
        block[lc_last:] = 0
        lc_offsets = np.zeros(self.orders.size + 1, dtype=np.int64)
        lc_offsets[1:] = np.cumsum(block)
        if smoothing == "hdp":
            log_cond = self.hdp_conditional
        else:
            log_cond = np.empty(int(lc_offsets[-1]), dtype=np.float64)
            kernels.log_conditional_tables(self.counts, self.offsets, self.combos,
                                           self.orders, self.sizes, self.n_classes, int(of[1]),
                                           lc_last, lc_offsets, float(m), laplace, log_cond)
        self._log_tables = LogTables(log_joint, log_cond, lc_offsets, n, lj_offsets)
        self._log_tables_key = key
        return self._log_tables

    def parent_major_bytes(self, n, dtype="float64"):
        """Bytes of the parent-major prediction tables of parents of order ``n``
        (:meth:`parent_major`), computed without allocating."""
        n = min(n, self.max_order)
        _, _, n_entries = wide_kernels.parent_major_shape(
            n, self.max_order, self.offsets, self.sizes, self.n_classes, self.order_first,
            self.sub_index)
        return n_entries * np.dtype(dtype).itemsize

    def parent_major(self, n, smoothing="m_estimate", m=1.0, min_count=1, dtype="float64"):
        """The log tables of :meth:`log_tables` rearranged parent-major, in ``dtype``
        (cached, like the log tables; not persisted: rebuilt after loading).

        For every parent combination s of order n and cell x_s, one contiguous region holds
        log P(y, x_s) (NaN where s does not qualify), then log P(x_i = v | y, x_s) for every
        attribute i, storage code v and class y, with 0.0 for i in s and for the missing
        code.  It is an extra copy of about the size of the log conditionals of order
        n + 1 (:meth:`parent_major_bytes`).
        """
        if dtype not in TABLE_DTYPES:
            raise ValueError(f"dtype={dtype!r}: use one of {TABLE_DTYPES}")
        tables = self.log_tables(n, smoothing, m, min_count)
        key = (self._log_tables_key, dtype)
        cached = getattr(self, "_parent_major", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        self._parent_major = None  # drop the old copy before building the new one
        n = tables.n
        k = self.n_classes
        parents, region, n_entries = wide_kernels.parent_major_shape(
            n, self.max_order, self.offsets, self.sizes, k, self.order_first, self.sub_index)
        cells = (self.offsets[parents + 1] - self.offsets[parents]) // k
        pm_offsets = np.zeros(parents.size + 1, dtype=np.int64)
        pm_offsets[1:] = np.cumsum(cells * region)
        parent_pos = np.full(int(self.order_first[n + 1] - self.order_first[n]), -1,
                             dtype=np.int64)
        parent_pos[parents - self.order_first[n]] = np.arange(parents.size)
        att_off = np.zeros(self.sizes.size, dtype=np.int64)
        att_off[1:] = k * np.cumsum(self.sizes)[:-1]
        values = np.zeros(n_entries, dtype=dtype)
        lj_offsets = self.offsets if tables.lj_offsets is None else tables.lj_offsets
        wide_kernels.build_parent_major(
            n, self.max_order, self.combos, self.offsets, self.sizes, k, self.order_first,
            tables.log_joint, lj_offsets, tables.log_conditional, tables.lc_offsets,
            self.sub_index, parents, parent_pos, pm_offsets, att_off, region, values)
        pm = ParentMajorTables(parents, pm_offsets, att_off, region, values)
        self._parent_major = (key, pm)
        return pm

    def _parent_major_fits(self, n, dtype):
        """Whether the parent-major tables fit in ``max_table_bytes`` beside the counts and
        the log tables (those of the cache, if any, are replaced)."""
        if self.max_table_bytes is None:
            return True
        cached = getattr(self, "_parent_major", None)
        held = self.nbytes - (0 if cached is None else cached[1].values.nbytes)
        return held + self.parent_major_bytes(n, dtype) <= self.max_table_bytes

    def scores(self, X, n, smoothing="m_estimate", m=1.0, min_count=1, aggregate="joint",
               log_weights=None, dtype="float64", kernel="auto"):
        """Per-class log scores of AnDE for rows of storage codes (see kernels.predict_scores).

        ``log_weights`` (optional): weighted AnDE, one log weight per cell of the blocks of
        orders 0..n (``log_weights[offsets[g] // k + cell]``; -inf leaves a sub-model out),
        see :func:`seminaive.kernels.scoring.predict_scores_weighted`.

        ``kernel``: ``"parent_major"`` scores with the parent-major tables of
        :meth:`parent_major` in precision ``dtype`` (:mod:`seminaive.kernels.wide`),
        ``"combination"`` with the combination-major log tables (float64 only), ``"auto"``
        the parent-major tables when they fit in ``max_table_bytes`` beside the counts and
        log tables (:meth:`parent_major_bytes`), else the combination-major ones.  Both give
        the same scores in float64 (up to rounding in the combination over sub-models).
        """
        modes = {"joint": kernels.AGGREGATE_JOINT, "posterior": kernels.AGGREGATE_POSTERIOR,
                 "vote": kernels.AGGREGATE_VOTE}
        if dtype not in TABLE_DTYPES:
            raise ValueError(f"dtype={dtype!r}: use one of {TABLE_DTYPES}")
        if kernel not in ("auto", "parent_major", "combination"):
            raise ValueError(f"kernel={kernel!r}: use 'auto', 'parent_major' or 'combination'")
        tables = self.log_tables(n, smoothing, m, min_count)
        X = np.ascontiguousarray(X)
        out = np.empty((X.shape[0], self.n_classes), dtype=np.float64)
        if log_weights is not None:
            log_weights = np.ascontiguousarray(log_weights, dtype=np.float64)
            n_cells = int(self.offsets[self.order_first[tables.n + 1]]) // self.n_classes
            if log_weights.shape != (n_cells,):
                raise ValueError(f"log_weights must hold one entry per parent cell of orders "
                                 f"0..{tables.n} ({n_cells}), got shape {log_weights.shape}")
        if tables.lj_offsets is not None and log_weights is not None:
            raise ValueError("a selective table (parents=...) scores unweighted sub-models")
        # where each combination's log joints start (a selective table lays them out apart
        # from the counts; its weights are refused above, so the kernels may read the
        # weights' cells from the same offsets)
        lj_offsets = self.offsets if tables.lj_offsets is None else tables.lj_offsets
        if not X.shape[0]:
            return out
        if self.compact and tables.lj_offsets is not None:
            # a compact table holds its sub-models' children parent-major only
            if kernel == "combination":
                raise ValueError("a compact selective table scores with the parent-major "
                                 "kernel: use kernel='auto' or 'parent_major'")
            ridx, values = self.compact_tables(n, smoothing, m, min_count, dtype)
            pending = np.zeros(X.shape[0], dtype=np.bool_)
            wide_kernels.predict_scores_wide(
                X, tables.n, self.max_order, self.combos, lj_offsets, self.sizes,
                self.n_classes, self.order_first, tables.log_joint, tables.log_conditional,
                tables.lc_offsets, self.sub_index, modes[aggregate], False, np.zeros(1),
                self.compact_parents, np.zeros(self.compact_parents.size + 1, dtype=np.int64),
                self.att_off, self.n_classes + self.count_region, values, out, ridx,
                self.cell_first, pending)
            rows = np.flatnonzero(pending)
            if rows.size:  # no log conditionals of order n: the cascade reads the counts
                kernels.scoring.cascade_from_counts(
                    X, rows, tables.n, self.max_order, self.combos, lj_offsets, self.sizes,
                    self.n_classes, self.order_first, tables.log_joint,
                    tables.log_conditional, tables.lc_offsets, self.sub_index, self.counts,
                    self.offsets, float(m), smoothing == "laplace", modes[aggregate], out)
            return out
        if kernel == "parent_major" or (kernel == "auto"
                                        and self._parent_major_fits(tables.n, dtype)):
            pm = self.parent_major(n, smoothing, m, min_count, dtype)
            weighted = log_weights is not None
            wide_kernels.predict_scores_wide(
                X, tables.n, self.max_order, self.combos, lj_offsets, self.sizes,
                self.n_classes, self.order_first, tables.log_joint, tables.log_conditional,
                tables.lc_offsets, self.sub_index, modes[aggregate], weighted,
                log_weights if weighted else np.zeros(1), pm.parents, pm.offsets, pm.att_off,
                pm.region, pm.values, out)
        elif log_weights is None:
            kernels.predict_scores(X, tables.n, self.max_order, self.combos, self.orders,
                                   lj_offsets, self.sizes, self.n_classes, self.order_first,
                                   tables.log_joint, tables.log_conditional, tables.lc_offsets,
                                   self.sub_index, modes[aggregate], out)
        else:
            kernels.scoring.predict_scores_weighted(
                X, tables.n, self.max_order, self.combos, self.orders,
                self.offsets, self.sizes, self.n_classes, self.order_first, tables.log_joint,
                tables.log_conditional, tables.lc_offsets, self.sub_index, modes[aggregate],
                log_weights, out)
        return out

    def gaussian_scores(self, X, values, log_width, n, smoothing="m_estimate", m=1.0,
                        min_count=1, aggregate="joint", missing_code=None, log_weights=None):
        """Per-class log scores of AnDE with Gaussian numeric children (the table must keep
        moments, :meth:`attach_moments`): ``values`` are the rows' centred numeric values,
        ``log_width[i, code]`` the log widths of the numeric parents' bins (see
        :func:`seminaive.kernels.gaussian.gaussian_scores`).  The Gaussian estimates shrink
        with ``m`` pseudo-rows (1 with Laplace smoothing), see :meth:`MomentTable.estimates`.
        ``missing_code`` (per attribute, 0 = none): storage codes of the numeric attributes'
        values for missing (``missing="value"``); ``log_weights``: weighted sub-models, as in
        :meth:`scores`.
        """
        if self.moments is None:
            raise ValueError("this table keeps no moments: attach_moments() before counting")
        modes = {"joint": kernels.AGGREGATE_JOINT, "posterior": kernels.AGGREGATE_POSTERIOR,
                 "vote": kernels.AGGREGATE_VOTE}
        tables = self.log_tables(n, smoothing, m, min_count)
        kappa = 1.0 if smoothing == "laplace" else float(m)
        grid_offsets, mean, norm, precision = self.gaussian_grid(kappa)
        X = np.ascontiguousarray(X)
        out = np.empty((X.shape[0], self.n_classes), dtype=np.float64)
        if X.shape[0]:
            gaussian = np.full(self.n_attributes, -1, dtype=np.int64)
            gaussian[self.moments.numeric] = np.arange(self.moments.numeric.size)
            gaussian_kernels.gaussian_scores(
                X, np.ascontiguousarray(values, dtype=np.float64), tables.n, self.max_order,
                self.combos, self.offsets, self.sizes, self.n_classes, self.order_first,
                self.sub_index, tables.log_joint, tables.log_conditional, tables.lc_offsets,
                gaussian,
                np.zeros(self.n_attributes, dtype=np.int64) if missing_code is None
                else np.ascontiguousarray(missing_code, dtype=np.int64),
                np.ascontiguousarray(log_width, dtype=np.float64), grid_offsets,
                mean, norm, precision, modes[aggregate], log_weights is not None,
                np.zeros(1) if log_weights is None
                else np.ascontiguousarray(log_weights, dtype=np.float64), out)
        return out

    def gaussian_grid(self, kappa):
        """The Gaussian estimates of the moments (shrunk with ``kappa`` pseudo-rows, see
        :meth:`MomentTable.estimates`) laid out for the scoring kernels (cached):
        ``(grid_offsets, mean, norm, precision)`` of :meth:`MomentTable.grid_terms`, with
        :func:`seminaive.kernels.gaussian.gaussian_terms`."""
        if self.moments is None:
            raise ValueError("this table keeps no moments: attach_moments() before counting")
        key = ("gaussian", float(kappa))
        if getattr(self, "_gaussian_key", None) != key:
            terms = gaussian_kernels.gaussian_terms(*self.moments.estimates(float(kappa)))
            self._gaussian_estimates = self.moments.grid_terms(self, self.moment_parents,
                                                               terms)
            self._gaussian_key = key
        return self._gaussian_estimates

    def moment_starts(self, max_parents=None):
        """``out[g, j]``: first (cell, class) index (``offsets // 3``) of the moments of the
        j-th numeric attribute given parent combination g, for every combination of order
        <= ``max_parents`` (default: all with moments); -1 where the attribute is a member
        of g."""
        if self.moments is None:
            raise ValueError("this table keeps no moments: attach_moments() before counting")
        top = self.moment_parents if max_parents is None else min(max_parents,
                                                                  self.moment_parents)
        n_comb = int(self.order_first[top + 1])
        out = np.full((n_comb, self.moments.numeric.size), -1, dtype=np.int64)
        for j, c in enumerate(self.moments.numeric.tolist()):
            for g in range(n_comb):
                e = self.moments.index.get((self.members(g), c))
                if e is not None:
                    out[g, j] = self.moments.offsets[e] // 3
        return out

    # ------------------------------------------------------------------------- persistence
    def state(self):
        """Arrays that define the table (everything else is derived)."""
        state = {"sizes": self.sizes, "counts": self.counts,
                 "meta": np.array([self.n_classes, self.max_order], dtype=np.int64),
                 "n_rows": np.array([self.n_rows])}
        if self.moments is not None:
            state.update({f"moment_{k}": v for k, v in self.moments.state().items()})
            state["moment_meta"] = np.array([self.moment_parents], dtype=np.int64)
        if self.parents is not None:
            state["parents"] = self.parents
        if self.compact:
            state["occupied"] = self.occupied
            state["compact_counts"] = self.compact_counts
        return state

    @classmethod
    def from_state(cls, state, max_table_bytes=None):
        n_classes, max_order = (int(v) for v in state["meta"])
        table = cls(np.asarray(state["sizes"]) - 1, n_classes, max_order, max_table_bytes,
                    parents=state.get("parents"), occupied=state.get("occupied"))
        counts = np.asarray(state["counts"], dtype=np.float64)
        if counts.shape != table.counts.shape:
            raise ValueError(f"count array has {counts.size} entries, the layout needs "
                             f"{table.counts.size}")
        table.counts[:] = counts
        if table.compact:
            compact = np.asarray(state["compact_counts"], dtype=np.float64)
            if compact.shape != table.compact_counts.shape:
                raise ValueError(f"compact count array has {compact.size} entries, the "
                                 f"layout needs {table.compact_counts.size}")
            table.compact_counts[:] = compact
        table.n_rows = float(np.asarray(state["n_rows"])[0])
        if "moment_sums" in state:
            moments = MomentTable.from_state(
                {k: state[f"moment_{k}"] for k in ("numeric", "entries", "sums")},
                table.sizes, table.n_classes)
            table.attach_moments(moments.numeric, int(np.asarray(state["moment_meta"])[0]))
            if moments.entries != table.moments.entries:
                raise ValueError("the moment entries do not match the table's combinations")
            table.moments.sums[:] = moments.sums
        return table


# --------------------------------------------------------------------------------------------
# Moments of numeric attributes (Gaussian children)
# --------------------------------------------------------------------------------------------


class MomentTable:
    """Sufficient statistics of numeric attributes as Gaussian children of parent cells.

    One *entry* per (parent attributes, numeric child): the weight, sum and sum of squares
    of the child's values in each (parent cell, class), a block of shape
    (sizes of the parents..., k, 3) (slot 0 of a parent axis: the parent is missing, as in
    the count blocks).  Values are counted as given (the encoder centres them, which keeps
    the sums of squares accurate); a missing value (NaN) is left out.  Sums add, so tables
    merge, rows can be removed (negative weights) and ``partial_fit`` equals ``fit``.

    Parameters
    ----------
    entries : sequence of (tuple of int, int)
        (parents, child) of every entry; ``parents`` may be empty (the class alone).
    sizes : array-like of int
        ``n_values + 1`` of every attribute.
    n_classes : int
    numeric : array-like of int
        The numeric attributes, in the order of the columns of the values passed to
        :meth:`add`; every child is one of them.

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive.tables import MomentTable
    >>> moments = MomentTable([((), 1), ((0,), 1)], sizes=[3, 2], n_classes=2, numeric=[1])
    >>> codes = np.array([[1, 1], [2, 1], [1, 1]])  # attribute 1's code is its bin
    >>> _ = moments.add(codes, np.array([0, 1, 0]), None, np.array([[1.0], [5.0], [3.0]]))
    >>> moments.block(0).tolist()  # class alone: (weight, sum, sum of squares) per class
    [[2.0, 4.0, 10.0], [1.0, 5.0, 25.0]]
    >>> moments.block(1)[1, 0].tolist()  # parent value 1, class 0
    [2.0, 4.0, 10.0]
    """

    def __init__(self, entries, sizes, n_classes, numeric):
        self.numeric = np.asarray(numeric, dtype=np.int64)
        column = {int(c): j for j, c in enumerate(self.numeric)}
        entries = [(tuple(int(p) for p in parents), int(child)) for parents, child in entries]
        for parents, child in entries:
            if child not in column or child in parents or len(set(parents)) != len(parents):
                raise ValueError(f"bad moment entry {parents} -> {child}")
        self.entries = entries
        self.n_classes = int(n_classes)
        width = max((len(p) for p, _ in entries), default=0)
        self.parents = np.full((len(entries), max(width, 1)), -1, dtype=np.int64)
        self.orders = np.array([len(p) for p, _ in entries], dtype=np.int64)
        for e, (parents, _) in enumerate(entries):
            self.parents[e, :len(parents)] = parents
        self.child = np.array([c for _, c in entries], dtype=np.int64)
        self.column = np.array([column[c] for c in self.child], dtype=np.int64)
        self.index = {entry: e for e, entry in enumerate(entries)}
        starts = [e for e in range(len(entries)) if e == 0 or entries[e][0] != entries[e - 1][0]]
        self.group_starts = np.array(starts + [len(entries)], dtype=np.int64)
        self._layout(sizes)
        self.sums = np.zeros(int(self.offsets[-1]), dtype=np.float64)

    @classmethod
    def for_table(cls, table, numeric, max_parents):
        """Entries for every parent combination of ``table`` of order <= ``max_parents``
        and every ``numeric`` attribute not in it (the sub-models of AnDE)."""
        numeric = [int(c) for c in numeric]
        n_comb = int(table.order_first[min(max_parents, table.max_order) + 1])
        entries = [(table.members(g), c) for g in range(n_comb) for c in numeric
                   if c not in table.members(g)]
        return cls(entries, table.sizes, table.n_classes, numeric)

    @staticmethod
    def estimate_bytes(entries, sizes, n_classes):
        """Bytes of the sums of the ``entries``, without allocating."""
        sizes = np.asarray(sizes, dtype=np.float64)
        cells = sum(float(np.prod(sizes[list(parents)])) for parents, _ in entries)
        return int(24.0 * n_classes * cells)

    def _layout(self, sizes):
        self.sizes = np.asarray(sizes, dtype=np.int64)
        block = np.array([int(np.prod(self.sizes[list(p)])) * self.n_classes * 3
                          for p, _ in self.entries], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(block)]).astype(np.int64)

    @property
    def nbytes(self):
        return self.sums.nbytes

    def block(self, e):
        """Moments of entry ``e``: shape (sizes of its parents..., k, 3), holding weight,
        sum and sum of squares (a view)."""
        parents = self.entries[e][0]
        shape = [int(self.sizes[m]) for m in parents] + [self.n_classes, 3]
        return self.sums[self.offsets[e]:self.offsets[e + 1]].reshape(shape)

    def add(self, X, y, w, values):
        """Add rows: storage codes ``X``, class indices ``y``, weights ``w`` (None: 1) and
        the numeric attributes' values (n_rows, len(numeric)), NaN where missing."""
        X = np.ascontiguousarray(X)
        if X.shape[0] == 0:
            return self
        weighted = w is not None
        w = np.ascontiguousarray(w, dtype=np.float64) if weighted else np.zeros(1)
        values = np.ascontiguousarray(values, dtype=np.float64)
        if values.shape != (X.shape[0], self.numeric.size):
            raise ValueError(f"expected the values of {self.numeric.size} numeric attributes "
                             f"for {X.shape[0]} rows, got shape {values.shape}")
        gaussian_kernels.count_moments(X, np.ascontiguousarray(y, dtype=np.int64), w,
                                       weighted, values, self.parents, self.orders,
                                       self.column, self.offsets, self.group_starts,
                                       self.sizes, self.n_classes, self.sums)
        return self

    def grow(self, sizes):
        """Re-lay the blocks for enlarged attribute extents (new values appended)."""
        old = [self.block(e).copy() for e in range(len(self.entries))]
        self._layout(sizes)
        self.sums = np.zeros(int(self.offsets[-1]), dtype=np.float64)
        for e, block in enumerate(old):
            self.block(e)[tuple(slice(0, n) for n in block.shape)] = block
        return self

    def copy(self):
        new = object.__new__(MomentTable)
        new.__dict__.update(self.__dict__)
        new.sums = self.sums.copy()
        return new

    def add_matching(self, other):
        """Add the sums of the entries that ``other`` shares with this table (e.g. the
        families whose parents did not change between two ``partial_fit`` calls)."""
        other = other.copy().grow(np.maximum(self.sizes, other.sizes)) if np.any(
            other.sizes < self.sizes) else other
        for e, entry in enumerate(self.entries):
            f = other.index.get(entry)
            if f is not None:
                self.block(e)[...] += other.block(f)[tuple(
                    slice(0, n) for n in self.block(e).shape)]
        return self

    def estimates(self, kappa, floor_ratio=FLOOR_RATIO, coarser=None):
        """Means and variances, one per (cell, class) of every entry (``offsets // 3``).

        Given the class alone: the maximum-likelihood mean and (biased) variance, as
        scikit-learn's ``GaussianNB``, or those of all classes when the class has at most one
        row.  Given parent values, a cell's moments shrink towards the estimate of the next
        coarser conditioning with ``kappa`` pseudo-rows drawn from it (the moments of the
        mixture, as a normal-inverse-gamma posterior mean):

            mean = (S1 + kappa mu0) / (N + kappa)
            var  = (SS + kappa var0 + N kappa / (N + kappa) (xbar - mu0)^2) / (N + kappa)

        with N, S1 and SS = S2 - N xbar^2 the cell's weight, sum and centred sum of squares.
        The coarser estimate (mu0, var0) is the mean of the estimates given the parent sets
        ``coarser(parents)`` (default: every subset with one parent fewer; each must be an
        entry of the same child), at the same class and parent values.  The variance is
        floored at ``(floor_ratio * sd)^2``, sd the attribute's overall standard deviation
        (the entry of the class alone must exist).
        """
        k = self.n_classes
        if coarser is None:
            def coarser(parents):
                return [parents[:d] + parents[d + 1:] for d in range(len(parents))]
        mean = np.zeros(self.sums.size // 3)
        var = np.zeros(self.sums.size // 3)
        floors, pooled = {}, {}
        for c in self.numeric.tolist():
            e = self.index.get(((), c))
            if e is None:
                raise ValueError(f"no class-only moments of attribute {c}")
            n, s1, s2 = self.block(e).sum(axis=0)
            mu = s1 / n if n > 0 else 0.0
            v = max(s2 / n - mu * mu, 0.0) if n > 0 else 0.0
            floors[c] = (floor_ratio ** 2) * v if v > 0 else 1.0
            pooled[c] = (mu, max(v, floors[c]))

        def view(arr, e):
            parents = self.entries[e][0]
            shape = [int(self.sizes[m]) for m in parents] + [k]
            return arr[self.offsets[e] // 3:self.offsets[e + 1] // 3].reshape(shape)

        # entries sharing a parent set are estimated together (one array operation for
        # all their children)
        groups = {}
        for e, (parents, _) in enumerate(self.entries):
            groups.setdefault(parents, []).append(e)
        for parents in sorted(groups, key=len):
            members = groups[parents]
            children = [self.entries[e][1] for e in members]
            sums = np.stack([self.block(e) for e in members], axis=-3)  # (..., E, k, 3)
            n, s1, s2 = sums[..., 0], sums[..., 1], sums[..., 2]
            floor = np.array([floors[c] for c in children])[:, None]
            if not parents:  # the class alone: maximum likelihood, or all classes
                enough = n > 1
                safe = np.where(enough, n, 1.0)
                pooled_mu = np.array([pooled[c][0] for c in children])[:, None]
                pooled_var = np.array([pooled[c][1] for c in children])[:, None]
                m_est = np.where(enough, s1 / safe, pooled_mu)
                v_est = np.where(enough, np.maximum(s2 / safe - m_est ** 2, 0.0), pooled_var)
            else:
                targets = coarser(parents)
                mu0 = np.zeros(n.shape)
                var0 = np.zeros(n.shape)
                for sub in targets:
                    sub = tuple(sub)
                    axes = [t for t, p in enumerate(parents) if p not in sub]
                    found = [self.index[(sub, c)] for c in children]
                    mu0 = mu0 + np.expand_dims(np.stack([view(mean, f) for f in found], -2),
                                               axes)
                    var0 = var0 + np.expand_dims(np.stack([view(var, f) for f in found], -2),
                                                 axes)
                mu0 /= len(targets)
                var0 /= len(targets)
                xbar = np.where(n > 0, s1 / np.where(n > 0, n, 1.0), mu0)
                ss = np.maximum(s2 - n * xbar * xbar, 0.0)
                denom = n + kappa
                m_est = (s1 + kappa * mu0) / denom
                v_est = (ss + kappa * var0 + n * kappa / denom * (xbar - mu0) ** 2) / denom
            v_est = np.maximum(v_est, floor)
            for t, e in enumerate(members):
                view(mean, e)[...] = m_est[..., t, :]
                view(var, e)[...] = v_est[..., t, :]
        return mean, var

    def bin_log_widths(self, cut_points, center, n_values):
        """log of the width of every value of every attribute, shape (number of attributes,
        1 + max n_values), for the densities of numeric parents (0 elsewhere).

        A numeric attribute's bins lie between its ``cut_points`` (raw units, in the order of
        ``numeric``; None: every width 1); the outer bins end at the overall mean -+ 3
        standard deviations (from the class-only moments, so the widths follow the counts
        exactly), every width floored at 0.1 standard deviation (1 for a constant
        attribute).  ``center``: the values' centring (``AttributeEncoder.numeric_center_``).
        """
        n_values = np.asarray(n_values, dtype=np.int64)
        out = np.zeros((n_values.size, int(n_values.max(initial=0)) + 1))
        if cut_points is None:
            return out
        for j, c in enumerate(self.numeric.tolist()):
            n, s1, s2 = self.block(self.index[((), c)]).sum(axis=0)
            if n <= 0:
                continue
            mean = s1 / n
            sd = math.sqrt(max(s2 / n - mean * mean, 0.0))
            mean += float(center[j])
            cuts = np.asarray(cut_points[j], dtype=np.float64)
            edges = np.concatenate([[mean - 3 * sd], cuts, [mean + 3 * sd]])
            width = np.maximum(np.diff(edges), 0.1 * sd) if sd > 0 else np.ones(cuts.size + 1)
            out[c, 1:1 + width.size] = np.log(width)
        return out

    def grid_terms(self, table, max_parents, arrays):
        """Per-(cell, class) ``arrays`` of the entries (e.g. mean, log-normaliser and
        precision) re-laid for the AnDE scoring kernel: for parent combination g of
        ``table`` (order <= ``max_parents``), a block (cells of g, numeric attributes, k)
        starting at ``offsets[g]``, so one parent cell's children are contiguous; slots of
        attributes that are members of g hold 0.  Returns ``(offsets, *arrays)``."""
        n_comb = int(table.order_first[min(max_parents, table.max_order) + 1])
        n_num, k = self.numeric.size, self.n_classes
        cells = [int(np.prod(table.sizes[list(table.members(g))])) for g in range(n_comb)]
        offsets = np.concatenate([[0], np.cumsum(np.array(cells) * n_num * k)]).astype(
            np.int64)
        out = [np.zeros(int(offsets[-1])) for _ in arrays]
        column = {c: j for j, c in enumerate(self.numeric.tolist())}
        for q in range(self.group_starts.size - 1):
            # consecutive entries with the same parents: their blocks are contiguous
            first, last = int(self.group_starts[q]), int(self.group_starts[q + 1])
            g = table.combination_index(self.entries[first][0]) if self.entries[first][0] \
                else 0
            if g >= n_comb:
                continue
            js = [column[self.entries[e][1]] for e in range(first, last)]
            lo, hi = self.offsets[first] // 3, self.offsets[last] // 3
            for src, dst in zip(arrays, out, strict=True):
                block = dst[offsets[g]:offsets[g + 1]].reshape(cells[g], n_num, k)
                block[:, js, :] = src[lo:hi].reshape(last - first, cells[g], k).transpose(
                    1, 0, 2)
        return (offsets, *out)

    def state(self):
        """Arrays that define the moments: numeric attributes, entries (child, then parents,
        -1 padding) and sums."""
        entries = np.full((len(self.entries), self.parents.shape[1] + 1), -1, dtype=np.int64)
        entries[:, 0] = self.child
        entries[:, 1:] = self.parents
        return {"numeric": self.numeric, "entries": entries, "sums": self.sums}

    @classmethod
    def from_state(cls, state, sizes, n_classes):
        """The table :meth:`state` describes (ValueError when the arrays do not fit)."""
        numeric, entries = np.asarray(state["numeric"]), np.asarray(state["entries"])
        if numeric.ndim != 1 or numeric.dtype.kind not in "iu":
            raise ValueError("bad numeric attribute list of the moments")
        if entries.ndim != 2 or entries.dtype.kind not in "iu" or entries.shape[1] < 2:
            raise ValueError("bad moment entries")
        a = len(sizes)
        if np.any(numeric < 0) or np.any(numeric >= a) or np.any(entries >= a) or np.any(
                entries < -1):
            raise ValueError("moment entries out of range")
        table = cls([(tuple(int(p) for p in row[1:] if p >= 0), int(row[0]))
                     for row in entries], sizes, n_classes, numeric)
        sums = np.asarray(state["sums"], dtype=np.float64)
        if sums.shape != table.sums.shape or not np.all(np.isfinite(sums)):
            raise ValueError(f"moment array has {sums.size} entries, the layout needs "
                             f"{table.sums.size} finite values")
        table.sums[:] = sums
        return table


# --------------------------------------------------------------------------------------------
# Counts of an explicit list of attribute combinations (e.g. the parent families of KDB)
# --------------------------------------------------------------------------------------------


def estimate_combination_bytes(combinations, n_values, n_classes):
    """Exact bytes of the count array of a :class:`CombinationTable`, without allocating."""
    sizes = np.asarray(n_values, dtype=np.float64) + 1.0
    cells = sum(float(np.prod(sizes[list(c)])) for c in combinations)
    return int(8.0 * n_classes * cells)


class CombinationTable(_CountTable):
    """Joint counts N(y, x_c) for an explicit list of attribute combinations.

    Where :class:`FrequencyTable` counts *every* combination up to an order, this table counts
    only the combinations it is given, e.g. the families (x_i, pa_i) of a k-dependence
    Bayesian classifier.  A combination keeps the order of its members: its block has shape
    ``(sizes[c0], ..., sizes[c_{d-1}], k)`` (first member slowest, class fastest, index 0 of
    an attribute axis = missing).  Combinations may differ in order (1 or more members).

    Parameters
    ----------
    combinations : sequence of sequences of int
        Distinct attribute indices of every combination (at least one member each).
    n_values : array-like of int
        Number of values of each attribute (codes 1..n_values; 0 is missing).
    n_classes : int
    max_table_bytes : int or None
        Refuse (before allocating) if the counts would exceed this many bytes.
    """

    def __init__(self, combinations, n_values, n_classes, max_table_bytes=None):
        n_values = np.asarray(n_values, dtype=np.int64)
        combinations = [tuple(int(m) for m in c) for c in combinations]
        for c in combinations:
            if not c or len(set(c)) != len(c) or min(c) < 0 or max(c) >= n_values.size:
                raise ValueError(f"bad combination {c}: give distinct attribute indices in "
                                 f"0..{n_values.size - 1}")
        self.n_classes = int(n_classes)
        self.max_table_bytes = max_table_bytes
        self.sizes = n_values + 1
        width = max((len(c) for c in combinations), default=1)
        self.combos = np.full((len(combinations), width), -1, dtype=np.int64)
        self.orders = np.array([len(c) for c in combinations], dtype=np.int64)
        for g, c in enumerate(combinations):
            self.combos[g, :len(c)] = c
        self._check_budget(self.sizes - 1)
        self._layout_offsets()
        self.counts = np.zeros(int(self.offsets[-1]), dtype=np.float64)
        self.n_rows = 0.0

    @property
    def combinations(self):
        return [tuple(int(m) for m in self.combos[g, :d]) for g, d in enumerate(self.orders)]

    def _check_budget(self, n_values):
        need = estimate_combination_bytes(self.combinations, n_values, self.n_classes)
        if self.max_table_bytes is not None and need > self.max_table_bytes:
            raise TableTooLargeError(
                f"The counts of {len(self.orders)} attribute combinations (up to "
                f"{int(self.orders.max(initial=0))} attributes each, {self.n_classes} classes) "
                f"would need {_format_bytes(need)}, more than max_table_bytes="
                f"{_format_bytes(self.max_table_bytes)}. Use fewer parents (a smaller k), "
                f"discretise into fewer bins, or raise max_table_bytes if the machine has "
                f"the memory.")

    def block(self, g):
        """Count block of combination number ``g`` (a view); see :meth:`block_at`."""
        return self.block_at(g)

    def _count(self, X, y, w, weighted):
        for d in np.unique(self.orders):
            group = np.flatnonzero(self.orders == d)
            combos = np.ascontiguousarray(self.combos[group, :d])
            offsets = np.ascontiguousarray(self.offsets[group])
            kernels.count_order_any(X, y, w, weighted, combos, offsets, self.sizes,
                                    self.n_classes, self.counts, COUNT_BLOCK_ROWS)
