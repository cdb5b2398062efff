"""Every warning seminaive issues names the user's line, not a line inside the library."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning, DataConversionWarning

from seminaive import ALR, AODE, MAPLMD, SKDB, AnDE
from seminaive.datasets import make_random_bn


@pytest.fixture(scope="module")
def data():
    X, y, _ = make_random_bn(300, n_attributes=5, n_values=3, random_state=0)
    return X, y


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert caught, "no warning was issued"
    return caught


@pytest.mark.parametrize("make", [lambda: SKDB(), lambda: AnDE(n="auto"),
                                  lambda: MAPLMD(max_iter=3)],
                         ids=["SKDB", "AnDE-auto", "MAPLMD"])
def test_partial_fit_warnings_point_at_the_caller(data, make):
    X, y = data
    model = make().partial_fit(X[:150], y[:150], classes=np.unique(y))
    caught = _caught(lambda: model.partial_fit(X[150:], y[150:]))
    assert {w.filename for w in caught} == {__file__}


def test_convergence_warning_points_at_the_caller(data):
    X, y = data
    caught = _caught(lambda: ALR(n=1, max_iter=1).fit(X, y))
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert {w.filename for w in caught} == {__file__}


def test_input_warnings_point_at_the_caller(data):
    X, y = data
    frame = pd.DataFrame(X, columns=[f"a{i}" for i in range(X.shape[1])])
    model = AODE().fit(frame, y)
    caught = _caught(lambda: model.predict(X))
    assert {w.filename for w in caught} == {__file__}
    caught = _caught(lambda: AODE().fit(X, y.reshape(-1, 1)))
    assert any(issubclass(w.category, DataConversionWarning) for w in caught)
    assert {w.filename for w in caught} == {__file__}
