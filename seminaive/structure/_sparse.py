"""Family counts stored only where the data reach: one count tree per attribute (the
layout of the hierarchical Dirichlet process trees of Petitjean et al. 2018 and of Zhang et
al. 2020, used here for every estimate).

The tree of attribute i conditions on the class, then on its chain of parents ``chain[i]``
in turn: level 0 is the root, level 1 the classes, level 1 + t the t-th chain parent.  A
node at level 1 + t is a prefix (y, x_c1, .., x_ct) that some training row has; its code is
the mixed-radix number of the prefix (class slowest, the parents' storage codes, 0 for
missing, included) and it holds the counts of the child's storage codes (missing slot
first) over the rows with that prefix.  The nodes of level 1 + t are therefore exactly the
occurring cells of the family (x_i | y, first t chain parents), so one tree holds SKDB's
nested families of every k' <= k.

Nodes are numbered in level order and, within a level, by increasing code; the children of
a node are contiguous (``first_child``, ``n_children``), found by binary search on their
codes.

Counting is a pass through ``source.map_reduce``: every chunk gives, per tree, the sorted
distinct keys ``leaf code * |x_i| + x_i`` of its rows and their summed weights; chunks are
merged by the union of their keys (:func:`merge_keys`).  Trees of no or one parent are read
from the pair tables instead (their keys are the non-zero cells).

Budget: the trees' size is only known after the counting pass, so ``max_table_bytes`` is
checked three times: before the pass, from bounds on the nodes of every level
(:class:`TreeBounds`: at most min(rows, value combinations), at least the occurring cells
of the pair table), refused when even the lower bound does not fit; during the pass, on the
partial counts of every chunk and merge (a subset of the final keys: :class:`PassGuard`);
and exactly after it.
"""

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..exceptions import TableTooLargeError
from ..kernels._jit import njit
from ..kernels._threads import NO_PARFORS, parallel_calls, parts
from ..kernels.smoothing import log_class_priors, log_conditional_estimate
from ..tables import _format_bytes

#: bytes per node of a count tree besides its counts (code, parent, children, offset)
NODE_BYTES = 40
#: a chunk counts its keys directly (bincount, no sort) when they have at most this many
#: possible values (or four per row)
DIRECT_KEYS = 1 << 16
_INT64_MAX = 2 ** 63 - 1


# --------------------------------------------------------------------------------------------
# Counting
# --------------------------------------------------------------------------------------------


def check_key_range(i, chain, sizes, k):
    """Raise when the keys of the tree (i, chain) would not fit int64."""
    span = int(k) * int(sizes[i])
    for p in chain:
        span *= int(sizes[p])
    if span > _INT64_MAX:
        raise TableTooLargeError(
            f"attribute {i} with parents {list(chain)}: {span} value combinations do not "
            "fit 64-bit codes: use fewer parents or fewer values per attribute")


def row_keys(codes, y, i, chain, sizes):
    """Key ``leaf code * sizes[i] + x_i`` of every row in the tree (i, chain), int64."""
    key = np.asarray(y, dtype=np.int64).copy()
    for p in chain:
        key *= int(sizes[p])
        key += codes[:, p]
    key *= int(sizes[i])
    key += codes[:, i]
    return key


def count_keys(codes, y, w, trees, sizes):
    """Per tree (i, chain...) of ``trees``: the sorted distinct keys of the rows and their
    summed weights (float64)."""
    out = []
    k = int(np.max(y, initial=0)) + 1
    for tree in trees:
        keys = row_keys(codes, y, tree[0], tree[1:], sizes)
        if key_span(tree, sizes, k) <= max(DIRECT_KEYS, 4 * keys.size):
            # few possible keys: count them directly (no sort), keep those the rows reach
            reached = np.flatnonzero(np.bincount(keys))
            summed = np.bincount(keys, weights=w)[reached] if w is not None else \
                np.bincount(keys)[reached].astype(np.float64)
            out.append((reached.astype(np.int64), summed))
            continue
        uniq, inverse = np.unique(keys, return_inverse=True)
        out.append((uniq, np.bincount(inverse.ravel(), weights=w,
                                      minlength=uniq.size).astype(np.float64)))
    return out


def merge_keys(a, b):
    """Union of two lists of (keys, counts), tree by tree (counts of a shared key added,
    ``a``'s first)."""
    out = []
    for (ka, ca), (kb, cb) in zip(a, b, strict=True):
        uniq, inverse = np.unique(np.concatenate([ka, kb]), return_inverse=True)
        out.append((uniq, np.bincount(inverse.ravel(), weights=np.concatenate([ca, cb]),
                                      minlength=uniq.size)))
    return out


def table_keys(table, i, chain):
    """(keys, counts) of the tree of attribute i with no or one chain parent, read from the
    pair table (its non-zero cells)."""
    k = table.n_classes
    if len(chain) == 0:
        block = np.asarray(table.block((i,))).T  # (k, s_i)
    else:
        p = int(chain[0])
        block = np.asarray(table.block((i, p)))
        block = block.transpose(2, 1, 0) if i < p else block.transpose(2, 0, 1)
    flat = np.ascontiguousarray(block).reshape(k, -1).ravel()
    keys = np.flatnonzero(flat).astype(np.int64)
    return keys, flat[keys].astype(np.float64)


# --------------------------------------------------------------------------------------------
# Trees
# --------------------------------------------------------------------------------------------


def tree_levels(keys, counts, i, chain, sizes, k):
    """Levels of the count tree of (i, chain) from its sorted keys: a list (root first) of
    (codes, parent index in the level above, counts of shape (nodes, sizes[i])), views of
    one array each (:func:`tree_nodes`, then :func:`tree_counts` into a new array)."""
    nodes = tree_nodes(keys, i, chain, sizes, k)
    return tree_counts(nodes, counts, np.zeros((nodes.n_nodes, int(sizes[i]))))


class TreeNodes(NamedTuple):
    """The nodes of a count tree, every level in one array each, root first (its counts
    not summed yet: :func:`tree_counts`): the nodes' ``codes``, their ``parent`` indices in
    the level above (-1 for the root), the levels' ``starts`` (a list), every key's
    ``leaf`` (its index in the last level) and the sorted ``keys`` (int64)."""

    codes: np.ndarray
    parent: np.ndarray
    starts: list
    leaf: np.ndarray
    keys: np.ndarray
    V: int

    @property
    def n_nodes(self):
        return int(self.starts[-1])


def tree_nodes(keys, i, chain, sizes, k):
    """The :class:`TreeNodes` of the count tree of (i, chain) from its sorted distinct keys
    (one compiled pass per level, :func:`_tree_nodes`)."""
    V = int(sizes[i])
    radices = np.array([int(k)] + [int(sizes[p]) for p in chain], dtype=np.int64)
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    codes, parent, starts, leaf = _tree_nodes(keys, V, radices)
    return TreeNodes(codes, parent, starts.tolist(), leaf, keys, V)


def tree_counts(nodes, counts, level_counts):
    """The levels of a count tree (as :func:`tree_levels` gives them) from its
    :class:`TreeNodes` and its keys' ``counts``, the levels' counts written into
    ``level_counts`` (zeros, shape (nodes.n_nodes, V), C-contiguous; the levels are views
    of it): every node's counts its children's, summed in order (:func:`_tree_counts`),
    or, for fractional counts, as numpy's per-level reductions add them."""
    codes, parent, bounds = nodes.codes, nodes.parent, nodes.starts
    exact = _tree_counts(nodes.keys, np.ascontiguousarray(counts, dtype=np.float64),
                         nodes.V, codes, parent, np.asarray(bounds, dtype=np.int64),
                         nodes.leaf, level_counts)
    if not exact:
        # fractional counts: every level's sums as numpy adds them (its order), so that the
        # counts stay those of the per-level reductions bit for bit
        for t in range(len(bounds) - 2, 0, -1):
            lo, hi = bounds[t], bounds[t + 1]
            if hi > lo:
                first = np.flatnonzero(np.concatenate([[True], parent[lo + 1:hi]
                                                     != parent[lo:hi - 1]]))
                level_counts[bounds[t - 1]:bounds[t]] = np.add.reduceat(
                    level_counts[lo:hi], first, axis=0)
    return [(codes[lo:hi], parent[lo:hi], level_counts[lo:hi])
            for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


@njit(cache=True, nogil=True)
def _tree_nodes(keys, V, radices):
    """The nodes of a count tree from its sorted distinct ``keys`` (``leaf code * V +
    value``), all levels in one array each, root first: the nodes' codes, their parents'
    indices in the level above (-1 for the root), the levels' starts, and every key's leaf
    (its index in the last level).  Level t (1 <= t <= ``radices.size``) holds the distinct
    ``keys // (V * prod(radices[t:]))``."""
    n = keys.size
    depth = radices.size  # the leaves' level
    # every level's codes and its nodes' parents, from the level below (one division per
    # node): row t of ``up`` / ``par``, written (and so their pages touched) only as far
    # as the level's nodes go (not filled: a tree's levels are often much smaller than
    # its keys)
    up = np.empty((depth + 1, max(n, 1)), dtype=np.int64)
    par = np.empty((depth + 1, max(n, 1)), dtype=np.int64)
    leaf = np.empty(n, dtype=np.int64)  # every key's leaf
    size = np.zeros(depth + 1, dtype=np.int64)
    size[0] = 1  # the root, also without rows
    m = 0
    for r in range(n):
        c = keys[r] // V
        if m == 0 or c != up[depth, m - 1]:
            up[depth, m] = c
            m += 1
        leaf[r] = m - 1
    size[depth] = m
    for t in range(depth - 1, 0, -1):
        m = 0
        radix = radices[t]
        for q in range(size[t + 1]):
            c = up[t + 1, q] // radix
            if m == 0 or c != up[t, m - 1]:
                up[t, m] = c
                m += 1
            par[t + 1, q] = m - 1
        size[t] = m
    starts = np.zeros(depth + 2, dtype=np.int64)
    for t in range(depth + 1):
        starts[t + 1] = starts[t] + size[t]
    total = starts[depth + 1]
    codes = np.zeros(total, dtype=np.int64)
    parent = np.empty(total, dtype=np.int64)
    parent[0] = -1
    for t in range(1, depth + 1):
        for q in range(size[t]):
            codes[starts[t] + q] = up[t, q]
            parent[starts[t] + q] = par[t, q] if t > 1 else 0  # (level 1: the root)
    return codes, parent, starts, leaf


@njit(cache=True, nogil=True)
def _tree_counts(keys, counts, V, codes, parent, starts, leaf, level_counts):
    """The counts of a count tree's nodes (written into ``level_counts``, zeros): the
    leaves' are their keys' ``counts`` at their values, every level's its children's,
    summed in order.  Returns whether those sums are exact whatever their order (whole
    counts, none negative, below 2**52 in all): otherwise :func:`tree_counts` sums them
    again in numpy's order."""
    depth = starts.size - 2
    total_count = 0.0
    exact = True
    base = starts[depth]
    for r in range(keys.size):
        c = counts[r]
        total_count += c
        if c < 0.0 or c != math.floor(c):
            exact = False
        g = base + leaf[r]
        level_counts[g, keys[r] - codes[g] * V] = c
    exact = exact and total_count < 2.0 ** 52
    for t in range(depth, 0, -1):
        base = starts[t - 1]
        for q in range(starts[t], starts[t + 1]):
            p = base + parent[q]
            for v in range(V):
                level_counts[p, v] += level_counts[q, v]
    return exact


@dataclass
class TreeArrays:
    """Trees of occurring nodes in flat arrays (every node global): ``code``, ``parent``
    (-1: a root), ``first_child`` / ``n_children`` (children contiguous, by code),
    ``value_off`` (start of the node's values in ``values``), ``root`` (a,) and
    ``level_start`` (a, width): global first node of every level of tree i (levels
    0 .. depth[i] + 1, padded with the end)."""

    code: np.ndarray
    parent: np.ndarray
    first_child: np.ndarray
    n_children: np.ndarray
    value_off: np.ndarray
    values: np.ndarray
    root: np.ndarray
    level_start: np.ndarray
    depth: np.ndarray

    @property
    def nbytes(self):
        return int(sum(getattr(self, f).nbytes for f in self.__dataclass_fields__))

    def local(self, i):
        """(parent with local indices, level starts) of tree i, for the sampler."""
        ls = self.level_start[i, :int(self.depth[i]) + 3]
        start = int(ls[0])
        parent = self.parent[start:int(ls[-1])] - start
        parent[0] = -1
        return parent, ls - start


def assemble_trees(trees, widths, with_values=True):
    """:class:`TreeArrays` of ``trees``: per tree a list of levels (codes, parent index in
    the level above, values of shape (nodes, widths[tree])), every level's nodes and the
    level above's children counted in one compiled pass (:func:`_assemble`).  Without
    ``with_values`` the levels' values are not read (they may be None) and ``values`` is
    empty: the offsets are those of the values, for a caller that fills them in later."""
    depth = np.array([len(levels) - 2 for levels in trees], dtype=np.int64)
    width = int(depth.max(initial=0)) + 3
    n_levels = depth + 2
    level_sizes = np.array([lv[0].size for levels in trees for lv in levels], dtype=np.int64)
    flat = [lv for levels in trees for lv in levels]

    def cat(parts, dtype=np.int64):
        return (np.concatenate(parts).astype(dtype, copy=False) if parts
                else np.zeros(0, dtype))

    code = cat([lv[0] for lv in flat])
    local = cat([lv[1] for lv in flat])
    values = (cat([np.asarray(lv[2], dtype=np.float64).reshape(-1) for lv in flat],
                  np.float64) if with_values else np.zeros(0))
    n = code.size
    parent, first_child, n_children, value_off = (np.empty(n, dtype=np.int64)
                                                  for _ in range(4))
    root = np.zeros(len(trees), dtype=np.int64)
    level_start = np.zeros((len(trees), width), dtype=np.int64)
    _assemble(n_levels, level_sizes, np.asarray(widths, dtype=np.int64)[:len(trees)], local,
              parent, first_child, n_children, value_off, root, level_start)
    return TreeArrays(code, parent, first_child, n_children, value_off, values, root,
                      level_start, depth)


@njit(cache=True, nogil=True)
def _assemble(n_levels, level_sizes, widths, local, parent, first_child, n_children,
              value_off, root, level_start):
    """The global arrays of :func:`assemble_trees` (written): every node's parent (from its
    index ``local`` in the level above; -1 at the roots), first child and number of
    children (children contiguous: those whose ``local`` is the node's, in order; none on
    the last level), values' offset, and every tree's root and level starts (padded with
    the end)."""
    node, value, lvl = 0, 0, 0
    for j in range(n_levels.size):
        nl = n_levels[j]
        V = widths[j]
        root[j] = node
        s = node
        for t in range(nl):
            level_start[j, t] = s
            s += level_sizes[lvl + t]
        for t in range(nl, level_start.shape[1]):
            level_start[j, t] = s
        for t in range(nl):
            lo = level_start[j, t]
            hi = lo + level_sizes[lvl + t]
            for g in range(lo, hi):
                parent[g] = local[g] + level_start[j, t - 1] if t > 0 else -1
                value_off[g] = value + V * (g - lo)
                n_children[g] = 0
                first_child[g] = 0
            value += (hi - lo) * V
            if t + 1 < nl:
                below = level_start[j, t + 1]
                for g in range(below, below + level_sizes[lvl + t + 1]):
                    n_children[lo + local[g]] += 1
                f = below
                for g in range(lo, hi):
                    first_child[g] = f
                    f += n_children[g]
        node = s
        lvl += nl


def hdp_levels(levels, depth):
    """The HDP tree of a count tree cut at level ``depth`` (root 0): the nodes of levels
    0 .. depth with a row observed on the child below them, their leaf counts without the
    missing slot."""
    levels = levels[:depth + 1]
    keep = levels[-1][2][:, 1:].sum(axis=1) > 0
    out = []
    for t in range(depth, -1, -1):
        codes, parent, counts = levels[t]
        if t == 0:
            keep = np.ones(1, dtype=bool)
        index = np.cumsum(keep) - 1
        out.append([codes[keep], parent[keep], counts[keep][:, 1:] if t == depth else None,
                    index])
        if t:
            above = np.zeros(levels[t - 1][0].size, dtype=bool)
            above[parent[keep]] = True
            keep = above
    out = out[::-1]
    for t in range(1, depth + 1):  # parent indices among the kept nodes of the level above
        out[t][1] = out[t - 1][3][out[t][1]]
    return [(c, p, v) for c, p, v, _ in out]


class TreeLevels:
    """The levels of every tree of a :class:`TreeArrays` (``sizes``: every tree's number of
    values, its counts' width), read off its flat arrays when asked for: ``levels[i]`` is
    tree i's list (root first) of (codes, parent index in the level above, counts), as
    :func:`tree_levels` gives them, the codes and counts views of the flat arrays and the
    parent indices computed (the global parents less the level above's start).  The trees
    hold no copy of their nodes' codes and parents besides the flat arrays (16 bytes per
    node that ``max_table_bytes`` did not count)."""

    def __init__(self, arrays, sizes):
        self.arrays = arrays
        self.sizes = sizes

    def __len__(self):
        return int(self.arrays.root.size)

    def __getitem__(self, i):
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        i = int(i) % len(self)
        a = self.arrays
        starts = [int(v) for v in a.level_start[i, :int(a.depth[i]) + 3]]
        root, V = starts[0], int(self.sizes[i])
        base = int(a.value_off[root]) if starts[-1] > root else 0
        out = []
        for t in range(len(starts) - 1):
            lo, hi = starts[t], starts[t + 1]
            parent = a.parent[lo:hi] - (starts[t - 1] if t else 0)
            counts = a.values[base + V * (lo - root):base + V * (hi - root)].reshape(-1, V)
            out.append((a.code[lo:hi], parent, counts))
        return out

    def __iter__(self):
        return (self[i] for i in range(len(self)))


@dataclass
class CountTrees:
    """Per-attribute count trees of occurring nodes: attribute i conditions on the class,
    then on ``chain[i]`` (-1 padding); its family uses the first ``depth[i]`` of them.
    ``arrays``: the trees' :class:`TreeArrays` (values: the child's counts, missing slot
    first); ``levels``: per tree, its levels (codes, parent index, counts;
    :class:`TreeLevels`, read off ``arrays``)."""

    chain: np.ndarray
    depth: np.ndarray
    arrays: TreeArrays
    levels: list


def build_count_trees(table, chains, parents, counted, max_table_bytes=None):
    """The count trees of every attribute i over ``chains[i]``: those of two or more chain
    parents from ``counted`` ({(i, chain...): (keys, counts)}, a pass's result), the others
    from the pair table ``table``; the family of i uses its ``parents[i]`` (-1 padding),
    which must be the first of its chain; a tree of fewer chain parents is taken from
    ``counted`` too when it is there (a tree cut from a deeper one, :func:`cut_keys`).
    Refused (:class:`TableTooLargeError`) when the trees and the pair counts exceed
    ``max_table_bytes``."""
    sizes, k = table.sizes, table.n_classes
    a = table.n_attributes
    depth = _depths(chains, parents)
    nodes, key_counts = [], []
    for i in range(a):
        chain = [int(p) for p in chains[i]]
        if len(chain) >= 2 or (i, *chain) in counted:
            keys, counts = counted[(i, *chain)]
        else:
            keys, counts = table_keys(table, i, chain)
        nodes.append(tree_nodes(keys, i, chain, sizes, k))
        key_counts.append(counts)
    n_nodes = [tree.n_nodes for tree in nodes]
    n_cells = [m * tree.V for m, tree in zip(n_nodes, nodes, strict=True)]
    check_tree_bytes(sum(n_nodes), sum(n_cells), table, max_table_bytes)
    # every tree's counts written in place into the flat values (trees in order, levels
    # in order within a tree: the layout of :func:`assemble_trees`), not copied there
    values = np.zeros(sum(n_cells))
    ends = np.cumsum(n_cells).tolist()
    levels = [tree_counts(tree, counts, values[end - cells:end].reshape(-1, tree.V))
              for tree, counts, cells, end in zip(nodes, key_counts, n_cells, ends,
                                                  strict=True)]
    width = max((len(c) for c in chains), default=0)
    chain = np.full((a, max(width, 1)), -1, dtype=np.int64)
    for i, c in enumerate(chains):
        chain[i, :len(c)] = c
    arrays = assemble_trees(levels, sizes, with_values=False)
    arrays.values = values
    # (the levels' codes and parents, copied into the flat arrays, are not kept)
    return CountTrees(chain, depth, arrays, TreeLevels(arrays, np.asarray(sizes)))


def cut_keys(levels, keys, tree, depth, sizes):
    """(keys, counts) of the count tree of attribute ``tree[0]`` over the first ``depth``
    parents of its chain ``tree[1:]``, cut from that tree's ``levels`` (root first, as
    :func:`tree_levels` gives them) and its sorted distinct ``keys`` (None: a tree read from
    the pair table, whose keys are its non-zero cells).  The cut tree's keys are the
    distinct prefixes of ``keys`` (its nodes are those of the levels 0 .. 1 + ``depth``)
    and their counts are read off level 1 + ``depth``, the sums the whole tree holds: a
    tree built from them (:func:`build_count_trees`) has the same nodes and counts on
    those levels, bit for bit, whatever the weights."""
    i, chain = int(tree[0]), [int(p) for p in tree[1:]]
    V = int(sizes[i])
    codes, _, counts = levels[1 + depth]
    if keys is None:  # the non-zero cells of the level
        node, value = np.nonzero(counts)
        cut = codes[node] * V + value
    else:
        drop = 1
        for p in chain[depth:]:
            drop *= int(sizes[p])
        keys = np.asarray(keys, dtype=np.int64)
        cut = np.unique((keys // V // drop) * V + keys % V)
        node = np.searchsorted(codes, cut // V)
        value = cut % V
    return cut.astype(np.int64), np.array(counts[node, value], dtype=np.float64)


def keys_from_levels(levels, tree, sizes):
    """(keys, counts) of the count tree (i, chain...) read back from its ``levels`` (root
    first, as :func:`tree_levels` gives them): the non-zero cells of its last level and,
    for a node of that level whose counts are all zero (rows of zero weight), its key of
    value 0 with a count of zero.  A tree built from them (:func:`build_count_trees`) has
    the same nodes and counts as the one ``levels`` come from, bit for bit: every key is
    one cell of the last level, whose counts are the keys' own, and the levels above are
    their sums.  Sorted, as the keys :func:`count_keys` gives."""
    V = int(sizes[int(tree[0])])
    codes, _, counts = levels[len(tree)]  # (level 1 + the number of parents)
    kept = np.asarray(counts) != 0
    kept[~kept.any(axis=1), 0] = True
    node, value = np.nonzero(kept)
    return ((np.asarray(codes, dtype=np.int64)[node] * V + value).astype(np.int64),
            np.array(counts[node, value], dtype=np.float64))


def keys_from_trees(trees, counted, sizes):
    """The (keys, counts) of the trees ``counted`` ((i, chain...) each) read back from the
    count trees ``trees`` (a :class:`CountTrees` over ``sizes``; :func:`keys_from_levels`),
    by tree; a tree whose attribute has another chain in ``trees`` is left out."""
    out = {}
    for tree in counted:
        i = int(tree[0])
        if [int(p) for p in trees.chain[i] if p >= 0] == [int(p) for p in tree[1:]]:
            out[tree] = keys_from_levels(trees.levels[i], tree, sizes)
    return out


def with_depths(trees, table, parents, max_table_bytes=None):
    """The count trees ``trees`` (a :class:`CountTrees`) with the families of ``parents``
    instead (the first of each chain; the same trees, shared, not copied), within
    ``max_table_bytes`` as :func:`build_count_trees` checks it."""
    chains = [[int(p) for p in row if p >= 0] for row in trees.chain]
    depth = _depths(chains, parents)
    check_tree_bytes(trees.arrays.code.size, trees.arrays.values.size, table,
                      max_table_bytes)
    return CountTrees(trees.chain, depth, trees.arrays, trees.levels)


def _depths(chains, parents):
    """Number of parents of every attribute, checked to be the first of its chain."""
    depth = np.zeros(len(chains), dtype=np.int64)
    for i, chain in enumerate(chains):
        chain = [int(p) for p in chain]
        pa = [int(p) for p in parents[i] if p >= 0]
        if sorted(chain[:len(pa)]) != sorted(pa):
            raise ValueError(f"attribute {i}: the parents {pa} are not the first of the "
                             f"chain {chain}")
        depth[i] = len(pa)
    return depth


def check_tree_bytes(nodes, cells, table, max_table_bytes):
    """Refuse (:class:`TableTooLargeError`) count trees of ``nodes`` nodes holding
    ``cells`` counts in all that with the pair counts exceed ``max_table_bytes`` (None: no
    budget)."""
    if max_table_bytes is None:
        return
    nodes, cells = int(nodes), int(cells)
    need = NODE_BYTES * nodes + 8 * cells
    if need + table.counts.nbytes > max_table_bytes:
        raise TableTooLargeError(
            f"the family counts ({nodes} occurring nodes, {gib(need)}) and the "
            f"pair counts ({gib(table.counts.nbytes)}) of {describe_data(table)} would "
            f"exceed max_table_bytes={max_table_bytes} ({gib(max_table_bytes)}): use fewer "
            "parents (a smaller k, for the learners that have one), fewer attributes or "
            "fewer values per attribute (fewer intervals per numeric attribute), or raise "
            f"max_table_bytes to at least {gib(need + table.counts.nbytes)}")


# --------------------------------------------------------------------------------------------
# Budget: bounds before counting, a lower bound during the pass
# --------------------------------------------------------------------------------------------


def describe_data(table, n_rows=None):
    """The data a refusal names: rows (when known), attributes, their values (as coded,
    the missing slot left out) and classes."""
    values = np.asarray(table.sizes, dtype=np.int64) - 1
    if n_rows is None and values.size:  # the rows the table counted (their weights)
        n_rows = float(np.asarray(table.block((0,))).sum())
    rows = "" if n_rows is None else (f"{int(n_rows):,} rows, " if float(n_rows).is_integer()
                                      else f"rows of total weight {n_rows:,.1f}, ")
    if not values.size:
        spread = "no values"
    elif values.min() == values.max():
        spread = f"{int(values[0])} values each"
    else:
        spread = (f"{int(values.min())}-{int(values.max())} values, "
                  f"{float(values.mean()):.1f} on average")
    return (f"{rows}{values.size} attributes ({spread}), {int(table.n_classes)} classes")


def gib(n):
    """``n`` bytes in a readable unit (KiB .. TiB), for the refusals' messages."""
    return _format_bytes(float(n))


class TreeBounds:
    """Lower and upper bounds of the bytes of count trees before they are counted, from
    the pair table ``table`` and the number of rows ``n_rows`` (None: unknown).

    Level 1 + t of the tree (i, chain...) holds the occurring prefixes (y, x_c1, ..,
    x_ct): at most min(rows, k * prod of the t parents' sizes) of them (every row adds at
    most one), and at least as many as the occurring cells (y, x_a, x_b) of any two of the
    t parents (the pair table's non-zero cells; (y, x_c1) for t = 1, the classes for
    t = 0), and at least as many as the level above.  The trees of no or one parent are
    read from the pair table: their bound is exact.  The pair table's non-zero cells are
    counted once per combination (cached)."""

    def __init__(self, table, n_rows=None):
        self.table = table
        self.n_rows = None if n_rows is None else int(n_rows)
        self._occurring = {}

    def occurring(self, members):
        """Non-zero cells of the table's block of ``members`` (one or two attributes),
        classes included."""
        key = tuple(sorted(int(m) for m in members))
        if key not in self._occurring:
            self._occurring[key] = int(np.count_nonzero(self.table.block(key)))
        return self._occurring[key]

    def nodes(self, tree):
        """(lower, upper) numbers of nodes of the count tree (i, chain...), the root
        included."""
        i, chain = int(tree[0]), [int(p) for p in tree[1:]]
        sizes, k = self.table.sizes, int(self.table.n_classes)
        classes = int(np.count_nonzero(np.asarray(self.table.block((i,))).sum(axis=0)))
        lower = [classes]
        for t in range(1, len(chain) + 1):
            newest = chain[t - 1]
            level = self.occurring((newest,))
            for p in chain[:t - 1]:
                level = max(level, self.occurring((p, newest)))
            lower.append(max(level, lower[-1]))
        if len(chain) < 2:  # read from the pair table: exact
            return 1 + sum(lower), 1 + sum(lower)
        upper, span = [], k
        for t in range(len(chain) + 1):
            if t:
                span *= int(sizes[chain[t - 1]])
            upper.append(span if self.n_rows is None else min(span, self.n_rows))
        upper = [max(u, lo) for u, lo in zip(upper, lower, strict=True)]
        return 1 + sum(lower), 1 + sum(upper)

    def bytes(self, trees):
        """(lower, upper) bytes of the count trees ``trees`` ((i, chain...) each, with
        its own node counts and counts of the child's values)."""
        low = high = 0
        for tree in trees:
            lo, hi = self.nodes(tree)
            per_node = NODE_BYTES + 8 * int(self.table.sizes[int(tree[0])])
            low += lo * per_node
            high += hi * per_node
        return low, high


def cut_trees(trees, k):
    """The trees ``trees`` (i, chain...) with their chains cut to their first ``k``
    parents (each tree once)."""
    out = []
    for tree in trees:
        cut = tuple(int(v) for v in tree[:1 + k])
        if cut not in out:
            out.append(cut)
    return out


def fitting_k(plans, fixed, budget, big_k, counted_only=False):
    """(largest k < ``big_k`` whose trees fit ``budget`` whatever the rows, largest whose
    lower bound does) over ``plans`` (a list of (:class:`TreeBounds`, trees)), with
    ``fixed`` bytes held besides; None where no k fits.  ``counted_only``: only the trees
    of two or more parents count (those read from the pair table are not checked)."""
    sure = maybe = None
    for k in range(int(big_k) - 1, -1, -1):
        low = high = 0
        for bounds, trees in plans:
            cut = [t for t in cut_trees(trees, k) if not counted_only or len(t) >= 3]
            lo, hi = bounds.bytes(cut)
            low, high = low + lo, high + hi
        if maybe is None and fixed + low <= budget:
            maybe = k
        if fixed + high <= budget:
            sure = k
            break
    return sure, maybe


def k_advice(sure, maybe):
    """The words of a refusal on a smaller k (from :func:`fitting_k`)."""
    if sure is not None and sure == maybe:
        return f"fewer parents (k <= {sure} fits whatever the rows)"
    if sure is not None:
        return (f"fewer parents (k <= {sure} fits whatever the rows; k <= {maybe} may fit, "
                "which only counting tells)")
    if maybe is not None:
        return f"fewer parents (k <= {maybe} may fit, which only counting tells)"
    return "fewer parents (a smaller k)"


def refuse_before_counting(lower, upper, fixed, budget, what, options):
    """Refuse (:class:`TableTooLargeError`) count trees whose ``lower`` bound of bytes
    (:class:`TreeBounds`), with ``fixed`` bytes held besides, exceeds ``budget`` (None:
    no budget), before the pass that would count them; ``what`` names the model and the
    data, ``options`` what would make it fit."""
    if budget is None or fixed + lower <= budget:
        return
    raise TableTooLargeError(
        f"{what}: the family counts (count trees of the occurring nodes) would need at "
        f"least {gib(lower)} (at most {gib(upper)}) besides {gib(fixed)} held already "
        f"(pair counts), more than max_table_bytes={int(budget):,} ({gib(budget)}; "
        f"estimated before counting them): use {options}, or raise max_table_bytes (it "
        f"needs at least {int(fixed + lower):,}; {int(fixed + upper):,} fits whatever the "
        "rows)")


def occurring_nodes(keys, tree, sizes):
    """Number of nodes (root included) of the count tree (i, chain...) of the sorted
    distinct ``keys``, without building it (no sort: the prefixes of sorted keys are
    sorted)."""
    keys = np.asarray(keys)
    if keys.size == 0:
        return 1
    codes = keys // int(sizes[int(tree[0])])
    nodes = 1
    for p in [int(q) for q in tree[1:]][::-1] + [None]:
        nodes += 1 + int(np.count_nonzero(codes[1:] != codes[:-1]))
        if p is not None:
            codes = codes // int(sizes[p])
    return nodes


class PassGuard:
    """A budget check during a counting pass: the trees of any chunk, or of any merge of
    chunks, are a part of the final trees (their keys a subset), so their bytes are a lower
    bound of the final bytes; the pass is refused (:class:`TableTooLargeError`) as soon
    as they, with ``fixed`` bytes held besides, exceed ``budget``.  ``trees`` lists (tree,
    sizes) in the order of the pass's results; ``what`` and ``options`` word the refusal
    (:func:`refuse_before_counting`).  The bytes are counted exactly only when the cheap
    bound (every level with at most as many nodes as keys) does not fit, and then only
    when the keys have at least doubled since the last exact count that fitted
    (:attr:`GROWTH`): a pass's merges grow, and counting every merge's nodes again cost up
    to a sixth of the pass; the pass still stops soon after its trees exceed the budget
    (by the time its keys are at most twice those it had then, besides a chunk's), and the
    exact check after the pass is unchanged."""

    #: an exact count only once the keys have grown by this factor since the last one that
    #: fitted
    GROWTH = 2

    def __init__(self, trees, fixed, budget, what, options):
        self.trees, self.fixed, self.budget = trees, int(fixed), budget
        self.what, self.options = what, options
        self._fitted_keys = 0  # the keys of the last exact count that fitted

    def __call__(self, result):
        """Check a chunk's or a merge's result (a list of (keys, counts)); return it."""
        if self.budget is None or result is None:
            return result
        room = self.budget - self.fixed
        cheap = sum((1 + len(tree) * int(np.size(keys))) * (NODE_BYTES + 8 * int(
            sizes[int(tree[0])])) for (tree, sizes), (keys, _) in zip(self.trees, result,
                                                                       strict=True))
        if cheap <= room:
            return result
        n_keys = sum(int(np.size(keys)) for keys, _ in result)
        if n_keys < self.GROWTH * self._fitted_keys:
            return result  # (a part of the keys counted exactly: not doubled since)
        need = sum(occurring_nodes(keys, tree, sizes) * (NODE_BYTES + 8 * int(
            sizes[int(tree[0])])) for (tree, sizes), (keys, _) in zip(self.trees, result,
                                                                       strict=True))
        if need > room:
            raise TableTooLargeError(
                f"{self.what}: the family counts (count trees of the occurring nodes) of the "
                f"rows counted so far already need {gib(need)} besides {gib(self.fixed)} "
                f"held already (pair counts), more than max_table_bytes={int(self.budget):,} "
                f"({gib(self.budget)}; the counting pass was stopped there): use "
                f"{self.options}, or raise max_table_bytes above {int(self.fixed + need):,}")
        self._fitted_keys = max(self._fitted_keys, n_keys)
        return result


class TreeBundle(NamedTuple):
    """A :class:`TreeArrays`' arrays as the kernels read them, in one typed bundle
    (``values``: the nodes' counts, or their log estimates)."""

    code: np.ndarray
    first_child: np.ndarray
    n_children: np.ndarray
    values: np.ndarray
    value_off: np.ndarray
    root: np.ndarray


def tree_bundle(arrays, values=None):
    """The :class:`TreeBundle` of a :class:`TreeArrays` (``values``: in place of its
    counts)."""
    return TreeBundle(arrays.code, arrays.first_child, arrays.n_children,
                      arrays.values if values is None else values, arrays.value_off,
                      arrays.root)


def score_counts(X, counts, pairs, m, laplace, min_count, out, skip=None, missing_code=None):
    """:func:`sparse_family_scores` of a :class:`CountTrees` with the class and order-1
    counts of ``pairs`` (a :class:`._kernels.PairArrays`); ``skip`` / ``missing_code``:
    Gaussian children (see :func:`sparse_family_scores`)."""
    if skip is None:
        skip = np.zeros(X.shape[1], dtype=np.bool_)
    if missing_code is None:
        missing_code = np.zeros(X.shape[1], dtype=np.int64)
    trees = tree_bundle(counts.arrays)
    n_stack = stack_size(pairs.sizes, counts.chain.shape[1])
    parallel_calls(sparse_family_scores, [
        (X, trees, counts.chain, counts.depth, pairs, (m, laplace, min_count),
         (skip, missing_code), n_stack, lo, hi, out)
        for lo, hi in parts(X.shape[0], X.shape[0] * X.shape[1] * 8)])


# --------------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def find_child(code, first_child, n_children, node, target):
    """The child of ``node`` with code ``target``, or -1 (binary search)."""
    lo = first_child[node]
    end = lo + n_children[node]
    hi = end
    while lo < hi:
        mid = (lo + hi) >> 1
        if code[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and code[lo] == target:
        return lo
    return -1


@njit(cache=True)
def tree_sums(trees, root, chain, d, row, sizes, n_child_values, target, num, den, stack):
    """Counts of the family (x_i | y, ``chain[:d]``) at the parent values of ``row`` from a
    count tree (``trees``: a :class:`TreeBundle`, ``root`` the family's root), parents
    missing in the row summed out (their missing slot included): ``num[y]`` = N(child =
    target, y, parents), ``den[y]`` = N(child observed, y, parents) (``stack``: the walk's).
    Returns the number of rows with those parent values (child missing
    included), or -1 when no parent is observed in ``row`` (as the dense family blocks of
    earlier versions)."""
    code, first_child, n_children, counts, value_off, _ = trees
    k = num.shape[0]
    last = -1
    for t in range(d):
        if row[chain[t]] != 0:
            last = t
    if last < 0:
        return -1.0
    for yy in range(k):
        num[yy] = 0.0
        den[yy] = 0.0
    freq = 0.0
    for yy in range(k):
        c = find_child(code, first_child, n_children, root, yy)
        if c < 0:
            continue
        top = 0
        stack[0] = c
        stack[1] = 0
        top = 1
        while top > 0:
            top -= 1
            g = stack[2 * top]
            t = stack[2 * top + 1]
            if t > last:  # every parent below is missing: this node's counts hold them
                off = value_off[g]
                for v in range(n_child_values):
                    cnt = counts[off + v]
                    freq += cnt
                    if v >= 1:
                        den[yy] += cnt
                    if v == target:
                        num[yy] += cnt
                continue
            p = chain[t]
            xp = row[p]
            if xp != 0:
                ch = find_child(code, first_child, n_children, g, code[g] * sizes[p] + xp)
                if ch >= 0:
                    stack[2 * top] = ch
                    stack[2 * top + 1] = t + 1
                    top += 1
            else:
                for ch in range(first_child[g], first_child[g] + n_children[g]):
                    stack[2 * top] = ch
                    stack[2 * top + 1] = t + 1
                    top += 1
    return freq


def stack_size(sizes, width):
    """Length of the stack :func:`tree_sums` needs for chains of up to ``width`` parents."""
    return 2 * (int(width) * int(np.max(sizes, initial=1)) + 2)


@njit(cache=True, nogil=True, parallel=NO_PARFORS)
def sparse_family_scores(X, trees, chain, depth, pairs, est, gauss, n_stack, r0, r1, out):
    """log P(y) + sum_i log P(x_i | y, pa_i) for rows ``r0 .. r1 - 1`` (the threads of
    :func:`seminaive.kernels._threads.parallel_calls` take disjoint ranges of rows) and
    every class from count trees
    (m-estimates): with the family of attribute i the
    first ``depth[i]`` parents of ``chain[i]`` read from its tree (``root[i]``).

    An attribute with ``skip[i]`` adds no term, or, when ``missing_code[i]`` > 0 is the
    storage code of its value for missing, log P(missing | y, pa_i) if the row has that code
    and log (1 - P(missing | y, pa_i)) otherwise (a Gaussian child under ``missing="value"``:
    its density is added apart).  Parents whose value is missing are summed out of the
    family (exact marginal counts); if no parent is observed, or the observed parent values
    have frequency < ``min_count``, the child uses P(x_i | y) from the order-1 counts of
    ``pairs`` (a :class:`._kernels.PairArrays`).  ``trees`` is a :class:`TreeBundle`,
    ``est`` the estimates' ``(m, laplace, min_count)``, ``gauss`` ``(skip,
    missing_code)``."""
    sizes, k, class_counts = pairs.sizes, pairs.k, pairs.class_counts
    uni_counts, uni_offsets, den_uni = pairs.counts, pairs.uni_offsets, pairs.den_uni
    m, laplace, min_count = est
    skip, missing_code = gauss
    root = trees.root
    _, a = X.shape
    prior = log_class_priors(class_counts, m, laplace)
    num = np.empty(k)
    den = np.empty(k)
    stack = np.empty(n_stack, dtype=np.int64)
    for r in range(r0, r1):
        for yy in range(k):
            out[r, yy] = prior[yy]
        for i in range(a):
            xi = X[r, i]
            if xi == 0 or (skip[i] and missing_code[i] == 0):
                continue
            target = missing_code[i] if skip[i] else xi
            s_i = sizes[i]
            use_family = False
            if depth[i] > 0:
                freq = tree_sums(trees, root[i], chain[i], depth[i], X[r], sizes, s_i, target,
                                 num, den, stack)
                use_family = freq >= 0.0 and freq >= min_count
            if not use_family:
                base = uni_offsets[i] + target * k
                for yy in range(k):
                    num[yy] = uni_counts[base + yy]
                    den[yy] = den_uni[i, yy]
            observed_gaussian = skip[i] and xi != target
            for yy in range(k):
                value = log_conditional_estimate(num[yy], den[yy], s_i - 1, m, laplace)
                if observed_gaussian:
                    value = math.log1p(-math.exp(value))
                out[r, yy] += value


def sparse_tree_scores(X, trees, chain, depth, sizes, k, log_prior, gauss, out):
    """log P(y) + sum_i log P(x_i | y, pa_i) from HDP estimate trees of occurring nodes:
    attribute i walks its tree down the class, then ``chain[i, :depth[i]]`` while the
    row's parent is observed and the node exists, and reads the deepest node reached (the
    dense layout copied the ancestors' estimates into absent nodes: the same numbers).
    ``trees`` is a :class:`TreeBundle` of the estimates (its values the log estimates),
    ``gauss`` the ``(skip, missing_code)`` of :func:`sparse_family_scores`.  The rows go
    to the threads of :func:`seminaive.kernels._threads.parallel_calls` in consecutive
    ranges (:func:`_tree_score_rows`)."""
    parallel_calls(_tree_score_rows, [
        (X, trees, chain, depth, sizes, k, log_prior, gauss, lo, hi, out)
        for lo, hi in parts(X.shape[0], X.shape[0] * X.shape[1] * k * 4)])


@njit(cache=True, nogil=True, parallel=NO_PARFORS)
def _tree_score_rows(X, trees, chain, depth, sizes, k, log_prior, gauss, r0, r1, out):
    """Rows ``r0 .. r1 - 1`` of :func:`sparse_tree_scores`."""
    code, first_child, n_children, log_est, value_off, root = trees
    skip, missing_code = gauss
    _, a = X.shape
    for r in range(r0, r1):
        for yy in range(k):
            out[r, yy] = log_prior[yy]
        for i in range(a):
            xi = X[r, i]
            if xi == 0 or (skip[i] and missing_code[i] == 0):
                continue
            target = missing_code[i] if skip[i] else xi
            observed_gaussian = skip[i] and xi != target
            for yy in range(k):
                g = root[i]
                c = find_child(code, first_child, n_children, g, yy)
                if c >= 0:
                    g = c
                    for t in range(depth[i]):
                        p = chain[i, t]
                        xp = X[r, p]
                        if xp == 0:
                            break
                        c = find_child(code, first_child, n_children, g, code[g] * sizes[p] + xp)
                        if c < 0:
                            break
                        g = c
                value = log_est[value_off[g] + target - 1]
                if observed_gaussian:
                    value = math.log1p(-math.exp(value))
                out[r, yy] += value



# --------------------------------------------------------------------------------------------
# Counted trees: partial_fit and model files
# --------------------------------------------------------------------------------------------


def recode_keys(keys, tree, old_sizes, new_sizes):
    """Keys of the tree (i, chain...) counted with ``old_sizes`` as keys of ``new_sizes``
    (the attributes' extents grow when partial_fit meets new values)."""
    i, chain = tree[0], tree[1:]
    digits = []
    rest = np.asarray(keys, dtype=np.int64)
    for m in (i, *chain[::-1]):
        digits.append(rest % int(old_sizes[m]))
        rest = rest // int(old_sizes[m])
    out = rest
    for m, digit in zip((*chain, i), digits[::-1], strict=True):
        out = out * int(new_sizes[m]) + digit
    return out


def key_span(tree, sizes, k):
    """Number of possible keys of the tree (i, chain...)."""
    span = int(k)
    for m in (*tree[1:], tree[0]):
        span *= int(sizes[m])
    return span


def pack_counted(counted, trees):
    """The model-file arrays of the counted trees (in the order of ``trees``)."""
    parts = [counted[t] for t in trees]
    return {"family_keys": np.concatenate([p[0] for p in parts]).astype(np.int64)
            if parts else np.zeros(0, np.int64),
            "family_key_counts": np.concatenate([p[1] for p in parts]).astype(np.float64)
            if parts else np.zeros(0),
            "family_lengths": np.array([p[0].size for p in parts], dtype=np.int64)}


def unpack_counted(arrays, trees, sizes, k):
    """The counted trees from model-file arrays, validated (ValueError when they do not
    fit)."""
    if "family_counts" in arrays:
        raise ValueError("the model file holds dense family counts, written by a version of "
                         "seminaive before the families became trees of occurring nodes: fit "
                         "the model again")
    missing = [key for key in ("family_keys", "family_key_counts", "family_lengths")
               if key not in arrays]
    if missing:
        raise ValueError(f"family counts missing from the model file: {missing}")
    keys = np.asarray(arrays["family_keys"])
    counts = np.asarray(arrays["family_key_counts"])
    lengths = np.asarray(arrays["family_lengths"])
    if (keys.dtype.kind not in "iu" or counts.dtype != np.float64 or lengths.dtype.kind
            not in "iu" or keys.ndim != 1 or counts.shape != keys.shape
            or lengths.shape != (len(trees),) or np.any(lengths < 0)
            or int(lengths.sum()) != keys.size):
        raise ValueError("family counts: the keys, counts and lengths do not match the "
                         "structure")
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise ValueError("family counts must be finite and non-negative")
    counted, start = {}, 0
    for tree, n in zip(trees, lengths.tolist(), strict=True):
        part = keys[start:start + n].astype(np.int64)
        if n and (np.any(np.diff(part) <= 0) or part[0] < 0
                  or part[-1] >= key_span(tree, sizes, k)):
            raise ValueError(f"family counts of tree {tree}: keys not increasing or out of "
                             "range")
        counted[tree] = (part, counts[start:start + n].copy())
        start += n
    return counted


def tree_bytes(tree, keys, sizes, k):
    """Bytes of the count tree (i, chain...) whose keys are ``keys``: its occurring nodes
    (every level) with their counts."""
    i, chain = tree[0], tree[1:]
    codes = np.unique(np.asarray(keys) // int(sizes[i]))
    nodes = codes.size + 1
    for radix in [int(sizes[p]) for p in chain[::-1]]:
        codes = np.unique(codes // radix)
        nodes += codes.size
    return nodes * (NODE_BYTES + 8 * int(sizes[i]))
