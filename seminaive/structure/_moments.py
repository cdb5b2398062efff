"""Moments of Gaussian children stored only where the data reach (KDB, SKDB, TAN).

A Gaussian child i with the parent chain (c1, .., cm) (most conditionally informative
first) has one *entry* per prefix length L = 0..m: the weight, sum and sum of squares of its
values in every (class, first L chain parents) cell that some training row with the child
observed reaches.  A cell's *code* is its index in the dense block of
:class:`seminaive.tables.MomentTable` -- ``cell * k + y``, ``cell`` the mixed-radix number of
the parents' storage codes (first parent slowest, 0 for missing) -- and an entry holds its
cells by increasing code, so the classes of one parent cell are contiguous and found by one
binary search.  The class-only entry (L = 0) holds every class.  These are the nodes of
level 1 + L of the child's count tree (:mod:`._sparse`) that rows with the child observed
reach, keyed parent-major.

Every cell's sums are accumulated row by row in the order of the rows, as the dense blocks
are, and chunks are merged by the union of their keys (shared keys added, the earlier
chunk's first), so the sums, and so the estimates, are the dense layout's bit for bit.  A
cell that no row reaches has the moments 0; its estimates are those
:meth:`~seminaive.tables.MomentTable.estimates` gives an empty cell, drawn from the coarser
cell with ``kappa`` pseudo-rows (:func:`empty_cell`), computed where they are read.
"""

import math
from typing import NamedTuple

import numpy as np

from ..exceptions import TableTooLargeError
from ..kernels._jit import njit, prange
from ..tables import FLOOR_RATIO, binned
from ._sparse import DIRECT_KEYS, check_key_range, gib

#: bytes per stored cell: its code, three sums, the estimated mean and variance
CELL_BYTES = 8 + 24 + 16
#: bytes per stored cell and grid bin with ``density="kde"``: the binned count, the log
#: density and the smoothed count
KDE_CELL_BYTES = 8 + 8 + 8


def _empty_counted(n, width=3):
    return [(np.zeros(0, np.int64), np.zeros((0, width))) for _ in range(n)]


class SparseMoments:
    """Moments of Gaussian children given every prefix of their parent chains, for the
    (class, parent values) cells that occur.

    Parameters
    ----------
    numeric : array-like of int
        The numeric attributes, in the order of the columns of the values counted.
    chains : sequence of sequence of int
        The parent chain of every numeric attribute (in the order of ``numeric``).
    sizes : array-like of int
        ``n_values + 1`` of every attribute.
    n_classes : int

    Attributes
    ----------
    entries : list of (tuple, int)
        (parent prefix, child) of every entry, child by child, prefixes by length.
    entry_start : ndarray of shape (len(entries) + 1,)
        First cell of every entry in ``codes`` (the end last).
    codes : ndarray of shape (n_cells,)
        Code ``cell * k + y`` of every stored cell, increasing within an entry.
    sums : ndarray of shape (3 * n_cells,)
        Weight, sum and sum of squares of every stored cell.
    """

    def __init__(self, numeric, chains, sizes, n_classes):
        self.numeric = np.asarray(numeric, dtype=np.int64)
        self.chains = [tuple(int(p) for p in c) for c in chains]
        if len(self.chains) != self.numeric.size:
            raise ValueError("one parent chain per numeric attribute is needed")
        self.sizes = np.asarray(sizes, dtype=np.int64)
        self.n_classes = int(n_classes)
        self.entries = [(chain[:length], int(c)) for c, chain in
                        zip(self.numeric.tolist(), self.chains, strict=True)
                        for length in range(len(chain) + 1)]
        for c, chain in zip(self.numeric.tolist(), self.chains, strict=True):
            if c in chain or len(set(chain)) != len(chain):
                raise ValueError(f"bad parent chain {list(chain)} of attribute {c}")
        self.index = {entry: e for e, entry in enumerate(self.entries)}
        self.first_entry = np.cumsum([0] + [len(c) + 1 for c in self.chains]).astype(np.int64)
        self.grid_edges = None
        self.grid_bins = None
        self.set_cells(_empty_counted(len(self.entries)))

    # ---------------------------------------------------------------- the binned counts
    @property
    def n_grid(self):
        """Bins per cell of the binned counts (the widest grid; 0: none)."""
        return 0 if self.grid_bins is None else int(self.grid_bins.max(initial=1))

    @property
    def width(self):
        """Columns of a cell's counted values: the three sums, then the binned counts."""
        return 3 + self.n_grid

    def attach_grid(self, edges, n_bins):
        """Also count every child on a fixed grid (``density="kde"``): ``edges[j,
        :n_bins[j] + 1]`` the (centred) bin edges of the j-th numeric attribute
        (:func:`seminaive.tables.binned.grid_edges`).  Every stored cell then holds the
        weight of its rows in every bin (``bins``, shape (cells, ``n_grid``)), counted and
        merged with its sums.  Call before any cell is counted."""
        edges, n_bins = binned.checked_grid(edges, n_bins, self.numeric.size)
        self.grid_edges, self.grid_bins = edges, n_bins
        return self.set_cells(_empty_counted(len(self.entries), self.width))

    def bin_codes(self, values):
        """The grid bin of every (centred) value, float with NaN where missing."""
        return binned.bin_of(values, self.grid_edges, self.grid_bins)

    def empty_counted(self):
        """Per entry, no cell (what :meth:`count` gives for no rows)."""
        return _empty_counted(len(self.entries), self.width)

    # ---------------------------------------------------------------- layout
    def set_cells(self, counted):
        """Install the cells of every entry from ``counted`` (per entry: increasing codes
        and sums of shape (cells, 3)); the class-only entries get every class."""
        k, width = self.n_classes, self.width
        codes, sums = [], []
        for e, (parents, _) in enumerate(self.entries):
            keys, values = counted[e]
            keys = np.asarray(keys, dtype=np.int64)
            values = np.asarray(values, dtype=np.float64).reshape(-1, width)
            if not parents:
                full = np.zeros((k, width))
                full[keys] = values
                keys, values = np.arange(k, dtype=np.int64), full
            codes.append(keys)
            sums.append(values)
        self.entry_start = np.cumsum([0] + [c.size for c in codes]).astype(np.int64)
        self.codes = np.concatenate(codes) if codes else np.zeros(0, np.int64)
        values = np.concatenate(sums) if sums else np.zeros((0, width))
        self.sums = np.ascontiguousarray(values[:, :3]).ravel()
        self.bins = np.ascontiguousarray(values[:, 3:]) if width > 3 else None
        return self

    @property
    def n_cells(self):
        return int(self.codes.size)

    @property
    def nbytes(self):
        return (self.codes.nbytes + self.sums.nbytes + self.entry_start.nbytes
                + (0 if self.bins is None else self.bins.nbytes))

    def cells(self, e):
        """(codes, sums of shape (cells, 3)) of entry ``e`` (views)."""
        lo, hi = int(self.entry_start[e]), int(self.entry_start[e + 1])
        return self.codes[lo:hi], self.sums[3 * lo:3 * hi].reshape(-1, 3)

    def counted_values(self, e):
        """(codes, values of shape (cells, :attr:`width`)) of entry ``e``: its sums, then
        its binned counts (copies)."""
        lo, hi = int(self.entry_start[e]), int(self.entry_start[e + 1])
        codes, sums = self.cells(e)
        if self.bins is None:
            return codes.copy(), sums.copy()
        return codes.copy(), np.concatenate([sums, self.bins[lo:hi]], axis=1)

    def dense_block(self, e):
        """Entry ``e`` as the dense block of :class:`~seminaive.tables.MomentTable`: shape
        (sizes of its parents..., k, 3), zero where no row reaches (for tests)."""
        parents = self.entries[e][0]
        shape = [int(self.sizes[p]) for p in parents] + [self.n_classes]
        dense = np.zeros((int(np.prod(shape)), 3))
        codes, sums = self.cells(e)
        dense[codes] = sums
        return dense.reshape(shape + [3])

    # ---------------------------------------------------------------- counting
    def check_keys(self):
        """Raise :class:`TableTooLargeError` when some cell codes would not fit int64."""
        for c, chain in zip(self.numeric.tolist(), self.chains, strict=True):
            if chain:
                check_key_range(c, chain, self.sizes, self.n_classes)

    def count(self, X, y, w, values):
        """Per entry, the increasing codes of the cells the rows reach (child observed) and
        their summed (weight, weight x value, weight x value^2), accumulated in row order:
        storage codes ``X``, class indices ``y``, weights ``w`` (None: 1), the numeric
        values (n_rows, len(numeric)), NaN where missing."""
        X = np.asarray(X)
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (X.shape[0], self.numeric.size):
            raise ValueError(f"expected the values of {self.numeric.size} numeric attributes "
                             f"for {X.shape[0]} rows, got shape {values.shape}")
        k, g = self.n_classes, self.n_grid
        y = np.asarray(y, dtype=np.int64)
        codes = None if self.bins is None else binned.bin_of(values, self.grid_edges,
                                                            self.grid_bins)
        out = []
        for j, chain in enumerate(self.chains):
            v = values[:, j]
            rows = np.flatnonzero(~np.isnan(v))
            v = v[rows]
            wr = None if w is None else np.asarray(w, dtype=np.float64)[rows]
            wv = v if wr is None else wr * v  # the dense kernel's w * v, then * v
            wvv = wv * v
            cell = np.zeros(rows.size, dtype=np.int64)
            span = 1
            for length in range(len(chain) + 1):
                if length:
                    p = chain[length - 1]
                    cell = cell * int(self.sizes[p]) + X[rows, p]
                    span *= int(self.sizes[p])
                keys = cell * k + y[rows]
                reached, sums = _sum_by_key(keys, span * k, wr, wv, wvv)
                if codes is not None:
                    at = np.searchsorted(reached, keys) * g + codes[rows, j].astype(np.int64)
                    counts = np.bincount(at, weights=wr, minlength=reached.size * g)
                    sums = np.concatenate([sums, counts.reshape(reached.size, g)], axis=1)
                out.append((reached, sums))
        return out

    def counted_cells(self):
        """Per entry, (codes, values (cells, :attr:`width`)) of the stored cells
        (copies)."""
        return [self.counted_values(e) for e in range(len(self.entries))]

    # ---------------------------------------------------------------- estimates
    def _coarser_cells(self, e, last):
        """``(lo, hi, plo, parent)``: the stored cells ``lo .. hi - 1`` of entry ``e`` (a
        chain prefix whose last parent is attribute ``last``), the first stored cell
        ``plo`` of the prefix one parent shorter (entry ``e - 1``) and, per cell, the index
        from ``plo`` of its cell there (the same class, the last parent's value dropped)."""
        k = self.n_classes
        lo, hi = int(self.entry_start[e]), int(self.entry_start[e + 1])
        codes = self.codes[lo:hi]
        radix = int(self.sizes[last])
        above = (codes // k // radix) * k + codes % k
        plo, phi = int(self.entry_start[e - 1]), int(self.entry_start[e])
        return lo, hi, plo, np.searchsorted(self.codes[plo:phi], above)

    def estimates(self, kappa, floor_ratio=FLOOR_RATIO, class_prior=False):
        """Means and variances of every stored cell, and the variance floor of every
        child: :meth:`seminaive.tables.MomentTable.estimates` with the coarser estimate of a
        cell that of the chain prefix one parent shorter (the same operations, so the same
        numbers).  ``class_prior``: the class level shrinks towards the pooled moments of
        all classes with ``kappa`` pseudo-rows (the prior of the Student's t children, as
        the AnDE tables' ``class_prior``)."""
        k = self.n_classes
        mean = np.zeros(self.n_cells)
        var = np.zeros(self.n_cells)
        floors = np.zeros(self.numeric.size)
        for j, chain in enumerate(self.chains):
            e0 = int(self.first_entry[j])
            lo = int(self.entry_start[e0])
            n, s1, s2 = self.sums[3 * lo:3 * (lo + k)].reshape(k, 3).sum(axis=0)
            mu = s1 / n if n > 0 else 0.0
            v = max(s2 / n - mu * mu, 0.0) if n > 0 else 0.0
            floor = (floor_ratio ** 2) * v if v > 0 else 1.0
            floors[j] = floor
            pooled_mu, pooled_var = mu, max(v, floor)
            block = self.sums[3 * lo:3 * (lo + k)].reshape(k, 3)
            n, s1, s2 = block[:, 0], block[:, 1], block[:, 2]
            if class_prior:
                xbar = np.where(n > 0, s1 / np.where(n > 0, n, 1.0), pooled_mu)
                ss = np.maximum(s2 - n * xbar * xbar, 0.0)
                denom = n + kappa
                m_est = (s1 + kappa * pooled_mu) / denom
                v_est = (ss + kappa * pooled_var
                         + n * kappa / denom * (xbar - pooled_mu) ** 2) / denom
            else:
                enough = n > 1
                safe = np.where(enough, n, 1.0)
                m_est = np.where(enough, s1 / safe, pooled_mu)
                v_est = np.where(enough, np.maximum(s2 / safe - m_est ** 2, 0.0), pooled_var)
            mean[lo:lo + k] = m_est
            var[lo:lo + k] = np.maximum(v_est, floor)
            for length in range(1, len(chain) + 1):
                lo, hi, plo, parent = self._coarser_cells(e0 + length, chain[length - 1])
                parent = plo + parent
                mu0 = 0.0 + mean[parent]
                var0 = 0.0 + var[parent]
                sums = self.sums[3 * lo:3 * hi].reshape(-1, 3)
                n, s1, s2 = sums[:, 0], sums[:, 1], sums[:, 2]
                xbar = np.where(n > 0, s1 / np.where(n > 0, n, 1.0), mu0)
                ss = np.maximum(s2 - n * xbar * xbar, 0.0)
                denom = n + kappa
                m_est = (s1 + kappa * mu0) / denom
                v_est = (ss + kappa * var0 + n * kappa / denom * (xbar - mu0) ** 2) / denom
                mean[lo:hi] = m_est
                var[lo:hi] = np.maximum(v_est, floor)
        return mean, var, floors

    def kde_estimates(self):
        """The binned children's densities (``density="kde"``) of every stored cell, as
        :meth:`seminaive.tables.MomentTable.kde_estimates` makes them with the coarser
        estimate of a cell that of the chain prefix one parent shorter: a
        :class:`KdeEstimates`.

        Per child, the class level mixes its smoothed counts towards those of all classes
        with ``m_0`` pseudo-rows, the cells of prefix length L towards the estimate of
        their cell of length L - 1 (same class and parent values) with ``m_L``; the
        bandwidth is :func:`~seminaive.tables.binned.bandwidth_for` the child's weight,
        ``m_0`` is chosen by :func:`~seminaive.tables.binned.choose_smoothing` and every
        ``m_L``, level by level, by :func:`~seminaive.tables.binned.choose_mixture` (every
        row removed from its cell and from every coarser estimate it is counted in).  A cell
        that no row reaches has the estimate of its coarser cell (its counts are 0)."""
        if self.bins is None:
            raise ValueError("these moments keep no binned counts: density='kde' needs "
                             "the model fitted with it")
        k, g = self.n_classes, self.n_grid
        n_num = self.numeric.size
        depth = max((len(c) for c in self.chains), default=0)
        prob = np.zeros((self.n_cells, g))
        smooth = np.zeros((self.n_cells, g))
        mixtures = np.zeros((n_num, depth + 1))
        bandwidth = np.zeros(n_num)
        own = np.zeros((n_num, g))
        pooled = np.zeros((n_num, g))
        pooled_n = np.zeros(n_num)
        for j, chain in enumerate(self.chains):
            nb = int(self.grid_bins[j])
            e0 = int(self.first_entry[j])
            lo = int(self.entry_start[e0])
            counts = self.bins[lo:lo + k, :nb]
            h, m = binned.choose_smoothing(counts)
            bandwidth[j], mixtures[j, 0] = h, m
            diag = np.diag(binned.kernel_matrix(nb, h))
            own[j, :nb] = diag
            total = counts.sum(axis=0)
            n = total.sum()
            s_all = binned.smoothed(total, h)
            pooled[j, :nb], pooled_n[j] = s_all, n
            f0 = (s_all / n if n > 0 else np.full(nb, 1.0 / nb))[None, :]
            prob[lo:lo + k, :nb] = binned.mixed(counts, h, m, f0)
            smooth[lo:lo + k, :nb] = binned.smoothed(counts, h)
            f0_loo = np.maximum(s_all - diag, 0.0) / max(n - 1.0, 1e-300)
            loo = binned.mixed_loo(counts, h, m, f0_loo[None, :])
            for length in range(1, len(chain) + 1):
                lo, hi, plo, parent = self._coarser_cells(e0 + length, chain[length - 1])
                counts = self.bins[lo:hi, :nb]
                m = binned.choose_mixture([(counts, loo[parent])], h)
                mixtures[j, length] = m
                prob[lo:hi, :nb] = binned.mixed(counts, h, m, prob[plo + parent, :nb])
                smooth[lo:hi, :nb] = binned.smoothed(counts, h)
                loo = binned.mixed_loo(counts, h, m, loo[parent])
        log_width = binned.log_widths(self.grid_edges, self.grid_bins)
        log_width = np.pad(log_width, ((0, 0), (0, g - log_width.shape[1])))
        column = np.repeat(np.arange(n_num), [int(self.entry_start[self.first_entry[j + 1]]
                                              - self.entry_start[self.first_entry[j]])
                                              for j in range(n_num)])
        log_density = np.log(np.maximum(prob, 1e-300)) - log_width[column]
        for j in range(n_num):
            log_density[column == j, int(self.grid_bins[j]):] = 0.0
        return KdeEstimates(log_density, smooth, bandwidth, mixtures, own, pooled, pooled_n,
                            log_width)

    def level_starts(self, chains):
        """(n_num, width + 2) first cell of the entries of the prefixes of ``chains[j]``
        (prefixes of the stored chains) of every child, the end of the last after them
        (padded with it): what the kernels read."""
        width = max((len(c) for c in chains), default=0)
        out = np.zeros((self.numeric.size, width + 2), dtype=np.int64)
        for j, (chain, c) in enumerate(zip(chains, self.numeric.tolist(), strict=True)):
            es = [self.index[(tuple(chain[:length]), c)] for length in range(len(chain) + 1)]
            out[j, :len(es)] = self.entry_start[es]
            out[j, len(es):] = self.entry_start[es[-1] + 1]
        return out

    # ---------------------------------------------------------------- partial_fit, files
    def add_previous(self, counted, previous):
        """``counted`` (per entry) with the cells of the entries that ``previous`` (an
        earlier :class:`SparseMoments`) shares added after them, recoded when the
        attributes' extents grew."""
        out = list(counted)
        for e, entry in enumerate(self.entries):
            f = previous.index.get(entry)
            if f is None:
                continue
            if previous.width != self.width or (self.bins is not None and not np.array_equal(
                    np.nan_to_num(previous.grid_edges), np.nan_to_num(self.grid_edges))):
                raise ValueError("binned counts on different grids cannot be merged")
            codes, sums = previous.counted_values(f)
            if not np.array_equal(previous.sizes, self.sizes):
                codes = _recode(codes, entry[0], previous.sizes, self.sizes, self.n_classes)
            out[e] = merge_cells([out[e]], [(codes, sums)])[0]
        return out

    def state(self):
        """Arrays that define the moments: numeric attributes, entries (child, then parents,
        -1 padding), the cells' codes and sums, and the number of cells of every entry."""
        width = max((len(c) for c in self.chains), default=0)
        entries = np.full((len(self.entries), max(width, 1) + 1), -1, dtype=np.int64)
        for e, (parents, child) in enumerate(self.entries):
            entries[e, 0] = child
            entries[e, 1:1 + len(parents)] = parents
        state = {"numeric": self.numeric, "entries": entries, "codes": self.codes,
                 "sums": self.sums, "lengths": np.diff(self.entry_start)}
        if self.bins is not None:
            state.update({"grid_edges": self.grid_edges, "grid_bins": self.grid_bins,
                          "bins": self.bins.ravel()})
        return state

    @classmethod
    def from_state(cls, state, chains, sizes, n_classes):
        """The moments :meth:`state` describes for the chains ``chains`` of the model,
        validated (ValueError when the arrays do not fit)."""
        if "codes" not in state and "sums" in state:
            raise ValueError("the model file holds dense moments of the Gaussian children, "
                             "written by a version of seminaive before they were stored for "
                             "the occurring cells only: fit the model again")
        missing = [key for key in ("numeric", "entries", "codes", "sums", "lengths")
                   if key not in state]
        if missing:
            raise ValueError(f"the Gaussian children's moments are missing {missing}")
        numeric = np.asarray(state["numeric"])
        if numeric.ndim != 1 or numeric.dtype.kind not in "iu":
            raise ValueError("bad numeric attribute list of the moments")
        if numeric.size != len(chains) or np.any(numeric < 0) or np.any(
                numeric >= len(sizes)):
            raise ValueError("the moments do not match the structure")
        moments = cls(numeric, chains, sizes, n_classes)
        if not np.array_equal(np.asarray(state["entries"]), moments.state()["entries"]):
            raise ValueError("the moments do not match the structure")
        codes, sums = np.asarray(state["codes"]), np.asarray(state["sums"])
        lengths = np.asarray(state["lengths"])
        if (codes.dtype.kind not in "iu" or codes.ndim != 1 or sums.dtype != np.float64
                or sums.shape != (3 * codes.size,) or lengths.dtype.kind not in "iu"
                or lengths.shape != (len(moments.entries),) or np.any(lengths < 0)
                or int(lengths.sum()) != codes.size):
            raise ValueError("the moments' codes, sums and lengths do not match the "
                             "structure")
        if not np.all(np.isfinite(sums)):
            raise ValueError("the moments must be finite")
        if ("bins" in state) != ("grid_edges" in state) or ("bins" in state) != (
                "grid_bins" in state):
            raise ValueError("the binned counts need their grid, and the grid its counts")
        counts = None
        if "bins" in state:
            moments.attach_grid(state["grid_edges"], state["grid_bins"])
            counts = np.asarray(state["bins"])
            if (counts.dtype != np.float64 or counts.shape != (codes.size * moments.n_grid,)
                    or not np.all(np.isfinite(counts))):
                raise ValueError(f"binned count array has {counts.size} entries, the layout "
                                 f"needs {codes.size * moments.n_grid} finite values")
            if np.any(counts < -1e-6 * max(1.0, float(np.abs(counts).max(initial=0.0)))):
                raise ValueError("binned counts contain negative values")
            counts = counts.reshape(codes.size, moments.n_grid)
        k = moments.n_classes
        counted, start = [], 0
        for e, n in enumerate(lengths.tolist()):
            part = codes[start:start + n].astype(np.int64)
            span = k * int(np.prod([int(moments.sizes[p]) for p in moments.entries[e][0]]))
            if n and (np.any(np.diff(part) <= 0) or part[0] < 0 or part[-1] >= span):
                raise ValueError(f"moments of entry {moments.entries[e]}: codes not "
                                 "increasing or out of range")
            if not moments.entries[e][0] and not np.array_equal(part, np.arange(k)):
                raise ValueError("the class-only moments must hold every class")
            values = sums[3 * start:3 * (start + n)].reshape(-1, 3).copy()
            if counts is not None:
                values = np.concatenate([values, counts[start:start + n]], axis=1)
            counted.append((part, values))
            start += n
        moments.set_cells(counted)
        moments.check_parents()
        return moments

    def check_parents(self):
        """Raise ValueError unless every stored cell's coarser cell is stored."""
        k = self.n_classes
        for j, chain in enumerate(self.chains):
            for length in range(1, len(chain) + 1):
                e = int(self.first_entry[j]) + length
                codes = self.cells(e)[0]
                above = (codes // k // int(self.sizes[chain[length - 1]])) * k + codes % k
                stored = self.cells(e - 1)[0]
                at = np.searchsorted(stored, above)
                if np.any(at >= stored.size) or np.any(
                        stored[np.minimum(at, max(stored.size - 1, 0))] != above):
                    raise ValueError(f"moments of entry {self.entries[e]}: a cell without "
                                     "its coarser cell")


class KdeEstimates(NamedTuple):
    """The binned children of :meth:`SparseMoments.kde_estimates`: ``log_density[c, b]``
    the log density of stored cell c at grid bin b (bin widths included; 0 beyond the
    child's bins), ``smooth[c, b]`` its kernel-smoothed counts; per child j (in the order of
    ``numeric``) the bandwidth ``bandwidth[j]`` (bins), the pseudo-rows ``mixtures[j, L]``
    of prefix length L, the kernel's diagonal ``own[j, b]`` (the share of a row that stays
    in its own bin), the smoothed counts of all classes ``pooled[j, b]`` and their weight
    ``pooled_n[j]``, and the log bin widths ``log_width[j, b]``."""

    log_density: np.ndarray
    smooth: np.ndarray
    bandwidth: np.ndarray
    mixtures: np.ndarray
    own: np.ndarray
    pooled: np.ndarray
    pooled_n: np.ndarray
    log_width: np.ndarray


def check_budget(n_cells, other_bytes, max_table_bytes, n_grid=0):
    """Refuse (:class:`TableTooLargeError`) when ``n_cells`` stored cells, with their
    estimates (and with ``n_grid`` > 0 their binned counts, densities and smoothed counts,
    ``density="kde"``), and ``other_bytes`` exceed ``max_table_bytes`` (None: no limit)."""
    need = (CELL_BYTES + KDE_CELL_BYTES * int(n_grid)) * int(n_cells)
    if max_table_bytes is not None and need + other_bytes > max_table_bytes:
        raise TableTooLargeError(
            f"the moments of the Gaussian children ({n_cells} occurring cells, "
            f"{gib(need)} with their estimates) and the counts "
            f"({gib(other_bytes)}) would exceed max_table_bytes="
            f"{max_table_bytes}: use numeric='discretize', fewer parents, or raise "
            "max_table_bytes")


def _sum_by_key(keys, span, w, wv, wvv):
    """Increasing distinct ``keys`` and the (sum of w, of wv, of wvv) of each, every sum
    accumulated in row order (np.bincount); ``w`` None: one per row."""
    if span <= max(DIRECT_KEYS, 4 * keys.size):
        reached = np.flatnonzero(np.bincount(keys, minlength=0)) if keys.size else \
            np.zeros(0, np.int64)
        index, size = keys, span
    else:
        reached, index = np.unique(keys, return_inverse=True)
        index = index.ravel()
        size = reached.size
    out = np.empty((reached.size, 3))
    if keys.size == 0:
        return reached.astype(np.int64), out
    weight = np.bincount(index, minlength=size).astype(np.float64) if w is None else \
        np.bincount(index, weights=w, minlength=size)
    sel = reached if index is keys else slice(None)
    out[:, 0] = weight[sel]
    out[:, 1] = np.bincount(index, weights=wv, minlength=size)[sel]
    out[:, 2] = np.bincount(index, weights=wvv, minlength=size)[sel]
    return reached.astype(np.int64), out


def merge_cells(a, b):
    """Union of two lists of (codes, sums (cells, 3 or more: the binned counts after the
    sums)), entry by entry (the sums of a shared code added, ``a``'s first)."""
    out = []
    for (ka, sa), (kb, sb) in zip(a, b, strict=True):
        if kb.size == 0:
            out.append((ka, sa))
            continue
        if ka.size == 0:
            out.append((kb, np.zeros((0, sb.shape[1])) + sb))
            continue
        uniq, inverse = np.unique(np.concatenate([ka, kb]), return_inverse=True)
        inverse = inverse.ravel()
        both = np.concatenate([sa, sb])
        sums = np.empty((uniq.size, both.shape[1]))
        for col in range(both.shape[1]):
            sums[:, col] = np.bincount(inverse, weights=both[:, col], minlength=uniq.size)
        out.append((uniq, sums))
    return out


def _recode(codes, parents, old_sizes, new_sizes, k):
    """Codes ``cell * k + y`` of ``parents`` under ``old_sizes`` as codes under
    ``new_sizes`` (new values are appended to an attribute's extent)."""
    codes = np.asarray(codes, dtype=np.int64)
    y = codes % k
    rest = codes // k
    digits = []
    for p in parents[::-1]:
        digits.append(rest % int(old_sizes[p]))
        rest = rest // int(old_sizes[p])
    cell = np.zeros_like(codes)
    for p, digit in zip(parents, digits[::-1], strict=True):
        cell = cell * int(new_sizes[p]) + digit
    return cell * k + y


# --------------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def empty_cell(mu0, var0, kappa, floor):
    """(mean, variance) of a cell without rows, from the coarser cell's: the operations of
    :meth:`SparseMoments.estimates` (and of the dense layout's) with the moments 0."""
    n = 0.0
    mu0 = 0.0 + mu0
    var0 = 0.0 + var0
    xbar = mu0
    ss = max(0.0 - n * xbar * xbar, 0.0)
    denom = n + kappa
    mean = (0.0 + kappa * mu0) / denom
    var = (ss + kappa * var0 + n * kappa / denom * (xbar - mu0) ** 2) / denom
    if not var >= floor:  # np.maximum: NaN stays NaN
        var = var if math.isnan(var) else floor
    return mean, var


@njit(cache=True, inline="always")
def find_cells(codes, lo, hi, cell, k, node, t):
    """``node[t, y]``: the stored cell of (``cell``, y) among ``codes[lo:hi]``, or -1."""
    first = cell * k
    a, b = lo, hi
    while a < b:
        mid = (a + b) >> 1
        if codes[mid] < first:
            a = mid + 1
        else:
            b = mid
    for yy in range(k):
        node[t, yy] = -1
    while a < hi and codes[a] < first + k:
        node[t, codes[a] - first] = a
        a += 1


@njit(cache=True, inline="always")
def usable_prefix(xr, chain, n_levels, starts, cells, limits, node, removed):
    """The longest prefix L (0 .. ``n_levels``) of a child's ``chain`` of parents whose
    cells (row ``xr``'s parent values; ``node[t, y]`` of :func:`find_cells` for t = 1 .. L,
    ``starts[t]`` the first stored cell of prefix length t - 1) hold at least
    ``min_count`` rows once the weight ``removed`` (a held-out row's, 0 for none) is taken
    out; it stops at a missing parent.  ``cells`` is the stored cells' ``(codes, sums)``,
    ``limits`` ``(sizes, min_count, k)``."""
    codes, sums = cells
    sizes, min_count, k = limits
    level = 0
    cell = 0
    for t in range(n_levels):
        p = chain[t]
        xp = xr[p]
        if xp == 0:
            break
        cell = cell * sizes[p] + xp
        find_cells(codes, starts[t + 1], starts[t + 2], cell, k, node, t + 1)
        weight = -removed
        for yy in range(k):
            g = node[t + 1, yy]
            weight += sums[3 * g] if g >= 0 else 0.0
        if weight < min_count:
            break
        level = t + 1
    return level


@njit(cache=True, inline="always")
def cell_estimate(node, level, yy, mean, var, kappa, floor):
    """(mean, variance) of class yy at prefix ``level`` along ``node``: the deepest stored
    cell's estimates, drawn through the empty cells below it."""
    t = level
    while node[t, yy] < 0:
        t -= 1
    g = node[t, yy]
    m = mean[g]
    s2 = var[g]
    for _ in range(level - t):
        m, s2 = empty_cell(m, s2, kappa, floor)
    return m, s2


class FamilyGaussian(NamedTuple):
    """What :func:`gaussian_family_terms` reads of the Gaussian children of a family learner.

    Child j has the parents ``chain[j, :chain_len[j]]``; the stored cells of its moments
    given the first L of them are ``codes[level_start[j, L]:level_start[j, L + 1]]`` with
    the sums ``sums`` (weight, sum, sum of squares) and the estimates ``mean``, ``var``
    (:meth:`SparseMoments.estimates`, floors ``floors[j]``); ``sizes`` are the attributes'
    storage sizes, ``k`` the classes, ``kappa`` the prior's pseudo-rows and ``min_count``
    the least weight of a usable cell.  ``student``: score by the posterior predictive
    Student's t of the normal-inverse-gamma prior rather than the plug-in Gaussian.
    ``kde``: score by the binned densities ``log_density[cell, bin]``
    (:meth:`SparseMoments.kde_estimates`; the values are then the children's grid bins)."""

    chain: np.ndarray
    chain_len: np.ndarray
    level_start: np.ndarray
    codes: np.ndarray
    sums: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    floors: np.ndarray
    sizes: np.ndarray
    k: int
    kappa: float
    min_count: float
    student: bool
    kde: bool
    log_density: np.ndarray


@njit(cache=True)
def student_log_density(dv, s2, nu):
    """log of Student's t density at ``dv`` from its location, with squared scale
    ``s2 (nu + 1) / nu`` and ``nu`` degrees of freedom: the posterior predictive of a
    normal-inverse-gamma prior whose posterior variance estimate is ``s2`` after ``nu``
    (rows + pseudo-rows) (:func:`seminaive.tables.gaussian.normal_inverse_gamma_predictive`)."""
    scale2 = s2 * (nu + 1.0) / nu
    return (math.lgamma((nu + 1.0) / 2.0) - math.lgamma(nu / 2.0)
            - 0.5 * math.log(nu * math.pi * scale2)
            - 0.5 * (nu + 1.0) * math.log1p(dv * dv / (nu * scale2)))


@njit(parallel=True, cache=True)
def gaussian_family_terms(X, V, model, out):
    """Add log N(x_i; mean, var) (or, with ``model.student``, the Student-t predictive;
    with ``model.kde``, the binned density: ``V`` holds the grid bins) of every observed
    Gaussian child to ``out``.

    ``model`` is a :class:`FamilyGaussian`.  A row uses the longest prefix of a child's
    chain whose parent values are observed and whose cell holds at least ``min_count`` rows
    with the child observed (L = 0: the class alone); a class without a stored cell there
    takes the estimates of an empty cell (:func:`cell_estimate`), whose Student's t has
    ``kappa`` degrees of freedom (no rows), or the binned density of its deepest stored
    cell (an empty cell's estimate is its coarser cell's).
    """
    chain, chain_len, level_start = model.chain, model.chain_len, model.level_start
    codes, sums, mean, var, floors = model.codes, model.sums, model.mean, model.var, model.floors
    sizes, k, kappa, min_count, student = (model.sizes, model.k, model.kappa, model.min_count,
                                           model.student)
    kde, log_density = model.kde, model.log_density
    n_rows = X.shape[0]
    n_num = V.shape[1]
    log_2pi = math.log(2.0 * math.pi)
    width = level_start.shape[1]
    for r in prange(n_rows):
        node = np.empty((width, k), dtype=np.int64)
        for j in range(n_num):
            v = V[r, j]
            if math.isnan(v):
                continue
            start = level_start[j, 0]
            for yy in range(k):
                node[0, yy] = start + yy
            level = usable_prefix(X[r], chain[j], chain_len[j], level_start[j],
                                  (codes, sums), (sizes, min_count, k), node, 0.0)
            if kde:
                b = int(v)
                for yy in range(k):
                    t = level
                    while node[t, yy] < 0:
                        t -= 1
                    out[r, yy] += log_density[node[t, yy], b]
                continue
            for yy in range(k):
                m, s2 = cell_estimate(node, level, yy, mean, var, kappa, floors[j])
                dv = v - m
                if student:
                    g = node[level, yy]
                    nu = kappa + (sums[3 * g] if g >= 0 else 0.0)
                    out[r, yy] += student_log_density(dv, s2, nu)
                else:
                    out[r, yy] -= 0.5 * (log_2pi + math.log(s2) + dv * dv / s2)
