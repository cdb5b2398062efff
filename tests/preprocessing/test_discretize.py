"""Tests of seminaive.preprocessing.discretize (MDL and equal-frequency discretisers)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from sklearn import datasets
from sklearn.utils.estimator_checks import parametrize_with_checks

from seminaive.exceptions import InputError
from seminaive.preprocessing.discretize import EqualFrequencyDiscretizer, MDLDiscretizer

WEKA_CUTS = Path(__file__).resolve().parents[1] / "data" / "weka_mdl_cuts.json"


# ---------------------------------------------------------------------------------------
# A plain (slow, loop-based) transcription of Fayyad & Irani (1993), used as a reference.
# ---------------------------------------------------------------------------------------
def _ent(counts):
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c > 0) if n else 0.0


def _reference_mdl(x, y):
    x = np.asarray(x, dtype=float)
    keep = ~np.isnan(x)
    x, y = x[keep], np.unique(np.asarray(y)[keep], return_inverse=True)[1]
    order = np.argsort(x, kind="stable")
    x, y = x[order].tolist(), y[order].tolist()
    k_all = max(y) + 1 if y else 0

    def counts(lo, hi):
        c = [0] * k_all
        for v in y[lo:hi]:
            c[v] += 1
        return c

    def split(lo, hi):
        n = hi - lo
        if n < 2:
            return []
        s = counts(lo, hi)
        best = None
        for i in range(lo + 1, hi):
            if x[i - 1] < x[i]:
                s1, s2 = counts(lo, i), counts(i, hi)
                e = ((i - lo) * _ent(s1) + (hi - i) * _ent(s2)) / n
                if best is None or e < best[0] - 1e-12:
                    best = (e, i, s1, s2)
        if best is None:
            return []
        e, i, s1, s2 = best
        gain = _ent(s) - e
        k, k1, k2 = (sum(1 for c in cc if c > 0) for cc in (s, s1, s2))
        delta = math.log2(3**k - 2) - (k * _ent(s) - k1 * _ent(s1) - k2 * _ent(s2))
        if gain <= 0 or not gain > (math.log2(n - 1) + delta) / n:
            return []
        return split(lo, i) + [(x[i - 1] + x[i]) / 2.0] + split(i, hi)

    return np.array(split(0, len(x)))


# ---------------------------------------------------------------------------------------
# MDL
# ---------------------------------------------------------------------------------------
def test_mdl_two_separated_classes_one_cut_at_midpoint():
    x = np.array([0.0, 1.0, 2.0, 3.0, 10.0, 11.0, 12.0, 13.0])
    y = np.array(["a"] * 4 + ["b"] * 4)
    d = MDLDiscretizer().fit(x[:, None], y)
    assert len(d.cut_points_) == 1
    np.testing.assert_array_equal(d.cut_points_[0], [6.5])
    assert d.n_bins_.tolist() == [2]
    assert d.n_features_in_ == 1
    np.testing.assert_array_equal(d.transform(x[:, None])[:, 0], [0, 0, 0, 0, 1, 1, 1, 1])


def test_mdl_three_classes_two_cuts():
    x = np.repeat([1.0, 2.0, 3.0], 10) + np.tile(np.linspace(0, 0.5, 10), 3)
    y = np.repeat([0, 1, 2], 10)
    d = MDLDiscretizer().fit(x[:, None], y)
    np.testing.assert_allclose(d.cut_points_[0], [1.75, 2.75])


def test_mdl_refuses_to_split_noise():
    x = np.arange(10.0)
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1, 0, 1])
    d = MDLDiscretizer().fit(x[:, None], y)
    assert d.cut_points_[0].size == 0
    assert d.n_bins_.tolist() == [1]
    assert (d.transform(x[:, None]) == 0).all()


@pytest.mark.parametrize("seed", range(8))
def test_mdl_matches_reference_implementation(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 400))
    k = int(rng.integers(2, 5))
    y = rng.integers(0, k, size=n)
    x = np.round(y * 0.8 + rng.normal(size=n), int(rng.integers(0, 3)))  # ties in x
    x[rng.random(n) < 0.05] = np.nan
    d = MDLDiscretizer().fit(x[:, None], y)
    ref = _reference_mdl(x, y)
    assert d.cut_points_[0].shape == ref.shape
    np.testing.assert_allclose(d.cut_points_[0], ref, rtol=1e-12)


def test_mdl_nan_ignored_and_mapped_to_minus_one():
    x = np.array([0.0, 1.0, np.nan, 2.0, 3.0, 10.0, np.nan, 11.0, 12.0, 13.0])
    y = np.array([0, 0, 1, 0, 0, 1, 0, 1, 1, 1])
    clean = ~np.isnan(x)
    d = MDLDiscretizer().fit(x[:, None], y)
    d_clean = MDLDiscretizer().fit(x[clean, None], y[clean])
    np.testing.assert_array_equal(d.cut_points_[0], d_clean.cut_points_[0])
    np.testing.assert_array_equal(d.cut_points_[0], [6.5])
    out = d.transform(x[:, None])[:, 0]
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [0, 0, -1, 0, 0, 1, -1, 1, 1, 1])


def test_degenerate_columns_get_one_bin():
    X = np.column_stack(
        [
            np.full(6, np.nan),
            np.full(6, 4.2),
            [1.0, np.nan, np.nan, np.nan, np.nan, np.nan],
            [0.0, 0.0, 0.0, 5.0, 5.0, 5.0],
        ]
    )
    y = [0, 0, 0, 1, 1, 1]
    for d in (MDLDiscretizer().fit(X, y), EqualFrequencyDiscretizer(n_bins=3).fit(X)):
        assert [c.size for c in d.cut_points_[:3]] == [0, 0, 0]
        assert d.n_bins_[:3].tolist() == [1, 1, 1]
        assert all(c.dtype == np.float64 for c in d.cut_points_)
        Xt = d.transform(X)
        np.testing.assert_array_equal(Xt[:, 0], -1)
        np.testing.assert_array_equal(Xt[:, 1], 0)
    assert MDLDiscretizer().fit(X, y).cut_points_[3].tolist() == [2.5]


def test_mdl_requires_y():
    with pytest.raises(InputError):
        MDLDiscretizer().fit(np.zeros((4, 1)), None)


def test_mdl_cut_points_sorted_and_multi_interval():
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, size=3000)
    y = (np.floor(x) % 3).astype(int)  # class changes at every integer
    d = MDLDiscretizer().fit(x[:, None], y)
    cuts = d.cut_points_[0]
    assert np.all(np.diff(cuts) > 0)
    np.testing.assert_allclose(cuts, np.arange(1, 10), atol=0.02)


# ---------------------------------------------------------------------------------------
# Bin convention (Weka's: value equal to a cut point goes to the lower bin)
# ---------------------------------------------------------------------------------------
def test_transform_bin_convention_matches_weka():
    d = MDLDiscretizer().fit(
        np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [11.0], [12.0], [13.0]]),
        [0, 0, 0, 0, 1, 1, 1, 1],
    )
    assert d.cut_points_[0].tolist() == [6.5]
    probe = np.array([[-1e300], [6.4], [6.5], [6.500001], [1e300], [np.nan]])
    np.testing.assert_array_equal(d.transform(probe)[:, 0], [0, 0, 0, 1, 1, -1])

    e = EqualFrequencyDiscretizer(n_bins=4).fit(np.arange(100.0)[:, None])
    probe = np.array([[24.5], [24.6], [49.5], [74.5], [74.6]])
    np.testing.assert_array_equal(e.transform(probe)[:, 0], [0, 1, 1, 2, 3])


def test_transform_checks_n_features():
    d = EqualFrequencyDiscretizer().fit(np.arange(20.0).reshape(10, 2))
    with pytest.raises(ValueError):
        d.transform(np.zeros((3, 3)))


def test_get_feature_names_out():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"u": np.arange(10.0), "v": np.arange(10.0)[::-1]})
    d = EqualFrequencyDiscretizer(n_bins=2).fit(df)
    assert d.get_feature_names_out().tolist() == ["u", "v"]
    d = EqualFrequencyDiscretizer(n_bins=2).fit(df.to_numpy())
    assert d.get_feature_names_out().tolist() == ["x0", "x1"]


# ---------------------------------------------------------------------------------------
# Sampling
# ---------------------------------------------------------------------------------------
def _sampling_data():
    rng = np.random.default_rng(7)
    n = 5000
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int) + (X[:, 1] > 1)
    return X, y


@pytest.mark.parametrize(
    "make",
    [
        lambda rs: MDLDiscretizer(max_sample_rows=500, random_state=rs),
        lambda rs: EqualFrequencyDiscretizer(n_bins=5, max_sample_rows=500, random_state=rs),
    ],
)
def test_sampling_is_deterministic_for_a_random_state(make):
    X, y = _sampling_data()
    a, b, c = make(3).fit(X, y), make(3).fit(X, y), make(4).fit(X, y)
    for ca, cb in zip(a.cut_points_, b.cut_points_, strict=True):
        np.testing.assert_array_equal(ca, cb)
    assert any(
        ca.shape != cc.shape or not np.array_equal(ca, cc)
        for ca, cc in zip(a.cut_points_, c.cut_points_, strict=True)
    )
    # sampling actually happened: cut points differ from those on all rows
    full = make(3).set_params(max_sample_rows=None).fit(X, y)
    assert any(
        ca.shape != cf.shape or not np.array_equal(ca, cf)
        for ca, cf in zip(a.cut_points_, full.cut_points_, strict=True)
    )


def test_sampling_uses_check_random_state_without_replacement():
    X, y = _sampling_data()
    rows = np.random.RandomState(11).choice(X.shape[0], size=700, replace=False)
    a = MDLDiscretizer(max_sample_rows=700, random_state=11).fit(X, y)
    b = MDLDiscretizer(max_sample_rows=None).fit(X[rows], y[rows])
    for ca, cb in zip(a.cut_points_, b.cut_points_, strict=True):
        np.testing.assert_array_equal(ca, cb)


def test_no_sampling_below_threshold():
    X, y = _sampling_data()
    a = MDLDiscretizer(max_sample_rows=X.shape[0], random_state=1).fit(X, y)
    b = MDLDiscretizer(max_sample_rows=X.shape[0], random_state=2).fit(X, y)
    for ca, cb in zip(a.cut_points_, b.cut_points_, strict=True):
        np.testing.assert_array_equal(ca, cb)


# ---------------------------------------------------------------------------------------
# Equal frequency
# ---------------------------------------------------------------------------------------
def test_equal_frequency_0_to_99_four_bins():
    X = np.arange(100.0)[:, None]
    d = EqualFrequencyDiscretizer(n_bins=4).fit(X)
    np.testing.assert_array_equal(d.cut_points_[0], [24.5, 49.5, 74.5])
    assert d.n_bins_.tolist() == [4]
    np.testing.assert_array_equal(np.bincount(d.transform(X)[:, 0]), [25, 25, 25, 25])


def test_equal_frequency_uneven_and_nan():
    x = np.r_[np.arange(10.0), [np.nan] * 5]
    d = EqualFrequencyDiscretizer(n_bins=3).fit(x[:, None])
    # targets 10/3 and 20/3 values below -> closest gaps after 3 and 7 values
    np.testing.assert_array_equal(d.cut_points_[0], [2.5, 6.5])
    out = d.transform(x[:, None])[:, 0]
    np.testing.assert_array_equal(np.bincount(out[out >= 0]), [3, 4, 3])
    assert (out[10:] == -1).all()


def test_equal_frequency_ties_give_fewer_bins():
    x = np.r_[np.zeros(90), np.arange(1.0, 11.0)]
    d = EqualFrequencyDiscretizer(n_bins=3).fit(x[:, None])
    np.testing.assert_array_equal(d.cut_points_[0], [0.5])
    assert d.n_bins_.tolist() == [2]
    # ties resolved to the closest gap between distinct values
    x = np.array([1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 3.0, 4.0])
    d = EqualFrequencyDiscretizer(n_bins=2).fit(x[:, None])
    np.testing.assert_array_equal(d.cut_points_[0], [2.5])


def test_equal_frequency_one_bin_and_bad_n_bins():
    X = np.arange(10.0)[:, None]
    assert EqualFrequencyDiscretizer(n_bins=1).fit(X).cut_points_[0].size == 0
    for bad in (0, -2, 2.5, True):
        with pytest.raises(InputError):
            EqualFrequencyDiscretizer(n_bins=bad).fit(X)


# ---------------------------------------------------------------------------------------
# scikit-learn API conformance
# ---------------------------------------------------------------------------------------
@parametrize_with_checks([MDLDiscretizer(), EqualFrequencyDiscretizer()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------------------
# Oracle: Weka 3.6 weka.filters.supervised.attribute.Discretize (default options)
# ---------------------------------------------------------------------------------------
def _weka_cases():
    if not WEKA_CUTS.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{WEKA_CUTS} missing"))]
    data = json.loads(WEKA_CUTS.read_text())
    return list(data["datasets"])


@pytest.mark.reference
@pytest.mark.parametrize("name", _weka_cases())
def test_mdl_matches_weka(name):
    info = json.loads(WEKA_CUTS.read_text())["datasets"][name]
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    assert X.shape == (info["n_samples"], len(info["attributes"]))
    d = MDLDiscretizer().fit(X, y)
    weka = info["fayyad_irani"]["cuts"]
    assert len(weka) == len(d.cut_points_)
    for attr, ours, theirs in zip(info["attributes"], d.cut_points_, weka, strict=True):
        assert ours.shape == (len(theirs),), attr
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, err_msg=attr)
