"""Numba kernels shared by every learner: counting, smoothing, scoring, encoding.

Conventions shared by all kernels
---------------------------------
* ``X`` holds *storage codes*: 0 means "missing / left out", ``1 .. n_values`` are the values.
  ``sizes[i] = n_values[i] + 1`` is the extent of attribute ``i`` in a table block.
* Combinations of distinct attributes are numbered globally, order by order, each order in
  lexicographic order (see :mod:`seminaive.tables`).  ``combos[g, :d]`` are the members of
  combination ``g`` of order ``d`` (padding ``-1``), ``offsets[g]`` the start of its block in
  the flat ``counts`` array.
* A count block of order ``d`` has shape ``(sizes[c0], ..., sizes[c_{d-1}], k)`` in C order:
  the class is the fastest axis, so the ``k`` class counts of one cell are adjacent.
* A log-conditional block of order ``d`` has shape ``(cells, d, k)``: for every cell, the log
  probability of member ``p`` given the other members and the class, for every class.

The kernels here are grouped by concern: :mod:`.smoothing`, :mod:`.encoding`,
:mod:`.statistics`, :mod:`.losses`, and the hierarchical estimates :mod:`.hdp` and :mod:`.hls`.
The kernels that compute on a table's layout (counting into it, scoring rows from it, its
parent-major copy and its Gaussian children) live with the layout in :mod:`seminaive.tables`
(``seminaive.tables.counting``, ``.scoring``, ``.wide``, ``.gaussian``): no module outside
that package reads the layout.  Hot loops of one learner family live in that
family's private kernels module (``seminaive.structure._kernels``, ``seminaive.weighting._kernels``,
``seminaive.selection._kernels``), built on the estimates of :mod:`.smoothing`.

numba is imported at the first use of a kernel, not at import: the kernel modules take
``njit`` and ``prange`` from :mod:`._jit`, which makes every kernel's dispatcher then, after
setting up the per-user compile cache (:mod:`._cache`).
"""

from .encoding import (
                       bin_columns,
                       column_medians,
                       encode_float_columns,
                       encode_int_columns,
                       float_column_presence,
                       float_column_ranges,
                       int_column_presence,
                       int_column_ranges,
                       int_scan_codes,
                       recode_small,
)
from .smoothing import (
                       log_conditional_estimate,
                       log_conditional_tables,
                       log_joint_estimate,
                       log_joint_tables,
)
from .statistics import conditional_mutual_information

__all__ = [
    "conditional_mutual_information", "encode_int_columns", "int_column_presence",
    "int_column_ranges", "int_scan_codes", "recode_small", "bin_columns", "column_medians",
    "encode_float_columns", "float_column_presence", "float_column_ranges",
    "log_conditional_estimate", "log_conditional_tables", "log_joint_estimate",
    "log_joint_tables",
]
