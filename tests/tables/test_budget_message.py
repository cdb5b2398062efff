"""The refusal of tables larger than ``max_table_bytes`` states the tables it refused: the
attributes as coded (numeric columns as their bins), with numbers computed by hand."""

import re

import numpy as np
import pandas as pd
import pytest

from seminaive import A2DE, AODE, estimate_table_bytes
from seminaive.exceptions import TableTooLargeError


def _refusal(model, X, y):
    with pytest.raises(TableTooLargeError) as refused:
        model.fit(X, y)
    return str(refused.value)


def _numbers(message):
    """(size needed, attributes, classes, order, mean values) read from the message."""
    m = re.search(r"would need ([\d.]+ [KM]?i?B) \((\d+) attributes, (\d+) classes, combinations "
                  r"of up to (\d+) attributes, mean ([\d.]+) values per attribute as coded\)",
                  message)
    assert m, message
    return m[1], int(m[2]), int(m[3]), int(m[4]), float(m[5])


def _integers():
    rng = np.random.default_rng(0)
    return rng.integers(0, 4, (50, 40)), rng.integers(0, 2, 50)


def test_integer_columns_counted_as_their_values():
    X, y = _integers()
    message = _refusal(A2DE(max_table_bytes=1e5, categorical_features="all"), X, y)
    mib, a, k, order, mean = _numbers(message)
    assert (a, k, order, mean) == (40, 2, 3, 4.0)
    # the counts alone: 8 bytes x 2 classes x (1 + 40 x 5 + C(40, 2) x 5^2 + C(40, 3) x 5^3)
    # cells (4 values and the missing slot)
    counts = 8 * 2 * (1 + 40 * 5 + 780 * 25 + 9880 * 125)
    assert counts == 20_075_216 == estimate_table_bytes([4] * 40, 2, 3)["counts"]
    assert estimate_table_bytes([4] * 40, 2, 3)["total"] / 2**20 == pytest.approx(77.39, abs=0.01)
    assert mib == "77.4 MiB"
    assert "numeric" not in message


def test_integer_columns_taken_as_numeric_are_counted_as_their_bins():
    """With categorical_features="auto" the integer columns are numeric: cut into bins (the
    labels are random, MDL cuts none of them: one bin each), so the tables refused are
    those of 1 value per attribute, as a fit without a budget makes them."""
    X, y = _integers()
    fitted = A2DE(max_table_bytes=None).fit(X, y)
    assert np.array_equal(fitted.encoder_.n_values_, np.ones(40))
    message = _refusal(A2DE(max_table_bytes=1e5), X, y)
    mib, a, k, order, mean = _numbers(message)
    assert (a, k, order, mean) == (40, 2, 3, 1.0)
    assert estimate_table_bytes([1] * 40, 2, 3)["total"] / 2**20 == pytest.approx(5.83, abs=0.01)
    assert mib == "5.8 MiB"
    assert "40 of the 40 attributes are numeric columns counted as bins (mean 1.0 bins)" \
        in message
    assert 'categorical_features="all"' in message


def test_mixed_columns():
    """Nominal columns of 2 and 4 values and two constant numeric columns (one bin each):
    a mean of (2 + 4 + 1 + 1) / 4 = 2.0 values, 2 of the 4 attributes numeric."""
    X = pd.DataFrame({"a": list("xy") * 10, "b": list("pqrs") * 5,
                      "u": np.full(20, 1.5), "v": np.full(20, -2.0)})
    y = np.array([0, 1, 2, 3] * 5)
    message = _refusal(AODE(max_table_bytes=1), X, y)
    size, a, k, order, mean = _numbers(message)
    assert (a, k, order, mean) == (4, 4, 2, 2.0)
    assert size == f"{estimate_table_bytes([2, 4, 1, 1], 4, 2)['total'] / 1024:.1f} KiB"
    assert "2 of the 4 attributes are numeric columns counted as bins (mean 1.0 bins)" \
        in message
    nominal = _refusal(AODE(max_table_bytes=1), X[["a", "b"]], y)
    assert _numbers(nominal)[1:] == (2, 4, 2, 3.0) and "numeric" not in nominal
