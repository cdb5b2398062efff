"""SP-TAN: leave-one-out from the tables equals refitting on t - 1 rows; the greedy search
equals a brute-force implementation that refits for every held-out row."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from test_structure_common import family_reference, random_nominal, training_codes

from seminaive import SPTAN, TAN, load
from seminaive.structure._common import PairStatistics
from seminaive.structure._sparse import build_count_trees, score_counts
from seminaive.structure.sptan import eligible_children, loo_tree_scores
from seminaive.tables import FrequencyTable


def _refit_scores(codes, y, w, k, n_values, parents, row, m, laplace, min_count):
    table = FrequencyTable(n_values, k, 2).add(codes, y, w)
    stats = PairStatistics(table)
    chains = [[int(p)] if p >= 0 else [] for p in parents]
    trees = build_count_trees(table, chains, parents[:, None], {})
    out = np.empty((1, k))
    score_counts(np.ascontiguousarray(row[None, :]), trees, stats.kernel_args(), m, laplace,
                 float(min_count), out)
    return out[0]


@pytest.mark.parametrize("laplace, min_count, weighted", [(False, 1, False), (True, 2, False),
                                                          (False, 1, True)])
def test_leave_one_out_equals_refitting_without_the_row(laplace, min_count, weighted):
    k = 3
    X, y = random_nominal(40, [3, 2, 4, 3], k, missing=0.15, seed=0, dependence=0.5)
    model = TAN(categorical_features="all").fit(X, y)
    codes = training_codes(model, X).astype(np.uint8)
    n_values = model.table_.sizes - 1
    w = np.random.default_rng(1).choice([0.5, 1.0, 2.0, 3.0], 40) if weighted else None
    table = FrequencyTable(n_values, k, 2).add(codes, y, w)
    stats = PairStatistics(table)
    parents = np.array([-1, 0, 1, 1])
    loo = loo_tree_scores(stats, codes, y, w, parents, 1.0, laplace, min_count)
    for r in range(40):
        if weighted:
            w_rest = w.copy()
            w_rest[r] -= min(w[r], 1.0)
            ref = _refit_scores(codes, y, w_rest, k, n_values, parents, codes[r], 1.0,
                                laplace, min_count)
        else:
            keep = np.arange(40) != r
            ref = _refit_scores(codes[keep], y[keep], None, k, n_values, parents, codes[r],
                                1.0, laplace, min_count)
        assert_allclose(loo[r], ref, rtol=1e-12)


def _eligible(parents):
    a = len(parents)
    out = {}
    for s in range(a):
        ancestors, p = set(), parents[s]
        while p >= 0:
            ancestors.add(p)
            p = parents[p]
        out[s] = [c for c in range(a) if parents[c] < 0 and c != s and c not in ancestors]
    return out


def _loo_accuracy(codes, y, k, sizes, parents, laplace, min_count):
    right = 0
    for r in range(len(y)):
        keep = np.arange(len(y)) != r
        scores = family_reference(codes[keep], y[keep], k, sizes,
                                  [[p] if p >= 0 else [] for p in parents], codes[r],
                                  laplace=laplace, min_count=min_count)
        right += int(np.argmax(scores) == y[r])
    return right


def _brute_force_sptan(codes, y, k, sizes, laplace, min_count):
    a = codes.shape[1]
    parents = [-1] * a
    while True:
        eligible = _eligible(parents)
        if not any(eligible.values()):
            return parents
        current = _loo_accuracy(codes, y, k, sizes, parents, laplace, min_count)
        best_sp, best_acc = None, -1
        for s in range(a):
            if not eligible[s]:
                continue
            trial = [s if c in eligible[s] else p for c, p in enumerate(parents)]
            acc = _loo_accuracy(codes, y, k, sizes, trial, laplace, min_count)
            if acc > best_acc:
                best_sp, best_acc = s, acc
        best_child, best_acc = None, -1
        for c in eligible[best_sp]:
            trial = list(parents)
            trial[c] = best_sp
            acc = _loo_accuracy(codes, y, k, sizes, trial, laplace, min_count)
            if acc > best_acc:
                best_child, best_acc = c, acc
        if best_acc <= current:
            return parents
        parents[best_child] = best_sp


@pytest.mark.parametrize("seed, laplace, min_count", [(5, False, 1), (6, True, 2),
                                                      (0, False, 1)])
def test_search_equals_brute_force_with_refits(seed, laplace, min_count):
    k = 3
    X, y = random_nominal(60, [3, 2, 3, 2, 3], k, missing=0.1, seed=seed, dependence=0.7)
    model = SPTAN(categorical_features="all", smoothing="laplace" if laplace else "m_estimate",
                  min_count=min_count).fit(X, y)
    codes = training_codes(model, X)
    expected = _brute_force_sptan(codes, y, k, model.table_.sizes, laplace, min_count)
    assert_array_equal(model.structure_, expected)
    assert len(model.search_history_) >= 2  # (seeds chosen so that the search does work)
    if model.search_history_:
        accuracies = [h[2] for h in model.search_history_]
        assert accuracies == sorted(accuracies)
        assert accuracies[-1] == _loo_accuracy(codes, y, k, model.table_.sizes,
                                               list(model.structure_), laplace, min_count)


def test_eligible_children_avoid_cycles():
    parents = np.array([-1, 0, 1, -1, -1])  # 0 -> 1 -> 2
    eligible = eligible_children(parents)
    assert eligible[2].tolist() == [False, False, False, True, True]  # not its ancestor 0
    assert eligible[3].tolist() == [True, False, False, False, True]


def test_integer_weights_equal_repeated_rows():
    X, y = random_nominal(150, [3, 2, 4, 3], 2, missing=0.1, seed=4, dependence=0.5)
    w = np.random.default_rng(5).integers(0, 4, 150)
    weighted = SPTAN(categorical_features="all").fit(X, y, sample_weight=w)
    repeated = SPTAN(categorical_features="all").fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert_array_equal(weighted.structure_, repeated.structure_)
    assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)


def test_improves_on_naive_bayes_and_round_trips(tmp_path):
    X, y = random_nominal(400, [3, 2, 4, 3, 2], 2, missing=0.05, seed=6, dependence=0.8)
    model = SPTAN(categorical_features="all").fit(X, y)
    assert len(model.search_history_) >= 1
    assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    model.save(tmp_path / "sptan.npz")
    loaded = load(tmp_path / "sptan.npz")
    assert_array_equal(loaded.structure_, model.structure_)
    assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    with pytest.raises(ValueError, match="cycle"):
        model._set_learned_state({"parents": np.array([[1], [0], [-1], [-1], [-1]])})


def test_single_partial_fit_equals_fit():
    X, y = random_nominal(200, [3, 2, 4], 2, seed=7, dependence=0.6)
    frame = pd.DataFrame(X).astype("category")
    a = SPTAN().fit(frame, y)
    b = SPTAN().partial_fit(frame, y, classes=[0, 1])
    assert_array_equal(a.structure_, b.structure_)
    assert_allclose(a.predict_proba(frame), b.predict_proba(frame), rtol=1e-12)


@pytest.mark.parametrize("laplace, min_count, weighted", [(False, 1, False), (True, 2, True),
                                                          (False, 1, True)])
def test_pass_with_arc_tables_equals_tree_scores(laplace, min_count, weighted):
    """One search pass (arc terms read from the tables computed once per search, rows of
    weight < 1 computed directly) against leave-one-out tree scores of every trial
    structure, with missing values and weights."""
    from seminaive.sources import ArraySource
    from seminaive.structure.sptan import super_parent_search

    k = 3
    X, y = random_nominal(50, [3, 2, 4, 3, 2], k, missing=0.1, seed=2, dependence=0.6)
    model = TAN(categorical_features="all").fit(X, y)
    codes = training_codes(model, X).astype(np.uint8)
    n_values = model.table_.sizes - 1
    w = np.random.default_rng(3).choice([0.5, 1.0, 2.0, 3.0], 50) if weighted else None
    stats = PairStatistics(FrequencyTable(n_values, k, 2).add(codes, y, w))
    weight = np.ones(50) if w is None else w

    def accuracy(parents):
        scores = loo_tree_scores(stats, codes, y, w, np.asarray(parents), 1.0, laplace,
                                 min_count)
        return float(weight[np.argmax(scores, axis=1) == y].sum())

    seen = []

    class Recording(ArraySource):
        def map_reduce(self, fn, combine, **kwargs):
            result = super().map_reduce(fn, combine, **kwargs)
            seen.append(result)
            return result

    parents, _ = super_parent_search(stats, Recording(codes, y, w), 1.0, laplace, min_count)
    current, sp, arc = seen[0]  # the first pass: from naive Bayes
    start = np.full(5, -1)
    assert current == pytest.approx(accuracy(start), abs=1e-9)
    eligible = eligible_children(start)
    for s in range(5):
        trial = np.where(eligible[s], s, start)
        assert sp[s] == pytest.approx(accuracy(trial), abs=1e-9)
        for c in np.flatnonzero(eligible[s]):
            trial = start.copy()
            trial[c] = s
            assert arc[s, c] == pytest.approx(accuracy(trial), abs=1e-9)
