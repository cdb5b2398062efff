"""WANBIA-C and ALR: gradient against finite differences, every weight 1 is the generative
model (naive Bayes; AnJE against the exact reference), the parameter granularity reaches
the unregularised logistic-regression optimum, convergence reporting, weights, persistence."""

import itertools
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from reference import exact_log, sub_model_joint
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.preprocessing import OneHotEncoder
from test_ande import encode_for_reference, make_data

from seminaive import ALR, WANBIAC, NaiveBayes, load
from seminaive.sources import ArraySource

X, Y, XT = make_data(0, n_rows=80)
GRANULARITIES = {WANBIAC: [("attribute", 0), ("parameter", 0)],
                 ALR: [(w, n) for n in (0, 1, 2) for w in ALR._granularities]}
CASES = [(cls, w, n) for cls, cases in GRANULARITIES.items() for w, n in cases]


def _make(cls, weights, n, **kw):
    if cls is ALR:
        return ALR(n=n, weights=weights, categorical_features="all", **kw)
    return WANBIAC(weights=weights, categorical_features="all", **kw)


def _objective(model, theta, source):
    loss, grad, total = model._loss_and_gradient(source, theta)
    diff = theta - 1.0
    return (loss + 0.5 * model.l2 * diff @ diff) / total, (grad + model.l2 * diff) / total


@pytest.mark.parametrize("cls, weights, n", CASES)
def test_gradient_matches_finite_differences(cls, weights, n):
    model = _make(cls, weights, n, max_iter=3, l2=0.7, min_count=2, cache_bytes=0)
    w = np.random.default_rng(1).integers(0, 3, len(Y)).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, Y, sample_weight=w)
    codes, y_idx = model.chunk_encoder()(X, Y)
    source = ArraySource(codes, y_idx, w)
    rng = np.random.default_rng(2)
    theta = 1.0 + 0.3 * rng.standard_normal(model.coef_.size)
    value, grad = _objective(model, theta, source)
    assert np.isfinite(value)
    used = np.flatnonzero(grad)
    assert used.size > 0
    probe = rng.choice(used, size=min(12, used.size), replace=False)
    probe = np.concatenate([probe, rng.choice(model.coef_.size, 4)])  # some never read
    eps = 1e-6
    for j in probe:
        up, down = theta.copy(), theta.copy()
        up[j] += eps
        down[j] -= eps
        numeric = (_objective(model, up, source)[0] - _objective(model, down, source)[0]) / (
            2 * eps)
        assert_allclose(grad[j], numeric, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("weights", ["attribute", "parameter"])
@pytest.mark.parametrize("smoothing", ["m_estimate", "laplace"])
def test_unit_weights_are_naive_bayes(weights, smoothing):
    model = WANBIAC(weights=weights, max_iter=0, smoothing=smoothing,
                    categorical_features="all").fit(X, Y)
    nb = NaiveBayes(smoothing=smoothing, categorical_features="all").fit(X, Y)
    assert_array_equal(model.coef_, 1.0)
    assert_allclose(model.predict_log_proba(XT), nb.predict_log_proba(XT), rtol=0, atol=1e-13)


@pytest.mark.parametrize("weights", ["model", "class", "parent_value_class", "attribute"])
@pytest.mark.parametrize("n, min_count", [(1, 1), (2, 1), (2, 3)])
def test_unit_weights_are_anje(n, min_count, weights):
    """ALR at w = 1 is the geometric mean of the qualifying sub-models' joints, cascading to
    order n - 1 when none qualifies (exact reference of tests/reference.py)."""
    model = ALR(n=n, weights=weights, max_iter=0, min_count=min_count,
                categorical_features="all").fit(X, Y)
    codes, codes_t, n_values = encode_for_reference(X, XT, "ignore")
    k = len(model.classes_)
    expected = []
    for x in codes_t:
        for level in range(n, -1, -1):
            logs = []
            for s in itertools.combinations(range(len(n_values)), level):
                if any(x[i] < 0 for i in s):
                    continue
                if level and sum(all(r[i] == x[i] for i in s) for r in codes) < min_count:
                    continue
                joints = sub_model_joint(codes, Y, x, s, n_values, k)
                logs.append([exact_log(p) for p in joints])
            if logs:
                expected.append(np.mean(logs, axis=0))
                break
    expected = np.array(expected)
    expected -= np.logaddexp.reduce(expected, axis=1, keepdims=True)
    assert_allclose(model.predict_log_proba(XT), expected, rtol=1e-10, atol=1e-12)


def test_parameter_weights_reach_the_logistic_regression_optimum():
    """Unregularised, one weight per parameter spans the functions of multinomial logistic
    regression on the one-hot attribute values: the same optimal training log loss."""
    rng = np.random.default_rng(3)
    n = 400
    y = rng.integers(0, 3, n)
    Xc = np.column_stack([(y + rng.integers(0, 3, n) * (rng.random(n) < 0.7)) % 3,
                          rng.integers(0, 4, n),
                          (y * 2 + rng.integers(0, 2, n)) % 4]).astype(float)
    model = WANBIAC(weights="parameter", l2=0.0, max_iter=2000, tol=1e-10,
                    categorical_features="all").fit(Xc, y)
    ours = log_loss(y, model.predict_proba(Xc))
    onehot = OneHotEncoder().fit_transform(Xc)
    lr = LogisticRegression(C=np.inf, max_iter=10_000, tol=1e-12).fit(onehot, y)
    theirs = log_loss(y, lr.predict_proba(onehot))
    assert abs(ours - theirs) < 1e-6
    nb = NaiveBayes(categorical_features="all").fit(Xc, y)
    assert ours < log_loss(y, nb.predict_proba(Xc))


@pytest.mark.parametrize("cls, weights, n", [(WANBIAC, "attribute", 0), (ALR, "model", 1),
                                             (ALR, "parent_value_class", 2)])
def test_learning_lowers_the_objective(cls, weights, n):
    start = _make(cls, weights, n, max_iter=0).fit(X, Y)
    model = _make(cls, weights, n).fit(X, Y)
    assert model.objective_ < start.objective_
    assert model.n_iter_ >= 1 and model.n_passes_ >= 1


def test_unconverged_fit_warns():
    with pytest.warns(ConvergenceWarning, match="without converging"):
        model = ALR(n=1, weights="parent_value_class", max_iter=1,
                    categorical_features="all").fit(X, Y)
    assert model.n_iter_ == 1


def test_integer_weights_equal_repeated_rows():
    w = np.random.default_rng(4).integers(0, 3, len(Y))
    a = ALR(n=1, weights="class", categorical_features="all").fit(X, Y, sample_weight=w)
    b = ALR(n=1, weights="class", categorical_features="all").fit(np.repeat(X, w, axis=0),
                                                                 np.repeat(Y, w))
    assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-7)


def test_save_load_and_partial_fit_warning(tmp_path):
    model = ALR(n=1, weights="class", categorical_features="all").fit(X, Y)
    model.save(tmp_path / "alr.npz")
    back = load(tmp_path / "alr.npz")
    assert_array_equal(back.coef_, model.coef_)
    assert back.n_iter_ == model.n_iter_
    assert_array_equal(back.predict_proba(XT), model.predict_proba(XT))
    with pytest.warns(UserWarning, match="chunk only"):
        back.partial_fit(X[:20], Y[:20])


def test_refit_starts_from_the_generative_model():
    model = WANBIAC(categorical_features="all")
    first = model.fit(X, Y).coef_.copy()
    again = model.fit(X, Y).coef_
    assert_array_equal(first, again)


@pytest.mark.parametrize("params, match", [({"weights": "cell"}, "weights"),
                                           ({"l2": -1}, "l2"), ({"max_iter": 1.5}, "max_iter"),
                                           ({"tol": 0}, "tol")])
def test_bad_parameters_are_refused(params, match):
    with pytest.raises(ValueError, match=match):
        WANBIAC(**params).fit(X, Y)


@pytest.mark.parametrize("weights, n", [("class", 1), ("parent_value_class", 2),
                                        ("attribute", 1), ("parameter", 1)])
def test_kept_terms_give_the_streamed_passes(weights, n):
    """Iterations over the terms kept in memory equal passes over the data."""
    kept = ALR(n=n, weights=weights, categorical_features="all").fit(X, Y)
    streamed = ALR(n=n, weights=weights, cache_bytes=0, categorical_features="all").fit(X, Y)
    assert kept.n_passes_ == 1 and streamed.n_passes_ >= streamed.n_iter_
    assert kept.n_iter_ == streamed.n_iter_
    assert_allclose(kept.coef_, streamed.coef_, rtol=1e-9, atol=1e-10)
    codes, y_idx = kept.chunk_encoder()(X, Y)
    source = ArraySource(codes, y_idx, chunk_rows=30)
    theta = 1.0 + 0.2 * np.random.default_rng(5).standard_normal(kept.coef_.size)
    cache = kept._build_cache(source)
    a = kept._loss_and_gradient(source, theta)
    b = kept._loss_and_gradient(source, theta, cache)
    assert_allclose(b[0], a[0], rtol=1e-12)
    assert_allclose(b[1], a[1], rtol=1e-10, atol=1e-12)


def test_non_negative_weights():
    free = ALR(n=1, weights="class", l2=1e-3, categorical_features="all").fit(X, Y)
    bounded = ALR(n=1, weights="class", l2=1e-3, non_negative=True,
                  categorical_features="all").fit(X, Y)
    assert bounded.coef_.min() >= 0.0
    assert free.coef_.min() < 0.0  # the data pull some weights below 0 when free
    assert bounded.objective_ >= free.objective_ - 1e-9
    with pytest.raises(ValueError, match="non_negative"):
        ALR(non_negative="yes").fit(X, Y)
