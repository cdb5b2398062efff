"""Student-t Gaussian children (``density="student"``): the posterior predictive of the
normal-inverse-gamma posterior behind the Gaussian estimates.

Checked against scipy's Student's t with the parameters derived by hand, against the
plug-in Gaussian in the limit of many rows, and through the learners' routes.
"""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm, t

from seminaive import AODE, AnDE, NaiveBayes
from seminaive.tables.gaussian import normal_inverse_gamma_predictive, student_terms


def test_student_terms_equal_scipy():
    rng = np.random.default_rng(0)
    loc, scale2, nu = rng.normal(size=5), rng.uniform(0.1, 4, 5), rng.uniform(0.5, 50, 5)
    mean, nrm, precision, shape = student_terms(loc, scale2, nu)
    v = rng.normal(size=5) * 3
    got = -(nrm + shape * np.log1p((v - mean) ** 2 * precision))
    np.testing.assert_allclose(got, t.logpdf(v, df=nu, loc=loc, scale=np.sqrt(scale2)),
                               rtol=1e-12, atol=1e-12)


def test_predictive_by_hand():
    # a_N = (kappa + n) / 2 = 2, kappa_N = 4, b_N = a_N var = 3: scale^2 = 3 * 5 / (2 * 4)
    loc, scale2, nu = normal_inverse_gamma_predictive(np.array([0.0]), np.array([1.5]),
                                                      np.array([3.0]), 1.0)
    assert nu[0] == 4.0 and scale2[0] == pytest.approx(15.0 / 8.0, abs=1e-15)


def _hand_nb_scores(x0, x1, x, m):
    """Naive Bayes with one numeric attribute, Student-t children, derived by hand: each
    class's normal-inverse-gamma posterior with m pseudo-rows centred on the pooled
    maximum-likelihood moments."""
    pooled = np.concatenate([x0, x1])
    mu_p, var_p = pooled.mean(), pooled.var()
    k, n_all = 2, pooled.size
    out = []
    for xs in (x0, x1):
        n, xbar = xs.size, xs.mean()
        ss = np.sum((xs - xbar) ** 2)
        mu_n = (n * xbar + m * mu_p) / (n + m)
        var = (ss + m * var_p + n * m / (n + m) * (xbar - mu_p) ** 2) / (n + m)
        nu = n + m
        scale = np.sqrt(var * (nu + 1) / nu)
        prior = np.log((n + m / k) / (n_all + m))
        out.append(prior + t.logpdf(x, df=nu, loc=mu_n, scale=scale))
    return np.stack(out, axis=1)


@pytest.mark.parametrize("m", [1.0, 2.5])
def test_naive_bayes_scores_by_hand(m):
    x0 = np.array([1.0, 2.0, 4.0])
    x1 = np.array([3.0, 5.0, 6.0, 8.0, 6.5])
    X = pd.DataFrame({"a": np.concatenate([x0, x1])})
    y = np.array([0] * 3 + [1] * 5)
    model = NaiveBayes(numeric="gaussian", density="student", m=m).fit(X, y)
    query = pd.DataFrame({"a": [0.0, 2.5, 5.0, 12.0]})
    np.testing.assert_allclose(model._scores(query),
                               _hand_nb_scores(x0, x1, query["a"].to_numpy(), m),
                               rtol=1e-10, atol=1e-10)


def test_many_rows_give_the_plug_in_gaussian():
    """Every cell holding many rows (three parent bins), Student's t tends to the plug-in
    Gaussian: the class probabilities converge as the rows grow."""
    rng = np.random.default_rng(1)
    n = 200_000
    y = rng.integers(0, 2, size=n)
    X = pd.DataFrame({"a": rng.normal(loc=y * 1.5, scale=1.0 + y),
                      "b": rng.normal(loc=-y, scale=2.0)})
    query = X.iloc[:50]

    def gap(rows):
        # (one random_state: above the encoder's sample of rows, the cut points are placed
        # on a random sample, and both models must have the same bins)
        params = dict(numeric="gaussian", discretizer="equal_frequency", n_bins=3,
                      random_state=0)
        plug = AODE(**params, density="plugin").fit(X.iloc[:rows], y[:rows])
        stud = AODE(**params, density="student").fit(X.iloc[:rows], y[:rows])
        return np.abs(stud.predict_proba(query) - plug.predict_proba(query)).max()

    small, large = gap(200), gap(n)
    assert large < 1e-3 and large < small / 20
    # and the plug-in is the Gaussian at the maximum-likelihood moments given the class
    nb = NaiveBayes(numeric="gaussian", density="plugin").fit(X[["a"]], y)
    xa = X["a"].to_numpy()
    want = [np.log((np.sum(y == c) + 0.5) / (n + 1.0))
            + norm.logpdf(xa[:5], xa[y == c].mean(), xa[y == c].std()) for c in (0, 1)]
    np.testing.assert_allclose(nb._scores(X[["a"]].iloc[:5]), np.stack(want, axis=1),
                               rtol=1e-9)


def test_few_rows_give_heavier_tails_than_the_plug_in():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.normal(size=20)})
    y = np.array([0, 1] * 10)
    far = pd.DataFrame({"a": [25.0]})
    plug = NaiveBayes(numeric="gaussian", density="plugin").fit(X, y)._scores(far)
    stud = NaiveBayes(numeric="gaussian", density="student").fit(X, y)._scores(far)
    assert np.all(stud > plug)


def test_routes_and_model_files(tmp_path):
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300),
                      "c": rng.integers(0, 3, size=300).astype(str)})
    y = (X["a"] + rng.normal(size=300) > 0).astype(int).to_numpy()
    for model in (AODE(numeric="gaussian", density="student"),
                  AnDE(n=2, numeric="gaussian", density="student", weights="mi")):
        proba = model.fit(X, y).predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
        path = tmp_path / "model.snb"
        model.save(path)
        np.testing.assert_array_equal(type(model).load(path).predict_proba(X), proba)
    # n="auto" selects by the leave-one-out Student-t densities
    # (tests/selection/test_gaussian_loo.py) and predicts with them
    auto = AnDE(n="auto", numeric="gaussian").fit(X, y)
    assert auto.density == "student"
    assert not np.allclose(auto.predict_proba(X), AnDE(
        n="auto", numeric="gaussian", density="plugin").fit(X, y).predict_proba(X))
    with pytest.raises(ValueError, match="density"):
        AODE(numeric="gaussian", density="t").fit(X, y)
