"""ESKDB's route between the union's pair table and the members' own (per-member cut
points): the union route is chosen when the pair tables fit max_table_bytes with the room
their log tables would take; when it is refused later (the members' count trees or
estimates besides the union's table), the fit goes on with every member counting its own
pair table, the same model, instead of refusing."""

import numpy as np
import pytest

import seminaive
from seminaive import ESKDB
from seminaive.structure import eskdb
from seminaive.tables import estimate_table_bytes


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


_KW = dict(n_estimators=10, k=3, smoothing="hls", random_state=3)


def _union_threshold(model):
    """The least budget at which the union route is chosen (:meth:`ESKDB._new_table`)."""
    enc, k = model.encoder_, model.table_.n_classes
    return (estimate_table_bytes(enc.n_values_, k, 2)["total"]
            + sum(estimate_table_bytes(v, k, 2)["total"]
                  for v in model._planned_member_values(enc)))


def _fit(budget, X, y):
    try:
        return ESKDB(max_table_bytes=budget, **_KW).fit(X, y)
    except seminaive.TableTooLargeError:
        return None


def test_union_route_refused_later_falls_back_to_the_members_tables(monkeypatch):
    """At the least budget that takes the union route, the union route does not fit (its
    pair table leaves the members' trees and estimates no room): the fit goes on with the
    members' own pair tables (before: refused), the model of the fit without a budget bit
    for bit, the library's accounting at every member's selection within the budget; the
    least budget that fits (bisection) fits, one byte below it is refused."""
    X, y = _data()
    whole = ESKDB(max_table_bytes=None, **_KW).fit(X, y)
    assert whole.table_.max_order == 2
    expected = whole.predict_proba(X)
    threshold = _union_threshold(whole)

    real_passes = eskdb.ESKDB._member_passes
    real_cut = getattr(eskdb.ESKDB, "_attribute_table", None)
    peaks, fallbacks = [], []

    def attribute_table(self):
        assert self.table_.max_order == 2  # (the union route, refused)
        fallbacks.append(self.max_table_bytes)
        return real_cut(self)

    def passes(self, members, sources, everyone=None):
        out = real_passes(self, members, sources, everyone)
        everyone = everyone or members
        tables = {id(t): t.nbytes for t in [self.table_, *(m.table_ for m in everyone)]}
        pending = sum(eskdb._keys_bytes(m.__dict__["_counted_families"].values())
                      for m in everyone if "_counted_families" in m.__dict__)
        peaks.append((self.max_table_bytes, sum(tables.values()) + pending
                      + sum(m._held_bytes() for m in everyone)))
        return out

    monkeypatch.setattr(eskdb.ESKDB, "_member_passes", passes)
    monkeypatch.setattr(eskdb.ESKDB, "_attribute_table", attribute_table, raising=False)
    model = ESKDB(max_table_bytes=threshold, **_KW).fit(X, y)
    assert fallbacks == [threshold]  # (the union route was taken, then refused)
    assert model.table_.max_order == 1 and model.mutual_info_ is None
    np.testing.assert_array_equal(model.predict_proba(X), expected)
    np.testing.assert_array_equal(model.orders_, whole.orders_)
    assert peaks and all(held <= budget for budget, held in peaks)

    lo, hi = 0, threshold  # refused at lo (nothing fits no bytes), fits at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _fit(mid, X, y) is None:
            lo = mid
        else:
            hi = mid
    least = _fit(hi, X, y)
    np.testing.assert_array_equal(least.predict_proba(X), expected)
    with pytest.raises(seminaive.TableTooLargeError, match="max_table_bytes"):
        ESKDB(max_table_bytes=hi - 1, **_KW).fit(X, y)
