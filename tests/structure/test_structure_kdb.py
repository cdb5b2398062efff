"""KDB(k): k = 0 is naive Bayes, structure recovery, probabilities against direct counting,
second counting pass, partial_fit, budget, save/load."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sparse_cases import family_blocks
from test_structure_common import family_reference, random_nominal, training_codes

from seminaive import KDB, NaiveBayes, TableTooLargeError, load
from seminaive.structure.kdb import kdb_parents
from seminaive.tables import CombinationTable, estimate_table_bytes


@pytest.mark.parametrize("smoothing, missing", [("m_estimate", "ignore"), ("laplace", "ignore"),
                                                ("m_estimate", "value")])
def test_k0_is_naive_bayes(smoothing, missing):
    X, y = random_nominal(300, [3, 2, 4, 3], 3, missing=0.1, seed=0)
    params = dict(categorical_features="all", smoothing=smoothing, missing=missing, m=0.5)
    kdb = KDB(k=0, **params).fit(X, y)
    nb = NaiveBayes(**params).fit(X, y)
    Xt, _ = random_nominal(50, [3, 2, 4, 3], 3, missing=0.2, seed=1)
    assert_allclose(kdb.predict_proba(Xt), nb.predict_proba(Xt), rtol=1e-13)
    assert (kdb.structure_ < 0).all()


def test_kdb_parents_by_hand():
    mi = np.array([0.1, 0.5, 0.3, 0.2])  # ranking: 1, 2, 3, 0
    cmi = np.array([[0, .4, .1, .3],
                    [.4, 0, .2, .1],
                    [.1, .2, 0, .5],
                    [.3, .1, .5, 0]])
    parents, order = kdb_parents(mi, cmi, 2)
    assert_array_equal(order, [1, 2, 3, 0])
    # 1: none; 2: {1}; 3: best of {1, 2} by CMI -> 2 (.5), 1 (.1); 0: of {1, 2, 3}: 1 (.4), 3 (.3)
    assert_array_equal(parents, [[1, 3], [-1, -1], [1, -1], [1, 2]])
    parents1, _ = kdb_parents(mi, cmi, 1)
    assert_array_equal(parents1[:, 0], [1, -1, 1, 2])


def _tree_data(n, seed):
    """Y -> every attribute; attribute tree 0 -> 1 -> 2, 0 -> 3, 1 -> 4; each attribute
    depends on the class only through its parent, so I(X; Y) decreases down the tree."""
    rng = np.random.default_rng(seed)
    parent = [-1, 0, 1, 0, 1]
    y = rng.integers(0, 2, n)
    X = np.zeros((n, 5), dtype=int)
    for i, p in enumerate(parent):
        base = y * 2 if p < 0 else X[:, p]
        X[:, i] = np.where(rng.random(n) < 0.8, base, rng.integers(0, 4, n))
    return X, y, parent


def test_kdb1_recovers_a_known_tree():
    X, y, parent = _tree_data(6000, 0)
    model = KDB(k=1, categorical_features="all").fit(X, y)
    assert_array_equal(model.structure_[:, 0], parent)
    assert_array_equal(model.order_[:1], [0])


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("smoothing, min_count", [("m_estimate", 1), ("laplace", 3)])
def test_scores_match_direct_counting(k, smoothing, min_count):
    X, y = random_nominal(250, [3, 2, 4, 3, 2, 3], 2, missing=0.15, seed=2, dependence=0.4)
    model = KDB(k=k, categorical_features="all", smoothing=smoothing,
                min_count=min_count).fit(X, y)
    assert ((model.structure_ >= 0).sum(axis=1) == np.minimum(np.arange(6), k)[
        np.argsort(model.order_)]).all()
    codes = training_codes(model, X)
    Xt, _ = random_nominal(25, [3, 2, 4, 3, 2, 3], 2, missing=0.3, seed=3)
    test_codes = training_codes(model, Xt)
    parents = [[p for p in row if p >= 0] for row in model.structure_]
    ours = model.joint_log_likelihood(Xt)
    for r in range(25):
        ref = family_reference(codes, y, 2, model.table_.sizes, parents, test_codes[r],
                               laplace=smoothing == "laplace", min_count=min_count)
        assert_allclose(ours[r], ref, rtol=1e-12)
    assert_allclose(model.predict_proba(Xt).sum(axis=1), 1.0)


def test_partial_fit_equals_fit_for_k1_and_for_stable_structures():
    X, y = random_nominal(400, [3, 2, 4, 3, 2], 2, missing=0.1, seed=4, dependence=0.5)
    frame = pd.DataFrame(X).astype("category")
    full = KDB(k=1).fit(frame, y)
    inc = KDB(k=1)
    for chunk in np.array_split(np.arange(400), 3):
        inc.partial_fit(frame.iloc[chunk], y[chunk], classes=[0, 1])
    assert_allclose(full.predict_proba(frame), inc.predict_proba(frame), rtol=1e-12)
    # k = 3, the same rows twice: MI / CMI (and so the structure) do not change
    doubled = pd.concat([frame, frame], ignore_index=True)
    full3 = KDB(k=3).fit(doubled, np.concatenate([y, y]))
    inc3 = KDB(k=3).partial_fit(frame, y, classes=[0, 1]).partial_fit(frame, y)
    assert_array_equal(full3.structure_, inc3.structure_)
    assert_allclose(full3.predict_proba(frame), inc3.predict_proba(frame), rtol=1e-12)


def test_partial_fit_keeps_the_structure_and_every_row():
    """KDB(k >= 2).partial_fit keeps the structure of the first chunk when later chunks
    would change it (their families were never counted on the earlier rows), warns, and
    counts every row into every family: no counted row is dropped (issue "A tool people use
    every day": the earlier behaviour restarted a changed family from the newest chunk)."""
    rng = np.random.default_rng(5)
    n = 3000
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 3, (n, 5))
    X[:, 0] = np.where(rng.random(n) < 0.9, y, X[:, 0])
    first = X.copy()
    first[:, 4] = np.where(rng.random(n) < 0.8, (first[:, 0] + first[:, 1]) % 3, first[:, 4])
    second = X.copy()
    second[:, 4] = np.where(rng.random(n) < 0.8, (second[:, 2] + second[:, 3]) % 3,
                            second[:, 4])
    model = KDB(k=2, categorical_features="all").partial_fit(first[:300], y[:300],
                                                             classes=[0, 1])
    before = [tuple(r) for r in model.structure_]
    with pytest.warns(UserWarning, match="KDB.partial_fit keeps the structure"):
        model.partial_fit(second, y)
    assert before == [tuple(r) for r in model.structure_]
    # fit on all the rows would choose other parents: that is what the warning says
    refit = KDB(k=2, categorical_features="all").fit(np.vstack([first[:300], second]),
                                                     np.concatenate([y[:300], y]))
    assert before != [tuple(r) for r in refit.structure_]
    full_codes = training_codes(model, np.vstack([first[:300], second]))
    ys = np.concatenate([y[:300], y])
    blocks = family_blocks(model)
    assert blocks
    for family, block in blocks.items():
        assert_array_equal(block,
                           CombinationTable([family], model.table_.sizes - 1, 2)
                           .add(full_codes, ys).block(0))


def test_budget_refuses_families_before_allocating():
    X, y = random_nominal(100, [4] * 8, 2, seed=6, dependence=0.3)
    pairs_only = estimate_table_bytes(np.full(8, 4), 2, 2)["total"]
    KDB(k=1, categorical_features="all", max_table_bytes=pairs_only).fit(X, y)
    with pytest.raises(TableTooLargeError, match="fewer parents"):
        KDB(k=5, categorical_features="all", max_table_bytes=pairs_only + 1000).fit(X, y)


def test_save_load(tmp_path):
    X, y = random_nominal(300, [3, 2, 4, 3, 2], 3, missing=0.1, seed=7, dependence=0.5)
    model = KDB(k=3, categorical_features="all", smoothing="laplace").fit(X, y)
    model.save(tmp_path / "kdb.npz")
    loaded = load(tmp_path / "kdb.npz")
    assert_array_equal(loaded.structure_, model.structure_)
    assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    state = model._learned_state()
    with pytest.raises(ValueError, match="family counts"):
        model._set_learned_state({**state, "family_key_counts":
                                  state["family_key_counts"][:-1]})
    too_many = np.column_stack([state["parents"], np.full(5, -1)])
    too_many[4] = [0, 1, 2, 3]
    with pytest.raises(ValueError, match="at most 3"):
        model._set_learned_state({**state, "parents": too_many})


def test_column_permutation_invariance():
    X, y = random_nominal(500, [3, 2, 4, 3, 2, 3], 2, missing=0.05, seed=8, dependence=0.5)
    perm = np.array([2, 5, 0, 4, 1, 3])
    a = KDB(k=2, categorical_features="all").fit(X, y)
    b = KDB(k=2, categorical_features="all").fit(X[:, perm], y)
    assert_allclose(a.predict_proba(X), b.predict_proba(X[:, perm]), rtol=1e-12)


@pytest.mark.parametrize("k", [-1, 1.5, "2", True])
def test_bad_k_is_refused(k):
    X, y = random_nominal(50, [3, 2], 2, seed=9)
    with pytest.raises(ValueError, match="k must be a non-negative integer"):
        KDB(k=k, categorical_features="all").fit(X, y)
