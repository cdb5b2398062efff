"""Subsumption resolution (Zheng & Webb 2006; Zheng, Webb, Suraweera & Zhu 2012): lazy
and eager detection of generalisations."""

import numpy as np

from ...kernels._jit import njit, prange

# --------------------------------------------------------------------------------------------
# Subsumption resolution (Zheng & Webb 2006; Zheng, Webb, Suraweera & Zhu 2012)
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _value_count(counts, offsets, k, i, v):
    """#(x_i = v): training frequency of one attribute value (order-1 block, all classes)."""
    base = offsets[1 + i] + v * k
    total = 0.0
    for yy in range(k):
        total += counts[base + yy]
    return total


@njit(cache=True, inline="always")
def _pair_count(counts, offsets, ext_first, sizes, k, i, vi, j, vj):
    """#(x_i = vi, x_j = vj) for i != j (pair block, all classes)."""
    if i < j:
        g = ext_first[1 + i] + (j - i - 1)
        cell = vi * sizes[j] + vj
    else:
        g = ext_first[1 + j] + (i - j - 1)
        cell = vj * sizes[i] + vi
    base = offsets[g] + cell * k
    total = 0.0
    for yy in range(k):
        total += counts[base + yy]
    return total


@njit(cache=True, inline="always")
def _generalises(count_u, count_uv, threshold, ratio):
    """Is v a (near-)generalisation of u?  #(u) >= threshold and #(u, v) >= ratio * #(u)
    (ratio 1: #(u, v) = #(u), with a relative tolerance of 1e-9 for fractional weights)."""
    if count_u < threshold or count_u <= 0.0:
        return False
    return count_uv >= ratio * count_u - 1e-9 * max(count_u, 1.0)


@njit(cache=True)
def _row_resolution_order(X, r, counts, offsets, k, deleted):
    """Row ``r`` of ``X`` (int64 copy) with nothing deleted yet, and its observed attributes
    in resolution order (:func:`_resolution_order`)."""
    a = X.shape[1]
    xr = np.empty(a, dtype=np.int64)
    for i in range(a):
        xr[i] = X[r, i]
        deleted[r, i] = False
    present = np.empty(a, dtype=np.int64)
    keys = np.empty(a)
    return xr, _resolution_order(xr, counts, offsets, k, present, keys)


@njit(cache=True)
def _resolution_order(xr, counts, offsets, k, present, keys):
    """Observed attributes of the row sorted by (value frequency, attribute index)."""
    a = xr.shape[0]
    n = 0
    for i in range(a):
        if xr[i] != 0:
            present[n] = i
            keys[n] = _value_count(counts, offsets, k, i, xr[i])
            n += 1
    order = np.argsort(keys[:n], kind="mergesort")
    out = np.empty(n, dtype=np.int64)
    for t in range(n):
        out[t] = present[order[t]]
    return out


@njit(parallel=True, cache=True)
def lazy_subsumption(X, table, threshold, ratio, deleted):
    """Mark in ``deleted`` the attribute values that subsumption resolution removes.

    Values are visited from the most specific (lowest frequency; ties: lower attribute
    index); a visited value that is not deleted deletes every later value of the row that
    is a (near-)generalisation of it (see :func:`_generalises`).  With ratio 1 this deletes
    exactly the generalisations of the row's values, keeping the lowest-index one of values
    that generalise each other.  ``table`` is a :class:`~seminaive.tables.TableLayout`.
    """
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = table
    n_rows, a = X.shape
    for r in prange(n_rows):
        xr, order = _row_resolution_order(X, np.int64(r), counts, offsets, k, deleted)
        n = order.shape[0]
        for t in range(n):
            u = order[t]
            if deleted[r, u]:
                continue
            cu = _value_count(counts, offsets, k, u, xr[u])
            if cu < threshold:
                continue
            for t2 in range(t + 1, n):
                v = order[t2]
                if deleted[r, v]:
                    continue
                cuv = _pair_count(counts, offsets, ext_first, sizes, k, u, xr[u], v, xr[v])
                if _generalises(cu, cuv, threshold, ratio):
                    deleted[r, v] = True


@njit(cache=True)
def generalisation_graph(table, value_first, threshold, ratio):
    """Eager SR: every (near-)generalisation relation between attribute values, as a CSR
    graph over flat value ids ``value_first[i] + v - 1``: ``indices[indptr[u]:indptr[u+1]]``
    are the values that generalise u (``table``: a :class:`~seminaive.tables.TableLayout`)."""
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = table
    a = sizes.shape[0]
    n_total = value_first[a]
    indptr = np.zeros(n_total + 1, dtype=np.int64)
    edges = []
    for i in range(a):
        for vi in range(1, sizes[i]):
            u = value_first[i] + vi - 1
            cu = _value_count(counts, offsets, k, i, vi)
            if cu >= threshold and cu > 0.0:
                for j in range(a):
                    if j == i:
                        continue
                    for vj in range(1, sizes[j]):
                        cuv = _pair_count(counts, offsets, ext_first, sizes, k, i, vi, j, vj)
                        if _generalises(cu, cuv, threshold, ratio):
                            edges.append(value_first[j] + vj - 1)
            indptr[u + 1] = len(edges)
    indices = np.empty(len(edges), dtype=np.int64)
    for t in range(len(edges)):
        indices[t] = edges[t]
    return indptr, indices


@njit(parallel=True, cache=True)
def eager_subsumption(X, table, value_first, value_attr, indptr, indices, deleted):
    """Subsumption resolution of rows with a precomputed generalisation graph; the same
    visiting order and decisions as :func:`lazy_subsumption`."""
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = table
    n_rows, a = X.shape
    for r in prange(n_rows):
        xr, order = _row_resolution_order(X, np.int64(r), counts, offsets, k, deleted)
        n = order.shape[0]
        position = np.full(a, -1, dtype=np.int64)
        for t in range(n):
            position[order[t]] = t
        for t in range(n):
            u = order[t]
            if deleted[r, u]:
                continue
            uid = value_first[u] + xr[u] - 1
            for e in range(indptr[uid], indptr[uid + 1]):
                vid = indices[e]
                v = value_attr[vid]
                if xr[v] == vid - value_first[v] + 1 and position[v] > t:
                    deleted[r, v] = True
