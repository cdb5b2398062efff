"""TAN: spanning tree against brute force, probabilities against direct counting and Weka,
invariants (fit == partial_fit, column order, save/load)."""

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from test_structure_common import family_reference, random_nominal, training_codes

from seminaive import TAN, load
from seminaive.structure.tan import maximum_spanning_tree

DATA = Path(__file__).resolve().parents[1] / "data"
FIXTURE = json.loads((DATA / "weka_structure.json").read_text())


def _tree_weight(parents, weights):
    return sum(weights[i, p] for i, p in enumerate(parents) if p >= 0)


def _brute_force_max_tree_weight(weights):
    """Best total weight over every spanning tree (all (a-1)-edge subsets without cycles)."""
    a = weights.shape[0]
    edges = list(itertools.combinations(range(a), 2))
    best = -np.inf
    for subset in itertools.combinations(edges, a - 1):
        root = list(range(a))

        def find(v, root=root):
            while root[v] != v:
                v = root[v]
            return v

        ok = True
        for u, v in subset:
            ru, rv = find(u), find(v)
            if ru == rv:
                ok = False
                break
            root[ru] = rv
        if ok:
            best = max(best, sum(weights[u, v] for u, v in subset))
    return best


def _is_tree(parents, root):
    a = len(parents)
    assert parents[root] == -1 and (parents < 0).sum() == 1
    for i in range(a):  # every attribute reaches the root
        seen, v = set(), i
        while v != root:
            assert v not in seen
            seen.add(v)
            v = parents[v]
    return True


@pytest.mark.parametrize("seed", range(5))
def test_maximum_spanning_tree_is_maximal(seed):
    rng = np.random.default_rng(seed)
    a = 6
    w = rng.random((a, a))
    w = (w + w.T) / 2
    w[rng.random((a, a)) < 0.3] = 0.0  # zero weights are still edges
    w = np.triu(w, 1) + np.triu(w, 1).T
    root = int(rng.integers(a))
    parents = maximum_spanning_tree(w, root)
    assert _is_tree(parents, root)
    assert _tree_weight(parents, w) == pytest.approx(_brute_force_max_tree_weight(w))


def test_all_zero_weights_still_give_a_spanning_tree():
    parents = maximum_spanning_tree(np.zeros((5, 5)), 2)
    assert _is_tree(parents, 2)


def test_fitted_tree_is_maximum_spanning_tree_of_its_cmi():
    X, y = random_nominal(500, [3, 2, 4, 3, 2, 3], 2, missing=0.1, seed=1, dependence=0.5)
    model = TAN(categorical_features="all").fit(X, y)
    cmi = model.conditional_mutual_info_
    assert model.root_ == int(np.argmax(model.mutual_info_))
    assert _is_tree(model.structure_, model.root_)
    assert _tree_weight(model.structure_, cmi) == pytest.approx(
        _brute_force_max_tree_weight(cmi), rel=1e-12)


def test_recovers_the_tree_of_a_tree_shaped_network():
    """Data from Y -> X_i plus a known attribute tree: the TAN edges are the true ones."""
    rng = np.random.default_rng(0)
    true_parent = [-1, 0, 0, 1, 1, 2]
    n = 5000
    y = rng.integers(0, 2, n)
    X = np.zeros((n, 6), dtype=int)
    for i, p in enumerate(true_parent):
        base = y if p < 0 else X[:, p]
        noise = rng.integers(0, 3, n)
        X[:, i] = np.where(rng.random(n) < 0.75, (base + y) % 3, noise)
    model = TAN(categorical_features="all").fit(X, y)
    ours = {frozenset((i, int(p))) for i, p in enumerate(model.structure_) if p >= 0}
    assert ours == {frozenset((i, p)) for i, p in enumerate(true_parent) if p >= 0}


@pytest.mark.parametrize("smoothing, min_count", [("m_estimate", 1), ("laplace", 1),
                                                  ("m_estimate", 25)])
def test_scores_match_direct_counting_with_missing_values(smoothing, min_count):
    X, y = random_nominal(300, [3, 2, 4, 3, 2], 3, missing=0.15, seed=2, dependence=0.4)
    model = TAN(categorical_features="all", smoothing=smoothing, m=2.0,
                min_count=min_count).fit(X, y)
    codes = training_codes(model, X)
    Xt, _ = random_nominal(30, [3, 2, 4, 3, 2], 3, missing=0.3, seed=3)
    test_codes = training_codes(model, Xt)
    parents = [[p] if p >= 0 else [] for p in model.structure_]
    ours = model.joint_log_likelihood(Xt)
    for r in range(30):
        ref = family_reference(codes, y, 3, model.table_.sizes, parents, test_codes[r], m=2.0,
                               laplace=smoothing == "laplace", min_count=min_count)
        assert_allclose(ours[r], ref, rtol=1e-12)
    assert_allclose(model.predict_proba(Xt).sum(axis=1), 1.0)


def test_fit_equals_partial_fit_over_chunks():
    X, y = random_nominal(600, [3, 2, 4, 3, 2], 2, missing=0.1, seed=4, dependence=0.5)
    frame = pd.DataFrame(X).astype("category")  # value lists fixed by the dtype
    full = TAN().fit(frame, y)
    inc = TAN()
    for chunk in np.array_split(np.arange(600), 4):
        inc.partial_fit(frame.iloc[chunk], y[chunk], classes=[0, 1])
    assert_array_equal(full.structure_, inc.structure_)
    assert_allclose(full.predict_proba(frame), inc.predict_proba(frame), rtol=1e-12)


def test_column_permutation_invariance():
    X, y = random_nominal(400, [3, 2, 4, 3, 2, 3], 2, missing=0.05, seed=5, dependence=0.5)
    perm = np.array([3, 0, 5, 1, 4, 2])
    a = TAN(categorical_features="all").fit(X, y)
    b = TAN(categorical_features="all").fit(X[:, perm], y)
    inverse = np.argsort(perm)
    expected = np.array([inverse[p] if p >= 0 else -1 for p in a.structure_])
    assert_array_equal(b.structure_, expected[perm])
    assert_allclose(a.predict_proba(X), b.predict_proba(X[:, perm]), rtol=1e-12)


def test_save_load_and_dot(tmp_path):
    X, y = random_nominal(200, [3, 2, 4], 2, missing=0.1, seed=6, dependence=0.5)
    frame = pd.DataFrame(X, columns=["colour", 'size "xl"', "shape"]).astype("category")
    model = TAN().fit(frame, y)
    model.save(tmp_path / "tan.npz")
    loaded = load(tmp_path / "tan.npz")
    assert isinstance(loaded, TAN)
    assert_array_equal(loaded.structure_, model.structure_)
    assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))
    dot = model.to_dot()
    assert dot.startswith("digraph TAN {") and dot.rstrip().endswith("}")
    for name in ('"colour"', '"size \\"xl\\""', '"shape"'):
        assert f'"class" -> {name};' in dot
    names = ["colour", 'size \\"xl\\"', "shape"]
    for i, p in enumerate(model.structure_):
        if p >= 0:
            assert f'"{names[p]}" -> "{names[i]}";' in dot
    assert dot.count("->") == 3 + 2
    with pytest.raises(ValueError, match="cycle"):
        model._set_learned_state({"parents": np.array([[1], [2], [0]])})
    with pytest.raises(ValueError, match="one root"):
        model._set_learned_state({"parents": np.array([[-1], [-1], [0]])})


@pytest.mark.reference
@pytest.mark.parametrize("dataset", sorted(name for name, ds in FIXTURE["datasets"].items()
                                            if "TAN_ENTROPY_A1" in ds["results"]))
def test_tree_and_probabilities_match_weka(dataset):
    """Weka's TAN with the ENTROPY score (an arc gains N I(X_i; X_j | Y)) finds the same
    undirected tree; with Weka's edge directions and SimpleEstimator alpha = 1 (Laplace) the
    probabilities are Weka's."""
    ds = FIXTURE["datasets"][dataset]
    cols = ds["attributes"]
    train = pd.DataFrame(ds["train_X"], columns=cols, dtype=object)
    test = pd.DataFrame(ds["test_X"], columns=cols, dtype=object)
    for c, values in zip(cols, ds["values"], strict=True):
        train[c] = pd.Categorical(train[c], categories=values)
        test[c] = pd.Categorical(test[c], categories=values)
    weka = ds["results"]["TAN_ENTROPY_A1"]
    model = TAN(smoothing="laplace", min_count=0).fit(train, np.asarray(ds["train_y"]))
    ours = {frozenset((i, int(p))) for i, p in enumerate(model.structure_) if p >= 0}
    assert ours == {frozenset((i, p)) for i, ps in enumerate(weka["parents"]) for p in ps}
    model._set_learned_state({"parents": np.array([[ps[0] if ps else -1]
                                                   for ps in weka["parents"]])})
    order = [list(model.classes_).index(c) for c in ds["classes"]]
    assert_allclose(model.predict_proba(test)[:, order], weka["distributions"], rtol=1e-12,
                    atol=1e-14)


def test_dot_class_node_must_not_clash_with_a_feature():
    X, y = random_nominal(100, [3, 2], 2, seed=7)
    model = TAN().fit(pd.DataFrame(X, columns=["class", "b"]).astype("category"), y)
    with pytest.raises(ValueError, match="class_name"):
        model.to_dot()
    assert '"Y" -> "class";' in model.to_dot(class_name="Y")
