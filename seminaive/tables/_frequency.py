"""The frequency table: the joint counts of the class with every combination of up to
``max_order`` attributes, and the log-probability tables it derives for classification."""

from dataclasses import dataclass

import numpy as np

from .. import kernels
from ..exceptions import TableTooLargeError
from ..kernels._jit import njit
from ..kernels._threads import parallel_calls
from ..kernels.hdp import hdp_forest
from ..kernels.hls import PENALTY as HLS_PENALTY
from ..kernels.hls import hls_forest
from ..kernels.smoothing import Smoothing
from . import counting as counting_kernels
from . import gaussian as gaussian_kernels
from . import scoring as scoring_kernels
from . import wide as wide_kernels
from ._budget import _format_bytes, _nan_block_cells, check_table_budget, estimate_table_bytes
from ._counts import COUNT_BLOCK_ROWS, _CountTable
from ._layout import _combinations_by_order, _selective_top_combinations, check_parents
from ._moments import MomentTable


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
    """The log tables rearranged parent-major for :mod:`seminaive.tables.wide`: one region
    per (parent combination, parent cell) holding its log joints then the log conditional of
    every attribute value and class (0.0 for the parents themselves and the missing code)."""

    parents: np.ndarray  # global indices of the parent combinations of order n laid out
    offsets: np.ndarray  # start of each parent combination's regions in ``values``
    att_off: np.ndarray  # start of each attribute in a region, after the k log joints
    region: int  # entries per parent cell
    values: np.ndarray  # float64 or float32


class CompactCounter:
    """Counts chunks of rows into the stored parent cells of a compact table.

    Holds the table's slots without its counts, so that it travels to the workers of a
    cluster (:meth:`FrequencyTable.compact_counter`).

    Parameters
    ----------
    table : FrequencyTable
        A compact selective table.
    """

    def __init__(self, table):
        self.compact_combos, self.cell_first = table.compact_combos, table.cell_first
        self.slot_of, self.sizes, self.n_classes = table.slot_of, table.sizes, table.n_classes
        self.att_off, self.count_region = table.att_off, table.count_region
        self.size = table.compact_counts.size
        self.position, self.binom = counting_kernels.parent_positions(
            table.parents, self.sizes.size, self.compact_combos.shape[1])
        self.costs = counting_kernels.parent_set_costs(
            self.compact_combos, self.cell_first, self.sizes, self.n_classes, self.position)

    def __call__(self, codes, y, w):
        """The compact counts of one chunk.

        Parameters
        ----------
        codes : ndarray of int, shape (n_rows, n_attributes)
            Storage codes of the rows.
        y : ndarray of int
            Class indices.
        w : ndarray of float or None
            Row weights (None: 1).

        Returns
        -------
        ndarray of float64
            The counts of the rows, in the layout of the table's compact counts.
        """
        counts = np.zeros(self.size)
        weighted = w is not None
        w = np.ascontiguousarray(w, dtype=np.float64) if weighted else np.zeros(1)
        job = counting_kernels.ParentSetJob(
            np.asfortranarray(codes), np.ascontiguousarray(y, dtype=np.int32), w, weighted,
            self.compact_combos, self.cell_first, self.slot_of, self.sizes,
            int(self.n_classes), self.att_off, int(self.count_region), self.position,
            self.binom)
        counting_kernels.count_compact(job, counts, self.costs)
        return counts


def _merged_runs(lut, sizes, new_sizes):
    """Where every new value's run of old values starts, per attribute (``lut[t]`` over
    the ``sizes[t]`` old values non-decreasing from 0 in steps of 0 or 1, up to
    ``new_sizes[t] - 1``), or None when some attribute's map is not such runs."""
    starts = []
    for t in range(len(sizes)):
        row = np.asarray(lut[t, :int(sizes[t])], dtype=np.int64)
        step = np.diff(row)
        if row[0] != 0 or row[-1] != new_sizes[t] - 1 or ((step != 0) & (step != 1)).any():
            return None
        starts.append(np.flatnonzero(np.concatenate([[1], step])))
    return starts


def _run_ends(lut, sizes, new_sizes):
    """Per attribute, ``ends[v]``: how many old values map to new values below v (v = 0 ..
    new size), when every new value is a run of consecutive old ones (as for
    :func:`_merged_runs`, whose run starts they are, closed by the number of old values);
    None when some attribute's map is not such runs."""
    starts = _merged_runs(lut, sizes, new_sizes)
    if starts is None:
        return None
    return [np.concatenate([[0], first[1:], [int(sizes[t])]]).astype(np.int64)
            for t, first in enumerate(starts)]


@njit(cache=True)
def _whole_counts(counts):
    """Whether every count is a whole number, none negative, their sum below 2**52 (one
    pass; :meth:`FrequencyTable.has_whole_counts`)."""
    total = 0.0
    for c in counts:
        if not (c >= 0.0 and c == np.floor(c)):
            return False
        total += c
    return total < 2.0 ** 52


#: bytes of the buffer :meth:`FrequencyTable.remapped_into` cumulates the blocks into, a run
#: of blocks at a time (at least the largest block)
CUMULATED_BYTES = 4 << 20


@njit(cache=True)
def _cumulate_blocks(counts, offsets, combos, orders, sizes, k, cum, cum_offsets):
    """Every block of a table of order <= 2 cumulated along its attributes' axes, with a
    row of zeros before each axis: block g's (sizes + 1..., k) at ``cum_offsets[g]``
    (:meth:`FrequencyTable.remapped_into`)."""
    for g in range(orders.size):
        lo, o = offsets[g], cum_offsets[g]
        d = orders[g]
        if d == 0:
            for c in range(k):
                cum[o + c] = counts[lo + c]
        elif d == 1:
            s = sizes[combos[g, 0]]
            for c in range(k):
                cum[o + c] = 0.0
            for a in range(s):
                for c in range(k):
                    cum[o + (a + 1) * k + c] = cum[o + a * k + c] + counts[lo + a * k + c]
        else:
            s0, s1 = sizes[combos[g, 0]], sizes[combos[g, 1]]
            row = (s1 + 1) * k
            for j in range(row):
                cum[o + j] = 0.0
            for a in range(s0):
                at = o + (a + 1) * row
                for c in range(k):
                    cum[at + c] = 0.0
                for b in range(s1):
                    for c in range(k):
                        # the cumulated sum along the second axis, then the first's
                        cum_row = cum[at + b * k + c] - cum[at - row + b * k + c]
                        cum[at + (b + 1) * k + c] = (cum[at - row + (b + 1) * k + c]
                                                     + cum_row
                                                     + counts[lo + (a * s1 + b) * k + c])
    return cum


@njit(cache=True, nogil=True)
def _read_runs(cum, cum_offsets, combos, orders, k, ends, member_sizes, member_counts,
               member_offsets):
    """One member's counts from the cumulated blocks (:func:`_cumulate_blocks`): every
    cell the differences of the cumulated block at its runs' ends (``ends[t]``: attribute
    t's, padded) along every axis (:meth:`FrequencyTable.remapped_into`)."""
    for g in range(orders.size):
        o, mo = cum_offsets[g], member_offsets[g]
        d = orders[g]
        if d == 0:
            for c in range(k):
                member_counts[mo + c] = cum[o + c]
        elif d == 1:
            t = combos[g, 0]
            for a in range(member_sizes[t]):
                hi, lo = ends[t, a + 1], ends[t, a]
                for c in range(k):
                    member_counts[mo + a * k + c] = cum[o + hi * k + c] - cum[o + lo * k + c]
        else:
            t0, t1 = combos[g, 0], combos[g, 1]
            m1 = member_sizes[t1]
            row = (ends[t1, m1] + 1) * k
            for a in range(member_sizes[t0]):
                r_hi, r_lo = o + ends[t0, a + 1] * row, o + ends[t0, a] * row
                for b in range(m1):
                    b_hi, b_lo = ends[t1, b + 1] * k, ends[t1, b] * k
                    at = mo + (a * m1 + b) * k
                    for c in range(k):
                        member_counts[at + c] = (
                            (cum[r_hi + b_hi + c] - cum[r_lo + b_hi + c])
                            - (cum[r_hi + b_lo + c] - cum[r_lo + b_lo + c]))


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
        (``seminaive.tables.scoring.cascade_from_counts``).  The scores are those of
        the dense selective table's parent-major kernel, bit for bit.
    budget_options : str, optional
        What a refusal over ``max_table_bytes`` advises besides raising it (the learner's
        options; None: AnDE's, a smaller n, fewer attributes, fewer bins).
    counts_only : bool, default=False
        Check only the counts against ``max_table_bytes``: for a learner that never builds
        the table's log tables (the structure learners, whose budget checks of their
        count trees count the table's counts besides them).

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
                 occupied=None, budget_options=None, counts_only=False):
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
                           occupied=int(occupied.sum()) if self.compact else None,
                           options=budget_options, counts_only=counts_only)
        self.counts_only = bool(counts_only)
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
        self.conditional = None
        self.conditional_kind = None

    def attach_moments(self, numeric, max_parents):
        """Also keep the moments of the ``numeric`` attributes as Gaussian children of every
        parent combination of order <= ``max_parents``
        (:meth:`~seminaive.tables.MomentTable.for_table`); refused before allocating if
        counts and moments would exceed ``max_table_bytes``."""
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
        counting_kernels.sub_combination_index(self.combos, self.orders, self.ext_first,
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
                           occupied=self.n_slots if self.compact else None,
                           counts_only=getattr(self, "counts_only", False))

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

    def compact_counter(self):
        """What counting rows into the stored cells of a compact table needs, without the
        counts: a picklable callable for the workers of a second pass.

        Returns
        -------
        CompactCounter
            ``counter(codes, y, w)``: the compact counts of a chunk (see
            :meth:`install_compact_counts`).
        """
        return CompactCounter(self)

    def install_compact_counts(self, counts):
        """Replace the counts of the stored parent cells of a compact table.

        The caches derived from the counts are dropped.

        Parameters
        ----------
        counts : array-like of float
            One region of ``count_region`` counts per stored cell (:meth:`compact_region`),
            e.g. the sum of the chunks of :meth:`compact_counter`.

        Returns
        -------
        self
        """
        if not self.compact:
            raise ValueError("install_compact_counts: not a compact selective table")
        counts = np.ascontiguousarray(counts, dtype=np.float64)
        if counts.shape != self.compact_counts.shape:
            raise ValueError(f"compact count array has {counts.size} entries, the layout "
                             f"needs {self.compact_counts.size}")
        self.compact_counts = counts
        self._changed()
        return self

    def _count_compact(self, X, y, w, weighted):
        counting_kernels.count_parent_cells(
            X, y, w, weighted, self.compact_combos, self.cell_first, self.slot_of,
            self.sizes, self.n_classes, self.att_off, self.count_region, self.compact_counts)

    def _store_cells(self, X, w, weighted):
        """Give a slot to the parent cells of rows (non-zero weight, parents observed) that
        have none, keeping slots in (combination, cell) order; refused before changing
        anything if the table would exceed ``max_table_bytes``."""
        mark = np.zeros(self.slot_of.size, dtype=np.bool_)
        counting_kernels.mark_parent_cells(X, w, weighted, self.compact_combos,
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
        log tables): ``(ridx, values)`` of ``seminaive.tables.wide.build_compact_regions``
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
        compact = wide_kernels.CompactLayout(
            self.compact_parents, self.compact_combos, self.cell_first, self.slot_of,
            self.sizes, int(k), self.compact_counts, self.att_off, int(self.count_region),
            int(self.n_slots))
        wide_kernels.build_compact_regions(
            compact, tables.log_joint, tables.lj_offsets, float(m),
            bool(Smoothing.from_params(smoothing, m).laplace), ridx, values)
        self._compact_tables = (key, (ridx, values))
        return ridx, values

    def _changed(self):
        self._log_tables = None
        self._parent_major = None
        self._compact_tables = None
        self._gaussian_key = None
        self._student_key = None
        self._kde_key = None
        self.conditional = None  # estimated from the old counts
        self.conditional_kind = None

    #: the kinds of hierarchical estimates :meth:`install_conditional` takes
    CONDITIONAL_KINDS = ("hdp", "hls")

    def install_conditional(self, estimates, kind):
        """Score with hierarchical estimates of every conditional instead of smoothed counts.

        Parameters
        ----------
        estimates : ndarray of shape (n_conditional_entries(),)
            float64 log-probabilities in the layout of :meth:`log_tables`' conditionals, as
            :meth:`hdp_tables` and :meth:`hls_tables` return them (or as read from a model
            file).  Copied.
        kind : {"hdp", "hls"}
            The estimator that made them: the ``smoothing`` they are scored with.

        Raises
        ------
        ValueError
            When ``kind`` is unknown, or the estimates are not float64 values of that shape,
            or not finite log-probabilities (<= 0); the table is left as it was.

        Examples
        --------
        >>> import numpy as np
        >>> table = FrequencyTable(np.array([2, 2]), 2, 2)
        >>> table.add(np.array([[1, 1], [2, 1]]), np.array([0, 1]))
        >>> table.install_conditional(table.hls_tables(), kind="hls")
        >>> table.conditional_kind
        'hls'
        >>> try:
        ...     table.install_conditional(np.zeros(3), kind="hdp")
        ... except ValueError as error:
        ...     print(str(error)[:37])
        hdp estimates: expected 16 float64 va
        """
        if kind not in self.CONDITIONAL_KINDS:
            raise ValueError(f"kind must be one of {list(self.CONDITIONAL_KINDS)}, got {kind!r}")
        estimates = np.asarray(estimates)
        expected = self.n_conditional_entries()
        if estimates.dtype != np.float64 or estimates.shape != (expected,):
            raise ValueError(f"{kind} estimates: expected {expected} float64 values (one per "
                             f"conditional entry of the table), got {estimates.size} of "
                             f"{estimates.dtype}")
        if not np.all(np.isfinite(estimates) & (estimates <= 0)):
            raise ValueError(f"{kind} estimates must be finite log-probabilities (<= 0)")
        self.conditional = estimates.copy()
        self.conditional_kind = kind

    @property
    def hdp_conditional(self):
        """The former name of ``conditional`` (read only: install estimates with
        :meth:`install_conditional`)."""
        return self.conditional

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

    def combination_start(self, order):
        """Global number of the first combination of ``order`` attributes.

        Parameters
        ----------
        order : int
            0 .. ``max_order + 1`` (``max_order + 1``: the number of combinations).

        Returns
        -------
        int
            Also the number of combinations of the orders below ``order``.
        """
        return int(self.order_first[order])

    def count_start(self, order):
        """Start, in the flat counts, of the blocks of ``order`` attributes.

        Parameters
        ----------
        order : int
            0 .. ``max_order + 1`` (``max_order + 1``: the size of the counts).

        Returns
        -------
        int
            Also the number of counts of the orders below ``order``: arrays laid out as the
            counts of orders 0..n (the log joints) have ``count_start(n + 1)`` entries.
        """
        return int(self.offsets[self.order_first[order]])

    def n_hdp_trees(self, max_order=None):
        """Number of trees of :meth:`hdp_tables` (one per combination and member).

        Parameters
        ----------
        max_order : int, optional
            The highest order of the combinations estimated (default: all).

        Returns
        -------
        int
            How many seeds :meth:`hdp_tables` needs.
        """
        max_order = self.max_order if max_order is None else min(max_order, self.max_order)
        lo, hi = int(self.order_first[1]), int(self.order_first[max_order + 1])
        return int(self.orders[lo:hi].sum())

    def n_conditional_entries(self):
        """Size of a log-conditional array of every order (that of :meth:`hdp_tables`).

        Returns
        -------
        int
            The sum over the combinations of their number of members times their counts.
        """
        return int((np.diff(self.offsets) * self.orders).sum())

    def occupied_cells(self, order):
        """Which cells of the combinations of ``order`` attributes occur in the counts.

        A cell occurs when every member is observed and some class has a non-zero count
        (a parent cell that can qualify with ``min_count > 0``).

        Parameters
        ----------
        order : int
            The order of the combinations, 1 .. ``max_order``.

        Returns
        -------
        mask : ndarray of bool
            One entry per cell of the combinations of ``order``, in their order.
        first : ndarray of int64
            Where each combination's cells start in ``mask`` (one more entry at the end).
        per_combination : ndarray of int64
            The number of occurring cells of each combination.
        """
        k = self.n_classes
        gs = np.arange(int(self.order_first[order]), int(self.order_first[order + 1]),
                       dtype=np.int64)
        cells = np.diff(self.offsets)[gs] // k
        first = np.concatenate([[0], np.cumsum(cells)]).astype(np.int64)
        mask = np.zeros(int(first[-1]), dtype=np.bool_)
        per_combination = np.zeros(gs.size, dtype=np.int64)
        counting_kernels.occupied_cells(self.counts, self.offsets, self.combos, order,
                                        self.sizes, k, gs, first, mask, per_combination)
        return mask, first, per_combination

    def remapped(self, lut, n_values, max_table_bytes=None):
        """The table of the same combinations over other values of the attributes.

        Every cell is added to the cell the value map ``lut`` sends it to (e.g. values
        merged into coarser ones).

        Parameters
        ----------
        lut : ndarray of int, shape (n_attributes, max size)
            ``lut[i, v]``: the storage code, in the new table, of storage code ``v`` of
            attribute i (0, missing, to 0).
        n_values : array-like of int
            Number of values of each attribute in the new table.
        max_table_bytes : int, optional
            The budget of the new table.

        Returns
        -------
        FrequencyTable
            The new table (its ``n_rows`` those of this one).

        Notes
        -----
        When every new value is a run of consecutive old ones (``lut`` non-decreasing in
        steps of 0 or 1 from 0, as for cut points dropped from a discretisation), each block
        is summed along its axes (``numpy.add.reduceat``) instead of cell by cell.
        """
        member = FrequencyTable(n_values, self.n_classes, self.max_order, max_table_bytes,
                                counts_only=getattr(self, "counts_only", False))
        k = self.n_classes
        starts = _merged_runs(lut, self.sizes, member.sizes)
        if starts is not None:  # every new value a run of old ones: sums along each axis
            for g, d in enumerate(self.orders):
                combo = self.combos[g, :int(d)]
                lo, hi = int(self.offsets[g]), int(self.offsets[g + 1])
                block = self.counts[lo:hi].reshape(*(int(self.sizes[t]) for t in combo), k)
                for axis, t in enumerate(combo):
                    if starts[t].size != self.sizes[t]:
                        block = np.add.reduceat(block, starts[t], axis=axis)
                lo = int(member.offsets[g])
                member.counts[lo:lo + block.size] = block.ravel()
            member.n_rows = self.n_rows
            return member
        parts = []
        for g, d in enumerate(self.orders):
            index = np.zeros((), dtype=np.int64)
            for t in self.combos[g, :int(d)]:
                index = (index[..., None] * int(member.sizes[t])
                         + lut[t, :int(self.sizes[t])])
            index = index[..., None] * k + np.arange(k)
            parts.append(index.ravel() + int(member.offsets[g]))
        target = np.concatenate(parts)
        member.counts[:] = np.bincount(target, weights=self.counts,
                                       minlength=member.counts.size)
        member.n_rows = self.n_rows
        return member

    def has_whole_counts(self):
        """Whether the counts are whole numbers whose sums stay exact in float64 (below
        2**52, none negative; a dense table), so that differences of their cumulated sums
        are exact (:meth:`remapped_into`)."""
        return (self.parents is None and not getattr(self, "compact", False)
                and _whole_counts(self.counts.reshape(-1)))

    def remapped_into(self, luts, members):
        """Fill the empty tables ``members`` (one per value map of ``luts``, the same
        combinations as this table) with this table's counts summed over each member's
        runs of values: every block cumulated along its axes once, and every member's block
        the differences of the cumulated block at its runs' ends along every axis.

        Exact for whole counts below 2**52 (:meth:`has_whole_counts`): the counts of
        :meth:`remapped`, bit for bit, with each block read once for all the members
        rather than once per member.  Tables of order <= 2 (ESKDB's pair tables) are
        cumulated by one compiled pass and every member read off by one more, the members
        on the threads, a run of blocks at a time (into one buffer of
        ``CUMULATED_BYTES``); higher orders block by block in numpy.

        Parameters
        ----------
        luts : list of ndarray of int, shape (n_attributes, max size)
            Value maps as for :meth:`remapped`.
        members : list of FrequencyTable
            Empty tables over the mapped values, one per map.

        Returns
        -------
        bool
            False (nothing filled) when some map is not runs of consecutive values.
        """
        ends = [_run_ends(lut, self.sizes, m.sizes) for lut, m in zip(luts, members,
                                                                       strict=True)]
        if any(e is None for e in ends):
            return False
        if int(self.orders.max(initial=0)) > 2:
            self._remapped_into_blocks(ends, members)
        else:  # every block cumulated once (one kernel), every member's read off (threads)
            k = self.n_classes
            cells = np.array([k * int(np.prod(self.sizes[self.combos[g, :int(d)]] + 1))
                              for g, d in enumerate(self.orders)], dtype=np.int64)
            width = max(e.size for own in ends for e in own)
            padded = []
            for own in ends:
                table = np.zeros((len(own), width), dtype=np.int64)
                for t, e in enumerate(own):
                    table[t, :e.size] = e
                padded.append(table)
            # the blocks a run at a time, cumulated into one buffer of at most
            # ``CUMULATED_BYTES`` (or the largest block): the same numbers as one buffer
            # of the whole table, whose fresh pages cost more than the cumulation (penbased's
            # table of 20 members' cut points: 60 MB)
            start = 0
            cum = np.empty(max(int(cells.max(initial=0)),
                               min(int(cells.sum()), CUMULATED_BYTES // 8)))
            while start < cells.size:
                stop = start + 1
                used = int(cells[start])
                while stop < cells.size and used + int(cells[stop]) <= cum.size:
                    used += int(cells[stop])
                    stop += 1
                run = slice(start, stop)
                cum_offsets = np.concatenate([[0], np.cumsum(cells[run])]).astype(np.int64)
                combos, orders = self.combos[run], self.orders[run]
                _cumulate_blocks(self.counts, self.offsets[run], combos, orders, self.sizes,
                                 k, cum, cum_offsets)
                parallel_calls(_read_runs, [
                    (cum, cum_offsets, combos, orders, k, table, member.sizes,
                     member.counts, member.offsets[run])
                    for table, member in zip(padded, members, strict=True)])
                start = stop
        for member in members:
            member.n_rows = self.n_rows
        return True

    def _remapped_into_blocks(self, ends, members):
        """:meth:`remapped_into` block by block in numpy (tables of order 3 and more)."""
        k = self.n_classes
        for g, d in enumerate(self.orders):
            combo = [int(t) for t in self.combos[g, :int(d)]]
            lo, hi = int(self.offsets[g]), int(self.offsets[g + 1])
            block = self.counts[lo:hi].reshape(*(int(self.sizes[t]) for t in combo), k)
            cum = np.zeros(tuple(s + 1 for s in block.shape[:-1]) + (k,))
            inner = cum[tuple(slice(1, None) for _ in combo)]
            inner[...] = block
            for axis in range(len(combo)):
                np.cumsum(cum, axis=axis, out=cum)
            for member, own in zip(members, ends, strict=True):
                part = cum[np.ix_(*(own[t] for t in combo), np.arange(k))] if combo else cum
                for axis in range(len(combo)):
                    part = np.diff(part, axis=axis)
                start = int(member.offsets[g])
                member.counts[start:start + part.size] = part.ravel()

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
        counting_kernels.count_order0(y, w, weighted, self.offsets[0], k, self.counts)
        lo, hi = self.order_first[1], self.order_first[self.max_order + 1]
        if hi > lo:  # orders 1..max_order in one parallel region, prefixes shared
            counting_kernels.count_combinations(
                X, y, w, weighted, self.combos[lo:hi], self.orders[lo:hi], self.offsets[lo:hi],
                self.sizes, k, self.counts, COUNT_BLOCK_ROWS)
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
            self.moments.merge(other.moments)
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
        if "hdp_conditional" in state:  # pickled before the estimates had a neutral name
            state["conditional"] = state.pop("hdp_conditional")
        state.setdefault("conditional_kind", None)
        self.__dict__.update(state)

    def copy(self):
        new = object.__new__(FrequencyTable)
        new.__dict__.update(self.__dict__)
        new.counts = self.counts.copy()
        new._log_tables = None
        new._parent_major = None
        new._gaussian_key = None
        new._student_key = None
        new._kde_key = None
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
        :meth:`install_conditional` to score with ``smoothing="hdp"``.
        """
        trees, where = self._conditional_trees(max_order)
        if len(seeds) != len(trees):
            raise ValueError(f"{len(trees)} seeds needed, got {len(seeds)}")
        budget = None if self.max_table_bytes is None else (
            int(self.max_table_bytes) - self.counts.nbytes)
        estimates = hdp_forest(trees, n_iter=n_iter, burn_in=burn_in, tying=tying, seeds=seeds,
                               max_bytes=budget)
        return self._tree_log_conditionals(trees, where, estimates)

    def hls_tables(self, max_order=None, penalty=HLS_PENALTY):
        """Hierarchical linear smoothing estimates (Cooper, Webb & Schmidt 2025) of every
        conditional P(x_c | y, x_rest) of the combinations of order 1 .. ``max_order``
        (default: all), as a log-conditional array: the trees of :meth:`hdp_tables`, fitted
        by ``seminaive.kernels.hls.hls_forest`` with the ridge penalty ``penalty``.
        Install the result with :meth:`install_conditional` to score with
        ``smoothing="hls"``.
        """
        trees, where = self._conditional_trees(max_order)
        budget = None if self.max_table_bytes is None else (
            int(self.max_table_bytes) - self.counts.nbytes)
        estimates = hls_forest(trees, penalty=penalty, max_bytes=budget)
        return self._tree_log_conditionals(trees, where, estimates)

    def _conditional_trees(self, max_order):
        """The trees of :meth:`hdp_tables` as (counts, dims), and where each goes."""
        max_order = self.max_order if max_order is None else min(max_order, self.max_order)
        of, k = self.order_first, self.n_classes
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
        return trees, where

    def _tree_log_conditionals(self, trees, where, estimates):
        """The log-conditional array (layout of :meth:`log_tables`) of the trees' leaves."""
        k = self.n_classes
        block = np.diff(self.offsets) * self.orders
        lc_offsets = np.concatenate([[0], np.cumsum(block)]).astype(np.int64)
        out = np.zeros(int(lc_offsets[-1]), dtype=np.float64)
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

        See ``seminaive.kernels.log_joint_tables`` and
        ``seminaive.kernels.log_conditional_tables`` for the formulas.  With
        ``smoothing="hdp"`` or ``"hls"`` the conditionals are those installed by
        :meth:`install_conditional` (from :meth:`hdp_tables` or :meth:`hls_tables`) and the
        joints of the parents are m-estimated.
        """
        key = (n, smoothing, float(m), float(min_count), id(self.conditional))
        if self._log_tables is not None and self._log_tables_key == key:
            return self._log_tables
        if smoothing in ("hdp", "hls") and self.conditional is None:
            raise ValueError(f"smoothing={smoothing!r} needs the hierarchical estimates: "
                             "install them with install_conditional(hdp_tables() or "
                             "hls_tables(), kind=...) after counting")
        laplace = Smoothing.from_params(smoothing, m).laplace
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
        if smoothing in ("hdp", "hls"):
            log_cond = self.conditional
        else:
            log_cond = np.empty(int(lc_offsets[-1]), dtype=np.float64)
            kernels.log_conditional_tables(self.layout(), int(of[1]), lc_last, lc_offsets,
                                           float(m), bool(laplace), log_cond, 0.0)
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
        model = wide_kernels.scoring_model(
            n, self.max_order, self.combos, lj_offsets, self.sizes, k, self.order_first,
            tables.log_joint, tables.log_conditional, tables.lc_offsets, self.sub_index)
        wide_kernels.build_parent_major(
            model, self.offsets, wide_kernels.parent_major_index(parents, pm_offsets, att_off,
                                                                 region),
            parent_pos, values)
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
        """Per-class log scores of AnDE for rows of storage codes (see
        ``seminaive.tables.scoring.predict_scores``).

        ``log_weights`` (optional): weighted AnDE, one log weight per cell of the blocks of
        orders 0..n (``log_weights[offsets[g] // k + cell]``; -inf leaves a sub-model out),
        see ``seminaive.tables.scoring.predict_scores_weighted``.

        ``kernel``: ``"parent_major"`` scores with the parent-major tables of
        :meth:`parent_major` in precision ``dtype`` (:mod:`seminaive.tables.wide`),
        ``"combination"`` with the combination-major log tables (float64 only), ``"auto"``
        the parent-major tables when they fit in ``max_table_bytes`` beside the counts and
        log tables (:meth:`parent_major_bytes`), else the combination-major ones.  Both give
        the same scores in float64 (up to rounding in the combination over sub-models).
        """
        modes = {"joint": scoring_kernels.AGGREGATE_JOINT,
                 "posterior": scoring_kernels.AGGREGATE_POSTERIOR,
                 "vote": scoring_kernels.AGGREGATE_VOTE}
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
        scoring = scoring_kernels.ScoringTables(
            self.combos, lj_offsets, self.sizes, self.n_classes, self.order_first,
            self.max_order, tables.log_joint, tables.log_conditional, tables.lc_offsets,
            self.sub_index)
        if self.compact and tables.lj_offsets is not None:
            # a compact table holds its sub-models' children parent-major only
            if kernel == "combination":
                raise ValueError("a compact selective table scores with the parent-major "
                                 "kernel: use kernel='auto' or 'parent_major'")
            ridx, values = self.compact_tables(n, smoothing, m, min_count, dtype)
            pending = np.zeros(X.shape[0], dtype=np.bool_)
            model = wide_kernels.scoring_model(
                tables.n, self.max_order, self.combos, lj_offsets, self.sizes,
                self.n_classes, self.order_first, tables.log_joint, tables.log_conditional,
                tables.lc_offsets, self.sub_index, aggregate=modes[aggregate])
            index = wide_kernels.parent_major_index(
                self.compact_parents, np.zeros(self.compact_parents.size + 1, dtype=np.int64),
                self.att_off, self.n_classes + self.count_region, ridx, self.cell_first)
            wide_kernels.predict_scores_wide(X, model, index, values, out, pending)
            rows = np.flatnonzero(pending)
            if rows.size:  # no log conditionals of order n: the cascade reads the counts
                scoring_kernels.cascade_from_counts(
                    X, rows, tables.n, scoring, self.counts, self.offsets, float(m),
                    Smoothing.from_params(smoothing, m).laplace, modes[aggregate], out)
            return out
        if kernel == "parent_major" or (kernel == "auto"
                                        and self._parent_major_fits(tables.n, dtype)):
            pm = self.parent_major(n, smoothing, m, min_count, dtype)
            weighted = log_weights is not None
            model = wide_kernels.scoring_model(
                tables.n, self.max_order, self.combos, lj_offsets, self.sizes,
                self.n_classes, self.order_first, tables.log_joint, tables.log_conditional,
                tables.lc_offsets, self.sub_index, aggregate=modes[aggregate],
                weighted=weighted, lw=log_weights)
            index = wide_kernels.parent_major_index(pm.parents, pm.offsets, pm.att_off,
                                                    pm.region)
            wide_kernels.predict_scores_wide(X, model, index, pm.values, out)
        elif log_weights is None:
            scoring_kernels.predict_scores(X, tables.n, scoring, modes[aggregate], out)
        else:
            scoring_kernels.predict_scores_weighted(X, tables.n, scoring, modes[aggregate],
                                                    log_weights, out)
        return out

    def gaussian_scores(self, X, values, log_width, n, smoothing="m_estimate", m=1.0,
                        min_count=1, aggregate="joint", missing_code=None, log_weights=None,
                        density="plugin"):
        """Per-class log scores of AnDE with Gaussian numeric children (the table must keep
        moments, :meth:`attach_moments`): ``values`` are the rows' centred numeric values,
        ``log_width[i, code]`` the log widths of the numeric parents' bins (see
        ``seminaive.tables.gaussian.gaussian_scores``).  The Gaussian estimates shrink
        with ``m`` pseudo-rows (1 with Laplace smoothing), see
        :meth:`~seminaive.tables.MomentTable.estimates`.
        ``missing_code`` (per attribute, 0 = none): storage codes of the numeric attributes'
        values for missing (``missing="value"``); ``log_weights``: weighted sub-models, as in
        :meth:`scores`.  ``density="student"`` scores the children by the posterior
        predictive Student's t of the same normal-inverse-gamma posterior
        (:meth:`student_grid`) rather than by the plug-in Gaussian.
        """
        if self.moments is None:
            raise ValueError("this table keeps no moments: attach_moments() before counting")
        modes = {"joint": scoring_kernels.AGGREGATE_JOINT,
                 "posterior": scoring_kernels.AGGREGATE_POSTERIOR,
                 "vote": scoring_kernels.AGGREGATE_VOTE}
        tables = self.log_tables(n, smoothing, m, min_count)
        kappa = Smoothing.from_params(smoothing, m).kappa
        n_bins = 0
        if density == "student":
            grid_offsets, mean, norm, precision, shape = self.student_grid(kappa)
        elif density == "plugin":
            grid_offsets, mean, norm, precision = self.gaussian_grid(kappa)
            shape = np.zeros(1)
        elif density == "kde":
            grid_offsets, norm = self.kde_grid()
            mean = precision = shape = np.zeros(1)
            n_bins = self.moments.n_grid
            values = self.moments.bin_codes(values)
        else:
            raise ValueError(f"density must be 'plugin', 'student' or 'kde', got {density!r}")
        X = np.ascontiguousarray(X)
        out = np.empty((X.shape[0], self.n_classes), dtype=np.float64)
        if X.shape[0]:
            gaussian = np.full(self.n_attributes, -1, dtype=np.int64)
            gaussian[self.moments.numeric] = np.arange(self.moments.numeric.size)
            children = gaussian_kernels.GaussianGrid(
                gaussian,
                np.zeros(self.n_attributes, dtype=np.int64) if missing_code is None
                else np.ascontiguousarray(missing_code, dtype=np.int64),
                np.ascontiguousarray(log_width, dtype=np.float64), grid_offsets,
                mean, norm, precision, shape, density == "student", n_bins)
            combination = gaussian_kernels.Combination(
                modes[aggregate], log_weights is not None,
                np.zeros(1) if log_weights is None
                else np.ascontiguousarray(log_weights, dtype=np.float64))
            gaussian_kernels.gaussian_scores(
                X, np.ascontiguousarray(values, dtype=np.float64), self.layout(),
                gaussian_kernels.ScoreTables(int(tables.n), int(self.max_order),
                                             tables.log_joint, tables.log_conditional,
                                             tables.lc_offsets),
                children, combination, out)
        return out

    def gaussian_grid(self, kappa):
        """The Gaussian estimates of the moments (shrunk with ``kappa`` pseudo-rows, see
        :meth:`~seminaive.tables.MomentTable.estimates`) laid out for the scoring kernels
        (cached): ``(grid_offsets, mean, norm, precision)`` of
        :meth:`~seminaive.tables.MomentTable.grid_terms`, with
        ``seminaive.tables.gaussian.gaussian_terms``."""
        if self.moments is None:
            raise ValueError("this table keeps no moments: attach_moments() before counting")
        key = ("gaussian", float(kappa))
        if getattr(self, "_gaussian_key", None) != key:
            terms = gaussian_kernels.gaussian_terms(*self.moments.estimates(float(kappa)))
            self._gaussian_estimates = self.moments.grid_terms(self, self.moment_parents,
                                                               terms)
            self._gaussian_key = key
        return self._gaussian_estimates

    def kde_grid(self):
        """The log densities of the binned children
        (:meth:`~seminaive.tables.MomentTable.kde_estimates`) laid out for the scoring
        kernels (cached): ``(grid_offsets, log_density)``, the blocks of
        :meth:`~seminaive.tables.MomentTable.grid_terms` with ``n_grid`` bins per (cell,
        numeric attribute, class), offsets in those units."""
        if self.moments is None or self.moments.bins is None:
            raise ValueError("this table keeps no binned counts: attach_moments() and "
                             "moments.attach_grid() before counting")
        if getattr(self, "_kde_key", None) != "kde":
            log_density, _ = self.moments.kde_estimates()
            g = self.moments.n_grid
            offsets, *per_bin = self.moments.grid_terms(
                self, self.moment_parents, [log_density[:, b] for b in range(g)])
            self._kde_estimates = (np.ascontiguousarray(offsets * g),
                                   np.ascontiguousarray(np.stack(per_bin, axis=-1).ravel()))
            self._kde_key = "kde"
        return self._kde_estimates

    def student_grid(self, kappa):
        """The posterior predictive Student's t of every (cell, class) of the moments
        (``seminaive.tables.gaussian.normal_inverse_gamma_predictive`` of
        :meth:`~seminaive.tables.MomentTable.estimates` with ``kappa`` pseudo-rows, the class
        level shrunk towards the pooled moments too) laid out as :meth:`gaussian_grid`:
        ``(grid_offsets, mean, norm, precision, shape)`` of
        ``seminaive.tables.gaussian.student_terms`` (cached)."""
        if self.moments is None:
            raise ValueError("this table keeps no moments: attach_moments() before counting")
        key = ("student", float(kappa))
        if getattr(self, "_student_key", None) != key:
            mean, var = self.moments.estimates(float(kappa), class_prior=True)
            n = self.moments.sums.reshape(-1, 3)[:, 0]
            terms = gaussian_kernels.student_terms(
                *gaussian_kernels.normal_inverse_gamma_predictive(mean, var, n, float(kappa)))
            self._student_estimates = self.moments.grid_terms(self, self.moment_parents,
                                                              terms)
            self._student_key = key
        return self._student_estimates

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
    def from_state(cls, state, max_table_bytes=None, counts_only=False):
        n_classes, max_order = (int(v) for v in state["meta"])
        table = cls(np.asarray(state["sizes"]) - 1, n_classes, max_order, max_table_bytes,
                    parents=state.get("parents"), occupied=state.get("occupied"),
                    counts_only=counts_only)
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
                {k: state[f"moment_{k}"] for k in ("numeric", "entries", "sums", "grid_edges",
                                                   "grid_bins", "bins")
                 if f"moment_{k}" in state},
                table.sizes, table.n_classes)
            table.attach_moments(moments.numeric, int(np.asarray(state["moment_meta"])[0]))
            if moments.entries != table.moments.entries:
                raise ValueError("the moment entries do not match the table's combinations")
            table.moments.sums[:] = moments.sums
            if moments.bins is not None:
                table.moments.attach_grid(moments.grid_edges, moments.grid_bins)
                table.moments.bins[:] = moments.bins
        return table
