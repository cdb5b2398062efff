"""Explanations (:mod:`seminaive.explanation`): additivity for every registered learner,
the Shapley axioms on hand-built games, enumeration against the fast schemes, and naive
Bayes' contributions against log ratios computed by hand."""

import math
import os
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from test_route_matrix import LEARNERS, dataset, make

from seminaive import A2DE, AODE, KDB, TAN, InputError, NaiveBayes
from seminaive.explanation import (
    Explanation,
    _exact,
    _sampled,
    explain,
    explain_stream,
    structure_graph,
)

ADDITIVITY = 1e-9


def centred(a):
    return a - a.mean(axis=-1, keepdims=True)


def assert_additive(model, X, ex):
    """base + sum of the contributions == predict_log_proba up to a constant per row."""
    total = ex.base_values + ex.values.sum(axis=1)
    expected = model.predict_log_proba(X)
    np.testing.assert_allclose(centred(total), centred(expected), rtol=0, atol=ADDITIVITY)
    np.testing.assert_allclose(ex.log_proba(), expected, rtol=0, atol=ADDITIVITY)


# --------------------------------------------------------------------------------------------
# every registered learner
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LEARNERS)
def test_every_learner_is_additive_on_mixed_data_with_missing_values(name):
    X, y, _ = dataset("mixed")
    model = make(name, "mixed").fit(X, y)
    rows = X.iloc[:30]
    assert rows.isna().any().any()
    ex = model.explain(rows)
    assert ex.values.shape == (30, X.shape[1], 3)
    assert ex.method in ("additive", "structure", "exact")
    assert_additive(model, rows, ex)
    # a missing attribute is in no coalition's way: it gets exactly 0 (the dummy axiom on
    # the model's own game)
    missing = rows.isna().to_numpy()
    assert np.all(ex.values[missing] == 0)
    # the sampled scheme is exactly efficient too
    sampled = model.explain(rows.iloc[:8], method="sampled", n_permutations=4, random_state=0)
    assert_additive(model, rows.iloc[:8], sampled)
    assert np.all(sampled.values[missing[:8]] == 0)


@pytest.mark.parametrize("name", LEARNERS)
def test_every_learner_with_gaussian_children_is_additive(name):
    model = make(name, "gaussian")
    if model is None:
        pytest.skip("no numeric='gaussian'")
    X, y, _ = dataset("gaussian")
    model.fit(X, y)
    rows = X.iloc[:20]
    assert_additive(model, rows, model.explain(rows))


# --------------------------------------------------------------------------------------------
# the Shapley axioms on hand-built games
# --------------------------------------------------------------------------------------------


class Game:
    """A hand-built game on one row per entry of ``fns``: v(S) from a function of the set
    S, for two 'classes' (the value and its negation)."""

    def __init__(self, d, fn):
        self.n_rows, self.n_attributes, self.n_classes = 1, d, 2
        self.fn = fn

    def __call__(self, masks, rows):
        v = np.array([[self.fn(frozenset(np.flatnonzero(m).tolist())) for m in row]
                      for row in masks])
        return np.stack([v, -v], axis=-1)


def brute_force_shapley(d, fn):
    """The Shapley value from its definition: the average over all d! orders."""
    from itertools import permutations
    phi = np.zeros(d)
    for order in permutations(range(d)):
        s = frozenset()
        for i in order:
            phi[i] += fn(s | {i}) - fn(s)
            s = s | {i}
    return phi / math.factorial(d)


def glove_game(S):
    """Two left gloves (0, 1), one right glove (2); attribute 3 is a dummy; 4 adds 0.5."""
    return min(len(S & {0, 1}), len(S & {2})) + 0.5 * (4 in S)


def test_exact_enumeration_satisfies_the_axioms_and_matches_the_definition():
    d = 5
    phi, base = _exact(Game(d, glove_game))
    phi = phi[0, :, 0]
    np.testing.assert_allclose(phi, brute_force_shapley(d, glove_game), atol=1e-12)
    # hand-computed: the right glove gets 2/3, each left glove 1/6, the dummy 0
    np.testing.assert_allclose(phi, [1 / 6, 1 / 6, 2 / 3, 0, 0.5], atol=1e-12)
    assert phi[0] == pytest.approx(phi[1], abs=1e-15)  # symmetry
    assert phi[3] == 0  # dummy
    assert phi.sum() == pytest.approx(glove_game(frozenset(range(d))) - glove_game(frozenset()))
    assert base[0, 0] == 0


def test_sampling_satisfies_efficiency_and_dummy_and_converges():
    d = 5
    rng = np.random.default_rng(3)
    phi, base, se = _sampled(Game(d, glove_game), 200, rng)
    phi, se = phi[0, :, 0], se[0, :, 0]
    assert phi.sum() == pytest.approx(1.5, abs=1e-12)  # efficiency, exact on every sample
    assert phi[3] == 0 and se[3] == 0  # a dummy adds nothing along any permutation
    assert phi[4] == pytest.approx(0.5, abs=1e-12) and se[4] == 0  # additive: no noise
    truth = np.array([1 / 6, 1 / 6, 2 / 3, 0, 0.5])
    assert np.all(np.abs(phi - truth) <= 5 * se + 1e-12)
    assert np.all(se[:3] > 0)


def test_antithetic_pair_is_exact_for_two_attributes():
    def fn(S):
        return {frozenset(): 0.0, frozenset({0}): 1.0, frozenset({1}): 3.0,
                frozenset({0, 1}): 7.0}[S]
    phi, _, _ = _sampled(Game(2, fn), 2, np.random.default_rng(0))
    np.testing.assert_allclose(phi[0, :, 0], [2.5, 4.5], atol=1e-12)  # (1 + 4)/2, (3 + 6)/2


# --------------------------------------------------------------------------------------------
# models
# --------------------------------------------------------------------------------------------


def small_nominal():
    """Hand-countable data: three nominal attributes, two classes."""
    X = pd.DataFrame({"colour": ["r", "g", "r", "b", "g", "r", "b", "r"],
                      "size": ["s", "s", "l", "l", "s", "l", "s", "l"],
                      "shape": ["o", "x", "o", "o", "x", None, "x", "o"]})
    y = pd.Series(["yes", "no", "yes", "no", "no", "yes", "no", "yes"])
    return X, y


def test_naive_bayes_contributions_are_hand_computed_log_ratios():
    X, y = small_nominal()
    model = NaiveBayes(m=1.0).fit(X, y)
    classes = list(model.classes_)  # ["no", "yes"]
    ex = model.explain(X)
    assert ex.method == "additive"
    assert ex.feature_names == ["colour", "size", "shape"]
    assert ex.output_names == classes
    # m-estimate P(x_i = v | c) = (N(v, c) + m / |values|) / (N(c, x_i observed) + m)
    for r in range(len(X)):
        for j, col in enumerate(X.columns):
            value = X.iloc[r, j]
            if pd.isna(value):
                np.testing.assert_array_equal(ex.values[r, j], 0.0)
                continue
            observed = X[col].notna()
            n_values = X[col].dropna().nunique()
            logs = [math.log(((X[col] == value) & (y == c)).sum() + 1.0 / n_values)
                    - math.log((observed & (y == c)).sum() + 1.0) for c in classes]
            expected = np.array(logs) - np.mean(logs)
            np.testing.assert_allclose(ex.values[r, j], expected, rtol=0, atol=1e-12)
    # base: the centred m-estimate of the prior (N(c) + m / K) / (N + m)
    prior = np.log([(y == c).sum() + 0.5 for c in classes])
    np.testing.assert_allclose(ex.base_values, np.tile(centred(prior), (len(X), 1)), atol=1e-12)
    # uncentred: the joint's own terms, and the base is the log prior itself
    raw = model.explain(X, centred=False)
    np.testing.assert_allclose(raw.base_values[0], np.log([(y == c).sum() + 0.5 for c in
                                                           classes]) - math.log(9), atol=1e-12)
    np.testing.assert_allclose(centred(raw.values), ex.values, atol=1e-12)
    assert_additive(model, X, raw)


def test_additive_scheme_equals_enumeration_for_naive_bayes():
    X, y, _ = dataset("mixed")
    model = NaiveBayes().fit(X, y)
    fast = model.explain(X.iloc[:25], method="additive")
    enumerated = model.explain(X.iloc[:25], method="exact")
    np.testing.assert_allclose(fast.values, enumerated.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fast.base_values, enumerated.base_values, atol=1e-12)


@pytest.mark.parametrize("kind", ["mixed", "gaussian"])
@pytest.mark.parametrize("name", ["TAN", "SPTAN", "KDB", "SKDB"])
def test_structure_scheme_equals_enumeration_for_single_networks(name, kind):
    model = make(name, kind)
    if model is None:
        pytest.skip("no numeric='gaussian'")
    X, y, _ = dataset(kind)
    model.fit(X, y)
    rows = X.iloc[:30]
    fast = model.explain(rows, method="structure")
    assert model.explain(rows).method == "structure"
    enumerated = model.explain(rows, method="exact")
    np.testing.assert_allclose(fast.values, enumerated.values, rtol=0, atol=1e-12)
    # the subsets of the families (at most 2**(k + 1) per attribute) and the check
    assert fast.n_predictions < enumerated.n_predictions


def test_structure_scheme_is_exact_and_cheap_on_many_attributes():
    from seminaive.datasets import load_kr_vs_kp

    X, y = load_kr_vs_kp()
    model = KDB(k=2).fit(X, y)
    rows = X.iloc[:50]
    ex = model.explain(rows)
    assert ex.method == "structure" and ex.standard_errors is None
    assert_additive(model, rows, ex)
    d = X.shape[1]
    assert ex.n_predictions <= len(rows) * (8 * d + d + 1)
    # against the sampled scheme: unbiased within its standard error
    sampled = model.explain(rows.iloc[:5], method="sampled", n_permutations=64,
                            random_state=0)
    assert np.all(np.abs(sampled.values - ex.values[:5]) <= 6 * sampled.standard_errors + 1e-9)


def test_additive_is_refused_for_aode():
    X, y, _ = dataset("mixed")
    model = AODE().fit(X, y)
    with pytest.raises(InputError, match="not additive"):
        model.explain(X.iloc[:5], method="additive")
    with pytest.raises(InputError, match="no learned structure"):
        model.explain(X.iloc[:5], method="structure")


def test_symmetric_attributes_get_equal_values():
    X, y = small_nominal()
    X = X.assign(copy=X["colour"])  # two copies of one attribute
    # the AnDE family treats its attributes alike (a structure learner orders them, so
    # two copies play different parts there)
    for model in (AODE(), A2DE(), NaiveBayes()):
        ex = model.fit(X, y).explain(X)
        np.testing.assert_allclose(ex.values[:, 0], ex.values[:, 3], rtol=0, atol=1e-12)


def test_sampled_agrees_with_enumeration_within_its_standard_error():
    X, y, _ = dataset("mixed")
    model = AODE().fit(X, y)
    rows = X.iloc[:10]
    exact = model.explain(rows, method="exact")
    sampled = model.explain(rows, method="sampled", n_permutations=400, random_state=1)
    assert sampled.method == "sampled" and sampled.n_permutations == 400
    err = np.abs(sampled.values - exact.values)
    se = sampled.standard_errors
    # (with five attributes the marginal contributions take few, skewed values: the
    # standard error is estimated from 200 pairs so that it is itself reliable)
    assert np.all(err <= 5 * se + 1e-12)
    assert err.max() < 0.05
    # the scheme is unbiased: errors look like their standard errors, not larger
    z = err[se > 0] / se[se > 0]
    assert np.mean(z ** 2) < 2.0


def test_sampled_is_deterministic_for_a_seed_and_streams_identically(tmp_path):
    X, y, _ = dataset("mixed")
    model = AODE().fit(X, y)
    rows = X.iloc[:21]
    a = model.explain(rows, method="sampled", n_permutations=4, random_state=5)
    b = model.explain(rows, method="sampled", n_permutations=4, random_state=5)
    c = model.explain(rows, method="sampled", n_permutations=4, random_state=6)
    np.testing.assert_array_equal(a.values, b.values)
    assert not np.array_equal(a.values, c.values)
    out = tmp_path / "contributions.parquet"
    summary = explain_stream(model, rows, out, method="sampled", n_permutations=4,
                             random_state=5, chunk_rows=8)
    assert summary["n_rows"] == 21 and summary["methods"] == ["sampled"] * 3
    written = pd.read_parquet(out)
    for j, name in enumerate(a.feature_names):
        for k, label in enumerate(a.output_names):
            np.testing.assert_array_equal(written[f"{name}__{label}"], a.values[:, j, k])
            np.testing.assert_array_equal(written[f"se_{name}__{label}"],
                                          a.standard_errors[:, j, k])
    np.testing.assert_allclose(summary["feature_importances"].to_numpy(),
                               a.feature_importances_, atol=1e-12)


def test_explain_stream_from_csv_equals_explain(tmp_path):
    X, y, _ = dataset("mixed")
    model = KDB(k=1).fit(X, y)
    path = tmp_path / "rows.csv"
    X.iloc[:30].assign(target=y.iloc[:30]).to_csv(path, index=False)
    out = tmp_path / "out.csv"
    model.explain_stream(str(path), out, chunk_rows=11)
    written = pd.read_csv(out)
    ex = model.explain(X.iloc[:30])
    assert written.shape == (30, 3 + 5 * 3)
    assert ex.output_names == ["hi", "lo", "mid"]
    np.testing.assert_allclose(written["num1__mid"], ex.values[:, 4, 2], atol=1e-12)
    np.testing.assert_allclose(written["base_lo"], ex.base_values[:, 1], atol=1e-12)


def test_explain_stream_refuses_to_write_over_a_file_it_reads(tmp_path):
    X, y, _ = dataset("mixed")
    model = KDB(k=1).fit(X, y)
    first, second = tmp_path / "part-1.csv", tmp_path / "part-2.csv"
    X.iloc[:20].to_csv(first, index=False)
    X.iloc[20:40].to_csv(second, index=False)
    texts = (first.read_text(), second.read_text())
    for source in (str(second), [str(first), str(second)], str(tmp_path / "part-*.csv")):
        with pytest.raises(InputError, match="it is the input"):
            model.explain_stream(source, second)
    assert (first.read_text(), second.read_text()) == texts
    assert sorted(os.listdir(tmp_path)) == ["part-1.csv", "part-2.csv"]
    out = tmp_path / "out.csv"
    model.explain_stream(str(tmp_path / "part-*.csv"), out)
    assert len(pd.read_csv(out)) == 40


def test_explanation_object():
    X, y = small_nominal()
    model = AODE().fit(X, y)
    ex = model.explain(X)
    assert isinstance(ex, Explanation) and len(ex) == len(X)
    one = ex[2]
    assert one.values.shape == (1, 3, 2) and one.data.shape == (1, 3)
    assert list(one.data[0]) == list(X.iloc[2])
    np.testing.assert_allclose(ex.feature_importances_, np.abs(ex.values).mean(axis=(0, 2)))
    long = ex.to_frame()
    assert long.shape == (len(X) * 3 * 2, 4)
    assert long.loc[(long.row == 1) & (long.feature == "size") & (long["class"] == "yes"),
                    "value"].item() == ex.values[1, 1, 1]
    # numpy input: names x0, x1...
    arr = explain(AODE().fit(X.to_numpy(), y), X.to_numpy())
    assert arr.feature_names == ["x0", "x1", "x2"]


def test_bad_options_are_refused():
    X, y = small_nominal()
    model = NaiveBayes().fit(X, y)
    with pytest.raises(InputError, match="method"):
        model.explain(X, method="kernel")
    with pytest.raises(InputError, match="even"):
        model.explain(X, n_permutations=3)
    with pytest.raises(InputError, match="empty"):
        model.explain(X.iloc[:0])
    with pytest.raises(InputError, match="no learned structure"):
        structure_graph(model)


def test_structure_graph_is_the_learned_parents():
    X, y, _ = dataset("mixed")
    tan = TAN().fit(X, y)
    graph = structure_graph(tan)
    assert list(graph) == list(X.columns)
    names = list(X.columns)
    for i, p in enumerate(tan.structure_):
        assert graph[names[i]] == ([] if p < 0 else [names[p]])
    assert sum(len(p) for p in graph.values()) == X.shape[1] - 1  # a tree: one root
    kdb = KDB(k=2).fit(X, y)
    for i, row in enumerate(kdb.structure_):
        assert graph_parents(kdb, names[i]) == [names[p] for p in row if p >= 0]


def graph_parents(model, name):
    return structure_graph(model)[name]


def test_every_subset_of_a_hand_game_is_enumerated_once():
    # the enumeration visits 2**d coalitions, each of the right size
    seen = []

    def fn(S):
        seen.append(S)
        return float(len(S))
    _exact(Game(4, fn))
    assert sorted(map(sorted, set(seen))) == sorted(
        sorted(c) for r in range(5) for c in combinations(range(4), r))
    assert len(seen) == 16


# --------------------------------------------------------------------------------------------
# plots and the command line
# --------------------------------------------------------------------------------------------


def test_waterfall_ends_at_the_rows_score_and_bars_are_the_importances(tmp_path):
    from seminaive.evaluation.explanation_plots import plot_structure, plot_summary, plot_waterfall

    X, y, _ = dataset("mixed")
    model = KDB(k=2).fit(X, y)
    ex = model.explain(X.iloc[:40])
    fig = plot_waterfall(ex, row=3, class_="mid", max_display=3, path=tmp_path / "w.png")
    bars = fig.axes[0].patches
    assert len(bars) == 4  # three attributes and "2 other attributes"
    c = ex.output_names.index("mid")
    end = bars[-1].get_x() + bars[-1].get_width()
    assert end == pytest.approx(ex.base_values[3, c] + ex.values[3, :, c].sum(), abs=1e-12)
    assert (tmp_path / "w.png").stat().st_size > 0
    fig = plot_summary(ex, max_display=5)
    widths = sorted((b.get_width() for b in fig.axes[0].patches), reverse=True)
    np.testing.assert_allclose(widths, np.sort(ex.feature_importances_)[::-1], atol=1e-12)
    fig = plot_summary(ex, "lo", kind="beeswarm")
    assert len(fig.axes[0].collections) == 2 * X.shape[1]  # missing and present points
    plot_structure(model, path=tmp_path / "s.png")
    with pytest.raises(InputError, match="no learned structure"):
        plot_structure(AODE().fit(X, y))
    with pytest.raises(InputError, match="named 'num0'"):
        plot_structure(model, class_name="num0")
    with pytest.raises(InputError, match="outside"):
        plot_waterfall(ex, row=40)
    with pytest.raises(InputError, match="kind"):
        plot_summary(ex, kind="violin")


def test_command_line_explains_a_csv_file(tmp_path, capsys):
    from seminaive.cli import main

    X, y, _ = dataset("mixed")
    data = tmp_path / "rows.csv"
    X.assign(target=y).to_csv(data, index=False)
    model_file = tmp_path / "model.npz"
    assert main(["fit", str(data), "--target", "target", "--learner", "TAN", "-o",
                 str(model_file), "--quiet"]) == 0
    out = tmp_path / "contributions.parquet"
    plots = tmp_path / "plots"
    assert main(["explain", str(model_file), str(data), "-o", str(out), "--plots", str(plots),
                 "--plot-rows", "50"]) == 0
    printed = capsys.readouterr().out
    assert "240 rows explained" in printed
    assert sorted(p.name for p in plots.iterdir()) == [
        "structure.png", "summary_bar.png", "summary_beeswarm.png", "waterfall_row0.png"]
    model = TAN.load(model_file)
    ex = model.explain(pd.read_csv(data).drop(columns="target"))
    written = pd.read_parquet(out)
    np.testing.assert_allclose(written["nom1__hi"], ex.values[:, 1, 0], atol=1e-12)
    assert main(["explain", str(model_file), str(tmp_path / "nope.csv"), "-o", str(out)]) == 2
    assert "no such file" in capsys.readouterr().err


def test_to_shap_builds_a_shap_explanation(monkeypatch):
    import sys
    import types

    made = {}
    fake = types.ModuleType("shap")
    fake.Explanation = lambda **kwargs: made.update(kwargs) or "shap explanation"
    monkeypatch.setitem(sys.modules, "shap", fake)
    X, y = small_nominal()
    ex = NaiveBayes().fit(X, y).explain(X)
    assert ex.to_shap() == "shap explanation"
    assert made["values"] is ex.values and made["base_values"] is ex.base_values
    assert made["feature_names"] == ["colour", "size", "shape"]
    assert made["output_names"] == ["no", "yes"]
