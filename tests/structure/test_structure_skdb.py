"""Selective KDB: the incremental leave-one-out losses of every model (k, s) against refitting
without the row, the selected model against KDB, the restricted spaces, weights, save/load."""

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from test_structure_common import family_reference, random_nominal, training_codes

from seminaive import KDB, SKDB, load
from seminaive.parts import GaussianChildren

#: the Gaussian children part (the helpers it provides read the fitted model)
GAUSSIAN = GaussianChildren()


def _loss(scores, yt, loss):
    top = scores.max()
    post = np.exp(scores - top) / np.exp(scores - top).sum()
    if loss == "rmse":
        return (1.0 - post[yt]) ** 2
    if loss == "zero_one":
        return float(int(np.argmax(scores)) != yt)
    return -math.log(post[yt])


def brute_force_losses(model, X, y, loss, laplace=False, min_count=1):
    """Mean loss of every model (j, s) with each row scored by counts of all the other rows
    (the structure, candidates and ranking of ``model``)."""
    codes = training_codes(model, X)
    yi = np.searchsorted(model.classes_, y)
    n, a = codes.shape
    big_k = int(model.k)
    k = len(model.classes_)
    sums = np.zeros((big_k + 1, a + 1))
    for r in range(n):
        keep = np.arange(n) != r
        for j in range(big_k + 1):
            for s in range(a + 1):
                chosen = set(model.order_[:s].tolist())
                parents = [[int(p) for p in model.candidates_[i, :j] if p >= 0]
                           if i in chosen else [] for i in range(a)]
                row = np.where([i in chosen for i in range(a)], codes[r], 0)
                scores = family_reference(codes[keep], yi[keep], k, model.table_.sizes,
                                          parents, row, m=float(model.m), laplace=laplace,
                                          min_count=min_count)
                sums[j, s] += _loss(scores, yi[r], loss)
    mean = sums / n
    return np.sqrt(mean) if loss == "rmse" else mean


@pytest.mark.parametrize("loss", ["rmse", "zero_one", "log_loss"])
@pytest.mark.parametrize("smoothing, min_count, missing", [("m_estimate", 1, 0.0),
                                                           ("m_estimate", 3, 0.15),
                                                           ("laplace", 1, 0.1)])
def test_incremental_loo_equals_refitting_without_the_row(loss, smoothing, min_count,
                                                          missing):
    X, y = random_nominal(36, [3, 2, 3, 2, 3], 2, missing=missing, seed=5, dependence=0.5)
    model = SKDB(k=3, loss=loss, smoothing=smoothing, min_count=min_count,
                 categorical_features="all").fit(X, y)
    expected = brute_force_losses(model, X, y, loss, laplace=smoothing == "laplace",
                                  min_count=min_count)
    assert_allclose(model.loo_loss_, expected, rtol=1e-10, atol=1e-12)


def test_candidates_are_nested_kdb_parents():
    X, y = random_nominal(300, [3, 2, 4, 3, 2, 3], 3, missing=0.1, seed=1, dependence=0.4)
    model = SKDB(k=3, categorical_features="all").fit(X, y)
    for j in range(4):
        kdb = KDB(k=j, categorical_features="all").fit(X, y)
        for i in range(6):
            prefix = sorted(int(p) for p in model.candidates_[i, :j] if p >= 0)
            assert prefix == [int(p) for p in kdb.structure_[i] if p >= 0]


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_no_selection_is_kdb(k):
    X, y = random_nominal(400, [3, 2, 4, 3, 2, 3], 3, missing=0.15, seed=3, dependence=0.5)
    Xt, _ = random_nominal(60, [3, 2, 4, 3, 2, 3], 3, missing=0.3, seed=4)
    skdb = SKDB(k=k, select="none", categorical_features="all").fit(X, y)
    kdb = KDB(k=k, categorical_features="all").fit(X, y)
    assert (skdb.k_, skdb.n_selected_features_) == (k, 6)
    assert_array_equal(skdb.structure_, kdb.structure_)
    assert_allclose(skdb.predict_proba(Xt), kdb.predict_proba(Xt), rtol=1e-13)


def test_selected_model_is_kdb_on_the_selected_attributes():
    X, y = random_nominal(500, [3, 2, 4, 3, 2, 3, 4, 2], 2, missing=0.05, seed=7,
                          dependence=0.6)
    Xt, _ = random_nominal(80, [3, 2, 4, 3, 2, 3, 4, 2], 2, missing=0.1, seed=8)
    model = SKDB(k=3, categorical_features="all").fit(X, y)
    allowed = model.loo_loss_[:, 1:]
    assert model.loo_loss_[model.k_, model.n_selected_features_] <= allowed.min() + 1e-12
    cols = model.selected_features_
    assert_array_equal(cols, model.order_[:model.n_selected_features_])
    kdb = KDB(k=model.k_, categorical_features="all").fit(X[:, cols], y)
    assert_allclose(model.predict_proba(Xt), kdb.predict_proba(Xt[:, cols]), rtol=1e-12)


@pytest.mark.parametrize("select", ["attributes", "k"])
def test_restricted_spaces(select):
    X, y = random_nominal(300, [3, 2, 4, 3, 2, 3], 2, seed=9, dependence=0.5)
    model = SKDB(k=2, select=select, categorical_features="all").fit(X, y)
    if select == "attributes":
        assert model.k_ == 2
        assert model.n_selected_features_ == 1 + int(np.argmin(model.loo_loss_[2, 1:]))
    else:
        assert model.n_selected_features_ == 6
        assert model.k_ == int(np.argmin(model.loo_loss_[:, 6]))


def test_integer_weights_equal_repeated_rows():
    X, y = random_nominal(80, [3, 2, 3, 2], 2, missing=0.1, seed=11, dependence=0.5)
    w = np.random.default_rng(0).integers(0, 4, len(y))
    weighted = SKDB(k=2, categorical_features="all").fit(X, y, sample_weight=w)
    repeated = SKDB(k=2, categorical_features="all").fit(np.repeat(X, w, axis=0),
                                                         np.repeat(y, w))
    assert_allclose(weighted.loo_loss_, repeated.loo_loss_, rtol=1e-10)
    assert (weighted.k_, weighted.n_selected_features_) == (repeated.k_,
                                                            repeated.n_selected_features_)


def test_save_load_and_partial_fit(tmp_path):
    X, y = random_nominal(400, [3, 2, 4, 3, 2], 2, missing=0.1, seed=12, dependence=0.5)
    model = SKDB(k=2, categorical_features="all").fit(X, y)
    model.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    assert_allclose(back.predict_proba(X), model.predict_proba(X), rtol=0, atol=0)
    assert_array_equal(back.loo_loss_, model.loo_loss_)
    assert (back.k_, back.n_selected_features_) == (model.k_, model.n_selected_features_)
    # the loaded model keeps every prefix family: partial_fit continues from all counts
    with pytest.warns(UserWarning, match="SKDB.partial_fit keeps"):
        back.partial_fit(X[:50], y[:50])
    assert back.table_.n_rows == 450


def test_bad_parameters_are_refused():
    X, y = random_nominal(50, [3, 2], 2, seed=0)
    with pytest.raises(ValueError, match="select"):
        SKDB(select="all").fit(X, y)
    with pytest.raises(ValueError, match="loss"):
        SKDB(loss="auc").fit(X, y)
    with pytest.raises(ValueError, match="k must be"):
        SKDB(k=-1).fit(X, y)


def _gaussian_frame(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.array(["p", "q", "r"])[(y + rng.integers(0, 2, n)) % 3]
    b = rng.normal(2.0 * y + (a == "p"), 1.0 + 0.5 * y)
    c = np.array(["u", "v"])[(rng.random(n) < 0.3 + 0.4 * y).astype(int)]
    d = rng.normal(b - y, 1.0)
    frame = pd.DataFrame({"a": a, "b": b, "c": c, "d": d})
    frame.loc[rng.random(n) < 0.1, "b"] = np.nan
    return frame, y


@pytest.mark.parametrize("missing", ["ignore", "value"])
def test_gaussian_loo_equals_refitting_without_the_row(missing):
    """Gaussian children: every (k, s) model's leave-one-out loss equals scoring each row
    with the moments and counts of all the other rows (same structure); with
    missing="value", P(missing) and 1 - P(missing) of the Gaussian child too."""
    from seminaive.tables import MomentTable

    X, y = _gaussian_frame(40, seed=3)
    model = SKDB(k=2, numeric="gaussian", density="plugin", loss="log_loss",
                 discretizer="equal_frequency", n_bins=2, missing=missing).fit(X, y)
    own_missing = GAUSSIAN.missing_codes(model)
    codes = training_codes(model, X)
    values = model.encoder_.numeric_values(X, "t")
    numeric = list(model.encoder_.numeric_columns_)
    n, a = codes.shape
    k = 2
    sums = np.zeros((3, a + 1))
    for r in range(n):
        keep = np.arange(n) != r
        rest_codes, rest_y, rest_values = codes[keep], y[keep], values[keep]
        moments = MomentTable(model._moment_entries(), model.table_.sizes, k, numeric)
        moments.add(rest_codes, rest_y, None, rest_values)
        mean, var = moments.estimates(1.0, coarser=lambda parents: [parents[:-1]])
        for j in range(3):
            for s in range(a + 1):
                chosen = set(model.order_[:s].tolist())
                parents = [[int(p) for p in model.candidates_[i, :j] if p >= 0]
                           if i in chosen and i not in numeric else [] for i in range(a)]
                row = np.where([i in chosen and i not in numeric for i in range(a)],
                               codes[r], 0)
                scores = family_reference(rest_codes, rest_y, k, model.table_.sizes, parents,
                                          row)
                for col, i in enumerate(numeric):
                    v = values[r, col]
                    if i not in chosen:
                        continue
                    chain = [int(p) for p in model.candidates_[i, :j] if p >= 0]
                    mc = int(own_missing[i])
                    if mc:  # P(missing | y, parents), counted as a nominal child
                        alone = [chain if t == i else [] for t in range(a)]
                        probe = np.zeros(a, dtype=np.int64)
                        probe[chain] = codes[r, chain]
                        probe[i] = mc
                        extra = family_reference(rest_codes, rest_y, k, model.table_.sizes,
                                                 alone, probe)
                        probe[i] = 0  # leaves the prior and the parents' own terms
                        extra -= family_reference(rest_codes, rest_y, k, model.table_.sizes,
                                                  alone, probe)
                        scores = scores + (extra if math.isnan(v) else np.log1p(-np.exp(extra)))
                    if math.isnan(v):
                        continue
                    level, cell = 0, 0
                    for t, p in enumerate(chain):
                        if codes[r, p] == 0:
                            break
                        cell = cell * int(model.table_.sizes[p]) + int(codes[r, p])
                        e = moments.index[(tuple(chain[:t + 1]), i)]
                        if moments.block(e).reshape(-1, k, 3)[cell, :, 0].sum() < 1:
                            break
                        level = t + 1
                    e = moments.index[(tuple(chain[:level]), i)]
                    cell = 0
                    for p in chain[:level]:
                        cell = cell * int(model.table_.sizes[p]) + int(codes[r, p])
                    base = moments.offsets[e] // 3 + cell * k
                    mu, s2 = mean[base:base + k], var[base:base + k]
                    scores = scores - 0.5 * (np.log(2 * np.pi * s2) + (v - mu) ** 2 / s2)
                sums[j, s] += _loss(scores, y[r], "log_loss")
    assert_allclose(model.loo_loss_, sums / n, rtol=1e-9, atol=1e-12)
