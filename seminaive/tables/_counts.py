"""What every count table shares: the block layout, counting, growing and the queries."""

import numpy as np

from . import counting as counting_kernels
from ._layout import TableLayout

#: rows per block in the counting kernels: a block's prefix codes (int64) stay in L2 while
#: each combination's histogram stays in L1
COUNT_BLOCK_ROWS = 16_384


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
        """The arrays of the table bundled for kernels.

        Returns
        -------
        TableLayout
            The table's own arrays (no copy), to hand to a kernel as one argument.
        """
        return TableLayout(self.counts, self.offsets, self.combos, self.orders, self.sizes,
                           self.n_classes, getattr(self, "order_first", None),
                           getattr(self, "ext_first", None), getattr(self, "sub_index", None))

    def block_start(self, g):
        """Start of the count block of combination number ``g`` in the flat counts.

        Parameters
        ----------
        g : int
            Global number of the combination.

        Returns
        -------
        int
            The index of the block's first count: cell ``c`` and class ``y`` of the block
            are at ``block_start(g) + c * n_classes + y``.
        """
        return int(self.offsets[g])

    # -------------------------------------------------------------------- installing counts
    def install_counts(self, counts, start=0, *, n_rows=None, copy=True):
        """Replace counts with counts made elsewhere (a first pass, another layout).

        The caches derived from the counts (log tables and the like) are dropped.

        Parameters
        ----------
        counts : array-like of float
            The new values of ``counts[start:start + len(counts)]`` of the flat counts
            (the layout of :meth:`layout`).
        start : int, default=0
            Where the values go in the flat counts.
        n_rows : float, optional
            The (weighted) number of rows the counts hold; unchanged when None.
        copy : bool, default=True
            With False and counts of the whole table (``start=0``, the same size, float64),
            the table takes the array itself instead of copying it (the caller must not
            change it afterwards).

        Returns
        -------
        self
        """
        start = int(start)
        if not copy and start == 0 and isinstance(counts, np.ndarray) \
                and counts.dtype == np.float64 and counts.shape == self.counts.shape:
            self.counts = counts
        else:
            counts = np.asarray(counts, dtype=np.float64).ravel()
            self._check_span(counts, start)
            self.counts[start:start + counts.size] = counts
        if n_rows is not None:
            self.n_rows = float(n_rows)
        self._changed()
        return self

    def add_counts(self, counts, start=0):
        """Add counts made elsewhere (e.g. blocks counted in another pass over the data).

        The caches derived from the counts are dropped.

        Parameters
        ----------
        counts : array-like of float
            Added to ``counts[start:start + len(counts)]`` of the flat counts.
        start : int, default=0
            Where the values go in the flat counts.

        Returns
        -------
        self
        """
        counts = np.asarray(counts, dtype=np.float64).ravel()
        start = int(start)
        self._check_span(counts, start)
        self.counts[start:start + counts.size] += counts
        self._changed()
        return self

    def _check_span(self, counts, start):
        if start < 0 or start + counts.size > self.counts.size:
            raise ValueError(f"{counts.size} counts from index {start} do not fit the "
                             f"table's {self.counts.size} counts")

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
        counting_kernels.regrid(old_counts, old_offsets, old_sizes, self.counts, self.offsets,
                       self.sizes, self.combos, self.orders, self.n_classes)
        if getattr(self, "compact", False):
            self._grow_compact(old_sizes)
        if getattr(self, "moments", None) is not None:
            self.moments.grow(self.sizes)
        self._changed()
        return self
