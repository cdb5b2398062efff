"""Object columns of numbers (``df.to_numpy()`` of a frame that mixes numbers and text) are
read as numeric under categorical_features="auto"; a text value in a numeric column names the
column, the row and the value, with advice that applies at fit or at predict time."""

import numpy as np
import pandas as pd
import pytest

from seminaive import AODE, AttributeEncoder, NaiveBayes
from seminaive.exceptions import InputError

RNG = np.random.default_rng(3)
N = 600


def _adult_like():
    age = RNG.integers(17, 90, N)
    hours = RNG.normal(40, 10, N).round(1)
    work = RNG.choice(["Private", "Self-emp", "Gov"], N)
    y = np.where((age > 40) & (hours > 38), ">50K", "<=50K")
    flip = RNG.random(N) < 0.1
    y[flip] = np.where(y[flip] == ">50K", "<=50K", ">50K")
    return pd.DataFrame({"age": age, "workclass": work, "hours": hours}), y


def test_an_object_array_of_numbers_is_read_as_the_frame_is():
    X, y = _adult_like()
    from_frame = AODE().fit(X, y)
    values = X.to_numpy()
    assert values.dtype == object
    from_array = AODE().fit(values, y)
    assert from_array.encoder_.nominal_.tolist() == [False, True, False]
    np.testing.assert_array_equal(from_array.encoder_.cut_points()[0],
                                  from_frame.encoder_.cut_points()[0])
    np.testing.assert_allclose(from_array.predict_proba(values), from_frame.predict_proba(X),
                               rtol=1e-12)


def test_what_stays_nominal():
    frame = pd.DataFrame({
        "ints": pd.Series([1, 2, None, 4] * 5, dtype=object),
        "mixed": pd.Series([1.5, 2, 3, 4.25] * 5, dtype=object),
        "text_digits": pd.Series(["1", "2", "3", "4"] * 5, dtype=object),
        "bools": pd.Series([True, False] * 10, dtype=object),
        "numbers_and_text": pd.Series([1, "a", 2, 3] * 5, dtype=object),
        "missing": pd.Series([None] * 20, dtype=object),
    })
    model = NaiveBayes(discretizer="equal_frequency").fit(frame, [0, 1] * 10)
    assert model.encoder_.nominal_.tolist() == [False, False, True, True, True, True]


def test_a_text_value_at_predict_time_names_column_and_row():
    X, y = _adult_like()
    model = NaiveBayes().fit(X, y)
    test = X.iloc[:20].astype({"hours": object})
    test.loc[13, "hours"] = "unknown"
    with pytest.raises(InputError) as info:
        model.predict(test)
    message = str(info.value)
    assert "column 'hours', row 13: 'unknown' is not a number" in message
    assert "leave the value empty" in message and "fit the model again" in message


def test_a_text_value_at_fit_time_with_a_declared_numeric_column():
    X, y = _adult_like()
    X = X.astype({"age": object})
    X.loc[7, "age"] = "n/a"
    with pytest.raises(InputError) as info:
        NaiveBayes(categorical_features=["workclass"]).fit(X, y)
    message = str(info.value)
    assert "column 'age'" in message and "row 7: 'n/a' is not a number" in message
    assert "list it in categorical_features" in message


def test_nominal_mask_from_the_dtypes_is_that_of_every_column():
    """categorical_features="auto" reads the dtypes, and the values of object columns only:
    the mask of testing every column's Series, for every kind of column (an object column
    of numbers is numeric; of text, of None and text, of booleans nominal)."""
    import pyarrow as pa

    from seminaive.preprocessing.encoder import _arrow_frame, _is_nominal_column

    frame = pd.DataFrame({
        "text": ["x", "y", "x"], "ints": [1, 2, 3], "floats": [0.5, 1.5, np.nan],
        "cat": pd.Categorical(["u", "v", "u"]), "obj_num": np.array([1, 2.5, None], object),
        "obj_text": np.array([None, "x", "y"], dtype=object), "bools": [True, False, True],
        "string": pd.array(["p", None, "q"], dtype="string"),
        "obj_mixed": np.array([1, "a", 2], dtype=object)})
    dictionary = _arrow_frame(pa.table({"d": pa.array(["a", "b", "a"]).dictionary_encode()}),
                              {"d"})
    frame = pd.concat([frame, dictionary], axis=1)
    got = AttributeEncoder().nominal_mask(frame)
    assert got.tolist() == [_is_nominal_column(s) for _, s in frame.items()]
    assert got.tolist() == [True, False, False, True, False, True, True, True, True, True]
