"""Student-t children (``density="student"``) of the family learners (TAN, KDB, SKDB).

The posterior predictive of the normal-inverse-gamma prior behind the Gaussian estimates:
Student's t with nu = kappa + N degrees of freedom (N the weight of the cell's rows with the
child observed, kappa the prior's pseudo-rows), location the estimated mean and squared scale
var (nu + 1) / nu (Murphy 2007, eq. 100).  Checked against scipy's t at the parameters
derived by hand from the model's moments, and against the plug-in Gaussian in the limit of
many rows.
"""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm, t

from seminaive import KDB, SKDB, TAN, NaiveBayes


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = (y + rng.integers(0, 2, n)) % 3
    X = pd.DataFrame({"a": [f"a{v}" for v in a],
                      "u": rng.normal(y * 0.9, 1.0 + 0.3 * y, n),
                      "v": rng.normal(a * 0.5 - y * 0.4, 0.8, n)})
    X.loc[rng.random(n) < 0.05, "u"] = np.nan
    return X, pd.Series(np.array(["lo", "mid", "hi"])[y])


@pytest.mark.parametrize("m", [1.0, 3.0])
def test_class_only_children_are_scipy_t_at_hand_derived_parameters(m):
    """k = 0: every numeric child depends on the class alone, so the Student-t score minus
    the plug-in score of a row is, over its observed numeric children and for every class,
    log t(v; nu, mean, sqrt(var (nu + 1) / nu)) - log N(v; mu, sqrt(s2)), with (mu, s2) the
    class's maximum-likelihood moments, (mean, var) those moments shrunk towards the
    moments of all classes with m pseudo-rows and nu = m + the class's weight, all
    computed here from the training values (as NaiveBayes's Student-t children)."""
    X, y = data(60)
    plug = KDB(k=0, m=m, numeric="gaussian", density="plugin").fit(X, y)
    stud = KDB(k=0, m=m, numeric="gaussian", density="student").fit(X, y)
    values = plug.encoder_.numeric_values(X, "t")
    y_idx = np.searchsorted(plug.classes_, y)
    expected = np.zeros((len(X), 3))
    for j in range(values.shape[1]):
        v = values[:, j]
        seen = ~np.isnan(v)
        mu0, var0 = v[seen].mean(), v[seen].var()
        for yy in range(3):
            xs = v[seen & (y_idx == yy)]
            n, xbar = xs.size, xs.mean()
            ss = ((xs - xbar) ** 2).sum()
            loc = (xs.sum() + m * mu0) / (n + m)
            s2 = (ss + m * var0 + n * m / (n + m) * (xbar - mu0) ** 2) / (n + m)
            nu = m + n
            diff = (t.logpdf(v, df=nu, loc=loc, scale=np.sqrt(s2 * (nu + 1) / nu))
                    - norm.logpdf(v, loc=xbar, scale=xs.std()))
            expected[:, yy] += np.where(seen, diff, 0.0)
    got = stud.joint_log_likelihood(X) - plug.joint_log_likelihood(X)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    assert np.abs(expected).max() > 1e-3  # the two densities differ on 60 rows
    nb = NaiveBayes(m=m, numeric="gaussian", density="student").fit(X, y)
    np.testing.assert_allclose(stud.joint_log_likelihood(X), nb.joint_log_likelihood(X),
                               rtol=1e-12, atol=1e-10)


LEARNERS = [lambda **p: TAN(**p), lambda **p: KDB(k=2, **p), lambda **p: SKDB(k=2, **p)]


@pytest.mark.parametrize("make", LEARNERS, ids=["TAN", "KDB", "SKDB"])
def test_student_children_tend_to_the_plugin_gaussian_with_many_rows(make):
    """Student's t with kappa + N degrees of freedom tends to the plug-in Gaussian: the
    probabilities are close on average over 30,000 rows, not over 40 (a few cells of few
    rows stay apart, as they should)."""
    gaps = []
    for n in (40, 30_000):
        X, y = data(n, seed=1)
        plug = make(numeric="gaussian", density="plugin").fit(X, y)
        stud = make(numeric="gaussian", density="student").fit(X, y)
        # the same counts and structure, scored with the other density
        assert np.array_equal(plug._parents, stud._parents)
        gaps.append(np.abs(stud.predict_proba(X) - plug.predict_proba(X)).mean())
    assert gaps[1] < 1e-3
    assert gaps[0] > 10 * gaps[1]


def test_student_children_are_saved_and_loaded(tmp_path):
    import seminaive

    X, y = data(80)
    model = KDB(k=1, numeric="gaussian", density="student").fit(X, y)
    model.save(tmp_path / "m.npz")
    loaded = seminaive.load(tmp_path / "m.npz")
    assert loaded.density == "student"
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("cls", [TAN, KDB])
def test_set_params_on_a_fitted_model_scores_the_new_density(cls):
    """set_params(density=..., m=...) after fit: the scores are those of a model fitted with
    the new parameters (the estimates are not kept from the old ones)."""
    X, y = data(150, seed=7)
    model = cls(numeric="gaussian", density="plugin").fit(X, y)
    before = model.predict_proba(X)
    for params in ({"density": "student"}, {"density": "student", "m": 3.0},
                   {"density": "plugin", "m": 1.0}):
        model.set_params(**params)
        fresh = cls(numeric="gaussian", **{"density": "plugin", **params}).fit(X, y)
        np.testing.assert_allclose(model.predict_proba(X), fresh.predict_proba(X),
                                   rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.predict_proba(X), before, rtol=1e-12, atol=1e-12)


def test_skdb_search_scores_student_children_as_refitting_without_the_row():
    """SKDB's leave-one-out search scores the density its predictions use: with
    density="student", every (k, s) model's loss equals scoring each row by Student's t of
    the moments of all the other rows (class level shrunk towards the pooled moments, kappa
    + N degrees of freedom with N the cell's weight without the row)."""
    from test_structure_common import family_reference, training_codes

    from seminaive.tables import MomentTable

    rng = np.random.default_rng(3)
    n = 40
    y = rng.integers(0, 2, n)
    a = np.array(["p", "q", "r"])[(y + rng.integers(0, 2, n)) % 3]
    b = rng.normal(2.0 * y + (a == "p"), 1.0 + 0.5 * y)
    c = np.array(["u", "v"])[(rng.random(n) < 0.3 + 0.4 * y).astype(int)]
    X = pd.DataFrame({"a": a, "b": b, "c": c, "d": rng.normal(b - y, 1.0)})
    model = SKDB(k=2, numeric="gaussian", density="student", loss="log_loss",
                 discretizer="equal_frequency", n_bins=2).fit(X, y)
    codes = training_codes(model, X)
    values = model.encoder_.numeric_values(X, "t")
    numeric = list(model.encoder_.numeric_columns_)
    n_att, k = codes.shape[1], 2
    sums = np.zeros((3, n_att + 1))
    for r in range(n):
        keep = np.arange(n) != r
        moments = MomentTable(model._moment_entries(), model.table_.sizes, k, numeric)
        moments.add(codes[keep], y[keep], None, values[keep])
        mean, var = moments.estimates(1.0, coarser=lambda parents: [parents[:-1]],
                                      class_prior=True)
        weight = moments.sums.reshape(-1, 3)[:, 0]
        for j in range(3):
            for s in range(n_att + 1):
                chosen = set(model.order_[:s].tolist())
                parents = [[int(p) for p in model.candidates_[i, :j] if p >= 0]
                           if i in chosen and i not in numeric else [] for i in range(n_att)]
                row = np.where([i in chosen and i not in numeric for i in range(n_att)],
                               codes[r], 0)
                scores = family_reference(codes[keep], y[keep], k, model.table_.sizes,
                                          parents, row)
                for col, i in enumerate(numeric):
                    if i not in chosen:
                        continue
                    chain = [int(p) for p in model.candidates_[i, :j] if p >= 0]
                    level = 0
                    for t_ in range(len(chain)):
                        if codes[r, chain[t_]] == 0:
                            break
                        cell = 0
                        for p in chain[:t_ + 1]:
                            cell = cell * int(model.table_.sizes[p]) + int(codes[r, p])
                        e = moments.index[(tuple(chain[:t_ + 1]), i)]
                        if moments.block(e).reshape(-1, k, 3)[cell, :, 0].sum() < 1:
                            break
                        level = t_ + 1
                    e = moments.index[(tuple(chain[:level]), i)]
                    cell = 0
                    for p in chain[:level]:
                        cell = cell * int(model.table_.sizes[p]) + int(codes[r, p])
                    base = moments.offsets[e] // 3 + cell * k
                    nu = weight[base:base + k] + 1.0
                    scale2 = var[base:base + k] * (nu + 1) / nu
                    scores = scores + t.logpdf(values[r, col], df=nu, loc=mean[base:base + k],
                                               scale=np.sqrt(scale2))
                top = scores.max()
                post = np.exp(scores - top) / np.exp(scores - top).sum()
                sums[j, s] += -np.log(post[y[r]])
    np.testing.assert_allclose(model.loo_loss_, sums / n, rtol=1e-9, atol=1e-12)
