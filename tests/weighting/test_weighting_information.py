"""WAODE-MI / WAODE-KL and AnDE(weights=...): Weka's WAODE as an oracle, weights against
brute-force information measures, the weighted scoring path against an exact weighted
reference (tests/reference.py sub-models), and invariants."""

import math
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from reference import exact_log, sub_model_joint
from sklearn.metrics import mutual_info_score

from seminaive import A2DE, AODE, WAODE, AnDE, load

# ------------------------------------------------------------------------------------------
# Weka 3.6.14 weka.classifiers.bayes.WAODE (Jiang & Zhang 2006) as an oracle for WAODE-MI.
# Generated with tests/oracle/WekaOracle.java:
#   java -cp /usr/share/java/weka.jar:/tmp/oracle WekaOracle classify train.arff test.arff \
#        weka.classifiers.bayes.WAODE
# on the rows below (attribute j has values v0..v{|X_j|-1}, all seen in training; each
# string = attribute codes then the class code; classes c0, c1, c2).  Weka's WAODE uses
# m-estimates with m = 1, every super-parent (no frequency limit: min_count=0) and maximum-
# likelihood mutual information as the weights.
# ------------------------------------------------------------------------------------------
WEKA_TRAIN = (
    "0220101 0201111 1210300 1220320 1210020 1210320 1210320 1201020 0200320 0120202 "
    "1210320 1210300 1101220 0200101 1220011 0220201 1101210 1101120 1101220 1101120 "
    "1111310 1111320 0200211 1101220 1210320 0201101 1101220 0220101 0200001 1210320 "
    "1200110 1101300 0121100 1210320 1210320 1101220 1210011 1111200 1101220 1101120 "
    "1121220 0210201 1121210 1101220 0020001 1101200 1101320 1121120 1210320 0211201 "
    "0211220 0200201 1210320 0200101 1111220 0200311 1121300 1220320 1101220 1210320 "
    "1210000 1101200 1210320 1200320 1200310 1101200 1210020 1111220 0200211 1111020 "
    "1101200 0200301 1101020 1121020 1111020 0200211 0221322 1101100 0201211 1101220").split()
WEKA_TEST = (
    "112122 022031 110102 110102 021011 021021 112100 110131 110102 121032 120001 110122 "
    "121002 110122 110132 021021 020000 120002 020031 022020").split()
WEKA_WAODE = [
    [0.9960462021377231, 0.00041101697579847327, 0.0035427808864784394],
    [0.06485365730400813, 0.8410101878981431, 0.09413615479784887],
    [0.9989168860631771, 0.00046136113511862894, 0.0006217528017043462],
    [0.9989168860631771, 0.00046136113511862894, 0.0006217528017043462],
    [0.030588753752284016, 0.9652376169385164, 0.004173629309199609],
    [0.018525268675125623, 0.9759089412936109, 0.0055657900312634035],
    [0.9718808959995064, 0.008808581822341765, 0.019310522178151723],
    [0.9945272510327521, 0.0032170359028344774, 0.0022557130644134363],
    [0.9989168860631771, 0.00046136113511862894, 0.0006217528017043462],
    [0.9983690127649841, 0.0008393511676343691, 0.0007916360673813845],
    [0.24094583570849162, 0.7553791017315444, 0.0036750625599639665],
    [0.9996687006885373, 0.00010348764606166342, 0.00022781166540099742],
    [0.9746191680737641, 0.02448047517591325, 0.0009003567503226008],
    [0.9996687006885373, 0.00010348764606166342, 0.00022781166540099742],
    [0.998982027623274, 0.00018559022778574054, 0.0008323821489402608],
    [0.018525268675125623, 0.9759089412936109, 0.0055657900312634035],
    [0.008349103599520954, 0.9891471405513587, 0.002503755849120422],
    [0.9812090728994959, 0.016911174309619515, 0.0018797527908845399],
    [0.03586502439058691, 0.958858560938587, 0.005276414670826051],
    [0.01400076244661641, 0.9270730891736442, 0.058926148379739376],
]


def _weka_data():
    X = np.array([[int(c) for c in r[:6]] for r in WEKA_TRAIN])
    y = np.array([int(r[6]) for r in WEKA_TRAIN])
    Xt = np.array([[int(c) for c in r] for r in WEKA_TEST])
    return X, y, Xt


def test_waode_mi_matches_weka_waode():
    X, y, Xt = _weka_data()
    for min_count in (0, 1):  # every value is seen in training: the threshold never binds
        model = WAODE(weights="mi", min_count=min_count, categorical_features="all")
        proba = model.fit(X, y).predict_proba(Xt)
        assert_allclose(proba, WEKA_WAODE, rtol=1e-12, atol=1e-15)
    assert_allclose(proba.sum(axis=1), 1.0)


# ------------------------------------------------------------------------------------------
# Data with missing values for the brute-force comparisons
# ------------------------------------------------------------------------------------------
N_VALUES = [2, 3, 2, 3]
K = 3


def _data(n_rows=40, seed=0, missing=0.1):
    rng = np.random.default_rng(seed)
    while True:
        X = np.column_stack([rng.integers(0, v, n_rows) for v in N_VALUES])
        y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, n_rows)) % K
        X[rng.random(X.shape) < missing] = -1
        if all(set(X[:, j]) >= set(range(v)) for j, v in enumerate(N_VALUES)) and set(y) == {
                0, 1, 2}:
            return X, y


def _as_float(X):
    Xf = X.astype(float)
    Xf[X < 0] = np.nan
    return Xf


def _brute_mi(X, y, s):
    rows = np.all(X[:, list(s)] >= 0, axis=1)
    labels = ["-".join(str(v) for v in row) for row in X[rows][:, list(s)]]
    return mutual_info_score(labels, y[rows])


def test_mutual_information_weights_against_sklearn():
    X, y = _data()
    for n in (1, 2):
        model = AnDE(n, weights="mi", categorical_features="all").fit(_as_float(X), y)
        mi = np.array([_brute_mi(X, y, s) for s in combinations(range(len(N_VALUES)), n)])
        assert_allclose(model.weights_, mi / mi.sum(), rtol=1e-12)
        assert np.all(model.weights_ >= 0) and math.isclose(model.weights_.sum(), 1.0)
    waode = WAODE(categorical_features="all").fit(_as_float(X), y)
    assert_allclose(waode.weights_, AnDE(1, weights="mi", categorical_features="all").fit(
        _as_float(X), y).weights_)
    assert_array_equal(waode.parent_combinations_, np.arange(4)[:, None])


def _brute_kl(X, y, s, x_s, m=1.0):
    """KL(P(Y | x_s) || P(Y)) with the m-estimates of the model, from the raw rows."""
    k = K
    n_obs = np.sum(np.all(X[:, list(s)] >= 0, axis=1))
    prod = np.prod([N_VALUES[i] for i in s])
    match = np.all(X[:, list(s)] == x_s, axis=1)
    joint = np.array([(np.sum(match & (y == c)) + m / (k * prod)) / (n_obs + m)
                      for c in range(k)])
    post = joint / joint.sum()
    prior = np.array([(np.sum(y == c) + m / k) / (len(y) + m) for c in range(k)])
    return float(np.sum(post * np.log(post / prior)))


# ------------------------------------------------------------------------------------------
# An exact weighted reference: sub-models from tests/reference.py, weights applied here
# ------------------------------------------------------------------------------------------


def _weighted_reference(X, y, Xt, n, weight_of, aggregate="joint", min_count=1):
    """P(y | x) of sum_s w_s J_s / sum_s w_s over qualifying s with w_s > 0 (cascading)."""
    out = []
    for x in Xt:
        for level in range(n, -1, -1):
            parts = []
            for s in combinations(range(X.shape[1]), level):
                if any(x[i] < 0 for i in s):
                    continue
                if level and np.sum(np.all(X[:, list(s)] == x[list(s)], axis=1)) < min_count:
                    continue
                w = Fraction(weight_of(level, s, x)) if level else Fraction(1)
                if w > 0:
                    parts.append((w, sub_model_joint(X, y, x, s, N_VALUES, K)))
            if parts:
                break
        total_w = sum(w for w, _ in parts)
        if aggregate == "joint":
            mix = [sum(w * j[c] for w, j in parts) / total_w for c in range(K)]
            post = [v / sum(mix) for v in mix]
        elif aggregate == "posterior":
            post = [sum(w * j[c] / sum(j) for w, j in parts) / total_w for c in range(K)]
        else:
            post = [Fraction(0)] * K
            for w, j in parts:
                post[max(range(K), key=lambda c, j=j: (j[c], -c))] += w / total_w
        out.append([exact_log(p) for p in post])
    return np.array(out)


@pytest.mark.parametrize("aggregate", ["joint", "posterior", "vote"])
@pytest.mark.parametrize("n", [1, 2])
def test_array_weights_against_exact_reference(n, aggregate):
    X, y = _data(seed=1)
    Xt, _ = _data(n_rows=25, seed=2, missing=0.3)
    combos = list(combinations(range(4), n))
    raw = np.arange(1, len(combos) + 1, dtype=float) ** 2
    raw[1] = 0.0  # a zero weight leaves its sub-model out
    model = AnDE(n, weights=raw, aggregate=aggregate, min_count=2,
                 categorical_features="all").fit(_as_float(X), y)
    assert_allclose(model.weights_, raw / raw.sum())

    def weight_of(level, s, x):
        return raw[combos.index(s)] if level == n else 1.0

    expected = _weighted_reference(X, y, Xt, n, weight_of, aggregate, min_count=2)
    ours = model.predict_log_proba(_as_float(Xt))
    assert_allclose(np.exp(ours), np.exp(expected), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2])
def test_mi_weights_with_cascade_against_exact_reference(n):
    X, y = _data(seed=3)
    Xt, _ = _data(n_rows=25, seed=4, missing=0.5)  # many rows cascade
    model = AnDE(n, weights="mi", min_count=3, categorical_features="all").fit(_as_float(X), y)

    def weight_of(level, s, x):
        return _brute_mi(X, y, s)

    expected = _weighted_reference(X, y, Xt, n, weight_of, min_count=3)
    assert_allclose(model.predict_proba(_as_float(Xt)), np.exp(expected), rtol=1e-9,
                    atol=1e-12)


@pytest.mark.parametrize("n", [1, 2])
def test_kl_weights_against_exact_reference(n):
    X, y = _data(seed=5)
    Xt, _ = _data(n_rows=25, seed=6, missing=0.2)
    model = (WAODE(weights="kl", categorical_features="all") if n == 1 else
             AnDE(n, weights="kl", categorical_features="all")).fit(_as_float(X), y)

    def weight_of(level, s, x):
        return _brute_kl(X, y, s, x[list(s)])

    expected = _weighted_reference(X, y, Xt, n, weight_of)
    assert_allclose(model.predict_proba(_as_float(Xt)), np.exp(expected), rtol=1e-9,
                    atol=1e-12)
    # weights_ of WAODE-KL: one KL value per cell of the super-parents' blocks
    if n == 1:
        table = model.table_
        for i in range(4):
            for v in range(N_VALUES[i]):
                cell = table.offsets[table.combination_index([i])] // K + v + 1
                first = table.offsets[table.order_first[1]] // K
                assert math.isclose(model.weights_[cell - first], _brute_kl(X, y, (i,), [v]),
                                    rel_tol=1e-12)


def test_uniform_weights_reproduce_aode_and_a2de():
    X, y = _data(n_rows=200, seed=7)
    Xt, _ = _data(n_rows=100, seed=8, missing=0.3)
    Xf, Xtf = _as_float(X), _as_float(Xt)
    for n, plain in ((1, AODE), (2, A2DE)):
        for aggregate in ("joint", "posterior", "vote"):
            base = AnDE(n, aggregate=aggregate, categorical_features="all").fit(Xf, y)
            if n == 1 and aggregate == "joint":
                assert_array_equal(base.predict_log_proba(Xtf), plain(
                    categorical_features="all").fit(Xf, y).predict_log_proba(Xtf))
            uniform = np.full(math.comb(4, n), 7.0)
            weighted = AnDE(n, weights=uniform, aggregate=aggregate,
                            categorical_features="all").fit(Xf, y)
            assert_allclose(weighted.predict_log_proba(Xtf), base.predict_log_proba(Xtf),
                            rtol=1e-12, atol=1e-12)
            assert_array_equal(weighted.predict(Xtf), base.predict(Xtf))


def test_weights_none_is_plain_ande_bit_for_bit():
    X, y = _data(n_rows=150, seed=9)
    Xf = _as_float(X)
    for n in (1, 2):
        a = AnDE(n, weights=None, categorical_features="all").fit(Xf, y)
        b = (AODE if n == 1 else A2DE)(categorical_features="all").fit(Xf, y)
        assert_array_equal(a.joint_log_likelihood(Xf), b.joint_log_likelihood(Xf))
        assert not hasattr(a, "weights_")


@pytest.mark.parametrize("make", [
    lambda: WAODE(categorical_features="all"),
    lambda: WAODE(weights="kl", categorical_features="all"),
    lambda: AnDE(2, weights="mi", categorical_features="all"),
    lambda: AnDE(2, weights="kl", categorical_features="all"),
    lambda: AnDE(1, weights=[1, 2, 3, 4], categorical_features="all"),
    lambda: AnDE(1, weights=None, categorical_features="all"),
])
def test_save_load_round_trip(tmp_path, make):
    X, y = _data(n_rows=120, seed=10)
    model = make().fit(_as_float(X), y)
    path = tmp_path / "m.npz"
    model.save(path)
    loaded = load(path)
    assert type(loaded) is type(model)
    assert_array_equal(loaded.predict_proba(_as_float(X)), model.predict_proba(_as_float(X)))
    if model.weights is not None:
        assert_array_equal(loaded.weights_, model.weights_)


def test_corrupt_saved_weights_are_refused():
    X, y = _data(n_rows=120, seed=11)
    model = WAODE(categorical_features="all").fit(_as_float(X), y)
    for bad in (model.weights_[:-1], model.weights_ * 2, -model.weights_,
                np.full(4, np.nan)):
        with pytest.raises(ValueError):
            model._set_learned_state({"weights": bad})
    with pytest.raises(ValueError):
        model._set_learned_state({"weights": model.weights_, "extra": np.ones(1)})
    kl = WAODE(weights="kl", categorical_features="all").fit(_as_float(X), y)
    with pytest.raises(ValueError):
        kl._set_learned_state({"weights": -kl.weights_})


def test_probabilities_sum_to_one_and_bad_parameters():
    X, y = _data(n_rows=120, seed=12)
    for model in (WAODE(categorical_features="all"), AnDE(2, weights="kl",
                                                            categorical_features="all")):
        proba = model.fit(_as_float(X), y).predict_proba(_as_float(X))
        assert_allclose(proba.sum(axis=1), 1.0)
    for bad in ("entropy", [[1, 2]], ["a", "b"]):
        with pytest.raises(ValueError):
            AnDE(1, weights=bad).fit(_as_float(X), y)
    for bad in ([1, 2, 3], [1, -1, 1, 1], [0, 0, 0, 0], [1, np.inf, 1, 1]):
        with pytest.raises(ValueError, match="weight"):
            AnDE(1, weights=bad, categorical_features="all").fit(_as_float(X), y)
    with pytest.raises(ValueError, match="weights"):
        WAODE(weights=None).fit(_as_float(X), y)


def test_attribute_order_does_not_matter():
    X, y = _data(n_rows=150, seed=13)
    perm = [2, 0, 3, 1]
    for make in (lambda: WAODE(categorical_features="all"),
                 lambda: WAODE(weights="kl", categorical_features="all"),
                 lambda: AnDE(2, weights="mi", categorical_features="all")):
        a = make().fit(_as_float(X), y).predict_proba(_as_float(X))
        b = make().fit(_as_float(X[:, perm]), y).predict_proba(_as_float(X[:, perm]))
        assert_allclose(a, b, rtol=1e-10)


def test_given_weights_whose_sum_overflows_are_normalised():
    """Finite weights are scaled to sum to 1 even where their sum overflows: 1e308 on every
    parent is the uniform weighting (it gave weights of 0 and an overflow warning)."""
    import warnings

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (80, 5)).astype(str)
    y = rng.integers(0, 2, 80)
    uniform = AnDE(n=1, weights=np.ones(5)).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        huge = AnDE(n=1, weights=np.full(5, 1e308)).fit(X, y)
        skewed = AnDE(n=1, weights=[1e308, 1e308, 5e307, 5e307, 0.0]).fit(X, y)
    assert_array_equal(huge.weights_, np.full(5, 0.2))
    assert_array_equal(huge.predict_proba(X), uniform.predict_proba(X))
    assert_allclose(skewed.weights_, [1 / 3, 1 / 3, 1 / 6, 1 / 6, 0.0], rtol=1e-15)
