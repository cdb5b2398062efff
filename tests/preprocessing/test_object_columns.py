"""Object columns coded in one pass (rows grouped by the object they hold, the distinct
objects hashed once): the same values, codes, errors and models as the route that
factorises every value (``pd.factorize`` in fit, then again in the first coding), which the
tests get back by making :func:`seminaive.preprocessing._strings.factorize_objects` give
every column up."""

import numpy as np
import pandas as pd
import pytest

from seminaive import AODE, AttributeEncoder, NaiveBayes
from seminaive.exceptions import InputTypeError
from seminaive.kernels.objects import hash_pointers
from seminaive.preprocessing import _strings


@pytest.fixture
def old_route(monkeypatch):
    """A context in which every object column takes the factorising route."""
    def give_up(arrays, outs, max_values=0):
        return [None] * len(arrays)

    class Route:
        def __enter__(self):
            monkeypatch.setattr(_strings, "factorize_objects", give_up)

        def __exit__(self, *exc):
            monkeypatch.undo()
    return Route()


def _fresh(values):
    """The same values, a new object for every string (as a parser that interns nothing)."""
    return np.array([("" + v + "!")[:-1] if isinstance(v, str) else v for v in values],
                    dtype=object)


def _mixed(n, seed=0):
    """Object columns with None, NaN, empty strings, numbers mixed with their strings, many
    distinct values, shared and fresh objects."""
    rng = np.random.default_rng(seed)
    labels = np.array(["a", "b", "", "ccc" * 5, 1, "1", 2.5, True, None, np.nan, pd.NA,
                       "é"], dtype=object)
    many = np.array([f"v{i}" for i in range(1500)], dtype=object)
    text = np.array(["x", "y", None, "zz", ""], dtype=object)
    columns = {
        "mixed": labels[rng.integers(0, labels.size, n)],
        "text": text[rng.integers(0, text.size, n)],
        "fresh": _fresh(text[rng.integers(0, text.size, n)]),
        "many": many[rng.integers(0, many.size, n)],
        "many_fresh": _fresh(many[rng.integers(0, many.size, n)]),
    }
    # dtype=object: pandas would hold a column of strings as its str dtype
    frame = pd.DataFrame({c: pd.Series(v, dtype=object) for c, v in columns.items()})
    frame["num"] = rng.normal(size=n)
    assert all(dtype == np.dtype(object) for dtype in frame.dtypes.iloc[:-1])
    return frame


def _both(old_route, fn):
    new = fn()
    with old_route:
        old = fn()
    return new, old


def test_hash_pointers_groups_rows_by_object():
    pointers = np.array([7, 3, 7, 7, 9, 3, 11], dtype=np.intp)
    codes = np.empty(pointers.size, dtype=np.int32)
    first = np.empty(4, dtype=np.int64)
    count = np.zeros(1, dtype=np.int64)
    hash_pointers(pointers, 4, codes, first, count)
    assert codes.tolist() == [0, 1, 0, 0, 2, 1, 3]
    assert count[0] == 4 and first.tolist() == [0, 1, 4, 6]
    hash_pointers(pointers, 3, codes, first, count)  # a fourth distinct pointer: given up
    assert count[0] == -1


@pytest.mark.parametrize("max_values", [2, 5, 4096])
def test_factorize_objects_is_pd_factorize(max_values):
    frame = _mixed(3000)
    arrays = [frame[c].to_numpy() for c in ("mixed", "text", "fresh", "many")]
    outs = [np.empty(a.size, dtype=np.int32) for a in arrays]
    items = _strings.factorize_objects(arrays, outs, max_values)
    for values, out, (objects, uniques) in zip(arrays, outs, items, strict=True):
        codes, expected = pd.factorize(values)
        assert np.array_equal(objects[out], codes)
        assert uniques.tolist() == expected.tolist()


@pytest.mark.parametrize("missing", ["ignore", "value"])
def test_encoder_same_values_and_codes(old_route, missing):
    frame = _mixed(5000)
    later = _mixed(2000, seed=1)

    def run():
        enc = AttributeEncoder(missing=missing, discretizer="equal_frequency")
        stored = enc.fit_encode(frame)
        return enc.categories_, stored, enc.transform(later), enc.transform(frame)

    new, old = _both(old_route, run)
    for a, b in zip(new[0], old[0], strict=True):
        assert list(a) == list(b) and [type(v) for v in a] == [type(v) for v in b]
    for a, b in zip(new[1:], old[1:], strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    # the codes are those of the values (hand check on one column)
    cats = new[0][1]
    text = frame["text"].to_numpy()
    expected = [cats.index(v) if v is not None else -1 for v in text]
    if missing == "value":
        expected = [c if c >= 0 else len(cats) - 1 for c in expected]
    assert new[3][:, 1].tolist() == expected


def test_weighted_rows_and_unsortable_values(old_route):
    """Rows of weight 0 leave their values out; values that do not sort keep the order in
    which they first occur on the rows of positive weight."""
    frame = _mixed(4000)
    frame["unsortable"] = pd.Series(np.array(["b", 3, "a", 1.5, None], dtype=object)[
        np.random.default_rng(2).integers(0, 5, 4000)], dtype=object)
    w = np.random.default_rng(3).integers(0, 3, 4000).astype(float)
    w[:50] = 0

    def run():
        enc = AttributeEncoder(discretizer="equal_frequency")
        return enc.categories_ if enc.fit(frame, sample_weight=w) else None, \
            enc.fit_encode(frame, sample_weight=w)

    new, old = _both(old_route, run)
    for a, b in zip(new[0], old[0], strict=True):
        assert list(a) == list(b)
    assert np.array_equal(new[1], old[1])


def test_non_contiguous_object_columns(old_route):
    """A frame made from a 2-D object array (its columns are strided views)."""
    rng = np.random.default_rng(4)
    labels = np.array(["x", "y", None, 3], dtype=object)
    arr = labels[rng.integers(0, 4, (500, 3))]

    def run():
        enc = AttributeEncoder()
        return enc.fit_encode(arr), enc.transform(arr[::-1])

    new, old = _both(old_route, run)
    assert all(np.array_equal(a, b) for a, b in zip(new, old, strict=True))


def test_unhashable_values_raise_as_before(old_route):
    frame = pd.DataFrame({"a": pd.Series(["x", ["y"], "x"], dtype=object)})
    with pytest.raises(InputTypeError, match="type list"):
        AttributeEncoder().fit(frame)
    good = pd.DataFrame({"a": pd.Series(["x", "y", "x"], dtype=object)})
    enc = AttributeEncoder().fit(good)

    def run():
        with pytest.raises(Exception) as new:
            enc.transform(frame)
        return type(new.value), str(new.value)

    new, old = _both(old_route, run)
    assert new == old


@pytest.mark.parametrize("model", [NaiveBayes, AODE])
def test_models_identical(old_route, model):
    frame = _mixed(3000).drop(columns="num")
    y = np.random.default_rng(5).integers(0, 3, 3000)
    test = _mixed(1000, seed=6).drop(columns="num")

    def run():
        fitted = model().fit(frame, y)
        return fitted.predict_proba(test), fitted.predict_proba(frame)

    new, old = _both(old_route, run)
    assert all(np.array_equal(a, b) for a, b in zip(new, old, strict=True))
