"""The count trees' levels and flat arrays (compiled, :func:`seminaive.structure._sparse.
tree_levels` and :func:`~seminaive.structure._sparse.assemble_trees`) against a brute-force
construction in numpy: every level's distinct prefixes, their parents, their counts summed
from the keys (whole counts: exactly; fractional counts: as numpy's per-level reductions add
them, bit for bit), and every node's children found by search."""

import numpy as np
import pytest

from seminaive.structure import _sparse


def _reference_levels(keys, counts, chain, sizes, k, V):
    """Root first: (codes, parent index, counts) of every level, by numpy per level."""
    codes = keys // V
    uniq = np.unique(codes)
    level_counts = np.zeros((uniq.size, V))
    level_counts[np.searchsorted(uniq, codes), keys % V] = counts
    levels = []
    radices = [k] + [int(sizes[p]) for p in chain]
    for radix in radices[::-1]:
        up = np.unique(uniq // radix)
        parent = np.searchsorted(up, uniq // radix)
        levels.append((uniq, parent, level_counts))
        starts = np.flatnonzero(np.concatenate([[True], parent[1:] != parent[:-1]])) \
            if parent.size else np.zeros(0, dtype=np.int64)
        level_counts = (np.add.reduceat(level_counts, starts, axis=0) if starts.size
                        else np.zeros((0, V)))
        uniq = up
    levels.append((np.zeros(1, dtype=np.int64), np.full(1, -1),
                   level_counts if uniq.size else np.zeros((1, V))))
    return levels[::-1]


def _random_tree(rng, fractional):
    k = int(rng.integers(1, 5))
    V = int(rng.integers(1, 6))
    chain = list(range(int(rng.integers(0, 4))))
    sizes = rng.integers(1, 5, size=6)
    sizes[5] = V
    span = k * V * int(np.prod(sizes[chain]))
    n = int(rng.integers(0, min(span, 60) + 1))
    keys = np.sort(rng.choice(span, size=n, replace=False)).astype(np.int64)
    counts = rng.integers(1, 9, size=n).astype(np.float64)
    if fractional:
        counts += rng.random(n)
    return keys, counts, chain, sizes, k, V


@pytest.mark.parametrize("fractional", [False, True])
def test_tree_levels_are_the_per_level_reductions(fractional):
    rng = np.random.default_rng(7)
    for _ in range(200):
        keys, counts, chain, sizes, k, V = _random_tree(rng, fractional)
        got = _sparse.tree_levels(keys, counts, 5, chain, sizes, k)
        want = _reference_levels(keys, counts, chain, sizes, k, V)
        assert len(got) == len(want) == len(chain) + 2
        for (gc, gp, gv), (wc, wp, wv) in zip(got, want, strict=True):
            np.testing.assert_array_equal(gc, wc)
            np.testing.assert_array_equal(gp, wp)
            assert gv.shape == wv.shape
            np.testing.assert_array_equal(gv, wv)  # bit for bit
        # every level's counts add up to the keys' (the root holds them all)
        np.testing.assert_allclose(got[0][2].sum(), counts.sum(), rtol=1e-12)


def test_tree_levels_fractional_sums_follow_numpy_order():
    # 8 and more children: numpy's reductions do not add them one by one; the levels must
    # still be its sums (not only close to them)
    rng = np.random.default_rng(1)
    keys = np.arange(40, dtype=np.int64) * 2  # class 0..39 // 20 -> two classes, V = 2
    counts = rng.random(40) * 10
    got = _sparse.tree_levels(keys, counts, 1, [0], np.array([20, 2]), 2)
    want = _reference_levels(keys, counts, [0], np.array([20, 2]), 2, 2)
    for (_, _, gv), (_, _, wv) in zip(got, want, strict=True):
        np.testing.assert_array_equal(gv, wv)


def test_assemble_trees_finds_every_nodes_children():
    rng = np.random.default_rng(3)
    trees, widths = [], []
    for j in range(12):
        keys, counts, chain, sizes, k, V = _random_tree(rng, j % 2 == 1)
        trees.append(_sparse.tree_levels(keys, counts, 5, chain, sizes, k))
        widths.append(V)
    arrays = _sparse.assemble_trees(trees, widths)
    node = 0
    for j, levels in enumerate(trees):
        assert arrays.root[j] == node
        assert arrays.depth[j] == len(levels) - 2
        starts = node + np.cumsum([0] + [lv[0].size for lv in levels])
        np.testing.assert_array_equal(arrays.level_start[j, :starts.size], starts)
        assert (arrays.level_start[j, starts.size:] == starts[-1]).all()
        for t, (codes, parent, values) in enumerate(levels):
            glob = np.arange(starts[t], starts[t + 1])
            np.testing.assert_array_equal(arrays.code[glob], codes)
            np.testing.assert_array_equal(
                arrays.parent[glob], parent + starts[t - 1] if t else np.full(codes.size, -1))
            for q, g in enumerate(glob):
                off = arrays.value_off[g]
                np.testing.assert_array_equal(arrays.values[off:off + widths[j]], values[q])
                if t + 1 < len(levels):
                    kids = np.flatnonzero(levels[t + 1][1] == q) + starts[t + 1]
                    first = np.searchsorted(levels[t + 1][1], q) + starts[t + 1]
                    assert arrays.first_child[g] == first
                    assert arrays.n_children[g] == kids.size
                    if kids.size:
                        assert kids[0] == first and kids[-1] == first + kids.size - 1
                else:
                    assert arrays.n_children[g] == 0
        node = int(starts[-1])
    assert arrays.code.size == node


def test_assemble_trees_without_values_keeps_the_offsets():
    rng = np.random.default_rng(5)
    trees, widths = [], []
    for j in range(8):
        keys, counts, chain, sizes, k, V = _random_tree(rng, j % 2 == 0)
        trees.append(_sparse.tree_levels(keys, counts, 5, chain, sizes, k))
        widths.append(V)
    full = _sparse.assemble_trees(trees, widths)
    bare = _sparse.assemble_trees([[(c, p, None) for c, p, _ in levels] for levels in trees],
                                  widths, with_values=False)
    assert bare.values.size == 0
    for field in ("code", "parent", "first_child", "n_children", "value_off", "root",
                  "level_start", "depth"):
        np.testing.assert_array_equal(getattr(bare, field), getattr(full, field))
    # the offsets address exactly the values the full assembly holds
    assert full.values.size == sum(lv[0].size * w for levels, w in zip(trees, widths, strict=True)
                                   for lv in levels)


@pytest.mark.parametrize("weighted", [False, True])
def test_build_count_trees_writes_the_levels_in_place(weighted):
    # the trees' counts written into the flat values are those of tree_levels assembled by
    # assemble_trees (copying the levels), bit for bit, fractional (weighted) counts too
    from seminaive.tables import FrequencyTable

    rng = np.random.default_rng(11)
    sizes, k, n = np.array([3, 4, 2, 5, 3]), 3, 300
    codes = np.stack([rng.integers(0, s + 1, n) for s in sizes], axis=1).astype(np.int64)
    y = rng.integers(0, k, n).astype(np.int64)
    w = rng.random(n) * 3 if weighted else None
    table = FrequencyTable(sizes, k, 2)
    table.add(codes, y, w)
    chains = [[], [0], [1, 0], [2, 1, 0], [3, 0]]
    parents = np.array([[-1, -1], [0, -1], [1, 0], [2, -1], [3, 0]])
    multi = [(i, *c) for i, c in enumerate(chains) if len(c) >= 2]
    counted = dict(zip(multi, _sparse.count_keys(codes, y, w, multi, table.sizes),
                       strict=True))
    built = _sparse.build_count_trees(table, chains, parents, counted)
    levels = []
    for i, chain in enumerate(chains):
        keys, counts = (counted[(i, *chain)] if len(chain) >= 2
                        else _sparse.table_keys(table, i, chain))
        levels.append(_sparse.tree_levels(keys, counts, i, chain, table.sizes, k))
    want = _sparse.assemble_trees(levels, table.sizes)
    for field in ("code", "parent", "first_child", "n_children", "value_off", "values",
                  "root", "level_start", "depth"):
        np.testing.assert_array_equal(getattr(built.arrays, field), getattr(want, field))
    for got_tree, want_tree in zip(built.levels, levels, strict=True):
        for (gc, gp, gv), (wc, wp, wv) in zip(got_tree, want_tree, strict=True):
            np.testing.assert_array_equal(gc, wc)
            np.testing.assert_array_equal(gp, wp)
            np.testing.assert_array_equal(gv, wv)
    # the levels are views of the flat values
    assert all(np.shares_memory(lv[2], built.arrays.values)
               for tree in built.levels for lv in tree if lv[2].size)
    if weighted:
        assert not float(built.arrays.values.sum()).is_integer()


def test_tree_nodes_of_deep_trees_are_the_per_level_prefixes():
    """Deeper chains and more keys than :func:`_random_tree`: every level's codes and
    parents, the levels' starts and every key's leaf as numpy finds them."""
    rng = np.random.default_rng(11)
    for _ in range(100):
        k = int(rng.integers(1, 6))
        sizes = rng.integers(1, 7, size=8)
        chain = [int(p) for p in rng.permutation(7)[:int(rng.integers(0, 7))]]
        V = int(sizes[7])
        span = k * V * int(np.prod(sizes[chain]))
        n = int(rng.integers(0, min(span, 400) + 1))
        keys = np.sort(rng.choice(span, size=n, replace=False)).astype(np.int64)
        nodes = _sparse.tree_nodes(keys, 7, chain, sizes, k)
        want = _reference_levels(keys, np.ones(n), chain, sizes, k, V)
        starts = np.cumsum([0] + [lv[0].size for lv in want])
        assert nodes.starts == starts.tolist()
        np.testing.assert_array_equal(nodes.codes, np.concatenate([lv[0] for lv in want]))
        np.testing.assert_array_equal(nodes.parent, np.concatenate([lv[1] for lv in want]))
        np.testing.assert_array_equal(nodes.leaf, np.searchsorted(want[-1][0], keys // V))
