"""BMAAODE (Cerquides & de Màntaras 2005, §5): the marginal likelihood of eq 25 against the chain
rule of sequential posterior-mean predictions (an independent computation), a single ODE,
the weighted prediction of eq 28, and persistence."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from reference import exact_log, sub_model_joint
from scipy.special import logsumexp

from seminaive import AODE, BMAAODE, load
from seminaive.tables import FrequencyTable
from seminaive.weighting.bma import log_marginal_likelihoods

N_VALUES = [2, 3, 2, 3]
K = 2


def _data(n_rows=30, seed=0):
    rng = np.random.default_rng(seed)
    while True:
        X = np.column_stack([rng.integers(0, v, n_rows) for v in N_VALUES])
        y = (X[:, 0] + X[:, 1] + (rng.random(n_rows) < 0.2)) % K
        if all(set(X[:, j]) == set(range(v)) for j, v in enumerate(N_VALUES)) and len(
                set(y)) == K:
            return X, y


def _chain_rule_log_evidence(X, y, s, smoothing, m=1.0):
    """log P(D | root s) = sum_t log P(x_t, y_t | rows before t, root s): with independent
    Dirichlet priors the evidence is the product of the posterior-mean predictions of each
    row given the previous ones (every hyperparameter 1 = Laplace, or the m-estimate's)."""
    total = 0.0
    for t in range(len(y)):
        joint = sub_model_joint(X[:t], y[:t], X[t], s, N_VALUES, K, smoothing, Fraction(m))
        total += exact_log(joint[y[t]])
    return total


@pytest.mark.parametrize("smoothing", ["laplace", "m_estimate"])
@pytest.mark.parametrize("n", [1, 2])
def test_marginal_likelihood_equals_the_chain_rule(smoothing, n):
    X, y = _data()
    table = FrequencyTable(N_VALUES, K, n + 1)
    table.add(np.asfortranarray((X + 1).astype(np.uint8)), y)
    ours = log_marginal_likelihoods(table, n, smoothing, m=1.0)
    expected = [_chain_rule_log_evidence(X, y, s, smoothing)
                for s in itertools.combinations(range(len(N_VALUES)), n)]
    assert_allclose(ours, expected, rtol=1e-11)


def test_posterior_weights_and_prediction_follow_eqs_22_and_28():
    X, y = _data(n_rows=40, seed=1)
    Xt, _ = _data(n_rows=20, seed=2)
    model = BMAAODE(smoothing="laplace", min_count=0, categorical_features="all").fit(X, y)
    log_w = np.array([_chain_rule_log_evidence(X, y, (u,), "laplace") for u in range(4)])
    assert_allclose(model.log_marginal_likelihoods_, log_w, rtol=1e-11)
    assert_allclose(model.log_weights_, log_w - logsumexp(log_w), atol=1e-10)
    assert np.isclose(model.weights_.sum(), 1.0) and np.all(model.weights_ >= 0)
    # eq 28: P(x) = sum_u a*_u P(x | root u) with the posterior means (Laplace, eqs 15-16)
    expected = []
    for x in Xt:
        joints = [sub_model_joint(X, y, x, (u,), N_VALUES, K, "laplace") for u in range(4)]
        mix = [sum(float(j[c]) * w for j, w in zip(joints, model.weights_, strict=True))
               for c in range(K)]
        expected.append(np.array(mix) / sum(mix))
    assert_allclose(model.predict_proba(Xt), np.array(expected), rtol=1e-9)


def test_single_ode_is_that_odes_predictive_distribution():
    """One attribute: a single root, weight 1, and BMAAODE predicts the ODE's posterior
    predictive (eq 29) -- AODE on one attribute, with the same estimates."""
    X, y = _data(n_rows=40, seed=3)
    Xt, _ = _data(n_rows=20, seed=4)
    for smoothing in ("laplace", "m_estimate"):
        bma = BMAAODE(smoothing=smoothing, categorical_features="all").fit(X[:, :1], y)
        assert_array_equal(bma.weights_, [1.0])
        single = AODE(smoothing=smoothing, categorical_features="all").fit(X[:, :1], y)
        assert_allclose(bma.predict_proba(Xt[:, :1]), single.predict_proba(Xt[:, :1]),
                        rtol=1e-12)
        expected = [[float(p) for p in sub_model_joint(X[:, :1], y, x, (0,), N_VALUES[:1], K,
                                                       smoothing)] for x in Xt[:, :1]]
        expected = np.array(expected) / np.sum(expected, axis=1, keepdims=True)
        assert_allclose(bma.predict_proba(Xt[:, :1]), expected, rtol=1e-12)


def test_posterior_concentrates_and_probabilities_sum_to_one():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(3000, 6))
    y = (X[:, 2] + (rng.random(3000) < 0.1)) % 2  # X2 explains the class
    model = BMAAODE(categorical_features="all").fit(X, y)
    assert np.argmax(model.weights_) == 2 and model.weights_[2] > 0.999
    assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_save_load_round_trip(tmp_path):
    X, y = _data(n_rows=60, seed=6)
    model = BMAAODE(categorical_features="all").fit(X, y)
    model.save(tmp_path / "bma.npz")
    loaded = load(tmp_path / "bma.npz")
    assert_array_equal(loaded.log_weights_, model.log_weights_)
    assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    good = model._learned_state()
    for bad in ({"log_weights": good["log_weights"] + 1.0},
                {"log_weights": good["log_weights"][:-1]},
                {"log_weights": np.full(4, np.nan)}):
        with pytest.raises(ValueError):
            loaded._set_learned_state({**good, **bad})
    with pytest.raises(ValueError):
        loaded._set_learned_state({"log_weights": good["log_weights"]})
