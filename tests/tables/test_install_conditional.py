"""Installing hierarchical estimates in a table: ``FrequencyTable.install_conditional``
validates what it installs and is the only way to set them."""

import pickle

import numpy as np
import pytest

from seminaive.tables import FrequencyTable


@pytest.fixture
def table():
    rng = np.random.default_rng(0)
    t = FrequencyTable(np.array([2, 3, 2]), 2, 2)
    t.add(rng.integers(0, 4, (50, 3)) % np.array([3, 4, 3]), rng.integers(0, 2, 50))
    return t


def test_installed_estimates_are_scored(table):
    estimates = table.hls_tables()
    table.install_conditional(estimates, kind="hls")
    assert table.conditional_kind == "hls"
    np.testing.assert_array_equal(table.conditional, estimates)
    assert table.conditional is not estimates  # a copy
    np.testing.assert_array_equal(table.hdp_conditional, estimates)  # the former name
    logs = table.log_tables(1, "hls")
    np.testing.assert_array_equal(logs.log_conditional[:estimates.size], estimates)


@pytest.mark.parametrize(("bad", "match"), [
    (lambda e: e[:-1], "expected"),
    (lambda e: e.astype(np.float32), "float64"),
    (lambda e: np.where(np.arange(e.size) == 3, np.nan, e), "finite log-probabilities"),
    (lambda e: np.where(np.arange(e.size) == 0, 0.5, e), "finite log-probabilities"),
])
def test_bad_estimates_are_refused_and_leave_the_table_as_it_was(table, bad, match):
    good = table.hls_tables()
    with pytest.raises(ValueError, match=match):
        table.install_conditional(bad(good), kind="hdp")
    assert table.conditional is None and table.conditional_kind is None
    with pytest.raises(ValueError, match="kind must be one of"):
        table.install_conditional(good, kind="m_estimate")
    with pytest.raises(ValueError, match="needs the hierarchical estimates"):
        table.log_tables(1, "hdp")


def test_the_estimates_are_dropped_when_the_counts_change(table):
    table.install_conditional(table.hls_tables(), kind="hls")
    table.add(np.array([[1, 1, 1]]), np.array([0]))
    assert table.conditional is None and table.conditional_kind is None


def test_a_table_pickled_with_the_former_attribute_loads(table):
    estimates = table.hls_tables()
    state = dict(table.__getstate__())
    state.pop("conditional")
    state.pop("conditional_kind")
    state["hdp_conditional"] = estimates
    old = object.__new__(FrequencyTable)
    old.__setstate__(state)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(old)).conditional, estimates)
