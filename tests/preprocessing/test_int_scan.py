"""The one-pass fit of an integer matrix: the values of every column and their storage codes
made in the pass that finds them, given to the fit's own coding of the same data only."""

import pickle

import numpy as np
import pandas as pd
import pytest

from seminaive import AttributeEncoder, NaiveBayes
from seminaive.tables._layout import storage_codes


def _matrix(kind, n=3000, a=6, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "dense":  # every column's values are 0 .. k - 1: the codes are the values + 1
        return rng.integers(0, 5, size=(n, a))
    if kind == "gaps":  # values missing from the range: codes by position
        return rng.choice(np.array([1, 3, 7, 63]), size=(n, a))
    if kind == "large":  # beyond the one-pass range: the presence pass
        return rng.choice(np.array([-4, 0, 70, 1000]), size=(n, a))
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["dense", "gaps", "large"])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_fit_codes_equal_transform(kind, dtype):
    X = _matrix(kind)
    if dtype == np.uint8:
        X = np.abs(X) % 200
    X = X.astype(dtype)
    frame = pd.DataFrame(X)
    enc = AttributeEncoder(categorical_features="all").fit(frame, np.zeros(len(X)))
    for j in range(X.shape[1]):  # sorted distinct values, by brute force
        assert enc.categories_[j] == sorted(set(X[:, j].tolist()))
    kept = enc.take_fit_codes(frame)
    expected = storage_codes(enc.transform(frame), enc.n_values_ + 1)
    if X.min() < 0 or X.max() >= 64:  # beyond the one-pass range
        assert kept is None
    else:
        assert kept is not None and kept.dtype == np.uint8 and kept.flags.f_contiguous
        np.testing.assert_array_equal(kept, expected)
    assert enc.take_fit_codes(frame) is None  # given once


def test_fit_codes_only_for_the_same_frame():
    X = _matrix("dense")
    frame = pd.DataFrame(X)
    enc = AttributeEncoder(categorical_features="all").fit(frame, np.zeros(len(X)))
    assert enc.take_fit_codes(pd.DataFrame(X)) is None  # another frame: dropped
    assert enc.take_fit_codes(frame) is None
    enc.fit(frame, np.zeros(len(X)))
    enc.transform(frame)  # any coding drops them
    assert enc.take_fit_codes(frame) is None
    enc.fit(frame, np.zeros(len(X)))
    assert "_fit_codes_" not in pickle.loads(pickle.dumps(enc)).__dict__


@pytest.mark.parametrize("kind", ["dense", "gaps", "large"])
def test_naive_bayes_int_matrix_counts_as_categorical(kind):
    X = _matrix(kind, n=2000, a=5, seed=3)
    y = np.random.default_rng(4).integers(0, 3, size=len(X))
    cats = pd.DataFrame({j: pd.Categorical(X[:, j]) for j in range(X.shape[1])})
    a = NaiveBayes(categorical_features="all").fit(X, y)
    b = NaiveBayes().fit(cats, y)
    np.testing.assert_array_equal(a.table_.sizes, b.table_.sizes)
    np.testing.assert_allclose(a.predict_log_proba(X), b.predict_log_proba(cats), atol=1e-12)
    for j in range(X.shape[1]):  # N(y, x_j), by brute force
        expected = np.zeros((len(a.encoder_.categories_[j]), 3))
        for i, v in enumerate(a.encoder_.categories_[j]):
            for c in range(3):
                expected[i, c] = np.sum((X[:, j] == v) & (y == c))
        np.testing.assert_array_equal(a.table_.marginal([j]), expected)
        np.testing.assert_array_equal(b.table_.marginal([j]), expected)
