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


def _refusal(model, good, log_weights):
    """The message of the refusal of ``log_weights``, with every warning an error."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError) as refused:
            model._set_learned_state({**good, "log_weights": log_weights})
    return str(refused.value)


def test_the_sum_of_refused_weights_is_exact_and_finite():
    X, y = _data(n_rows=60, seed=6)
    model = BMAAODE(categorical_features="all").fit(X, y)
    good = model._learned_state()
    n = good["log_weights"].size
    assert n == len(N_VALUES)
    # weights of exactly 1: they sum to n
    assert _refusal(model, good, np.zeros(n)) == f"BMAAODE weights sum to {float(n)!r}, not 1"
    # weights of 1e+100 (as close as exp(log(1e100)) comes): about n * 1e100
    message = _refusal(model, good, np.full(n, np.log(1e100)))
    total = float(message.removeprefix("BMAAODE weights sum to ").removesuffix(", not 1"))
    assert total == pytest.approx(n * 1e100, rel=1e-12)
    # a sum beyond the largest float (exp(709.78)): its log, n e^1000 = e^(1000 + log n)
    for log_weight in (1000.0, 1e100, 1e300):
        message = _refusal(model, good, np.full(n, log_weight))
        assert message.startswith("BMAAODE weights sum to exp(") and "inf" not in message
        log_total = float(message.removeprefix("BMAAODE weights sum to exp(")
                          .removesuffix("), not 1"))
        assert log_total == pytest.approx(log_weight + np.log(n), rel=1e-15)
    # all weights 0 (log weights -inf)
    assert _refusal(model, good, np.full(n, -np.inf)) == "BMAAODE weights sum to 0.0, not 1"
    assert "contain NaN" in _refusal(model, good, np.r_[np.nan, np.zeros(n - 1)])
    assert "+inf" in _refusal(model, good, np.r_[np.inf, np.zeros(n - 1)])


def test_sum_text_is_the_exact_sum_rounded_once():
    from seminaive.weighting._common import sum_text

    # in float64 left to right, 1e16 + 1 + 1 gives 1e16; the exact sum is a float
    assert sum_text(np.array([1e16, 1.0, 1.0])) == repr(1e16 + 2)
    assert sum_text(np.array([0.5, 0.25])) == "0.75"
    # beyond the largest float: 2 * 1.7976931348623157e308 = 3.5953862697246314e308
    assert sum_text(np.full(2, np.finfo(np.float64).max)) == "3.5953862697246314E+308"
    assert sum_text(np.array([1e308, 1e308])) == "2.0000000000000000E+308"
