"""The structure learners' pair table within max_table_bytes: its check before allocating
counts the bytes the learners allocate and their count-tree checks count for it (the
counts; its log tables are never built), not the log tables besides."""

import numpy as np
import pytest
from test_structure_common import random_nominal

import seminaive
from seminaive import KDB, TAN
from seminaive.structure import _sparse
from seminaive.tables import estimate_table_bytes


def _tree_bytes(model):
    arrays = model._counts.arrays
    return _sparse.NODE_BYTES * arrays.code.size + 8 * arrays.values.size


def test_pair_table_checks_the_counts_the_tree_checks_count(tmp_path):
    """A budget over the pair counts and the count trees but under the estimate with the
    pair table's log tables: fitted (before: refused by the pair table's check, for
    tables never built), the model of the fit without a budget, saved and loaded under
    that budget; one byte under the counts: refused before allocating, naming the
    learner's options; the log tables are never built."""
    X, y = random_nominal(400, [6] * 8, 3, seed=4, dependence=0.5)
    whole = KDB(k=2, categorical_features="all", max_table_bytes=None).fit(X, y)
    table = whole.table_
    estimate = estimate_table_bytes(table.sizes - 1, table.n_classes, 2)
    assert estimate["counts"] == table.counts.nbytes  # what is allocated
    need = table.counts.nbytes + _tree_bytes(whole)
    assert need < estimate["total"]
    fitted = KDB(k=2, categorical_features="all", max_table_bytes=need).fit(X, y)
    np.testing.assert_array_equal(fitted.predict_proba(X), whole.predict_proba(X))
    assert fitted.table_._log_tables is None  # never built
    path = tmp_path / "kdb.snb"
    fitted.save(path)
    np.testing.assert_array_equal(seminaive.load(path).predict_proba(X),
                                  whole.predict_proba(X))
    with pytest.raises(seminaive.TableTooLargeError) as caught:
        KDB(k=2, categorical_features="all", max_table_bytes=need - 1).fit(X, y)
    assert "occurring nodes" in str(caught.value)  # the trees' check, not the table's
    with pytest.raises(seminaive.TableTooLargeError, match="frequency tables") as caught:
        KDB(k=2, categorical_features="all",
            max_table_bytes=table.counts.nbytes - 1).fit(X, y)
    assert "fewer values per attribute" in str(caught.value)
    # TAN: its trees are read from the pair table, the same accounting
    tan = TAN(categorical_features="all", max_table_bytes=None).fit(X, y)
    budget = tan.table_.counts.nbytes + _tree_bytes(tan)
    assert budget < estimate["total"]
    np.testing.assert_array_equal(
        TAN(categorical_features="all", max_table_bytes=budget).fit(X, y).predict_proba(X),
        tan.predict_proba(X))


def test_ande_still_counts_its_log_tables():
    """AnDE builds the log tables: its check counts them (unchanged)."""
    from seminaive import AODE
    X, y = random_nominal(200, [5] * 6, 2, seed=1)
    table = AODE(categorical_features="all").fit(X, y).table_
    estimate = estimate_table_bytes(table.sizes - 1, table.n_classes, 2)
    assert estimate["counts"] < estimate["total"]
    with pytest.raises(seminaive.TableTooLargeError):
        AODE(categorical_features="all", max_table_bytes=estimate["total"] - 1).fit(X, y)
    AODE(categorical_features="all", max_table_bytes=estimate["total"]).fit(X, y)
