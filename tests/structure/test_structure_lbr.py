"""LBR: the XOR-like case picks W = {A}; the numba search equals a pure-Python LBR that
refits a naive Bayes for every held-out row; sign test; kept rows survive save/load."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import binomtest
from test_structure_common import training_codes

from seminaive import LBR, NaiveBayes, load
from seminaive.structure._lbr_kernels import sign_test_p


def _nb_scores(codes, y, w, k, sizes, attributes, row, m, laplace):
    total = w.sum()
    out = np.empty(k)
    for c in range(k):
        n_c = w[y == c].sum()
        s = (math.log((n_c + 1) / (total + k)) if laplace
             else math.log((n_c + m / k) / (total + m)))
        for i in attributes:
            if row[i] == 0:
                continue
            v = sizes[i] - 1
            num = w[(y == c) & (codes[:, i] == row[i])].sum()
            den = w[(y == c) & (codes[:, i] > 0)].sum()
            s += (math.log((num + 1) / (den + v)) if laplace
                  else math.log((num + m / v) / (den + m)))
        out[c] = s
    return out


def _loo_wrong(codes, y, w, k, sizes, rows, attributes, m, laplace):
    wrong = np.zeros(rows.size, dtype=bool)
    for q, r in enumerate(rows):
        w_rest = w[rows].copy()
        w_rest[q] -= min(w[r], 1.0)
        scores = _nb_scores(codes[rows], y[rows], w_rest, k, sizes, attributes, codes[r], m,
                            laplace)
        wrong[q] = np.argmax(scores) != y[r]
    return wrong


def lbr_reference(codes, y, k, sizes, row, w=None, m=1.0, laplace=False, alpha=0.05):
    """Zheng & Webb (2000) LBR, refitting the local naive Bayes for every held-out row."""
    n, a = codes.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=float)
    rows = np.arange(n)
    attributes = list(range(a))
    wrong = _loo_wrong(codes, y, w, k, sizes, rows, attributes, m, laplace)
    chosen = []
    while True:
        errors = w[rows][wrong].sum()
        best, best_errors = None, errors
        for att in attributes:
            if row[att] == 0:
                continue
            mask = codes[rows, att] == row[att]
            if not mask.any():
                continue
            sub = rows[mask]
            rest = [i for i in attributes if i != att]
            new = _loo_wrong(codes, y, w, k, sizes, sub, rest, m, laplace)
            prev = wrong[mask]
            wins = w[sub][prev & ~new].sum()
            losses = w[sub][~prev & new].sum()
            n_trials = round(wins) + round(losses)
            p = binomtest(round(wins), n_trials, 0.5, "greater").pvalue if n_trials else 1.0
            temp = errors - wins + losses
            if wins > losses and temp < best_errors and p <= alpha:
                best, best_errors = (att, sub, new), temp
        if best is None:
            break
        att, rows, wrong = best
        attributes.remove(att)
        chosen.append(att)
    return _nb_scores(codes[rows], y[rows], w[rows], k, sizes, attributes, row, m,
                      laplace), sorted(chosen)


def _xor_data(n, seed):
    """class = A xor parity(B): naive Bayes cannot represent it; conditioning on A (binary,
    half of the rows) or on B (six values) leaves a single decisive attribute, and A keeps
    the larger subset, so it removes the most leave-one-out errors."""
    rng = np.random.default_rng(seed)
    A = rng.integers(0, 2, n)
    B = rng.integers(0, 6, n)
    noise = rng.integers(0, 3, (n, 3))
    return np.column_stack([A, B, noise]), A ^ (B % 2)


def test_xor_like_case_conditions_on_a():
    X, y = _xor_data(600, 0)
    model = LBR(categorical_features="all").fit(X, y)
    W = model.conditioning_sets(X[:100])
    assert_array_equal(W, np.tile([True, False, False, False, False], (100, 1)))
    assert (model.predict(X) == y).mean() == 1.0
    assert (NaiveBayes(categorical_features="all").fit(X, y).predict(X) == y).mean() < 0.7
    # a test row whose A is missing cannot condition on A
    row = X[:1].astype(float)
    row[0, 0] = np.nan
    assert not model.conditioning_sets(row)[0, 0]


@pytest.mark.parametrize("wins, losses", [(5, 0), (4, 0), (9, 3), (20, 12), (0, 0), (3, 7)])
def test_sign_test_p_value(wins, losses):
    expected = binomtest(wins, wins + losses, 0.5, "greater").pvalue if wins + losses else 1.0
    assert sign_test_p(wins, losses) == pytest.approx(expected, rel=1e-10)


def _multiplexer(n, seed, missing=0.0):
    """class = B if A else C (10% label noise) with a noise attribute."""
    rng = np.random.default_rng(seed)
    A, B, C, D = (rng.integers(0, v, n) for v in (2, 2, 3, 2))
    y = np.where(A == 1, B, C % 2)
    y = np.where(rng.random(n) < 0.1, 1 - y, y)
    X = np.column_stack([A, B, C, D]).astype(float)
    X[rng.random(X.shape) < missing] = np.nan
    return X, y


@pytest.mark.parametrize("smoothing, weighted", [("m_estimate", False), ("laplace", False),
                                                 ("m_estimate", True)])
def test_search_equals_pure_python_lbr(smoothing, weighted):
    X, y = _multiplexer(70, 1, missing=0.05)
    w = np.random.default_rng(2).choice([0.5, 1.0, 2.0], 70) if weighted else None
    model = LBR(categorical_features="all", smoothing=smoothing).fit(X, y, sample_weight=w)
    codes = training_codes(model, X)
    Xt, _ = _multiplexer(12, 3, missing=0.1)
    test_codes = training_codes(model, Xt)
    ours = model.joint_log_likelihood(Xt)
    W = model.conditioning_sets(Xt)
    assert W.any()  # the data make LBR condition on something
    for r in range(12):
        ref, chosen = lbr_reference(codes, y, 2, model.table_.sizes, test_codes[r], w=w,
                                    laplace=smoothing == "laplace")
        assert np.flatnonzero(W[r]).tolist() == chosen
        assert_allclose(ours[r], ref, rtol=1e-12)


def test_fit_equals_partial_fit_and_save_load(tmp_path):
    X, y = _multiplexer(300, 4, missing=0.05)
    frame = pd.DataFrame(X).astype("category")
    full = LBR().fit(frame, y)
    inc = LBR()
    for chunk in np.array_split(np.arange(300), 3):
        inc.partial_fit(frame.iloc[chunk], y[chunk], classes=[0, 1])
    assert inc.n_training_rows_ == 300
    assert_allclose(full.predict_proba(frame), inc.predict_proba(frame), rtol=1e-12)
    assert_allclose(full.predict_proba(frame).sum(axis=1), 1.0)
    full.save(tmp_path / "lbr.npz")
    loaded = load(tmp_path / "lbr.npz")
    assert_array_equal(loaded.predict_proba(frame), full.predict_proba(frame))
    assert_array_equal(loaded.conditioning_sets(frame), full.conditioning_sets(frame))
    state = full._learned_state()
    bad_codes = state["train_codes"].copy()
    bad_codes[0, 0] = 50
    with pytest.raises(ValueError, match="ranges"):
        full._set_learned_state({**state, "train_codes": bad_codes})
    with pytest.raises(ValueError, match="class counts"):
        full._set_learned_state({**state, "train_y": 1 - state["train_y"]})


def test_integer_weights_equal_repeated_rows():
    X, y = _multiplexer(150, 5)
    w = np.random.default_rng(6).integers(0, 4, 150)
    weighted = LBR(categorical_features="all").fit(X, y, sample_weight=w)
    repeated = LBR(categorical_features="all").fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert weighted.n_training_rows_ == np.count_nonzero(w)
    assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)
    assert_array_equal(weighted.conditioning_sets(X), repeated.conditioning_sets(X))


def test_two_step_rules_equal_pure_python_lbr():
    """class = B if A else (D if C else E): many rows need two conditions."""
    rng = np.random.default_rng(3)
    A, B, C, D, E = (rng.integers(0, 2, 120) for _ in range(5))
    y = np.where(A == 1, B, np.where(C == 1, D, E))
    X = np.column_stack([A, B, C, D, E])
    model = LBR(categorical_features="all").fit(X, y)
    codes = training_codes(model, X)
    W = model.conditioning_sets(X[:12])
    assert (W.sum(axis=1) == 2).sum() >= 3
    ours = model.joint_log_likelihood(X[:12])
    for r in range(12):
        ref, chosen = lbr_reference(codes, y, 2, model.table_.sizes, codes[r])
        assert np.flatnonzero(W[r]).tolist() == chosen
        assert_allclose(ours[r], ref, rtol=1e-12)


DATA = Path(__file__).resolve().parents[1] / "data"
FIXTURE = json.loads((DATA / "weka_structure.json").read_text())


@pytest.mark.reference
@pytest.mark.parametrize("dataset", sorted(name for name, ds in FIXTURE["datasets"].items()
                                            if "LBR" in ds["results"]))
def test_matches_weka(dataset):
    """Weka 3.6.14's weka.classifiers.lazy.LBR (Laplace estimates, sign test at 0.05),
    including missing test values and two-attribute rules (mux).  Sets with missing
    training values are not compared: Weka's LBR counts them as the first value."""
    ds = FIXTURE["datasets"][dataset]
    cols = ds["attributes"]
    train = pd.DataFrame(ds["train_X"], columns=cols, dtype=object)
    test = pd.DataFrame(ds["test_X"], columns=cols, dtype=object)
    for c, values in zip(cols, ds["values"], strict=True):
        train[c] = pd.Categorical(train[c], categories=values)
        test[c] = pd.Categorical(test[c], categories=values)
    model = LBR(smoothing="laplace").fit(train, np.asarray(ds["train_y"]))
    order = [list(model.classes_).index(c) for c in ds["classes"]]
    weka = np.asarray(ds["results"]["LBR"]["distributions"])
    if dataset == "mux":
        assert (model.conditioning_sets(test).sum(axis=1) >= 2).sum() >= 10
    assert_allclose(model.predict_proba(test)[:, order], weka, rtol=1e-12, atol=1e-14)
