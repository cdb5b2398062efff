"""The codes a fit makes as it finds the values (:meth:`AttributeEncoder.fit_encode`): an
integer matrix coded in the pass that finds its values (any range of fewer than 64 values
per column), Arrow string columns in the hash pass that finds theirs; always the codes
:meth:`~AttributeEncoder.transform` gives, + 1."""

import pickle

import numpy as np
import pandas as pd
import pytest

from seminaive import AttributeEncoder, NaiveBayes


def _matrix(kind, n=3000, a=6, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "dense":  # every column's values are 0 .. k - 1: the codes are the values + 1
        return rng.integers(0, 5, size=(n, a))
    if kind == "gaps":  # values missing from the range: codes by position
        return rng.choice(np.array([1, 3, 7, 63]), size=(n, a))
    if kind == "large":  # spans more than 64 values: the presence pass
        return rng.choice(np.array([-4, 0, 70, 1000]), size=(n, a))
    if kind == "offset":  # years: a small range far from 0, around the first row's value
        return rng.integers(1990, 2030, size=(n, a))
    if kind == "negative":  # a small range below 0
        return rng.choice(np.array([-60, -31, -2]), size=(n, a))
    if kind == "beside":  # a small range the window around the first value misses: 2 passes
        X = rng.integers(100, 160, size=(n, a))
        X[0] = 100
        return X
    if kind == "extremes":  # the int64 limits: spans beyond any window, no wrap-around
        info = np.iinfo(np.int64)
        return rng.choice(np.array([info.min, info.min + 1, info.max]), size=(n, a))
    raise AssertionError(kind)


def _by_hand(X, categories):
    """Storage codes by brute force: a value's position in its column's values + 1."""
    out = np.zeros(X.shape, dtype=np.int64)
    for j in range(X.shape[1]):
        position = {v: i + 1 for i, v in enumerate(categories[j])}
        out[:, j] = [position[v] for v in X[:, j].tolist()]
    return out


KINDS = ["dense", "gaps", "large", "offset", "negative", "beside", "extremes"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_fit_codes_equal_transform(kind, dtype):
    X = _matrix(kind)
    if dtype == np.uint8:
        X = np.abs(X) % 200
    elif dtype == np.int32:
        X = np.clip(X, np.iinfo(np.int32).min, np.iinfo(np.int32).max)
    X = X.astype(dtype)
    frame = pd.DataFrame(X)
    enc = AttributeEncoder(categorical_features="all")
    codes = enc.fit_encode(frame, np.zeros(len(X)))
    for j in range(X.shape[1]):  # sorted distinct values, by brute force
        assert enc.categories_[j] == sorted(set(X[:, j].tolist()))
    assert codes.dtype == np.uint8 and codes.flags.f_contiguous
    np.testing.assert_array_equal(codes, _by_hand(X, enc.categories_))
    np.testing.assert_array_equal(codes, enc.transform(frame) + 1)


def test_nothing_kept_between_calls():
    X = _matrix("offset")
    frame = pd.DataFrame(X)
    enc = AttributeEncoder(categorical_features="all")
    enc.fit_encode(frame, np.zeros(len(X)))
    fitted = pickle.loads(pickle.dumps(enc))
    assert set(vars(fitted)) == set(vars(AttributeEncoder(categorical_features="all").fit(
        frame, np.zeros(len(X)))))
    assert not any(isinstance(v, np.ndarray) and v.shape == X.shape for v in vars(enc).values())


@pytest.mark.parametrize("dtype", ["string[pyarrow]", "object", "category"])
@pytest.mark.parametrize("missing", ["ignore", "value"])
def test_string_fit_codes_equal_transform(dtype, missing):
    rng = np.random.default_rng(5)
    values = np.array(["b", "a", "long value here", "é", ""], dtype=object)
    data = {f"c{j}": values[rng.integers(0, 5, 2000)] for j in range(4)}
    objects = pd.DataFrame(data)
    objects.iloc[rng.integers(0, 2000, 50), 1] = None
    frame = objects.astype(dtype)
    # the object route (pandas' hashing of Python strings) is the reference of the Arrow
    # hash pass; a Categorical's values are its declared categories
    if dtype == "category":
        objects = frame
    w = rng.integers(0, 3, 2000).astype(float)  # rows of weight 0 hold no values
    enc = AttributeEncoder(missing=missing)
    codes = enc.fit_encode(frame, None, sample_weight=w)
    reference = AttributeEncoder(missing=missing).fit(objects, None, sample_weight=w)
    assert enc.categories_ == reference.categories_
    np.testing.assert_array_equal(codes, reference.transform(objects) + 1)
    np.testing.assert_array_equal(codes, enc.transform(frame) + 1)


@pytest.mark.parametrize("kind", ["dense", "gaps", "large", "offset", "beside"])
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
