"""max_table_bytes covers every allocation a fit keeps: ESKDB's members, their count trees,
HDP estimates (with their logarithms) and per-member tables together, checked before
allocating.  Measured by the nbytes of what the fit kept against the budget."""

import warnings

import numpy as np
import pandas as pd
import pytest

from seminaive import ESKDB, KDB
from seminaive.exceptions import TableTooLargeError


def _nominal(n=1500, a=10, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{i}": rng.integers(0, 6, n).astype(str) for i in range(a)})
    y = (X["x0"].astype(int) + X["x1"].astype(int) + rng.integers(0, 3, n)) % 3
    return X, y


def _mixed(n=1200, seed=1):
    X, y = _nominal(n, 6, seed)
    rng = np.random.default_rng(seed)
    X["u"] = rng.normal(size=n) + (y == 1)
    X["v"] = rng.normal(size=n) - (y == 2)
    return X, y


def _kept_bytes(model):
    """Everything the ensemble keeps: its pair table, every member's own table (per-member
    discretisation), count trees, HDP estimates and their logarithms, moments."""
    total = model.table_.nbytes
    for member in model.estimators_:
        total += member._held_bytes()
        if member.table_ is not model.table_:
            total += member.table_.nbytes
    return total


def _fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, y)


@pytest.mark.parametrize("data", [_nominal, _mixed], ids=["shared", "per-member-cuts"])
def test_eskdb_keeps_no_more_than_its_budget(data):
    X, y = data()
    free = _fit(ESKDB(random_state=0, max_table_bytes=None), X, y)
    kept = _kept_bytes(free)
    # the members' HDP estimates are most of it: they must be inside the budget
    assert sum(m._trees.log_estimates.nbytes for m in free.estimators_) > 0
    for factor in (0.5, 0.8, 0.95, 1.5, 3.0):
        budget = int(kept * factor)
        try:
            model = _fit(ESKDB(random_state=0, max_table_bytes=budget), X, y)
        except TableTooLargeError as err:
            assert "max_table_bytes" in str(err)
            assert factor < 1.5, factor  # the budget holds the model and the sampler's work
            continue
        assert factor >= 1.0, f"a budget of {factor} x what the fit keeps was accepted"
        assert _kept_bytes(model) <= budget
        np.testing.assert_array_equal(model.predict_proba(X), free.predict_proba(X))


def test_one_member_fits_but_the_ensemble_does_not():
    X, y = _nominal()
    one = _fit(ESKDB(n_estimators=1, random_state=0, max_table_bytes=None), X, y)
    five = _fit(ESKDB(n_estimators=5, random_state=0, max_table_bytes=None), X, y)
    assert _kept_bytes(five) > 2 * _kept_bytes(one)
    budget = (_kept_bytes(one) + _kept_bytes(five)) // 2
    with pytest.raises(TableTooLargeError):
        _fit(ESKDB(n_estimators=5, random_state=0, max_table_bytes=budget), X, y)


def test_kdb_hdp_estimates_are_inside_the_budget():
    X, y = _nominal()
    free = _fit(KDB(k=2, smoothing="hdp", random_state=0, max_table_bytes=None), X, y)
    kept = free.table_.nbytes + free._held_bytes()
    with pytest.raises(TableTooLargeError):
        _fit(KDB(k=2, smoothing="hdp", random_state=0, max_table_bytes=int(kept * 0.9)),
             X, y)
    model = _fit(KDB(k=2, smoothing="hdp", random_state=0, max_table_bytes=3 * kept), X, y)
    assert model.table_.nbytes + model._held_bytes() <= 3 * kept
