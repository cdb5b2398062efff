"""In-memory string columns (pandas ``string[pyarrow]``, Arrow string and large_string chunks,
object strings) are coded through Arrow's hash lookup or by factorizing: the same codes and
the same counts as the same data given as categorical columns."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from seminaive import AODE, AttributeEncoder

VALUES = np.array(["v0", "v1", "été", "v3", None], dtype=object)


def _columns(kind, idx):
    values = VALUES[idx]
    if kind == "object":
        return pd.Series(values, dtype=object)
    if kind == "string[pyarrow]":
        return pd.Series(pd.array(values, dtype="string[pyarrow]"))
    typ = pa.large_string() if kind == "large chunks" else pa.string()
    thirds = np.array_split(values, 3)  # several chunks, one of them a slice with an offset
    chunks = [pa.array(list(thirds[0]), typ),
              pa.array(["pad", *thirds[1]], typ).slice(1), pa.array(list(thirds[2]), typ)]
    return pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array(chunks)))


def _frame(kind, idx):
    return pd.DataFrame({f"a{j}": _columns(kind, idx[:, j]) for j in range(idx.shape[1])})


@pytest.mark.parametrize("kind", ["object", "string[pyarrow]", "chunks", "large chunks"])
def test_string_columns_count_as_categoricals(kind):
    rng = np.random.default_rng(11)
    idx = rng.integers(0, 5, size=(900, 4))
    idx[:, 0] = np.minimum(idx[:, 0], 3)  # a column without nulls
    y = rng.integers(0, 3, size=900)
    X = _frame(kind, idx)
    cats = X.astype(object).astype("category")
    ours, ref = AODE().fit(X, y), AODE().fit(cats, y)
    assert ours.encoder_.categories_ == ref.encoder_.categories_
    np.testing.assert_array_equal(ours.table_.counts, ref.table_.counts)
    # the codes by brute force: position in the sorted values, -1 for a null
    enc = ours.encoder_
    codes = enc.transform(X)
    for j in range(idx.shape[1]):
        known = enc.categories_[j]
        expected = [known.index(v) if v is not None else -1 for v in VALUES[idx[:, j]]]
        np.testing.assert_array_equal(codes[:, j], expected)
    # values never seen in training code as -1
    unseen = pd.DataFrame({f"a{j}": _columns(kind, np.array([0, 1])) for j in range(4)})
    unseen.iloc[1, 1] = "new"
    unseen.iloc[0, 3] = "zz"
    got = enc.transform(unseen)
    v0, v1 = enc.categories_[0].index("v0"), enc.categories_[0].index("v1")
    np.testing.assert_array_equal(got, [[v0, v0, v0, -1], [v1, -1, v1, v1]])


def test_partial_fit_value_set_of_a_grown_column_is_rebuilt():
    first = pd.DataFrame({"a": pd.array(["b", "c"], dtype="string[pyarrow]")})
    second = pd.DataFrame({"a": pd.array(["a", "c"], dtype="string[pyarrow]")})
    enc = AttributeEncoder().partial_fit(first)
    np.testing.assert_array_equal(enc.transform(second)[:, 0], [-1, 1])
    enc.partial_fit(second)  # "a" appended after the known values
    np.testing.assert_array_equal(enc.transform(second)[:, 0], [2, 1])
