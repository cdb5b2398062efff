"""Input handling: bad input gets a clear InputError; nominal values, categories, missing
values, table budgets and partial_fit behave as documented."""

import re
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from seminaive import (
    A2DE,
    AODE,
    AnDE,
    AttributeEncoder,
    InputError,
    NaiveBayes,
    TableTooLargeError,
    estimate_table_bytes,
)


def _nominal_data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "colour": rng.choice(["red", "green", "blue"], n),
        "size": rng.choice(["S", "M", "L", "XL"], n),
        "shape": rng.choice(["round", "square"], n),
    })
    score = (X["colour"] == "red").astype(int) + (X["size"] == "L") + rng.random(n)
    y = np.where(score > 1.0, "yes", "no")
    return X, y


def _mixed_data(n=200, seed=1):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "obj": rng.choice(["a", "b", "c"], n).astype(object),
        "cat": pd.Categorical(rng.choice(["lo", "hi"], n), categories=["lo", "hi"]),
        "flag": rng.random(n) > 0.5,
        "count": rng.integers(0, 20, n),
        "value": rng.normal(size=n),
    })
    X.loc[::9, "obj"] = None
    X.loc[::13, "value"] = np.nan
    y = np.where((X["value"].fillna(0) > 0.5) | (X["obj"] == "a"), 1, 0)
    return X, y


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("X, pattern", [
    (np.empty((0, 3)), "0 sample"),
    (np.empty((5, 0)), "0 feature"),
    (pd.DataFrame({"a": []}, dtype=float), "0 sample"),
    (pd.DataFrame(index=range(4)), "0 feature"),
    (np.arange(6.0), "Expected 2D array, got 1D array"),
], ids=["empty-array", "no-columns", "empty-frame", "frame-no-columns", "1d"])
def test_bad_shapes_are_refused(X, pattern):
    y = np.zeros(len(X), dtype=int)
    with pytest.raises(InputError, match=pattern):
        AODE().fit(X, y)


def test_1d_X_at_predict():
    X, y = _nominal_data()
    model = AODE().fit(X, y)
    with pytest.raises(InputError, match="reshape"):
        model.predict(X["colour"].to_numpy())


def test_nan_in_y_names_the_rows():
    X, y = _nominal_data()
    y = y.astype(object)
    y[[3, 17]] = np.nan
    with pytest.raises(InputError, match=r"rows \[3, 17\]"):
        AODE().fit(X, y)
    y_float = np.ones(len(X))
    y_float[5] = np.nan
    with pytest.raises(InputError, match=r"missing value.*rows \[5\]"):
        NaiveBayes().fit(X, y_float)


def test_y_of_wrong_length():
    X, y = _nominal_data()
    with pytest.raises(InputError, match=r"X has 120 rows but y has 119"):
        AODE().fit(X, y[:-1])


def test_y_none_continuous_and_2d():
    X, y = _nominal_data()
    with pytest.raises(InputError, match="requires y to be passed"):
        AODE().fit(X, None)
    with pytest.raises(InputError, match="Unknown label type: continuous"):
        AODE().fit(X, np.linspace(0, 1, len(X)))
    with pytest.raises(InputError, match="1d array"):
        AODE().fit(X, np.zeros((len(X), 2)))


def test_bad_sample_weights():
    X, y = _nominal_data()
    with pytest.raises(InputError, match="at least one non-zero"):
        AODE().fit(X, y, sample_weight=np.zeros(len(X)))
    with pytest.raises(InputError, match="negative"):
        AODE().fit(X, y, sample_weight=-np.ones(len(X)))
    with pytest.raises(InputError, match="shape"):
        AODE().fit(X, y, sample_weight=np.ones(3))


@pytest.mark.parametrize("columns, pattern", [
    (["size", "colour", "shape"], "Feature names must be in the same order as they were in fit"),
    (["colour", "size", "form"], "Feature names unseen at fit time:\n- form\n"),
    (["colour", "size"], "Feature names seen at fit time, yet now missing:\n- shape\n"),
], ids=["order", "unseen", "missing"])
def test_wrong_columns_at_predict(columns, pattern):
    X, y = _nominal_data()
    model = AODE().fit(X, y)
    X_bad = X.set_axis(["colour", "size", "form"], axis=1) if "form" in columns else X[columns]
    for method in (model.predict, model.predict_proba):
        with pytest.raises(InputError, match="The feature names should match those that "
                           "were passed during fit.\n" + re.escape(pattern)):
            method(X_bad)


def test_wrong_number_of_columns_array():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (50, 4))
    y = X[:, 0] % 2
    model = NaiveBayes(categorical_features="all").fit(X, y)
    with pytest.raises(InputError, match="X has 3 features, but NaiveBayes is expecting 4"):
        model.predict(X[:, :3])


def test_array_after_dataframe_is_positional_with_warning():
    X, y = _nominal_data()
    model = AODE().fit(X, y)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        proba = model.predict_proba(X.to_numpy())
    np.testing.assert_array_equal(proba, model.predict_proba(X))


def test_string_column_not_declared_categorical():
    X, y = _mixed_data()
    with pytest.raises(InputError, match=r"column 'obj' is non-numeric .* not listed as "
                       "categorical"):
        AODE(categorical_features=["cat"]).fit(X, y)
    # declaring it works
    AODE(categorical_features=["obj", "cat", "flag"]).fit(X, y)


def test_unknown_column_in_categorical_features():
    X, y = _mixed_data()
    with pytest.raises(InputError, match="'nope'"):
        AODE(categorical_features=["obj", "nope"]).fit(X, y)


@pytest.mark.parametrize("make", [sp.csr_matrix, sp.csc_array], ids=["csr", "csc_array"])
def test_sparse_input_is_refused(make):
    X = make(np.eye(5))
    y = np.array([0, 1, 0, 1, 0])
    with pytest.raises(InputError, match="Sparse input is not supported") as info:
        AODE().fit(X, y)
    assert isinstance(info.value, TypeError)  # as scikit-learn expects for sparse input
    model = AODE(categorical_features="all").fit(np.eye(5), y)
    with pytest.raises(InputError, match="toarray"):
        model.predict(X)


def test_infinity_in_numeric_column():
    X, y = _mixed_data()
    X.loc[4, "value"] = np.inf
    with pytest.raises(InputError, match="infinity.*'value'"):
        AODE().fit(X, y)


def test_unhashable_nominal_value():
    X, y = _nominal_data()
    X = X.to_numpy(dtype=object)
    X[0, 0] = {"a": 1}
    with pytest.raises(InputError, match="dict") as info:
        AODE().fit(X, y)
    assert isinstance(info.value, TypeError)


def test_classes_of_mixed_types():
    X, y = _nominal_data()
    y = y.astype(object)
    y[0] = 3
    with pytest.raises(InputError, match="all strings or all numbers"):
        AODE().fit(X, y)


def test_bad_parameters():
    X, y = _nominal_data()
    for model in (AODE(smoothing="none"), AODE(aggregate="max"), AODE(missing="drop"),
                  AODE(discretizer="kmeans"), AnDE(n=-1)):
        with pytest.raises(ValueError):
            model.fit(X, y)


# --------------------------------------------------------------- nominal values, missing


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, A2DE])
def test_unseen_value_at_predict_is_missing(cls):
    X, y = _nominal_data()
    model = cls(missing="ignore").fit(X, y)
    X_test = X.iloc[:10].copy()
    X_unseen = X_test.copy()
    X_unseen["colour"] = ["purple"] * 5 + list(X_test["colour"].iloc[5:])
    X_nan = X_test.copy()
    X_nan.loc[X_nan.index[:5], "colour"] = np.nan
    np.testing.assert_array_equal(model.predict_proba(X_unseen), model.predict_proba(X_nan))
    np.testing.assert_array_equal(model.predict(X_unseen), model.predict(X_nan))
    assert model.encoder_.transform(X_unseen)[:5, 0].tolist() == [-1] * 5


def test_categorical_with_unobserved_categories_changes_n_values():
    X, y = _nominal_data()
    X_cat = X.copy()
    X_cat["size"] = pd.Categorical(X["size"], categories=["S", "M", "L", "XL", "XXL"])
    obj = AODE().fit(X, y)
    cat = AODE().fit(X_cat, y)
    assert obj.encoder_.n_values_.tolist() == [3, 4, 2]
    assert cat.encoder_.n_values_.tolist() == [3, 5, 2]
    assert cat.encoder_.categories_[1] == ["S", "M", "L", "XL", "XXL"]
    p_obj, p_cat = obj.predict_proba(X), cat.predict_proba(X_cat)
    assert not np.allclose(p_obj, p_cat)
    # the same model is obtained from an object column once the category is declared
    np.testing.assert_allclose(cat.predict_proba(X), p_cat, rtol=1e-12)


def test_mixed_dataframe_fits_and_predicts():
    X, y = _mixed_data()
    for cls in (NaiveBayes, AODE, A2DE):
        model = cls().fit(X, y)
        enc = model.encoder_
        assert enc.nominal_.tolist() == [True, True, True, False, False]
        assert enc.categories_[0] == ["a", "b", "c"]
        assert enc.categories_[2] == [False, True]
        proba = model.predict_proba(X)
        assert proba.shape == (len(X), 2)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert np.mean(model.predict(X) == y) > 0.7
        assert model.feature_names_in_.tolist() == list(X.columns)


def test_list_of_rows_keeps_numeric_columns_numeric():
    rows = [[1.5, "red"], [2.5, "blue"], [0.5, "red"], [3.5, "blue"]] * 5
    y = [0, 1, 0, 1] * 5
    model = NaiveBayes(discretizer="equal_frequency", n_bins=2).fit(rows, y)
    assert model.encoder_.nominal_.tolist() == [False, True]
    assert model.predict([[1.0, "red"]]).tolist() == [0]


@pytest.mark.parametrize("cls", [NaiveBayes, AODE])
def test_missing_value_gets_its_own_code(cls):
    X, y = _mixed_data()
    ignore = cls(missing="ignore").fit(X, y)
    value = cls(missing="value").fit(X, y)
    cats = value.encoder_.categories_
    assert cats[0][-1] == "<missing>" and "<missing>" not in ignore.encoder_.categories_[0]
    assert cats[4][-1] == "<missing>"  # the numeric column with NaN
    assert cats[1] == ["lo", "hi"]  # no NaN: no missing code
    assert value.encoder_.n_values_[0] == ignore.encoder_.n_values_[0] + 1
    codes = value.encoder_.transform(X)
    assert np.all(codes[X["obj"].isna().to_numpy(), 0] == len(cats[0]) - 1)
    rows = X["obj"].isna().to_numpy() | X["value"].isna().to_numpy()
    assert not np.allclose(ignore.predict_proba(X[rows]), value.predict_proba(X[rows]))


def test_encoder_on_its_own():
    X, y = _mixed_data()
    enc = AttributeEncoder().fit(X, y)
    codes = enc.transform(X)
    assert codes.dtype == np.int32 and codes.shape == X.shape
    assert np.all(codes < enc.n_values_)
    assert enc.get_feature_names_out().tolist() == list(X.columns)
    with pytest.raises(InputError, match="requires y to be passed"):
        AttributeEncoder().fit(X)
    AttributeEncoder(discretizer="equal_frequency").fit(X)  # unsupervised: no y needed


def test_zero_weight_rows_do_not_add_values():
    X, y = _nominal_data()
    X.loc[0, "colour"] = "violet"
    w = np.ones(len(X))
    w[0] = 0
    weighted = AODE().fit(X, y, sample_weight=w)
    dropped = AODE().fit(X.iloc[1:], y[1:])
    assert "violet" not in weighted.encoder_.categories_[0]
    np.testing.assert_allclose(weighted.predict_proba(X), dropped.predict_proba(X), rtol=1e-12)


# ----------------------------------------------------------------------- table budget


def test_table_too_large_is_refused_before_allocating():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 10, (200, 40))
    y = rng.integers(0, 2, 200)
    X[:10, :] = np.arange(10)[:, None]  # every attribute has all 10 values
    model = AnDE(n=3, max_table_bytes=10**6, categorical_features="all")
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(TableTooLargeError) as info:
            model.fit(X, y)
        elapsed = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < 1.0
    assert peak < 50 * 2**20  # the tables would need ~21 GB
    message = str(info.value)
    estimate = estimate_table_bytes([10] * 40, 2, 4)["total"]
    assert estimate > 10**10
    assert re.search(r"\d+(\.\d+)? (GiB|TiB|GB|TB)", message), message
    assert "smaller n" in message
    assert isinstance(info.value, MemoryError)


# ---------------------------------------------------------------------------- partial_fit


def _chunks():
    first = pd.DataFrame({"a": ["x", "z", "x", "z", "x", "z"],
                          "b": ["p", "p", "q", "q", "p", "q"]})
    y1 = np.array([0, 1, 0, 1, 1, 0])
    second = pd.DataFrame({"a": ["y", "x", "y", "z", np.nan],
                           "b": ["p", "r", "q", "r", "p"]})
    y2 = np.array([1, 0, 1, 0, 1])
    return first, y1, second, y2


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, A2DE])
def test_partial_fit_new_values_extend_the_table(cls):
    first, y1, second, y2 = _chunks()
    inc = cls().partial_fit(first, y1, classes=[0, 1])
    assert inc.encoder_.n_values_.tolist() == [2, 2]
    inc.partial_fit(second, y2)
    assert inc.encoder_.n_values_.tolist() == [3, 3]
    # new values are appended: the order is that of the chunks
    assert inc.encoder_.categories_ == [["x", "z", "y"], ["p", "q", "r"]]

    full = pd.concat([first, second], ignore_index=True)
    y = np.concatenate([y1, y2])
    declared = full.copy()
    declared["a"] = pd.Categorical(full["a"], categories=["x", "z", "y"])
    declared["b"] = pd.Categorical(full["b"], categories=["p", "q", "r"])
    batch = cls().fit(declared, y)
    np.testing.assert_array_equal(inc.table_.counts, batch.table_.counts)
    np.testing.assert_array_equal(inc.predict_proba(full), batch.predict_proba(full))


def test_partial_fit_needs_classes_first():
    first, y1, _, _ = _chunks()
    with pytest.raises(InputError, match="classes must be passed on the first call"):
        AODE().partial_fit(first, y1)


def test_partial_fit_refuses_labels_outside_classes():
    first, y1, second, _ = _chunks()
    model = AODE().partial_fit(first, y1, classes=[0, 1])
    with pytest.raises(InputError, match=r"classes \[7\] that are not in classes_"):
        model.partial_fit(second, np.array([0, 1, 7, 0, 1]))
    with pytest.raises(InputError, match="not the same as on the first call"):
        model.partial_fit(second, np.array([0, 1, 1, 0, 1]), classes=[0, 1, 2])
    with pytest.raises(InputError, match="not in classes_"):
        AODE().partial_fit(first, y1 + 5, classes=[0, 1])


def test_partial_fit_checks_columns():
    first, y1, second, y2 = _chunks()
    model = AODE().partial_fit(first, y1, classes=[0, 1])
    with pytest.raises(InputError, match="Feature names must be in the same order"):
        model.partial_fit(second[["b", "a"]], y2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model.partial_fit(second.to_numpy(), y2)  # positional, like scikit-learn
    assert model.table_.n_rows == len(y1) + len(y2)


@pytest.mark.parametrize("discretizer", ["mdl", "equal_frequency"])
def test_integer_weights_equal_repeated_rows(discretizer):
    X, y = _mixed_data()
    w = np.random.default_rng(5).integers(0, 4, len(X))
    weighted = AODE(discretizer=discretizer).fit(X, y, sample_weight=w)
    rows = np.repeat(np.arange(len(X)), w)
    repeated = AODE(discretizer=discretizer).fit(X.iloc[rows], y[rows])
    assert weighted.encoder_.categories_ == repeated.encoder_.categories_
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X),
                               rtol=1e-10)


class _BadBins:
    """A discretiser whose transform returns codes its fit never produced."""

    n_bins_ = np.array([2])

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return np.full(np.shape(X), 5)

    def get_params(self, deep=True):
        return {}


def test_custom_discretiser_codes_are_bounded():
    X = pd.DataFrame({"v": np.arange(10.0), "c": list("ab") * 5})
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match="outside 0 .. n_bins - 1"):
        AODE(discretizer=_BadBins()).fit(X, y)


def test_failed_partial_fit_leaves_the_model_unchanged():
    first, y1, second, y2 = _chunks()
    budget = 3 * estimate_table_bytes([3, 3], 2, 2)["total"]
    model = AODE(max_table_bytes=budget).partial_fit(first, y1, classes=[0, 1])
    proba = model.predict_proba(first)
    n_values = model.encoder_.n_values_.copy()
    bad = second.copy()
    bad["b"] = bad["b"].astype(object)
    bad.iloc[1, 1] = ["unhashable"]  # column "a" has a new value, column "b" fails
    with pytest.raises(InputError):
        model.partial_fit(bad, y2)
    assert model.encoder_.n_values_.tolist() == n_values.tolist()
    np.testing.assert_array_equal(model.predict_proba(first), proba)
    # a chunk whose new values would exceed the table budget is refused as a whole
    many = pd.DataFrame({"a": [f"v{i}" for i in range(50)], "b": ["p"] * 50})
    with pytest.raises(TableTooLargeError):
        model.partial_fit(many, np.zeros(50, dtype=int))
    assert model.encoder_.n_values_.tolist() == n_values.tolist()
    np.testing.assert_array_equal(model.predict_proba(first), proba)
    model.partial_fit(second, y2)  # still usable
    assert model.encoder_.n_values_.tolist() == [3, 3]
