"""Counts of an explicit list of attribute combinations (e.g. the parent families of KDB)."""

import numpy as np

from ..exceptions import TableTooLargeError
from . import counting as counting_kernels
from ._budget import _format_bytes, estimate_combination_bytes
from ._counts import COUNT_BLOCK_ROWS, _CountTable


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
            counting_kernels.count_order_any(X, y, w, weighted, combos, offsets, self.sizes,
                                    self.n_classes, self.counts, COUNT_BLOCK_ROWS)
