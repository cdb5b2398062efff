"""The bytes a learner's count trees hold (``_held_bytes``, what ESKDB plans its members'
memory with) are their flat arrays: their levels (codes, parent indices, counts) are read
off the flat arrays when asked for (:class:`seminaive.structure._sparse.TreeLevels`), not
held besides them (before: 16 bytes per node that ``_held_bytes`` did not count)."""

import gc
import tracemalloc

import numpy as np
import pandas as pd
from test_structure_common import random_nominal

from seminaive import ESKDB, KDB
from seminaive.structure import _sparse


def _mixed(n=1200, seed=11):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], size=n)),
                      "d": rng.normal(size=n)})
    y = (1.5 * X["a"] - X["b"] ** 2 + (X["c"] == "u") + rng.logistic(size=n) > 0)
    return X, y.astype(int).to_numpy()


def test_held_bytes_count_the_levels():
    """The memory a KDB's fit leaves allocated (tracemalloc) exceeds its pair table and
    ``_held_bytes`` by less than half of 16 bytes per node (before: by more than 16 bytes
    per node, the levels' codes and parents held and not counted); the levels read off
    the flat arrays are those the trees were built from (codes and counts views)."""
    X, y = random_nominal(20000, [12] * 8, 3, seed=4, dependence=0.3)
    KDB(k=3, categorical_features="all").fit(X[:200], y[:200])  # (compiled)
    gc.collect()
    tracemalloc.start()
    try:
        model = KDB(k=3, categorical_features="all").fit(X, y)
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    counts = model._counts
    nodes = counts.arrays.code.size
    accounted = model.table_.nbytes + model._held_bytes()
    assert accounted <= retained < accounted + 8 * nodes
    assert model._held_bytes() == counts.arrays.nbytes
    sizes, k = model.table_.sizes, model.table_.n_classes
    for i, levels in enumerate(counts.levels):
        tree = (i, *[int(p) for p in counts.chain[i] if p >= 0])
        keys, key_counts = _sparse.keys_from_levels(levels, tree, sizes)
        want = _sparse.tree_levels(keys, key_counts, i, list(tree[1:]), sizes, k)
        assert len(levels) == len(want) == len(tree) + 1
        for (c, p, v), (wc, wp, wv) in zip(levels, want, strict=True):
            np.testing.assert_array_equal(c, wc)
            np.testing.assert_array_equal(p, wp)
            np.testing.assert_array_equal(v, wv)
            assert np.shares_memory(c, counts.arrays.code) or not c.size
            assert np.shares_memory(v, counts.arrays.values) or not v.size


def test_members_trees_bytes_are_what_they_hold():
    """ESKDB plans a member's count trees by :func:`_sparse.tree_bytes` of their keys: the
    trees built hold those bytes and no more (their flat arrays, less the per-tree level
    starts and roots; no copy of their levels)."""
    X, y = _mixed()
    ens = ESKDB(n_estimators=2, k=2, smoothing="hls", random_state=0,
                max_table_bytes=None).fit(X, y)
    k = ens.table_.n_classes
    for member in ens.estimators_:
        counts, sizes = member._counts, member.table_.sizes
        planned = 0
        for i in range(member.table_.n_attributes):
            tree = (i, *[int(p) for p in counts.chain[i] if p >= 0])
            keys = _sparse.keys_from_levels(counts.levels[i], tree, sizes)[0]
            planned += _sparse.tree_bytes(tree, keys, sizes, k)
        arrays = counts.arrays
        small = arrays.root.nbytes + arrays.level_start.nbytes + arrays.depth.nbytes
        assert planned == member._held_bytes() - member._trees.arrays.nbytes \
            - member._trees.log_estimates.nbytes - small
