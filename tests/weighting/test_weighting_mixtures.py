"""MAPLMD and MAPLMG (Cerquides & de Màntaras 2005, §3.2, §6): EM monotonicity, the gradient of eq
13 against finite differences, KKT conditions at the optimum, the maximisation step, weights on the
simplex, chunked training, partial_fit, persistence and sub-models of order 2."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from seminaive import AODE, MAPLMD, MAPLMG, load
from seminaive.datasets import RandomBayesianNetwork
from seminaive.sources import ArraySource
from seminaive.weighting._kernels import STAT_LMD, STAT_LMG
from seminaive.weighting.loo import Evaluator, LeaveOneOut
from seminaive.weighting.mixtures import (
    lmd_log_posterior,
    lmd_maximisation,
    lmg_log_posterior,
)


def _sample(n_rows, seed=0, n_attributes=7, missing=0.0):
    bn = RandomBayesianNetwork(n_attributes=n_attributes, n_values=3, n_classes=3,
                               max_parents=2, random_state=seed)
    X, y = bn.sample(n_rows, random_state=seed + 1)
    X = X.astype(float)
    if missing:
        X[np.random.default_rng(seed).random(X.shape) < missing] = np.nan
    return X, y


def _evaluator(model, X, y, kind, w=None, chunk_rows=10**6):
    codes = model._storage_codes(X)
    y_idx = model._encode_target(y)
    loo = LeaveOneOut(model.table_, model.n, model.smoothing, model.m, model.min_count)
    return Evaluator(loo, ArraySource(codes, y_idx, w, chunk_rows=chunk_rows), kind)


@pytest.fixture(scope="module")
def data():
    return _sample(600, seed=1, missing=0.05)


@pytest.mark.parametrize("n", [1, 2])
def test_maplmd_em_never_decreases_its_objective(data, n):
    X, y = data
    model = MAPLMD(n, max_iter=60, tol=1e-12, categorical_features="all", min_count=3,
                   loo_cache_bytes=0, acceleration=None)
    model.fit(X, y)
    trace = np.array(model.objective_trace_)
    assert len(trace) == model.n_iter_ == model.n_passes_ > 10
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:])), np.diff(trace).min()
    assert trace[-1] > trace[0]
    # the trace is the objective of eq 8 (+ prior) at the iterates: check the last one
    ev = _evaluator(model, X, y, STAT_LMD)
    assert lmd_log_posterior(ev, model.weights_) >= trace[-1] - 1e-9 * abs(trace[-1])
    assert np.all(model.weights_ > 0) and np.isclose(model.weights_.sum(), 1.0)


def test_lmd_maximisation_step():
    rng = np.random.default_rng(0)
    R = rng.random(6) * 50
    # every sub-model qualifies in every row: B_u = W and the EM update is (R + 1) / (W + n)
    W = R.sum()
    assert_allclose(lmd_maximisation(R, np.full(6, W)), (R + 1) / (W + 6), rtol=1e-12)
    # general case: the result maximises sum (R+1) log a - sum a B on the simplex
    B = rng.random(6) * 40 + 1
    a = lmd_maximisation(R, B)
    assert np.isclose(a.sum(), 1.0) and np.all(a > 0)

    def f(v):
        return np.sum((R + 1) * np.log(v)) - np.sum(v * B)

    for _ in range(200):
        other = rng.dirichlet(np.ones(6))
        assert f(a) >= f(other)
        assert f(a) >= f(0.99 * a + 0.01 * other)


@pytest.mark.parametrize("n", [1, 2])
def test_maplmg_gradient_matches_finite_differences(data, n):
    X, y = data
    w = np.random.default_rng(2).choice([0.5, 1.0, 2.0], size=len(y))
    model = MAPLMG(n, categorical_features="all").fit(X, y, sample_weight=w)
    ev = _evaluator(model, X, y, STAT_LMG, w=w, chunk_rows=97)
    alpha = np.random.default_rng(3).dirichlet(np.ones(ev.loo.n_par)) + 0.01
    value, grad = lmg_log_posterior(ev, alpha)
    for u in range(len(alpha)):
        h = 1e-6 * alpha[u]
        up, down = alpha.copy(), alpha.copy()
        up[u] += h
        down[u] -= h
        numeric = (lmg_log_posterior(ev, up)[0] - lmg_log_posterior(ev, down)[0]) / (2 * h)
        assert np.isclose(grad[u], numeric, rtol=1e-5, atol=1e-4 * abs(grad).max()), u


@pytest.mark.parametrize("n", [1, 2])
def test_maplmg_kkt_conditions_at_the_optimum(data, n):
    """On the simplex, with multiplier lambda for sum a = 1, the KKT conditions are
    g_u = lambda where a_u > 0 and g_u <= lambda where a_u = 0.  The prior of eq 6 (log a_u
    -> -inf on the boundary) keeps every weight positive, so the first case applies to all u;
    and sum_u a_u g_u = n_par at any point of the simplex (the data term's a_u g_u sum to 0
    row by row, the prior's to n_par), so lambda = n_par.  L-BFGS-B stops when the
    projected gradient in the softmax parameters, a_u (g_u - lambda) / W, is below gtol
    (W = total row weight): the test allows 1e-5 per row on that residual, and checks the
    relative deviation of every g_u from lambda where a_u is not tiny."""
    X, y = data
    model = MAPLMG(n, tol=1e-10, max_iter=500, categorical_features="all").fit(X, y)
    alpha = model.weights_
    assert np.all(alpha > 0) and np.isclose(alpha.sum(), 1.0)
    value, grad = lmg_log_posterior(_evaluator(model, X, y, STAT_LMG), alpha)
    n_par = len(alpha)
    lam = np.dot(alpha, grad)
    assert np.isclose(lam, n_par, rtol=1e-9)
    assert np.max(alpha * np.abs(grad - lam)) / len(y) < 1e-5
    big = alpha > 1e-3
    assert np.max(np.abs(grad[big] - lam) / lam) < 1e-2
    # a first-order optimum: no feasible direction improves the objective
    rng = np.random.default_rng(4)
    ev = _evaluator(model, X, y, STAT_LMG)
    for _ in range(5):
        other = rng.dirichlet(np.ones(n_par))
        assert lmg_log_posterior(ev, 0.999 * alpha + 0.001 * other)[0] <= value + 1e-7 * abs(
            value)
    assert model.objective_trace_[-1] >= model.objective_trace_[0]


def test_chunked_training_gives_the_same_weights(data):
    X, y = data
    for cls in (MAPLMG, MAPLMD):
        whole = cls(categorical_features="all", loo_cache_bytes=0).fit(X, y)
        cached = cls(categorical_features="all").fit(X, y)
        assert_allclose(cached.weights_, whole.weights_, rtol=1e-8)
        assert cached.n_passes_ == whole.n_passes_ + 1  # the pass that builds the cache
        # the same fit with the data streamed in small chunks (a learner sees only the
        # source): compare through the hook, which receives any source
        streamed = cls(categorical_features="all", loo_cache_bytes=0).fit(X, y)
        codes, y_idx = streamed._storage_codes(X), streamed._encode_target(y)
        streamed.table_ = streamed.table_.copy()  # a new table: start afresh, as fit does
        streamed.learn_from(ArraySource(codes, y_idx, chunk_rows=53))
        assert_allclose(streamed.weights_, whole.weights_, rtol=1e-8)


def test_weights_on_the_simplex_and_probabilities(data):
    X, y = data
    for model in (MAPLMG(categorical_features="all"), MAPLMD(categorical_features="all"),
                  MAPLMG(2, categorical_features="all")):
        model.fit(X, y)
        assert model.weights_.shape == (len(model.parent_combinations_),)
        assert np.all(model.weights_ > 0) and np.isclose(model.weights_.sum(), 1.0)
        proba = model.predict_proba(X)
        assert_allclose(proba.sum(axis=1), 1.0)


def test_learnt_weights_improve_on_uniform_loo_objective(data):
    X, y = data
    model = MAPLMG(categorical_features="all").fit(X, y)
    ev = _evaluator(model, X, y, STAT_LMG)
    uniform = np.full(len(model.weights_), 1 / len(model.weights_))
    assert lmg_log_posterior(ev, model.weights_)[0] > lmg_log_posterior(ev, uniform)[0]


def test_prediction_is_the_weighted_mixture(data):
    """MAPLMG predicts sum_u a_u P_u(y, x) and MAPLMD sum_u a_u P_u(y | x) over the
    qualifying ODEs: rebuilt here from AODE's sub-model scores."""
    X, y = data
    Xt, _ = _sample(50, seed=9, missing=0.1)
    aode = AODE(categorical_features="all", min_count=5).fit(X, y)
    table = aode.table_
    tables = table.log_tables(1, "m_estimate", 1.0, 5)
    codes = aode._storage_codes(Xt).astype(np.int64)
    k = table.n_classes
    sub = np.full((len(Xt), 7, k), np.nan)
    for u in range(7):
        g = table.combination_index([u])
        for r in range(len(Xt)):
            base = table.offsets[g] + codes[r, u] * k
            sub[r, u] = tables.log_joint[base: base + k]
            for v in range(7):
                if v == u or codes[r, v] == 0:
                    continue
                h = table.combination_index([u, v])
                members = sorted([u, v])
                cell = codes[r, members[0]] * table.sizes[members[1]] + codes[r, members[1]]
                p = members.index(v)
                start = tables.lc_offsets[h] + (cell * 2 + p) * k
                sub[r, u] += tables.log_conditional[start: start + k]
    for cls, posterior in ((MAPLMG, False), (MAPLMD, True)):
        model = cls(categorical_features="all", min_count=5).fit(X, y)
        a = model.weights_
        with np.errstate(invalid="ignore"):  # NaN rows: sub-models that do not qualify
            terms = sub - np.logaddexp.reduce(sub, axis=2, keepdims=True) if posterior else sub
        expected = []
        for r in range(len(Xt)):
            q = ~np.isnan(terms[r, :, 0])
            mix = np.logaddexp.reduce(np.log(a[q])[:, None] + terms[r, q], axis=0)
            expected.append(np.exp(mix - np.logaddexp.reduce(mix)))
        assert_allclose(model.predict_proba(Xt), np.array(expected), rtol=1e-10)


def test_partial_fit_relearns_on_the_chunk_given(data):
    X, y = data
    classes = np.unique(y)
    model = MAPLMG(categorical_features="all")
    model.partial_fit(X[:300], y[:300], classes=classes)
    first = model.weights_.copy()
    model.partial_fit(X[300:], y[300:])
    full = MAPLMG(categorical_features="all").fit(X, y)
    # the counts are those of all the rows; the weights are re-learnt on the second chunk
    assert_array_equal(model.table_.counts, full.table_.counts)
    expected = MAPLMG(categorical_features="all").fit(X, y)
    codes, y_idx = expected._storage_codes(X[300:]), expected._encode_target(y[300:])
    expected.weights_ = first  # same table object: continues from these weights
    expected.learn_from(ArraySource(codes, y_idx))
    assert_allclose(model.weights_, expected.weights_, rtol=1e-10)
    # fit starts from uniform weights whatever was fitted before
    refit = MAPLMG(categorical_features="all").fit(X[:300], y[:300]).fit(X, y)
    assert_array_equal(refit.weights_, full.weights_)


@pytest.mark.parametrize("make", [lambda: MAPLMG(categorical_features="all"),
                                  lambda: MAPLMD(2, categorical_features="all")])
def test_save_load_round_trip(tmp_path, data, make):
    X, y = data
    model = make().fit(X, y)
    model.save(tmp_path / "m.npz")
    loaded = load(tmp_path / "m.npz")
    assert_array_equal(loaded.weights_, model.weights_)
    assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    for bad in (model.weights_ * 0.5, np.zeros_like(model.weights_), model.weights_[1:]):
        with pytest.raises(ValueError):
            loaded._set_learned_state({"weights": bad})
    # finite weights whose sum overflows: the exact sum, without a warning (2 * 2**1023 +
    # a few ones = 2**1024 + ... = 1.797693134862315907...e308, above the largest float)
    huge = np.ones(model.weights_.size)
    huge[:2] = 2.0**1023
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"weights sum to 1\.7976931348623159E\+308,"):
            loaded._set_learned_state({"weights": huge})
    for bad, what in ((np.nan, "NaN"), (np.inf, "infinite")):
        with pytest.raises(ValueError, match=what):
            loaded._set_learned_state({"weights": np.r_[bad, model.weights_[1:]]})


def test_degenerate_inputs_and_parameters():
    X, y = _sample(60, seed=5, n_attributes=1)
    for cls in (MAPLMG, MAPLMD):
        model = cls(categorical_features="all").fit(X, y)  # a single sub-model
        assert_array_equal(model.weights_, [1.0])
        assert_allclose(model.predict_proba(X), AODE(categorical_features="all").fit(
            X, y).predict_proba(X), rtol=1e-12)
        for bad in ({"n": 0}, {"max_iter": 0}, {"tol": -1.0}, {"loo_cache_bytes": -1}):
            with pytest.raises(ValueError):
                cls(**bad).fit(X, y)


@pytest.mark.parametrize("n", [1, 2])
def test_squarem_reaches_the_em_maximum_in_fewer_passes(data, n):
    """SQUAREM (the default) and plain EM converge to the same weights; SQUAREM's accepted
    iterates never lower the objective and it needs fewer passes."""
    X, y = data
    common = dict(tol=1e-11, categorical_features="all", min_count=3, loo_cache_bytes=0)
    plain = MAPLMD(n, max_iter=5000, acceleration=None, **common).fit(X, y)
    fast = MAPLMD(n, max_iter=500, **common).fit(X, y)
    assert_allclose(fast.weights_, plain.weights_, atol=2e-4)
    ev = _evaluator(fast, X, y, STAT_LMD)
    assert lmd_log_posterior(ev, fast.weights_) >= lmd_log_posterior(ev, plain.weights_) - 1e-6
    trace = np.array(fast.objective_trace_)
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:]))
    assert fast.n_passes_ < plain.n_passes_


def test_optimisers_say_when_they_stop_early(data):
    from sklearn.exceptions import ConvergenceWarning

    X, y = data
    for model in (MAPLMD(max_iter=2, tol=1e-14, categorical_features="all"),
                  MAPLMD(max_iter=2, tol=1e-14, categorical_features="all", acceleration=None),
                  MAPLMG(max_iter=1, tol=1e-14, categorical_features="all")):
        with pytest.warns(ConvergenceWarning, match="without converging"):
            model.fit(X, y)
        assert model.n_iter_ >= 1
    with pytest.raises(ValueError, match="acceleration"):
        MAPLMD(acceleration="aitken").fit(X, y)
