"""ESKDB's members' counted keys within max_table_bytes: the pass that counts every
member's families holds their keys (an int64 key and a float64 count per occurring key)
until each member's trees are built; with candidate_trees="cut" they are counted in the
plan, and the members count their own keys one at a time when all of them do not fit."""

import numpy as np
import pandas as pd
import pytest

import seminaive
from seminaive import ESKDB
from seminaive.structure import eskdb


def _keys_data(n=5000, seed=0):
    """Four numeric attributes (per-member cut points) and three nominal ones of 30 values
    each, unrelated to the class: the members' count trees over their candidates have
    nearly one key per row, and their selected models, without the nominal attributes,
    small cut trees."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int)
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(4)])
    for c in range(3):
        df[f"c{c}"] = pd.Categorical(rng.integers(0, 30, n).astype(str))
    return df, y


_KW = dict(n_estimators=12, k=3, n_iter=30, smoothing="hls", random_state=3,
           candidate_trees="cut")


def _sizes(model_kw, X, y, monkeypatch):
    """Fit without a budget and measure, per member, its counted keys, its trees over
    every candidate (:func:`eskdb._families_bytes`, exact) and its cut trees, with the
    pair tables' bytes."""
    real = eskdb.ESKDB._count_member_families
    seen = {}

    def record(self, members, stats, source, group=None):
        out = real(self, members, stats, source, group)
        k = self.table_.n_classes
        seen["tables"] = self.table_.nbytes + sum(m.table_.nbytes for m in members)
        seen["keys"] = list(out[1])
        seen["trees"] = [eskdb._families_bytes(
            [(t, kk, m.table_.sizes) for t, (kk, _) in m._counted_families.items()], k, 0)
            for m in members]
        return out

    monkeypatch.setattr(eskdb.ESKDB, "_count_member_families", record)
    whole = ESKDB(max_table_bytes=None, **model_kw).fit(X, y)
    monkeypatch.setattr(eskdb.ESKDB, "_count_member_families", real)
    seen["cut"] = [m._counts.arrays.nbytes for m in whole.estimators_]
    return whole, seen


def test_members_counted_keys_within_the_budget(monkeypatch):
    """Budgets between the two plans' needs: all members' keys held from one pass while
    the members are selected one at a time (plan A: the pair tables, the cut trees of the
    members before, the keys of the members after and the member's trees over every
    candidate) and every member counting its own keys just before its selection (plan B:
    no other member's keys held).  Under every budget the fit holds, by the library's
    own accounting at each member's selection (tables, every member's trees, the counted
    keys not yet used), no more than max_table_bytes, and gives the model of the fit
    without a budget bit for bit; below plan B's need it is refused, naming
    max_table_bytes."""
    X, y = _keys_data()
    whole, size = _sizes(_KW, X, y, monkeypatch)
    n = len(size["keys"])
    tables, keys, trees, cut = size["tables"], size["keys"], size["trees"], size["cut"]
    plan_a = max(tables + sum(cut[:j]) + sum(keys[j + 1:]) + trees[j] for j in range(n))
    plan_b = max(tables + sum(cut[:j]) + trees[j] for j in range(n))
    all_keys = tables + sum(keys)  # the pass over every member stops above it
    assert plan_b < all_keys < plan_a  # (the data: keys large, cut trees small)

    real_passes = eskdb.ESKDB._member_passes
    real_count = eskdb.ESKDB._count_member_families
    peaks, alone = [], []

    def passes(self, members, sources, everyone=None):
        out = real_passes(self, members, sources, everyone)
        everyone = everyone or members
        pending = sum(eskdb._keys_bytes(m.__dict__["_counted_families"].values())
                      for m in everyone if "_counted_families" in m.__dict__)
        held = self.table_.nbytes + sum(m.table_.nbytes + m._held_bytes() for m in everyone)
        peaks.append(held + pending)
        return out

    def count(self, members, stats, source, group=None):
        if group is not None:
            alone.extend(group)
        return real_count(self, members, stats, source, group)

    monkeypatch.setattr(eskdb.ESKDB, "_member_passes", passes)
    monkeypatch.setattr(eskdb.ESKDB, "_count_member_families", count)
    expected = whole.predict_proba(X)
    budgets = {"all keys held": plan_a + 20_000,
               "some keys dropped": (max(all_keys, plan_b) + plan_a) // 2,
               "each member its own": (plan_b + all_keys) // 2}
    counted_alone = {}
    for name, budget in budgets.items():
        peaks.clear()
        alone.clear()
        model = ESKDB(max_table_bytes=budget, **_KW).fit(X, y)
        np.testing.assert_array_equal(model.predict_proba(X), expected)
        assert len(peaks) == n and max(peaks) <= budget, name
        counted_alone[name] = list(alone)
    assert counted_alone["all keys held"] == []
    assert 0 < len(counted_alone["some keys dropped"]) < n
    assert counted_alone["some keys dropped"] == list(
        range(n - len(counted_alone["some keys dropped"]), n))
    assert counted_alone["each member its own"] == list(range(n))
    # (below plan B's need with the members' own pair tables too, the route the fit falls
    # back to when the union's is refused: the union's table less its attribute counts)
    from seminaive.tables import estimate_table_bytes
    pairs = whole.table_.nbytes - estimate_table_bytes(whole.table_.sizes - 1,
                                                       whole.table_.n_classes, 1)["counts"]
    with pytest.raises(seminaive.TableTooLargeError, match="max_table_bytes"):
        ESKDB(max_table_bytes=plan_b - pairs - 20_000, **_KW).fit(X, y)


def test_keep_counts_the_members_keys(monkeypatch):
    """candidate_trees="keep" builds every member's trees over every candidate while every
    member's counted keys are held: a budget over the pair tables and the trees but under
    them with the keys is refused, naming the counted keys and candidate_trees="cut"; with
    the keys it fits, the model of the fit without a budget."""
    X, y = _keys_data()
    kw = dict(_KW, candidate_trees="keep")
    whole, size = _sizes(kw, X, y, monkeypatch)
    k = whole.table_.n_classes
    short = sum(eskdb._short_trees_bytes(m.candidates_, m.table_.sizes, k)
                for m in whole.estimators_)
    need = size["tables"] + short + sum(size["trees"])
    with pytest.raises(seminaive.TableTooLargeError,
                       match=r"counted keys.*candidate_trees=\"cut\""):
        ESKDB(max_table_bytes=need + sum(size["keys"]) // 2, **kw).fit(X, y)
    fitted = ESKDB(max_table_bytes=need + sum(size["keys"]) + 10_000, **kw).fit(X, y)
    np.testing.assert_array_equal(fitted.predict_proba(X), whole.predict_proba(X))


def test_shared_discretisation_selects_members_one_at_a_time(monkeypatch):
    """discretization="shared", candidate_trees="cut": when the members' own trees over
    every candidate do not fit max_table_bytes at once besides the pair table and the
    union's counted keys, the members are selected one at a time (each member's trees cut
    before the next one's are built): the same model as all at once without a budget, bit
    for bit; the library's accounting at each member's selection within the budget; below
    one member's trees besides the others' cut trees, refused naming max_table_bytes (and
    before counting, by the bounds of one member's trees, when even their lower bound does
    not fit)."""
    X, y = _keys_data()
    kw = dict(_KW, n_estimators=6, discretization="shared")
    real = eskdb.ESKDB._count_shared_families
    seen = {}

    def record(self, members, stats, source):
        out = real(self, members, stats, source)
        shared = members[0]._counted_families
        seen["keys"] = eskdb._keys_bytes(shared.values())
        seen["trees"] = [sum(eskdb._sparse.tree_bytes(t, shared[t][0], self.table_.sizes,
                                                      self.table_.n_classes)
                             for t in m._plan(stats)[2]) for m in members]
        return out

    monkeypatch.setattr(eskdb.ESKDB, "_count_shared_families", record)
    whole = ESKDB(max_table_bytes=None, **kw).fit(X, y)
    monkeypatch.setattr(eskdb.ESKDB, "_count_shared_families", real)
    assert whole.member_cut_points_ is None
    table, keys, trees = whole.table_.nbytes, seen["keys"], seen["trees"]
    cut = [m._counts.arrays.nbytes for m in whole.estimators_]
    together = table + keys + sum(trees)
    alone = max(table + keys + sum(cut[:j]) + trees[j] for j in range(len(trees)))
    assert alone < together / 2

    groups, peaks = [], []
    real_next, real_passes = eskdb.ESKDB._next_group, eskdb.ESKDB._member_passes

    def next_group(self, members, start, needs, *rest):
        stop = real_next(self, members, start, needs, *rest)
        groups.append((start, stop))
        return stop

    def passes(self, members, sources, everyone=None):
        out = real_passes(self, members, sources, everyone)
        everyone = everyone or members
        peaks.append(self.table_.nbytes + keys + sum(m._held_bytes() for m in everyone))
        return out

    monkeypatch.setattr(eskdb.ESKDB, "_next_group", next_group)
    monkeypatch.setattr(eskdb.ESKDB, "_member_passes", passes)
    budget = (alone + together) // 2
    model = ESKDB(max_table_bytes=budget, **kw).fit(X, y)
    assert groups == [(j, j + 1) for j in range(6)]
    assert len(peaks) == 6 and max(peaks) <= budget
    np.testing.assert_array_equal(model.predict_proba(X), whole.predict_proba(X))
    np.testing.assert_array_equal(model.orders_, whole.orders_)
    for a, b in zip(whole.estimators_, model.estimators_, strict=True):
        np.testing.assert_array_equal(a.loo_loss_, b.loo_loss_)
    groups.clear()
    large = ESKDB(max_table_bytes=together + 100_000, **kw).fit(X, y)  # all at once
    assert groups == []
    np.testing.assert_array_equal(large.predict_proba(X), whole.predict_proba(X))
    with pytest.raises(seminaive.TableTooLargeError, match="even one member's at a time"):
        ESKDB(max_table_bytes=alone - 20_000, **kw).fit(X, y)
    # "keep": every member's trees at once, refused under them
    with pytest.raises(seminaive.TableTooLargeError, match="max_table_bytes"):
        ESKDB(max_table_bytes=budget, **dict(kw, candidate_trees="keep")).fit(X, y)


def test_refusal_names_the_least_budget_and_k(monkeypatch):
    """One member's trees over every candidate not fitting besides the others' cut trees:
    the refusal names the bytes that member needs (the least budget when it is the member
    that decides it) and the largest k whose trees of that member fit.  The least budget
    that fits (bisection) gives the model of the fit without a budget; one byte below it
    the refusal names that budget."""
    X, y = _keys_data()
    whole, size = _sizes(_KW, X, y, monkeypatch)
    lo, hi = 0, size["tables"] + sum(size["keys"]) + sum(size["trees"])
    refusals = {}

    def fit(budget):
        try:
            return ESKDB(max_table_bytes=budget, **_KW).fit(X, y)
        except seminaive.TableTooLargeError as error:
            refusals[budget] = str(error)
            return None

    assert fit(hi) is not None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fit(mid) is None:
            lo = mid
        else:
            hi = mid
    np.testing.assert_array_equal(fit(hi).predict_proba(X), whole.predict_proba(X))
    message = refusals[hi - 1]
    assert "member " in message
    assert f"raise max_table_bytes to at least {hi:,}" in message
    import re
    advised = re.search(r"use k <= (\d+)", message)
    assert advised is not None and int(advised.group(1)) < _KW["k"]
