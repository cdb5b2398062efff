"""AnDE estimators against hand-computed numbers, against the pure-Python reference
(tests/reference.py) and against invariants of the model."""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from reference import exact_log, reference_exact, reference_proba, sub_model_joint

from seminaive import A2DE, A3DE, AODE, AnDE, NaiveBayes
from seminaive.tables import storage_codes


def _ande(n):
    def make(**kw):
        return AnDE(n, **kw)
    return make


ESTIMATORS = {"NB": (NaiveBayes, 0), "AODE": (AODE, 1), "A2DE": (A2DE, 2), "A3DE": (A3DE, 3),
              "A4DE": (_ande(4), 4), "A5DE": (_ande(5), 5)}

# ------------------------------------------------------------------------------------------
# 1. A tiny data set computed by hand
# ------------------------------------------------------------------------------------------
#
#   row  A0 A1 A2 | y        |A0| = 2, |A1| = 3, |A2| = 2, k = 2, N = 8, m = 1
#    1    0  0  0 | 0        y=0: rows 1-5 (N(y=0) = 5)
#    2    0  1  0 | 0        y=1: rows 6-8 (N(y=1) = 3)
#    3    1  0  1 | 0
#    4    0  2  1 | 0        test row x = (A0=0, A1=1, A2=1)
#    5    0  0  0 | 0
#    6    1  1  1 | 1
#    7    1  2  0 | 1
#    8    0  1  1 | 1
TINY_X = np.array([[0, 0, 0], [0, 1, 0], [1, 0, 1], [0, 2, 1], [0, 0, 0], [1, 1, 1],
                   [1, 2, 0], [0, 1, 1]])
TINY_Y = np.array([0, 0, 0, 0, 0, 1, 1, 1])
TINY_TEST = np.array([[0, 1, 1]])
F = Fraction

# --- NB, m-estimate (m = 1) ---------------------------------------------------------------
#   P(y=0) = (5 + 1/2)/(8 + 1) = 11/18          P(y=1) = (3 + 1/2)/9 = 7/18
#   P(A0=0|y): y=0 4 of 5: (4 + 1/2)/(5 + 1) = 3/4;  y=1 1 of 3: (1 + 1/2)/(3 + 1) = 3/8
#   P(A1=1|y): y=0 1 of 5: (1 + 1/3)/6 = 2/9;        y=1 2 of 3: (2 + 1/3)/4 = 7/12
#   P(A2=1|y): y=0 2 of 5: (2 + 1/2)/6 = 5/12;       y=1 2 of 3: (2 + 1/2)/4 = 5/8
#   joint y=0: 11/18 * 3/4 * 2/9 * 5/12 = 55/1296 = 1760/41472
#   joint y=1:  7/18 * 3/8 * 7/12 * 5/8 = 735/13824 = 2205/41472
#   posterior: 1760/3965 = 352/793,  2205/3965 = 441/793
NB_M_JOINT = [F(55, 1296), F(735, 13824)]
NB_M_POST = [F(352, 793), F(441, 793)]
# --- NB, Laplace ----------------------------------------------------------------------------
#   P(y=0) = 6/10 = 3/5, P(y=1) = 4/10 = 2/5
#   P(A0=0|y): (4+1)/(5+2) = 5/7,  (1+1)/(3+2) = 2/5
#   P(A1=1|y): (1+1)/(5+3) = 1/4,  (2+1)/(3+3) = 1/2
#   P(A2=1|y): (2+1)/(5+2) = 3/7,  (2+1)/(3+2) = 3/5
#   joint y=0: 3/5 * 5/7 * 1/4 * 3/7 = 9/196;  y=1: 2/5 * 2/5 * 1/2 * 3/5 = 6/125
#   posterior: 9*125 = 1125, 6*196 = 1176 -> 1125/2301 = 375/767, 1176/2301 = 392/767
NB_L_JOINT = [F(9, 196), F(6, 125)]
NB_L_POST = [F(375, 767), F(392, 767)]
# --- AODE, m-estimate (m = 1, min_count = 1; N(A0=0)=5, N(A1=1)=3, N(A2=1)=4: all qualify) ---
#   parent A0=0: P(y, A0=0) = (N + 1/(2*2))/(8+1): y=0 (4+1/4)/9 = 17/36, y=1 (1+1/4)/9 = 5/36
#     A1=1 | y, A0=0: y=0 rows 1,2,4,5 -> 1: (1+1/3)/(4+1) = 4/15; y=1 row 8 -> 1: (1+1/3)/2 = 2/3
#     A2=1 | y, A0=0: y=0 -> 1: (1+1/2)/5 = 3/10;  y=1 -> 1: (1+1/2)/2 = 3/4
#     term: y=0 17/36 * 4/15 * 3/10 = 17/450;  y=1 5/36 * 2/3 * 3/4 = 5/72
#   parent A1=1: P(y, A1=1) = (N + 1/(2*3))/9: y=0 (1+1/6)/9 = 7/54, y=1 (2+1/6)/9 = 13/54
#     A0=0 | y, A1=1: y=0 row 2 -> 1: (1+1/2)/(1+1) = 3/4; y=1 rows 6,8 -> 1: (1+1/2)/3 = 1/2
#     A2=1 | y, A1=1: y=0 -> 0: (0+1/2)/2 = 1/4;  y=1 -> 2: (2+1/2)/3 = 5/6
#     term: y=0 7/54 * 3/4 * 1/4 = 7/288;  y=1 13/54 * 1/2 * 5/6 = 65/648
#   parent A2=1: P(y, A2=1) = (N + 1/4)/9: y=0 (2+1/4)/9 = 1/4, y=1 (2+1/4)/9 = 1/4
#     A0=0 | y, A2=1: y=0 rows 3,4 -> 1: (1+1/2)/3 = 1/2;  y=1 rows 6,8 -> 1: 1/2
#     A1=1 | y, A2=1: y=0 -> 0: (0+1/3)/3 = 1/9;  y=1 -> 2: (2+1/3)/3 = 7/9
#     term: y=0 1/4 * 1/2 * 1/9 = 1/72;  y=1 1/4 * 1/2 * 7/9 = 7/72
#   sum y=0: 17/450 + 7/288 + 1/72 = (272 + 175 + 100)/7200 = 547/7200
#   sum y=1: 5/72 + 65/648 + 7/72 = (45 + 65 + 63)/648 = 173/648
#   joint (mean of 3): 547/21600, 173/1944
#   posterior: 547/7200 = 4923/64800, 173/648 = 17300/64800 -> 4923/22223, 17300/22223
AODE_M_JOINT = [F(547, 21600), F(173, 1944)]
AODE_M_POST = [F(4923, 22223), F(17300, 22223)]
# --- AODE, Laplace ----------------------------------------------------------------------------
#   parent A0=0: P = (N+1)/(8+2*2): 5/12, 2/12;  A1=1|.: (1+1)/(4+3) = 2/7, (1+1)/(1+3) = 1/2;
#     A2=1|.: (1+1)/(4+2) = 1/3, (1+1)/(1+2) = 2/3;  term 5/126, 1/18
#   parent A1=1: P = (N+1)/(8+2*3): 2/14, 3/14;  A0=0|.: (1+1)/(1+2) = 2/3, (1+1)/(2+2) = 1/2;
#     A2=1|.: (0+1)/(1+2) = 1/3, (2+1)/(2+2) = 3/4;  term 2/63, 9/112
#   parent A2=1: P = (N+1)/12: 3/12, 3/12;  A0=0|.: (1+1)/(2+2) = 1/2, 1/2;
#     A1=1|.: (0+1)/(2+3) = 1/5, (2+1)/(2+3) = 3/5;  term 1/40, 3/40
#   sum y=0: 5/126 + 4/126 + 1/40 = 1/14 + 1/40 = 27/280 = 486/5040
#   sum y=1: 1/18 + 9/112 + 3/40 = (280 + 405 + 378)/5040 = 1063/5040
#   joint (mean of 3): 9/280, 1063/15120;  posterior: 486/1549, 1063/1549
AODE_L_JOINT = [F(9, 280), F(1063, 15120)]
AODE_L_POST = [F(486, 1549), F(1063, 1549)]

HAND = {
    ("NB", "m_estimate"): (NaiveBayes, NB_M_JOINT, NB_M_POST),
    ("NB", "laplace"): (NaiveBayes, NB_L_JOINT, NB_L_POST),
    ("AODE", "m_estimate"): (AODE, AODE_M_JOINT, AODE_M_POST),
    ("AODE", "laplace"): (AODE, AODE_L_JOINT, AODE_L_POST),
}


@pytest.mark.parametrize("key", sorted(HAND))
def test_hand_computed(key):
    cls, joint, post = HAND[key]
    model = cls(smoothing=key[1], categorical_features="all").fit(TINY_X, TINY_Y)
    assert_allclose(model.predict_proba(TINY_TEST)[0], [float(p) for p in post], rtol=1e-12)
    # joint_log_likelihood is the log of the (mean) joint estimate itself
    assert_allclose(np.exp(model.joint_log_likelihood(TINY_TEST)[0]),
                    [float(p) for p in joint], rtol=1e-12)
    # the reference implementation agrees with the hand computation exactly
    n = 0 if key[0] == "NB" else 1
    assert reference_exact(TINY_X, TINY_Y, TINY_TEST, n, [2, 3, 2], 2, key[1])[0] == post


# ------------------------------------------------------------------------------------------
# 2. Library against the reference on random small data
# ------------------------------------------------------------------------------------------
N_VALUES = (2, 3, 4, 3, 2)
N_CLASSES = 3


def make_data(seed, n_rows=60, n_test=25, n_values=N_VALUES, n_classes=N_CLASSES,
              missing_rate=0.1):
    """Integer-valued float arrays with NaN; attributes depend on the class and on the
    previous attribute.  Test rows also carry unseen values (7) and many missing values."""
    rng = np.random.default_rng(seed)

    def draw(n, miss, unseen):
        y = rng.integers(0, n_classes, n)
        X = np.empty((n, len(n_values)))
        prev = np.zeros(n, dtype=np.int64)
        for i, v in enumerate(n_values):
            base = (y + prev) % v
            noisy = rng.random(n) < 0.35
            col = np.where(noisy, rng.integers(0, v, n), base)
            X[:, i] = col
            prev = col
        X[rng.random(X.shape) < miss] = np.nan
        X[rng.random(X.shape) < unseen] = 7.0
        return X, y

    X, y = draw(n_rows, missing_rate, 0.0)
    Xt, _ = draw(n_test, 0.2, 0.05)
    Xt[0] = np.nan  # nothing observed
    Xt[1, 1:] = np.nan  # one attribute observed
    return X, y, Xt


def encode_for_reference(X, Xt, missing):
    """Integer codes as the documentation describes them: sorted values seen in training,
    -1 for missing or unseen; with missing="value" a NaN is one more value of an attribute
    whose training column has NaN."""
    codes, codes_t, n_values = np.empty(X.shape, int), np.empty(Xt.shape, int), []
    for i in range(X.shape[1]):
        col = X[:, i]
        cats = sorted({float(v) for v in col if not math.isnan(v)})
        nan_code = len(cats) if (missing == "value" and np.isnan(col).any()) else -1
        lookup = {v: j for j, v in enumerate(cats)}

        def enc(v, lookup=lookup, nan_code=nan_code):
            return nan_code if math.isnan(v) else lookup.get(float(v), -1)

        codes[:, i] = [enc(v) for v in col]
        codes_t[:, i] = [enc(v) for v in Xt[:, i]]
        n_values.append(len(cats) + (nan_code >= 0))
    return codes, codes_t, n_values


DATA = {seed: make_data(seed) for seed in (0, 1)}


@pytest.mark.parametrize("aggregate", ["joint", "posterior", "vote"])
@pytest.mark.parametrize("min_count", [1, 3])
@pytest.mark.parametrize("missing", ["ignore", "value"])
@pytest.mark.parametrize("smoothing", ["m_estimate", "laplace"])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_matches_reference(name, smoothing, missing, min_count, aggregate):
    make, n = ESTIMATORS[name]
    seed = (n + min_count) % 2
    X, y, Xt = DATA[seed]
    model = make(smoothing=smoothing, missing=missing, min_count=min_count,
                 aggregate=aggregate, categorical_features="all").fit(X, y)
    got = model.predict_proba(Xt)
    codes, codes_t, n_values = encode_for_reference(X, Xt, missing)
    assert list(model.encoder_.n_values_) == n_values
    want = reference_proba(codes, y, codes_t, n, n_values, N_CLASSES, smoothing, 1.0,
                           min_count, aggregate)
    assert_allclose(got, want, rtol=1e-10, atol=0)
    assert_allclose(got.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(np.isfinite(model.predict_log_proba(Xt)) | (got == 0))
    assert_array_equal(model.predict(Xt), np.argmax(got, axis=1))


@pytest.mark.parametrize("m", [0.5, 3.0])
@pytest.mark.parametrize("n", [0, 1, 2])
def test_matches_reference_other_m(n, m):
    X, y, Xt = DATA[1]
    model = AnDE(n, m=m, categorical_features="all").fit(X, y)
    codes, codes_t, n_values = encode_for_reference(X, Xt, "ignore")
    want = reference_proba(codes, y, codes_t, n, n_values, N_CLASSES, "m_estimate", m)
    assert_allclose(model.predict_proba(Xt), want, rtol=1e-10, atol=0)


@pytest.mark.parametrize("min_count", [0, 1, 3])
def test_n_above_number_of_attributes_is_full_joint(min_count):
    """n > a behaves as n = a: the full combination's P(y, x), cascading if unusable."""
    X, y, Xt = DATA[0]
    codes, codes_t, n_values = encode_for_reference(X, Xt, "ignore")
    want = reference_proba(codes, y, codes_t, 5, n_values, N_CLASSES, min_count=min_count)
    for n in (5, 7):
        model = AnDE(n, min_count=min_count, categorical_features="all").fit(X, y)
        assert_allclose(model.predict_proba(Xt), want, rtol=1e-10, atol=0)


def categorical_frames(X, Xt, n_declared):
    """Categorical columns with declared categories 0 .. n_declared[i] - 1 (some unseen)."""
    def frame(A):
        return pd.DataFrame({f"a{i}": pd.Categorical(A[:, i], categories=list(range(v)))
                             for i, v in enumerate(n_declared)})
    return frame(X), frame(Xt)


@pytest.mark.parametrize("missing", ["ignore", "value"])
@pytest.mark.parametrize("smoothing", ["m_estimate", "laplace"])
@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_categorical_declared_values_count(n, smoothing, missing):
    """|X_i| is the number of declared categories, including never-seen ones."""
    X, y, Xt = DATA[0]
    Xt = np.where(Xt == 7.0, np.nan, Xt)
    declared = [v + 1 for v in N_VALUES]  # one category never seen in training
    frame, frame_t = categorical_frames(X, Xt, declared)
    model = AnDE(n, smoothing=smoothing, missing=missing).fit(frame, y)
    has_nan = np.isnan(X).any(axis=0)
    n_values = [v + int(missing == "value" and h) for v, h in zip(declared, has_nan,
                                                                   strict=True)]
    assert list(model.encoder_.n_values_) == n_values

    def codes(A):
        c = np.where(np.isnan(A), -1, np.nan_to_num(A)).astype(int)
        if missing == "value":
            for i in range(A.shape[1]):
                if has_nan[i]:
                    c[np.isnan(A[:, i]), i] = declared[i]
        return c

    want = reference_proba(codes(X), y, codes(Xt), n, n_values, N_CLASSES, smoothing)
    assert_allclose(model.predict_proba(frame_t), want, rtol=1e-10, atol=0)


# ------------------------------------------------------------------------------------------
# 3. Invariants
# ------------------------------------------------------------------------------------------


def _chunks(n_rows, rng, first_min=1):
    cuts = np.sort(rng.choice(np.arange(first_min + 1, n_rows), size=3, replace=False))
    return np.split(np.arange(n_rows), cuts)


@pytest.mark.parametrize("missing", ["ignore", "value"])
@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_partial_fit_equals_fit_categorical(seed, n, missing):
    X, y, Xt = make_data(10 + seed, n_rows=80)
    Xt = np.where(Xt == 7.0, np.nan, Xt)
    frame, frame_t = categorical_frames(X, Xt, N_VALUES)
    full = AnDE(n, missing=missing).fit(frame, y)
    inc = AnDE(n, missing=missing)
    rng = np.random.default_rng(seed)
    for part in _chunks(len(y), rng):
        inc.partial_fit(frame.iloc[part], y[part], classes=np.arange(N_CLASSES))
    assert_array_equal(inc.encoder_.n_values_, full.encoder_.n_values_)
    assert_allclose(inc.table_.counts, full.table_.counts, rtol=0, atol=0)
    assert_allclose(inc.predict_proba(frame_t), full.predict_proba(frame_t), rtol=1e-12)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_partial_fit_equals_fit_arrays(seed, n):
    """Integer arrays: the first chunk contains every value, so the codes agree."""
    X, y, Xt = make_data(20 + seed, n_rows=80)
    seen = [set() for _ in N_VALUES]
    first_min = None
    for r in range(len(y)):
        for i, v in enumerate(X[r]):
            if not np.isnan(v):
                seen[i].add(v)
        if all(len(s) == v for s, v in zip(seen, N_VALUES, strict=True)):
            first_min = r + 1
            break
    assert first_min is not None and first_min < 60
    full = AnDE(n, categorical_features="all").fit(X, y)
    inc = AnDE(n, categorical_features="all")
    for part in _chunks(len(y), np.random.default_rng(seed), first_min):
        inc.partial_fit(X[part], y[part], classes=np.arange(N_CLASSES))
    assert_allclose(inc.table_.counts, full.table_.counts, rtol=0, atol=0)
    assert_allclose(inc.predict_proba(Xt), full.predict_proba(Xt), rtol=1e-12)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_partial_fit_new_values_in_later_chunks(n):
    """Values first seen in a later chunk get other codes, but the model is the same."""
    X, y, Xt = make_data(30, n_rows=80)
    order = np.argsort(np.nan_to_num(X[:, 2], nan=-1), kind="stable")  # A2 values grow
    X, y = X[order], y[order]
    full = AnDE(n, categorical_features="all").fit(X, y)
    inc = AnDE(n, categorical_features="all")
    for part in np.array_split(np.arange(len(y)), 4):
        inc.partial_fit(X[part], y[part], classes=np.arange(N_CLASSES))
    assert_allclose(inc.predict_proba(Xt), full.predict_proba(Xt), rtol=1e-12)


@pytest.mark.parametrize("aggregate", ["joint", "posterior", "vote"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
def test_column_permutation(n, aggregate):
    X, y, Xt = DATA[1]
    perm = np.array([3, 0, 4, 2, 1])
    a = AnDE(n, aggregate=aggregate, categorical_features="all", min_count=2).fit(X, y)
    b = AnDE(n, aggregate=aggregate, categorical_features="all", min_count=2).fit(
        X[:, perm], y)
    assert_allclose(b.predict_proba(Xt[:, perm]), a.predict_proba(Xt), rtol=1e-12)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_sample_weight_two_equals_duplicated_rows(n):
    X, y, Xt = DATA[0]
    rng = np.random.default_rng(5)
    twice = rng.random(len(y)) < 0.4
    w = np.where(twice, 2.0, 1.0)
    weighted = AnDE(n, categorical_features="all").fit(X, y, sample_weight=w)
    dup = AnDE(n, categorical_features="all").fit(np.vstack([X, X[twice]]),
                                                  np.concatenate([y, y[twice]]))
    assert_allclose(weighted.table_.counts, dup.table_.counts, rtol=0, atol=0)
    assert weighted.table_.n_rows == dup.table_.n_rows
    assert_allclose(weighted.predict_proba(Xt), dup.predict_proba(Xt), rtol=1e-12)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_remove_rows(n):
    X, y, Xt = DATA[1]
    Xt = np.where(Xt == 7.0, np.nan, Xt)
    frame, frame_t = categorical_frames(X, Xt, N_VALUES)
    drop = np.random.default_rng(6).random(len(y)) < 0.3
    model = AnDE(n).fit(frame, y)
    model.predict_proba(frame_t)  # fill any cached log tables before removing
    codes = storage_codes(model.encoder_.transform(frame[drop]), model.table_.sizes)
    model.table_.remove(codes, np.searchsorted(model.classes_, y[drop]))
    kept = AnDE(n).fit(frame[~drop], y[~drop])
    assert_allclose(model.table_.counts, kept.table_.counts, rtol=0, atol=1e-12)
    assert model.table_.n_rows == pytest.approx(kept.table_.n_rows)
    assert_allclose(model.predict_proba(frame_t), kept.predict_proba(frame_t), rtol=1e-12)


@pytest.mark.parametrize("aggregate", ["joint", "posterior", "vote"])
@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_unseen_value_equals_missing(n, aggregate):
    X, y, Xt = DATA[0]
    Xt = np.where(Xt == 7.0, np.nan, Xt)
    mask = np.random.default_rng(7).random(Xt.shape) < 0.2
    unseen = np.where(mask, 9.0, Xt)
    nan = np.where(mask, np.nan, Xt)
    model = AnDE(n, aggregate=aggregate, categorical_features="all", min_count=2).fit(X, y)
    assert_array_equal(model.predict_proba(unseen), model.predict_proba(nan))


def _binary_data(seed, n_rows, n_attributes, n_test, flip=0.3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    X = (y[:, None] ^ (rng.random((n_rows, n_attributes)) < flip)).astype(np.int64)
    Xt = rng.integers(0, 2, (n_test, n_attributes))
    return X, y, Xt


# AODE on 2,000 binary attributes (2M pairs, ~0.9 GB of tables) takes ~7 s here, fine.
@pytest.mark.parametrize("cls", [NaiveBayes, AODE])
def test_many_attributes_finite(cls):
    X, y, Xt = _binary_data(0, 300, 2000, 20)
    model = cls(categorical_features="all").fit(X, y)
    proba = model.predict_proba(Xt)
    log_proba = model.predict_log_proba(Xt)
    assert np.all(np.isfinite(proba)) and np.all(np.isfinite(log_proba))
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    if cls is NaiveBayes:  # exact reference (2,000 Fraction factors per class)
        want = [[exact_log(p) for p in row]
                for row in reference_exact(X, y, Xt[:3], 0, [2] * 2000, 2)]
        assert_allclose(log_proba[:3], want, rtol=1e-9, atol=1e-9)


def _extreme_data(seed, n_attributes, n_rows=60, n_test=3):
    """Ten values per attribute; training rows copy their class (0 or 1) into half of the
    attributes, test rows only take values 2-9, rare in training: every factor is small."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    shape = (n_rows, n_attributes)
    X = np.where(rng.random(shape) < 0.5, rng.integers(0, 10, shape), y[:, None])
    Xt = rng.integers(2, 10, (n_test, n_attributes))
    return X.astype(float), y, Xt.astype(float)


@pytest.mark.parametrize("n", [0, 1])
def test_extreme_underflow(n):
    """Joint probabilities far below the float64 range (e^-6000 for NB on 2,000 attributes,
    e^-860 for AODE on 400): log scores stay finite and equal the exact (Fraction) reference
    taken to log space only at the end."""
    X, y, Xt = _extreme_data(3, 2000 if n == 0 else 400)
    codes, codes_t, n_values = encode_for_reference(X, Xt, "ignore")
    # the naive float product of a sub-model underflows to 0 for both classes
    parent = () if n == 0 else (int(np.flatnonzero(codes_t[0] >= 0)[0]),)
    joint = sub_model_joint(codes, y, codes_t[0], parent, n_values, 2)
    assert all(float(p) == 0.0 for p in joint)
    model = AnDE(n, categorical_features="all").fit(X, y)
    scores = model.joint_log_likelihood(Xt)
    log_proba = model.predict_log_proba(Xt)
    assert np.all(np.isfinite(scores)) and np.all(np.isfinite(log_proba))
    assert np.all(scores < -745)  # exp() of every joint is 0 in float64
    exact = reference_exact(codes, y, codes_t, n, n_values, 2)
    want = np.array([[exact_log(p) for p in row] for row in exact])
    assert_array_equal(np.argmax(log_proba, axis=1), [int(row[1] > row[0]) for row in exact])
    assert_allclose(log_proba, want, rtol=1e-9, atol=1e-9)


# ------------------------------------------------------------------------------------------
# Hierarchical estimates: the fixed-order classes take them as AnDE(n) does
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls, n", [(AODE, 1), (A2DE, 2), (A3DE, 3)])
@pytest.mark.parametrize("smoothing, extra", [
    ("hls", {}), ("hdp", {"n_iter": 20, "burn_in": 5, "tying": "parent"})])
def test_fixed_order_hierarchical_estimates_equal_ande(cls, n, smoothing, extra):
    rng = np.random.default_rng(n)
    X = pd.DataFrame(rng.integers(0, 3, size=(120, 5))).astype("category")
    y = (X[0].cat.codes + X[1].cat.codes + rng.integers(0, 2, 120)) % 3
    params = {"smoothing": smoothing, "random_state": 7, "categorical_features": "all",
              **extra}
    fixed = cls(**params).fit(X, y)
    ande = AnDE(n, **params).fit(X, y)
    assert_array_equal(fixed.table_.conditional, ande.table_.conditional)
    assert_array_equal(fixed.predict_proba(X), ande.predict_proba(X))
    # the hierarchical estimates differ from the m-estimates they replace
    plain = cls(categorical_features="all").fit(X, y).predict_proba(X)
    assert np.abs(fixed.predict_proba(X) - plain).max() > 1e-3


@pytest.mark.parametrize("cls", [AODE, A2DE, A3DE])
def test_fixed_order_hierarchical_estimates_refuse_gaussian_children(cls):
    with pytest.raises(ValueError, match="smoothing='hls' is not available for "
                                         "numeric='gaussian'"):
        cls(smoothing="hls", numeric="gaussian").check_params()
    with pytest.raises(ValueError, match="burn_in"):
        cls(smoothing="hdp", n_iter=10, burn_in=10).check_params()
