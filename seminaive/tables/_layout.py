"""Where every count of a table lives: the combinations of attributes by order, their
global numbering and extension index, the storage codes, and the layout bundle the numba
kernels take (:class:`TableLayout`)."""

from typing import NamedTuple

import numpy as np


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


class TableLayout(NamedTuple):
    """The arrays that locate every count of a table, bundled for the numba kernels.

    A learner passes ``table.layout()`` to its private kernels as one argument and never
    reads its layout arrays itself.  A kernel takes the bundle apart by position, in the
    order of the fields::

        counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = layout

    ``order_first``, ``ext_first`` and ``sub_index`` are None for a
    :class:`CombinationTable`.  The fields are the table's own arrays (no copy): a kernel
    must not write them.

    Attributes
    ----------
    counts : ndarray of float64
        The flat counts, every combination's block (sizes of its members..., k) in C order.
    offsets : ndarray of int64
        Start of each combination's block in ``counts``, and one more entry at the end.
    combos : ndarray of int64, shape (n_combinations, width)
        The members of each combination, padded with -1.
    orders : ndarray of int64
        Number of members of each combination.
    sizes : ndarray of int64
        ``n_values + 1`` per attribute (index 0: missing).
    n_classes : int
        Number of classes k.
    order_first : ndarray of int64 or None
        Global index of the first combination of each order, and one more entry at the end.
    ext_first : ndarray of int64 or None
        Global index of each combination's first extension (the combination and one more
        member, larger than its last one); -1 where the extensions are not consecutive.
    sub_index : ndarray of int64 or None
        ``sub_index[h, p]``: global index of combination h without its member p (-1: not
        counted).
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
