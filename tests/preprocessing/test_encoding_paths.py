"""The encoder's fast paths (numba kernels over integer, float and UTF-8 data, Categorical
codes, factorized objects, pyarrow Tables) against a brute-force encoding written here:
categories are the sorted distinct non-missing values (declared order for Categoricals and
dictionaries), a value's code is its position, -1 for missing or unseen; numeric values go
to ``searchsorted(cut_points, x, side="left")``."""

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from seminaive import AttributeEncoder, NaiveBayes
from seminaive.exceptions import InputError
from seminaive.preprocessing import EqualFrequencyDiscretizer


def _missing(v):
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def brute_categories(column):
    return sorted({v for v in column if not _missing(v)})


def brute_codes(columns, categories):
    """Codes of columns (lists of Python values) against category lists, one value at a
    time."""
    out = np.empty((len(columns[0]) if columns else 0, len(columns)), dtype=np.int64)
    for j, (col, cats) in enumerate(zip(columns, categories, strict=True)):
        index = {c: i for i, c in enumerate(cats)}
        for r, v in enumerate(col):
            out[r, j] = -1 if _missing(v) else index.get(v, -1)
    return out


def columns_of(X):
    if isinstance(X, np.ndarray):
        return [X[:, j].tolist() for j in range(X.shape[1])]
    if isinstance(X, pa.Table):
        return [c.to_pylist() for c in X.columns]
    return [X.iloc[:, j].tolist() for j in range(X.shape[1])]


def check_nominal(train, test, categories=None, **params):
    """Fit on ``train``, code ``train`` and ``test``: the categories and codes of the
    brute-force encoding."""
    enc = AttributeEncoder(**params).fit(train)
    assert enc.nominal_.all()
    cols = columns_of(train)
    expected = categories if categories is not None else [brute_categories(c) for c in cols]
    assert enc.categories_ == expected
    for X in (train, test):
        codes = enc.transform(X)
        assert codes.dtype == np.int32
        np.testing.assert_array_equal(codes, brute_codes(columns_of(X), expected))
    return enc


INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint64]


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_integer_matrix_codes(dtype, order):
    rng = np.random.default_rng(int(np.dtype(dtype).itemsize) + (order == "F"))
    train = np.asarray(rng.choice([0, 2, 3, 7, 9], size=(5000, 6)), dtype=dtype, order=order)
    # unseen at transform: inside a column's range (1, 5) and outside it (11, 0 where absent)
    test = np.asarray(rng.choice([0, 1, 2, 5, 9, 11], size=(300, 6)), dtype=dtype,
                      order=order)
    train[:, 5] = 3  # a column of one value
    check_nominal(train, test, categorical_features="all")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["C", "F"])
def test_float_code_matrix(dtype, order):
    rng = np.random.default_rng(3)
    train = rng.choice([-2.0, 0.0, 1.0, 4.0, np.nan], size=(4000, 5)).astype(dtype)
    train = np.asarray(train, order=order)
    train[:, 4] = np.nan  # a column with no value at all
    test = rng.choice([-2.0, 0.5, 1.0, 3.0, 4.0, 9.0, np.nan, -7.0], size=(500, 5))
    test = np.asarray(test.astype(dtype), order=order)
    enc = check_nominal(train, test, categorical_features="all")
    assert enc.categories_[4] == []
    assert all(isinstance(v, float) for v in enc.categories_[0])


def test_float_codes_that_are_not_integers():
    rng = np.random.default_rng(4)
    train = rng.choice([0.25, 1.0, 2.5, np.nan], size=(1000, 3))
    test = rng.choice([0.25, 1.0, 2.5, 3.0, np.nan], size=(100, 3))
    check_nominal(train, test, categorical_features="all")


def test_integer_categories_code_a_float_matrix_and_back():
    rng = np.random.default_rng(5)
    ints = rng.integers(0, 4, size=(800, 3))
    floats = np.where(rng.random((800, 3)) < 0.1, np.nan, ints.astype(np.float64))
    floats[0, 0] = 1.5
    enc = AttributeEncoder(categorical_features="all").fit(ints)
    np.testing.assert_array_equal(enc.transform(floats),
                                  brute_codes(columns_of(floats), enc.categories_))
    enc = AttributeEncoder(categorical_features="all").fit(floats)
    np.testing.assert_array_equal(enc.transform(ints),
                                  brute_codes(columns_of(ints), enc.categories_))


def brute_bins(X, cuts):
    out = np.empty(X.shape, dtype=np.int64)
    for j in range(X.shape[1]):
        x = np.asarray(X[:, j], dtype=np.float64)
        out[:, j] = np.where(np.isnan(x), -1, np.searchsorted(cuts[j], x, side="left"))
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int16])
@pytest.mark.parametrize("order", ["C", "F"])
def test_numeric_matrix_bins(dtype, order):
    rng = np.random.default_rng(6)
    X = rng.normal(scale=10, size=(3000, 4))
    if np.dtype(dtype).kind == "f":
        X[rng.random(X.shape) < 0.05] = np.nan
    X = np.asarray(X.astype(dtype), order=order)
    y = rng.integers(0, 2, size=3000)
    enc = AttributeEncoder(discretizer="equal_frequency", n_bins=4).fit(X, y)
    assert not enc.nominal_.any()
    cuts = enc.cut_points()
    test = X[:200].copy()
    for j in range(4):  # values on the cut points fall in the lower bin
        test[j, j] = cuts[j][1]
    np.testing.assert_array_equal(enc.transform(test), brute_bins(test, cuts))
    np.testing.assert_array_equal(enc.transform(X), brute_bins(X, cuts))


def test_supplied_cut_points_bin_every_column_at_once():
    disc = EqualFrequencyDiscretizer(n_bins=3).fit(np.array([[0.0, 10.0], [1.0, 20.0],
                                                              [2.0, 30.0], [3.0, 40.0]]))
    disc.cut_points_ = [np.array([0.5, 1.5]), np.array([], dtype=np.float64)]
    X = np.array([[0.5, 1.0], [0.6, np.nan], [np.nan, 5.0], [-1e300, 1e300], [1.5, 0.0]])
    enc = AttributeEncoder(discretizer=disc).fit(X)
    np.testing.assert_array_equal(enc.transform(X), [[0, 0], [1, -1], [-1, 0], [0, 0],
                                                     [1, 0]])


def test_infinite_numeric_values_are_refused():
    X = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]], dtype=np.float32)
    enc = AttributeEncoder(discretizer="equal_frequency").fit(X)
    X[1, 1] = np.inf
    with pytest.raises(InputError, match="infinity"):
        enc.transform(X)


def test_mixed_frame():
    rng = np.random.default_rng(7)
    n = 2000
    frame = pd.DataFrame({
        "i32": rng.normal(size=n).astype(np.float32),
        "f64": rng.normal(size=n),
        "code": rng.integers(0, 3, size=n).astype(np.int16),
        "s": pd.array(rng.choice(["a", "bb", None], size=n), dtype="string[pyarrow]"),
        "o": pd.Series(rng.choice(["x", "y", None], size=n), dtype=object),
        "b": rng.random(n) < 0.5,
        "c": pd.Categorical(rng.choice(["q", "p"], size=n), categories=["q", "p"]),
    })
    y = rng.integers(0, 2, size=n)
    enc = AttributeEncoder(discretizer="equal_frequency", n_bins=3,
                           categorical_features=["code", "s", "o", "b", "c"]).fit(frame, y)
    codes = enc.transform(frame)
    cuts = enc.cut_points()
    np.testing.assert_array_equal(codes[:, :2], brute_bins(frame.iloc[:, :2].to_numpy(), cuts))
    cats = [brute_categories(frame[c].tolist()) for c in ["code", "s", "o", "b"]]
    cats.append(["q", "p"])
    assert enc.categories_[2:] == cats
    np.testing.assert_array_equal(codes[:, 2:], brute_codes(columns_of(frame.iloc[:, 2:]),
                                                            cats))


STRING_KINDS = ["object", "str", "string[pyarrow]", "arrow string", "arrow large_string"]


def string_series(values, kind):
    if kind == "object":
        return pd.Series(values, dtype=object)
    if kind == "str":
        return pd.Series(values, dtype="str")
    if kind == "string[pyarrow]":
        return pd.Series(pd.array(values, dtype="string[pyarrow]"))
    t = pa.string() if kind == "arrow string" else pa.large_string()
    return pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array([pa.array(values, t)])))


VALUES = ["red", "green", "a much longer value than eight bytes", "", "é", "日本語",
          "eight888", "nine99999", "red "]


@pytest.mark.parametrize("kind", STRING_KINDS)
def test_string_columns(kind):
    rng = np.random.default_rng(8)
    train = pd.DataFrame({c: string_series(rng.choice(VALUES + [None], size=3000).tolist(),
                                           kind) for c in "ab"})
    unseen = ["blue", "re", "redd", "a much longer value than eight bytez", "eight88"]
    test = pd.DataFrame({c: string_series(rng.choice(VALUES + unseen + [None],
                                                     size=500).tolist(), kind)
                         for c in "ab"})
    check_nominal(train, test)


@pytest.mark.parametrize("kind", STRING_KINDS)
def test_single_row_and_missing_value(kind):
    train = pd.DataFrame({"a": string_series(["x", None, "y"], kind)})
    enc = AttributeEncoder(missing="value").fit(train)
    assert enc.categories_ == [["x", "y", "<missing>"]]
    one = pd.DataFrame({"a": string_series([None], kind)})
    assert enc.transform(one).tolist() == [[2]]
    one = pd.DataFrame({"a": string_series(["y"], kind)})
    assert enc.transform(one).tolist() == [[1]]


def test_empty_frames_are_refused():
    for X in (pd.DataFrame({"a": pd.Series([], dtype="string[pyarrow]")}),
              pa.table({"a": pa.array([], pa.string())}), np.empty((0, 3), dtype=np.int8)):
        with pytest.raises(InputError, match="0 sample"):
            AttributeEncoder(categorical_features="all").fit(X)
    enc = AttributeEncoder().fit(pd.DataFrame({"a": ["x"]}))
    with pytest.raises(InputError, match="0 sample"):
        enc.transform(pa.table({"a": pa.array([], pa.string())}))


def test_arrow_string_array_with_offset():
    values = pa.array(["a", None, "bb", "ccc", "a", None, "zz"]).slice(2)  # offset 2
    table = pa.table({"s": values})
    enc = AttributeEncoder().fit(pa.table({"s": pa.array(["a", "bb", "ccc"])}))
    assert enc.transform(table).ravel().tolist() == [1, 2, 0, -1, -1]


def arrow_tables(rng, n):
    names = VALUES + [None]
    cols = {f"s{j}": rng.choice(names, size=n).tolist() for j in range(3)}
    strings = pa.table({k: pa.array(v, pa.string()) for k, v in cols.items()})
    chunked = pa.concat_tables([strings.slice(0, n // 3), strings.slice(n // 3)])
    dictionary = pa.table({k: pc.dictionary_encode(chunked[k]) for k in cols})
    mixed = pa.table({"s": strings["s0"], "d": dictionary["s1"],
                      "i": pa.array(rng.integers(0, 5, size=n)),
                      "f": pa.array(np.where(rng.random(n) < 0.1, None,
                                             rng.normal(size=n)).tolist(), pa.float64()),
                      "ni": pa.array(np.where(rng.random(n) < 0.1, None,
                                              rng.integers(0, 3, size=n)).tolist(),
                                     pa.int64())})
    return {"strings": strings, "chunked": chunked, "dictionary": dictionary, "mixed": mixed}


@pytest.mark.parametrize("name", ["strings", "chunked", "dictionary", "mixed"])
def test_arrow_table_as_its_pandas_frame(name):
    rng = np.random.default_rng(9)
    table = arrow_tables(rng, 3000)[name]
    y = rng.integers(0, 3, size=3000)
    params = {"discretizer": "equal_frequency", "n_bins": 3}
    enc = AttributeEncoder(**params).fit(table, y)
    ref = AttributeEncoder(**params).fit(table.to_pandas(), y)
    assert enc.categories_ == ref.categories_
    assert list(enc.feature_names_in_) == table.column_names
    np.testing.assert_array_equal(enc.nominal_, ref.nominal_)
    test = table.slice(100, 700)
    np.testing.assert_array_equal(enc.transform(test), ref.transform(test.to_pandas()))
    np.testing.assert_array_equal(enc.transform(test.to_pandas()), ref.transform(test.to_pandas()))


def test_dictionary_chunks_with_different_dictionaries():
    chunks = [pa.array(["b", "a", None]).dictionary_encode(),
              pa.array(["c", "b", "c"]).dictionary_encode()]
    table = pa.table({"d": pa.chunked_array(chunks)})
    enc = AttributeEncoder().fit(table)
    assert enc.categories_ == [["b", "a", "c"]]
    assert enc.transform(table).ravel().tolist() == [0, 1, -1, 2, 0, 2]
    assert enc.transform(pa.table({"d": pa.array(["c", "z"])})).ravel().tolist() == [2, -1]


def test_categorical_with_other_categories_at_transform():
    train = pd.DataFrame({"c": pd.Categorical(["x", "y", "z", None],
                                              categories=["z", "y", "x"])})
    enc = AttributeEncoder().fit(train)
    assert enc.categories_ == [["z", "y", "x"]]
    test = pd.DataFrame({"c": pd.Categorical(["x", "w", None, "z"],
                                             categories=["w", "x", "z"])})
    assert enc.transform(test).ravel().tolist() == [2, -1, -1, 0]


def test_naive_bayes_on_arrow_table_and_pandas_frame():
    rng = np.random.default_rng(10)
    table = arrow_tables(rng, 2000)["mixed"]
    y = rng.integers(0, 2, size=2000)
    a = NaiveBayes(discretizer="equal_frequency").fit(table, y)
    b = NaiveBayes(discretizer="equal_frequency").fit(table.to_pandas(), y)
    np.testing.assert_array_equal(a.predict_proba(table), b.predict_proba(table.to_pandas()))


def test_partial_fit_arrow_strings_append_new_values():
    enc = AttributeEncoder().partial_fit(pd.DataFrame({"a": string_series(["b", "a"],
                                                                          "arrow string")}))
    enc.partial_fit(pd.DataFrame({"a": string_series(["c", None, "a", "0"], "arrow string")}))
    assert enc.categories_ == [["a", "b", "0", "c"]]
    X = pd.DataFrame({"a": string_series(["0", "c", "b", "q"], "arrow string")})
    assert enc.transform(X).ravel().tolist() == [2, 3, 1, -1]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_numeric_center_is_the_median_of_observed_values(dtype):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(1001, 4)).astype(dtype)
    X[rng.random(X.shape) < 0.2] = np.nan
    X[:, 3] = np.nan
    X = np.asfortranarray(X)
    enc = AttributeEncoder(discretizer="equal_frequency").fit(X)
    expected = [np.median(X[~np.isnan(X[:, j]), j].astype(np.float64)) for j in range(3)]
    np.testing.assert_array_equal(enc.numeric_center_, [*expected, 0.0])


def test_float_codes_with_missing_as_a_value():
    X = np.array([[1.0, np.nan], [2.0, 0.0], [np.nan, 0.0]])
    enc = AttributeEncoder(categorical_features="all", missing="value").fit(X)
    assert enc.categories_ == [[1.0, 2.0, "<missing>"], [0.0, "<missing>"]]
    assert enc.transform(X).tolist() == [[0, 1], [1, 0], [2, 0]]
    assert enc.transform(np.array([[3.0, np.nan]])).tolist() == [[-1, 1]]


def test_record_batch():
    batch = pa.RecordBatch.from_pydict({"s": ["b", None, "a"], "n": [1.0, 2.0, None]})
    enc = AttributeEncoder(discretizer="equal_frequency", n_bins=2).fit(batch)
    ref = AttributeEncoder(discretizer="equal_frequency", n_bins=2).fit(batch.to_pandas())
    assert enc.categories_ == ref.categories_
    np.testing.assert_array_equal(enc.transform(batch), ref.transform(batch.to_pandas()))
