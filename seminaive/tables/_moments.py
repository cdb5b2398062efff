"""Moments of numeric attributes as Gaussian children of parent cells."""

import math

import numpy as np

from . import binned
from . import gaussian as gaussian_kernels

#: the variance of a Gaussian child is floored at (FLOOR_RATIO x its overall sd)^2
FLOOR_RATIO = 0.01


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
        self.grid_edges = None
        self.grid_bins = None
        self.bins = None

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

    def estimate_start(self, parents, child):
        """Where the estimates of an entry start in the arrays of :meth:`estimates`.

        Parameters
        ----------
        parents : tuple of int
            The entry's parent attributes (``()``: the class alone).
        child : int
            The entry's numeric attribute.

        Returns
        -------
        int
            The index, in the arrays of :meth:`estimates` (one entry per (cell, class)), of
            the entry's first cell and class.
        """
        return int(self.offsets[self.index[(tuple(parents), int(child))]]) // 3

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
        entries = gaussian_kernels.MomentEntries(self.parents, self.orders, self.column,
                                                 self.offsets, self.group_starts, self.sizes,
                                                 int(self.n_classes))
        gaussian_kernels.count_moments(X, np.ascontiguousarray(y, dtype=np.int64), w,
                                       weighted, values, entries, self.sums)
        if getattr(self, "bins", None) is not None:
            self._add_bins(X, np.asarray(y, dtype=np.int64), w if weighted else None, values)
        return self

    # ------------------------------------------------------------------ the binned counts
    @property
    def n_grid(self):
        """Slots per (cell, class) of the binned counts (the widest grid; 0: none)."""
        bins = getattr(self, "grid_bins", None)
        return 0 if bins is None else int(bins.max(initial=1))

    def attach_grid(self, edges, n_bins):
        """Also count every child on a fixed grid (``density="kde"``): ``edges[j,
        :n_bins[j] + 1]`` the (centred) bin edges of the j-th numeric attribute
        (:func:`seminaive.tables.binned.grid_edges`).  The counts per (cell, class, bin)
        are ``bins``, laid out as the moments with ``n_grid`` slots instead of 3."""
        edges, n_bins = binned.checked_grid(edges, n_bins, self.numeric.size)
        self.grid_edges, self.grid_bins = edges, n_bins
        self.bins = np.zeros(int(self.offsets[-1]) // 3 * self.n_grid, dtype=np.float64)
        return self

    def bins_block(self, e):
        """Binned counts of entry ``e``: shape (sizes of its parents..., k, n_grid)."""
        parents = self.entries[e][0]
        shape = [int(self.sizes[m]) for m in parents] + [self.n_classes, self.n_grid]
        g = self.n_grid
        return self.bins[self.offsets[e] // 3 * g:self.offsets[e + 1] // 3 * g].reshape(shape)

    def bin_codes(self, values):
        """The grid bin of every (centred) value, float with NaN where missing."""
        return binned.bin_of(values, self.grid_edges, self.grid_bins)

    def _add_bins(self, X, y, w, values):
        g, k = self.n_grid, self.n_classes
        codes = self.bin_codes(values)
        seen = ~np.isnan(codes)
        codes = np.where(seen, codes, 0).astype(np.int64)
        weight = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
        for q in range(self.group_starts.size - 1):
            first, last = int(self.group_starts[q]), int(self.group_starts[q + 1])
            cell = np.zeros(X.shape[0], dtype=np.int64)
            for p in self.entries[first][0]:
                cell = cell * self.sizes[p] + X[:, p]
            rest = (cell * k + y) * g
            for e in range(first, last):
                j = self.column[e]
                rows = seen[:, j]
                np.add.at(self.bins, self.offsets[e] // 3 * g + rest[rows] + codes[rows, j],
                          weight[rows])

    def kde_estimates(self):
        """Log densities of the binned children, shape (cells x classes of every entry,
        ``n_grid``) in the order of the moments' (cell, class) (``offsets // 3``), and the
        smoothing of every numeric attribute, ``(bandwidth, (m_0, m_1, ...))`` with m_l the
        pseudo-rows at parent order l (see :mod:`seminaive.tables.binned`): the class level
        mixes its smoothed counts towards those of all classes, a parent cell towards the
        mean of the estimates with one parent fewer (at the same class and parent values).
        The bandwidth and m_0 are chosen by the leave-one-out likelihood of the class-level
        estimates, then every m_l, order by order, by that of the estimates of order l
        (every row removed from its cell and from every coarser estimate it is counted in;
        :func:`~seminaive.tables.binned.choose_mixture`).  Slots beyond an attribute's
        bins hold 0."""
        if self.bins is None:
            raise ValueError("these moments keep no binned counts: attach_moments() and "
                             "attach_grid() first")
        g, k = self.n_grid, self.n_classes
        prob = np.zeros((self.sums.size // 3, g))
        column = {int(c): j for j, c in enumerate(self.numeric)}
        choice, loo = {}, {}

        def view(arr, e):
            parents = self.entries[e][0]
            shape = [int(self.sizes[m]) for m in parents] + [k, g]
            return arr[self.offsets[e] // 3:self.offsets[e + 1] // 3].reshape(shape)

        for c in self.numeric.tolist():
            e = self.index.get(((), c))
            if e is None:
                raise ValueError(f"no class-only moments of attribute {c}")
            nb = int(self.grid_bins[column[c]])
            counts = self.bins_block(e)[:, :nb]
            h, m = binned.choose_smoothing(counts)
            choice[c] = (h, [m])
            total = counts.sum(axis=0)
            n = total.sum()
            f0 = (binned.smoothed(total, h) / n if n > 0
                  else np.full(nb, 1.0 / nb))[None, :]
            view(prob, e)[..., :nb] = binned.mixed(counts, h, m, f0)
            own = np.diag(binned.kernel_matrix(nb, h))
            f0_loo = np.maximum(binned.smoothed(total, h) - own, 0.0) / max(n - 1.0, 1e-300)
            loo[e] = binned.mixed_loo(counts, h, m, f0_loo[None, :])
        orders = {}
        for e, (parents, c) in enumerate(self.entries):
            if parents:
                orders.setdefault((len(parents), c), []).append(e)
        for order, c in sorted(orders):
            members = orders[(order, c)]
            nb = int(self.grid_bins[column[c]])
            h = choice[c][0]
            cells = []
            for e in members:
                parents = self.entries[e][0]
                counts = self.bins_block(e)[..., :nb]
                f0 = np.zeros(counts.shape)
                f0_loo = np.zeros(counts.shape)
                for d in range(len(parents)):
                    sub = self.index[(parents[:d] + parents[d + 1:], c)]
                    f0 = f0 + np.expand_dims(view(prob, sub)[..., :nb], d)
                    f0_loo = f0_loo + np.expand_dims(loo[sub], d)
                cells.append((e, counts, f0 / len(parents), f0_loo / len(parents)))
            m = binned.choose_mixture([(counts, f0_loo) for _, counts, _, f0_loo in cells], h)
            choice[c][1].append(m)
            for e, counts, f0, f0_loo in cells:
                view(prob, e)[..., :nb] = binned.mixed(counts, h, m, f0)
                loo[e] = binned.mixed_loo(counts, h, m, f0_loo)
            # the leave-one-out estimates of order - 1 are no longer needed
            for e in [e for e in loo if len(self.entries[e][0]) == order - 1
                      and self.entries[e][1] == c]:
                del loo[e]
        choice = {c: (h, tuple(ms)) for c, (h, ms) in choice.items()}
        log_width = binned.log_widths(self.grid_edges, self.grid_bins)
        out = np.log(np.maximum(prob, 1e-300))
        for e, (_, c) in enumerate(self.entries):
            j = column[c]
            nb = int(self.grid_bins[j])
            rows = slice(self.offsets[e] // 3, self.offsets[e + 1] // 3)
            out[rows, :nb] -= log_width[j, :nb]
            out[rows, nb:] = 0.0
        return out, choice

    def grow(self, sizes):
        """Re-lay the blocks for enlarged attribute extents (new values appended)."""
        old = [self.block(e).copy() for e in range(len(self.entries))]
        old_bins = (None if self.bins is None
                    else [self.bins_block(e).copy() for e in range(len(self.entries))])
        self._layout(sizes)
        self.sums = np.zeros(int(self.offsets[-1]), dtype=np.float64)
        for e, block in enumerate(old):
            self.block(e)[tuple(slice(0, n) for n in block.shape)] = block
        if old_bins is not None:
            self.bins = np.zeros(int(self.offsets[-1]) // 3 * self.n_grid, dtype=np.float64)
            for e, block in enumerate(old_bins):
                self.bins_block(e)[tuple(slice(0, n) for n in block.shape)] = block
        return self

    def merge(self, other):
        """Add the sums (and binned counts) of a table with the same entries."""
        self.sums += other.sums
        if self.bins is not None or other.bins is not None:
            if self.bins is None or other.bins is None or not np.array_equal(
                    np.nan_to_num(self.grid_edges), np.nan_to_num(other.grid_edges)):
                raise ValueError("binned counts on different grids cannot be merged")
            self.bins += other.bins
        return self

    def copy(self):
        new = object.__new__(MomentTable)
        new.__dict__.update(self.__dict__)
        new.sums = self.sums.copy()
        if self.bins is not None:
            new.bins = self.bins.copy()
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

    def estimates(self, kappa, floor_ratio=FLOOR_RATIO, coarser=None, class_prior=False):
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

        With ``class_prior``, the class level is a normal-inverse-gamma posterior too: its
        moments shrink towards the pooled moments of all classes (mu0, var0) with ``kappa``
        pseudo-rows, by the formula above (the prior of the Student's t children).
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
            if not parents and class_prior:
                mu0 = np.array([pooled[c][0] for c in children])[:, None]
                var0 = np.array([pooled[c][1] for c in children])[:, None]
                xbar = np.where(n > 0, s1 / np.where(n > 0, n, 1.0), mu0)
                ss = np.maximum(s2 - n * xbar * xbar, 0.0)
                denom = n + kappa
                m_est = (s1 + kappa * mu0) / denom
                v_est = (ss + kappa * var0 + n * kappa / denom * (xbar - mu0) ** 2) / denom
            elif not parents:  # the class alone: maximum likelihood, or all classes
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
        state = {"numeric": self.numeric, "entries": entries, "sums": self.sums}
        if self.bins is not None:
            state.update({"grid_edges": self.grid_edges, "grid_bins": self.grid_bins,
                          "bins": self.bins})
        return state

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
        if "bins" in state:
            table.attach_grid(state["grid_edges"], state["grid_bins"])
            counts = np.asarray(state["bins"], dtype=np.float64)
            if counts.shape != table.bins.shape or not np.all(np.isfinite(counts)):
                raise ValueError(f"binned count array has {counts.size} entries, the layout "
                                 f"needs {table.bins.size} finite values")
            if np.any(counts < -1e-6 * max(1.0, float(np.abs(counts).max(initial=0.0)))):
                raise ValueError("binned counts contain negative values")
            table.bins[:] = counts
        return table
