"""The memory of the tables, computed exactly before anything is allocated, and the budget
check that refuses a table larger than ``max_table_bytes``."""

from math import comb

import numpy as np

from ..exceptions import TableTooLargeError
from ._layout import check_parents


def _elementary(sizes, max_order):
    """e_d = sum over the combinations of order d of the product of their sizes (the
    elementary symmetric polynomials), d = 0..max_order, as floats."""
    elem = np.zeros(max_order + 1)
    elem[0] = 1.0
    for s in np.asarray(sizes, dtype=np.float64):
        elem[1:] = elem[1:] + elem[:-1] * s
    return elem


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


def _format_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"


def check_table_budget(n_values, n_classes, max_order, max_table_bytes, what="this model",
                       parents=None, occupied=None, options=None, counts_only=False):
    """Raise :class:`TableTooLargeError` if the tables would exceed the budget; ``options``
    (None: AnDE's) says what would make them fit.  ``counts_only``: the learner never
    builds the log tables (nor an index beyond the counts' offsets): only the counts are
    checked, the bytes its other budget checks count for the table."""
    estimate = estimate_table_bytes(n_values, n_classes, max_order, parents=parents,
                                    occupied=occupied)
    if counts_only:
        estimate = dict(estimate, total=estimate["counts"])
    if max_table_bytes is not None and estimate["total"] > max_table_bytes:
        a = len(n_values)
        select = ""
        if parents is None and occupied is None and 3 <= max_order <= a:
            # AnDE of n >= 2: memory="select" keeps the tables of A(n-1)DE and the parents
            # most informative about the class that fit
            lower = estimate_table_bytes(n_values, n_classes, max_order, parents=[])["total"]
            if lower <= max_table_bytes:
                select = ("To fit it in the budget, pass memory=\"select\" (AnDE, A3DE): the "
                          "parents are drawn from the attributes most informative about the "
                          "class, within max_table_bytes. Otherwise use")
        raise TableTooLargeError(
            f"The frequency tables of {what} would need {_format_bytes(estimate['total'])} "
            f"({a} attributes, {n_classes} classes, combinations of up to {max_order} "
            f"attributes, mean {np.mean(n_values):.1f} values per attribute as coded), more than "
            f"max_table_bytes={_format_bytes(max_table_bytes)}. {select or 'Use'} "
            f"{options or 'a smaller n, select fewer attributes, discretise into fewer bins'}"
            ", or raise max_table_bytes if the machine has the memory."
        )
    return estimate


def estimate_combination_bytes(combinations, n_values, n_classes):
    """Exact bytes of the count array of a :class:`CombinationTable`, without allocating."""
    sizes = np.asarray(n_values, dtype=np.float64) + 1.0
    cells = sum(float(np.prod(sizes[list(c)])) for c in combinations)
    return int(8.0 * n_classes * cells)
