"""Tests of seminaive.datasets: generators with known Bayes error and bundled data."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from seminaive.datasets import (
    RandomBayesianNetwork,
    led_bayes_error,
    load_kr_vs_kp,
    make_led,
    make_random_bn,
    make_waveform,
)
from seminaive.datasets.generators import LED_SEGMENTS, _waveform_bases

# ------------------------------------------------------------------------------ LED


def test_led_shapes_and_dtypes():
    X, y = make_led(1000, random_state=0)
    assert X.shape == (1000, 24) and X.dtype == np.uint8
    assert y.shape == (1000,) and y.dtype == np.int64
    assert set(np.unique(X)) <= {0, 1}
    assert set(np.unique(y)) <= set(range(10))
    X7, _ = make_led(50, n_irrelevant=0, random_state=0)
    assert X7.shape == (50, 7)


def test_led_class_frequencies_and_noise_rate():
    n, noise = 200_000, 0.15
    X, y = make_led(n, noise=noise, random_state=1)
    freq = np.bincount(y, minlength=10) / n
    assert np.abs(freq - 0.1).max() < 0.004
    flip_rate = np.mean(X[:, :7] != LED_SEGMENTS[y])
    assert abs(flip_rate - noise) < 0.002
    # every segment is flipped at the same rate
    per_segment = np.mean(X[:, :7] != LED_SEGMENTS[y], axis=0)
    assert np.abs(per_segment - noise).max() < 0.004
    assert abs(X[:, 7:].mean() - 0.5) < 0.002
    # irrelevant attributes carry no information about the class
    assert np.abs(X[y == 3, 7:].mean(axis=0) - X[y == 8, 7:].mean(axis=0)).max() < 0.03


def test_led_noise_free_is_the_pattern():
    X, y = make_led(500, n_irrelevant=0, noise=0.0, random_state=2)
    np.testing.assert_array_equal(X, LED_SEGMENTS[y])


def test_led_bayes_error_values():
    assert 0.255 <= led_bayes_error(0.1) <= 0.27
    assert led_bayes_error(0.0) == pytest.approx(0.0)
    assert led_bayes_error(0.5) == pytest.approx(0.9)
    assert led_bayes_error(0.05) < led_bayes_error(0.1) < led_bayes_error(0.2)


def _led_bayes_predict(X7, noise):
    """Bayes rule for LED-7: argmax_d P(x | d) (uniform prior)."""
    hamming = (X7[:, None, :] != LED_SEGMENTS[None, :, :]).sum(axis=2)
    log_lik = hamming * np.log(noise) + (7 - hamming) * np.log(1 - noise)
    return log_lik.argmax(axis=1)


@pytest.mark.parametrize("noise", [0.1, 0.25])
def test_led_bayes_error_monte_carlo(noise):
    n = 200_000
    X, y = make_led(n, n_irrelevant=0, noise=noise, random_state=3)
    err = np.mean(_led_bayes_predict(X, noise) != y)
    exact = led_bayes_error(noise)
    assert abs(err - exact) < 4 * np.sqrt(exact * (1 - exact) / n)


def test_led_determinism():
    a = make_led(300, random_state=7)
    b = make_led(300, random_state=7)
    c = make_led(300, random_state=8)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    np.testing.assert_array_equal(
        make_led(100, random_state=g1)[0], make_led(100, random_state=g2)[0]
    )


# ------------------------------------------------------------------------- waveform


def test_waveform_shapes_and_balance():
    n = 30_000
    X, y = make_waveform(n, random_state=0)
    assert X.shape == (n, 21) and X.dtype == np.float64 and y.dtype == np.int64
    assert set(np.unique(y)) == {0, 1, 2}
    assert np.abs(np.bincount(y) / n - 1 / 3).max() < 0.015
    X40, y40 = make_waveform(n, n_features=40, random_state=0)
    assert X40.shape == (n, 40)
    extra = X40[:, 21:]
    assert np.abs(extra.mean(axis=0)).max() < 0.05
    assert np.abs(extra.std(axis=0) - 1).max() < 0.05
    with pytest.raises(ValueError):
        make_waveform(10, n_features=20)


def test_waveform_class_means_and_noise():
    n = 60_000
    h1, h2, h3 = _waveform_bases()
    assert h1.argmax() == 10 and h2.argmax() == 14 and h3.argmax() == 6  # peaks at 11, 15, 7
    X, y = make_waveform(n, noise=0.0, random_state=1)
    expected = [(h1 + h2) / 2, (h1 + h3) / 2, (h2 + h3) / 2]  # E[u] = 1/2
    for c in range(3):
        np.testing.assert_allclose(X[y == c].mean(axis=0), expected[c], atol=0.06)
    assert X.min() >= 0 and X.max() <= 6
    Xn, yn = make_waveform(n, noise=1.0, random_state=1)
    np.testing.assert_array_equal(y, yn)  # same seed, same classes and u: only noise added
    resid = Xn - X
    assert abs(resid.std() - 1.0) < 0.01


def test_waveform_determinism():
    a, b = make_waveform(200, random_state=4), make_waveform(200, random_state=4)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


# ------------------------------------------------------------------ Bayesian network


def _brute_log_joint(net, x):
    out = np.log(net.class_prior_).copy()
    for y in range(net.n_classes):
        for i, (par, cpt) in enumerate(zip(net.parents_, net.cpts_, strict=True)):
            out[y] += np.log(cpt[(y, *x[par].tolist(), x[i])])
    return out


def test_bn_structure():
    net = RandomBayesianNetwork(
        n_attributes=15, n_values=3, n_classes=4, max_parents=2, random_state=0
    )
    assert len(net.parents_) == len(net.cpts_) == 15
    np.testing.assert_allclose(net.class_prior_.sum(), 1.0)
    n_par = []
    for i, (par, cpt) in enumerate(zip(net.parents_, net.cpts_, strict=True)):
        assert len(par) <= min(2, i) and np.all(par < i) and len(set(par)) == len(par)
        assert cpt.shape == (4, *([3] * len(par)), 3)
        np.testing.assert_allclose(cpt.sum(axis=-1), 1.0)
        n_par.append(len(par))
    assert max(n_par) == 2  # with 15 attributes some surely have two parents


def test_bn_sample_matches_cpts():
    n = 200_000
    net = RandomBayesianNetwork(
        n_attributes=8, n_values=3, n_classes=3, max_parents=2, random_state=11
    )
    X, y = net.sample(n, random_state=12)
    assert X.shape == (n, 8) and X.dtype == np.uint8 and y.dtype == np.int64
    # class prior
    counts = np.bincount(y, minlength=3)
    assert stats.chisquare(counts, net.class_prior_ * n).pvalue > 1e-4
    # one attribute with two parents: P(x_i | y, parents)
    i = next(j for j, p in enumerate(net.parents_) if len(p) == 2)
    p1, p2 = net.parents_[i]
    chi2, dof = 0.0, 0
    for c, a, b in itertools.product(range(3), range(3), range(3)):
        rows = (y == c) & (X[:, p1] == a) & (X[:, p2] == b)
        m = rows.sum()
        if m < 200:
            continue
        obs = np.bincount(X[rows, i], minlength=3)
        exp = net.cpts_[i][c, a, b] * m
        keep = exp > 0
        chi2 += (((obs - exp)[keep]) ** 2 / exp[keep]).sum()
        dof += keep.sum() - 1
        assert obs[~keep].sum() == 0
    assert dof > 20
    assert stats.chi2.sf(chi2, dof) > 1e-4


def test_bn_many_values_and_per_attribute_cardinalities():
    # 20 and 200 values exercise the bisection sampler, 2 and 5 the linear scan
    card = [20, 2, 5, 200]
    net = RandomBayesianNetwork(
        n_attributes=4, n_values=card, n_classes=2, max_parents=1, concentration=2.0, random_state=3
    )
    n = 200_000
    X, y = net.sample(n, random_state=4)
    np.testing.assert_array_equal(net.n_values_, card)
    assert np.all(X.max(axis=0) < np.array(card))
    for c in range(2):  # attribute 0 has no attribute parent
        freq = np.bincount(X[y == c, 0], minlength=20) / np.sum(y == c)
        assert np.abs(freq - net.cpts_[0][c]).max() < 0.01
    i = 3
    par = net.parents_[i]
    rows = (y == 1) if len(par) == 0 else (y == 1) & (X[:, par[0]] == 0)
    p = net.cpts_[i][(1, *([0] * len(par)))]
    freq = np.bincount(X[rows, i], minlength=200) / rows.sum()
    assert np.abs(freq - p).max() < 5 * np.sqrt(p.max() / rows.sum()) + 1e-3


def test_bn_zero_probability_values_never_sampled():
    net = RandomBayesianNetwork(n_attributes=3, n_values=4, random_state=0)
    net.cpts_[0][:] = [0.5, 0.5, 0.0, 0.0]
    net.cpts_[1][..., :] = [0.0, 0.0, 0.0, 1.0]
    X, _ = net.sample(100_000, random_state=1)
    assert set(np.unique(X[:, 0])) == {0, 1}
    assert set(np.unique(X[:, 1])) == {3}


def test_bn_log_joint_brute_force_and_proba():
    net = RandomBayesianNetwork(
        n_attributes=10,
        n_values=[2, 3, 4, 5, 2, 3, 4, 5, 9, 2],
        n_classes=3,
        max_parents=3,
        random_state=5,
    )
    X, y = net.sample(2000, random_state=6)
    lj = net.log_joint(X)
    assert lj.shape == (2000, 3)
    for r in [0, 1, 17, 500, 1999]:
        np.testing.assert_allclose(lj[r], _brute_log_joint(net, X[r].astype(np.int64)))
    proba = net.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(proba >= 0)
    np.testing.assert_allclose(proba, np.exp(lj) / np.exp(lj).sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(net.predict(X), proba.argmax(axis=1))
    with pytest.raises(ValueError):
        net.log_joint(np.full((1, 10), 9))  # code 9 out of range for most attributes
    with pytest.raises(ValueError):
        net.log_joint(X[:, :5])


def test_bn_bayes_error_beats_naive_bayes():
    from sklearn.naive_bayes import CategoricalNB

    X, y, net = make_random_bn(
        250_000, n_attributes=12, n_values=3, max_parents=2, concentration=3.0, random_state=21
    )
    Xtr, ytr, Xte, yte = X[:200_000], y[:200_000], X[200_000:], y[200_000:]
    nb = CategoricalNB(alpha=1.0, min_categories=3).fit(Xtr, ytr)
    nb_err = np.mean(nb.predict(Xte) != yte)
    expected, empirical = net.bayes_error(Xte, yte)
    assert isinstance(net.bayes_error(Xte), float)
    assert net.bayes_error(Xte) == expected
    assert empirical <= nb_err
    assert abs(expected - empirical) < 4 * np.sqrt(expected * (1 - expected) / len(yte)) + 1e-3
    assert 0.0 <= expected <= 0.5


def test_bn_determinism():
    a = make_random_bn(5000, random_state=9)
    b = make_random_bn(5000, random_state=9)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    for pa, pb in zip(a[2].parents_, b[2].parents_, strict=True):
        np.testing.assert_array_equal(pa, pb)
    for ca, cb in zip(a[2].cpts_, b[2].cpts_, strict=True):
        np.testing.assert_array_equal(ca, cb)
    c = make_random_bn(5000, random_state=10)
    assert not np.array_equal(a[0], c[0])
    # sample(random_state=None) continues a stream seeded by the constructor
    n1, n2 = RandomBayesianNetwork(random_state=3), RandomBayesianNetwork(random_state=3)
    s1, s2 = n1.sample(100), n2.sample(100)
    np.testing.assert_array_equal(s1[0], s2[0])
    assert not np.array_equal(n1.sample(100)[0], s1[0])
    np.testing.assert_array_equal(
        n1.sample(50, random_state=1)[0], n2.sample(50, random_state=1)[0]
    )


def test_bn_chunking():
    net = RandomBayesianNetwork(n_attributes=6, random_state=0)
    X, y = net.sample(2_500, random_state=1, chunk_size=1000)
    assert X.shape == (2_500, 6) and y.shape == (2_500,)
    # later chunks are real samples too, not left-over buffer contents
    assert len(np.unique(X[2000:], axis=0)) > 100
    X0, y0 = net.sample(0, random_state=1)
    assert X0.shape == (0, 6) and y0.shape == (0,)


# --------------------------------------------------------------------------- bundled

KR_VS_KP_COLUMNS = (
    "bkblk bknwy bkon8 bkona bkspr bkxbq bkxcr bkxwp blxwp bxqsq cntxt dsopp dwipd hdchk "
    "katri mulch qxmsq r2ar8 reskd reskr rimmx rkxwp rxmsq simpl skach skewr skrxp spcop "
    "stlmt thrsk wkcti wkna8 wknck wkovl wkpos wtoeg"
).split()


def test_kr_vs_kp_frame():
    X, y = load_kr_vs_kp()
    assert isinstance(X, pd.DataFrame) and isinstance(y, pd.Series)
    assert X.shape == (3196, 36) and len(y) == 3196
    assert list(X.columns) == KR_VS_KP_COLUMNS
    assert all(isinstance(X[c].dtype, pd.CategoricalDtype) for c in X.columns)
    assert not X.isna().any().any() and not y.isna().any()
    assert y.value_counts().to_dict() == {"won": 1669, "nowin": 1527}
    assert list(X["katri"].cat.categories) == ["b", "n", "w"]
    assert list(X["wtoeg"].cat.categories) == ["n", "t"]
    assert list(X["dwipd"].cat.categories) == ["g", "l"]
    others = [c for c in KR_VS_KP_COLUMNS if c not in ("katri", "wtoeg", "dwipd")]
    assert all(set(X[c].cat.categories) <= {"f", "t"} for c in others)


def test_kr_vs_kp_arrays():
    X, y = load_kr_vs_kp(as_frame=False)
    assert X.shape == (3196, 36) and X.dtype == object and y.dtype == object
    assert isinstance(X[0, 0], str) and set(y) == {"won", "nowin"}


def test_synthetic_name_with_a_size():
    from seminaive.datasets import dataset_info, load
    from seminaive.exceptions import InputError

    X, y = load("randombn@1500", random_state=3)
    assert X.shape == (1500, 20) and len(y) == 1500
    X2, _ = load("randombn", n_rows=1500, random_state=3)
    pd.testing.assert_frame_equal(X, X2)
    assert load("led24@300", n_rows=50)[0].shape == (50, 24)
    assert dataset_info("waveform21@700")["n_rows"] == 700
    for bad in ("randombn@", "randombn@x", "randombn@0", "kr-vs-kp@100"):
        with pytest.raises(InputError):
            load(bad)
