"""ESKDB's pair tables within max_table_bytes by their counts, as the other structure
learners' (their log tables are never built): the ensemble's table and the members' own
are checked by the bytes they allocate; only the choice between the union's pair table
and the members' own keeps the log tables' bytes as its margin."""

import numpy as np
import pytest
from test_structure_common import random_nominal

import seminaive
from seminaive import ESKDB
from seminaive.structure import eskdb
from seminaive.tables import estimate_table_bytes


def _least_budget(make, X, y, high):
    """The least budget (bytes) under which ``make(budget)`` fits, by bisection."""
    low = 0
    while high - low > 1:
        mid = (low + high) // 2
        try:
            make(mid).fit(X, y)
        except seminaive.TableTooLargeError:
            low = mid
        else:
            high = mid
    return high


def test_shared_pair_table_checked_by_its_counts():
    """Nominal attributes (one shared discretisation): the pair table's estimate is the
    bytes of its counts, exactly; the least budget the ensemble fits under is below the
    estimate with the log tables (before: refused by the pair table's check there) and
    gives the model of the fit without a budget, bit for bit, whose log tables are never
    built; one byte under it: refused."""
    X, y = random_nominal(300, [12] * 8, 3, seed=4, dependence=0.5)
    kw = dict(n_estimators=2, k=1, n_iter=20, smoothing="hls", random_state=0,
              categorical_features="all")
    whole = ESKDB(max_table_bytes=None, **kw).fit(X, y)
    table = whole.table_
    estimate = estimate_table_bytes(table.sizes - 1, table.n_classes, 2)
    assert estimate["counts"] == table.counts.nbytes
    least = _least_budget(lambda b: ESKDB(max_table_bytes=b, **kw), X, y, 10**7)
    assert table.counts.nbytes < least < estimate["total"]
    fitted = ESKDB(max_table_bytes=least, **kw).fit(X, y)
    np.testing.assert_array_equal(fitted.predict_proba(X), whole.predict_proba(X))
    assert fitted.table_._log_tables is None
    with pytest.raises(seminaive.TableTooLargeError, match="max_table_bytes"):
        ESKDB(max_table_bytes=least - 1, **kw).fit(X, y)
    # the pair table alone over the budget: refused by its counts, naming the options
    with pytest.raises(seminaive.TableTooLargeError, match="fewer attributes") as caught:
        ESKDB(max_table_bytes=table.counts.nbytes - 1, **kw).fit(X, y)
    assert "frequency tables" in str(caught.value)


def _numeric(n=20000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_members_own_pair_tables_refused_by_their_counts(monkeypatch):
    """Per-member discretisations: the members' own pair tables (and the ensemble's
    attribute counts) are refused, before any pair table is allocated, only when their
    counts exceed the budget; at the estimate with their log tables less one byte (where
    the version before refused them) they are counted, each table's bytes its estimate,
    and the fit goes on to its members' count trees (refused there)."""
    X, y = _numeric()
    kw = dict(n_estimators=5, k=2, n_iter=30, smoothing="hls", random_state=3,
              candidate_trees="cut")
    union = ESKDB(max_table_bytes=None, **kw).fit(X, y)
    enc, k = union.encoder_, union.table_.n_classes
    planned = [estimate_table_bytes(v, k, 2) for v in union._planned_member_values(enc)]
    single = estimate_table_bytes(enc.n_values_, k, 1)
    counts = single["counts"] + sum(p["counts"] for p in planned)
    with_logs = single["total"] + sum(p["total"] for p in planned)
    assert counts < with_logs
    made = []
    real = eskdb.FrequencyTable

    def recording(n_values, n_classes, max_order, *args, **kwargs):
        table = real(n_values, n_classes, max_order, *args, **kwargs)
        made.append(table)
        return table

    monkeypatch.setattr(eskdb, "FrequencyTable", recording)
    with pytest.raises(seminaive.TableTooLargeError, match="even when each member") as caught:
        ESKDB(max_table_bytes=counts - 1, **kw).fit(X, y)
    assert "discretization=\"shared\"" in str(caught.value)
    assert made == []  # refused before any table
    with pytest.raises(seminaive.TableTooLargeError) as caught:
        ESKDB(max_table_bytes=with_logs - 1, **kw).fit(X, y)
    assert "even when each member" not in str(caught.value)
    assert "count trees" in str(caught.value)  # (a member's, selected one at a time)
    members = [t for t in made if t.max_order == 2]
    assert len(members) >= len(planned)  # (every chunk's tables, then merged)
    assert [t.counts.nbytes for t in members[:len(planned)]] == [p["counts"] for p in planned]
