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

The package is split by concern, and every name is imported from here:

- ``_layout``: combinations by order, their numbering, storage codes and
  :class:`TableLayout`, the bundle of arrays the kernels take;
- ``_budget``: the exact memory of the tables and the ``max_table_bytes`` check;
- ``_counts``: what every count table shares (counting, growing, the query API);
- ``_frequency``: :class:`FrequencyTable` and its log-probability tables;
- ``_moments``: :class:`MomentTable`, moments of numeric attributes;
- ``_combination``: :class:`CombinationTable`, counts of a list of combinations.

Learners use the tables through their methods only (see the query API of
:class:`FrequencyTable`): they never read or write the layout arrays themselves.
"""

from ._budget import _format_bytes as _format_bytes  # for the learners' error messages
from ._budget import check_table_budget, estimate_combination_bytes, estimate_table_bytes
from ._combination import CombinationTable
from ._counts import COUNT_BLOCK_ROWS, _CountTable
from ._frequency import (
    TABLE_DTYPES,
    CompactCounter,
    FrequencyTable,
    LogTables,
    ParentMajorTables,
)
from ._layout import TableLayout, check_parents, storage_codes
from ._moments import FLOOR_RATIO, MomentTable

__all__ = [
    "COUNT_BLOCK_ROWS",
    "FLOOR_RATIO",
    "TABLE_DTYPES",
    "CombinationTable",
    "CompactCounter",
    "FrequencyTable",
    "LogTables",
    "MomentTable",
    "ParentMajorTables",
    "TableLayout",
    "check_parents",
    "check_table_budget",
    "estimate_combination_bytes",
    "estimate_table_bytes",
    "storage_codes",
]

# pickles and the documentation name the classes by their public path, as before the split
for _cls in (CombinationTable, CompactCounter, FrequencyTable, LogTables, MomentTable,
             ParentMajorTables, TableLayout, _CountTable):
    _cls.__module__ = __name__
del _cls
