"""KDB, SKDB and ESKDB check their count trees against ``max_table_bytes`` before the pass
that counts them (bounds from the rows and the pair table), during it (the partial counts
are a lower bound), and exactly after it; the refusals name the data, the size, the budget
and what would make the model fit."""

import re

import numpy as np
import pandas as pd
import pytest
from test_structure_common import random_nominal

from seminaive import ESKDB, KDB, SKDB, TableTooLargeError
from seminaive.structure import _sparse
from seminaive.tables import estimate_table_bytes


def _uniform(n, a, values, k, seed=0):
    """Independent uniform nominal attributes (almost every row its own deep prefix)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, values, (n, a)), columns=[f"x{j}" for j in range(a)])
    return X, rng.integers(0, k, n)


def _tree_sizes(model):
    """(tree, exact number of nodes) of every attribute's count tree of a fitted model."""
    counts = model._counts
    out = []
    for i, levels in enumerate(counts.levels):
        chain = [int(p) for p in counts.chain[i] if p >= 0]
        out.append(((i, *chain), sum(lv[0].size for lv in levels)))
    return out


def _no_counting(monkeypatch):
    """Make the counting pass of the families fail the test if it runs."""
    def count_keys(*args, **kwargs):
        raise AssertionError("the families were counted before the refusal")

    monkeypatch.setattr(_sparse, "count_keys", count_keys)


@pytest.mark.parametrize("case", [
    dict(n=400, sizes=[3, 4, 2, 5, 3, 4], k=3, missing=0.0, dependence=0.5, K=4),
    dict(n=300, sizes=[6, 6, 6, 6, 6, 6, 6], k=2, missing=0.2, dependence=0.3, K=5),
    dict(n=50, sizes=[2, 3, 2, 2, 3], k=4, missing=0.1, dependence=0.0, K=3),
    dict(n=2000, sizes=[8, 8, 8, 8, 8], k=2, missing=0.0, dependence=0.0, K=4),
])
@pytest.mark.parametrize("weights", [False, True])
def test_bounds_hold_the_exact_node_counts(case, weights):
    X, y = random_nominal(case["n"], case["sizes"], case["k"], missing=case["missing"],
                          seed=3, dependence=case["dependence"])
    w = None
    if weights:  # fractional weights, some rows of weight 0 (their prefixes still occur)
        w = np.random.default_rng(1).choice([0.0, 0.5, 1.0, 2.5], size=len(y))
    model = SKDB(k=case["K"], select="none", categorical_features="all").fit(
        X, y, sample_weight=w)
    bounds = _sparse.TreeBounds(model.table_, len(y))
    for tree, nodes in _tree_sizes(model):
        lower, upper = bounds.nodes(tree)
        assert lower <= nodes <= upper, (tree, lower, nodes, upper)
        if len(tree) <= 2:  # read from the pair table: exact
            assert lower == nodes == upper
        if len(tree) >= 3:  # counted: the node count of the keys equals the tree's
            keys = model._family_counts[tree][0]
            assert _sparse.occurring_nodes(keys, tree, model.table_.sizes) == nodes
    lower, upper = bounds.bytes([t for t, _ in _tree_sizes(model)])
    exact = sum(n * (_sparse.NODE_BYTES + 8 * int(model.table_.sizes[t[0]]))
                for t, n in _tree_sizes(model))
    assert lower <= exact <= upper


def test_upper_bound_is_reached_by_rows_of_distinct_prefixes():
    # attribute a takes a new value on every row (and sets the class): every row has its
    # own prefix (y, a) and (y, a, b), so those levels hold one node per row
    n = 30
    X = pd.DataFrame({"a": np.arange(n), "b": np.arange(n) % 7, "c": np.arange(n) % 5})
    y = np.arange(n) % 2
    model = KDB(k=2, categorical_features="all").fit(X, y)
    sizes = dict(_tree_sizes(model))
    assert (2, 0, 1) in sizes  # c: parents a, then b
    # root, two classes, then n prefixes at the levels of one and two parents
    assert sizes[(2, 0, 1)] == 1 + 2 + n + n == _sparse.TreeBounds(
        model.table_, n).nodes((2, 0, 1))[1]


def test_kdb_refuses_before_counting(monkeypatch):
    X, y = random_nominal(2000, [12] * 10, 5, seed=2, dependence=0.4)
    pairs = estimate_table_bytes(np.full(10, 12), 5, 2)["total"]
    _no_counting(monkeypatch)
    with pytest.raises(TableTooLargeError) as caught:
        KDB(k=5, categorical_features="all", max_table_bytes=pairs + 1000).fit(X, y)
    message = str(caught.value)
    assert "estimated before counting" in message
    assert "KDB(k=5) on 2,000 rows, 10 attributes (12 values each)" in message
    assert "5 classes" in message
    assert f"max_table_bytes={pairs + 1000:,} (" in message
    assert re.search(r"occurring nodes.*fewer parents \(k <= \d", message)
    assert "raise max_table_bytes (it needs at least" in message
    # k = 1 reads every tree from the pair table: no counting pass, no refusal there
    KDB(k=1, categorical_features="all", max_table_bytes=pairs + 10**6).fit(X, y)


def test_the_advised_k_fits():
    X, y = random_nominal(1500, [9] * 8, 3, seed=4, dependence=0.5)
    budget = estimate_table_bytes(np.full(8, 9), 3, 2)["total"] + 60_000
    with pytest.raises(TableTooLargeError) as caught:
        KDB(k=4, categorical_features="all", max_table_bytes=budget).fit(X, y)
    found = re.search(r"k <= (\d+) fits whatever the rows", str(caught.value))
    assert found, str(caught.value)
    KDB(k=int(found.group(1)), categorical_features="all", max_table_bytes=budget).fit(X, y)


def test_skdb_refuses_before_counting(monkeypatch):
    X, y = random_nominal(1000, [10] * 8, 3, seed=5, dependence=0.3)
    pairs = estimate_table_bytes(np.full(8, 10), 3, 2)["total"]
    _no_counting(monkeypatch)
    with pytest.raises(TableTooLargeError, match=r"SKDB\(k=4\) on 1,000 rows.*occurring "
                       r"nodes.*estimated before counting.*fewer parents"):
        SKDB(k=4, categorical_features="all", max_table_bytes=pairs + 2000).fit(X, y)


def test_eskdb_refuses_before_counting(monkeypatch):
    X, y = random_nominal(1000, [10] * 8, 3, seed=5, dependence=0.3)
    pairs = estimate_table_bytes(np.full(8, 10), 3, 2)["total"]
    _no_counting(monkeypatch)
    with pytest.raises(TableTooLargeError) as caught:
        ESKDB(n_estimators=3, k=4, n_iter=5, categorical_features="all",
              max_table_bytes=pairs + 2000, random_state=0).fit(X, y)
    message = str(caught.value)
    assert re.search(r"ESKDB\(n_estimators=3, k=4\) on 1,000 rows, 8 attributes", message)
    assert "families of the 3 members" in message and "occurring nodes" in message
    assert "estimated before counting" in message
    assert "fewer parents" in message and "fewer members (n_estimators)" in message


def test_eskdb_per_member_refuses_before_counting(monkeypatch):
    rng = np.random.default_rng(11)
    n = 20_000
    X = pd.DataFrame({c: rng.normal(size=n) for c in "abcdef"})
    y = np.where(X["a"] + X["b"] - X["c"] * X["d"] + rng.logistic(size=n) > 0, 1, 0)
    probe = ESKDB(n_estimators=3, k=3, n_iter=5, random_state=0,
                  smoothing="m_estimate").fit(X, y)
    # the ensemble's pair table (on the union of the cut points) fits, the members' trees
    # do not, even one member's at a time
    budget = estimate_table_bytes(probe.table_.sizes - 1, 2, 2)["total"] + 3000
    _no_counting(monkeypatch)
    with pytest.raises(TableTooLargeError) as caught:
        ESKDB(n_estimators=3, k=3, n_iter=5, random_state=0, smoothing="m_estimate",
              max_table_bytes=budget).fit(X, y)
    message = str(caught.value)
    assert "families of the 3 members, each on its own discretisation" in message
    assert "estimated before counting" in message
    assert 'discretization="shared"' in message and "n_bins" in message


def test_refused_during_the_pass(monkeypatch):
    # the bound before counting fits, the rows of the first chunks already do not
    X, y = _uniform(4000, 8, 12, 2)
    model = KDB(k=4, categorical_features="all").fit(X, y)
    trees = [t for t, _ in _tree_sizes(model)]
    lower, _ = _sparse.TreeBounds(model.table_, len(y)).bytes(trees)
    budget = model.table_.counts.nbytes + lower + 1
    exact = sum(n * (_sparse.NODE_BYTES + 8 * int(model.table_.sizes[t[0]]))
                for t, n in _tree_sizes(model))
    assert model.table_.counts.nbytes + exact > 2 * budget
    calls = []
    count_keys = _sparse.count_keys

    def counting(codes, *args, **kwargs):
        calls.append(codes.shape[0])
        return count_keys(codes, *args, **kwargs)

    monkeypatch.setattr(_sparse, "count_keys", counting)
    chunks = [X.iloc[s:s + 500].assign(label=y[s:s + 500]) for s in range(0, 4000, 500)]
    with pytest.raises(TableTooLargeError, match="counting pass was stopped there"):
        KDB(k=4, categorical_features="all", max_table_bytes=budget).fit_stream(
            chunks, "label")
    assert 0 < len(calls) < len(chunks)  # stopped before the last chunk


def test_the_exact_check_decides_between_the_bounds():
    X, y = _uniform(3000, 6, 10, 2, seed=1)
    model = KDB(k=3, categorical_features="all").fit(X, y)
    arrays = model._counts.arrays
    need = (_sparse.NODE_BYTES * arrays.code.size + 8 * arrays.values.size
            + model.table_.counts.nbytes)
    lower, upper = _sparse.TreeBounds(model.table_, len(y)).bytes(
        [t for t, _ in _tree_sizes(model)])
    assert model.table_.counts.nbytes + lower < need < model.table_.counts.nbytes + upper
    fitted = KDB(k=3, categorical_features="all", max_table_bytes=need).fit(X, y)
    np.testing.assert_array_equal(fitted.predict_proba(X), model.predict_proba(X))
    with pytest.raises(TableTooLargeError) as caught:
        KDB(k=3, categorical_features="all", max_table_bytes=need - 1).fit(X, y)
    message = str(caught.value)
    assert "3,000 rows, 6 attributes" in message and "occurring nodes" in message
    assert "fewer parents" in message and "estimated before counting" not in message


def test_no_budget_no_bounds(monkeypatch):
    X, y = random_nominal(300, [4] * 6, 2, seed=8, dependence=0.5)

    def bounds(*args, **kwargs):
        raise AssertionError("bounds computed without a budget")

    monkeypatch.setattr(_sparse, "TreeBounds", bounds)
    KDB(k=3, categorical_features="all", max_table_bytes=None).fit(X, y)
