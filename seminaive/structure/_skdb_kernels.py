"""Numba kernel of selective KDB (Martínez, Webb, Chen & Zaidi 2016): the leave-one-out loss
of every model of the nested space in one pass.

The space: attributes ranked by decreasing I(X_i; Y); every attribute has a list of up to K
candidate parents (higher-ranked attributes by decreasing I(X_i; X_j | Y)); model (k, s) keeps
the top-s attributes, each with the first min(k, rank) of its candidates as parents.  The
*prefix families* (x_i, first j candidates, y), j = 1..K, are the levels of attribute i's
count tree over its candidates (:mod:`._sparse`).

For a training row of weight w the held-out amount is u = min(w, 1) and its loss counts w times
(as in :func:`._kernels._row_removal`); u is subtracted from every count the row added, so
the estimates are those of the tables counted without the row (the structure stays the one
learnt from all rows, as in Chen et al. 2014, §3.3).  Estimates, missing parents and
``min_count`` follow :func:`._sparse.sparse_family_scores` exactly.

Without a Gaussian child the rows are visited sorted by their codes (:func:`_loo_rows`):
an attribute reuses the tree path and counts of the previous row when the two share its
value and leading candidates' values, and the losses are summed in row order afterwards,
so the sums are those of the row-by-row kernel (:func:`_loo_blocks`) bit for bit.  That
pass walks every attribute's count tree merged over the classes (:func:`class_index`), so
a row's path costs one search per candidate, not one per candidate and class; the merged
nodes are packed so that a visit reads few cache lines (:func:`_pack_members`), and the
walk stops at the first node below which no node keeps ``min_count`` rows besides the
held-out row (the levels below it fall back to P(x_i | y) whatever their counts).
"""

import math
import threading
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from ..kernels._jit import get_num_threads, njit
from ..kernels._threads import NO_PARFORS, even_parts, parallel_calls
from ..kernels.losses import LOSS_ZERO_ONE, loss_from_terms, scaled_row_loss
from ..kernels.smoothing import (
    log_conditional_estimate,
    log_joint_estimate,
    pseudo_counts,
)
from ..tables.gaussian import (
    _as_gaussian,
    _shrunk,
    class_level_without_row,
    pooled_without_row,
    student_log_pdf,
)
from ._kernels import _row_removal
from ._moments import usable_prefix
from ._sparse import find_child, tree_sums

_LOG_2PI = math.log(2.0 * math.pi)
#: the leave-one-out scores' range (:func:`_loo_blocks`): every class's product is scaled
#: by _SCALE when all of them fall below _TINY; a class below _FLOOR keeps the rest of its
#: scale as a logarithm, as does a factor below _SPLIT (powers of two: exact)
_SCALE = 2.0 ** 400
_TINY = 2.0 ** -400
_FLOOR = 2.0 ** -800
_LOG_SCALE = 400.0 * math.log(2.0)
_SPLIT = 2.0 ** -200
_LOG_SPLIT = 200.0 * math.log(2.0)


class Buffers:
    """Arrays that one thread's leave-one-out passes reuse from pass to pass (ESKDB's
    members, one after another): :meth:`take` hands out a view of an array kept under a
    name, allocated afresh only when a pass needs more than it holds, so that the
    members after the first write into pages already mapped instead of fresh ones.  The
    views' contents are whatever the last pass left: every user writes before it
    reads."""

    def __init__(self):
        self._arrays = {}

    def take(self, name, size, dtype):
        """A view of ``size`` items of the array kept under ``name`` (grown by a quarter
        more than asked when too small)."""
        size = int(size)
        held = self._arrays.get(name)
        if held is None or held.size < size or held.dtype != np.dtype(dtype):
            held = np.empty(max(size + size // 4, 1), dtype=dtype)
            self._arrays[name] = held
        return held[:size]


#: the buffers of the passes on this thread (:meth:`BufferPool.in_use`), if any
_current = threading.local()


class BufferPool:
    """:class:`Buffers` per thread for the leave-one-out passes of several models (ESKDB's
    members, run on a pool of threads): within :meth:`in_use`, :func:`nested_kdb_loo`
    on the calling thread takes its scratch arrays from that thread's buffers.  The
    buffers live as long as the pool (one pass over a chunk)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._spaces = {}

    @contextmanager
    def in_use(self):
        """Let the passes of the calling thread reuse its buffers until the block ends."""
        key = threading.get_ident()
        with self._lock:
            space = self._spaces.get(key)
            if space is None:
                space = self._spaces[key] = Buffers()
        before = getattr(_current, "buffers", None)
        _current.buffers = space
        try:
            yield space
        finally:
            _current.buffers = before


@njit(cache=True, inline="always")
def _row_path(xr, trees, i, chain, n_cand, sizes, k, path):
    """The nodes of attribute i's count tree along the row's parent values: ``path[y, t]``
    the node of (y, first t candidates) (-1: absent), for t up to the first missing
    candidate, which is returned."""
    observed = 0
    while observed < n_cand and xr[chain[observed]] != 0:
        observed += 1
    for yy in range(k):
        g = find_child(trees.code, trees.first_child, trees.n_children, trees.root[i], yy)
        path[yy, 0] = g
        for t in range(observed):
            if g >= 0:
                p = chain[t]
                g = find_child(trees.code, trees.first_child, trees.n_children, g,
                               trees.code[g] * sizes[p] + xr[p])
            path[yy, t + 1] = g
    return observed


@njit(cache=True, nogil=True)
def node_sums(trees, sizes, node_freq, node_den):
    """Every node's count of rows (``node_freq``, the child's missing slot included) and of
    rows with the child observed (``node_den``), summed in the order
    :func:`._sparse.tree_sums` sums them; the trees are those of every attribute, tree i
    from ``root[i]`` to the next root."""
    a = trees.root.size
    n_nodes = trees.code.size
    for i in range(a):
        end = trees.root[i + 1] if i + 1 < a else n_nodes
        V = sizes[i]
        for g in range(trees.root[i], end):
            off = trees.value_off[g]
            freq = 0.0
            den = 0.0
            for v in range(V):
                cnt = trees.values[off + v]
                freq += cnt
                if v >= 1:
                    den += cnt
            node_freq[g] = freq
            node_den[g] = den


class ClassIndex(NamedTuple):
    """The count trees of every attribute merged over the classes (:func:`class_index`):
    node q of the merged tree is a prefix (first t candidates' values) that rows of some
    class have, ``value[q]`` its last candidate's value (-1 at level 0, no candidate),
    its children ``first[q] .. first[q] + n_children[q] - 1`` (by increasing value); its
    ``n_members[q]`` members from ``member_start[q]`` are the count tree's nodes of that
    prefix, one per class that has it, by increasing class (``member_class``,
    ``member_node``); ``root[i]``: attribute i's level 0 (its members: the class nodes)."""

    first: np.ndarray
    n_children: np.ndarray
    value: np.ndarray
    member_start: np.ndarray
    n_members: np.ndarray
    member_class: np.ndarray
    member_node: np.ndarray
    root: np.ndarray


def class_index(trees, candidates, sizes, buffers=None):
    """The :class:`ClassIndex` of ``trees`` (a :class:`._sparse.TreeBundle`, tree i over
    the candidates ``candidates[i]``), its arrays of the merged trees' sizes (views of
    ``buffers``' arrays, a :class:`Buffers`, when given)."""
    if buffers is None:
        buffers = Buffers()
    a = trees.root.size
    n_nodes = trees.code.size
    cap = n_nodes + a
    arrays = ClassIndex(*[buffers.take(name, cap, np.int64) for name in
                          ("first", "n_children", "value", "member_start", "n_members")],
                        buffers.take("member_class", max(n_nodes, 1), np.int64),
                        buffers.take("member_node", max(n_nodes, 1), np.int64),
                        np.zeros(a, np.int64))
    nq, nm = _fill_class_index(trees, candidates, sizes, arrays,
                               buffers.take("level", cap, np.int64))
    return ClassIndex(*[x[:nq] for x in arrays[:5]], arrays.member_class[:nm],
                      arrays.member_node[:nm], arrays.root)


@njit(cache=True, nogil=True)
def _fill_class_index(trees, candidates, sizes, index, level):
    """Fill the :class:`ClassIndex` ``index`` (arrays of at least its size, their
    contents ignored) breadth first: a merged node's children gather its members'
    children by value, the members of each in class order (as its own members are);
    ``level`` is scratch space of ``index.first``'s size.  Returns the numbers of
    merged nodes and of members written."""
    code, first_child, n_children = trees.code, trees.first_child, trees.n_children
    first, n_kids, value = index.first, index.n_children, index.value
    m_start, m_count, m_class, m_node = index.member_start, index.n_members, \
        index.member_class, index.member_node
    a = trees.root.size
    width = candidates.shape[1]
    top = 1
    for i in range(a):
        for t in range(width):
            if candidates[i, t] >= 0:
                top = max(top, sizes[candidates[i, t]])
    count = np.zeros(top, dtype=np.int64)
    slot = np.zeros(top, dtype=np.int64)
    seen = np.empty(top, dtype=np.int64)
    nq = 0
    nm = 0
    for i in range(a):
        root = trees.root[i]
        q0 = nq
        nq += 1
        index.root[i] = q0
        value[q0] = -1
        level[q0] = 0
        m_start[q0] = nm
        for c in range(first_child[root], first_child[root] + n_children[root]):
            m_class[nm] = code[c]
            m_node[nm] = c
            nm += 1
        m_count[q0] = nm - m_start[q0]
        head = q0
        while head < nq:
            q = head
            head += 1
            t = level[q]
            first[q] = nq
            n_kids[q] = 0
            if t >= width or candidates[i, t] < 0:
                continue
            s = sizes[candidates[i, t]]
            n_seen = 0
            for e in range(m_start[q], m_start[q] + m_count[q]):
                g = m_node[e]
                for c in range(first_child[g], first_child[g] + n_children[g]):
                    x = code[c] - code[g] * s
                    if count[x] == 0:
                        seen[n_seen] = x
                        n_seen += 1
                    count[x] += 1
            if n_seen == 0:
                continue
            if n_seen > 32:
                seen[:n_seen] = np.sort(seen[:n_seen])
            else:  # (an insertion sort: few values, often already in order)
                for d in range(1, n_seen):
                    x = seen[d]
                    e = d
                    while e > 0 and seen[e - 1] > x:
                        seen[e] = seen[e - 1]
                        e -= 1
                    seen[e] = x
            for d in range(n_seen):
                x = seen[d]
                value[nq] = x
                level[nq] = t + 1
                m_start[nq] = nm
                m_count[nq] = count[x]
                slot[x] = nm
                nm += count[x]
                count[x] = 0
                nq += 1
            n_kids[q] = n_seen
            for e in range(m_start[q], m_start[q] + m_count[q]):
                g = m_node[e]
                yy = m_class[e]
                for c in range(first_child[g], first_child[g] + n_children[g]):
                    x = code[c] - code[g] * s
                    m_class[slot[x]] = yy
                    m_node[slot[x]] = c
                    slot[x] += 1
    return nq, nm


#: the low 32 bits of a packed field of :func:`_pack_members`
_LOW = 0xFFFFFFFF
#: the fields of a merged node in :func:`_pack_members`'s ``nav``
_NAV = 5


@njit(cache=True, nogil=True)
def _pack_members(index, node_freq, node_den, value_off, values, sizes, nav, rec):
    """The :class:`ClassIndex` ``index`` packed for :func:`_loo_rows`, what a visit of a
    merged node reads side by side (fewer cache misses).  ``nav[5 q: 5 q + 5]`` (as
    int64; the last two as the bits of float64s, ``nav.view(np.float64)``): merged node
    q's value plus 2**32 times its number of children, its first child plus 2**32 times
    its number of members c, the start B of its record in ``rec``, the largest count of
    rows of a merged node of its subtree (itself included), and its own count of rows
    (its members' ``node_freq`` summed in member order); so the search among a node's
    children finds the child's links and counts with its value, and a walk stops where
    no node below keeps ``min_count`` rows.  ``rec[B + e]``: member e's class,
    ``rec[B + c + e]`` its count of rows with the child observed (``node_den``),
    ``rec[B + (2 + v) c + e]`` its count of the child's value v (``values`` from
    ``value_off``: a :class:`._sparse.TreeBundle`'s).  ``nav`` and ``rec`` are of the
    sizes :func:`_packed_sizes` gives."""
    first, n_kids, value = index.first, index.n_children, index.value
    m_start, m_count, m_class, m_node, roots = index.member_start, index.n_members, \
        index.member_class, index.member_node, index.root
    a = roots.size
    n_q = m_count.size
    top = nav.view(np.float64)
    total = 0
    for i in range(a):
        end = roots[i + 1] if i + 1 < a else n_q
        n_v = sizes[i]
        for q in range(roots[i], end):
            c = m_count[q]
            nav[_NAV * q] = (value[q] & _LOW) + (n_kids[q] << 32)
            nav[_NAV * q + 1] = first[q] + (c << 32)
            nav[_NAV * q + 2] = total
            s = m_start[q]
            freq = 0.0
            for e in range(c):
                g = m_node[s + e]
                freq += node_freq[g]
                rec[total + e] = m_class[s + e]
                rec[total + c + e] = node_den[g]
                off = value_off[g]
                for v in range(n_v):
                    rec[total + (2 + v) * c + e] = values[off + v]
            top[_NAV * q + 3] = freq
            top[_NAV * q + 4] = freq
            total += c * (2 + n_v)
    for q in range(n_q - 1, -1, -1):  # (children after their parent)
        lo = first[q]
        for d in range(lo, lo + n_kids[q]):
            if top[_NAV * d + 3] > top[_NAV * q + 3]:
                top[_NAV * q + 3] = top[_NAV * d + 3]


def _packed_sizes(index, sizes):
    """The sizes of the arrays ``(nav, rec)`` of :func:`_pack_members`."""
    roots = index.root
    n_q = index.n_members.size
    lengths = np.diff(np.append(roots, n_q))
    widths = np.repeat(2 + np.asarray(sizes, dtype=np.int64), lengths)
    if n_q >= 2 ** 31 or sizes.max(initial=0) >= 2 ** 31:
        raise ValueError("too many merged nodes to pack")
    return _NAV * n_q, int(np.sum(index.n_members * widths))


@njit(cache=True, inline="always")
def _packed_child(nav, q, x):
    """The child of merged node ``q`` with value ``x``, or -1, as :func:`_index_child`
    finds it, from ``nav`` (:func:`_pack_members`)."""
    lo = nav[_NAV * q + 1] & _LOW
    end = lo + (nav[_NAV * q] >> 32)
    if lo < end:
        guess = lo + x - (nav[_NAV * lo] & _LOW)
        if lo <= guess < end and (nav[_NAV * guess] & _LOW) == x:
            return guess
    hi = end
    while lo < hi:
        mid = (lo + hi) >> 1
        if (nav[_NAV * mid] & _LOW) < x:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and (nav[_NAV * lo] & _LOW) == x:
        return lo
    return -1


@njit(cache=True, inline="always")
def _index_child(first, n_kids, value, q, x):
    """The child of merged node ``q`` with value ``x``, or -1 (binary search, after a
    guess that the children's values are consecutive)."""
    lo = first[q]
    end = lo + n_kids[q]
    if lo < end:
        guess = lo + x - value[lo]
        if lo <= guess < end and value[guess] == x:
            return guess
    hi = end
    while lo < hi:
        mid = (lo + hi) >> 1
        if value[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and value[lo] == x:
        return lo
    return -1


@njit(cache=True, inline="always")
def _family_loo(row, family, trees, chain, path, observed, pairs, min_count, num, den, stack,
                totals):
    """LOO numerator and denominator of P(x_i = xi | y, first ``jj`` candidates) for every
    class (``jj`` = 0: no parent), the family read from attribute i's count tree (along
    ``path`` while the row's candidates are observed); falls back to P(x_i | y) as
    :func:`._sparse.sparse_family_scores` does.  The held-out row counts in the numerator
    only when its own value is ``xi``.  ``row`` is the held-out row's ``(codes, class,
    removed amount)``, ``family`` ``(i, xi, jj)``, ``pairs`` a
    :class:`._kernels.PairArrays` (the order-1 counts); ``num`` and ``den`` are the
    outputs, ``stack`` the tree walk's; ``totals`` the nodes' ``(rows, rows with the child
    observed)`` (:func:`node_sums`), so a node on the path costs O(1), not O(values).
    (Arrays a kernel writes are passed on their own, never inside a tuple.)  Returns whether
    the family was used (False: the estimates of P(x_i | y), the same whatever ``jj``).
    """
    xr, yr, u = row
    i, xi, jj = family
    uni_counts, sizes, k = pairs.counts, pairs.sizes, pairs.k
    uni_offsets, den_uni = pairs.uni_offsets, pairs.den_uni
    own = xr[i] == xi
    use_family = False
    if jj > 0:
        if jj <= observed:  # every parent observed: the nodes on the row's path
            node_freq, node_den = totals
            freq = 0.0
            for yy in range(k):
                g = path[yy, jj]
                if g < 0:
                    num[yy] = 0.0
                    den[yy] = 0.0
                    continue
                num[yy] = trees.values[trees.value_off[g] + xi]
                den[yy] = node_den[g]
                freq += node_freq[g]
        else:
            # the value as an int64, as the prediction's walk passes it: one compiled
            # tree_sums serves both
            freq = tree_sums(trees, trees.root[i], chain, jj, xr, sizes, sizes[i], np.int64(xi),
                             num, den, stack)
        if freq >= 0.0:
            if own:
                num[yr] -= u
            den[yr] -= u
            use_family = freq - u >= min_count
    if not use_family:
        base = uni_offsets[i] + xi * k
        for yy in range(k):
            num[yy] = uni_counts[base + yy]
            den[yy] = den_uni[i, yy]
        if own:
            num[yr] -= u
        den[yr] -= u
    return use_family


@njit(cache=True, inline="always")
def _gaussian_loo(row, v, chain, n_levels, starts, moments, sizes, min_count, node, est_mean,
                  est_var, student):
    """Leave-one-out Gaussian estimates of a numeric child (value ``v`` in the held-out row;
    parents ``chain``, the stored cells of its moments given the first L of them
    ``codes[starts[L]:starts[L + 1]]``, :mod:`._moments`) given the first L of its chain
    parents, L = 0 .. the returned level (the longest prefix whose parent values the row
    has and whose cell keeps ``min_count`` rows without it), as
    :meth:`seminaive.tables.MomentTable.estimates` computes them from the moments with the
    row removed (a cell not stored has the moments 0): ``est_mean[L, y]``,
    ``est_var[L, y]``; ``row`` is the held-out row's ``(codes, class,
    removed amount)``, ``moments`` ``(codes, sums, kappa, floor_ratio)``; ``node`` is
    scratch space (levels, k).  With ``student`` (``density="student"``) the class level
    shrinks towards the pooled moments too, and every written entry is the Gaussian centred
    on ``v`` whose log density there is the posterior predictive Student's t's (kappa + N
    degrees of freedom, N the cell's weight without the row), as
    :func:`seminaive.tables.gaussian.loo_estimates` writes them."""
    xr, yr, u = row
    codes, sums, kappa, floor_ratio = moments
    k = node.shape[1]
    first = starts[0]
    n_all, s1_all, s2_all, mu_all, floor, pooled_var = pooled_without_row(
        sums, first, k, u, v, floor_ratio)
    # the usable prefix
    level = usable_prefix(xr, chain, n_levels, starts, (codes, sums), (sizes, min_count, k),
                          node, u)
    for yy in range(k):
        rm = u if yy == yr else 0.0
        if student:
            b0 = 3 * (first + yy)
            n0 = sums[b0] - rm
            m_prev, v_prev = _shrunk(n0, sums[b0 + 1] - rm * v, sums[b0 + 2] - rm * v * v,
                                     mu_all, pooled_var, kappa, floor)
            est_mean[0, yy], est_var[0, yy] = _as_gaussian(
                v, student_log_pdf(v, m_prev, v_prev, max(n0, 0.0) + kappa))
        else:
            m_prev, v_prev = class_level_without_row(sums, first, yy, rm, v, mu_all,
                                                     pooled_var, floor)
            est_mean[0, yy] = m_prev
            est_var[0, yy] = v_prev
        for t in range(level):
            g = node[t + 1, yy]
            if g >= 0:
                n = sums[3 * g] - rm
                s1 = sums[3 * g + 1] - rm * v
                s2 = sums[3 * g + 2] - rm * v * v
            else:
                n = 0.0 - rm
                s1 = 0.0 - rm * v
                s2 = 0.0 - rm * v * v
            xbar = s1 / n if n > 0 else m_prev
            ss = max(s2 - n * xbar * xbar, 0.0)
            denom = n + kappa
            mean = (s1 + kappa * m_prev) / denom
            var = (ss + kappa * v_prev + n * kappa / denom * (xbar - m_prev) ** 2) / denom
            m_prev = mean
            v_prev = max(var, floor)
            if student:
                est_mean[t + 1, yy], est_var[t + 1, yy] = _as_gaussian(
                    v, student_log_pdf(v, m_prev, v_prev, max(n, 0.0) + kappa))
                continue
            est_mean[t + 1, yy] = m_prev
            est_var[t + 1, yy] = v_prev
    return level


@njit(cache=True, nogil=True)
def _kde_loo(row, value, jn, chain, n_levels, starts, moments, kde, limits, node, est_mean,
             est_var):
    """Leave-one-out binned densities (``density="kde"``) of numeric child ``jn`` (value
    ``v`` in grid bin ``b`` in the held-out row, ``value = (v, b)``) given the first L of
    its chain parents, L = 0 .. the returned level (as :func:`_gaussian_loo` chooses it),
    as :meth:`._moments.SparseMoments.kde_estimates` makes them from the counts with the
    row removed (its weight from its cells' weights, its kernel share ``u own[b]`` from
    their smoothed counts, at the class level and at every prefix; the bandwidth and the
    pseudo-rows ``m_L`` are those chosen on every row): every written entry is the
    Gaussian centred on ``v`` whose log density there is the binned density's.  ``kde`` is
    ``(on, bins of the rows, smooth, mixtures, own, pooled, pooled_n, log_width)``
    (:class:`._moments.KdeEstimates`), ``moments`` the stored cells' ``(codes, sums)``,
    ``limits`` ``(sizes, min_count)``."""
    xr, yr, u = row
    v, bf = value
    b = int(bf)
    codes, sums = moments
    smooth, mixtures, own, pooled, pooled_n, log_width = kde[2], kde[3], kde[4], kde[5], \
        kde[6], kde[7]
    sizes, min_count = limits
    k = node.shape[1]
    first = starts[0]
    level = usable_prefix(xr, chain, n_levels, starts, (codes, sums), (sizes, min_count, k),
                          node, u)
    share = own[jn, b]
    lw = log_width[jn, b]
    f_all = max(pooled[jn, b] - u * share, 0.0) / max(pooled_n[jn] - u, 1e-300)
    for yy in range(k):
        rm = u if yy == yr else 0.0
        g = first + yy
        m = mixtures[jn, 0]
        f = (max(smooth[g, b] - rm * share, 0.0) + m * f_all) / max(sums[3 * g] - rm + m,
                                                                    1e-300)
        est_mean[0, yy], est_var[0, yy] = _as_gaussian(v, math.log(max(f, 1e-300)) - lw)
        for t in range(level):
            g = node[t + 1, yy]
            s = smooth[g, b] if g >= 0 else 0.0
            n = sums[3 * g] if g >= 0 else 0.0
            m = mixtures[jn, t + 1]
            f = (max(s - rm * share, 0.0) + m * f) / max(n - rm + m, m)
            est_mean[t + 1, yy], est_var[t + 1, yy] = _as_gaussian(
                v, math.log(max(f, 1e-300)) - lw)
    return level


def nested_kdb_loo(data, search, trees, pairs, est, loss_kind, gauss, V, n_blocks, out,
                   reuse=True):
    """``out[b, j, s]`` += w * loss of the row under model (k=j, s), leave-one-out, summed
    over the rows of block b (j = 0..K, s = 0..a; s = 0 is the class prior alone).

    ``data`` is the chunk's ``(X, y, w, weighted)``, ``search`` the attributes' ``(ranking,
    number of candidate parents, candidates, stack size of a tree walk)``, ``est`` the
    estimates' ``(m, laplace, min_count)``, ``gauss`` the Gaussian children's
    ``(gaussian, missing_code, level_starts, moment_codes, sums, kappa, floor_ratio,
    student, kde)`` (``kde``: see :func:`_kde_loo`; its first item False: not binned).

    ``trees`` holds every attribute's count tree over its candidates (a
    :class:`._sparse.TreeBundle`; the family with j parents is its level 1 + j), ``pairs`` a
    :class:`._kernels.PairArrays` (class and order-1 counts).

    Gaussian children (``gaussian[i]`` >= 0: column of ``V``): the log density at the
    leave-one-out estimates (:func:`_gaussian_loo`, or :func:`_kde_loo` for the binned
    children of ``density="kde"``; the moments' stored cells
    ``moment_codes`` and ``sums``, those of every candidate prefix of child j from
    ``level_starts[j]``, :mod:`._moments`), and with ``missing_code[i]`` > 0
    (``missing="value"``) log P(missing) or log (1 - P(missing)) as in
    :func:`._sparse.sparse_family_scores`.

    The blocks go to the threads of :func:`seminaive.kernels._threads.parallel_calls` in
    consecutive ranges (:func:`_loo_blocks`, a ``nogil`` kernel: no ``prange`` body to
    compile twice); every block sums the same rows in the same order whatever the threads.
    Without a Gaussian child (ESKDB's discretised attributes, every discrete SKDB) the
    kernel is given ``gauss=None``: its Gaussian branch is pruned at compile time (numba's
    dead-branch pruning of an argument typed None), so that specialisation compiles no
    :func:`_gaussian_loo`, the larger part of the kernel's compile time.  In the same way
    the binned children's arrays go as a separate ``kde`` argument, None when the children
    are not binned (no :func:`_kde_loo` compiled) and otherwise a tuple (no
    :func:`_gaussian_loo` compiled).

    Without a Gaussian child and with ``reuse`` (the default), the rows are visited sorted
    by their codes (:func:`_sorted_loo`): a row reuses the tree paths and counts the
    previous row of the sort found for the attributes whose values they share, and the
    losses are then summed into the blocks in row order, the same sums bit for bit
    (``reuse=False``: row by row, :func:`_loo_blocks`, as with Gaussian children).
    The sorted pass's scratch arrays (node sums, class index, packed records, losses)
    are those of the calling thread's :class:`Buffers` within a
    :meth:`BufferPool.in_use` block (ESKDB's members: pages mapped once per thread, not
    once per member), else fresh.
    """
    kde = gauss[8] if gauss[8][0] else None
    gauss = gauss[:8] if np.any(np.asarray(gauss[0]) >= 0) else None
    sizes = pairs.sizes
    sorted_pass = gauss is None and reuse
    # (the sorted pass's scratch arrays: those of the thread's buffer pool, if any)
    space = getattr(_current, "buffers", None) if sorted_pass else None
    if space is None:
        space = Buffers()
    node_freq = space.take("node_freq", trees.code.size, np.float64)
    node_den = space.take("node_den", trees.code.size, np.float64)
    node_sums(trees, sizes, node_freq, node_den)
    if sorted_pass:
        index = class_index(trees, search[2], sizes, space)
        # what a visit of a merged node reads, side by side
        n_nav, n_rec = _packed_sizes(index, sizes)
        nav = space.take("nav", n_nav, np.int64)
        rec = space.take("rec", n_rec, np.float64)
        _pack_members(index, node_freq, node_den, trees.value_off, trees.values, sizes, nav,
                      rec)
        _sorted_loo(data, search, trees, pairs, est, loss_kind, n_blocks,
                    (index, nav, rec), out, space)
        return
    parallel_calls(_loo_blocks, [
        (data, search, trees, pairs, est, loss_kind, gauss, kde, V, (n_blocks, lo, hi),
         (node_freq, node_den), out)
        for lo, hi in even_parts(n_blocks, max(1, get_num_threads()))])


@njit(cache=True)
def _split_factor(d):
    """A factor exp(d) (d <= 0) as ``(f, e)``, f * exp(e) = exp(d) with f in (2**-200, 1]
    and e a multiple of -200 log 2 (0 when exp(d) is that large; f = 0 for d = -inf)."""
    if d >= -_LOG_SPLIT or d == -np.inf:
        return math.exp(d), 0.0
    steps = math.ceil(-d / _LOG_SPLIT)
    return math.exp(d + steps * _LOG_SPLIT), -steps * _LOG_SPLIT


@njit(cache=True, inline="always")
def _rescale(cur, shift, top, k):
    """Keep a row's class products ``cur`` (largest ``top``) in the normal range once one
    fell below 2**-800: all scaled by 2**400 when they all fell below 2**-400 (a common
    factor, which changes no loss), then every class still below 2**-800 scaled by 2**400
    with the rest of its scale kept as a logarithm in ``shift``.  Whether some class's
    ``shift`` changed."""
    shifted = False
    if top < _TINY:
        for yy in range(k):
            cur[yy] *= _SCALE
    for yy in range(k):
        if 0.0 < cur[yy] < _FLOOR:
            cur[yy] *= _SCALE
            shift[yy] -= _LOG_SCALE
            shifted = True
    return shifted


@njit(cache=True, inline="always")
def _factor_loss(cur, shift, shifted, k, yr, kind):
    """:func:`seminaive.kernels.losses.row_loss` of the scores log(cur[y]) + shift[y]
    (``shifted``: some shift is not 0), from the class factors themselves: without shifts,
    a common factor of the classes leaves every loss unchanged, so no logarithm or
    exponential is needed (rmse, zero-one)."""
    if shifted:
        return scaled_row_loss(shift, cur, k, yr, kind)
    total = 0.0
    top = -1.0
    best = 0
    for yy in range(k):
        c = cur[yy]
        total += c
        if c > top:
            top = c
            best = yy
    return loss_from_terms(total, best, cur[yr], cur[yr], 0.0, yr, kind)


@njit(cache=True, nogil=True, parallel=NO_PARFORS)
def _loo_blocks(data, search, trees, pairs, est, loss_kind, gauss, kde, V, span, nodes, out):
    """Blocks ``b0 .. b1 - 1`` of the ``n_blocks`` of :func:`nested_kdb_loo` (``span``:
    ``(n_blocks, b0, b1)``; ``nodes``: ``(node_freq, node_den)`` of :func:`node_sums`, read
    only).

    The row's scores are kept as products of its per-class factors (the estimates
    themselves, not their logarithms): a model with one more attribute multiplies them by
    that attribute's factors, and the loss reads them directly (:func:`_factor_loss`), so a
    row costs one division per (attribute, k, class) and no logarithm or exponential for
    the discrete children.  A Gaussian child's factors are its densities divided by their
    largest over the classes (a factor common to the classes changes no loss); the products
    are scaled by 2**400 (exact) when they all fall below 2**-400, and a class whose product
    still falls below 2**-800 keeps the rest of its scale as a logarithm (``shift``), so
    that nothing underflows however many attributes.  A factor below 2**-200 (a Gaussian
    child's, or a tiny ``m``'s) keeps the rest of its scale as a logarithm too
    (:func:`_split_factor`), so that no product of a class above 2**-800 and a factor
    leaves the normal floating-point range."""
    n_blocks, b0, b1 = span
    node_freq, node_den = nodes
    X, y, w, weighted = data
    ranking, n_cand, candidates, n_stack = search
    m, laplace, min_count = est
    sizes, k, class_counts = pairs.sizes, pairs.k, pairs.class_counts
    n, a = X.shape
    n_k = out.shape[1]  # K + 1
    n_total = 0.0
    for yy in range(k):
        n_total += class_counts[yy]
    totals = (node_freq, node_den)
    per_cell = np.empty(a)
    in_total = np.empty(a)
    for i in range(a):
        per_cell[i], in_total[i] = pseudo_counts(sizes[i] - 1, m, laplace)
    for b in range(b0, b1):
        start = b * n // n_blocks
        stop = (b + 1) * n // n_blocks
        factors = np.ones((a, n_k, k))
        # the rest of a factor below 2**-200 as a logarithm (:func:`_split_factor`)
        extra = np.zeros((a, n_k, k))
        has_extra = np.zeros(a, dtype=np.bool_)
        logs = np.empty((n_k, k))
        num = np.empty(k)
        den = np.empty(k)
        est_mean = np.empty((n_k + 1, k))
        est_var = np.empty((n_k + 1, k))
        cur = np.empty(k)
        shift = np.empty(k)
        prior = np.empty(k)
        stack = np.empty(n_stack, dtype=np.int64)
        path = np.empty((k, n_k + 1), dtype=np.int64)
        node = np.empty((n_k + 1, k), dtype=np.int64)
        for r in range(start, stop):
            wr, u = _row_removal(w, weighted, r)
            if wr <= 0:
                continue
            yr = y[r]
            xr = X[r]
            for yy in range(k):
                rm = u if yy == yr else 0.0
                prior[yy] = math.exp(log_joint_estimate(class_counts[yy] - rm, n_total - u, k,
                                                        1.0, m, laplace))
            any_extra = False
            for rho in range(a):
                i = ranking[rho]
                xi = xr[i]
                has_extra[rho] = False
                jn = -1
                miss = 0
                if gauss is not None:  # (pruned at compile time when None)
                    jn = gauss[0][i]
                    miss = gauss[1][i]
                dense = jn >= 0 and xi != 0 and not math.isnan(V[r, jn])
                if xi == 0 or (jn >= 0 and not dense and (miss == 0 or xi != miss)):
                    # missing, or a Gaussian child without a value of its own for
                    # missing: no term
                    for j in range(n_k):
                        for yy in range(k):
                            factors[rho, j, yy] = 1.0
                    continue
                observed = _row_path(xr, trees, i, candidates[i], n_cand[i], sizes, k, path)
                level = 0
                v = 0.0
                if gauss is not None and dense:
                    _, _, level_starts, moment_codes, sums, kappa, floor_ratio, student = gauss
                    v = V[r, jn]
                    if kde is not None:  # (pruned at compile time: one of the two kernels)
                        level = _kde_loo((xr, yr, u), (v, kde[1][r, jn]), jn, candidates[i],
                                         n_cand[i], level_starts[jn], (moment_codes, sums),
                                         kde, (sizes, min_count), node, est_mean, est_var)
                    else:
                        level = _gaussian_loo((xr, yr, u), v, candidates[i], n_cand[i],
                                              level_starts[jn],
                                              (moment_codes, sums, kappa, floor_ratio), sizes,
                                              min_count, node, est_mean, est_var, student)
                # the family's value: the row's, or (a Gaussian child observed) that of
                # missing when it has one (missing="value": log (1 - P(missing)))
                target = miss if dense else xi
                for j in range(n_k):
                    jj = min(j, n_cand[i])
                    if not dense and j > 0 and jj < j:  # fewer candidates than j
                        for yy in range(k):
                            factors[rho, j, yy] = factors[rho, jj, yy]
                            extra[rho, j, yy] = extra[rho, jj, yy]
                        continue
                    if dense:
                        use = min(j, level)
                        for yy in range(k):
                            dv = v - est_mean[use, yy]
                            s2 = est_var[use, yy]
                            logs[j, yy] = -0.5 * (_LOG_2PI + math.log(s2) + dv * dv / s2)
                    if target > 0:
                        used = _family_loo((xr, yr, u), (i, target, jj), trees,
                                           candidates[i], path, observed, pairs, min_count,
                                           num, den, stack, totals)
                        if dense:
                            for yy in range(k):
                                logs[j, yy] += math.log1p(-math.exp(log_conditional_estimate(
                                    num[yy], den[yy], sizes[i] - 1, m, laplace)))
                        elif j > 0 and not used:  # P(x_i | y): the estimates of j = 0
                            for yy in range(k):
                                factors[rho, j, yy] = factors[rho, 0, yy]
                                extra[rho, j, yy] = extra[rho, 0, yy]
                            continue
                        else:
                            pc, tot = per_cell[i], in_total[i]
                            for yy in range(k):
                                f = (num[yy] + pc) / (den[yy] + tot)
                                factors[rho, j, yy] = f
                                extra[rho, j, yy] = 0.0
                                # (only with a tiny m) the rest as a logarithm
                                logs[j, yy] = math.log(f) if f < _SPLIT else 0.0
                    top = 0.0
                    if dense:  # relative to the largest class: a common factor
                        top = -np.inf
                        for yy in range(k):
                            top = max(top, logs[j, yy])
                    for yy in range(k):
                        if dense or logs[j, yy] < 0.0:
                            d = logs[j, yy] - top if top > -np.inf else -np.inf
                            f, e = _split_factor(d)
                            factors[rho, j, yy] = f
                            extra[rho, j, yy] = e
                            if e != 0.0:
                                has_extra[rho] = True
                                any_extra = True
            for j in range(n_k):
                shifted = False
                for yy in range(k):
                    cur[yy] = prior[yy]
                    shift[yy] = 0.0
                for s in range(a + 1):  # s = 0: the class prior alone
                    if s > 0:
                        rho = s - 1
                        top = 0.0
                        low = np.inf
                        for yy in range(k):
                            c = cur[yy] * factors[rho, j, yy]
                            cur[yy] = c
                            if c > top:
                                top = c
                            if 0.0 < c < low:
                                low = c
                        if any_extra and has_extra[rho]:
                            for yy in range(k):
                                shift[yy] += extra[rho, j, yy]
                            shifted = True
                        if low < _FLOOR and _rescale(cur, shift, top, k):
                            shifted = True
                    out[b, j, s] += wr * _factor_loss(cur, shift, shifted, k, yr, loss_kind)


#: bytes of the per-row losses :func:`_sorted_loo` holds at a time (the rows go in windows)
_WINDOW_BYTES = 1 << 25
#: parts of a window's rows per thread (the threads take them as they finish)
_PARTS = 8


def _sorted_loo(data, search, trees, pairs, est, loss_kind, n_blocks, nodes, out, space):
    """:func:`nested_kdb_loo` without a Gaussian child, the rows visited in sorted order.

    Within each window of rows (consecutive rows, as many as :data:`_WINDOW_BYTES` of
    losses hold), the rows are sorted by their codes in the ranking's order (then by class)
    and :func:`_loo_rows` computes every row's losses of every model, reusing what the
    previous row of the sort already found (tree paths and estimates of the attributes whose
    value and leading candidates' values it shares); :func:`_sum_losses` then adds them to
    the blocks in row order.  A window's sorted rows go to the threads in :data:`_PARTS`
    parts per thread, taken as the threads finish (on a loaded machine a thread that
    falls behind holds up less), each part starting its reuse afresh.  Each row's losses
    are computed by the same operations on the same numbers as in :func:`_loo_blocks`, and
    summed in the same order, so ``out`` is the same bit for bit whatever the sort, the
    windows, the parts and the threads.  ``space``: the :class:`Buffers` the window's
    losses are taken from."""
    X, y, w, weighted = data
    ranking = search[0]
    n, a = X.shape
    n_k = out.shape[1]
    threads = max(1, get_num_threads())
    window = max(1, _WINDOW_BYTES // (8 * n_k * (a + 1)))
    for r0 in range(0, n, window):
        r1 = min(n, r0 + window)
        # np.lexsort: the last key is the first one sorted on
        keys = [y[r0:r1]] + [X[r0:r1, i] for i in ranking[::-1].tolist()]
        order = np.lexsort(keys).astype(np.int64) + r0
        losses = space.take("losses", (r1 - r0) * n_k * (a + 1), np.float64).reshape(
            r1 - r0, n_k, a + 1)
        parallel_calls(_loo_rows, [
            (data, search, trees, pairs, est, loss_kind, order, (r0, lo, hi), nodes, losses)
            for lo, hi in even_parts(r1 - r0, threads * _PARTS)])
        parallel_calls(_sum_losses, [
            (w, weighted, losses, (n, n_blocks, r0, r1), span, out)
            for span in even_parts(n_blocks, threads)])


@njit(cache=True, nogil=True)
def _sum_losses(w, weighted, losses, rows, span, out):
    """``out[b, j, s]`` += w * ``losses[r - r0, j, s]`` for the rows r of the window
    ``rows = (n, n_blocks, r0, r1)`` in blocks ``span = (b0, b1)``, in row order (as
    :func:`_loo_blocks` adds them)."""
    n, n_blocks, r0, r1 = rows
    b0, b1 = span
    n_k, width = out.shape[1], out.shape[2]
    for b in range(b0, b1):
        start = max(b * n // n_blocks, r0)
        stop = min((b + 1) * n // n_blocks, r1)
        for r in range(start, stop):
            wr, _ = _row_removal(w, weighted, r)
            if wr <= 0:
                continue
            for j in range(n_k):
                for s in range(width):
                    out[b, j, s] += wr * losses[r - r0, j, s]


@njit(cache=True, inline="always")
def _base_factor(num, den, pc, tot):
    """A discrete child's factor ``(f, e)`` from its counts, as :func:`_loo_blocks` makes
    it: the m-estimate f, or (below 2**-200, a tiny ``m`` only) the parts of
    :func:`_split_factor`."""
    f = (num + pc) / (den + tot)
    lg = math.log(f) if f < _SPLIT else 0.0
    if lg < 0.0:
        return _split_factor(lg - 0.0)
    return f, 0.0


#: where a model's counts of every class are (:func:`_loo_rows`), when not in a merged
#: node's record: no node (every count 0), a dense row of counts, the order-1 counts
_NO_COUNTS = -1
_DENSE = -2
_UNI = -3


@njit(cache=True, inline="always")
def _class_counts(where, family, arrays, pairs):
    """One class's counts ``(n(x_i, parents, y), n(parents, y))`` of a model of
    :func:`_loo_rows`: ``where`` ``(mode, g)`` (mode: a merged node whose record holds
    them, or :data:`_NO_COUNTS`, :data:`_DENSE` (row ``g`` of the dense counts),
    :data:`_UNI`), ``family`` ``(rho, i, xi, y)``, ``arrays`` ``(nav, rec, base_num,
    base_den)``."""
    md, g = where
    rho, i, xi, yy = family
    nav, rec, base_num, base_den = arrays
    if md >= 0:  # the record's classes are increasing
        rb = nav[_NAV * md + 2]
        c = nav[_NAV * md + 1] >> 32
        lo = 0
        hi = c
        while lo < hi:
            mid = (lo + hi) >> 1
            if rec[rb + mid] < yy:
                lo = mid + 1
            else:
                hi = mid
        if lo < c and rec[rb + lo] == yy:
            return rec[rb + (2 + xi) * c + lo], rec[rb + c + lo]
        return 0.0, 0.0
    if md == _DENSE:
        return base_num[rho, g, yy], base_den[rho, g, yy]
    if md == _UNI:
        k = pairs.k
        return pairs.counts[pairs.uni_offsets[i] + xi * k + yy], pairs.den_uni[i, yy]
    return 0.0, 0.0


@njit(cache=True, inline="always")
def _sweep(prior, factors, flags, row, state, losses):
    """A row's losses ``losses[j, s]`` of every model (k = j, top-s attributes) from its
    class prior and the attributes' factors, as :func:`_loo_blocks` makes them: ``factors``
    the attributes' ``(base_f, base_e, own_f, own_e)`` (the held-out class's factor
    ``own_f[rho, j]`` in place of ``base_f[rho, j, y]``; model j's factors of the
    other classes in row ``fj[rho, j]`` of ``base_f``, and of ``base_e`` where
    ``split_j[rho, j]``, else 0), ``flags`` ``(missing,
    has_extra, any_extra, tops)``, ``row`` ``(k, class, loss kind)``, ``state`` scratch
    ``(cur, shift, shifted, totals)`` (cur and shift: (K + 1, k)).

    ``tops[rho]``: the most candidates of the attributes up to ``rho`` (at most K): a
    model of larger k has the factors of the model of that k at every one of them (an
    attribute of nc < k candidates has those of k = nc, as its model of k = nc), so
    its products are that model's bit for bit, and only the models up to it are
    computed, their losses copied to the larger k (with few candidates for the top
    attributes, attribute t having at most t, the first K attributes cost fewer
    models).  When ``tops`` grows, the models it adds start from the products of the
    model they shared.

    Attribute by attribute, every k's products first (vectorisable: no selection of the
    largest class, whose first index only the zero-one loss reads, found afterwards), then
    every k's sum of its products in class order (independent sums, one after another,
    which the processor overlaps), then each k's rescaling and loss: every number is the
    one :func:`_factor_loss` and :func:`_rescale` find on the same products, so the losses
    are the same bit for bit."""
    base_f, base_e, own_f, own_e, fj, split_j = factors
    missing, has_extra, any_extra, tops = flags
    k, yr, kind = row
    cur, shift, shifted, totals = state
    n_k = cur.shape[0]
    a = base_f.shape[0]
    for yy in range(k):
        cur[0, yy] = prior[yy]
        shift[0, yy] = 0.0
    shifted[0] = False
    first = _factor_loss(cur[0], shift[0], False, k, yr, kind)
    for j in range(n_k):
        losses[j, 0] = first
    n_on = 1  # the models computed (the larger k have the products of k = n_on - 1)
    for rho in range(a):
        if tops[rho] >= n_on:  # models of their own from here: the products they shared
            last = n_on - 1
            for j in range(n_on, tops[rho] + 1):
                for yy in range(k):
                    cur[j, yy] = cur[last, yy]
                    shift[j, yy] = shift[last, yy]
                shifted[j] = shifted[last]
            n_on = tops[rho] + 1
        tiny = False
        if not missing[rho]:  # (missing: factors 1, the products unchanged)
            for j in range(n_on):
                kept = cur[j, yr]
                g = fj[rho, j]
                for yy in range(k):
                    c = cur[j, yy] * base_f[rho, g, yy]
                    cur[j, yy] = c
                    tiny |= (0.0 < c) & (c < _FLOOR)
                cur[j, yr] = kept * own_f[rho, j]
                c = cur[j, yr]
                tiny |= (0.0 < c) & (c < _FLOOR)
        else:
            for j in range(n_on):
                for yy in range(k):
                    c = cur[j, yy]
                    tiny |= (0.0 < c) & (c < _FLOOR)
        j = 0
        while j + 2 < n_on:  # (three sums at a time: each is a chain of additions)
            t0 = 0.0
            t1 = 0.0
            t2 = 0.0
            for yy in range(k):
                t0 += cur[j, yy]
                t1 += cur[j + 1, yy]
                t2 += cur[j + 2, yy]
            totals[j] = t0
            totals[j + 1] = t1
            totals[j + 2] = t2
            j += 3
        for jr in range(j, n_on):
            total = 0.0
            for yy in range(k):
                total += cur[jr, yy]
            totals[jr] = total
        for j in range(n_on):
            if any_extra and has_extra[rho]:
                if split_j[rho, j]:
                    g = fj[rho, j]
                    for yy in range(k):
                        shift[j, yy] += own_e[rho, j] if yy == yr else base_e[rho, g, yy]
                else:  # (the others' parts are 0: a shift is never -0.0)
                    shift[j, yr] += own_e[rho, j]
                shifted[j] = True
            low = np.inf
            if tiny:
                for yy in range(k):
                    c = cur[j, yy]
                    if 0.0 < c < low:
                        low = c
            if low < _FLOOR:
                top = 0.0
                for yy in range(k):
                    if cur[j, yy] > top:
                        top = cur[j, yy]
                if _rescale(cur[j], shift[j], top, k):
                    shifted[j] = True
                losses[j, rho + 1] = _factor_loss(cur[j], shift[j], shifted[j], k, yr, kind)
            elif shifted[j]:
                losses[j, rho + 1] = scaled_row_loss(shift[j], cur[j], k, yr, kind)
            else:
                best = 0
                if kind == LOSS_ZERO_ONE:
                    top = 0.0
                    for yy in range(k):
                        if cur[j, yy] > top:
                            top = cur[j, yy]
                            best = yy
                losses[j, rho + 1] = loss_from_terms(totals[j], best, cur[j, yr], cur[j, yr],
                                                     0.0, yr, kind)
        for j in range(n_on, n_k):
            losses[j, rho + 1] = losses[n_on - 1, rho + 1]


@njit(cache=True, nogil=True, parallel=NO_PARFORS)
def _loo_rows(data, search, trees, pairs, est, loss_kind, order, span, nodes, losses):
    """The losses ``losses[r - r0, j, s]`` of the rows ``order[lo:hi]`` (``span``: ``(r0,
    lo, hi)``) of :func:`nested_kdb_loo` without a Gaussian child, as :func:`_loo_blocks`
    computes them row by row (its loss of row r, before the weight).

    The rows come sorted, and each attribute keeps what it found for the last row it
    scored: the nodes of its count tree along that row's candidates' values, and the
    counts and factors of every k for all classes before the held-out row is removed
    (removing it changes only its own class's).  A row whose value of the attribute and
    first j candidates' values (and removed amount) are that row's reuses the counts of
    the models with up to j parents, and a row whose first t candidates' values are
    that row's walks the tree from the t-th node on.  The walk goes down the attribute's
    count trees merged over the classes (``nodes``: ``(index, nav, rec)``,
    :func:`class_index` packed by :func:`_pack_members`): one search per candidate for
    all the classes, whose nodes the merged node lists (the classes without the prefix
    get the factor of no counts, computed once); it stops at the first node whose
    subtree's largest count of rows, less the held-out amount, is below ``min_count``
    (every level below falls back to P(x_i | y), as the counts of its node would decide;
    a node's count is never below a descendant's, so the stop is exact by the largest
    count whatever the rounding of weighted counts).  Only the held-out class's
    factor is computed afresh (one division per attribute and k), then the products and
    losses as in :func:`_loo_blocks` (:func:`_sweep`: the same numbers summed and
    compared in the same order as :func:`_factor_loss`).

    A model whose estimates are another's (P(x_i | y) where the parents' counts are too
    few, or fewer candidates than k) points at that model's row of factors instead of
    copying it (``fj``); the factors of P(x_i | y) are found once per value of x_i; a
    model's held-out class's counts are kept as they are found, and read again from where
    its counts are (:func:`_class_counts`) when the next row of another class reuses
    them, so the counts of every class are not stored per model."""
    r0, lo, hi = span
    index, nav, rec = nodes
    nav_top = nav.view(np.float64)
    X, y, w, weighted = data
    ranking, n_cand, candidates, n_stack = search
    m, laplace, min_count = est
    sizes, k, class_counts = pairs.sizes, pairs.k, pairs.class_counts
    uni_counts, uni_offsets, den_uni = pairs.counts, pairs.uni_offsets, pairs.den_uni
    a = X.shape[1]
    n_k = losses.shape[1]  # K + 1
    n_total = 0.0
    for yy in range(k):
        n_total += class_counts[yy]
    per_cell = np.empty(a)
    in_total = np.empty(a)
    # the factor of a class without the family's parent values (no counts)
    absent_f = np.empty(a)
    absent_e = np.empty(a)
    for i in range(a):
        per_cell[i], in_total[i] = pseudo_counts(sizes[i] - 1, m, laplace)
        absent_f[i], absent_e[i] = _base_factor(0.0, 0.0, per_cell[i], in_total[i])
    # what every attribute (by rank) holds: the row it was found for (-1: none) and its
    # removed amount; the nodes of the tree path valid up to level depth
    source = np.full(a, -1, dtype=np.int64)
    source_u = np.zeros(a)
    depth = np.full(a, -1, dtype=np.int64)
    paths = np.empty((a, n_k + 1), dtype=np.int64)  # nodes of the merged trees
    # model j's factors of every class are base_f[rho, fj[rho, j]] (a model whose
    # estimates are another's, P(x_i | y) or fewer candidates, points at its row)
    fj = np.zeros((a, n_k), dtype=np.int64)
    # where model j's counts of every class are: a merged node's record (>= 0), no node
    # (_NO_COUNTS), base_num and base_den at fj (_DENSE), the order-1 counts (_UNI)
    mode = np.zeros((a, n_k), dtype=np.int64)
    base_num = np.empty((a, n_k, k))
    base_den = np.empty((a, n_k, k))
    base_f = np.empty((a, n_k, k))
    base_e = np.empty((a, n_k, k))  # (valid only where split_j)
    # whether some class's factor of model j kept a logarithm (base_e[rho, fj] not all 0)
    split_j = np.zeros((a, n_k), dtype=np.bool_)
    base_split = np.zeros(a, dtype=np.bool_)  # some of split_j[rho]
    # the held-out class's counts of every model (before the row is removed), of class
    # own_yr[rho] (-1: none)
    own_num = np.empty((a, n_k))
    own_den = np.empty((a, n_k))
    own_yr = np.full(a, -1, dtype=np.int64)
    own_f = np.empty((a, n_k))
    own_e = np.empty((a, n_k))
    # the factors of the order-1 counts (P(x_i | y)), found for a value when first needed
    # (at its first class's place in the counts), and whether some kept a logarithm
    uni_f = np.empty(uni_counts.size)
    uni_e = np.empty(uni_counts.size)
    uni_done = np.zeros(uni_counts.size, dtype=np.bool_)
    uni_split = np.zeros(uni_counts.size, dtype=np.bool_)
    # the class the held-out factors were last found for (-1: none since the counts
    # changed), and whether some of them kept a logarithm
    own_class = np.full(a, -1, dtype=np.int64)
    own_split = np.zeros(a, dtype=np.bool_)
    has_extra = np.zeros(a, dtype=np.bool_)
    missing = np.zeros(a, dtype=np.bool_)
    num = np.empty(k)
    den = np.empty(k)
    cur = np.empty((n_k, k))
    shift = np.empty((n_k, k))
    shifted = np.zeros(n_k, dtype=np.bool_)
    totals = np.empty(n_k)
    # the most candidates of the attributes up to rho (:func:`_sweep`'s models computed)
    tops = np.empty(a, dtype=np.int64)
    most = 0
    for rho in range(a):
        most = min(max(most, n_cand[ranking[rho]]), n_k - 1)
        tops[rho] = most
    prior = np.empty((k, k))
    prior_u = np.full(k, -1.0)
    stack = np.empty(n_stack, dtype=np.int64)
    for p in range(lo, hi):
        r = order[p]
        wr, u = _row_removal(w, weighted, r)
        if wr <= 0:
            continue
        yr = y[r]
        xr = X[r]
        if prior_u[yr] != u:
            for yy in range(k):
                rm = u if yy == yr else 0.0
                prior[yr, yy] = math.exp(log_joint_estimate(class_counts[yy] - rm, n_total - u,
                                                            k, 1.0, m, laplace))
            prior_u[yr] = u
        any_extra = False
        for rho in range(a):
            i = ranking[rho]
            xi = xr[i]
            has_extra[rho] = False
            missing[rho] = xi == 0
            if xi == 0:  # missing: no term (factors 1)
                continue
            chain = candidates[i]
            nc = n_cand[i]
            observed = 0
            while observed < nc and xr[chain[observed]] != 0:
                observed += 1
            src = source[rho]
            fresh = 0  # the first k whose counts are found afresh
            valid = -1  # the path's levels still valid
            if src >= 0:
                xs = X[src]
                agree = 0
                while agree < nc and xr[chain[agree]] == xs[chain[agree]]:
                    agree += 1
                valid = min(depth[rho], agree)
                if xs[i] == xi and source_u[rho] == u:
                    fresh = agree + 1 if agree < nc else n_k
            if own_yr[rho] != yr:  # the kept models' counts of the held-out class
                for j in range(min(fresh, n_k)):
                    own_num[rho, j], own_den[rho, j] = _class_counts(
                        (mode[rho, j], fj[rho, j]), (rho, i, xi, yr),
                        (nav, rec, base_num, base_den), pairs)
                own_yr[rho] = yr
            if fresh < n_k:
                own_class[rho] = -1
                if valid < 0:
                    paths[rho, 0] = index.root[i]
                    valid = 0
                # down to the first node absent or without min_count rows in its subtree
                # (the levels below it: no counts, or too few to use)
                q = paths[rho, valid]
                reach = valid
                while reach < observed and q >= 0 and nav_top[_NAV * q + 3] - u >= min_count:
                    q = _packed_child(nav, q, xr[chain[reach]])
                    reach += 1
                    paths[rho, reach] = q
                depth[rho] = reach
                pc, tot = per_cell[i], in_total[i]
                for j in range(fresh, n_k):
                    jj = min(j, nc)
                    copy = -1
                    used = False
                    uni = False
                    if j > 0 and jj < j:  # fewer candidates than j
                        copy = jj
                    elif 0 < jj <= observed:  # every parent observed: the path's nodes
                        q = paths[rho, min(jj, depth[rho])]
                        if jj <= depth[rho] or q < 0:  # (else too few rows below)
                            freq = 0.0
                            rb = 0
                            if q >= 0:  # the merged node's count of rows
                                rb = nav[_NAV * q + 2]
                                freq = nav_top[_NAV * q + 4]
                            used = freq - u >= min_count
                        if used:
                            # the classes without the parent values, then those with them
                            fj[rho, j] = j
                            mode[rho, j] = q if q >= 0 else _NO_COUNTS
                            for yy in range(k):
                                base_f[rho, j, yy] = absent_f[i]
                            ex = absent_e[i] != 0.0
                            on = 0.0
                            od = 0.0
                            c = nav[_NAV * q + 1] >> 32 if q >= 0 else 0
                            vb = rb + (2 + xi) * c
                            for e in range(c):
                                yy = int(rec[rb + e])
                                nv = rec[vb + e]
                                dv = rec[rb + c + e]
                                f, ef = _base_factor(nv, dv, pc, tot)
                                base_f[rho, j, yy] = f
                                ex = ex or ef != 0.0
                                if yy == yr:
                                    on = nv
                                    od = dv
                            if ex:  # (rare: a tiny m) their logarithms' parts
                                for yy in range(k):
                                    base_e[rho, j, yy] = absent_e[i]
                                for e in range(c):
                                    _, ef = _base_factor(rec[vb + e], rec[rb + c + e], pc,
                                                         tot)
                                    base_e[rho, j, int(rec[rb + e])] = ef
                            split_j[rho, j] = ex
                            own_num[rho, j] = on
                            own_den[rho, j] = od
                            continue
                        copy = 0  # P(x_i | y): the estimates of j = 0
                    else:
                        if jj > 0:  # some parent missing: summed out
                            freq = tree_sums(trees, trees.root[i], chain, jj, xr, sizes,
                                             sizes[i], np.int64(xi), num, den, stack)
                            if freq >= 0.0:
                                used = freq - u >= min_count
                        if j > 0 and not used:  # P(x_i | y): the estimates of j = 0
                            copy = 0
                        elif not used:  # the order-1 counts' factors, found once
                            uni = True
                    if copy >= 0:
                        fj[rho, j] = fj[rho, copy]
                        mode[rho, j] = mode[rho, copy]
                        split_j[rho, j] = split_j[rho, copy]
                        own_num[rho, j] = own_num[rho, copy]
                        own_den[rho, j] = own_den[rho, copy]
                        continue
                    fj[rho, j] = j
                    if uni:
                        mode[rho, j] = _UNI
                        base = uni_offsets[i] + xi * k
                        if not uni_done[base]:
                            ex = False
                            for yy in range(k):
                                f, ef = _base_factor(uni_counts[base + yy], den_uni[i, yy],
                                                     pc, tot)
                                uni_f[base + yy] = f
                                uni_e[base + yy] = ef
                                ex = ex or ef != 0.0
                            uni_split[base] = ex
                            uni_done[base] = True
                        for yy in range(k):
                            base_f[rho, j, yy] = uni_f[base + yy]
                        ex = uni_split[base]
                        if ex:
                            for yy in range(k):
                                base_e[rho, j, yy] = uni_e[base + yy]
                        split_j[rho, j] = ex
                        own_num[rho, j] = uni_counts[base + yr]
                        own_den[rho, j] = den_uni[i, yr]
                        continue
                    mode[rho, j] = _DENSE
                    ex = False
                    for yy in range(k):
                        f, ef = _base_factor(num[yy], den[yy], pc, tot)
                        base_f[rho, j, yy] = f
                        ex = ex or ef != 0.0
                    for yy in range(k):
                        base_num[rho, j, yy] = num[yy]
                        base_den[rho, j, yy] = den[yy]
                    if ex:
                        for yy in range(k):
                            _, base_e[rho, j, yy] = _base_factor(num[yy], den[yy], pc, tot)
                    split_j[rho, j] = ex
                    own_num[rho, j] = num[yr]
                    own_den[rho, j] = den[yr]
                split = False
                for j in range(n_k):
                    split = split or split_j[rho, j]
                base_split[rho] = split
            else:
                depth[rho] = valid
            source[rho] = r
            source_u[rho] = u
            # the held-out row's class: its counts without the row
            pc, tot = per_cell[i], in_total[i]
            flag = False
            if base_split[rho]:  # (rare: a tiny m) some class but the held-out one's
                for j in range(n_k):
                    if split_j[rho, j]:
                        for yy in range(k):
                            if yy != yr and base_e[rho, fj[rho, j], yy] != 0.0:
                                flag = True
            if own_class[rho] != yr:  # (else the same counts, class and amount)
                split = False
                for j in range(n_k):
                    f, e = _base_factor(own_num[rho, j] - u, own_den[rho, j] - u, pc, tot)
                    own_f[rho, j] = f
                    own_e[rho, j] = e
                    if e != 0.0:
                        split = True
                own_class[rho] = yr
                own_split[rho] = split
            if own_split[rho]:
                flag = True
            has_extra[rho] = flag
            if flag:
                any_extra = True
        at = r - r0
        _sweep(prior[yr], (base_f, base_e, own_f, own_e, fj, split_j),
               (missing, has_extra, any_extra, tops), (k, yr, loss_kind),
               (cur, shift, shifted, totals), losses[at])
